/* The search's use of an endgame database (docs/egtb.md, "In the search"): a covered position
 * is valued exactly instead of searched, and a covered root is played and analysed by the
 * database alone. Each handle probes through its own reader, so handles on different threads
 * share one open directory. A failing probe (missing or damaged file) ends the use of the
 * database for the rest of the call: the search goes on as if none were attached. */
#include "search.h"

#include "egtb/probe.h"

void tg__search_egtb_begin(struct tg__engine *e, const struct tg_rules *rules)
{
    e->egtb_status = TG_EGTB_OK;
    e->egtb_probes = 0;
    e->egtb_on = e->egtb != NULL;
    if (e->egtb_on && !tg__rules_same(rules, tg__egtb_rules(tg__egtb_reader_db(e->egtb)))) {
        e->egtb_on = false;
        e->egtb_status = TG_EGTB_WRONG_RULES;
    }
}

bool tg__search_egtb_probe(struct tg__engine *e, const struct tg_pos *pos, tg_egtb_value *out)
{
    if (!e->egtb_on)
        return false;
    e->egtb_probes++;
    tg_egtb_status st = tg__egtb_reader_probe_pos(e->egtb, pos, out);
    if (st == TG_EGTB_OK)
        return true;
    if (st != TG_EGTB_NOT_IN_DATABASE) {
        e->egtb_on = false;
        e->egtb_status = st;
    }
    return false;
}

/* A value's rank for the player it is of: an endless win above every margin, an endless loss
 * below (docs/egtb.md, "Values"). */
static int order_of(const tg_egtb_value *v)
{
    return v->endless ? v->outcome * 1000 : v->final_margin;
}

/* The exact value for `me` of the position a move of `me` at `before` leaves; false if the
 * database cannot tell. */
static bool value_after(struct tg__engine *e, const struct tg_pos *before,
                        const struct tg_pos *child, bool endless_move, int me, tg_egtb_value *out)
{
    int banked = (int)before->score[me] - (int)before->score[1 - me];
    tg_egtb_value v = {0, 0, 0, 0};
    if (child->phase == TG__OVER) {
        v.outcome = child->winner == me ? 1 : child->winner == TG_DRAW ? 0 : -1;
        v.endless = endless_move;
        if (!endless_move) {
            v.final_margin = (int)child->score[me] - (int)child->score[1 - me];
            v.margin_to_go = v.final_margin - banked;
        }
        *out = v;
        return true;
    }
    tg_egtb_value theirs;
    if (!tg__search_egtb_probe(e, child, &theirs))
        return false;
    if (child->side == me) {
        v = theirs;
    } else {
        v.outcome = -theirs.outcome;
        v.endless = theirs.endless;
        v.final_margin = -theirs.final_margin;
    }
    v.margin_to_go = v.endless ? 0 : v.final_margin - banked;
    *out = v;
    return true;
}

/* The best move of covered `pos` by the database (the first legal move of equals) with its
 * value; every move's value into `values` if not NULL. False if some move cannot be valued,
 * or if the best does not reach the database's value of `pos` (then the file is damaged). */
static bool best_move(struct tg__engine *e, const struct tg_config *cfg, const struct tg_pos *pos,
                      const tg_egtb_value *at_pos, tg_move *moves, size_t n, tg_egtb_value *values,
                      size_t *best)
{
    int me = pos->side;
    int best_order = 0;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos child = *pos;
        bool endless = tg__play(cfg, &child, moves[i]) & TG__ENDLESS;
        tg_egtb_value v;
        if (!value_after(e, pos, &child, endless, me, &v))
            return false;
        if (values)
            values[i] = v;
        if (i == 0 || order_of(&v) > best_order) {
            *best = i;
            best_order = order_of(&v);
        }
    }
    if (best_order != order_of(at_pos)) {
        e->egtb_on = false;
        e->egtb_status = TG_EGTB_DAMAGED;
        return false;
    }
    return true;
}

/* The line after a root move: the database's best moves, to the end or TG__LINE_MAX moves. */
static uint32_t exact_line(struct tg__engine *e, const struct tg_config *cfg,
                           const struct tg_pos *after, tg_move first, tg_move *line)
{
    tg_move moves[TG__MAX_MOVES];
    uint32_t len = 0;
    line[len++] = first;
    struct tg_pos pos = *after;
    tg_egtb_value here;
    while (len < TG__LINE_MAX && pos.phase != TG__OVER && tg__search_egtb_probe(e, &pos, &here)) {
        size_t n = cfg->game->moves(cfg, &pos, moves), best = 0;
        if (n == 0 || !best_move(e, cfg, &pos, &here, moves, n, NULL, &best))
            break;
        line[len++] = moves[best];
        tg__play(cfg, &pos, moves[best]);
    }
    return len;
}

bool tg__search_egtb_root(struct tg__engine *e, const struct tg_config *cfg,
                          const struct tg_pos *pos, tg_move *out, struct tg__result *results)
{
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    tg_egtb_value values[TG__MAX_MOVES], at_root;
    if (!tg__search_egtb_probe(e, pos, &at_root))
        return false;
    size_t n = tg__options_now(cfg, pos, moves, prob), best = 0;
    if (n == 0 || !best_move(e, cfg, pos, &at_root, moves, n, values, &best))
        return false;
    *out = moves[best];
    for (size_t i = 0; results && i < n; i++) {
        struct tg__result *r = &results[i];
        r->move = moves[i];
        r->value = values[i].outcome;
        r->proven = true;
        r->exact = true;
        r->exact_value = values[i];
        r->exact_order = order_of(&values[i]);
        struct tg_pos child = *pos;
        tg__play(cfg, &child, moves[i]);
        r->line_len = exact_line(e, cfg, &child, moves[i], r->line);
    }
    return true;
}

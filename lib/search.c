/* The `search` engine: negamax alpha-beta with principal-variation windows, iterative
 * deepening and a transposition table, with expectimax at chance states (At-Tab
 * wa-d-Dukk's throws). Players need not alternate: a child whose side to move is the same
 * player is searched without negation. Values are integers (centi-counters of score lead;
 * results as +-WIN), so a search bounded by nodes or depth is the same on every platform.
 *
 * The table is search_table.c, the evaluation search_eval.c, the use of an attached endgame
 * database search_egtb.c.
 *
 * A value is proven when it holds for every ending: every child it rests on was proven (a
 * finished game, a proven table entry), or its best child is a proven win, which nothing
 * can better. A heuristic leaf is never proven. */
#include "search.h"

#include <string.h>

#define MAX_PLY 128
#define INF TG__INF
#define WIN TG__WIN
#define WIN_MIN TG__WIN_MIN
#define NO_MOVE TG__NO_MOVE
#define CLOCK_EVERY 256u /* positions between two reads of the clock */

struct ctx {
    struct tg__engine *e;
    const struct tg_config *cfg;
    struct tg__control *ctl;
    bool adjust;   /* results are nearer the larger: not where throws average them */
    bool majority; /* more than half the counters in score is a won game (Halusa) */
    bool stopped;
    enum tg__eval_kind eval;
    uint64_t nodes, node_limit;
    tg_move killer[MAX_PLY][2];
    /* The root's options: kept here rather than on the stack (WebAssembly's is 64 KB). */
    struct root_item {
        int value;
        bool proven;
    } item[TG__MAX_MOVES];
    size_t order[TG__MAX_MOVES];
};

/* ---- memory -------------------------------------------------------------------------- */

/* One ply's scratch: the children of the options, the options and their ordering keys. */
struct frame {
    struct tg_pos *child;
    tg_move *move;
    int32_t *key;
    double *prob;
};

/* A ply's arrays by decreasing alignment (probabilities, moves and keys, positions), each
 * ply's block rounded to 8 bytes, so that every array is aligned for its type. */
static size_t frame_bytes(size_t moves)
{
    size_t n = moves * (sizeof(double) + sizeof(tg_move) + sizeof(int32_t) + sizeof(struct tg_pos));
    return (n + 7) & ~(size_t)7;
}

static tg_status frames_reserve(struct tg__engine *e, size_t moves)
{
    if (e->frames && e->frame_moves >= moves)
        return TG_OK;
    void *p = tg__realloc(e->frames, frame_bytes(moves) * MAX_PLY);
    if (!p)
        return TG_ERR_NO_MEMORY;
    e->frames = p;
    e->frame_moves = moves;
    return TG_OK;
}

static struct frame frame_at(const struct tg__engine *e, int ply)
{
    size_t n = e->frame_moves;
    char *base = (char *)e->frames + frame_bytes(n) * (size_t)ply;
    struct frame f;
    f.prob = (double *)(void *)base;
    f.move = (tg_move *)(void *)(base + n * sizeof(double));
    f.key = (int32_t *)(void *)(base + n * (sizeof(double) + sizeof(tg_move)));
    f.child =
        (struct tg_pos *)(void *)(base + n * (sizeof(double) + sizeof(tg_move) + sizeof(int32_t)));
    return f;
}

/* ---- values -------------------------------------------------------------------------- */

static int evaluate(const struct ctx *c, const struct tg_pos *pos, int me)
{
    return tg__engine_evaluate_as(c->cfg, pos, me, c->eval);
}

static int result_value(const struct ctx *c, const struct tg_pos *over, int me, int ply)
{
    if (over->winner == TG_DRAW)
        return 0;
    int v = WIN - (c->adjust ? ply : 0);
    return over->winner == me ? v : -v;
}

/* Results are stored as distances from the node, not from the root. */
static int16_t to_tt(const struct ctx *c, int v, int ply)
{
    if (c->adjust && v >= WIN_MIN)
        v += ply;
    else if (c->adjust && v <= -WIN_MIN)
        v -= ply;
    return (int16_t)v;
}

static int from_tt(const struct ctx *c, int v, int ply)
{
    if (c->adjust && v >= WIN_MIN)
        return v - ply;
    if (c->adjust && v <= -WIN_MIN)
        return v + ply;
    return v;
}

/* ---- the table ----------------------------------------------------------------------- */

static struct tg__tt_entry *tt_probe(const struct ctx *c, uint64_t key)
{
    return tg__tt_probe(c->e, key);
}

static void tt_store(const struct ctx *c, uint64_t key, int depth, int v, int ply, unsigned flags,
                     tg_move move)
{
    tg__tt_store(c->e, key, depth, to_tt(c, v, ply), flags, move);
}

/* ---- the search ---------------------------------------------------------------------- */

/* Counts a position and says whether the search must end now. */
static bool spent(struct ctx *c)
{
    if (c->stopped)
        return true;
    c->nodes++;
    if ((c->node_limit && c->nodes > c->node_limit) ||
        tg__control_poll(c->ctl, c->nodes % CLOCK_EVERY == 0))
        c->stopped = true;
    return c->stopped;
}

static int search(struct ctx *c, const struct tg_pos *pos, int depth, int alpha, int beta, int ply,
                  bool *proven);

/* A value that no line can better: a won result (in a game with throws, won on every one). */
static bool sure_win(const struct ctx *c, int v)
{
    return c->adjust ? v >= WIN_MIN : v >= WIN;
}

/* The value for `me` of a child position searched with the window (alpha, beta) of `me`;
 * *proven: the value (or the bound it is, outside the window) holds for every ending. */
static int child_value(struct ctx *c, const struct tg_pos *child, int me, int depth, int alpha,
                       int beta, int ply, bool *proven)
{
    if (child->phase == TG__OVER) {
        c->nodes++;
        *proven = true;
        return result_value(c, child, me, ply);
    }
    if (child->side == me)
        return search(c, child, depth, alpha, beta, ply, proven);
    return -search(c, child, depth, -beta, -alpha, ply, proven);
}

/* Expectimax: every outcome, weighted by its probability in 1/65536 (the throws' sixteenths
 * are exact), with the full window below. A throw that lets the player throw again costs a
 * ply of depth, so that chains of throws stay bounded. */
static int chance_value(struct ctx *c, const struct tg_pos *pos, int depth, int ply, bool *proven)
{
    struct frame f = frame_at(c->e, ply);
    size_t n = c->cfg->game->chance(c->cfg, pos, f.move, f.prob);
    int me = pos->side;
    int64_t sum = 0, weights = 0;
    *proven = true;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos *child = &f.child[i];
        *child = *pos;
        tg__play(c->cfg, child, f.move[i]);
        int d = child->phase == TG__CHANCE && child->side == me ? depth - 1 : depth;
        bool p;
        int v = child_value(c, child, me, d, -INF, INF, ply + 1, &p);
        if (c->stopped)
            return 0;
        *proven = *proven && p;
        int64_t w = (int64_t)(f.prob[i] * 65536.0 + 0.5);
        sum += w * v;
        weights += w;
    }
    return weights ? (int)(sum / weights) : 0;
}

/* The winner of a running Halusa game already decided by the scores, or -1. Scores there
 * only grow (captures, and the counters taken at the end), so a player holding more than
 * half of the counters has won, whatever is played; the relay games are left out because an
 * endless move loses whatever the scores. */
static int decided(const struct ctx *c, const struct tg_pos *pos)
{
    if (!c->majority)
        return -1;
    if (2 * (int)pos->score[0] > c->cfg->total)
        return 0;
    if (2 * (int)pos->score[1] > c->cfg->total)
        return 1;
    return -1;
}

/* Ordering keys: the table's move, then a move that wins at once, then the killers, then
 * the score the move gains for the mover. */
static void order_keys(struct ctx *c, const struct tg_pos *pos, struct frame f, size_t n,
                       tg_move tt_move, int ply)
{
    int me = pos->side;
    long before = (long)pos->score[me] - (long)pos->score[1 - me];
    for (size_t i = 0; i < n; i++) {
        const struct tg_pos *child = &f.child[i];
        int32_t key;
        if (f.move[i] == tt_move)
            key = 1 << 30;
        else if ((child->phase == TG__OVER && child->winner == me) || decided(c, child) == me)
            key = 1 << 29;
        else {
            long gain = (long)child->score[me] - (long)child->score[1 - me] - before;
            key = (int32_t)(gain * 16);
            if (f.move[i] == c->killer[ply][0])
                key += 8;
            else if (f.move[i] == c->killer[ply][1])
                key += 4;
        }
        f.key[i] = key;
    }
}

/* Plays every move but `done` (already played, and already searched: its key is spent) and
 * gives each its ordering key. */
static void expand(struct ctx *c, const struct tg_pos *pos, struct frame f, size_t n, size_t done,
                   tg_move tt_move, int ply)
{
    for (size_t i = 0; i < n; i++) {
        if (i == done)
            continue;
        f.child[i] = *pos;
        tg__play(c->cfg, &f.child[i], f.move[i]);
    }
    order_keys(c, pos, f, n, tt_move, ply);
    if (done < n)
        f.key[done] = INT32_MIN;
}

/* The next option to try: the highest key left, the first on ties; its key is spent. */
static size_t next_best(struct frame f, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (f.key[i] != INT32_MIN && (best == n || f.key[i] > f.key[best]))
            best = i;
    f.key[best] = INT32_MIN;
    return best;
}

static int search(struct ctx *c, const struct tg_pos *pos, int depth, int alpha, int beta, int ply,
                  bool *proven)
{
    *proven = false;
    if (spent(c))
        return 0;
    int me = pos->side;
    int winner = decided(c, pos);
    if (winner >= 0) {
        *proven = true;
        return winner == me ? WIN - ply : -(WIN - ply);
    }
#ifdef TG_HAVE_EGTB
    /* A position the attached database covers is not searched: its result is known. */
    tg_egtb_value known;
    if (c->e->egtb_on && tg__search_egtb_probe(c->e, pos, &known)) {
        *proven = true;
        int v = WIN - (c->adjust ? ply : 0);
        return known.outcome > 0 ? v : known.outcome < 0 ? -v : 0;
    }
#endif
    if (depth <= 0 || ply >= MAX_PLY - 1)
        return evaluate(c, pos, me);
    bool tabled = depth > 1 || pos->phase == TG__CHANCE;
    uint64_t key = tabled ? tg__table_key(c->cfg, pos) : 0;
    tg_move tt_move = NO_MOVE;
    const struct tg__tt_entry *te = tabled ? tt_probe(c, key) : NULL;
    if (te) {
        tt_move = te->move;
        bool exact = te->flags & TG__TT_PROVEN;
        if (exact || te->depth >= depth) {
            int v = from_tt(c, te->value, ply);
            unsigned bound = te->flags & TG__TT_BOUND;
            if (bound == TG__TT_EXACT || (bound == TG__TT_LOWER && v >= beta) ||
                (bound == TG__TT_UPPER && v <= alpha)) {
                *proven = exact;
                return v;
            }
        }
    }
    if (pos->phase == TG__CHANCE) {
        int v = chance_value(c, pos, depth, ply, proven);
        if (c->stopped)
            return 0;
        tt_store(c, key, depth, v, ply, TG__TT_EXACT | (*proven ? TG__TT_PROVEN : 0), NO_MOVE);
        return v;
    }

    struct frame f = frame_at(c->e, ply);
    size_t n = c->cfg->game->moves(c->cfg, pos, f.move);
    /* The table's move is searched first (its key is the highest), so it is played alone
     * first, and the other moves only if it does not cut off: the same tree, without the
     * moves a cut-off never looks at (most of the applies of a search). */
    size_t first = n;
    for (size_t i = 0; tt_move != NO_MOVE && i < n; i++)
        if (f.move[i] == tt_move)
            first = i;
    if (first == n)
        expand(c, pos, f, n, n, tt_move, ply);
    else {
        f.child[first] = *pos;
        tg__play(c->cfg, &f.child[first], f.move[first]);
    }

    int alpha0 = alpha, best = -INF;
    tg_move best_move = NO_MOVE;
    bool all_proven = true, best_proven = false;
    for (size_t k = 0; k < n; k++) {
        size_t i = first;
        if (k > 0 || first == n) {
            if (k == 1 && first < n)
                expand(c, pos, f, n, first, tt_move, ply);
            i = next_best(f, n);
        }
        const struct tg_pos *child = &f.child[i];
        bool p;
        int v;
        if (k == 0) {
            v = child_value(c, child, me, depth - 1, alpha, beta, ply + 1, &p);
        } else {
            v = child_value(c, child, me, depth - 1, alpha, alpha + 1, ply + 1, &p);
            if (!c->stopped && v > alpha && v < beta)
                v = child_value(c, child, me, depth - 1, alpha, beta, ply + 1, &p);
        }
        if (c->stopped)
            return 0;
        all_proven = all_proven && p;
        if (v > best) {
            best = v;
            best_move = f.move[i];
            best_proven = p;
            if (v > alpha)
                alpha = v;
            if (alpha >= beta) {
                if (c->killer[ply][0] != f.move[i]) {
                    c->killer[ply][1] = c->killer[ply][0];
                    c->killer[ply][0] = f.move[i];
                }
                break;
            }
        }
    }
    unsigned bound = best <= alpha0 ? TG__TT_UPPER : best >= beta ? TG__TT_LOWER : TG__TT_EXACT;
    /* A won result needs no other move searched to the end: nothing can better it. */
    *proven = all_proven || (best_proven && sure_win(c, best));
    if (tabled)
        tt_store(c, key, depth, best, ply, bound | (*proven ? TG__TT_PROVEN : 0), best_move);
    return best;
}

/* ---- the root ------------------------------------------------------------------------ */

/* The option a search one ply deep picks: the best finished result or evaluation of the
 * position it leaves, the first of equals. */
static tg_move best_at_a_glance(const struct ctx *c, const struct tg_pos *pos,
                                const tg_move *options, size_t n)
{
    tg_move best = NO_MOVE;
    int best_value = -INF;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos child = *pos;
        tg__play(c->cfg, &child, options[i]);
        int winner = decided(c, &child);
        int v = child.phase == TG__OVER ? result_value(c, &child, pos->side, 1)
                : winner >= 0           ? (winner == pos->side ? WIN - 1 : -(WIN - 1))
                                        : evaluate(c, &child, pos->side);
        if (v > best_value) {
            best_value = v;
            best = options[i];
        }
    }
    return best;
}

/* The principal line after a root option: the table's moves; where the table has none
 * (positions one ply above the leaves are not stored, and entries get replaced), once, the
 * move picked at a glance; at a throw the likeliest outcome (the first of equal ones). */
static uint32_t principal_line(struct ctx *c, const struct tg_pos *after, tg_move first,
                               tg_move *line)
{
    tg_move options[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    uint32_t len = 0;
    bool guessed = false;
    line[len++] = first;
    struct tg_pos pos = *after;
    while (len < TG__LINE_MAX && pos.phase != TG__OVER) {
        size_t n = tg__options_now(c->cfg, &pos, options, prob);
        if (n == 0)
            break;
        tg_move m = NO_MOVE;
        if (pos.phase == TG__CHANCE) {
            size_t best = 0;
            for (size_t i = 1; i < n; i++)
                if (prob[i] > prob[best])
                    best = i;
            m = options[best];
        } else {
            const struct tg__tt_entry *te = tt_probe(c, tg__table_key(c->cfg, &pos));
            for (size_t i = 0; te && i < n; i++)
                if (options[i] == te->move)
                    m = te->move;
            if (m == NO_MOVE && !guessed) {
                m = best_at_a_glance(c, &pos, options, n);
                guessed = true;
            }
        }
        if (m == NO_MOVE)
            break;
        line[len++] = m;
        tg__play(c->cfg, &pos, m);
    }
    return len;
}

tg_status tg__engine_run(struct tg__engine *e, const struct tg_config *cfg,
                         const struct tg_pos *pos, const struct tg__bot *b, struct tg__control *ctl,
                         tg_move *out, struct tg__result *results, uint64_t *nodes,
                         uint32_t *depth_done)
{
#ifdef TG_HAVE_EGTB
    /* A root the attached database covers is played and analysed by the database alone. */
    if (e->egtb_on && tg__search_egtb_root(e, cfg, pos, out, results)) {
        *nodes = e->egtb_probes;
        *depth_done = 0;
        return TG_OK;
    }
#endif
    tg_status st = frames_reserve(e, cfg->max_moves > 0 ? cfg->max_moves : 1);
    if (st != TG_OK)
        return st;
    struct ctx *c = tg__realloc(NULL, sizeof *c);
    if (!c)
        return TG_ERR_NO_MEMORY;
    memset(c, 0, sizeof *c);
    /* Every search starts from an empty table (search_table.c). A stop there ends the search
     * before its first position; the pages not yet cleared stay marked, for the next search. */
    bool dirty = !tg__tt_clear(e, ctl); /* the table still holds an earlier search */
    c->stopped = dirty;
    c->e = e;
    c->cfg = cfg;
    c->ctl = ctl;
    c->adjust = cfg->game->chance == NULL;
    c->majority = cfg->game == &tg__halusa;
    c->node_limit = b->nodes;
    c->eval = b->eval;
    for (int p = 0; p < MAX_PLY; p++)
        c->killer[p][0] = c->killer[p][1] = NO_MOVE;

    /* The root's options live in the last frame, which the search never reaches. */
    struct frame f = frame_at(e, MAX_PLY - 1);
    size_t n = tg__options_now(cfg, pos, f.move, f.prob);
    struct root_item *item = c->item;
    size_t *order = c->order;
    int me = pos->side;
    /* Before any search, a move is worth the position it leaves. */
    for (size_t i = 0; i < n; i++) {
        f.child[i] = *pos;
        tg__play(cfg, &f.child[i], f.move[i]);
        bool over = f.child[i].phase == TG__OVER;
        item[i].value = over ? result_value(c, &f.child[i], me, 1) : evaluate(c, &f.child[i], me);
        item[i].proven = over;
    }
    bool at_chance = pos->phase == TG__CHANCE;
    if (!at_chance)
        order_keys(c, pos, f, n, NO_MOVE, 0);
    else
        for (size_t i = 0; i < n; i++)
            f.key[i] = 0;
    for (size_t k = 0; k < n; k++)
        order[k] = next_best(f, n);

    size_t best = order[0];
    uint32_t completed = 0;
    for (uint32_t d = 1; d <= b->depth && !c->stopped; d++) {
        int alpha = -INF;
        size_t iteration_best = n;
        bool all_proven = true;
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            const struct tg_pos *child = &f.child[i];
            int cd = at_chance
                         ? (child->phase == TG__CHANCE && child->side == me ? (int)d - 1 : (int)d)
                         : (int)d - 1;
            bool proven;
            int v;
            if (results || k == 0) {
                v = child_value(c, child, me, cd, -INF, INF, 1, &proven);
            } else {
                v = child_value(c, child, me, cd, alpha, alpha + 1, 1, &proven);
                if (!c->stopped && v > alpha)
                    v = child_value(c, child, me, cd, alpha, INF, 1, &proven);
            }
            if (c->stopped)
                break;
            if (results || k == 0 || v > alpha) {
                item[i].value = v;
                item[i].proven = proven;
            }
            all_proven = all_proven && proven;
            if (k == 0 || v > alpha) {
                alpha = v > alpha ? v : alpha;
                iteration_best = i;
            }
        }
        if (iteration_best < n)
            best = iteration_best;
        if (c->stopped)
            break;
        completed = d;
        /* Root order for the next depth: best first, then by value, ties as before. */
        for (size_t k = 1; k < n; k++) {
            size_t x = order[k], j = k;
            while (j > 0 && item[order[j - 1]].value < item[x].value) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        for (size_t k = 0; k < n; k++)
            if (order[k] == best && k > 0) {
                memmove(&order[1], &order[0], k * sizeof order[0]);
                order[0] = best;
                break;
            }
        if (all_proven || (!results && item[best].proven && item[best].value >= WIN_MIN))
            break;
    }

    *out = f.move[best];
    if (results) {
        for (size_t i = 0; i < n; i++) {
            results[i].move = f.move[i];
            results[i].proven = item[i].proven;
            results[i].value = tg__engine_value(item[i].value, item[i].proven, !c->adjust);
            results[i].line[0] = f.move[i];
            results[i].line_len =
                dirty ? 1 : principal_line(c, &f.child[i], f.move[i], results[i].line);
        }
    }
    *nodes = c->nodes;
    *depth_done = completed;
    tg__realloc(c, 0);
    return TG_OK;
}

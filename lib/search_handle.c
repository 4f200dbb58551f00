/* tg_search: one engine behind an opaque handle. Its life is one atomic word (bot.h: IDLE,
 * RUNNING, STOPPING, FREED), so that stop and free may come from any thread, nothing ever
 * blocks, and a stop is either seen by the running call or, with no call running, by none:
 * there is no separate flag for a new call to clear, so no moment where a stop could be lost. */
#include "bot.h"

#include <string.h>

struct tg_search {
    struct tg__bot bot;
    atomic_int life;
    struct tg__engine engine; /* `search` only */
    /* The last analysis: the position it was of (to write its lines) and its results. */
    struct tg_config cfg;
    struct tg_pos root;
    struct tg__result *results;
    size_t result_count, result_cap;
    uint64_t nodes;
    uint32_t depth;
};

tg_status tg_search_new(const char *bot_spec, tg_search **out)
{
    if (!bot_spec || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__bot b;
    tg_status st = tg__bot_parse(bot_spec, &b);
    if (st != TG_OK)
        return st;
    tg_search *h = tg__realloc(NULL, sizeof *h);
    if (!h)
        return TG_ERR_NO_MEMORY;
    memset(h, 0, sizeof *h);
    h->bot = b;
    atomic_init(&h->life, TG__IDLE);
    if ((b.kind == TG__BOT_SEARCH || b.kind == TG__BOT_PROVE) &&
        (st = tg__engine_init(&h->engine, b.tt_mb)) != TG_OK) {
        tg__realloc(h, 0);
        return st;
    }
    *out = h;
    return TG_OK;
}

static void release(tg_search *h)
{
#ifdef TG_HAVE_EGTB
    tg_egtb_reader_free(h->engine.egtb);
#endif
    tg__engine_release(&h->engine);
    tg__realloc(h->results, 0);
    tg__realloc(h, 0);
}

void tg_search_free(tg_search *h)
{
    if (!h)
        return;
    /* IDLE: ours to release. RUNNING or STOPPING: FREED hands the release to the running
     * call (which reads FREED as a stop). If that call ends meanwhile (IDLE again), the
     * exchange fails and is tried again from IDLE. */
    int life = atomic_load(&h->life);
    for (;;) {
        if (atomic_compare_exchange_weak(&h->life, &life, TG__FREED)) {
            if (life == TG__IDLE)
                release(h);
            return;
        }
    }
}

tg_status tg_search_stop(tg_search *h)
{
    if (!h)
        return TG_ERR_INVALID_ARGUMENT;
    /* Only a running call is stopped; with none running this changes nothing, so a stop
     * never reaches a later call. */
    int life = TG__RUNNING;
    atomic_compare_exchange_strong(&h->life, &life, TG__STOPPING);
    return TG_OK;
}

/* Ends a call: back to IDLE, or, if the handle was freed meanwhile, its release. */
static tg_status finish(tg_search *h, tg_status st)
{
    int life = atomic_load(&h->life);
    while (life != TG__FREED)
        if (atomic_compare_exchange_weak(&h->life, &life, TG__IDLE))
            return st;
    release(h);
    return st;
}

/* Whether result `a` goes after `b`: a lower value, or, both exact, a lower exact value (a
 * win by 2 after a win by 6). */
static bool ranks_below(const struct tg__result *a, const struct tg__result *b)
{
    if (a->value != b->value)
        return a->value < b->value;
    return a->exact && b->exact && a->exact_order < b->exact_order;
}

static tg_status run(tg_search *h, const tg_state *s, uint64_t *rng, tg_move *out, bool analyse)
{
    if (!h || !s || !rng || (!analyse && !out))
        return TG_ERR_INVALID_ARGUMENT;
    int life = TG__IDLE;
    if (!atomic_compare_exchange_strong(&h->life, &life, TG__RUNNING))
        return TG_ERR_BUSY;
    h->result_count = 0;
    h->nodes = 0;
    h->depth = 0;
    const struct tg_config *cfg = &s->rules.cfg;
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, &s->pos, moves, prob);
    if (n == 0)
        return finish(h, TG_ERR_GAME_OVER);
    bool prove = h->bot.kind == TG__BOT_PROVE;
    if (prove && cfg->game->chance) /* the prover does not average throws (prove.c) */
        return finish(h, TG_ERR_BAD_OPTION);
    if ((analyse || prove) && h->result_cap < n) {
        struct tg__result *grown = tg__realloc(h->results, n * sizeof *grown);
        if (!grown)
            return finish(h, TG_ERR_NO_MEMORY);
        h->results = grown;
        h->result_cap = n;
    }
    struct tg__result *results = analyse || prove ? h->results : NULL;
    for (size_t i = 0; results && i < n; i++)
        results[i].exact = false;
#ifdef TG_HAVE_EGTB
    tg__search_egtb_begin(&h->engine, &s->rules);
#endif
    uint64_t next = *rng;
    tg_move m = moves[0];
    tg_status st = TG_OK;
    struct tg__control ctl;
    tg__control_start(&ctl, &h->life, h->bot.time_ms);
    bool chance = s->pos.phase == TG__CHANCE;
    if (!analyse && chance)
        m = tg__pick(cfg, &s->pos, &next, moves, prob, n);
    else if (prove)
        st = tg__prove_run(&h->engine, cfg, &s->pos, &h->bot, &ctl, !analyse, results,
                           &h->nodes);
    else if (h->bot.kind == TG__BOT_SEARCH && (analyse || n > 1))
        st = tg__engine_run(&h->engine, cfg, &s->pos, &h->bot, &ctl, &m, results, &h->nodes,
                            &h->depth);
    else if (analyse && (chance || h->bot.kind != TG__BOT_MCTS))
        tg__one_ply_results(cfg, &s->pos, results);
    else
        st = tg__bot_run(cfg, &s->pos, &h->bot, &ctl, &next, &m, results, &h->nodes);
    if (st != TG_OK)
        return finish(h, st);
    if (prove && !analyse) {
        /* The best value found, a proven one before an unknown of the same value (a draw
         * before what may be a loss), the first legal move of equals. */
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (results[i].value > results[best].value ||
                (results[i].value == results[best].value && results[i].proven &&
                 !results[best].proven))
                best = i;
        m = results[best].move;
    }
    if (analyse) {
        /* Best first; equal values keep the order of the legal moves (a stable insertion). */
        for (size_t i = 1; i < n; i++) {
            struct tg__result x = results[i];
            size_t j = i;
            while (j > 0 && ranks_below(&results[j - 1], &x)) {
                results[j] = results[j - 1];
                j--;
            }
            results[j] = x;
        }
        h->cfg = *cfg;
        h->root = s->pos;
        h->result_count = n;
    } else {
        *out = m;
    }
    *rng = next;
    return finish(h, TG_OK);
}

tg_status tg_search_choose(tg_search *h, const tg_state *s, uint64_t *rng, tg_move *out)
{
    return run(h, s, rng, out, false);
}

tg_status tg_search_analyse(tg_search *h, const tg_state *s, uint64_t *rng)
{
    return run(h, s, rng, NULL, true);
}

static bool idle(const tg_search *h)
{
    return atomic_load(&((tg_search *)h)->life) == TG__IDLE;
}

size_t tg_search_result_count(const tg_search *h)
{
    return h && idle(h) ? h->result_count : 0;
}

tg_status tg_search_result(const tg_search *h, size_t i, tg_move *move, double *value, bool *proven)
{
    if (!h)
        return TG_ERR_INVALID_ARGUMENT;
    if (!idle(h))
        return TG_ERR_BUSY;
    if (i >= h->result_count)
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg__result *r = &h->results[i];
    if (move)
        *move = r->move;
    if (value)
        *value = r->value;
    if (proven)
        *proven = r->proven;
    return TG_OK;
}

static void write_line(const tg_search *h, const struct tg__result *r, struct tg_out *o)
{
    struct tg_pos pos = h->root;
    for (uint32_t k = 0; k < r->line_len; k++) {
        if (k)
            tg__out_mem(o, " ", 1);
        h->cfg.game->move_to_string(&h->cfg, &pos, r->line[k], o);
        tg__play(&h->cfg, &pos, r->line[k]);
    }
}

tg_status tg_search_result_line(const tg_search *h, size_t i, char *buf, size_t cap, size_t *needed)
{
    if (!h || (!buf && cap))
        return TG_ERR_INVALID_ARGUMENT;
    if (!idle(h))
        return TG_ERR_BUSY;
    if (i >= h->result_count)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_out measure = {NULL, 0, 0};
    write_line(h, &h->results[i], &measure);
    if (needed)
        *needed = measure.len;
    if (!buf)
        return TG_OK;
    if (measure.len >= cap)
        return TG_ERR_BUFFER_TOO_SMALL;
    struct tg_out o = {buf, cap, 0};
    write_line(h, &h->results[i], &o);
    return TG_OK;
}

tg_status tg_search_stats(const tg_search *h, uint64_t *nodes, uint32_t *depth)
{
    if (!h)
        return TG_ERR_INVALID_ARGUMENT;
    if (!idle(h))
        return TG_ERR_BUSY;
    if (nodes)
        *nodes = h->nodes;
    if (depth)
        *depth = h->depth;
    return TG_OK;
}

#ifdef TG_HAVE_EGTB
tg_status tg_search_set_egtb(tg_search *h, const tg_egtb *db)
{
    if (!h)
        return TG_ERR_INVALID_ARGUMENT;
    if (h->bot.kind != TG__BOT_SEARCH)
        return TG_ERR_BAD_OPTION;
    int life = TG__IDLE;
    /* Held as RUNNING while the reader changes, so no search call can start meanwhile. */
    if (!atomic_compare_exchange_strong(&h->life, &life, TG__RUNNING))
        return TG_ERR_BUSY;
    tg_egtb_reader *reader = NULL;
    if (db && tg_egtb_reader_new(db, &reader) != TG_EGTB_OK)
        return finish(h, TG_ERR_NO_MEMORY);
    tg_egtb_reader_free(h->engine.egtb);
    h->engine.egtb = reader;
    h->engine.egtb_status = TG_EGTB_OK;
    return finish(h, TG_OK);
}

tg_egtb_status tg_search_egtb_status(const tg_search *h)
{
    if (!h)
        return TG_EGTB_BAD_ARGUMENT;
    return idle(h) ? h->engine.egtb_status : TG_EGTB_OK;
}

tg_status tg_search_result_exact(const tg_search *h, size_t i, tg_egtb_value *value, bool *exact)
{
    if (!h)
        return TG_ERR_INVALID_ARGUMENT;
    if (!idle(h))
        return TG_ERR_BUSY;
    if (i >= h->result_count)
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg__result *r = &h->results[i];
    if (exact)
        *exact = r->exact;
    if (value && r->exact)
        *value = r->exact_value;
    return TG_OK;
}
#endif

/* Built-in bots: random, greedy and UCT search. They work on copies of the internal position
 * (struct tg_pos), never on the caller's state, and draw every random number from a private
 * copy of the caller's generator that is written back only on success. */
#include "bot.h"

#include <math.h>
#include <string.h>

#define MCTS_ITERATIONS_DEFAULT 1000u
#define MCTS_ITERATIONS_MAX 10000000u
#define MCTS_EXPLORATION_DEFAULT 1.0
#define MCTS_EXPLORATION_MAX 100.0
/* Random games of every game here end in a few thousand plies; the cap only guards the
 * search against a rule set whose random games could run unboundedly long. */
#define MCTS_PLAYOUT_PLIES 1000000u
/* Iterations between two reads of the clock under `time=`. */
#define MCTS_CLOCK_EVERY 16u

/* ---- the spec ------------------------------------------------------------------------ */

static bool span_is(const char *p, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(p, word, n) == 0;
}

/* 1 to 8 decimal digits, no sign, no leading zero but "0" itself; at most `max`. */
static bool parse_count(const char *p, size_t n, uint32_t max, uint32_t *out)
{
    if (n == 0 || n > 8 || (p[0] == '0' && n > 1))
        return false;
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (uint32_t)(p[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* "D", "DD.DDD": 1 to 3 integer digits, optionally a point and 1 to 6 fraction digits. The
 * value is formed exactly as an integer over a power of ten, so it is the same everywhere. */
static bool parse_decimal(const char *p, size_t n, double max, double *out)
{
    size_t point = n;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '.') {
            point = i;
            break;
        }
    size_t fraction = point < n ? n - point - 1 : 0;
    if (point == 0 || point > 3 || (point < n && (fraction == 0 || fraction > 6)))
        return false;
    uint32_t whole = 0, scaled = 0, scale = 1;
    if (!parse_count(p, point, 999, &whole))
        return false;
    for (size_t i = point + 1; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        scaled = scaled * 10 + (uint32_t)(p[i] - '0');
        scale *= 10;
    }
    double v = (double)whole + (double)scaled / (double)scale;
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* A whole number 1..max of 1 to 10 digits (parse_count reads up to 8). */
static bool parse_limit(const char *p, size_t n, uint32_t max, uint32_t *out)
{
    unsigned long v;
    if (n > 10 || !tg__parse_uint(p, n, max, &v) || v == 0)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* name, or mcts:key=value,... or search:key=value,...; every key at most once. */
tg_status tg__bot_parse(const char *spec, struct tg__bot *b)
{
    const char *colon = strchr(spec, ':');
    size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
    memset(b, 0, sizeof *b);
    b->iterations = MCTS_ITERATIONS_DEFAULT;
    b->exploration = MCTS_EXPLORATION_DEFAULT;
    b->depth = TG__SEARCH_DEPTH_MAX;
    b->tt_mb = TG__SEARCH_TT_DEFAULT_MB;
    if (span_is(spec, name_len, "random"))
        b->kind = TG__BOT_RANDOM;
    else if (span_is(spec, name_len, "greedy"))
        b->kind = TG__BOT_GREEDY;
    else if (span_is(spec, name_len, "mcts"))
        b->kind = TG__BOT_MCTS;
    else if (span_is(spec, name_len, "search"))
        b->kind = TG__BOT_SEARCH;
    else if (span_is(spec, name_len, "prove"))
        b->kind = TG__BOT_PROVE;
    else
        return TG_ERR_BAD_OPTION;
    bool mcts = b->kind == TG__BOT_MCTS, prove = b->kind == TG__BOT_PROVE;
    bool search = b->kind == TG__BOT_SEARCH || prove; /* prove takes search's nodes=, tt= */
    if (prove)
        b->depth = TG__PROVE_DEPTH_MAX;
    if (!colon) {
        if (search)
            b->nodes = TG__SEARCH_NODES_DEFAULT;
        return TG_OK;
    }
    if (!mcts && !search)
        return TG_ERR_BAD_OPTION;
    bool seen_iterations = false, seen_exploration = false, seen_time = false, seen_nodes = false,
         seen_depth = false, seen_tt = false, seen_eval = false;
    const char *p = colon + 1;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return TG_ERR_BAD_OPTION;
        size_t key_len = (size_t)(eq - p);
        const char *value = eq + 1;
        size_t value_len = len - key_len - 1;
        if (mcts && span_is(p, key_len, "iterations") && !seen_iterations) {
            if (!parse_count(value, value_len, MCTS_ITERATIONS_MAX, &b->iterations) ||
                b->iterations == 0)
                return TG_ERR_BAD_OPTION;
            seen_iterations = true;
        } else if (mcts && span_is(p, key_len, "c") && !seen_exploration) {
            if (!parse_decimal(value, value_len, MCTS_EXPLORATION_MAX, &b->exploration))
                return TG_ERR_BAD_OPTION;
            seen_exploration = true;
        } else if (span_is(p, key_len, "time") && !seen_time) {
            if (!parse_limit(value, value_len, TG__TIME_MAX_MS, &b->time_ms))
                return TG_ERR_BAD_OPTION;
            seen_time = true;
        } else if (search && span_is(p, key_len, "nodes") && !seen_nodes) {
            if (!parse_limit(value, value_len, TG__SEARCH_NODES_MAX, &b->nodes))
                return TG_ERR_BAD_OPTION;
            seen_nodes = true;
        } else if (search && span_is(p, key_len, "depth") && !seen_depth) {
            if (!parse_limit(value, value_len, prove ? TG__PROVE_DEPTH_MAX : TG__SEARCH_DEPTH_MAX,
                             &b->depth))
                return TG_ERR_BAD_OPTION;
            seen_depth = true;
        } else if (search && span_is(p, key_len, "tt") && !seen_tt) {
            if (!parse_limit(value, value_len, TG__SEARCH_TT_MAX_MB, &b->tt_mb))
                return TG_ERR_BAD_OPTION;
            seen_tt = true;
        } else if (b->kind == TG__BOT_SEARCH && span_is(p, key_len, "eval") && !seen_eval) {
            if (span_is(value, value_len, "classic"))
                b->eval = TG__EVAL_CLASSIC;
            else if (span_is(value, value_len, "fitted"))
                b->eval = TG__EVAL_FITTED;
            else
                return TG_ERR_BAD_OPTION;
            seen_eval = true;
        } else {
            return TG_ERR_BAD_OPTION;
        }
        if (!end)
            break;
        p = end + 1;
    }
    /* mcts:time= alone is bounded by its tree; search with only tt= has the default budget. */
    if (mcts && seen_time && !seen_iterations)
        b->iterations = 0;
    if (search && !seen_time && !seen_nodes && !seen_depth)
        b->nodes = TG__SEARCH_NODES_DEFAULT;
    /* The prover's budget is always a number of positions (with time= alone, the largest);
     * its depth= is the longest line, not a budget. */
    if (prove && !seen_nodes)
        b->nodes = seen_time ? TG__SEARCH_NODES_MAX : TG__SEARCH_NODES_DEFAULT;
    return TG_OK;
}

tg_status tg_bot_check(const char *bot_spec)
{
    if (!bot_spec)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__bot b;
    return tg__bot_parse(bot_spec, &b);
}

/* ---- greedy -------------------------------------------------------------------------- */

/* Outright results dominate any score lead: scores are 16-bit. */
static long greedy_value(const struct tg_pos *after, int me)
{
    long lead = (long)after->score[me] - (long)after->score[1 - me];
    if (after->phase != TG__OVER || after->winner == TG_DRAW)
        return lead;
    return after->winner == me ? 1000000L + lead : -1000000L + lead;
}

static tg_move greedy_choose(const struct tg_config *cfg, const struct tg_pos *pos,
                             const tg_move *moves, size_t n, uint64_t *rng)
{
    uint16_t best[TG__MAX_MOVES];
    size_t best_count = 0;
    long best_value = 0;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos after = *pos;
        tg__play(cfg, &after, moves[i]);
        long v = greedy_value(&after, pos->side);
        if (best_count == 0 || v > best_value) {
            best_value = v;
            best_count = 0;
        }
        if (v == best_value)
            best[best_count++] = (uint16_t)i;
    }
    if (best_count == 1) /* the generator is spent only on ties */
        return moves[best[0]];
    return moves[best[tg__uniform_below(rng, (uint32_t)best_count)]];
}

/* ---- UCT ----------------------------------------------------------------------------- */

/* One node per position reached by a path of moves from the root; children in a sibling
 * list. Chance outcomes are nodes too, so that a decision node always stands for exactly
 * one position and its legal moves never change between visits. */
struct node {
    tg_move move;          /* the move from the parent */
    uint32_t parent;       /* index; the root (0) is its own parent */
    uint32_t first_child;  /* index, 0 for none: the root is never a child */
    uint32_t next_sibling; /* index, 0 for none */
    uint32_t visits;
    uint16_t children; /* how many children exist */
    uint8_t mover;     /* the player to move at the parent: rewards are theirs */
    uint8_t unused;
    double reward; /* the mover's rewards summed over the visits: 1 win, 1/2 draw, 0 loss */
};

_Static_assert(sizeof(struct node) == 32, "the documented tree bound is 32 bytes a node");

struct tree {
    struct node *node;
    uint32_t count;
};

static uint32_t add_child(struct tree *t, uint32_t parent, tg_move m, uint8_t mover)
{
    uint32_t i = t->count++;
    struct node *c = &t->node[i];
    memset(c, 0, sizeof *c);
    c->move = m;
    c->parent = parent;
    c->mover = mover;
    c->next_sibling = t->node[parent].first_child;
    t->node[parent].first_child = i;
    t->node[parent].children++;
    return i;
}

static uint32_t find_child(const struct tree *t, uint32_t parent, tg_move m)
{
    for (uint32_t i = t->node[parent].first_child; i; i = t->node[i].next_sibling)
        if (t->node[i].move == m)
            return i;
    return 0;
}

/* An untried move of a decision node, uniformly among the untried. */
static tg_move untried_move(const struct tree *t, uint32_t at, const tg_move *moves, size_t n,
                            uint64_t *rng)
{
    bool tried[TG__MAX_MOVES];
    memset(tried, 0, n * sizeof *tried);
    for (uint32_t i = t->node[at].first_child; i; i = t->node[i].next_sibling) {
        size_t lo = 0, hi = n; /* moves are ascending */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (moves[mid] < t->node[i].move)
                lo = mid + 1;
            else
                hi = mid;
        }
        tried[lo] = true;
    }
    uint32_t k = tg__uniform_below(rng, (uint32_t)(n - t->node[at].children));
    for (size_t j = 0;; j++)
        if (!tried[j] && k-- == 0)
            return moves[j];
}

static uint32_t ucb_child(const struct tree *t, uint32_t at, double exploration)
{
    double log_visits = log((double)t->node[at].visits);
    uint32_t best = 0;
    double best_score = 0.0;
    for (uint32_t i = t->node[at].first_child; i; i = t->node[i].next_sibling) {
        const struct node *c = &t->node[i];
        double score = c->reward / c->visits + exploration * sqrt(log_visits / c->visits);
        if (best == 0 || score > best_score ||
            (score == best_score && c->move < t->node[best].move)) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

/* Player 0's reward for a finished (or cut-off) playout. */
static double reward_of_player0(const struct tg_pos *pos)
{
    if (pos->phase == TG__OVER)
        return pos->winner == 0 ? 1.0 : pos->winner == 1 ? 0.0 : 0.5;
    return pos->score[0] > pos->score[1] ? 1.0 : pos->score[0] < pos->score[1] ? 0.0 : 0.5;
}

static void mcts_iteration(const struct tg_config *cfg, const struct tg_pos *root, struct tree *t,
                           double exploration, uint64_t *rng)
{
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    struct tg_pos pos = *root;
    uint32_t at = 0;
    for (;;) {
        size_t n = tg__options_now(cfg, &pos, moves, prob);
        if (n == 0)
            break;
        uint8_t mover = pos.side;
        uint32_t next;
        if (pos.phase == TG__CHANCE) {
            tg_move m = tg__pick(cfg, &pos, rng, moves, prob, n);
            next = find_child(t, at, m);
            if (!next) {
                tg__play(cfg, &pos, m);
                at = add_child(t, at, m, mover);
                break;
            }
        } else if (t->node[at].children < n) {
            tg_move m = untried_move(t, at, moves, n, rng);
            tg__play(cfg, &pos, m);
            at = add_child(t, at, m, mover);
            break;
        } else {
            next = ucb_child(t, at, exploration);
        }
        tg__play(cfg, &pos, t->node[next].move);
        at = next;
    }
    tg__playout(cfg, &pos, rng, MCTS_PLAYOUT_PLIES, NULL);
    double r0 = reward_of_player0(&pos);
    for (;;) {
        struct node *nd = &t->node[at];
        nd->visits++;
        nd->reward += nd->mover == 0 ? r0 : 1.0 - r0;
        if (at == 0)
            break;
        at = nd->parent;
    }
}

/* The most visited root decision; ties go to the better mean, then the lower move. */
static tg_move most_visited(const struct tree *t)
{
    uint32_t best = 0;
    for (uint32_t i = t->node[0].first_child; i; i = t->node[i].next_sibling) {
        const struct node *c = &t->node[i], *b = &t->node[best];
        if (best == 0 || c->visits > b->visits)
            best = i;
        else if (c->visits == b->visits) {
            /* equal visits: compare means without dividing */
            if (c->reward > b->reward || (c->reward == b->reward && c->move < b->move))
                best = i;
        }
    }
    return t->node[best].move;
}

/* The tree grows as needed, up to `bound` nodes: a `time=` search cannot know its
 * iterations, and a short one should not reserve 32 MB. */
static bool tree_reserve(struct tree *t, uint32_t *cap, uint32_t bound)
{
    if (t->count < *cap)
        return true;
    uint32_t grown = *cap >= bound / 2 ? bound : *cap * 2;
    struct node *p = tg__realloc(t->node, (size_t)grown * sizeof *p);
    if (!p)
        return false;
    t->node = p;
    *cap = grown;
    return true;
}

/* Walks from the root along the most visited children: the line after root decision `m`. */
static uint32_t mcts_line(const struct tree *t, tg_move m, tg_move *line)
{
    uint32_t len = 0, at = find_child(t, 0, m);
    while (at && len < TG__LINE_MAX) {
        line[len++] = t->node[at].move;
        uint32_t next = 0;
        for (uint32_t i = t->node[at].first_child; i; i = t->node[i].next_sibling)
            if (!next || t->node[i].visits > t->node[next].visits)
                next = i;
        at = next;
    }
    return len;
}

static tg_status mcts_run(const struct tg_config *cfg, const struct tg_pos *root,
                          const struct tg__bot *b, struct tg__control *ctl, uint64_t *rng,
                          tg_move *out, struct tg__result *results, uint64_t *iterations)
{
    /* Each iteration adds at most one node. */
    uint32_t bound = (b->iterations ? b->iterations : TG__MCTS_TIMED_NODES) + 1;
    uint32_t cap = b->time_ms && bound > 4096 ? 4096 : bound;
    struct tree t = {tg__realloc(NULL, (size_t)cap * sizeof *t.node), 1};
    if (!t.node)
        return TG_ERR_NO_MEMORY;
    memset(&t.node[0], 0, sizeof t.node[0]);
    uint32_t i = 0, limit = b->iterations ? b->iterations : UINT32_MAX;
    /* One iteration at least, so that the root has a child to return. */
    do {
        if (!tree_reserve(&t, &cap, bound)) {
            tg__realloc(t.node, 0);
            return TG_ERR_NO_MEMORY;
        }
        mcts_iteration(cfg, root, &t, b->exploration, rng);
        i++;
    } while (i < limit && t.count < bound && !tg__control_poll(ctl, i % MCTS_CLOCK_EVERY == 0));
    *out = most_visited(&t);
    *iterations = i;
    if (results) {
        tg_move moves[TG__MAX_MOVES];
        size_t n = cfg->game->moves(cfg, root, moves);
        for (size_t k = 0; k < n; k++) {
            struct tg__result *r = &results[k];
            struct tg_pos after = *root;
            tg__play(cfg, &after, moves[k]);
            uint32_t at = find_child(&t, 0, moves[k]);
            r->move = moves[k];
            r->proven = after.phase == TG__OVER;
            if (r->proven)
                r->value = after.winner == TG_DRAW ? 0.0 : after.winner == root->side ? 1.0 : -1.0;
            else if (at)
                r->value = 2.0 * t.node[at].reward / t.node[at].visits - 1.0;
            else
                r->value = tg__engine_value(tg__engine_evaluate(cfg, &after, root->side), false,
                                            cfg->game->chance != NULL);
            r->line_len = at ? mcts_line(&t, moves[k], r->line) : 1;
            r->line[0] = moves[k];
        }
    }
    tg__realloc(t.node, 0);
    return TG_OK;
}

void tg__one_ply_results(const struct tg_config *cfg, const struct tg_pos *root,
                         struct tg__result *results)
{
    tg_move moves[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, root, moves, NULL);
    for (size_t k = 0; k < n; k++) {
        struct tg__result *r = &results[k];
        struct tg_pos after = *root;
        tg__play(cfg, &after, moves[k]);
        r->move = moves[k];
        r->proven = after.phase == TG__OVER;
        if (r->proven)
            r->value = after.winner == TG_DRAW ? 0.0 : after.winner == root->side ? 1.0 : -1.0;
        else
            r->value = tg__engine_value(tg__engine_evaluate(cfg, &after, root->side), false,
                                        cfg->game->chance != NULL);
        r->line_len = 1;
        r->line[0] = moves[k];
    }
}

tg_status tg__bot_run(const struct tg_config *cfg, const struct tg_pos *pos,
                      const struct tg__bot *b, struct tg__control *ctl, uint64_t *rng, tg_move *out,
                      struct tg__result *results, uint64_t *iterations)
{
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, pos, moves, prob);
    *iterations = 0;
    if (b->kind == TG__BOT_MCTS && (n > 1 || results))
        return mcts_run(cfg, pos, b, ctl, rng, out, results, iterations);
    if (b->kind == TG__BOT_RANDOM)
        *out = tg__pick(cfg, pos, rng, moves, prob, n);
    else if (n == 1)
        *out = moves[0];
    else
        *out = greedy_choose(cfg, pos, moves, n, rng);
    return TG_OK;
}

/* ---- the entry point ----------------------------------------------------------------- */

tg_status tg_bot_choose(const tg_state *s, const char *bot_spec, uint64_t *rng, tg_move *out)
{
    if (!s || !bot_spec || !rng || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__bot b;
    tg_status st = tg__bot_parse(bot_spec, &b);
    if (st != TG_OK)
        return st;
    if (s->pos.phase == TG__OVER)
        return TG_ERR_GAME_OVER;
    if (b.kind == TG__BOT_SEARCH || b.kind == TG__BOT_PROVE) {
        tg_search *h;
        if ((st = tg_search_new(bot_spec, &h)) != TG_OK)
            return st;
        st = tg_search_choose(h, s, rng, out);
        tg_search_free(h);
        return st;
    }
    const struct tg_config *cfg = &s->rules.cfg;
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, &s->pos, moves, prob);
    if (n == 0)
        return TG_ERR_GAME_OVER;
    uint64_t next = *rng;
    tg_move m;
    if (s->pos.phase == TG__CHANCE) {
        m = tg__pick(cfg, &s->pos, &next, moves, prob, n);
    } else {
        struct tg__control ctl;
        uint64_t iterations;
        tg__control_start(&ctl, NULL, b.time_ms);
        if ((st = tg__bot_run(cfg, &s->pos, &b, &ctl, &next, &m, NULL, &iterations)) != TG_OK)
            return st;
    }
    *rng = next;
    *out = m;
    return TG_OK;
}

/* Built-in bots: random, greedy and UCT search. They work on copies of the internal position
 * (struct tg_pos), never on the caller's state, and draw every random number from a private
 * copy of the caller's generator that is written back only on success. */
#include "internal.h"

#include <math.h>
#include <string.h>

enum bot_kind { BOT_RANDOM, BOT_GREEDY, BOT_MCTS };

struct bot {
    enum bot_kind kind;
    uint32_t iterations;
    double exploration;
};

#define MCTS_ITERATIONS_DEFAULT 1000u
#define MCTS_ITERATIONS_MAX 10000000u
#define MCTS_EXPLORATION_DEFAULT 1.0
#define MCTS_EXPLORATION_MAX 100.0
/* Random games of every game here end in a few thousand plies; the cap only guards the
 * search against a rule set whose random games could run unboundedly long. */
#define MCTS_PLAYOUT_PLIES 1000000u

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

/* name, or mcts:key=value,...; every key at most once. */
static tg_status bot_parse(const char *spec, struct bot *b)
{
    const char *colon = strchr(spec, ':');
    size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
    b->iterations = MCTS_ITERATIONS_DEFAULT;
    b->exploration = MCTS_EXPLORATION_DEFAULT;
    if (span_is(spec, name_len, "random"))
        b->kind = BOT_RANDOM;
    else if (span_is(spec, name_len, "greedy"))
        b->kind = BOT_GREEDY;
    else if (span_is(spec, name_len, "mcts"))
        b->kind = BOT_MCTS;
    else
        return TG_ERR_BAD_OPTION;
    if (!colon)
        return TG_OK;
    if (b->kind != BOT_MCTS)
        return TG_ERR_BAD_OPTION;
    bool seen_iterations = false, seen_exploration = false;
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
        if (span_is(p, key_len, "iterations") && !seen_iterations) {
            if (!parse_count(value, value_len, MCTS_ITERATIONS_MAX, &b->iterations) ||
                b->iterations == 0)
                return TG_ERR_BAD_OPTION;
            seen_iterations = true;
        } else if (span_is(p, key_len, "c") && !seen_exploration) {
            if (!parse_decimal(value, value_len, MCTS_EXPLORATION_MAX, &b->exploration))
                return TG_ERR_BAD_OPTION;
            seen_exploration = true;
        } else {
            return TG_ERR_BAD_OPTION;
        }
        if (!end)
            return TG_OK;
        p = end + 1;
    }
}

tg_status tg_bot_check(const char *bot_spec)
{
    if (!bot_spec)
        return TG_ERR_INVALID_ARGUMENT;
    struct bot b;
    return bot_parse(bot_spec, &b);
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

static tg_status mcts_choose(const struct tg_config *cfg, const struct tg_pos *root,
                             const struct bot *b, uint64_t *rng, tg_move *out)
{
    /* Each iteration adds at most one node. */
    size_t cap = (size_t)b->iterations + 1;
    struct tree t = {tg__realloc(NULL, cap * sizeof *t.node), 1};
    if (!t.node)
        return TG_ERR_NO_MEMORY;
    memset(&t.node[0], 0, sizeof t.node[0]);
    for (uint32_t i = 0; i < b->iterations; i++)
        mcts_iteration(cfg, root, &t, b->exploration, rng);
    *out = most_visited(&t);
    tg__realloc(t.node, 0);
    return TG_OK;
}

/* ---- the entry point ----------------------------------------------------------------- */

tg_status tg_bot_choose(const tg_state *s, const char *bot_spec, uint64_t *rng, tg_move *out)
{
    if (!s || !bot_spec || !rng || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct bot b;
    tg_status st = bot_parse(bot_spec, &b);
    if (st != TG_OK)
        return st;
    if (s->pos.phase == TG__OVER)
        return TG_ERR_GAME_OVER;
    const struct tg_config *cfg = &s->rules.cfg;
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, &s->pos, moves, prob);
    if (n == 0)
        return TG_ERR_GAME_OVER;
    uint64_t next = *rng;
    tg_move m;
    if (s->pos.phase == TG__CHANCE || b.kind == BOT_RANDOM)
        m = tg__pick(cfg, &s->pos, &next, moves, prob, n);
    else if (n == 1)
        m = moves[0];
    else if (b.kind == BOT_GREEDY)
        m = greedy_choose(cfg, &s->pos, moves, n, &next);
    else if ((st = mcts_choose(cfg, &s->pos, &b, &next, &m)) != TG_OK)
        return st;
    *rng = next;
    *out = m;
    return TG_OK;
}

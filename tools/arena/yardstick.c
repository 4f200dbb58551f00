/* The yardstick (yardstick.h): minimax with alpha-beta, values always from player 0's side
 * (so that turns which do not alternate, extra sowings and chance states need no sign
 * juggling), iterative deepening from depth 1, and a transposition table keyed by
 * tg_state_hash() that keeps each position's value, bound and best move for ordering. */
#include "yardstick.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    TABLE_BITS = 16,         /* 65,536 entries of 32 bytes: made afresh for every decision */
    MAX_DECISIONS = 512,     /* more than any rule set of the library offers */
    MAX_DEPTH = 100,         /* iterative deepening stops there even with nodes left */
    /* Throws that lead straight to throws (no move, throw again) spend no depth, so a line
     * is cut at this ply whatever its depth: the recursion's stack stays bounded. */
    MAX_PLY = 128,
    DEFAULT_NODES = 100000
};

/* A won game is worth more than any lead; the plies to it are taken off so that the quicker
 * win (and the slower loss) is preferred. */
static const double WIN = 1.0e6;

enum bound { EXACT, LOWER, UPPER };

struct entry {
    uint64_t key; /* tg_state_hash() of the position; 0 for an empty slot */
    double value;
    tg_move best;
    uint16_t depth;
    uint8_t bound, used;
};

struct context {
    tg_state *s;
    struct entry *table;
    uint64_t nodes, limit;
    bool out_of_nodes;
    tg_move root_best; /* the root's best move in the iteration that is running */
    tg_status error;
};

bool yardstick_named(const char *spec)
{
    return spec != NULL && strncmp(spec, YARDSTICK_PREFIX, strlen(YARDSTICK_PREFIX)) == 0;
}

tg_status yardstick_parse(const char *spec, uint64_t *nodes)
{
    static const char with_nodes[] = YARDSTICK_PREFIX ":nodes=";
    if (spec == NULL || nodes == NULL)
        return TG_ERR_INVALID_ARGUMENT;
    if (strcmp(spec, YARDSTICK_PREFIX) == 0) {
        *nodes = DEFAULT_NODES;
        return TG_OK;
    }
    if (strncmp(spec, with_nodes, sizeof with_nodes - 1) != 0)
        return TG_ERR_BAD_OPTION;
    const char *p = spec + sizeof with_nodes - 1;
    uint64_t n = 0;
    if (*p < '1' || *p > '9')
        return TG_ERR_BAD_OPTION;
    for (; *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (uint64_t)(*p - '0');
        if (n > 1000000000u)
            return TG_ERR_BAD_OPTION;
    }
    if (*p != '\0')
        return TG_ERR_BAD_OPTION;
    *nodes = n;
    return TG_OK;
}

/* Player 0's view of a finished game or of the score lead. */
static double evaluate(const tg_state *s, unsigned ply)
{
    if (tg_state_is_terminal(s)) {
        int w = tg_state_winner(s);
        if (w == 0)
            return WIN - ply;
        if (w == 1)
            return -WIN + ply;
        return 0.0;
    }
    return (double)(tg_state_score(s, 0) - tg_state_score(s, 1));
}

static struct entry *slot(struct context *c, uint64_t key)
{
    return &c->table[key & ((1u << TABLE_BITS) - 1)];
}

static double search(struct context *c, unsigned depth, unsigned ply, double alpha, double beta);

/* A chance state's value: the expectation over its outcomes, each searched with the full
 * window (a bound on one outcome says nothing about the sum). */
static double expectation(struct context *c, unsigned depth, unsigned ply)
{
    tg_move outcomes[MAX_DECISIONS];
    double probs[MAX_DECISIONS];
    size_t n = 0;
    tg_status st = tg_state_chance(c->s, outcomes, probs, MAX_DECISIONS, &n);
    if (st != TG_OK) {
        c->error = st;
        return 0.0;
    }
    double sum = 0.0;
    for (size_t i = 0; i < n && !c->out_of_nodes && c->error == TG_OK; i++) {
        st = tg_state_apply(c->s, outcomes[i]);
        if (st != TG_OK) {
            c->error = st;
            break;
        }
        sum += probs[i] * search(c, depth, ply + 1, -INFINITY, INFINITY);
        tg_state_undo(c->s);
    }
    return sum;
}

static double search(struct context *c, unsigned depth, unsigned ply, double alpha, double beta)
{
    if (++c->nodes > c->limit) {
        c->out_of_nodes = true;
        return 0.0;
    }
    if (tg_state_is_terminal(c->s) || depth == 0 || ply >= MAX_PLY)
        return evaluate(c->s, ply);
    int player = tg_state_player(c->s);
    if (player == TG_CHANCE)
        return expectation(c, depth, ply);
    uint64_t key = tg_state_hash(c->s) | 1u; /* never 0, the empty slot's key */
    struct entry *e = slot(c, key);
    tg_move hint = 0;
    bool has_hint = false;
    if (e->used && e->key == key) {
        has_hint = true;
        hint = e->best;
        if (e->depth >= depth && (e->bound == EXACT || (e->bound == LOWER && e->value >= beta) ||
                                  (e->bound == UPPER && e->value <= alpha)))
            return e->value;
    }
    tg_move moves[MAX_DECISIONS];
    size_t n = 0;
    tg_status st = tg_state_moves(c->s, moves, MAX_DECISIONS, &n);
    if (st != TG_OK || n == 0) {
        c->error = st != TG_OK ? st : TG_ERR_INVALID_ARGUMENT;
        return 0.0;
    }
    for (size_t i = 1; has_hint && i < n; i++)
        if (moves[i] == hint) {
            moves[i] = moves[0];
            moves[0] = hint;
        }
    bool maximising = player == 0;
    double a = alpha, b = beta;
    double best = maximising ? -INFINITY : INFINITY;
    tg_move best_move = moves[0];
    for (size_t i = 0; i < n; i++) {
        st = tg_state_apply(c->s, moves[i]);
        if (st != TG_OK) {
            c->error = st;
            return 0.0;
        }
        double v = search(c, depth - 1, ply + 1, a, b);
        tg_state_undo(c->s);
        if (c->out_of_nodes || c->error != TG_OK)
            return 0.0;
        if (maximising ? v > best : v < best) {
            best = v;
            best_move = moves[i];
        }
        if (maximising && best > a)
            a = best;
        if (!maximising && best < b)
            b = best;
        if (a >= b)
            break;
    }
    if (ply == 0)
        c->root_best = best_move;
    e = slot(c, key);
    e->key = key;
    e->value = best;
    e->best = best_move;
    e->depth = (uint16_t)depth;
    e->used = 1;
    e->bound = best <= alpha ? UPPER : best >= beta ? LOWER : EXACT;
    return best;
}

tg_status yardstick_choose(const tg_state *s, uint64_t nodes, tg_move *out)
{
    if (s == NULL || out == NULL || nodes == 0 || tg_state_is_terminal(s) ||
        tg_state_player(s) == TG_CHANCE)
        return TG_ERR_INVALID_ARGUMENT;
    tg_move moves[MAX_DECISIONS];
    size_t n = 0;
    tg_status st = tg_state_moves(s, moves, MAX_DECISIONS, &n);
    if (st != TG_OK)
        return st;
    if (n == 0)
        return TG_ERR_INVALID_ARGUMENT;
    struct context c = {.limit = nodes, .error = TG_OK, .root_best = moves[0]};
    c.table = calloc((size_t)1 << TABLE_BITS, sizeof *c.table);
    if (c.table == NULL)
        return TG_ERR_NO_MEMORY;
    st = tg_state_clone(s, &c.s);
    if (st != TG_OK) {
        free(c.table);
        return st;
    }
    tg_move chosen = moves[0];
    for (unsigned depth = 1; depth <= MAX_DEPTH && n > 1; depth++) {
        double v = search(&c, depth, 0, -INFINITY, INFINITY);
        if (c.out_of_nodes || c.error != TG_OK)
            break;
        chosen = c.root_best;
        if (fabs(v) >= WIN - MAX_DEPTH) /* a proven result: deeper iterations add nothing */
            break;
    }
    tg_state_free(c.s);
    free(c.table);
    if (c.error != TG_OK)
        return c.error;
    *out = chosen;
    return TG_OK;
}

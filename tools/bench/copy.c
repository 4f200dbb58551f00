/* tg-bench [copy]: copy, apply and apply+undo over a sample of mid-game positions. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "clock-random.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void sample_free(struct sample *sm)
{
    for (int i = 0; i < sm->n; i++)
        tg_state_free(sm->pos[i]);
    tg_state_free(sm->scratch);
    sm->n = 0;
    sm->scratch = NULL;
}

/* Mid-game decision positions of random games, each with a random legal decision. */
int sample_build(const tg_state *root, uint64_t seed, double seconds, struct sample *sm)
{
    memset(sm, 0, sizeof *sm);
    size_t cap = tg_rules_max_moves(tg_state_rules(root));
    tg_move *moves = malloc((cap ? cap : 1) * sizeof *moves);
    if (moves == NULL || tg_state_clone(root, &sm->scratch) != TG_OK) {
        free(moves);
        return 0;
    }
    uint64_t pick = seed ^ 0xA5A5A5A5u, game_rng = seed ^ 0x3C3C3C3Cu;
    int tries = 0; /* positions drawn again since the last one kept */
    double start = tool_seconds();
    while (sm->n < SAMPLE_SIZE) {
        if (++tries > 1000) /* no random game reaches a decision mid-game: give up */
            break;
        /* Where random games are slow, fewer positions: twice the run's duration at most. */
        if (sm->n >= SAMPLE_MIN && tool_seconds() - start > 2 * seconds)
            break;
        /* The length of a random game, then the same game (same generator) to a ply within
         * its middle half. */
        uint64_t rng = game_rng;
        size_t length = 0;
        tool_splitmix64(&game_rng);
        if (tg_state_copy(sm->scratch, root) != TG_OK ||
            tg_state_playout(sm->scratch, &rng, MAX_PLAYOUT_PLIES, &length) != TG_OK)
            goto fail;
        rng = game_rng;
        size_t target = length / 4 + (size_t)(tool_splitmix64(&pick) % (length / 2 + 1));
        tg_state *s = NULL;
        if (tg_state_clone(root, &s) != TG_OK)
            goto fail;
        size_t made = 0;
        if (tg_state_playout(s, &rng, target, &made) != TG_OK) {
            tg_state_free(s);
            goto fail;
        }
        /* On to a decision state. */
        while (tg_state_player(s) == TG_CHANCE && tg_state_playout(s, &rng, 1, &made) == TG_OK)
            ;
        size_t count = 0;
        if (tg_state_is_terminal(s) || tg_state_moves(s, moves, cap, &count) != TG_OK ||
            count == 0) {
            tg_state_free(s);
            continue;
        }
        tg_move m = moves[tool_splitmix64(&pick) % count];
        /* A move that takes a millisecond (an endless relay cycle being found) is drawn again. */
        double t0 = tool_seconds();
        tg_status st = tg_state_copy(sm->scratch, s);
        if (st == TG_OK)
            st = tg_state_apply(sm->scratch, m);
        double spent = tool_seconds() - t0;
        if (st != TG_OK) {
            tg_state_free(s);
            goto fail;
        }
        if (spent > SLOW_MOVE_SECONDS && tries <= SLOW_RETRIES) {
            tg_state_free(s);
            continue;
        }
        sm->pos[sm->n] = s;
        sm->move[sm->n] = m;
        sm->n++;
        tries = 0;
    }
    free(moves);
    /* Give every position's history room for one move before anything is timed. */
    for (int i = 0; i < sm->n; i++)
        if (tg_state_apply(sm->pos[i], sm->move[i]) != TG_OK || tg_state_undo(sm->pos[i]) != TG_OK)
            return 0;
    return 1;
fail:
    free(moves);
    return 0;
}

/* The three timed loops over the sample. */
enum pass { PASS_COPY, PASS_COPY_APPLY, PASS_APPLY_UNDO };

/* One pass over the sample after another until `seconds` have passed: ns per position. Every
 * call names its `kind` as a constant, so the compiler makes each its own loop, with no switch
 * left in the time measured. */
static double timed_passes(struct sample *sm, enum pass kind, double seconds, int *bad)
{
    int failed = 0;
    uint64_t calls = 0;
    double start = tool_seconds(), spent;
    do {
        for (int i = 0; i < sm->n; i++)
            switch (kind) {
            case PASS_COPY:
                failed |= tg_state_copy(sm->scratch, sm->pos[i]) != TG_OK;
                break;
            case PASS_COPY_APPLY:
                failed |= tg_state_copy(sm->scratch, sm->pos[i]) != TG_OK;
                failed |= tg_state_apply(sm->scratch, sm->move[i]) != TG_OK;
                break;
            case PASS_APPLY_UNDO:
                failed |= tg_state_apply(sm->pos[i], sm->move[i]) != TG_OK;
                failed |= tg_state_undo(sm->pos[i]) != TG_OK;
                break;
            }
        calls += (uint64_t)sm->n;
        spent = tool_seconds() - start;
    } while (spent < seconds);
    *bad |= failed;
    return spent * 1e9 / (double)calls;
}

int copy_run(struct sample *sm, double seconds, struct result *r, int run)
{
    if (sm->n == 0) {
        r->copy_ns[run] = r->apply_ns[run] = r->apply_undo_ns[run] = r->apply_undo_ratio[run] = NAN;
        return 1;
    }
    double part = seconds / 3;
    int bad = 0;
    double copy_ns = timed_passes(sm, PASS_COPY, part, &bad);
    double copy_apply_ns = timed_passes(sm, PASS_COPY_APPLY, part, &bad);
    double apply_undo_ns = timed_passes(sm, PASS_APPLY_UNDO, part, &bad);
    if (bad)
        return 0;
    double apply_ns = copy_apply_ns - copy_ns;
    r->copy_ns[run] = copy_ns;
    r->apply_ns[run] = apply_ns > 0 ? apply_ns : NAN; /* lost in the noise of the copy */
    r->apply_undo_ns[run] = apply_undo_ns;
    r->apply_undo_ratio[run] = apply_ns > 0 ? apply_undo_ns / apply_ns : NAN;
    return 1;
}

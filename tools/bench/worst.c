/* tg-bench [worst]: the slowest single apply over every legal decision of random play. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "clock-random.h"

#include <stdint.h>
#include <stdlib.h>

int worst_apply(const tg_state *root, uint64_t seed, unsigned long positions, struct result *r)
{
    size_t cap = tg_rules_max_moves(tg_state_rules(root));
    tg_move *moves = malloc(cap * sizeof *moves);
    tg_state *game = NULL, *scratch = NULL;
    int ok = moves != NULL && tg_state_clone(root, &game) == TG_OK &&
             tg_state_clone(root, &scratch) == TG_OK;
    uint64_t rng = seed;
    r->worst_ns = 0;
    while (ok && r->worst_positions < positions) {
        if (tg_state_is_terminal(game)) {
            ok = tg_state_copy(game, root) == TG_OK;
            continue;
        }
        if (tg_state_player(game) != TG_CHANCE) {
            size_t n = 0;
            ok = tg_state_moves(game, moves, cap, &n) == TG_OK;
            for (size_t i = 0; ok && i < n; i++) {
                ok = tg_state_copy(scratch, game) == TG_OK;
                /* The thread's CPU time, so that a moment when another process held the core
                 * is not taken for a slow move. */
                double t0 = tool_thread_cpu_seconds();
                ok = ok && tg_state_apply(scratch, moves[i]) == TG_OK;
                double ns = (tool_thread_cpu_seconds() - t0) * 1e9;
                r->worst_total_ns += ns;
                r->worst_moves++;
                /* A candidate for the slowest is timed again: the work is the same each time,
                 * so the fastest of the timings is the move's, the rest an interrupt's. */
                for (int again = 0; ok && ns > r->worst_ns && again < WORST_RETIMES; again++) {
                    ok = tg_state_copy(scratch, game) == TG_OK;
                    t0 = tool_thread_cpu_seconds();
                    ok = ok && tg_state_apply(scratch, moves[i]) == TG_OK;
                    double retimed = (tool_thread_cpu_seconds() - t0) * 1e9;
                    ns = retimed < ns ? retimed : ns;
                }
                if (ok && ns > r->worst_ns) {
                    r->worst_ns = ns;
                    tg_state_to_string(game, r->worst_position, sizeof r->worst_position, NULL);
                    tg_move_to_string(game, moves[i], r->worst_move, sizeof r->worst_move, NULL);
                }
            }
            r->worst_positions++;
        }
        /* On by one random ply; playout keeps no history, so the game never grows. */
        ok = ok && tg_state_playout(game, &rng, 1, NULL) == TG_OK;
    }
    tg_state_free(scratch);
    tg_state_free(game);
    free(moves);
    return ok;
}

/* tg-bench [mcts]: MCTS iterations per second at positions of random games. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "clock-random.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* Searches of `iterations` iterations at positions taken from random games of the rule set,
 * one every MCTS_SAMPLE_GAP plies or more (the next decision with at least two legal moves: a
 * single legal move is returned without searching). Only the tg_bot_choose() calls are timed;
 * the run lasts `seconds`, and at least one search unless the random games never reach such a
 * position. */
int mcts_run(const tg_state *root, double seconds, uint64_t seed, unsigned long iterations,
             struct result *r, int run)
{
    char bot[64];
    snprintf(bot, sizeof bot, "mcts:iterations=%lu", iterations);
    tg_state *game = NULL;
    if (tg_state_clone(root, &game) != TG_OK)
        return 0;
    uint64_t walk = seed ^ 0xC3C3C3C3u, search = seed;
    uint64_t searches = 0, games = 0;
    size_t since = 0; /* plies since the last search */
    double searching = 0.0, start = tool_seconds();
    for (;;) {
        if (tg_state_is_terminal(game) || tg_state_ply(game) >= MAX_PLAYOUT_PLIES) {
            games++;
            if (tool_seconds() - start >= seconds && (searches > 0 || games >= 100))
                break;
            if (tg_state_copy(game, root) != TG_OK)
                break;
            since = 0;
            continue;
        }
        size_t count = 0;
        if (since >= MCTS_SAMPLE_GAP && tg_state_player(game) != TG_CHANCE &&
            tg_state_moves(game, NULL, 0, &count) == TG_OK && count >= 2) {
            tg_move m;
            double t0 = tool_seconds();
            tg_status st = tg_bot_choose(game, bot, &search, &m);
            double t1 = tool_seconds();
            if (st != TG_OK) {
                fprintf(stderr, "tg-bench: %s: %s\n", bot, tg_status_string(st));
                tg_state_free(game);
                return 0;
            }
            searching += t1 - t0;
            searches++;
            since = 0;
            if (t1 - start >= seconds)
                break;
        }
        /* On along the random game (the history is not needed: playout of one ply). */
        size_t n = 0;
        if (tg_state_playout(game, &walk, 1, &n) != TG_OK) {
            tg_state_free(game);
            return 0;
        }
        since++;
    }
    tg_state_free(game);
    r->mcts_searches += searches;
    r->mcts_per_s[run] = searching > 0 ? (double)searches * (double)iterations / searching : NAN;
    return 1;
}

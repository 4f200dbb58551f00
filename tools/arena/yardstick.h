/* The yardstick: a textbook alpha-beta written apart from the library's `search`, over the
 * public API only, so that `search` can be measured against plain alpha-beta at equal nodes
 * (docs/strength.md, "The yardstick"). Iterative deepening, a transposition table, the score
 * lead as the evaluation, expectation at chance states; nothing else. */
#ifndef TG_ARENA_YARDSTICK_H
#define TG_ARENA_YARDSTICK_H

#include <traditional-games.h>

#include <stdbool.h>
#include <stdint.h>

/** The prefix of a yardstick bot spec: `yardstick:nodes=N`. */
#define YARDSTICK_PREFIX "yardstick"

/** Whether `spec` names the yardstick (a spec starting with "yardstick"). */
bool yardstick_named(const char *spec);

/** Reads `yardstick:nodes=N` (N from 1 to 10^9; `yardstick` alone is 100000 nodes) into
 *  `*nodes`. Returns TG_OK, or TG_ERR_BAD_OPTION for anything else (nothing written). */
tg_status yardstick_parse(const char *spec, uint64_t *nodes);

/** Chooses a decision for the player to move in `s` (not terminal, not a chance state) with
 *  at most about `nodes` positions visited: the best move of the deepest finished iteration
 *  (the first legal move if not even depth 1 finished). `s` is unchanged on return. Returns
 *  TG_OK, TG_ERR_INVALID_ARGUMENT, TG_ERR_NO_MEMORY or the library's error. */
tg_status yardstick_choose(const tg_state *s, uint64_t nodes, tg_move *out);

#endif

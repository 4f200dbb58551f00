/**
 * @file traditional-games/tg-bot.h
 * @brief The built-in bots (`random`, `greedy`, `mcts`, `search`) and their spec strings.
 *
 * Part of the public API: programs include traditional-games.h, which includes every topic
 * header in the order of the reference manual; this one also compiles on its own. The notes
 * that hold for every call (handles, thread safety, errors, the buffer contract, hostile
 * input, undefined behaviour) are those of traditional-games.h.
 */
#ifndef TRADITIONAL_GAMES_BOT_H
#define TRADITIONAL_GAMES_BOT_H

#include "tg-core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Bots
 * Built-in players for any game, through one call. A bot is named by a spec string,
 * `name` or `name:key=value,key=value`:
 *
 * | spec | plays |
 * |---|---|
 * | `random` | a legal decision drawn uniformly, exactly as tg_state_apply_random() would |
 * | `greedy` | the decision with the best immediate result for the player to move: a move that wins
 * the game outright first, then the largest lead in score (own score minus the opponent's) once the
 * move is applied, a move that loses outright last; ties broken uniformly at random (the generator
 * is drawn from only then) | | `mcts` | UCT Monte Carlo tree search with random playouts (see
 * below) | | `search` | the strongest engine: alpha-beta (expectimax at throws), see ::tg_search |
 *
 * `mcts` takes the options `iterations=N` (1 to 10000000, default 1000), `c=X` (the UCT
 * exploration constant, a decimal from 0 to 100 such as `1.4` or `0.7`, default 1.0;
 * rewards are 1 for a win, 1/2 for a draw, 0 for a loss) and `time=MS` (1 to 600000
 * milliseconds: iterations until the time is up; the tree then holds at most `iterations`
 * nodes if that is given too, else at most 1000000, grown as needed, and the search also
 * ends when the tree is full). Each iteration descends the tree
 * by UCB1 at decision states and by sampling an outcome by its probability at chance
 * states, adds one node, plays the game out at random (the moves tg_state_playout() draws)
 * and backs the result up, each node scored for the player who chose it. A playout that has
 * not ended after 1000000 plies counts as a win for the player ahead on score (a draw if
 * level). The move played is the root decision visited most (ties: the better mean, then
 * the first in tg_state_moves() order).
 *
 * `search` takes `time=MS` (1 to 600000), `nodes=N` (positions visited, 1 to 1000000000),
 * `depth=N` (decisions, 1 to 64) and `tt=MB` (transposition table, 1 to 1024, default 8), in
 * any combination, each at most once: the first limit reached ends the search. `search` alone
 * is `search:nodes=1000000`. `eval=classic` or `eval=fitted` picks the evaluation: the
 * hand-set one, or the one fitted to self-play (docs/bots.md, "The fitted evaluation");
 * without it, the one the game's matches chose. Without `time=` the move is a function of the position, the rule
 * set and the spec alone, the same on every run and platform, and `*rng` is not drawn from
 * (except to draw a throw at a chance state).
 *
 * Numbers in specs are decimal digits without sign or leading zero. Anything else (an unknown
 * bot or key, a repeated, empty or out-of-range value, options on `random` or `greedy`, a
 * trailing comma, spaces) is #TG_ERR_BAD_OPTION.
 *
 * `random` plays the move tg_state_apply_random() would play with the same `*rng`, and
 * advances `*rng` the same way. At a chance state every bot does that too: it draws the
 * outcome by its probability, so a bot can stand in for the dice. When only one decision is
 * legal, `greedy` and `mcts` return it without searching and without touching `*rng`.
 * @{ */

/**
 * @brief Choose a move for the state's side to move with a built-in bot.
 *
 * Never modifies @p s; apply the move with tg_state_apply(). The choice is a function of
 * the position, the rule set, @p bot_spec and `*rng` alone: the same call with the same
 * `*rng` gives the same move (the history of @p s does not matter). `*rng` is advanced (a
 * splitmix64 state, as for tg_state_apply_random()).
 *
 * Memory: `random` and `greedy` allocate nothing. `mcts` allocates its tree once per call,
 * 32 bytes per node, at most `iterations + 1` nodes (32 MB for a million iterations),
 * and frees it before returning; nothing else is allocated. `search` allocates what a
 * ::tg_search handle of the spec holds (see tg_search_new()) for the call. Use a ::tg_search
 * handle to stop a search from another thread or to analyse every move.
 * Thread safety: as for any function reading one state; calls on different states, or
 * concurrent calls reading the same state, are safe.
 * @param s The state (not modified).
 * @param bot_spec The bot, e.g. `"greedy"` or `"mcts:iterations=2000,c=0.7"`.
 * @param rng The caller's generator state, advanced by the call.
 * @param[out] out Receives a legal move (a decision, or a chance outcome at a chance state).
 * @retval TG_OK `*out` holds the move.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL.
 * @retval TG_ERR_BAD_OPTION @p bot_spec names no bot, or has an unknown, repeated,
 *         malformed or out-of-range option (see tg_bot_check()), or is `prove` at a game
 *         with throws.
 * @retval TG_ERR_GAME_OVER The game is over: there is nothing to choose.
 * @retval TG_ERR_NO_MEMORY The search tree could not be allocated.
 * On any error `*out` and `*rng` are unchanged.
 */
TG_API tg_status tg_bot_choose(const tg_state *s, const char *bot_spec, uint64_t *rng,
                               tg_move *out);

/**
 * @brief Check a bot spec without running it.
 *
 * Accepts exactly what tg_bot_choose() accepts: `random`, `greedy`, `mcts`, `search`,
 * `mcts:` followed by comma-separated `iterations=N`, `c=X` and `time=MS`, and `search:`
 * followed by comma-separated `time=MS`, `nodes=N`, `depth=N`, `tt=MB` and
 * `eval=classic|fitted`, and `prove` or `prove:` followed by the first four keys (`depth=` 1 to 1000 there: the longest line of a
 * proof), each key at most once, with no spaces. `prove` refuses games with throws when it
 * runs (#TG_ERR_BAD_OPTION). Useful for validating a spec from a user before a game starts.
 * @param bot_spec The spec.
 * @retval TG_OK The spec is valid.
 * @retval TG_ERR_INVALID_ARGUMENT @p bot_spec is NULL.
 * @retval TG_ERR_BAD_OPTION The spec is not valid.
 */
TG_API tg_status tg_bot_check(const char *bot_spec);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* TRADITIONAL_GAMES_BOT_H */

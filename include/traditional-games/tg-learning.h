/**
 * @file traditional-games/tg-learning.h
 * @brief The learning interface: observations, a fixed action space with its legal-action mask,
 *        and batches of states stepped together.
 *
 * Part of the public API: programs include traditional-games.h, which includes every topic
 * header in the order of the reference manual; this one also compiles on its own. The notes
 * that hold for every call (handles, thread safety, errors, the buffer contract, hostile
 * input, undefined behaviour) are those of traditional-games.h.
 */
#ifndef TRADITIONAL_GAMES_LEARNING_H
#define TRADITIONAL_GAMES_LEARNING_H

#include "tg-core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Learning interface
 * Observations, a fixed action space with a legal-action mask, and batched stepping, for
 * training agents (docs/learning.md has the layouts and an example).
 *
 * An **observation** of a state by a player is a flat vector of floats: `planes` board planes
 * of `rows * cols` values each, then `scalars` values (tg_rules_observation_layout()). The board
 * is seen from the observer's side: for player 1 it is turned half round, so observed cell
 * `o` (`row * cols + col`, row 0 nearest the observer) is cell `rows * cols - 1 - o`. Mancala
 * games have one plane of counts (plus, in a Walak-pussa match, a plane marking dead holes);
 * At-Tab wa-d-Dukk has the observer's pieces per cell, the opponent's, then the observer's
 * locked pieces and the opponent's (1 or 0). The scalars are the observer's score, the
 * opponent's, 1 if it is the observer's turn, 1 at a chance state, 1 once the game is over, 1
 * if the observer won, 1 if the opponent won, the quiet count (0 for Tab), then the game's
 * fields: Tab's stored throws counted by value (1, 2, 3, 4, 6); in a Walak-pussa match the
 * round, the observer's reserve, the opponent's, and 1 if the observer started the round.
 * Values are raw numbers, not scaled. Two positions with different position strings have
 * different observations by each player.
 *
 * An **action** is an index below tg_rules_action_count(), counted in the frame of the player
 * to move. Mancala: the observed index of the hole emptied (the mover's own half of the
 * board: `cells / 2` actions). Tab: `(o * 5 + k) * 2 + split` for the unit on observed cell
 * `o`, the throw value of index `k` in (1, 2, 3, 4, 6), `split` 0 to move the whole unit and
 * 1 to move only `v` of its pieces (`cells * 10` actions). Chance outcomes are not actions:
 * they are thrown by the library (tg_batch_step()) or applied as moves.
 * @{ */

/**
 * @brief The number of floats in an observation of a state of this rule set.
 * @param r The rule set.
 * @return `planes * rows * cols + scalars`; 0 if @p r is NULL.
 */
TG_API size_t tg_rules_observation_size(const tg_rules *r);

/**
 * @brief The shape of an observation: board planes, then scalars.
 * @param r The rule set.
 * @param[out] planes Receives the number of board planes (each `rows * cols` floats).
 * @param[out] scalars Receives the number of floats after the planes.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL; nothing written.
 */
TG_API tg_status tg_rules_observation_layout(const tg_rules *r, size_t *planes, size_t *scalars);

/**
 * @brief The size of the rule set's fixed action space (see the group's description).
 * @param r The rule set.
 * @return The number of actions; 0 if @p r is NULL.
 */
TG_API size_t tg_rules_action_count(const tg_rules *r);

/**
 * @brief The observation of a state by one player (any state: decision, chance or finished).
 * Allocates nothing.
 * @param s The state.
 * @param player The observer, 0 or 1.
 * @param[out] out Receives tg_rules_observation_size() floats.
 * @param cap How many floats @p out has room for.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p out is NULL, or @p player is not 0 or 1.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is smaller than the observation; nothing written.
 */
TG_API tg_status tg_state_observation(const tg_state *s, int player, float *out, size_t cap);

/**
 * @brief The legal decisions of the player to move as a mask over the action space.
 *
 * `mask[a]` is 1 exactly when action `a` stands for a move tg_state_moves() lists; all 0 at a
 * chance state or a finished game. Allocates nothing.
 * @param s The state.
 * @param[out] mask Receives tg_rules_action_count() bytes.
 * @param cap How many bytes @p mask has room for.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p mask is NULL.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is smaller than the action count; nothing written.
 */
TG_API tg_status tg_state_action_mask(const tg_state *s, uint8_t *mask, size_t cap);

/**
 * @brief The legal move an action stands for now.
 * @param s The state.
 * @param action The action.
 * @param[out] out Receives the move (a decision, as tg_state_moves() lists it).
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL, or @p action is not below
 *         tg_rules_action_count().
 * @retval TG_ERR_GAME_OVER The game is over.
 * @retval TG_ERR_ILLEGAL_MOVE The action is not legal now (its mask entry is 0; at a chance
 *         state no action is).
 * On any error `*out` is unchanged.
 */
TG_API tg_status tg_state_action_to_move(const tg_state *s, uint32_t action, tg_move *out);

/**
 * @brief The action of a legal decision: the inverse of tg_state_action_to_move().
 * @param s The state.
 * @param m A move.
 * @param[out] out Receives the action.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL.
 * @retval TG_ERR_GAME_OVER The game is over.
 * @retval TG_ERR_ILLEGAL_MOVE @p m is not a legal decision now (chance outcomes never are).
 * On any error `*out` is unchanged.
 */
TG_API tg_status tg_state_move_to_action(const tg_state *s, tg_move m, uint32_t *out);

/**
 * @brief tg_state_apply() of the move an action stands for.
 * @param s The state.
 * @param action The action.
 * @retval TG_OK Applied (recorded in the undo history).
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL or @p action is out of range.
 * @retval TG_ERR_GAME_OVER The game is over.
 * @retval TG_ERR_ILLEGAL_MOVE The action is not legal now.
 * @retval TG_ERR_NO_MEMORY The history could not grow.
 * On any error the state is unchanged.
 */
TG_API tg_status tg_state_apply_action(tg_state *s, uint32_t action);

/**
 * @brief An opaque batch of states of one rule set, stepped together (tg_batch_step()).
 *
 * Each state has its own generator for the chance outcomes it throws. A batch must not be
 * used by two threads at once; distinct batches may be used from different threads.
 */
typedef struct tg_batch tg_batch;

/** tg_batch_step() flag: a game that ends in the step starts again at once. */
#define TG_BATCH_AUTORESET 1u

/**
 * @brief Make a batch of @p n states at the initial position.
 *
 * State `i`'s generator starts at the `i`-th output (counted from 0) of splitmix64 seeded
 * with @p seed, as tg_batch_seed() sets it; each state then throws its opening chance
 * outcomes (Tab), as tg_batch_reset() does. All memory is allocated here.
 * @param r The rule set (copied: the caller may free it).
 * @param n The number of states, at least 1.
 * @param seed The seed of the generators.
 * @param[out] out Receives the batch; release it with tg_batch_free().
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p r or @p out is NULL, or @p n is 0.
 * @retval TG_ERR_NO_MEMORY Allocation failed.
 */
TG_API tg_status tg_batch_new(const tg_rules *r, size_t n, uint64_t seed, tg_batch **out);

/**
 * @brief Release a batch.
 * @param b The batch, or NULL (nothing happens).
 */
TG_API void tg_batch_free(tg_batch *b);

/**
 * @brief The number of states in a batch.
 * @param b The batch.
 * @return The number of states; 0 if @p b is NULL.
 */
TG_API size_t tg_batch_size(const tg_batch *b);

/**
 * @brief The rule set of a batch (owned by the batch).
 * @param b The batch.
 * @return The rule set; NULL if @p b is NULL.
 */
TG_API const tg_rules *tg_batch_rules(const tg_batch *b);

/**
 * @brief Set every state's generator from a seed, as tg_batch_new() does. Positions are
 * unchanged.
 * @param b The batch.
 * @param seed The seed.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p b is NULL.
 */
TG_API tg_status tg_batch_seed(tg_batch *b, uint64_t seed);

/**
 * @brief Start every game again, throwing opening chance outcomes with each state's generator.
 *
 * Each output buffer may be NULL; they are laid out state after state, as for
 * tg_batch_step(). Allocates nothing.
 * @param b The batch.
 * @param[out] obs NULL, or `n * tg_rules_observation_size()` floats: each state seen by its
 *             player to move.
 * @param[out] masks NULL, or `n * tg_rules_action_count()` bytes.
 * @param[out] players NULL, or `n` entries: each state's player to move.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p b is NULL.
 */
TG_API tg_status tg_batch_reset(tg_batch *b, float *obs, uint8_t *masks, int8_t *players);

/**
 * @brief Step every state of a batch with one action each.
 *
 * For each state `i`: `actions[i]` is applied if it is legal; then the chance outcomes that
 * follow are thrown with state `i`'s generator (as tg_state_apply_random() draws them), so
 * that the state is back at a decision or over. A game that ended is started again at once
 * with #TG_BATCH_AUTORESET (the outputs then describe the new game, the rewards and `done` the
 * one that ended). An action out of range, not legal, or given to a finished game is
 * refused: that state is unchanged and its status says why, while the other states step.
 *
 * Outputs, each NULL or laid out state after state: `obs` (`n * tg_rules_observation_size()`
 * floats, each state seen by `players[i]`), `masks` (`n * tg_rules_action_count()` bytes, the
 * legal actions now), `players` (`n`: the player to move, or at a finished game the player
 * who made its last move), `reward` (`n`: +1, -1 or 0 for the player who moved, nonzero only
 * when the move won or lost the game), `rewards` (`2 * n`: the same for player 0 and player 1
 * of each state), `done` (`n`: 1 if the game is over after the step, before any reset) and
 * `status` (`n`: the ::tg_status of each state's step). A refused state reports reward 0.
 * Allocates nothing.
 * @param b The batch.
 * @param actions `n` actions.
 * @param flags 0 or #TG_BATCH_AUTORESET.
 * @param[out] obs See above.
 * @param[out] masks See above.
 * @param[out] players See above.
 * @param[out] reward See above.
 * @param[out] rewards See above.
 * @param[out] done See above.
 * @param[out] status See above.
 * @retval TG_OK Every state took its action.
 * @retval TG_ERR_INVALID_ARGUMENT @p b or @p actions is NULL, or @p flags has an unknown bit:
 *         nothing changed. Also the status of the first refused state when it is this one.
 * @retval TG_ERR_ILLEGAL_MOVE The first refused state's action is not legal there.
 * @retval TG_ERR_GAME_OVER The first refused state's game is over.
 */
TG_API tg_status tg_batch_step(tg_batch *b, const uint32_t *actions, uint32_t flags, float *obs,
                               uint8_t *masks, int8_t *players, float *reward, float *rewards,
                               uint8_t *done, int32_t *status);

/**
 * @brief Start chosen games of a batch again, as #TG_BATCH_AUTORESET starts a game that ended.
 *
 * Each state `i` with `games[i]` nonzero goes back to the initial position and throws its
 * opening chance outcomes (Tab) with its own generator, exactly as a step with
 * #TG_BATCH_AUTORESET would have started it; the other states are untouched. Passing the
 * `done` output of a step made without #TG_BATCH_AUTORESET restarts the games that ended
 * after their final observations were read, giving the same games as autoreset. Only the
 * restarted states' entries of the outputs are written (laid out as for tg_batch_reset(),
 * each buffer NULL or of the whole batch's size). Allocates nothing.
 * @param b The batch.
 * @param games `n` bytes: nonzero for each state to start again.
 * @param[out] obs NULL, or `n * tg_rules_observation_size()` floats: each restarted state
 *             seen by its player to move.
 * @param[out] masks NULL, or `n * tg_rules_action_count()` bytes.
 * @param[out] players NULL, or `n` entries: each restarted state's player to move.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p b or @p games is NULL; nothing changed.
 */
TG_API tg_status tg_batch_restart(tg_batch *b, const uint8_t *games, float *obs, uint8_t *masks,
                                  int8_t *players);

/**
 * @brief Copy the position and ply of state @p i of a batch into @p dst, clearing its history.
 * @param b The batch.
 * @param i The state's index.
 * @param dst A state of the same rule set.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL or @p i is out of range.
 * @retval TG_ERR_RULES_MISMATCH @p dst has other rules; nothing changed.
 */
TG_API tg_status tg_batch_get(const tg_batch *b, size_t i, tg_state *dst);

/**
 * @brief Put a copy of a position (and ply) into state @p i of a batch.
 * @param b The batch.
 * @param i The state's index.
 * @param src A state of the same rule set at a decision or finished (not a chance state: a
 *            batch's states never wait for chance).
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL, @p i is out of range or @p src is at a
 *         chance state; nothing changed.
 * @retval TG_ERR_RULES_MISMATCH @p src has other rules; nothing changed.
 */
TG_API tg_status tg_batch_set(tg_batch *b, size_t i, const tg_state *src);

/**
 * @brief The generator state of state @p i of a batch.
 * @param b The batch.
 * @param i The state's index.
 * @param[out] out Receives the generator state.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL or @p i is out of range.
 */
TG_API tg_status tg_batch_rng(const tg_batch *b, size_t i, uint64_t *out);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* TRADITIONAL_GAMES_LEARNING_H */

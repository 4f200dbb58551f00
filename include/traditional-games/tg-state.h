/**
 * @file traditional-games/tg-state.h
 * @brief Positions: making and copying states, reading them, legal moves and chance, apply and
 *        undo, the board, notation, hashing and equality, playouts and perft.
 *
 * Part of the public API: programs include traditional-games.h, which includes every topic
 * header in the order of the reference manual; this one also compiles on its own. The notes
 * that hold for every call (handles, thread safety, errors, the buffer contract, hostile
 * input, undefined behaviour) are those of traditional-games.h.
 */
#ifndef TRADITIONAL_GAMES_STATE_H
#define TRADITIONAL_GAMES_STATE_H

#include "tg-core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name States
 * @{ */

/**
 * @brief Make the initial position of a rule set.
 * @param r The rule set (the state keeps its own copy: @p r may be freed afterwards).
 * @param[out] out Receives the new state (free with tg_state_free()); untouched on error.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p r or @p out is NULL.
 * @retval TG_ERR_NO_MEMORY Allocation failed.
 */
TG_API tg_status tg_state_new(const tg_rules *r, tg_state **out);

/**
 * @brief Make an independent copy of a state: position, ply and undo history.
 * @param s The state to copy.
 * @param[out] out Receives the clone (free with tg_state_free()); untouched on error.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p out is NULL.
 * @retval TG_ERR_NO_MEMORY Allocation failed.
 */
TG_API tg_status tg_state_clone(const tg_state *s, tg_state **out);

/**
 * @brief Copy the position and ply of @p src into an existing state of the same rules.
 *
 * The history of @p dst is cleared. This never allocates, so it is the fast way to reset a
 * scratch state in a search loop.
 * @param dst The state to overwrite.
 * @param src The state to copy from (may be @p dst itself: then only the history is cleared).
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p dst or @p src is NULL.
 * @retval TG_ERR_RULES_MISMATCH The two states are of different rule sets.
 */
TG_API tg_status tg_state_copy(tg_state *dst, const tg_state *src);

/**
 * @brief Release a state and its history.
 * @param s The state, or NULL (then nothing happens).
 */
TG_API void tg_state_free(tg_state *s);

/**
 * @brief The rule set of a state.
 * @param s The state.
 * @return The state's own copy of its rules, valid while @p s lives; NULL if @p s is NULL.
 */
TG_API const tg_rules *tg_state_rules(const tg_state *s);

/**
 * @brief Who decides now.
 * @param s The state.
 * @return #TG_PLAYER_0, #TG_PLAYER_1, #TG_CHANCE, or #TG_TERMINAL (also for a NULL @p s).
 */
TG_API int tg_state_player(const tg_state *s);

/**
 * @brief Whose turn it is, also at chance states.
 * @param s The state.
 * @return 0 or 1; #TG_TERMINAL when the game is over (also for a NULL @p s).
 */
TG_API int tg_state_turn(const tg_state *s);

/**
 * @brief Whether the game is over.
 * @param s The state.
 * @return true if finished (also for a NULL @p s, which has no moves).
 */
TG_API bool tg_state_is_terminal(const tg_state *s);

/**
 * @brief The result of the game.
 * @param s The state.
 * @return 0 or 1 (the winner), #TG_DRAW, or #TG_NO_WINNER_YET while the game runs
 *         (also for a NULL @p s).
 */
TG_API int tg_state_winner(const tg_state *s);

/**
 * @brief A player's score as the game's rules page defines it (for the mancala games with
 *        captures: counters captured, plus counters taken at the end).
 * @param s The state.
 * @param player 0 or 1.
 * @return The score, or -1 if @p s is NULL or @p player is not 0 or 1.
 */
TG_API int tg_state_score(const tg_state *s, int player);

/**
 * @brief Game-theoretic returns: +1 for a win, -1 for a loss, 0 for a draw or a running game.
 * @param s The state.
 * @param[out] out Receives the returns of player 0 and player 1.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p out is NULL.
 */
TG_API tg_status tg_state_returns(const tg_state *s, double out[2]);

/**
 * @brief Moves applied since the initial position, chance outcomes included.
 *
 * A state made by tg_state_from_string() starts at ply 0. Playouts count too.
 * @param s The state.
 * @return The ply, or 0 if @p s is NULL.
 */
TG_API size_t tg_state_ply(const tg_state *s);

/**
 * @brief The moves that tg_state_undo() can take back, oldest first.
 *
 * For a state made by tg_state_new() and never played out, these are every move applied,
 * ready to replay on a new state. Follows the buffer contract.
 * @param s The state.
 * @param buf Receives the moves; may be NULL when @p cap is 0.
 * @param cap Capacity of @p buf in moves.
 * @param[out] count Always receives the number of moves in the history.
 * @retval TG_OK Success (or only counted, with a NULL @p buf and @p cap 0).
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p count is NULL, or @p buf is NULL with @p cap > 0.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is below `*count`; nothing was written.
 */
TG_API tg_status tg_state_history(const tg_state *s, tg_move *buf, size_t cap, size_t *count);

/** @} */

/** @name Moves and chance
 * @{ */

/**
 * @brief The legal decisions of the player to move, ascending, without duplicates.
 *
 * A finished game and a chance state have 0 decisions. Follows the buffer contract; a
 * buffer of tg_rules_max_moves() entries always suffices. Allocates nothing.
 * @param s The state.
 * @param buf Receives the moves; may be NULL when @p cap is 0.
 * @param cap Capacity of @p buf in moves.
 * @param[out] count Always receives the number of legal decisions.
 * @retval TG_OK Success (or only counted).
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p count is NULL, or @p buf is NULL with @p cap > 0.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is below `*count`; nothing was written.
 */
TG_API tg_status tg_state_moves(const tg_state *s, tg_move *buf, size_t cap, size_t *count);

/**
 * @brief The chance outcomes of a #TG_CHANCE state with their probabilities (summing to 1).
 *
 * Any other state has 0 outcomes. Follows the buffer contract, for both buffers at once.
 * @param s The state.
 * @param outcomes Receives the outcomes, ascending; may be NULL when @p cap is 0.
 * @param probs Receives the probability of each outcome; may be NULL when @p cap is 0.
 * @param cap Capacity of each of @p outcomes and @p probs.
 * @param[out] count Always receives the number of outcomes.
 * @retval TG_OK Success (or only counted).
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p count is NULL, or a buffer is NULL with @p cap > 0.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is below `*count`; nothing was written.
 */
TG_API tg_status tg_state_chance(const tg_state *s, tg_move *outcomes, double *probs, size_t cap,
                                 size_t *count);

/**
 * @brief Whether tg_state_apply() would accept @p m now.
 *
 * True for a legal decision at a decision state and for a possible outcome at a chance state.
 * @param s The state.
 * @param m Any value.
 * @return true if @p m can be applied now; false otherwise, also for a NULL @p s.
 */
TG_API bool tg_state_is_legal(const tg_state *s, tg_move m);

/**
 * @brief Apply a decision, or a chance outcome at a chance state, and record it for undo.
 *
 * Cost: bounded for every rule set. The relay-sowing games (Hus, Hawalis, Walak-pussa) judge
 * a move endless when its sowing has not ended after `laps` laps (the option, default 10000;
 * see the common rules page), so one apply sows at most `laps` handfuls of at most every
 * counter in play, plus a constant-memory cycle check per lap: about 10,000 laps of work at
 * the default, under 2 ms on a 2020s desktop core. Every other move is one pass over the
 * board. The bound carries over to tg_state_apply_random(), tg_state_playout() (per ply),
 * tg_perft() (per node) and the bots (per simulated ply). With `laps=0` a move is endless
 * exactly when it would never end, judged by the cycle finder alone: exact, but cycles of
 * over 10^8 laps occur in random play, so one apply can then take seconds to minutes. Do not
 * offer `laps=0` to untrusted players or searches with a time budget.
 * @param s The state.
 * @param m The move.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL.
 * @retval TG_ERR_GAME_OVER The game is over.
 * @retval TG_ERR_ILLEGAL_MOVE @p m is not legal now.
 * @retval TG_ERR_NO_MEMORY The history could not grow; nothing was changed.
 */
TG_API tg_status tg_state_apply(tg_state *s, tg_move m);

/**
 * @brief Take back the last applied move exactly (position, ply and hash as before it).
 * @param s The state.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL.
 * @retval TG_ERR_NO_HISTORY Nothing to undo (a new state, a state from a string, or after
 *         tg_state_copy() or tg_state_playout()).
 */
TG_API tg_status tg_state_undo(tg_state *s);

/**
 * @brief Apply one random move, recorded for undo like tg_state_apply().
 *
 * At a decision state the move is drawn uniformly from tg_state_moves(); at a chance state
 * the outcome is drawn by its probability. The generator is splitmix64: each draw advances
 * `*rng` by 0x9E3779B97F4A7C15 and mixes it; a uniform index below n is the high half of
 * (32 high bits of the draw) * n with Lemire's rejection, and a chance draw compares the top
 * 53 bits as a fraction of 1 with the running sum of probabilities. One seed therefore gives
 * the same game on every platform.
 * @param s The state.
 * @param rng The caller's generator state, advanced by the call (any value is a valid seed).
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p rng is NULL.
 * @retval TG_ERR_GAME_OVER The game is over (@p rng is not advanced).
 * @retval TG_ERR_NO_MEMORY The history could not grow; nothing was changed.
 */
TG_API tg_status tg_state_apply_random(tg_state *s, uint64_t *rng);

/** @} */

/** @name Board
 * Rows count from player 0's side (row 0 nearest player 0), columns from player 0's left.
 * @{ */

/**
 * @brief Counters in a hole (mancala) or pieces in a cell (Tab).
 * @param s The state.
 * @param row 0 .. rows-1.
 * @param col 0 .. cols-1.
 * @return The count, or -1 if @p s is NULL or the cell is off the board.
 */
TG_API int tg_state_count(const tg_state *s, int row, int col);

/**
 * @brief Who a cell belongs to.
 * @param s The state.
 * @param row 0 .. rows-1.
 * @param col 0 .. cols-1.
 * @return Mancala: the player whose territory the hole is in. Tab: the owner of the pieces
 *         on it, or -1 if it is empty. -1 also if @p s is NULL or the cell is off the board.
 */
TG_API int tg_state_owner(const tg_state *s, int row, int col);

/**
 * @brief Flags of a cell: #TG_CELL_LOCKED, #TG_CELL_DEAD.
 * @param s The state.
 * @param row 0 .. rows-1.
 * @param col 0 .. cols-1.
 * @return The bit set; 0 if none, if @p s is NULL or if the cell is off the board.
 */
TG_API unsigned tg_state_flags(const tg_state *s, int row, int col);

/** @} */

/** @name Notation, hashing, equality
 * @{ */

/**
 * @brief Write a move in notation: a cell name for mancala moves (`c1`), `pass` for
 *        #TG_MOVE_PASS, Tab's forms (`e2+3`, `throw:4`) for Tab.
 *
 * The move need not be legal now, only expressible in this game. Follows the buffer contract.
 * @param s The state (its game decides the notation).
 * @param m The move.
 * @param buf Receives the NUL-terminated text; may be NULL when @p cap is 0.
 * @param cap Capacity of @p buf in bytes, including the NUL.
 * @param[out] needed If not NULL, receives the length of the text without the NUL.
 * @retval TG_OK Success (or only measured).
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL, @p buf is NULL with @p cap > 0, or @p m
 *         cannot be expressed in this game (e.g. a cell off the board).
 * @retval TG_ERR_BUFFER_TOO_SMALL The text and its NUL do not fit; only `*needed` was written.
 */
TG_API tg_status tg_move_to_string(const tg_state *s, tg_move m, char *buf, size_t cap,
                                   size_t *needed);

/**
 * @brief Read a move written in notation.
 *
 * The text is read in the context of @p s (Tab needs the board to know a unit's size); it is
 * not checked for legality: tg_state_apply() does that.
 * @param s The state.
 * @param text NUL-terminated move text.
 * @param[out] out Receives the move; untouched on error.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p s, @p text or @p out is NULL.
 * @retval TG_ERR_PARSE The text is not a move of this game (malformed, or a cell off the board).
 */
TG_API tg_status tg_move_from_string(const tg_state *s, const char *text, tg_move *out);

/**
 * @brief Write the position as one line: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`.
 *
 * The undo history is not part of the position. Follows the buffer contract.
 * @param s The state.
 * @param buf Receives the NUL-terminated text; may be NULL when @p cap is 0.
 * @param cap Capacity of @p buf in bytes, including the NUL.
 * @param[out] needed If not NULL, receives the length of the text without the NUL.
 * @retval TG_OK Success (or only measured).
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL, or @p buf is NULL with @p cap > 0.
 * @retval TG_ERR_BUFFER_TOO_SMALL The text and its NUL do not fit; only `*needed` was written.
 */
TG_API tg_status tg_state_to_string(const tg_state *s, char *buf, size_t cap, size_t *needed);

/**
 * @brief Make a state from a position string, validating everything.
 *
 * The spec at the start may be any spelling of the same rule set as @p r. The new state has
 * ply 0 and an empty history.
 * @param r The rule set the position must belong to.
 * @param text NUL-terminated position string.
 * @param[out] out Receives the new state; untouched on error.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p r, @p text or @p out is NULL.
 * @retval TG_ERR_PARSE Malformed text, a malformed spec, or a position that cannot arise in
 *         the game (wrong totals, a side to move without a legal move, bad fields).
 * @retval TG_ERR_RULES_MISMATCH The spec names a different rule set than @p r.
 * @retval TG_ERR_NO_MEMORY Allocation failed.
 */
TG_API tg_status tg_state_from_string(const tg_rules *r, const char *text, tg_state **out);

/**
 * @brief Draw the board for people: several lines of ASCII, with coordinates, scores and
 *        the side to move. The layout is not meant for parsing; use tg_state_to_string().
 *
 * Follows the buffer contract.
 * @param s The state.
 * @param buf Receives the NUL-terminated text; may be NULL when @p cap is 0.
 * @param cap Capacity of @p buf in bytes, including the NUL.
 * @param[out] needed If not NULL, receives the length of the text without the NUL.
 * @retval TG_OK Success (or only measured).
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL, or @p buf is NULL with @p cap > 0.
 * @retval TG_ERR_BUFFER_TOO_SMALL The text and its NUL do not fit; only `*needed` was written.
 */
TG_API tg_status tg_state_render(const tg_state *s, char *buf, size_t cap, size_t *needed);

/**
 * @brief A 64-bit Zobrist hash of the position (not the history).
 *
 * Equal positions have equal hashes, on every platform and in every run: the keys are fixed
 * functions of (cell, content) and of each position field.
 * @param s The state.
 * @return The hash, or 0 if @p s is NULL.
 */
TG_API uint64_t tg_state_hash(const tg_state *s);

/**
 * @brief Whether two states hold the same position of the same rule set.
 *
 * Ply and history are not compared.
 * @param a A state.
 * @param b A state.
 * @return true if equal; false if not, or if either is NULL.
 */
TG_API bool tg_state_equal(const tg_state *a, const tg_state *b);

/** @} */

/** @name Fast paths
 * @{ */

/**
 * @brief Play random moves until the game ends or @p max_plies moves were made.
 *
 * Moves are drawn as by tg_state_apply_random() but not recorded: the undo history is
 * cleared (copy the state first to keep the position). tg_state_ply() counts these moves.
 * Allocates nothing.
 * @param s The state.
 * @param rng The caller's generator state, advanced by the call.
 * @param max_plies The most moves to make (0 makes none).
 * @param[out] plies If not NULL, receives the number of moves made.
 * @retval TG_OK Success (also when the game was already over: 0 moves).
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p rng is NULL.
 */
TG_API tg_status tg_state_playout(tg_state *s, uint64_t *rng, size_t max_plies, size_t *plies);

/** Indices of the counters reported by tg_state_playout_stats(). */
enum {
    TG_STAT_PLIES = 0,     /**< Moves made: decisions and chance outcomes. */
    TG_STAT_DECISIONS = 1, /**< Players' decisions (passes included). */
    TG_STAT_CHANCE = 2,    /**< Chance outcomes (throws). */
    TG_STAT_SOWN = 3,      /**< Counters sown, one per counter dropped into a hole over every lap of
                                every move (the mancala games; 0 in At-Tab wa-d-Dukk). A move
                                found endless counts what was sown until the lap limit or a
                                repeat was reached. */
    TG_STAT_COUNT = 4 /**< How many counters this version reports; later versions only append. */
};

/**
 * @brief tg_state_playout() that also counts what the playout did.
 *
 * Plays exactly the moves tg_state_playout() would play with the same `*rng` (the state and
 * `*rng` end the same), at nearly the same speed, and writes the counters indexed by
 * #TG_STAT_PLIES, #TG_STAT_DECISIONS, #TG_STAT_CHANCE and #TG_STAT_SOWN into
 * `stats[0 .. count)`: benchmarks and game statistics without playing move by move. Entries
 * from #TG_STAT_COUNT on (a caller built against a later header) are set to 0. Allocates
 * nothing.
 * @param s The state.
 * @param rng The caller's generator state, advanced by the call.
 * @param max_plies The most moves to make (0 makes none).
 * @param[out] stats Receives the counters of this playout (not added to).
 * @param count How many entries @p stats has (0 asks for none).
 * @retval TG_OK Success (also when the game was already over: all counters 0).
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p rng is NULL, or @p stats is NULL with
 *         @p count > 0; nothing changed.
 */
TG_API tg_status tg_state_playout_stats(tg_state *s, uint64_t *rng, size_t max_plies,
                                        uint64_t *stats, size_t count);

/**
 * @brief Count the leaves of the game tree @p depth moves below @p s.
 *
 * Every applied move counts as one level: decisions and, at chance states, every chance
 * outcome (expanded, not sampled). Lines that end before @p depth contribute nothing, as in
 * chess perft; depth 0 counts @p s itself. Allocates nothing.
 * @param s The state (not modified).
 * @param depth The depth.
 * @return The leaf count; 0 if @p s is NULL.
 */
TG_API uint64_t tg_perft(const tg_state *s, unsigned depth);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* TRADITIONAL_GAMES_STATE_H */

/**
 * @file traditional-games.h
 * @brief The public API of libtraditional-games: traditional board games as a C library.
 *
 * One header holds the whole contract. Everything here is stable ABI: functions are only
 * ever added (in a new version node of the linker script), never renamed or changed.
 *
 * @par Handles
 * Two opaque handles carry all data. A ::tg_rules is an immutable rule set (one game plus
 * its options), made by tg_rules_new() and released by tg_rules_free(). A ::tg_state is one
 * position of one game plus its undo history, made by tg_state_new(), tg_state_clone() or
 * tg_state_from_string() and released by tg_state_free().
 *
 * @par Thread safety
 * The library has no global mutable state. A ::tg_rules is never modified after creation
 * and may be shared by any number of threads. A ::tg_state must not be used by two threads
 * at once without the caller's lock; distinct states may be used from different threads at
 * the same time, including states made from one shared ::tg_rules.
 *
 * @par Errors
 * Every fallible call returns a ::tg_status. A call that returns anything but #TG_OK has
 * changed nothing (no state, no output argument other than the documented `*needed` or
 * `*count`). The library never prints, never aborts and never calls `assert()` on input.
 *
 * @par Buffers
 * The caller owns every buffer. Functions that write text or lists take a buffer and its
 * capacity and report the size needed (snprintf style): with a NULL buffer and capacity 0
 * they only measure and return #TG_OK; with a buffer too small they return
 * #TG_ERR_BUFFER_TOO_SMALL and write nothing but the size. The library never returns memory
 * for the caller to free().
 *
 * @par Hostile input
 * Anything a caller or a network peer can put in a string is handled: numbers of any size
 * or sign in specs, position strings and move strings, counts that would overflow the
 * library's internal types, strings of any length, are rejected with a status (#TG_ERR_PARSE,
 * #TG_ERR_BAD_OPTION) and change nothing. NULL where a pointer is required is
 * #TG_ERR_INVALID_ARGUMENT; a capacity of 0 is always valid; tg_rules_free() and
 * tg_state_free() accept NULL; tg_state_copy() of a state onto itself is valid (it only
 * clears the history).
 *
 * @par Undefined behaviour (out of contract)
 * What the library cannot detect is the caller's responsibility, as in the C library:
 * using or freeing a handle after it was freed, or a pointer that is not a live handle of
 * this library; an input string that is not NUL-terminated (text arguments have no
 * length: the library reads up to the NUL); a capacity larger than the buffer really is;
 * an output buffer that overlaps another argument of the same call (for example the
 * outcome and probability arrays of tg_state_chance(), or a text buffer and the text being
 * parsed); and using one ::tg_state from two threads at once without a lock.
 */
#ifndef TRADITIONAL_GAMES_H
#define TRADITIONAL_GAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @cond TG_INTERNAL */
#if defined(_WIN32) && defined(TG_BUILDING_LIBRARY)
#define TG_API __declspec(dllexport)
#elif defined(_WIN32)
#define TG_API __declspec(dllimport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define TG_API __attribute__((visibility("default")))
#else
#define TG_API
#endif
/** @endcond */

/** @name Version
 * The version of the header a program was compiled against. Compare with tg_version()
 * to learn the version of the library loaded at run time.
 * @{ */
/** Major version: changes only with an incompatible ABI (it is the SONAME). */
#define TG_VERSION_MAJOR 0
/** Minor version: new functions or games, compatible with earlier minors. */
#define TG_VERSION_MINOR 4
/** Patch version: fixes only. */
#define TG_VERSION_PATCH 0
/** The version as one number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define TG_VERSION_NUMBER (TG_VERSION_MAJOR * 10000 + TG_VERSION_MINOR * 100 + TG_VERSION_PATCH)
/** @} */

/**
 * @brief A move: a player's decision or a chance outcome.
 *
 * Mancala games: the cell index (`row * cols + col`) of the hole emptied to start the
 * sowing. At-Tab wa-d-Dukk uses the encoding of its rules page.
 */
typedef uint32_t tg_move;

/** The only move offered to a player who must pass (where a game's rules say passing happens). */
#define TG_MOVE_PASS 0xFFFFFFFEu

/** @brief Result of every fallible call. Values are fixed and only ever appended. */
typedef enum tg_status {
    TG_OK = 0,                   /**< Success. */
    TG_ERR_INVALID_ARGUMENT = 1, /**< NULL where a pointer is required, or an index out of range. */
    TG_ERR_NO_MEMORY = 2,        /**< An allocation failed; nothing was changed. */
    TG_ERR_UNKNOWN_GAME = 3,     /**< tg_rules_new(): no game has that id. */
    TG_ERR_BAD_OPTION =
        4, /**< tg_rules_new(): unknown or repeated option, or value out of range; tg_bot_choose(): a bad bot spec. */
    TG_ERR_ILLEGAL_MOVE = 5, /**< The move is not in the legal set now. */
    TG_ERR_PARSE = 6, /**< Malformed notation, or a position that cannot arise in the game. */
    TG_ERR_BUFFER_TOO_SMALL =
        7, /**< The buffer is too small; `*needed` or `*count` says what was needed. */
    TG_ERR_NO_HISTORY = 8, /**< tg_state_undo() with nothing to undo. */
    TG_ERR_GAME_OVER = 9,  /**< A move was asked of a finished game. */
    TG_ERR_RULES_MISMATCH =
        10 /**< Two states, or a state and a position string, of different rule sets. */
} tg_status;

/** Players and pseudo-players returned by tg_state_player() and tg_state_turn(). */
enum {
    TG_PLAYER_0 = 0, /**< Player 0, seated south, moves first. */
    TG_PLAYER_1 = 1, /**< Player 1, seated north. */
    TG_CHANCE = -1,  /**< A chance event (a throw) is to be resolved. */
    TG_TERMINAL = -2 /**< The game is over. */
};

/** Results returned by tg_state_winner() besides a player number. */
enum {
    TG_DRAW = -3,         /**< The game ended in a draw. */
    TG_NO_WINNER_YET = -4 /**< The game is still running. */
};

/** tg_state_flags() bit: a Tab piece that has not moved yet. */
#define TG_CELL_LOCKED 1u
/** tg_state_flags() bit: a Walak-pussa hole out of play for this round of a match. */
#define TG_CELL_DEAD 2u

/** @brief An immutable rule set: one game with all its options. Opaque. */
typedef struct tg_rules tg_rules;
/** @brief One position of one game plus its undo history. Opaque. */
typedef struct tg_state tg_state;

/**
 * @brief Describe a status code.
 * @param s Any value, known or not.
 * @return Static English text, never NULL ("unknown status" for a value not in ::tg_status).
 */
TG_API const char *tg_status_string(tg_status s);

/**
 * @brief The version of the loaded library.
 * @return #TG_VERSION_NUMBER of the library at run time.
 */
TG_API unsigned tg_version(void);

/**
 * @brief The version of the loaded library as text.
 * @return Static text such as "0.1.0", never NULL.
 */
TG_API const char *tg_version_string(void);

/** @name Catalogue and rule sets
 * @{ */

/**
 * @brief Number of games the library knows.
 * @return The count; games are numbered 0 .. count-1 in a fixed order.
 */
TG_API size_t tg_game_count(void);

/**
 * @brief The id of game @p i, as used in rule specs ("halusa", ...).
 * @param i Index below tg_game_count().
 * @return Static text, or NULL if @p i is out of range.
 */
TG_API const char *tg_game_id(size_t i);

/**
 * @brief The display name of game @p i ("Halusa", "At-Tab wa-d-Dukk", ...).
 * @param i Index below tg_game_count().
 * @return Static text, or NULL if @p i is out of range.
 */
TG_API const char *tg_game_name(size_t i);

/**
 * @brief Number of options game @p i takes in its spec.
 * @param i Index below tg_game_count().
 * @return The count, or 0 if @p i is out of range.
 */
TG_API size_t tg_game_option_count(size_t i);

/**
 * @brief The key of option @p k of game @p i, in canonical-spec order ("remainder", "quiet").
 * @param i Index below tg_game_count().
 * @param k Index below tg_game_option_count(i).
 * @return Static text, or NULL if either index is out of range.
 */
TG_API const char *tg_game_option_key(size_t i, size_t k);

/**
 * @brief The values option @p k of game @p i accepts: a `|`-separated list of choices
 *        ("last-mover|owner") or a whole-number range written `MIN..MAX` ("0..1000").
 * @param i Index below tg_game_count().
 * @param k Index below tg_game_option_count(i).
 * @return Static text, or NULL if either index is out of range.
 */
TG_API const char *tg_game_option_values(size_t i, size_t k);

/**
 * @brief The default value of option @p k of game @p i, as written in a spec ("last-mover").
 * @param i Index below tg_game_count().
 * @param k Index below tg_game_option_count(i).
 * @return Static text, or NULL if either index is out of range.
 */
TG_API const char *tg_game_option_default(size_t i, size_t k);

/**
 * @brief Make a rule set from a spec.
 *
 * A spec is `GAME` or `GAME:KEY=VALUE,KEY=VALUE`: lower-case ASCII, no whitespace. Options
 * not given take their defaults; each game's options are listed on its page. The canonical
 * spec (tg_rules_spec()) names every option in the game's order, e.g.
 * `hus:width=8,laps=10000,quiet=100`: a spelling that omits an option means its default.
 *
 * @param spec NUL-terminated spec, e.g. "halusa" or "halusa:remainder=owner,quiet=50".
 * @param[out] out Receives the new rule set (free with tg_rules_free()); untouched on error.
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p spec or @p out is NULL.
 * @retval TG_ERR_UNKNOWN_GAME No game has the id before the colon (or the spec is empty).
 * @retval TG_ERR_BAD_OPTION An unknown or repeated key, a value out of range, or a malformed
 *         option list (missing `=`, empty key, whitespace, upper case).
 * @retval TG_ERR_NO_MEMORY Allocation failed.
 */
TG_API tg_status tg_rules_new(const char *spec, tg_rules **out);

/**
 * @brief Release a rule set. States made from it stay valid: each keeps its own copy.
 * @param r The rule set, or NULL (then nothing happens).
 */
TG_API void tg_rules_free(tg_rules *r);

/**
 * @brief The canonical spec: the game id and every option in a fixed order.
 *
 * tg_rules_new() of this text gives an equal rule set.
 * @param r The rule set.
 * @return Text owned by @p r, valid until it is freed; NULL if @p r is NULL.
 */
TG_API const char *tg_rules_spec(const tg_rules *r);

/**
 * @brief The game id of a rule set.
 * @param r The rule set.
 * @return Static text, or NULL if @p r is NULL.
 */
TG_API const char *tg_rules_game_id(const tg_rules *r);

/**
 * @brief Number of rows of the board.
 * @param r The rule set.
 * @return The row count, or -1 if @p r is NULL.
 */
TG_API int tg_rules_rows(const tg_rules *r);

/**
 * @brief Number of columns of the board.
 * @param r The rule set.
 * @return The column count, or -1 if @p r is NULL.
 */
TG_API int tg_rules_cols(const tg_rules *r);

/**
 * @brief An upper bound on the legal moves or chance outcomes of any state of this rule set.
 *
 * A buffer of this many ::tg_move values is always large enough for tg_state_moves() and
 * tg_state_chance().
 * @param r The rule set.
 * @return The bound, or 0 if @p r is NULL.
 */
TG_API size_t tg_rules_max_moves(const tg_rules *r);

/** @} */

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
    TG_STAT_COUNT = 4      /**< How many counters this version reports; later versions only append. */
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

/** @name Bots
 * Built-in players for any game, through one call. A bot is named by a spec string,
 * `name` or `name:key=value,key=value`:
 *
 * | spec | plays |
 * |---|---|
 * | `random` | a legal decision drawn uniformly, exactly as tg_state_apply_random() would |
 * | `greedy` | the decision with the best immediate result for the player to move: a move that wins the game outright first, then the largest lead in score (own score minus the opponent's) once the move is applied, a move that loses outright last; ties broken uniformly at random (the generator is drawn from only then) |
 * | `mcts` | UCT Monte Carlo tree search with random playouts (see below) |
 *
 * `mcts` takes the options `iterations=N` (1 to 10000000, default 1000) and `c=X` (the UCT
 * exploration constant, a decimal from 0 to 100 such as `1.4` or `0.7`, default 1.0;
 * rewards are 1 for a win, 1/2 for a draw, 0 for a loss). Each iteration descends the tree
 * by UCB1 at decision states and by sampling an outcome by its probability at chance
 * states, adds one node, plays the game out at random (the moves tg_state_playout() draws)
 * and backs the result up, each node scored for the player who chose it. A playout that has
 * not ended after 1000000 plies counts as a win for the player ahead on score (a draw if
 * level). The move played is the root decision visited most (ties: the better mean, then
 * the first in tg_state_moves() order).
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
 * `*rng` gives the same move (the history of @p s does not matter). `*rng` is advanced (a splitmix64
 * state, as for tg_state_apply_random()).
 *
 * Memory: `random` and `greedy` allocate nothing. `mcts` allocates its tree once per call,
 * 32 bytes per node, at most `iterations + 1` nodes (32 MB for a million iterations),
 * and frees it before returning; nothing else is allocated.
 * Thread safety: as for any function reading one state; calls on different states, or
 * concurrent calls reading the same state, are safe.
 * @param s The state (not modified).
 * @param bot_spec The bot, e.g. `"greedy"` or `"mcts:iterations=2000,c=0.7"`.
 * @param rng The caller's generator state, advanced by the call.
 * @param[out] out Receives a legal move (a decision, or a chance outcome at a chance state).
 * @retval TG_OK `*out` holds the move.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL.
 * @retval TG_ERR_BAD_OPTION @p bot_spec names no bot, or has an unknown, repeated,
 *         malformed or out-of-range option (see tg_bot_check()).
 * @retval TG_ERR_GAME_OVER The game is over: there is nothing to choose.
 * @retval TG_ERR_NO_MEMORY The search tree could not be allocated.
 * On any error `*out` and `*rng` are unchanged.
 */
TG_API tg_status tg_bot_choose(const tg_state *s, const char *bot_spec, uint64_t *rng,
                               tg_move *out);

/**
 * @brief Check a bot spec without running it.
 *
 * Accepts exactly what tg_bot_choose() accepts: `random`, `greedy`, `mcts` and
 * `mcts:` followed by comma-separated `iterations=N` and `c=X`, each at most once, with
 * no spaces. Useful for validating a spec from a user before a game starts.
 * @param bot_spec The spec.
 * @retval TG_OK The spec is valid.
 * @retval TG_ERR_INVALID_ARGUMENT @p bot_spec is NULL.
 * @retval TG_ERR_BAD_OPTION The spec is not valid.
 */
TG_API tg_status tg_bot_check(const char *bot_spec);

/** @} */

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

#endif /* TRADITIONAL_GAMES_H */

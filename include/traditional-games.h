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
    TG_ERR_BAD_OPTION = 4,   /**< tg_rules_new(): unknown or repeated option, or value out of range;
                                tg_bot_choose(): a bad bot spec. */
    TG_ERR_ILLEGAL_MOVE = 5, /**< The move is not in the legal set now. */
    TG_ERR_PARSE = 6, /**< Malformed notation, or a position that cannot arise in the game. */
    TG_ERR_BUFFER_TOO_SMALL =
        7, /**< The buffer is too small; `*needed` or `*count` says what was needed. */
    TG_ERR_NO_HISTORY = 8, /**< tg_state_undo() with nothing to undo. */
    TG_ERR_GAME_OVER = 9,  /**< A move was asked of a finished game. */
    TG_ERR_RULES_MISMATCH =
        10,          /**< Two states, or a state and a position string, of different rule sets. */
    TG_ERR_BUSY = 11 /**< A search call is running on this ::tg_search handle (since 0.4). */
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
 * is `search:nodes=1000000`. Without `time=` the move is a function of the position, the rule
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
 * Accepts exactly what tg_bot_choose() accepts: `random`, `greedy`, `mcts`, `search`,
 * `mcts:` followed by comma-separated `iterations=N`, `c=X` and `time=MS`, and `search:`
 * followed by comma-separated `time=MS`, `nodes=N`, `depth=N` and `tt=MB`, each key at most
 * once, with no spaces. Useful for validating a spec from a user before a game starts.
 * @param bot_spec The spec.
 * @retval TG_OK The spec is valid.
 * @retval TG_ERR_INVALID_ARGUMENT @p bot_spec is NULL.
 * @retval TG_ERR_BAD_OPTION The spec is not valid.
 */
TG_API tg_status tg_bot_check(const char *bot_spec);

/** @} */

/** @name Stories, end reasons and records
 * What a move did, why a game ended, and whole games as text (added in 0.4, symbol version
 * node `TG_0.3`). A story is computed on demand by re-playing one move of the undo history
 * with the rules' own code; an end reason is derived from the state; neither is stored, so
 * equal positions stay equal. The event order of each game, and the record format, are
 * described in the documentation pages "Stories" (docs/stories.md) and "Game records"
 * (docs/records.md).
 * @{ */

/**
 * @brief Why a finished game ended: tg_state_end_reason(). Values are fixed and only ever
 * appended.
 */
typedef enum tg_end_reason {
    TG_END_NONE = 0,         /**< The game is still running. */
    TG_END_UNKNOWN = 1,      /**< Finished, but the state cannot tell how: a finished position
                                  read from a string, or reached by tg_state_playout(), that
                                  more than one ending fits. */
    TG_END_NO_MOVE = 2,      /**< The player to move had no legal move: Halusa (own row empty,
                                  or the opponent's row empty and no move reaches it), Hus (no
                                  hole of two or more: that player loses), Hawalis. */
    TG_END_EMPTY_ROW = 3,    /**< Walak-pussa single game: the player to move had an empty row
                                  and the mover took every counter left. */
    TG_END_STORE_SHORT = 4,  /**< Walak-pussa match: after a round a store held fewer than 4
                                  counters, so that player could not fill a hole and lost the
                                  match (however the round ended). */
    TG_END_ALL_CAPTURED = 5, /**< At-Tab wa-d-Dukk: a player had no pieces left. */
    TG_END_ALL_ACROSS = 6,   /**< At-Tab wa-d-Dukk: every piece of both players had crossed into
                                  the opponent's row, so no capture could happen any more. */
    TG_END_BLOCKED = 7,      /**< At-Tab wa-d-Dukk: no unit of either player could move with any
                                  value, and neither of the other two endings holds. Play never
                                  reaches it (the rules page shows a blocked game has every
                                  piece across); it names only a position read from a string. */
    TG_END_QUIET = 8,        /**< The quiet limit (`quiet=N` moves without a capture). */
    TG_END_ENDLESS = 9       /**< An endless move: its sowing had not ended by the lap limit (or
                                  never ends); the mover lost, the board stayed as it was. */
} tg_end_reason;

/**
 * @brief Kinds of story event (tg_state_story()). Values are fixed and only ever appended.
 *
 * Each event is #TG_EVENT_FIELDS `uint32_t`: `{ kind, cell, count, player }`, with
 * `UINT32_MAX` in a field that does not apply. `cell` is `row * cols + col`, the cell
 * tg_state_count() reads at (row, col). Each kind's *effect* on the counts (tg_state_count())
 * and the scores (tg_state_score()) is what makes a story replayable: applying the effect of
 * every event, in order, to the position before the move gives exactly the counts and scores
 * of the position after it. Counts that saturate stop at `UINT32_MAX - 1`.
 *
 * Order of the events of one move:
 * - Mancala games: #TG_EVENT_LIFT of the hole the move empties, then one #TG_EVENT_DROP per
 *   counter in sowing order; each relay lap starts with its #TG_EVENT_LIFT (Walak-pussa,
 *   Hawalis, Hus) or, for a Hus capture, the #TG_EVENT_RESOW of each captured hole (facing,
 *   then behind), and goes on with its drops. Then the captures (#TG_EVENT_CAPTURE, one per
 *   hole, in the order taken), Hus's #TG_EVENT_SCORE for each player whose score changed,
 *   the #TG_EVENT_GATHER of the counters a game's or round's end hands out (in cell order);
 *   in a Walak-pussa match, #TG_EVENT_ROUND_END, then #TG_EVENT_ROUND_START and the new
 *   round's #TG_EVENT_FILL and #TG_EVENT_DEAD events (player 0's holes, then player 1's, each
 *   in fill order).
 * - At-Tab wa-d-Dukk: a chance outcome is one #TG_EVENT_THROW. A decision is
 *   [#TG_EVENT_SPLIT] [#TG_EVENT_UNLOCK] #TG_EVENT_MOVE_FROM, one #TG_EVENT_STEP per cell
 *   passed (walking order), [#TG_EVENT_TAKE] #TG_EVENT_MOVE_TO, [#TG_EVENT_KING]. Throws
 *   that cannot be spent give #TG_EVENT_THROWS_LOST.
 * - Every game: #TG_EVENT_TURN last when the game goes on and the player to move
 *   (tg_state_turn()) changed; #TG_EVENT_GAME_END last when the move finished the game.
 * - A sowing of more than 100 laps writes laps 1 to 60 and the last 40 in full; between them
 *   one #TG_EVENT_ELISION, the #TG_EVENT_SET events of the cells the elided laps changed and
 *   one #TG_EVENT_ELIDED_SOWN. An endless move ends with #TG_EVENT_ENDLESS, the
 *   #TG_EVENT_SET events that put the board back, and #TG_EVENT_GAME_END.
 */
typedef enum tg_event_kind {
    TG_EVENT_LIFT = 1,         /**< A hole emptied into the hand (a move's start, or a relay):
                                    `count` counters; player = the mover.
                                    Effect: counts[cell] -= count. */
    TG_EVENT_DROP = 2,         /**< `count` counters (1 in ordinary sowing) dropped into cell by
                                    the mover. Effect: counts[cell] += count. */
    TG_EVENT_CAPTURE = 3,      /**< `count` counters captured from cell by player, to their score.
                                    Effect: counts[cell] -= count; score[player] += count. */
    TG_EVENT_RESOW = 4,        /**< Hus: `count` counters captured from cell into the mover's hand,
                                    to be sown on as the next lap. Effect: counts[cell] -= count. */
    TG_EVENT_SCORE = 5,        /**< Player's score is now `count` (a score that is not a tally of
                                    captures: Hus's counters in own rows).
                                    Effect: score[player] = count. */
    TG_EVENT_PASS = 6,         /**< Player passed (cell, count `UINT32_MAX`). No effect. No game of
                                    this version passes; reserved for one that does. */
    TG_EVENT_THROW = 7,        /**< At-Tab wa-d-Dukk: player threw the sticks; `count` = the
                                    throw's value (1, 2, 3, 4 or 6). No effect. */
    TG_EVENT_MOVE_FROM = 8,    /**< At-Tab wa-d-Dukk: `count` pieces of player leave cell.
                                    Effect: counts[cell] -= count. */
    TG_EVENT_STEP = 9,         /**< At-Tab wa-d-Dukk: the moving pieces pass over cell (each cell
                                    between from and to, in walking order). No effect. */
    TG_EVENT_MOVE_TO = 10,     /**< At-Tab wa-d-Dukk: the `count` moving pieces of player arrive on
                                    cell. Effect: counts[cell] += count. */
    TG_EVENT_UNLOCK = 11,      /**< At-Tab wa-d-Dukk: the locked piece of player on cell moves for
                                    the first time (count 1). No effect on counts. */
    TG_EVENT_KING = 12,        /**< At-Tab wa-d-Dukk: player's pieces joined on cell into a king of
                                    `count` pieces. No effect (it follows the MOVE_TO). */
    TG_EVENT_SPLIT = 13,       /**< At-Tab wa-d-Dukk: `count` pieces split off player's king on
                                    cell (the rest stay). No effect (it precedes the MOVE_FROM). */
    TG_EVENT_TAKE = 14,        /**< At-Tab wa-d-Dukk: the unit of `count` pieces on cell taken by
                                    player. Effect: counts[cell] -= count; score[player] += count. */
    TG_EVENT_THROWS_LOST = 15, /**< At-Tab wa-d-Dukk: `count` stored throws of player could not be
                                    spent and are lost (cell `UINT32_MAX`). No effect. */
    TG_EVENT_TURN = 16,        /**< The turn passes to player (cell, count `UINT32_MAX`). No
                                    effect. */
    TG_EVENT_GATHER = 17,      /**< At the end of a game or round, the `count` counters left on
                                    cell go to player.
                                    Effect: counts[cell] -= count; score[player] += count. */
    TG_EVENT_ROUND_END = 18,   /**< Walak-pussa match: round number `count` ended; player = who
                                    won it (more counters in store), `UINT32_MAX` if level. No
                                    effect. */
    TG_EVENT_FILL = 19,        /**< Walak-pussa match, new round: player fills cell with `count`
                                    counters from their store.
                                    Effect: counts[cell] += count; score[player] -= count. */
    TG_EVENT_DEAD = 20,        /**< Walak-pussa match, new round: cell is dead this round (count,
                                    player `UINT32_MAX`). No effect. */
    TG_EVENT_ROUND_START = 21, /**< Walak-pussa match: round number `count` starts; player = who
                                    starts it. No effect. */
    TG_EVENT_ENDLESS = 22,     /**< The move is endless: `count` = laps sown when it was judged so
                                    (saturating). The SET events that follow put the board back
                                    as it was before the move. No effect by itself. */
    TG_EVENT_ELISION = 23,     /**< `count` laps of the mover's sowing not written out
                                    (saturating); the SET events that follow give every cell
                                    those laps changed, and one ELIDED_SOWN event the counters
                                    they dropped. No effect by itself. */
    TG_EVENT_ELIDED_SOWN = 24, /**< `count` counters dropped in the elided laps (saturating).
                                    No effect. */
    TG_EVENT_SET = 25,         /**< Cell now holds `count` counters. Effect: counts[cell] = count. */
    TG_EVENT_GAME_END = 26     /**< The game is over: `count` = its ::tg_end_reason, player = the
                                    winner (`UINT32_MAX` for a draw). No effect. */
} tg_event_kind;

/** Number of `uint32_t` in one story event: kind, cell, count, player. */
#define TG_EVENT_FIELDS 4

/**
 * @brief What move @p index of the undo history did, as a list of events.
 *
 * Index 0 is the oldest move tg_state_history() lists (a decision or a chance outcome). The
 * move is played again, from the position it was played from, by the rules' own code with
 * the events recorded, so the story is exactly what happened; the kinds and their order are
 * described at ::tg_event_kind. Follows the buffer contract, in events (each
 * #TG_EVENT_FIELDS `uint32_t`). A move of up to 100 laps is written out whole; a longer one
 * elides its middle laps (#TG_EVENT_ELISION), so a story has at most 65536 events under the
 * default lap limit. Allocates nothing. Re-playing costs what the move cost, three times over
 * for a relay game (once to count its laps, once to measure, once to write): under `laps=0`
 * one move can take minutes, as for tg_state_apply().
 * @param s The state (not modified).
 * @param index The move, 0 to the history's length minus 1.
 * @param events Receives `*count` events of #TG_EVENT_FIELDS values each; may be NULL when
 *        @p cap is 0.
 * @param cap Capacity of @p events in events (not in `uint32_t`).
 * @param[out] count Always receives the number of events of the story.
 * @retval TG_OK Success (or only counted, with a NULL @p events and @p cap 0).
 * @retval TG_ERR_INVALID_ARGUMENT @p s or @p count is NULL, @p events is NULL with
 *         @p cap > 0, or @p index is not below the history's length (`*count` untouched).
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is below `*count`; nothing was written.
 */
TG_API tg_status tg_state_story(const tg_state *s, size_t index, uint32_t *events, size_t cap,
                                size_t *count);

/**
 * @brief Why the game ended.
 *
 * Derived, not stored. A running game gives #TG_END_NONE. A finished state with an undo
 * history gives the reason its last move ended the game (found by playing that move again).
 * A finished state without one (read from a string, or after tg_state_playout() or
 * tg_state_copy()) gives the one ending that fits the position, or #TG_END_UNKNOWN when
 * several fit.
 * @param s The state.
 * @return The reason; #TG_END_NONE if @p s is NULL.
 */
TG_API tg_end_reason tg_state_end_reason(const tg_state *s);

/**
 * @brief The lower-case token of an end reason, as the record's Termination tag writes it.
 *
 * "none", "unknown", "no-move", "empty-row", "store-short", "all-captured", "all-across",
 * "blocked", "quiet" and "endless"; a value outside the enum gives "invalid". Never NULL;
 * the string is static.
 * @param r The reason.
 * @return The token.
 */
TG_API const char *tg_end_reason_name(tg_end_reason r);

/**
 * @brief Write the game as a record: tag pairs, then every move of the history in notation.
 *
 * The format is described in docs/records.md (modelled on PGN): `[Rules "..."]` first;
 * `[Start "..."]` (a position string) when the game did not start from the initial position;
 * the caller's @p tags in their order; `[Result "..."]` (`1-0`, `0-1`, `1/2-1/2` or `*`);
 * `[Termination "..."]` (tg_end_reason_name()) when the game is over. Then a blank line and
 * the moves, each named in the position it was played from, numbered by turn, lines of at
 * most 80 columns, and the result token. A state without history (after tg_state_playout(),
 * or made from a string) writes its position as the Start and no moves. Follows the buffer
 * contract of text (`*needed` excludes the NUL). Allocates nothing.
 * @param s The state.
 * @param tags NULL or "" for none, or tag pair lines `[Name "value"]`, each ended by a newline
 *        (the last one's is optional): Name of letters, digits and `_`, a value on one line in
 *        which a quote or a backslash has a backslash before it. Rules, Start, Result and
 *        Termination are the library's own and may not be given.
 * @param buf Receives the record; may be NULL when @p cap is 0.
 * @param cap Capacity of @p buf in bytes.
 * @param[out] needed If not NULL, receives the length of the record without the NUL.
 * @retval TG_OK Success (or only measured).
 * @retval TG_ERR_INVALID_ARGUMENT @p s is NULL, @p buf is NULL with @p cap > 0, or @p tags is
 *         malformed or names a reserved tag.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p cap is not above `*needed`; nothing was written.
 */
TG_API tg_status tg_state_record(const tg_state *s, const char *tags, char *buf, size_t cap,
                                 size_t *needed);

/**
 * @brief Read a record written by tg_state_record() (or by hand): a new state at its end.
 *
 * The rule set comes from the Rules tag, the first position from Start (the initial position
 * without it); every move is read in the position it is played from and checked as
 * tg_state_apply() checks it, so the state's history holds them all. `{comments}` (not
 * nested) may stand between any two tokens of the move text; move numbers are checked for
 * form only; tags other than the library's four are read and ignored. Result and Termination,
 * when present, must agree with the state the moves lead to. Reading replays every move, so
 * under `laps=0` one move can take minutes, as for tg_state_apply().
 * @param text The record, NUL-terminated.
 * @param[out] out Receives the new state, to release with tg_state_free().
 * @retval TG_OK Success.
 * @retval TG_ERR_INVALID_ARGUMENT @p text or @p out is NULL.
 * @retval TG_ERR_PARSE The text is not a record: a malformed tag, move number, move or result
 *         token, an unterminated comment or quote, no Rules tag or a spec that is not a rule
 *         set, a Start that is not a position of it, or a Result or Termination that the moves
 *         do not lead to.
 * @retval TG_ERR_ILLEGAL_MOVE A move is well formed but not legal where it is played.
 * @retval TG_ERR_NO_MEMORY The state could not be allocated.
 * On any error `*out` is unchanged and nothing is leaked.
 */
TG_API tg_status tg_state_from_record(const char *text, tg_state **out);

/** @} */

/** @name Stoppable searches and analysis
 * A ::tg_search handle is one engine: a parsed bot spec (any spec tg_bot_check() accepts,
 * usually `search:...` or `mcts:...`) and the memory its searches use. It can choose a move,
 * analyse every legal move, and be stopped from another thread at any moment.
 *
 * @par Threads
 * A handle runs at most one search call (tg_search_choose() or tg_search_analyse()) at a
 * time: a second call while one runs is refused with #TG_ERR_BUSY. tg_search_stop() and
 * tg_search_free() may be called from any thread while a call runs. The result readers
 * (tg_search_result_count(), tg_search_result(), tg_search_result_line(), tg_search_stats())
 * refuse with #TG_ERR_BUSY (or a count of 0) while a call runs, but must not overlap the
 * start of a search call on the same handle from another thread. The state a search reads
 * must not be modified during the call. Different handles are independent.
 *
 * @par Time
 * `time=` limits read a monotonic clock (CLOCK_MONOTONIC), every 256 positions.
 * The WebAssembly build takes the clock from its one import,
 * `wasi_snapshot_preview1.clock_time_get`, which the JavaScript loader provides; if that
 * clock reports an error, the running search stops as if tg_search_stop() had been called.
 * Without `time=` the clock never changes a result.
 * @{ */

/** @brief One engine: a parsed bot spec with its memory and its last results. Opaque. */
typedef struct tg_search tg_search;

/**
 * @brief Make a search handle for a bot spec.
 *
 * For `search` specs this allocates the transposition table (`tt=` MB, default 8), which
 * every search on the handle clears first (the pages the previous search wrote), so that
 * results never depend on earlier searches; move-ordering memory (about 170 bytes for each legal move of the largest move
 * list of the game, for each of 128 plies) is allocated at the first search of a game and
 * kept. `mcts` specs allocate their tree in each call, as tg_bot_choose() does.
 * @param bot_spec The spec, e.g. `"search:time=100"`.
 * @param[out] out Receives the handle, to be released with tg_search_free().
 * @retval TG_OK `*out` holds the handle.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL.
 * @retval TG_ERR_BAD_OPTION The spec is not valid (see tg_bot_check()).
 * @retval TG_ERR_NO_MEMORY The handle or its table could not be allocated.
 * On any error `*out` is unchanged.
 */
TG_API tg_status tg_search_new(const char *bot_spec, tg_search **out);

/**
 * @brief Release a search handle; NULL is accepted and does nothing.
 *
 * Never blocks. If a search call is running on @p h in another thread, that call is asked
 * to stop and releases the handle itself as it returns (it still returns its move and status
 * to its caller). Either way nobody may use @p h after this call.
 * @param h The handle, or NULL.
 */
TG_API void tg_search_free(tg_search *h);

/**
 * @brief Choose a move for the side to move of @p s with the handle's bot.
 *
 * The same move tg_bot_choose() would give with the handle's spec, unless stopped or limited
 * by time. At a chance state the outcome is drawn by its probability from `*rng`, as every
 * bot does. `search` draws nothing else from `*rng`; `mcts`, `random` and `greedy` draw as in
 * tg_bot_choose(). Clears the handle's analysis results. When stopped (tg_search_stop()),
 * returns at once the best move found so far, with #TG_OK.
 * @param h The handle.
 * @param s The state (only read).
 * @param rng The caller's generator state, advanced by the call.
 * @param[out] out Receives a legal move (a decision, or an outcome at a chance state).
 * @retval TG_OK `*out` holds the move.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL.
 * @retval TG_ERR_GAME_OVER The game is over.
 * @retval TG_ERR_BUSY A search call is already running on @p h (it is not disturbed).
 * @retval TG_ERR_NO_MEMORY Search memory could not be allocated.
 * On any error `*out` and `*rng` are unchanged.
 */
TG_API tg_status tg_search_choose(tg_search *h, const tg_state *s, uint64_t *rng, tg_move *out);

/**
 * @brief Analyse every legal move of @p s and keep the results in the handle.
 *
 * Each legal decision (at a chance state: each outcome) gets a value for the player to move
 * at @p s (at a chance state the player about to throw), whether that value is proven, and a
 * principal line; read them with tg_search_result() and tg_search_result_line(), best
 * first. `search` searches every move with a full window at every depth of its iterative
 * deepening; `mcts` values a move by its visits' mean reward; `random` and `greedy` value
 * each move by the position it leaves (the score lead, or the result if it ends the game).
 * Stopped or out of time, it keeps for each move the value of the deepest search of it that
 * finished, and returns #TG_OK.
 * @param h The handle.
 * @param s The state (only read).
 * @param rng The caller's generator state (drawn from by `mcts` only).
 * @retval TG_OK The results are stored.
 * @retval TG_ERR_INVALID_ARGUMENT A pointer is NULL.
 * @retval TG_ERR_GAME_OVER The game is over.
 * @retval TG_ERR_BUSY A search call is already running on @p h.
 * @retval TG_ERR_NO_MEMORY Search memory could not be allocated.
 * On any error the handle holds no results and `*rng` is unchanged.
 */
TG_API tg_status tg_search_analyse(tg_search *h, const tg_state *s, uint64_t *rng);

/**
 * @brief Number of results of the last analysis.
 * @param h The handle, or NULL.
 * @return One per legal move of the analysed state; 0 if @p h is NULL, before any
 *         analysis, after tg_search_choose() or a failed analysis, or while a search call runs.
 */
TG_API size_t tg_search_result_count(const tg_search *h);

/**
 * @brief Read one result of the last analysis.
 * @param h The handle.
 * @param i Index below tg_search_result_count(); 0 is the best move.
 * @param[out] move Receives the move, or NULL.
 * @param[out] value Receives the value in [-1, 1] for the player to move at the analysed
 *        state: 1 a win, 0 a draw, -1 a loss (an expected result where throws decide). A
 *        value not proven is a heuristic estimate strictly between -1 and 1. Or NULL.
 * @param[out] proven Receives whether the value is exact (every line was searched to the end
 *        of the game), or NULL.
 * @retval TG_OK The outputs hold the result.
 * @retval TG_ERR_INVALID_ARGUMENT @p h is NULL or @p i is out of range.
 * @retval TG_ERR_BUSY A search call is running on @p h.
 */
TG_API tg_status tg_search_result(const tg_search *h, size_t i, tg_move *move, double *value,
                                  bool *proven);

/**
 * @brief The principal line of one result: its move and the expected continuation.
 *
 * Moves in notation separated by one space (`c1 f2 a1`), throws included in At-Tab
 * wa-d-Dukk (`m1+1 throw:2 l2+2`), at most 32 moves, the first being the result's move.
 * Buffer contract as everywhere (see the file's notes).
 * @param h The handle.
 * @param i Index below tg_search_result_count().
 * @param buf Output buffer, or NULL with @p cap 0 to measure.
 * @param cap Capacity of @p buf in bytes.
 * @param[out] needed Receives the length without the NUL, or NULL.
 * @retval TG_OK The line was written (or measured).
 * @retval TG_ERR_INVALID_ARGUMENT @p h is NULL, @p i is out of range, or @p buf is NULL
 *         with @p cap > 0.
 * @retval TG_ERR_BUFFER_TOO_SMALL @p buf is too small; only `*needed` was written.
 * @retval TG_ERR_BUSY A search call is running on @p h.
 */
TG_API tg_status tg_search_result_line(const tg_search *h, size_t i, char *buf, size_t cap,
                                       size_t *needed);

/**
 * @brief Work done by the last finished search call on the handle.
 * @param h The handle.
 * @param[out] nodes Receives the positions visited (`search`) or iterations (`mcts`); 0 for
 *        `random` and `greedy`, or before any search. Or NULL.
 * @param[out] depth Receives the deepest completed iteration of `search` (0 for the other
 *        bots). Or NULL.
 * @retval TG_OK The outputs hold the figures.
 * @retval TG_ERR_INVALID_ARGUMENT @p h is NULL.
 * @retval TG_ERR_BUSY A search call is running on @p h.
 */
TG_API tg_status tg_search_stats(const tg_search *h, uint64_t *nodes, uint32_t *depth);

/**
 * @brief Ask the search call running on @p h, if any, to stop.
 *
 * Safe from any thread at any moment while @p h is alive. The running call notices within a
 * few milliseconds (it reads the handle's atomic state at every position or iteration, and
 * before each page of the table's clearing) and returns its best move or its results so far
 * with #TG_OK. With no call running (before any search, after one finished) it does nothing:
 * a stop never carries over to a later call. A second stop is the same as one. A stop made
 * once a call has begun always reaches it; one made before the call began (even by a
 * moment) is a stop with no call running, so a thread that may be racing the start of a
 * call repeats it until the call has returned.
 * @param h The handle.
 * @retval TG_OK Done (whether or not a call was running).
 * @retval TG_ERR_INVALID_ARGUMENT @p h is NULL.
 */
TG_API tg_status tg_search_stop(tg_search *h);

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

/**
 * @file traditional-games/tg-core.h
 * @brief The foundation: version, status codes, moves, players and results, the two handles,
 *        and the catalogue of games and rule sets.
 *
 * Part of the public API: programs include traditional-games.h, which includes every topic
 * header in the order of the reference manual; this one also compiles on its own. The notes
 * that hold for every call (handles, thread safety, errors, the buffer contract, hostile
 * input, undefined behaviour) are those of traditional-games.h.
 */
#ifndef TRADITIONAL_GAMES_CORE_H
#define TRADITIONAL_GAMES_CORE_H

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

#ifdef __cplusplus
}
#endif

#endif /* TRADITIONAL_GAMES_CORE_H */

/**
 * @file traditional-games/tg-story.h
 * @brief What a move did (stories), why a game ended (end reasons), and whole games as text
 *        (records).
 *
 * Part of the public API: programs include traditional-games.h, which includes every topic
 * header in the order of the reference manual; this one also compiles on its own. The notes
 * that hold for every call (handles, thread safety, errors, the buffer contract, hostile
 * input, undefined behaviour) are those of traditional-games.h.
 */
#ifndef TRADITIONAL_GAMES_STORY_H
#define TRADITIONAL_GAMES_STORY_H

#include "tg-core.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    TG_EVENT_SET = 25,     /**< Cell now holds `count` counters. Effect: counts[cell] = count. */
    TG_EVENT_GAME_END = 26 /**< The game is over: `count` = its ::tg_end_reason, player = the
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

#ifdef __cplusplus
}
#endif

#endif /* TRADITIONAL_GAMES_STORY_H */

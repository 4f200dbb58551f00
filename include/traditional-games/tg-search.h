/**
 * @file traditional-games/tg-search.h
 * @brief Search handles: a bot's search that another thread can stop, and the analysis of every
 *        legal move.
 *
 * Part of the public API: programs include traditional-games.h, which includes every topic
 * header in the order of the reference manual; this one also compiles on its own. The notes
 * that hold for every call (handles, thread safety, errors, the buffer contract, hostile
 * input, undefined behaviour) are those of traditional-games.h.
 */
#ifndef TRADITIONAL_GAMES_SEARCH_H
#define TRADITIONAL_GAMES_SEARCH_H

#include "tg-core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Stoppable searches and analysis
 * A ::tg_search handle is one engine: a parsed bot spec (any spec tg_bot_check() accepts,
 * usually `search:...` or `mcts:...`, or the prover `prove:...`) and the memory its searches
 * use.
 *
 * @par The prover
 * `prove:nodes=N,tt=MB,depth=D,time=MS` (each optional; defaults 1000000 positions, 8 MB, 1000
 * plies) is a depth-first proof-number search over finished games only, for the games without
 * throws. tg_search_analyse() then gives each move 1 (proven won for the player to move), 0
 * with `proven` (proven drawn), -1 (proven lost), or 0 without `proven` (unknown within the
 * budget); the result is the game's, not the score margin. `nodes` bounds the positions of the
 * whole call, which tg_search_stats() reports; `depth` bounds the length of the lines a proof
 * may use. tg_search_choose() plays the first move proven won, else the best value found. A
 * game with throws (At-Tab wa-d-Dukk) is refused with #TG_ERR_BAD_OPTION. docs/bots.md has
 * the details, tools/tg-prove writes proofs as files (docs/proofs.md). It can choose a move,
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
 * For `search` and `prove` specs this allocates the transposition table (`tt=` MB, default 8), which
 * every search on the handle clears first (the pages the previous search wrote), so that
 * results never depend on earlier searches; move-ordering memory (about 170 bytes for each legal
 * move of the largest move list of the game, for each of 128 plies) is allocated at the first
 * search of a game and kept. `mcts` specs allocate their tree in each call, as tg_bot_choose()
 * does.
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
 * @retval TG_ERR_BAD_OPTION The handle is the prover (`prove`) and the game has throws.
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
 * @retval TG_ERR_BAD_OPTION The handle is the prover (`prove`) and the game has throws.
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
 * @param[out] nodes Receives the positions visited (`search`), expanded (`prove`) or iterations (`mcts`); 0 for
 *        `random` and `greedy`, or before any search. Or NULL.
 * @param[out] depth Receives the deepest completed iteration of `search` (0 for the other
 *        bots, the prover included). Or NULL.
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

#ifdef __cplusplus
}
#endif

#endif /* TRADITIONAL_GAMES_SEARCH_H */

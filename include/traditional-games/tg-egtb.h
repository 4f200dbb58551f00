/**
 * @file tg-egtb.h
 * @brief Endgame databases: exact values of small Halusa and Walak-pussa positions.
 *
 * A database holds, for one rule set, every position with up to N counters on the board: its
 * exact value under perfect play, quiet count and endless moves included (docs/egtb.md says
 * what a position is and what is stored). tg_egtb_build() writes one file per counter number
 * into a directory; tg_egtb_open() reads that directory, tg_egtb_probe() answers positions and
 * tg_egtb_close() releases it. A ::tg_egtb is never modified after tg_egtb_open() and may be
 * probed from any number of threads at once. A ::tg_egtb_reader (one per thread) probes faster:
 * it keeps its decompression context and its last blocks. tg_search_set_egtb() gives a search
 * handle a database, which `search` and its analysis then consult. The WebAssembly build has
 * every function but tg_egtb_build(); its file reads are imported from its JavaScript host
 * (docs/egtb.md, "JavaScript").
 */
#ifndef TRADITIONAL_GAMES_TG_EGTB_H
#define TRADITIONAL_GAMES_TG_EGTB_H

#include "tg-core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What an endgame database call did (since 0.5). */
typedef enum tg_egtb_status {
    TG_EGTB_OK = 0,               /**< Success: the value was found (or the files written). */
    TG_EGTB_BAD_ARGUMENT = 1,     /**< NULL where a pointer is required, or a number out of range. */
    TG_EGTB_UNSUPPORTED = 2,      /**< Not a Halusa or single-game Walak-pussa rule set with a
                                       quiet limit: no database can be built for it. */
    TG_EGTB_NOT_IN_DATABASE = 3,  /**< The position is finished, or has more counters on the
                                       board than any file of the directory. */
    TG_EGTB_MISSING_FILE = 4,     /**< The file for the position's counter number is absent. */
    TG_EGTB_DAMAGED = 5,          /**< A file is truncated, not a database, or a block fails its
                                       checksum. */
    TG_EGTB_WRONG_RULES = 6,      /**< The file (or the position) is of another rule set. */
    TG_EGTB_IO_ERROR = 7,         /**< The directory or a file cannot be read or written. */
    TG_EGTB_NO_MEMORY = 8         /**< An allocation failed; nothing was changed. */
} tg_egtb_status;

/** An open directory of database files for one rule set. */
typedef struct tg_egtb tg_egtb;

/** One thread's reader of an open directory: its own decompression context and block cache
 *  (since 0.5). */
typedef struct tg_egtb_reader tg_egtb_reader;

/** The search handle of tg-search.h (::tg_search), declared again so that this header
 *  compiles on its own. */
typedef struct tg_search tg_search;

/** The exact value of a position (since 0.5). */
typedef struct tg_egtb_value {
    /** +1 if the side to move wins, 0 for a draw, -1 if it loses, with the scores banked now. */
    int outcome;
    /** Nonzero if the result is an endless move (rules/README.md) one side is forced into; the
     *  margins are then 0, since the game ends with whatever scores stand at that move. */
    int endless;
    /** Counters the side to move gains over its opponent from here to the end. */
    int margin_to_go;
    /** The side to move's final score minus its opponent's: banked difference plus margin_to_go. */
    int final_margin;
} tg_egtb_value;

/** What tg_egtb_build() reports after each counter number it finished (since 0.5). */
typedef struct tg_egtb_tier_report {
    int counters;           /**< Counters on the board in this file. */
    uint64_t positions;     /**< Entries in the file: boards x sides x quiet counts. */
    uint64_t running;       /**< Entries that are running positions (the rest cannot arise). */
    uint64_t file_bytes;    /**< Size of the file written. */
    double seconds;         /**< Wall time the counter number took. */
} tg_egtb_tier_report;

/** Called by tg_egtb_build() once per counter number finished; @p ctx is the caller's. */
typedef void tg_egtb_progress_fn(void *ctx, const tg_egtb_tier_report *report);

/**
 * @brief A short English description of a status ("damaged file").
 * @param s Any value; unknown ones give "unknown status".
 * @return A static string.
 */
TG_API const char *tg_egtb_status_string(tg_egtb_status s);

/**
 * @brief Whether a database can be built for a rule set.
 * @param r The rule set.
 * @return #TG_EGTB_OK for Halusa, or Walak-pussa with `rounds=single`, with `quiet` of 1 or
 *         more; #TG_EGTB_UNSUPPORTED otherwise; #TG_EGTB_BAD_ARGUMENT if @p r is NULL.
 */
TG_API tg_egtb_status tg_egtb_supported(const tg_rules *r);

/**
 * @brief Builds the files for 1 to @p counters counters on the board into @p dir.
 *
 * Each file is `GAME-NN.egtb` (`halusa-08.egtb`), written to a temporary name and renamed when
 * complete, so a reader never sees half a file. A file already in @p dir for the same rules is
 * read back instead of rebuilt. The work of each counter number is shared by @p threads
 * threads.
 * @param r The rule set (tg_egtb_supported() must accept it).
 * @param dir An existing, writable directory.
 * @param counters 1 to 72; counter numbers that cannot occur (odd ones in Halusa) get no file.
 * @param threads 1 to 256 worker threads.
 * @param progress NULL, or called after each counter number.
 * @param ctx Passed to @p progress.
 * @retval TG_EGTB_OK All files are in place.
 * @retval TG_EGTB_BAD_ARGUMENT NULL @p r or @p dir, or a number out of range.
 * @retval TG_EGTB_UNSUPPORTED No database for these rules.
 * @retval TG_EGTB_IO_ERROR A file could not be written (files finished before stay).
 * @retval TG_EGTB_DAMAGED, TG_EGTB_WRONG_RULES A file to reuse is damaged or of other rules.
 * @retval TG_EGTB_NO_MEMORY Allocation failed.
 */
TG_API tg_egtb_status tg_egtb_build(const tg_rules *r, const char *dir, int counters,
                                    unsigned threads, tg_egtb_progress_fn *progress, void *ctx);

/**
 * @brief Opens the database files of @p dir for the rule set @p r.
 *
 * Reads and checks every file header (a damaged or foreign file is remembered and reported by
 * the probes that need it, so one bad file does not hide the others).
 * @param dir A directory made by tg_egtb_build().
 * @param r The rule set of the positions to be probed (copied: it may be freed after).
 * @param out Receives the handle.
 * @retval TG_EGTB_OK Success, even if the directory holds no file (every probe then says
 *         #TG_EGTB_NOT_IN_DATABASE).
 * @retval TG_EGTB_BAD_ARGUMENT A NULL argument.
 * @retval TG_EGTB_UNSUPPORTED No database exists for these rules.
 * @retval TG_EGTB_IO_ERROR @p dir cannot be read.
 * @retval TG_EGTB_NO_MEMORY Allocation failed.
 */
TG_API tg_egtb_status tg_egtb_open(const char *dir, const tg_rules *r, tg_egtb **out);

/**
 * @brief The largest counter number with a sound file in the directory.
 * @param db An open database, or NULL (which gives 0).
 * @return 0 if there is none.
 */
TG_API int tg_egtb_max_counters(const tg_egtb *db);

/**
 * @brief The exact value of a position.
 * @param db An open database.
 * @param s A running position of the database's rule set.
 * @param out Receives the value; untouched unless #TG_EGTB_OK.
 * @retval TG_EGTB_OK Found.
 * @retval TG_EGTB_BAD_ARGUMENT A NULL argument.
 * @retval TG_EGTB_WRONG_RULES @p s is of another rule set, or its file is.
 * @retval TG_EGTB_NOT_IN_DATABASE @p s is finished or has more counters than the directory.
 * @retval TG_EGTB_MISSING_FILE The file for its counter number is absent.
 * @retval TG_EGTB_DAMAGED The file or the block holding the position fails its checks.
 * @retval TG_EGTB_IO_ERROR Reading failed.
 * @retval TG_EGTB_NO_MEMORY Allocation failed.
 */
TG_API tg_egtb_status tg_egtb_probe(const tg_egtb *db, const tg_state *s, tg_egtb_value *out);

/**
 * @brief Makes a reader of an open database, for one thread's probes (since 0.5).
 *
 * tg_egtb_probe() decompresses a whole block with a new context on every call; a reader
 * reuses one context and keeps the 16 blocks it read last (about 1.1 MB in all), so a probe
 * of a block read lately costs a look-up. A reader changes at every probe:
 * use each from one thread at a time (one reader per thread).
 * @param db An open database, which must stay open until the reader is freed.
 * @param out Receives the reader.
 * @retval TG_EGTB_OK Success.
 * @retval TG_EGTB_BAD_ARGUMENT A NULL argument.
 * @retval TG_EGTB_NO_MEMORY Allocation failed.
 */
TG_API tg_egtb_status tg_egtb_reader_new(const tg_egtb *db, tg_egtb_reader **out);

/**
 * @brief The exact value of a position, read through a reader (since 0.5).
 *
 * The same answer and statuses as tg_egtb_probe() on the reader's database. A block that
 * fails its checksum is never kept, so it is reported damaged at every probe that needs it.
 * @param reader A reader, used by no other thread during the call.
 * @param s A running position of the database's rule set.
 * @param out Receives the value; untouched unless #TG_EGTB_OK.
 * @return As tg_egtb_probe().
 */
TG_API tg_egtb_status tg_egtb_reader_probe(tg_egtb_reader *reader, const tg_state *s,
                                           tg_egtb_value *out);

/**
 * @brief Frees a reader (not its database). NULL is accepted.
 * @param reader The reader from tg_egtb_reader_new().
 */
TG_API void tg_egtb_reader_free(tg_egtb_reader *reader);

/**
 * @brief Gives a `search` handle a database to consult, or takes it away (since 0.5).
 *
 * While a database is attached, every search call of @p h on a position of the database's
 * rule set probes it (through the handle's own reader, so handles on different threads may
 * share one database): a position the database covers is not searched below but valued
 * exactly, as proven; and when the position searched is covered itself, the call plays the
 * database's best move (the largest final margin, the first legal move of equals) and the
 * analysis gives every move its exact value, read with tg_search_result_exact(). A probe that
 * fails (a missing or damaged file, another rule set) ends the use of the database for the
 * rest of that call, which then searches on without it; tg_search_egtb_status() says why.
 * @param h A handle made from a `search:` spec.
 * @param db An open database, which must stay open while attached, or NULL to detach.
 * @retval TG_OK Attached (or detached).
 * @retval TG_ERR_INVALID_ARGUMENT @p h is NULL.
 * @retval TG_ERR_BAD_OPTION @p h is not a `search` handle (`mcts`, `prove`, ...).
 * @retval TG_ERR_BUSY A search call is running on @p h.
 * @retval TG_ERR_NO_MEMORY The handle's reader could not be allocated; nothing changed.
 */
TG_API tg_status tg_search_set_egtb(tg_search *h, const tg_egtb *db);

/**
 * @brief What the database attached to @p h said in the last search call (since 0.5).
 * @param h The handle, or NULL.
 * @return #TG_EGTB_OK if no probe failed (or no database is attached, or a search call is
 *         running on @p h); else the first
 *         failure, after which the call searched without the database: #TG_EGTB_MISSING_FILE,
 *         #TG_EGTB_DAMAGED, #TG_EGTB_WRONG_RULES (the position is of another rule set),
 *         #TG_EGTB_IO_ERROR or #TG_EGTB_NO_MEMORY. #TG_EGTB_BAD_ARGUMENT if @p h is NULL.
 */
TG_API tg_egtb_status tg_search_egtb_status(const tg_search *h);

/**
 * @brief The exact value of one result of the last analysis, when the database gave it
 *        (since 0.5).
 *
 * When the analysed position is covered by the attached database, every result has its
 * exact value: tg_search_result() then gives the outcome (1, 0 or -1, proven) and this call
 * the final margin ("win by 4, exact"). Results are sorted best first by that exact value.
 * @param h The handle.
 * @param i Index below tg_search_result_count().
 * @param[out] value Receives the exact value of the move for the player to move at the
 *        analysed position: the outcome, whether an endless move decides the game, and the
 *        margins (tg_egtb_value). Or NULL.
 * @param[out] exact Receives whether the database gave this result (if false, @p value is
 *        untouched). Or NULL.
 * @retval TG_OK The outputs hold the answer.
 * @retval TG_ERR_INVALID_ARGUMENT @p h is NULL or @p i is out of range.
 * @retval TG_ERR_BUSY A search call is running on @p h.
 */
TG_API tg_status tg_search_result_exact(const tg_search *h, size_t i, tg_egtb_value *value,
                                        bool *exact);

/**
 * @brief Closes a database. NULL is accepted.
 * @param db The handle from tg_egtb_open(); no probe may be running on it.
 */
TG_API void tg_egtb_close(tg_egtb *db);

#ifdef __cplusplus
}
#endif

#endif

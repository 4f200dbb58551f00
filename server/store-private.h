/* What the SQLite store's files share: store.c opens the database, and store-round.c,
 * store-write.c, store-load.c, store-list.c, store-expire.c, store-scan.c, store-repair.c,
 * store-maintenance.c, store-shared.c and store-history.c work on it, one job each, so they
 * share the store's state, the prepared statements and the helpers that run them and note failures; and the
 * set-aside table's definition, which store-quarantine.c uses too. Private to those files. */
#ifndef TG_SERVER_STORE_PRIVATE_H
#define TG_SERVER_STORE_PRIVATE_H

#include <sqlite3.h>

#include <stdbool.h>
#include <stdint.h>

enum stmt_id {
    S_BEGIN,
    S_COMMIT,
    S_ROLLBACK,
    S_SAVEPOINT,
    S_RELEASE,
    S_ROLLBACK_TO,
    S_INSERT_MATCH,
    S_INSERT_MATCH_ID,
    S_INSERT_SEAT,
    S_SET_PLIES,
    S_INSERT_MOVE,
    S_DELETE_MOVES,
    S_INSERT_RESULT,
    S_DELETE_RESULT,
    S_SET_ASIDE,
    S_IS_SET_ASIDE,
    S_LOAD_MATCH,
    S_LOAD_SEATS,
    S_LOAD_RESULT,
    S_PUT_CLOCK,
    S_LOAD_CLOCK,
    S_PUT_DEADLINE,
    S_OVERDUE,
    S_EACH_CORRESPONDENCE,
    S_LOAD_MOVES,
    S_COUNT,
    S_COUNT_LIVE,
    S_PUT_KEPT,
    S_DELETE_KEPT,
    S_LOAD_KEPT,
    S_INSERT_INVITE,
    S_DELETE_INVITE,
    S_LOAD_INVITE,
    S_INSERT_ABORTED,
    S_LOAD_ABORTED,
    S_EXISTS,
    S_EACH_SET_ASIDE,
    S_LIST,
    S_PUT_UNDO,
    S_END_UNDO,
    S_DELETE_UNDO,
    S_LOAD_UNDO,
    S_OFFER_DRAW,
    S_DRAW_DECIDED,
    S_FORGET_DRAW,
    S_LOAD_DRAW,
    S_MARK_REMATCH,
    S_LOAD_REMATCH,
    S_PUT_LOBBY_MATCH,
    S_FORGET_LOBBY_MATCH,
    S_EACH_LOBBY_MATCH,
    S_SCHEMA_VERSION,
    S_INSERT_ACCOUNT,
    S_FIND_ACCOUNT,
    S_ACCOUNT_BY_ID,
    S_INSERT_SESSION,
    S_FIND_SESSION,
    S_DELETE_SESSION,
    S_DELETE_SESSIONS,
    S_DELETE_EXPIRED_SESSIONS,
    S_ANONYMISE_ACCOUNT,
    S_DELETE_RATINGS,
    S_SET_SEAT_ACCOUNT,
    S_INSERT_RATED,
    S_FIND_RATED,
    S_CLAIM_RATED,
    S_SEAT_ACCOUNTS,
    S_GET_RATING,
    S_PUT_RATING,
    S_EACH_RATING,
    S_ADD_RATING_POINT,
    S_DELETE_RATING_HISTORY,
    S_EACH_RATING_POINT,
    S_EACH_PLAYED_GAME,
    S_MATCH_SUMMARY,
    S_SUMMARY_SEATS,
    S_COUNT_STATEMENTS
};

/* No reference to matches: a match whose own row is damaged is set aside too. Also made by
 * store-quarantine.c, when the table itself was damaged. */
#define SET_ASIDE_TABLE_SQL                                                                       \
    "CREATE TABLE IF NOT EXISTS set_aside ("                                                      \
    "  match_id INTEGER PRIMARY KEY,"                                                             \
    "  reason   TEXT    NOT NULL,"                                                                \
    "  at       INTEGER NOT NULL);"

struct store {
    struct pg_store *pg; /* PostgreSQL instead (store-pg.c): every function hands over to it */
    sqlite3 *db;
    sqlite3_stmt *stmt[S_COUNT_STATEMENTS];
    int last_code;
    char last_error[256];
    /* The write-ahead log as of the last commit that succeeded: a failed commit's frames
     * start after these (store_settle). */
    char *wal_path;
    uint64_t acked_frames;
    uint32_t acked_salt[2];
    bool have_salt;
};

/* Notes the failure (code and SQLite's message) and returns false. */
bool store_failed(struct store *st, int code);
/* The statement, prepared on first use; NULL (failure noted) if it cannot be. */
sqlite3_stmt *store_prepared(struct store *st, enum stmt_id id);
/* Runs a statement that returns no rows (its parameters already bound); false, failure noted,
 * if it fails. Used by the round's statements and by every write. */
bool store_run(struct store *st, sqlite3_stmt *s);
/* Hashes use all 64 bits and SQL integers are signed: the bits are stored as they are, written
 * by store-write.c and read back by store-load.c. */
sqlite3_int64 store_as_signed(uint64_t v);
uint64_t store_as_unsigned(sqlite3_int64 v);

#endif

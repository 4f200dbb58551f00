/* What the PostgreSQL store's files share: store-pg.c opens the connection, and
 * store-pg-round.c, store-pg-write.c, store-pg-load.c, store-pg-leases.c, store-pg-site.c and
 * store-pg-expire.c work on it, one job each, so they share the prepared statements, the
 * connection's state and the helpers that run statements and note failures. Private to them. */
#ifndef TG_SERVER_STORE_PG_PRIVATE_H
#define TG_SERVER_STORE_PG_PRIVATE_H

#include "store-pg.h"

#include <libpq-fe.h>

#include <stdbool.h>
#include <stdint.h>

enum pg_stmt {
    P_INSERT_MATCH,
    P_INSERT_MATCH_ID,
    P_FIX_SEQUENCE,
    P_INSERT_SEAT,
    P_INSERT_LEASE,
    P_SET_PLIES,
    P_INSERT_MOVE,
    P_DELETE_MOVES,
    P_INSERT_RESULT,
    P_DELETE_RESULT,
    P_SET_ASIDE,
    P_IS_SET_ASIDE,
    P_LOAD_MATCH,
    P_LOAD_SEATS,
    P_LOAD_RESULT,
    P_PUT_CLOCK,
    P_LOAD_CLOCK,
    P_PUT_DEADLINE,
    P_EACH_CORRESPONDENCE,
    P_LOAD_MOVES,
    P_COUNT,
    P_COUNT_LIVE,
    P_PUT_KEPT,
    P_DELETE_KEPT,
    P_LOAD_KEPT,
    P_INSERT_INVITE,
    P_DELETE_INVITE,
    P_LOAD_INVITE,
    P_INSERT_ABORTED,
    P_LOAD_ABORTED,
    P_EXISTS,
    P_EACH_SET_ASIDE,
    P_LIST,
    P_CLAIM,
    P_CLAIM_BUMP,
    P_VERSION_LOCK,
    P_RENEW,
    P_RELEASE,
    P_RELEASE_ALL,
    P_EXPIRED,
    P_VERSIONS,
    P_WANT,
    P_RELEASE_ONE,
    P_PUT_UNDO,
    P_END_UNDO,
    P_DELETE_UNDO,
    P_OFFER_DRAW,
    P_DRAW_DECIDED,
    P_FORGET_DRAW,
    P_PUT_LOBBY_MATCH,
    P_FORGET_LOBBY_MATCH,
    P_EACH_LOBBY_MATCH,
    P_ADMIT,
    P_SITE,
    P_INSTANCE_GONE,
    P_ADD_MOVES,
    P_MARK_REMATCH,
    P_FIND_REMATCH,
    P_INSERT_ACCOUNT,
    P_FIND_ACCOUNT,
    P_INSERT_SESSION,
    P_FIND_SESSION,
    P_DELETE_SESSION,
    P_DELETE_SESSIONS,
    P_CHARGE_SIGN_IN,
    P_EXPIRE_SIGN_INS,
    P_DELETE_ACCOUNT,
    P_SET_SEAT_ACCOUNT,
    P_INSERT_RATED,
    P_FIND_RATED,
    P_CLAIM_RATED,
    P_SEAT_ACCOUNTS,
    P_GET_RATING,
    P_PUT_RATING,
    P_EACH_RATING,
    P_TAKE_SEEK,
    P_TELL_SITE,
    P_ADD_SEEK,
    P_REMOVE_SEEKS,
    P_SWEEP_SEEKS,
    P_EACH_RATING_POINT,
    P_EACH_PLAYED_GAME,
    P_MATCH_SUMMARY,
    P_SUMMARY_SEATS,
    P_COUNT_STATEMENTS
};

struct pg_store {
    PGconn *conn;
    char *conninfo;                /* as --db gave it, for a sibling's connection */
    bool sibling;                  /* the round's connection (pg_open_sibling) */
    char owner[TOKEN_HEX_LEN + 1]; /* this server's name in the leases table */
    unsigned lease_ms;
    bool prepared;        /* the statements exist on this connection */
    bool in_round;        /* a round's transaction was begun and not yet ended */
    bool release_pending; /* the last change was kept and its savepoint not yet released */
    bool missed;          /* reconnected: notifications may have been lost */
    char sqlstate[6];
    char last_error[256];
    char last_cause[256]; /* why the last reconnection failed */
    double last_attempt;  /* when (monotonic seconds) */
    uint64_t *releases;   /* matches whose lease goes at the next tick */
    size_t release_count, release_cap;
};

/* Runs a prepared statement with text parameters (NULL for SQL NULL). Returns its result, or
 * NULL with the failure noted (the connection's or the statement's error). */
PGresult *pg_run(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values);
#define NUM_TEXT 24 /* room for any 64-bit number in decimal, with its sign and NUL */
const char *pg_u64_text(char out[NUM_TEXT], uint64_t v);
const char *pg_i64_text(char out[NUM_TEXT], int64_t v);
/* A prepared statement run for its effect only; a plain SQL text (no parameters). */
bool pg_run_done(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values);
bool pg_run_sql(struct pg_store *pg, const char *sql);
/* ROLLBACK of the open transaction, the error that made it fail kept for the caller (the
 * rollback's own, if any, is not the one to report). */
void pg_rollback_keeping_error(struct pg_store *pg);
/* Notes libpq's error: the statement's (with its SQLSTATE) or the connection's. */
void pg_note_error(struct pg_store *pg, const PGresult *r);
/* Notes a failure of our own (no SQLSTATE) and returns false. */
bool pg_fail(struct pg_store *pg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The session's timeouts (store-pg.c): lock, statement, idle in transaction. */
bool pg_apply_session_limits(struct pg_store *pg);
/* Makes sure the connection is up (reconnecting once if it was lost), outside a transaction. */
bool pg_connected(struct pg_store *pg);

/* A match still being played, for a query naming its id as alias (store-pg.c's statements and
 * store-pg-schema.c's admission functions). */
#define LIVE_MATCH(alias)                                                                          \
    "NOT EXISTS (SELECT 1 FROM results r WHERE r.match_id = " alias ") AND NOT EXISTS (SELECT 1 "  \
    "FROM clocks c WHERE c.match_id = " alias " AND c.flagged IS NOT NULL) AND NOT EXISTS "        \
    "(SELECT 1 FROM aborted a WHERE a.match_id = " alias ")"

/* Brings the schema to its last version (store-pg-schema.c). A database from a newer server is
 * refused, not read. */
bool pg_migrate(struct pg_store *pg);

#endif

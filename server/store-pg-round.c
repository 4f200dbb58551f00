/* The round's transaction on PostgreSQL (store-pg.h): BEGIN at a round's first change, a
 * savepoint around each change (its RELEASE sent with the next one's SAVEPOINT or the COMMIT,
 * to save round trips), committed only while the transaction is whole, or rolled back. The
 * SQLite store's is store-round.c. */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"

#include <libpq-fe.h>

#include <stdbool.h>
#include <string.h>

/* Kept by the store itself, not read from the connection: a connection lost in the middle of a
 * round says "no transaction", and the round must then fail, not look committed. */
bool pg_in_transaction(const struct pg_store *pg)
{
    return pg->in_round;
}

bool pg_begin_round(struct pg_store *pg)
{
    if (!pg_connected(pg) || !pg_run_sql(pg, "BEGIN"))
        return false;
    pg->in_round = true;
    pg->release_pending = false;
    return true;
}

/* One round trip for what opens a change: the round's BEGIN, or the RELEASE of the change
 * kept before it (pg_change_end leaves that to here, or to the COMMIT), with the SAVEPOINT.
 * If that fails the round is rolled back whole: a RELEASE that did not happen must not leave
 * the next ROLLBACK TO taking back a change already counted as kept. */
bool pg_change_begin(struct pg_store *pg)
{
    const char *sql = !pg->in_round         ? "BEGIN; SAVEPOINT change"
                      : pg->release_pending ? "RELEASE change; SAVEPOINT change"
                                            : "SAVEPOINT change";
    if (!pg->in_round && !pg_connected(pg))
        return false;
    pg->in_round = true;
    pg->release_pending = false;
    if (pg_run_sql(pg, sql))
        return true;
    pg_rollback_round(pg); /* keeps the error; the round is no more */
    return false;
}

/* Whether the round's transaction is still there to be committed. */
static bool round_alive(const struct pg_store *pg)
{
    return pg->in_round && PQstatus(pg->conn) == CONNECTION_OK &&
           PQtransactionStatus(pg->conn) == PQTRANS_INTRANS;
}

enum change_outcome pg_change_end(struct pg_store *pg, bool ok)
{
    if (!pg->in_round || PQstatus(pg->conn) != CONNECTION_OK)
        return CHANGE_ROUND_LOST;
    if (ok) { /* released with the next change's SAVEPOINT, or by the COMMIT */
        pg->release_pending = true;
        return CHANGE_KEPT;
    }
    char why[sizeof pg->last_error], state[sizeof pg->sqlstate];
    memcpy(why, pg->last_error, sizeof why);
    memcpy(state, pg->sqlstate, sizeof state);
    bool kept = pg_run_sql(pg, "ROLLBACK TO change; RELEASE change");
    memcpy(pg->last_error, why, sizeof why); /* the caller wants the change's own error */
    memcpy(pg->sqlstate, state, sizeof state);
    return kept && round_alive(pg) ? CHANGE_DROPPED : CHANGE_ROUND_LOST;
}

bool pg_commit_round(struct pg_store *pg)
{
    if (!pg->in_round)
        return true; /* nothing was staged */
    /* A transaction in error, or on a lost connection, is not committed: COMMIT of the
     * former answers ROLLBACK without an error. */
    if (!round_alive(pg)) {
        char why[sizeof pg->last_error];
        memcpy(why, pg->last_error, sizeof why);
        pg_rollback_round(pg);
        return pg_fail(pg, "the round's transaction was lost (%s)", why);
    }
    PGresult *r = PQexec(pg->conn, "COMMIT");
    bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COMMIT") == 0;
    if (!ok)
        pg_note_error(pg, r);
    PQclear(r);
    pg->in_round = pg->release_pending = false;
    if (!ok && PQstatus(pg->conn) == CONNECTION_OK && PQtransactionStatus(pg->conn) != PQTRANS_IDLE)
        pg_run_sql(pg, "ROLLBACK");
    return ok;
}

void pg_rollback_round(struct pg_store *pg)
{
    if (pg->in_round && PQstatus(pg->conn) == CONNECTION_OK)
        pg_rollback_keeping_error(pg);
    pg->in_round = pg->release_pending = false;
}

/* The PostgreSQL store's view of the whole site (store-pg.h): the servers alive on the
 * database, their clients, the matches stored and being played, and the admission of a new
 * match under the site's --max-matches, and the one rematch of a match (docs/server.md, "What
 * is site-wide"). */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"
#include "common.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool pg_site_poll(struct pg_store *pg, uint64_t clients, uint64_t loaded, unsigned alive_ms,
                  struct site_counts *out)
{
    if (pg_in_transaction(pg) || !pg_connected(pg))
        return false;
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT];
    const char *v[] = {pg->owner, pg_u64_text(a, clients), pg_u64_text(b, loaded),
                       pg_u64_text(c, alive_ms)};
    PGresult *r = pg_run(pg, P_SITE, 4, v);
    if (!r)
        return false;
    bool ok = PQntuples(r) == 1 && PQnfields(r) == 4;
    if (ok) {
        out->matches = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
        out->live = strtoull(PQgetvalue(r, 0, 1), NULL, 10);
        out->servers = strtoull(PQgetvalue(r, 0, 2), NULL, 10);
        out->clients = strtoull(PQgetvalue(r, 0, 3), NULL, 10);
    }
    PQclear(r);
    return ok || pg_fail(pg, "the site's counts did not come");
}

enum admit_result pg_admit_match(struct pg_store *pg, uint64_t max, bool may_wait)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, max), may_wait ? "true" : "false"};
    PGresult *r = pg_run(pg, P_ADMIT, 2, v);
    if (!r) /* the admission's lock not had within lock_timeout: another server holds it */
        return pg_last_was_lock_wait(pg) ? ADMIT_BUSY : ADMIT_FAILED;
    int answer = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    if (answer == 0)
        return ADMIT_OK;
    if (answer == 1)
        return ADMIT_FULL;
    if (answer == 2)
        return ADMIT_BUSY;
    pg_fail(pg, "the admission of a new match did not answer");
    return ADMIT_FAILED;
}

bool pg_mark_rematch(struct pg_store *pg, uint64_t id, uint64_t of)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), pg_u64_text(b, of)};
    PGresult *r = pg_run(pg, P_MARK_REMATCH, 2, v);
    if (!r)
        return false;
    bool marked = PQntuples(r) == 1;
    PQclear(r);
    return marked || pg_fail(pg, "match %" PRIu64 " is not stored", of);
}

bool pg_find_rematch(struct pg_store *pg, uint64_t of, uint64_t *id)
{
    *id = 0;
    bool inside = pg_in_transaction(pg);
    if (inside ? PQstatus(pg->conn) != CONNECTION_OK : !pg_connected(pg))
        return false;
    /* Inside the round's transaction a failed read must not sink the round: a savepoint. */
    if (inside && !pg_run_sql(pg, "SAVEPOINT find_rematch"))
        return false;
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, of)};
    PGresult *r = pg_run(pg, P_FIND_REMATCH, 1, v);
    if (inside)
        pg_run_sql(pg, r ? "RELEASE find_rematch" : "ROLLBACK TO find_rematch");
    if (!r)
        return false;
    if (PQntuples(r) == 1)
        *id = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return true;
}

/* The PostgreSQL store's view of the whole site (store-pg.h): the servers alive on the
 * database, their clients, the matches stored and being played, and the admission of a new
 * match under the site's --max-matches (docs/server.md, "What is site-wide"). */
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
    if (!r)
        return ADMIT_FAILED;
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

/* The PostgreSQL store's part in several servers sharing one database (store-pg.h): the
 * claims of matches, the leases' renewal, release and take-over, and the notifications
 * (docs/server.md, "PostgreSQL"). */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"
#include "common.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum claim_result pg_claim(struct pg_store *pg, uint64_t id, uint64_t version, bool bump)
{
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT];
    const char *l[] = {pg_u64_text(a, id), pg->owner, pg_u64_text(b, pg->lease_ms),
                       pg_u64_text(c, version)};
    PGresult *r = pg_run(pg, bump ? P_CLAIM_BUMP : P_CLAIM, bump ? 4 : 3, l);
    if (!r) /* a row locked past lock_timeout: another server holds it, busy or frozen */
        return pg_last_was_lock_wait(pg) ? CLAIM_LEASED : CLAIM_FAILED;
    bool leased = bump ? strcmp(PQgetvalue(r, 0, 0), "0") == 0 : PQntuples(r) == 0;
    bool current = bump && strcmp(PQgetvalue(r, 0, 1), "1") == 0;
    PQclear(r);
    if (leased)
        return CLAIM_LEASED;
    pg_keep_lease(pg, id); /* played again: its release is off */
    if (!bump) {
        const char *v[] = {pg_u64_text(a, id)};
        if (!(r = pg_run(pg, P_VERSION_LOCK, 1, v)))
            return pg_last_was_lock_wait(pg) ? CLAIM_LEASED : CLAIM_FAILED;
        current = PQntuples(r) == 1 && strtoull(PQgetvalue(r, 0, 0), NULL, 10) == version;
        PQclear(r);
    }
    return current ? CLAIM_OK : CLAIM_STALE;
}

void pg_release(struct pg_store *pg, uint64_t id)
{
    uint64_t *grown =
        array_reserve(pg->releases, &pg->release_cap, pg->release_count + 1, sizeof *grown, 64);
    if (!grown)
        return; /* the lease runs out by itself */
    pg->releases = grown;
    pg->releases[pg->release_count++] = id;
}

void pg_keep_lease(struct pg_store *pg, uint64_t id)
{
    for (size_t i = 0; i < pg->release_count; i++)
        if (pg->releases[i] == id)
            pg->releases[i--] = pg->releases[--pg->release_count];
}

/* A PostgreSQL array literal of ids: {1,2,3}. */
static char *id_array(const uint64_t *ids, size_t n)
{
    struct buf b = {0};
    bool ok = buf_append(&b, "{", 1);
    for (size_t i = 0; ok && i < n; i++)
        ok = buf_printf(&b, "%s%" PRIu64, i ? "," : "", ids[i]);
    ok = ok && buf_append(&b, "}", 1);
    if (!ok) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

bool pg_leases_tick(struct pg_store *pg)
{
    if (pg_in_transaction(pg) || !pg_connected(pg))
        return false;
    char a[NUM_TEXT];
    const char *v[] = {pg->owner, pg_u64_text(a, pg->lease_ms)};
    if (!pg_run_done(pg, P_RENEW, 2, v))
        return false;
    if (!pg->release_count)
        return true;
    char *list = id_array(pg->releases, pg->release_count);
    const char *r[] = {pg->owner, list};
    bool ok = list && pg_run_done(pg, P_RELEASE, 2, r);
    free(list);
    if (ok)
        pg->release_count = 0;
    return ok;
}

bool pg_expired_leases(struct pg_store *pg, uint64_t *ids, size_t max, size_t *count)
{
    *count = 0;
    if (pg_in_transaction(pg) || !pg_connected(pg))
        return false;
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, max)};
    PGresult *r = pg_run(pg, P_EXPIRED, 1, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r) && *count < max; i++)
        ids[(*count)++] = strtoull(PQgetvalue(r, i, 0), NULL, 10);
    PQclear(r);
    return true;
}

int pg_notify_fd(const struct pg_store *pg)
{
    return PQstatus(pg->conn) == CONNECTION_OK ? PQsocket(pg->conn) : -1;
}

void pg_want(struct pg_store *pg, uint64_t id)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    pg_run_done(pg, P_WANT, 1, v);
}

/* Gives the lease up now (another server's client wants the match), if it is ours. */
static void release_now(struct pg_store *pg, uint64_t id)
{
    char a[NUM_TEXT];
    const char *v[] = {pg->owner, pg_u64_text(a, id)};
    pg_run_done(pg, P_RELEASE_ONE, 2, v);
}

bool pg_take_notifications(struct pg_store *pg, void (*each)(uint64_t, uint64_t, void *),
                           bool (*wanted)(uint64_t, void *), void *ctx, bool *missed)
{
    bool ok = true;
    if (!pg_in_transaction(pg)) {
        ok = pg_connected(pg);
        if (ok && !PQconsumeInput(pg->conn)) {
            pg_note_error(pg, NULL);
            ok = false;
        }
    }
    for (PGnotify *n; (n = PQnotifies(pg->conn)) != NULL; PQfreemem(n)) {
        uint64_t id, version;
        if (strcmp(n->relname, "tg_want") == 0) {
            if (n->extra && sscanf(n->extra, "%" SCNu64, &id) == 1 && !pg_in_transaction(pg)) {
                bool mine = wanted(id, ctx);
                for (size_t i = 0; !mine && i < pg->release_count; i++)
                    mine = pg->releases[i] == id;
                if (mine)
                    release_now(pg, id);
            }
        } else if (n->extra && sscanf(n->extra, "%" SCNu64 " %" SCNu64, &id, &version) == 2) {
            each(id, version, ctx);
        }
    }
    *missed = pg->missed;
    pg->missed = false;
    return ok;
}

bool pg_versions(struct pg_store *pg, const uint64_t *ids, size_t n, uint64_t *versions)
{
    for (size_t i = 0; i < n; i++)
        versions[i] = UINT64_MAX;
    if (!n)
        return true;
    /* Inside the round's transaction a failed read must not sink the round: a savepoint. */
    bool inside = pg_in_transaction(pg);
    if (inside ? PQstatus(pg->conn) != CONNECTION_OK : !pg_connected(pg))
        return false;
    if (inside && !pg_run_sql(pg, "SAVEPOINT versions"))
        return false;
    char *list = id_array(ids, n);
    const char *v[] = {list};
    PGresult *r = list ? pg_run(pg, P_VERSIONS, 1, v) : NULL;
    free(list);
    if (inside)
        pg_run_sql(pg, r ? "RELEASE versions" : "ROLLBACK TO versions");
    if (!r)
        return false;
    for (int row = 0; row < PQntuples(r); row++) {
        uint64_t id = strtoull(PQgetvalue(r, row, 0), NULL, 10);
        for (size_t i = 0; i < n; i++)
            if (ids[i] == id)
                versions[i] = strtoull(PQgetvalue(r, row, 1), NULL, 10);
    }
    PQclear(r);
    return true;
}

void pg_set_lease(struct pg_store *pg, unsigned lease_ms)
{
    pg->lease_ms = lease_ms;
    /* The session's idle_in_transaction_session_timeout follows the lease (set_up_connection
     * sets it on every connection from now on). */
    if (PQstatus(pg->conn) == CONNECTION_OK && pg->prepared && !pg_in_transaction(pg))
        pg_apply_session_limits(pg);
}

const char *pg_owner(const struct pg_store *pg)
{
    return pg->owner;
}

/* Matches nobody plays, on PostgreSQL (store.h, store_expired_matches; SQLite's half is
 * store-expire.c): the same rules, in the database's own time. A match another server holds
 * the lease of is left to that server, which ends it itself; one ended here gets its version
 * bumped and announced, so that a server holding it loaded learns of the end. */
#define _POSIX_C_SOURCE 200809L

#include "store-pg.h"
#include "store-pg-private.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>

/* $1 the seconds an unjoined match may wait, $2 those an unclocked one may go unplayed. */
#define PG_EXPIRED_SQL                                                                           \
    "NOT EXISTS (SELECT 1 FROM results r WHERE r.match_id = m.id) "                              \
    "AND NOT EXISTS (SELECT 1 FROM aborted a WHERE a.match_id = m.id) "                          \
    "AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.match_id = m.id) "                        \
    "AND NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = m.id AND c.flagged IS NOT NULL) " \
    "AND CASE WHEN EXISTS (SELECT 1 FROM invites i WHERE i.match_id = m.id) "                    \
    "THEN m.created_at <= now() - make_interval(secs => $1::double precision) "                  \
    "ELSE NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = m.id) "                          \
    "AND greatest(m.created_at, (SELECT v.played_at FROM moves v WHERE v.match_id = m.id "       \
    "ORDER BY v.ply DESC LIMIT 1)) <= now() - make_interval(secs => $2::double precision) END"

static PGresult *run_params(struct pg_store *pg, const char *sql, int n, const char *const *v)
{
    PGresult *r = PQexecParams(pg->conn, sql, n, NULL, v, NULL, NULL, 0);
    if (r && PQresultStatus(r) == PGRES_TUPLES_OK)
        return r;
    pg_note_error(pg, r);
    PQclear(r);
    return NULL;
}

bool pg_expired_matches(struct pg_store *pg, uint64_t after, uint64_t span, double join_timeout,
                        double abandon_after, uint64_t *ids, size_t max, size_t *count,
                        bool *more)
{
    *count = 0;
    *more = false;
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT], join[32], abandon[32];
    snprintf(join, sizeof join, "%.3f", join_timeout);
    snprintf(abandon, sizeof abandon, "%.3f", abandon_after);
    const char *v[] = {join, abandon, pg_u64_text(a, after), pg_u64_text(b, after + span),
                       pg_u64_text(c, max)};
    PGresult *r = run_params(pg,
                             "SELECT m.id, EXISTS (SELECT 1 FROM matches WHERE id > $4::bigint) "
                             "FROM (SELECT 1) one LEFT JOIN matches m ON m.id > $3::bigint AND "
                             "m.id <= $4::bigint AND " PG_EXPIRED_SQL
                             " ORDER BY m.id LIMIT $5::bigint + 1",
                             5, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++) {
        *more = PQgetvalue(r, i, 1)[0] == 't';
        if (!PQgetisnull(r, i, 0) && *count < max)
            ids[(*count)++] = strtoull(PQgetvalue(r, i, 0), NULL, 10);
    }
    PQclear(r);
    return true;
}

bool pg_expire_match(struct pg_store *pg, uint64_t id, double join_timeout, double abandon_after,
                     bool *ended)
{
    *ended = false;
    char a[NUM_TEXT], join[32], abandon[32];
    snprintf(join, sizeof join, "%.3f", join_timeout);
    snprintf(abandon, sizeof abandon, "%.3f", abandon_after);
    const char *v[] = {join, abandon, pg_u64_text(a, id)};
    /* SKIP LOCKED: a match another server is changing now is not waited for (it is not
     * abandoned); the next pass looks again. */
    PGresult *r = run_params(
        pg,
        "WITH x AS (SELECT m.id FROM matches m WHERE m.id = $3::bigint AND " PG_EXPIRED_SQL
        " AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.match_id = m.id AND l.expires_at > now())"
        " FOR UPDATE OF m SKIP LOCKED), "
        "ins AS (INSERT INTO aborted (match_id, at) SELECT id, now() FROM x RETURNING match_id), "
        "u AS (UPDATE matches SET version = version + 1 WHERE id IN (SELECT match_id FROM ins) "
        "RETURNING id, version) "
        "SELECT pg_notify('tg_match', id::text || ' ' || version::text) FROM u",
        3, v);
    if (!r)
        return false;
    *ended = PQntuples(r) == 1;
    PQclear(r);
    return true;
}

bool pg_overdue_matches(struct pg_store *pg, uint64_t *ids, size_t max, size_t *count)
{
    *count = 0;
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, max)};
    /* A match leased by a live server is loaded there, and its loop flags it. */
    PGresult *r = run_params(
        pg,
        "SELECT k.match_id FROM correspondence k WHERE k.deadline <= (extract(epoch FROM "
        "clock_timestamp()) * 1000)::bigint "
        "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.match_id = k.match_id) "
        "AND NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = k.match_id AND "
        "c.flagged IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM aborted a WHERE a.match_id = "
        "k.match_id) AND NOT EXISTS (SELECT 1 FROM invites i WHERE i.match_id = k.match_id) "
        "AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.match_id = k.match_id) "
        "AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.match_id = k.match_id AND "
        "l.expires_at > clock_timestamp()) ORDER BY k.deadline LIMIT $1::bigint",
        1, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r) && *count < max; i++)
        ids[(*count)++] = strtoull(PQgetvalue(r, i, 0), NULL, 10);
    PQclear(r);
    return true;
}

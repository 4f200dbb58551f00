/* Matches nobody plays (store.h, store_expired_matches): a match whose second seat was never
 * joined in --join-timeout, and one without a clock whose last move (or creation) is older
 * than --abandon-after, found from the stored times so that a restart resets nothing, and
 * ended with an `aborted` row. The SQLite half; PostgreSQL's is store-pg-expire.c. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"
#include "store-pg.h"

#include <time.h>

/* Whether match m (an alias) is being played and expired: ?1 the creation time before which
 * an unjoined match expires, ?2 the last activity before which an unclocked one does. */
#define EXPIRED_SQL                                                                              \
    "NOT EXISTS (SELECT 1 FROM results r WHERE r.match_id = m.id) "                              \
    "AND NOT EXISTS (SELECT 1 FROM aborted a WHERE a.match_id = m.id) "                          \
    "AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.match_id = m.id) "                        \
    "AND NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = m.id AND c.flagged IS NOT NULL) " \
    "AND CASE WHEN EXISTS (SELECT 1 FROM invites i WHERE i.match_id = m.id) "                    \
    "THEN m.created_at <= ?1 "                                                                   \
    "ELSE NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = m.id) "                          \
    "AND max(m.created_at, coalesce((SELECT v.played_at FROM moves v WHERE v.match_id = m.id "   \
    "ORDER BY v.ply DESC LIMIT 1), 0)) <= ?2 END"

static bool prepare(struct store *st, const char *sql, sqlite3_stmt **s)
{
    int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);
    return rc == SQLITE_OK || store_failed(st, rc);
}

bool store_expired_matches(struct store *st, uint64_t after, uint64_t span, double join_timeout,
                           double abandon_after, uint64_t *ids, size_t max, size_t *count,
                           bool *more)
{
    if (st->pg)
        return pg_expired_matches(st->pg, after, span, join_timeout, abandon_after, ids, max,
                                  count, more);
    *count = 0;
    *more = false;
    sqlite3_stmt *s;
    if (!prepare(st, "SELECT m.id FROM matches m WHERE m.id > ?3 AND m.id <= ?4 AND " EXPIRED_SQL
                     " ORDER BY m.id LIMIT ?5",
                 &s))
        return false;
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    sqlite3_bind_int64(s, 1, now - (sqlite3_int64)join_timeout);
    sqlite3_bind_int64(s, 2, now - (sqlite3_int64)abandon_after);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)after);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)(after + span));
    sqlite3_bind_int64(s, 5, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        ids[(*count)++] = store_as_unsigned(sqlite3_column_int64(s, 0));
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_failed(st, rc);
    if (!prepare(st, "SELECT 1 FROM matches WHERE id > ?1 LIMIT 1", &s))
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)(after + span));
    rc = sqlite3_step(s);
    *more = rc == SQLITE_ROW;
    sqlite3_finalize(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE || store_failed(st, rc);
}

bool store_expire_match(struct store *st, uint64_t id, double join_timeout, double abandon_after,
                        bool *ended)
{
    if (st->pg)
        return pg_expire_match(st->pg, id, join_timeout, abandon_after, ended);
    *ended = false;
    sqlite3_stmt *s;
    if (!prepare(st, "INSERT INTO aborted (match_id, at) SELECT m.id, ?3 FROM matches m "
                     "WHERE m.id = ?4 AND " EXPIRED_SQL,
                 &s))
        return false;
    sqlite3_int64 now = (sqlite3_int64)time(NULL);
    sqlite3_bind_int64(s, 1, now - (sqlite3_int64)join_timeout);
    sqlite3_bind_int64(s, 2, now - (sqlite3_int64)abandon_after);
    sqlite3_bind_int64(s, 3, now);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)id);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return store_failed(st, rc);
    *ended = sqlite3_changes(st->db) == 1;
    return true;
}

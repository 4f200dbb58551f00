/* Correspondence matches in the store (store.h; docs/server.md, "Correspondence"): the
 * deadline of the seat to move, kept in wall-clock time so that it holds across restarts and
 * servers, and the scan for the deadlines passed. The SQLite half of the scan;
 * PostgreSQL's is in store-pg-expire.c. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"
#include "store-pg.h"

#include <sqlite3.h>

#include <stdio.h>
#include <time.h>

int64_t correspondence_left_ms(const struct stored_clock *c)
{
    return c->left_ms[0] < c->left_ms[1] ? c->left_ms[0] : c->left_ms[1];
}

int64_t correspondence_used_ms(struct stored_clock *c, int64_t deadline_ms, int64_t now_ms)
{
    c->left_ms[0] = c->left_ms[1] = c->base_ms;
    int64_t used = c->base_ms - (deadline_ms - now_ms);
    return used > 0 ? used : 0;
}

bool store_overdue_matches(struct store *st, uint64_t *ids, size_t max, size_t *count)
{
    *count = 0;
    if (st->pg)
        return pg_overdue_matches(st->pg, ids, max, count);
    sqlite3_stmt *s = store_prepared(st, S_OVERDUE);
    if (!s)
        return false;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    sqlite3_bind_int64(s, 1, (sqlite3_int64)t.tv_sec * 1000 + t.tv_nsec / 1000000);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && *count < max)
        ids[(*count)++] = store_as_unsigned(sqlite3_column_int64(s, 0));
    sqlite3_reset(s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE || store_failed(st, rc);
}

bool store_each_correspondence(struct store *st, uint64_t account_id, size_t max,
                               void (*each)(const struct correspondence_game *, void *), void *ctx)
{
    if (st->pg)
        return pg_each_correspondence(st->pg, account_id, max, each, ctx);
    sqlite3_stmt *s = store_prepared(st, S_EACH_CORRESPONDENCE);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct correspondence_game g = {.match_id = store_as_unsigned(sqlite3_column_int64(s, 0)),
                                        .seat = sqlite3_column_int(s, 2),
                                        .days = sqlite3_column_int(s, 4)};
        const unsigned char *spec = sqlite3_column_text(s, 1), *name = sqlite3_column_text(s, 3);
        snprintf(g.spec, sizeof g.spec, "%s", spec ? (const char *)spec : "");
        snprintf(g.opponent, sizeof g.opponent, "%s", name ? (const char *)name : "");
        g.to_move = sqlite3_column_type(s, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 5);
        g.deadline_ms = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 6);
        each(&g, ctx);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

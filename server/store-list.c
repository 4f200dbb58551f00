/* Counting and listing the stored matches on SQLite (store.h): how many there are and how many
 * are being played, whether one exists, their ids page by page, and the set-aside ones. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"
#include "store-pg.h"

#include <sqlite3.h>

static bool single_integer(struct store *st, sqlite3_stmt *s, sqlite3_int64 *out, bool *found)
{
    int rc = sqlite3_step(s);
    *found = rc == SQLITE_ROW;
    if (*found)
        *out = sqlite3_column_int64(s, 0);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        sqlite3_reset(s);
        return true;
    }
    store_failed(st, rc);
    sqlite3_reset(s);
    return false;
}

/* The one integer a count statement answers. */
static bool count_of(struct store *st, enum stmt_id id, uint64_t *count)
{
    sqlite3_stmt *s = store_prepared(st, id);
    sqlite3_int64 n = 0;
    bool found;
    if (!s || !single_integer(st, s, &n, &found))
        return false;
    *count = (uint64_t)n;
    return true;
}

bool store_count_matches(struct store *st, uint64_t *count)
{
    if (st->pg)
        return pg_count_matches(st->pg, count);
    return count_of(st, S_COUNT, count);
}

bool store_count_live_matches(struct store *st, uint64_t *count)
{
    if (st->pg)
        return pg_count_live_matches(st->pg, count);
    return count_of(st, S_COUNT_LIVE, count);
}

bool store_match_exists(struct store *st, uint64_t id, bool *exists)
{
    if (st->pg)
        return pg_match_exists(st->pg, id, exists);
    sqlite3_stmt *s = store_prepared(st, S_EXISTS);
    sqlite3_int64 one;
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return single_integer(st, s, &one, exists);
}

bool store_each_set_aside(struct store *st, void (*each)(uint64_t, const char *, void *), void *ctx)
{
    if (st->pg)
        return pg_each_set_aside(st->pg, each, ctx);
    sqlite3_stmt *s = store_prepared(st, S_EACH_SET_ASIDE);
    if (!s)
        return false;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *reason = (const char *)sqlite3_column_text(s, 1);
        each((uint64_t)sqlite3_column_int64(s, 0), reason ? reason : "", ctx);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

bool store_list_ids(struct store *st, uint64_t after, uint64_t *ids, size_t max, size_t *count,
                    bool *more)
{
    if (st->pg)
        return pg_list_ids(st->pg, after, ids, max, count, more);
    sqlite3_stmt *s = store_prepared(st, S_LIST);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)after);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)max + 1);
    int rc;
    *count = 0;
    *more = false;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (*count == max) {
            *more = true;
            continue;
        }
        ids[(*count)++] = (uint64_t)sqlite3_column_int64(s, 0);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

bool store_each_lobby_match(struct store *st, size_t max,
                            void (*each)(uint64_t id, const char *line, void *ctx), void *ctx)
{
    if (st->pg)
        return pg_each_lobby_match(st->pg, max, each, ctx);
    sqlite3_stmt *s = store_prepared(st, S_EACH_LOBBY_MATCH);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *line = sqlite3_column_text(s, 1);
        if (line)
            each((uint64_t)sqlite3_column_int64(s, 0), (const char *)line, ctx);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

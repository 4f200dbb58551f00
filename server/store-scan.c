/* Counting the stored matches when a page of `matches` is damaged (store.h): SQLite stops a
 * scan at the first page it cannot read, so the walk goes on from the first id past that page
 * it can seek to, and reports each stretch of ids it had to skip. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"

#include <stdlib.h>

static bool is_damage(int rc)
{
    return (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
}

/* Whether a seek to the first id >= from reads without damage. */
static bool seekable(sqlite3_stmt *probe, uint64_t from, int *rc)
{
    sqlite3_reset(probe);
    sqlite3_bind_int64(probe, 1, (sqlite3_int64)from);
    *rc = sqlite3_step(probe);
    sqlite3_reset(probe);
    return *rc == SQLITE_ROW || *rc == SQLITE_DONE;
}

/* The smallest id above last that a seek reaches without damage, or 0 if none does. Seeks
 * fail for every id that falls in the damaged page's key range and succeed past it, so an
 * exponential search then a binary one finds the page's end. */
static uint64_t first_seekable_after(sqlite3_stmt *probe, uint64_t last, int *rc)
{
    uint64_t step = 1, bad = last, good = 0;
    while (step && last + step > last) {
        if (seekable(probe, last + step, rc)) {
            good = last + step;
            break;
        }
        if (!is_damage(*rc))
            return 0;
        bad = last + step;
        step = step > UINT64_MAX / 2 ? 0 : step * 2;
    }
    if (!good)
        return 0;
    while (good - bad > 1) {
        uint64_t mid = bad + (good - bad) / 2;
        if (seekable(probe, mid, rc))
            good = mid;
        else
            bad = mid;
    }
    return good;
}

static bool add_gap(struct id_gap **gaps, size_t *n, uint64_t from, uint64_t to)
{
    struct id_gap *grown = realloc(*gaps, (*n + 1) * sizeof *grown);
    if (!grown)
        return false;
    *gaps = grown;
    grown[(*n)++] = (struct id_gap){from, to};
    return true;
}

/* Ended matches (a result, a flag fall, an abort) with ids from..to; only the tables of the
 * endings are read, not `matches`. */
static bool count_ended(struct store *st, uint64_t from, uint64_t to, uint64_t *out)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(
        st->db,
        "SELECT count(*) FROM (SELECT match_id FROM results UNION SELECT match_id FROM clocks "
        "WHERE flagged IS NOT NULL UNION SELECT match_id FROM aborted) "
        "WHERE match_id BETWEEN ?1 AND ?2",
        -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)from);
        sqlite3_bind_int64(s, 2, to > INT64_MAX ? INT64_MAX : (sqlite3_int64)to);
        rc = sqlite3_step(s);
    }
    if (rc == SQLITE_ROW)
        *out = (uint64_t)sqlite3_column_int64(s, 0);
    else
        store_failed(st, rc);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW;
}

bool store_count_past_damage(struct store *st, uint64_t *count, uint64_t *live, bool *live_known,
                             struct id_gap **gaps, size_t *gap_count)
{
    *count = *live = 0;
    *live_known = false;
    *gaps = NULL;
    *gap_count = 0;
    if (st->pg)
        return false; /* PostgreSQL's pages are not read past here */
    sqlite3_stmt *walk = NULL, *probe = NULL;
    int rc = sqlite3_prepare_v2(st->db, "SELECT id FROM matches WHERE id >= ?1 ORDER BY id", -1,
                                &walk, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(st->db, "SELECT id FROM matches WHERE id >= ?1 ORDER BY id LIMIT 1",
                                -1, &probe, NULL);
    uint64_t from = 0;
    bool ok = rc == SQLITE_OK;
    while (ok) {
        sqlite3_reset(walk);
        sqlite3_bind_int64(walk, 1, (sqlite3_int64)from);
        uint64_t last = from ? from - 1 : 0;
        while ((rc = sqlite3_step(walk)) == SQLITE_ROW) {
            last = (uint64_t)sqlite3_column_int64(walk, 0);
            (*count)++;
        }
        if (rc == SQLITE_DONE)
            break;
        if (!is_damage(rc)) {
            ok = false;
            break;
        }
        uint64_t next = first_seekable_after(probe, last, &rc);
        if (!add_gap(gaps, gap_count, last + 1, next ? next - 1 : UINT64_MAX)) {
            rc = SQLITE_NOMEM;
            ok = false;
        }
        if (!next) {
            ok = ok && is_damage(rc);
            break;
        }
        from = next;
    }
    if (!ok)
        store_failed(st, rc);
    sqlite3_finalize(walk);
    sqlite3_finalize(probe);
    if (!ok) {
        free(*gaps);
        *gaps = NULL;
        *gap_count = 0;
        return false;
    }
    /* The live ones: every readable match less the ended ones among them. */
    uint64_t ended = 0, in_gap = 0, n;
    bool known = count_ended(st, 0, UINT64_MAX, &ended);
    for (size_t i = 0; known && i < *gap_count; i++) {
        known = count_ended(st, (*gaps)[i].from, (*gaps)[i].to, &n);
        in_gap += n;
    }
    *live_known = known;
    *live = known && ended - in_gap <= *count ? *count - (ended - in_gap) : *count;
    return true;
}

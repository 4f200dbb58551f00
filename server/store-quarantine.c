/* Damaged side tables (store.h): every match's load reads each small table (its clock, its
 * result, its invite, ...), so one damaged page of one of them would set aside every match, and
 * one of meta's pages would stop the start outright. Before the store opens, each side table is
 * checked; a damaged one is renamed out of the way (kept for an operator, never read again) and
 * made anew, empty, by store_open, and only the matches whose rows it may have held are set
 * aside. What "may have held" means is table by table, below: a row the other tables prove
 * cannot have existed costs nothing; where nothing tells, every match is set aside. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"

#include <sqlite3.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct side_table {
    const char *name;
    /* The matches that may have had a row in it, from the other tables; NULL: none needs
     * setting aside (what it held is given up safely, as its reason says). */
    const char *suspects;
    const char *why;
};

static const struct side_table side_tables[] = {
    {"meta", NULL, "it holds only the schema version, which store_open writes again"},
    {"set_aside", NULL, "a match set aside for damage is found damaged again as it loads"},
    {"undo_requests", NULL, "an open undo request is lost, as if it had lapsed"},
    /* An invite row exists only until the seat is joined, and nothing is played before. */
    {"invites", "SELECT id FROM matches WHERE plies = 0",
     "a match with nothing played may have lost the invite to its other seat"},
    /* Kept throws come from an accepted undo in At-Tab wa-d-Dukk: the only game that throws. */
    {"kept_throws", "SELECT id FROM matches WHERE spec = 'tab' OR spec LIKE 'tab:%'",
     "a match of At-Tab wa-d-Dukk may have lost the throws an undo kept"},
    /* Only a clocked match with no decision yet can have been aborted. */
    {"aborted",
     "SELECT id FROM matches m WHERE EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = m.id) "
     "AND NOT EXISTS (SELECT 1 FROM moves v WHERE v.match_id = m.id AND v.seat IS NOT NULL)",
     "a clocked match with no decision may have been aborted"},
    /* Any match may have had a time control, or have ended by resignation: nothing tells. */
    {"clocks", "SELECT id FROM matches", "any match may have had a clock"},
    {"results", "SELECT id FROM matches", "any match may have ended by resignation"},
};

static bool table_exists(sqlite3 *db, const char *name)
{
    sqlite3_stmt *s = NULL;
    bool found = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND "
                                        "name = ?1",
                                    -1, &s, NULL) == SQLITE_OK &&
                 sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
                 sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    return found;
}

/* SQLite's quick_check of the table and its indexes: every page of their b-trees read. */
static bool table_sound(sqlite3 *db, const char *name)
{
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA quick_check(\"%s\")", name);
    sqlite3_stmt *s = NULL;
    bool sound = sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
                 sqlite3_step(s) == SQLITE_ROW &&
                 strcmp((const char *)sqlite3_column_text(s, 0), "ok") == 0 &&
                 sqlite3_step(s) == SQLITE_DONE;
    sqlite3_finalize(s);
    return sound;
}

struct ids {
    uint64_t *v;
    size_t n, cap;
};

static bool read_suspects(sqlite3 *db, const char *sql, struct ids *out)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return false;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 64;
            uint64_t *grown = realloc(out->v, cap * sizeof *grown);
            if (!grown)
                break;
            out->v = grown;
            out->cap = cap;
        }
        out->v[out->n++] = (uint64_t)sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE;
}

#define APPEND(report, cap, ...)                                                              \
    do {                                                                                      \
        size_t used_ = strlen(report);                                                        \
        if (used_ < (cap))                                                                    \
            snprintf((report) + used_, (cap) - used_, __VA_ARGS__);                           \
    } while (0)

int store_quarantine_damaged_tables(const char *db_path,
                                    void (*each)(uint64_t, const char *, void *), void *ctx,
                                    char *report, size_t report_cap)
{
    report[0] = '\0';
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1; /* no database yet, or page 1 is damaged: store_repair_schema's part */
    }
    int quarantined = 0;
    long long stamp = (long long)time(NULL);
    for (size_t i = 0; i < sizeof side_tables / sizeof *side_tables; i++) {
        const struct side_table *t = &side_tables[i];
        if (!table_exists(db, t->name) || table_sound(db, t->name))
            continue;
        struct ids suspects = {0};
        if (t->suspects && !read_suspects(db, t->suspects, &suspects)) {
            APPEND(report, report_cap,
                   "the %s table is damaged, and which matches it concerns cannot be read (%s): "
                   "it is left as it is; ",
                   t->name, sqlite3_errmsg(db));
            free(suspects.v);
            continue;
        }
        char sql[160], reason[200];
        snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" RENAME TO \"damaged_%s_%lld\"", t->name,
                 t->name, stamp);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            APPEND(report, report_cap, "the %s table is damaged and cannot be renamed (%s); ",
                   t->name, sqlite3_errmsg(db));
            free(suspects.v);
            continue;
        }
        quarantined++;
        APPEND(report, report_cap,
               "the %s table was damaged: renamed damaged_%s_%lld and made anew; %s (%zu "
               "matches set aside); ",
               t->name, t->name, stamp, t->why, suspects.n);
        snprintf(reason, sizeof reason, "the %s table was damaged: %s", t->name, t->why);
        for (size_t k = 0; k < suspects.n; k++)
            each(suspects.v[k], reason, ctx);
        free(suspects.v);
    }
    sqlite3_close(db);
    size_t n = strlen(report);
    if (n >= 2 && report[n - 2] == ';')
        report[n - 2] = '\0';
    return quarantined;
}

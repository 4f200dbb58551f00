/* Damaged side tables (store.h): every match's load reads each small table (its clock, its
 * result, its invite, ...), so one damaged page of one of them would set aside every match, and
 * one of meta's pages would stop the start outright. Before the store opens, each side table is
 * checked; a damaged one is renamed out of the way (kept for an operator, never read again) and
 * made anew, empty, by store_open, and only the matches whose rows it may have held are set
 * aside. What "may have held" means is table by table, below: a row the other tables prove
 * cannot have existed costs nothing; where nothing tells, every match is set aside. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"

#include <sqlite3.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct side_table {
    const char *name;
    /* The matches that may have had a row in it, from the other tables, as a column `id`;
     * NULL: none needs setting aside (what it held is given up safely, as `why` says). No
     * quote in `why`: it is written into SQL. */
    const char *suspects;
    const char *why;
};

/* set_aside first: the others write their suspects into it. */
static const struct side_table side_tables[] = {
    {"set_aside", NULL, "a match set aside for damage is found damaged again as it loads"},
    {"meta", NULL, "it holds only the schema version, which store_open writes again"},
    {"undo_requests", NULL, "an open undo request is lost, as if it had lapsed"},
    {"draw_offers", NULL, "an open draw offer is lost, as if it had been withdrawn"},
    {"lobby_matches", NULL,
     "the lobby may no longer list a running match (it can still be watched by id)"},
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
    /* Without its row a correspondence match would read as one with a days-long clock. */
    {"correspondence", "SELECT id FROM matches", "any match may have been a correspondence one"},
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

#define APPEND(report, cap, ...)                                                              \
    do {                                                                                      \
        size_t used_ = strlen(report);                                                        \
        if (used_ < (cap))                                                                    \
            snprintf((report) + used_, (cap) - used_, __VA_ARGS__);                           \
    } while (0)

/* In one transaction: the table renamed, the set-aside table made again if it was the one, and
 * a set-aside row for each suspect (a match already set aside keeps its first reason). The
 * number of matches newly set aside, or -1 (nothing changed). */
static long long quarantine(sqlite3 *db, const struct side_table *t, long long stamp)
{
    char sql[512];
    bool ok = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
    snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" RENAME TO \"damaged_%s_%lld\"", t->name,
             t->name, stamp);
    ok = ok && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    if (ok && strcmp(t->name, "set_aside") == 0)
        ok = sqlite3_exec(db, SET_ASIDE_TABLE_SQL, NULL, NULL, NULL) == SQLITE_OK;
    long long marked = 0;
    if (ok && t->suspects) {
        snprintf(sql, sizeof sql,
                 "INSERT OR IGNORE INTO set_aside (match_id, reason, at) SELECT id, "
                 "'the %s table was damaged: %s', %lld FROM (%s)",
                 t->name, t->why, stamp, t->suspects);
        ok = sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
        marked = sqlite3_changes64(db);
    }
    if (ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
        return marked;
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int store_quarantine_damaged_tables(const char *db_path, char *report, size_t report_cap)
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
        long long marked = quarantine(db, t, stamp);
        if (marked < 0) {
            /* Its loads keep failing, so every match is set aside as it loads: safe. */
            APPEND(report, report_cap,
                   "the %s table is damaged and could not be put aside (%s): every match that "
                   "reads it is set aside as it loads; ",
                   t->name, sqlite3_errmsg(db));
            continue;
        }
        quarantined++;
        APPEND(report, report_cap,
               "the %s table was damaged: renamed damaged_%s_%lld and made anew; %s (%lld "
               "matches set aside); ",
               t->name, t->name, stamp, t->why, marked);
    }
    sqlite3_close(db);
    size_t n = strlen(report);
    if (n >= 2 && report[n - 2] == ';')
        report[n - 2] = '\0';
    return quarantined;
}

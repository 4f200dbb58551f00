/* What an operator does to the whole SQLite file (store.h): its integrity check (--check) and
 * its online backup (--backup). */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"
#include "store-pg.h"

#include <sqlite3.h>

#include <stdio.h>

bool store_check(struct store *st, bool full, char *out, size_t out_cap)
{
    if (st->pg)
        return pg_check(st->pg, full, out, out_cap);
    sqlite3_stmt *s = NULL;
    const char *sql = full ? "PRAGMA integrity_check(1)" : "PRAGMA quick_check(1)";
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
        snprintf(out, out_cap, "%s", (const char *)sqlite3_column_text(s, 0));
    else
        snprintf(out, out_cap, "%s", sqlite3_errmsg(st->db));
    sqlite3_finalize(s);
    return rc == SQLITE_ROW;
}

/* SQLite's online backup: a consistent copy of the database while a server may be writing to
 * it (WAL mode lets this reader in), a hundred pages at a time so that the server's commits
 * are held up for a moment at most, never for the whole copy. */
bool store_backup(const char *db_path, const char *to_path, char *err, size_t err_cap)
{
    if (pg_is_conninfo(db_path)) {
        snprintf(err, err_cap,
                 "a PostgreSQL database is backed up with pg_dump or "
                 "pg_basebackup (docs/server.md, \"Backups\")");
        return false;
    }
    sqlite3 *from = NULL, *to = NULL;
    int rc = sqlite3_open_v2(db_path, &from, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_open_v2(to_path, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(to, "main", from, "main") : NULL;
    if (b) {
        do {
            rc = sqlite3_backup_step(b, 100);
            if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
                sqlite3_sleep(5);
        } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
        sqlite3_backup_finish(b);
        if (rc == SQLITE_DONE)
            rc = sqlite3_errcode(to);
    } else if (rc == SQLITE_OK) {
        rc = sqlite3_errcode(to);
    }
    if (rc != SQLITE_OK && rc != SQLITE_DONE)
        snprintf(err, err_cap, "%s", sqlite3_errstr(rc));
    sqlite3_close(to);
    sqlite3_close(from);
    return rc == SQLITE_OK || rc == SQLITE_DONE;
}

/* The schema (store.h): SQLite finds every table through the schema's b-tree, whose root is
 * page 1, so one damaged page of it hides every match. The server keeps a copy of the schema's
 * rows (each table's root page and its SQL) in PATH.schema, rewritten whenever they change;
 * with it, a schema that cannot be read is rebuilt whole: page 1 becomes an empty leaf (with a
 * fresh header if that is damaged too), the rows are written back (SQLite gives them new pages
 * when they do not fit on page 1), and every table is found again where it was. The schema's
 * old pages, if it had more than page 1, are then referenced by nothing; a VACUUM rewrites the
 * file without them when the rest of the file reads, and otherwise they stay, harmless. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "common.h"
#include "store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SCHEMA_ROWS "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema ORDER BY name"

static void copy_name(char *out, size_t cap, const char *db_path)
{
    snprintf(out, cap, "%s.schema", db_path);
}

/* Whether the copy at path holds exactly the rows `live` gives. */
static bool copy_matches(sqlite3 *copy, sqlite3_stmt *live)
{
    sqlite3_stmt *s = NULL;
    bool same = sqlite3_prepare_v2(copy,
                                   "SELECT type, name, tbl_name, rootpage, sql FROM schema_copy "
                                   "ORDER BY name",
                                   -1, &s, NULL) == SQLITE_OK;
    while (same) {
        int a = sqlite3_step(live), b = sqlite3_step(s);
        if (a != b || (a != SQLITE_ROW && a != SQLITE_DONE)) {
            same = false;
            break;
        }
        if (a == SQLITE_DONE)
            break;
        for (int c = 0; c < 5 && same; c++) {
            const unsigned char *x = sqlite3_column_text(live, c), *y = sqlite3_column_text(s, c);
            same = (!x && !y) || (x && y && strcmp((const char *)x, (const char *)y) == 0);
        }
    }
    sqlite3_finalize(s);
    sqlite3_reset(live);
    return same;
}

/* Every row `from` gives, put with `ins` (five columns) into its database db. */
static int copy_rows(sqlite3 *db, sqlite3_stmt *from, const char *insert_sql)
{
    sqlite3_stmt *ins = NULL;
    int rc = sqlite3_prepare_v2(db, insert_sql, -1, &ins, NULL);
    while (rc == SQLITE_OK && sqlite3_step(from) == SQLITE_ROW) {
        for (int c = 0; c < 5; c++)
            sqlite3_bind_value(ins, c + 1, sqlite3_column_value(from, c));
        rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    return rc;
}

bool store_save_schema(struct store *st, const char *db_path, char *err, size_t err_cap)
{
    char path[4096], tmp[4200];
    copy_name(path, sizeof path, db_path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    sqlite3_stmt *live = NULL;
    sqlite3 *copy = NULL;
    int rc = sqlite3_prepare_v2(st->db, SCHEMA_ROWS, -1, &live, NULL);
    bool done = false;
    if (rc == SQLITE_OK && sqlite3_open_v2(path, &copy, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        copy_matches(copy, live))
        done = true;
    sqlite3_close(copy);
    copy = NULL;
    if (rc == SQLITE_OK && !done) {
        unlink(tmp);
        rc = sqlite3_open_v2(tmp, &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(copy,
                              "BEGIN; CREATE TABLE schema_copy (type TEXT, name TEXT, "
                              "tbl_name TEXT, rootpage INTEGER, sql TEXT);"
                              "CREATE TABLE page (size INTEGER NOT NULL);",
                              NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = copy_rows(copy, live, "INSERT INTO schema_copy VALUES (?1, ?2, ?3, ?4, ?5)");
        if (rc == SQLITE_OK) {
            sqlite3_stmt *ps = NULL;
            char sql[80];
            rc = sqlite3_prepare_v2(st->db, "PRAGMA page_size", -1, &ps, NULL);
            if (rc == SQLITE_OK && sqlite3_step(ps) == SQLITE_ROW) {
                snprintf(sql, sizeof sql, "INSERT INTO page VALUES (%d); COMMIT;",
                         sqlite3_column_int(ps, 0));
                rc = sqlite3_exec(copy, sql, NULL, NULL, NULL);
            } else if (rc == SQLITE_OK) {
                rc = SQLITE_ERROR;
            }
            sqlite3_finalize(ps);
        }
        if (rc != SQLITE_OK)
            snprintf(err, err_cap, "%s: %s", tmp, copy ? sqlite3_errmsg(copy) : "cannot open");
        if (sqlite3_close(copy) != SQLITE_OK && rc == SQLITE_OK)
            rc = SQLITE_ERROR;
        if (rc == SQLITE_OK && rename(tmp, path) != 0) {
            snprintf(err, err_cap, "%s: %s", path, strerror(errno));
            rc = SQLITE_ERROR;
        }
        done = rc == SQLITE_OK;
    } else if (rc != SQLITE_OK) {
        snprintf(err, err_cap, "%s", sqlite3_errmsg(st->db));
    }
    sqlite3_finalize(live);
    return done;
}

/* 0: the schema reads; else the error reading it. Every row and column is read, so that a
 * damaged page anywhere in the schema's b-tree (not only the pages a count visits) is found. */
static int schema_error(const char *db_path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "SELECT count(*), sum(length(type) + length(name) + "
                                "length(tbl_name) + rootpage + length(sql)) FROM sqlite_schema",
                                -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(s);
    /* And SQLite's own check of the schema's b-tree: a damaged leaf whose bytes happen to read
     * as cells is caught by its page checks, not by reading them. */
    s = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(sqlite_schema)", -1, &s, NULL);
    if (rc == SQLITE_OK) {
        int step = sqlite3_step(s);
        const unsigned char *said = step == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
        rc = said && strcmp((const char *)said, "ok") == 0 ? SQLITE_OK
             : step == SQLITE_ROW                          ? SQLITE_CORRUPT
                                                           : sqlite3_errcode(db);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return rc;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Page 1 as SQLite's file format wants it with an empty schema: the 100-byte header (kept if
 * it is whole, else a fresh one for WAL mode whose page count SQLite takes from the file's
 * size), then an empty table leaf. */
static bool blank_page_one(const char *db_path, unsigned page_size, char *err, size_t err_cap)
{
    int fd = open(db_path, O_RDWR | O_CLOEXEC);
    unsigned char *page = calloc(1, page_size);
    bool ok = fd >= 0 && page && pread(fd, page, 100, 0) == 100;
    if (ok) {
        unsigned stored = (unsigned)page[16] << 8 | page[17];
        if (stored == 1)
            stored = 65536;
        if (memcmp(page, "SQLite format 3", 16) != 0 || stored != page_size || page[21] != 64 ||
            page[22] != 32 || page[23] != 32) {
            memset(page, 0, 100);
            memcpy(page, "SQLite format 3", 16);
            page[16] = (unsigned char)(page_size == 65536 ? 0 : page_size >> 8);
            page[17] = (unsigned char)(page_size == 65536 ? 1 : page_size & 0xff);
            page[18] = page[19] = 2; /* WAL */
            page[21] = 64;
            page[22] = page[23] = 32;
            put32(page + 24, 1); /* change counter; 92 differs: the page count is the file's */
            put32(page + 40, 1); /* schema cookie */
            put32(page + 44, 4); /* schema format */
            put32(page + 56, 1); /* UTF-8 */
            put32(page + 96, SQLITE_VERSION_NUMBER);
        }
        /* The schema's cookie changes, so that no connection keeps the old schema. */
        put32(page + 40, ((uint32_t)page[40] << 24 | (uint32_t)page[41] << 16 |
                          (uint32_t)page[42] << 8 | page[43]) +
                             1);
        page[100] = 0x0d; /* a table leaf with no cells, its content area empty */
        page[105] = (unsigned char)(page_size == 65536 ? 0 : page_size >> 8);
        page[106] = (unsigned char)(page_size == 65536 ? 0 : page_size & 0xff);
        ok = pwrite(fd, page, page_size, 0) == (ssize_t)page_size && fdatasync(fd) == 0;
    }
    if (!ok)
        snprintf(err, err_cap, "%s: cannot rewrite page 1: %s", db_path, strerror(errno));
    free(page);
    if (fd >= 0)
        close(fd);
    return ok;
}

/* The rebuilt schema's rows are on new pages when they did not fit on page 1, and the old
 * ones are referenced by nothing: VACUUM copies what the schema references into a new file,
 * and so drops them. It reads every table; if another page is damaged too it fails, changes
 * nothing, and the old pages stay (nothing reads them). What happened, in `said`. */
static void drop_unused_pages(const char *db_path, char *said, size_t said_cap)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "VACUUM", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        snprintf(said, said_cap, "the file was rewritten without the schema's old pages");
    else
        snprintf(said, said_cap,
                 "the schema's old pages stay unused in the file (VACUUM could not run: %s)",
                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
}

enum schema_repair store_repair_schema(const char *db_path, char *report, size_t report_cap)
{
    int rc = schema_error(db_path);
    if (rc == SQLITE_OK || ((rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB)) {
        snprintf(report, report_cap, "%s", sqlite3_errstr(rc));
        return rc == SQLITE_OK ? SCHEMA_READS : SCHEMA_NOT_REPAIRED;
    }
    char path[4096], kept[4200];
    copy_name(path, sizeof path, db_path);
    sqlite3 *copy = NULL, *db = NULL;
    sqlite3_stmt *rows = NULL, *size = NULL;
    unsigned page_size = 0;
    rc = sqlite3_open_v2(path, &copy, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(copy, "SELECT size FROM page", -1, &size, NULL);
    if (rc == SQLITE_OK && sqlite3_step(size) == SQLITE_ROW)
        page_size = (unsigned)sqlite3_column_int(size, 0);
    sqlite3_finalize(size);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(copy, "SELECT * FROM schema_copy", -1, &rows, NULL);
    if (rc != SQLITE_OK || page_size < 512 || page_size > 65536 || (page_size & (page_size - 1))) {
        snprintf(report, report_cap,
                 "the schema page is damaged and there is no usable copy of the schema (%s)", path);
        sqlite3_finalize(rows);
        sqlite3_close(copy);
        return SCHEMA_NOT_REPAIRED;
    }
    /* A name of its own even when an earlier repair kept one in the same second (the copy is
     * never written over). */
    long long stamp = (long long)time(NULL);
    snprintf(kept, sizeof kept, "%s.damaged-%lld", db_path, stamp);
    bool ok = copy_file(db_path, kept);
    for (int n = 2; !ok && n <= 100 && errno == EEXIST; n++) {
        snprintf(kept, sizeof kept, "%s.damaged-%lld-%d", db_path, stamp, n);
        ok = copy_file(db_path, kept);
    }
    if (!ok)
        snprintf(report, report_cap, "cannot keep a copy of the damaged file as %s", kept);
    ok = ok && blank_page_one(db_path, page_size, report, report_cap);
    if (ok) {
        rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(db, "PRAGMA writable_schema=ON; BEGIN", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            rc = copy_rows(db, rows, "INSERT INTO sqlite_schema VALUES (?1, ?2, ?3, ?4, ?5)");
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            snprintf(report, report_cap, "rewriting the schema: %s",
                     db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        ok = rc == SQLITE_OK && schema_error(db_path) == SQLITE_OK;
    }
    sqlite3_finalize(rows);
    sqlite3_close(copy);
    if (ok) {
        char vacuum[256];
        drop_unused_pages(db_path, vacuum, sizeof vacuum);
        snprintf(report, report_cap,
                 "the schema page was damaged; rebuilt from %s (the damaged file is kept as "
                 "%s); %s",
                 path, kept, vacuum);
    }
    return ok ? SCHEMA_REPAIRED : SCHEMA_NOT_REPAIRED;
}

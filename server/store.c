/* The match server's SQLite storage (store.h). */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "common.h"
#include "store-private.h"
#include "store-pg.h"
#include "wal.h"

#include <sqlite3.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Plain SQL types, explicit keys and no SQLite-only column behaviour, so that a client/server
 * database can take the same tables (docs/server.md says what changes). WITHOUT ROWID keeps
 * each match's moves and seats together on disk, so loading a match is one range read. */
static const char *const schema_sql =
    "CREATE TABLE IF NOT EXISTS meta ("
    "  key   TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL);"
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '2');"
    /* plies counts the match's moves rows: a damaged page that loses the last rows of a
     * match leaves every remaining row valid, and only this count tells. */
    "CREATE TABLE IF NOT EXISTS matches ("
    "  id         INTEGER PRIMARY KEY,"
    "  spec       TEXT    NOT NULL,"
    "  plies      INTEGER NOT NULL CHECK (plies >= 0),"
    "  created_at INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS seats ("
    "  match_id INTEGER NOT NULL REFERENCES matches (id),"
    "  seat     INTEGER NOT NULL CHECK (seat IN (0, 1)),"
    "  token    TEXT    NOT NULL,"
    "  PRIMARY KEY (match_id, seat)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS moves ("
    "  match_id   INTEGER NOT NULL REFERENCES matches (id),"
    "  ply        INTEGER NOT NULL CHECK (ply >= 0),"
    "  move       INTEGER NOT NULL,"
    "  notation   TEXT    NOT NULL,"
    "  hash_after INTEGER NOT NULL,"
    "  seat       INTEGER CHECK (seat IN (0, 1)),"
    "  played_at  INTEGER NOT NULL,"
    "  PRIMARY KEY (match_id, ply)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS results ("
    "  match_id INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  winner   INTEGER CHECK (winner IN (0, 1)),"
    "  reason   TEXT    NOT NULL CHECK (reason IN ('rules', 'resignation')),"
    "  ply      INTEGER NOT NULL,"
    "  score0   INTEGER NOT NULL,"
    "  score1   INTEGER NOT NULL,"
    "  ended_at INTEGER NOT NULL);"
    /* Added in place to databases made before clocks existed: matches without a time control
     * have no row. A flag fall is recorded here (flagged), since results' reasons predate it. */
    "CREATE TABLE IF NOT EXISTS clocks ("
    "  match_id     INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  base_ms      INTEGER NOT NULL CHECK (base_ms > 0),"
    "  increment_ms INTEGER NOT NULL CHECK (increment_ms >= 0),"
    "  left0_ms     INTEGER NOT NULL,"
    "  left1_ms     INTEGER NOT NULL,"
    "  started      INTEGER NOT NULL CHECK (started IN (0, 1)),"
    "  flagged      INTEGER CHECK (flagged IN (0, 1)));"
    /* Added in place like clocks: a clocked match whose first decision never came, ended
     * with no result (docs/server.md, "Clocks"). */
    "CREATE TABLE IF NOT EXISTS aborted ("
    "  match_id INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  at       INTEGER NOT NULL);"
    /* The other seat of a match nobody has joined yet: whoever shows the invite gets that
     * seat's token, once, and the row goes (docs/server.md, "Seats"). */
    "CREATE TABLE IF NOT EXISTS invites ("
    "  match_id INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  seat     INTEGER NOT NULL CHECK (seat IN (0, 1)),"
    "  invite   TEXT    NOT NULL);"
    /* The throws that followed a decision taken back by an accepted undo, in order: the next
     * decisions get them again, so an undo never throws the sticks anew. */
    "CREATE TABLE IF NOT EXISTS kept_throws ("
    "  match_id  INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  notations TEXT    NOT NULL);"
    /* Schema 2: a match's undo request, so that it survives a restart (docs/server.md,
     * "Undo"); answer is how it ended while the match is still at its ply. asked_at is in
     * Unix milliseconds. Created in place; version 1 becomes 2 once it exists. */
    "CREATE TABLE IF NOT EXISTS undo_requests ("
    "  match_id INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  seat     INTEGER NOT NULL CHECK (seat IN (0, 1)),"
    "  ply      INTEGER NOT NULL CHECK (ply >= 0),"
    "  asked_at INTEGER NOT NULL,"
    "  answer   TEXT    CHECK (answer IN ('declined', 'timeout')));"
    "UPDATE meta SET value = '2' WHERE key = 'schema' AND value = '1';"
    SET_ASIDE_TABLE_SQL;

static const char *const stmt_sql[S_COUNT_STATEMENTS] = {
    [S_BEGIN] = "BEGIN IMMEDIATE",
    [S_COMMIT] = "COMMIT",
    [S_ROLLBACK] = "ROLLBACK",
    [S_SAVEPOINT] = "SAVEPOINT change",
    [S_RELEASE] = "RELEASE change",
    [S_ROLLBACK_TO] = "ROLLBACK TO change",
    [S_INSERT_MATCH] = "INSERT INTO matches (spec, plies, created_at) VALUES (?1, 0, ?2)",
    [S_INSERT_MATCH_ID] = "INSERT INTO matches (id, spec, plies, created_at) "
                          "VALUES (?3, ?1, 0, ?2)",
    [S_SET_PLIES] = "UPDATE matches SET plies = ?2 WHERE id = ?1",
    [S_INSERT_SEAT] = "INSERT INTO seats (match_id, seat, token) VALUES (?1, ?2, ?3)",
    [S_INSERT_MOVE] = "INSERT INTO moves (match_id, ply, move, notation, hash_after, seat, "
                      "played_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [S_DELETE_MOVES] = "DELETE FROM moves WHERE match_id = ?1 AND ply >= ?2",
    [S_INSERT_RESULT] = "INSERT INTO results (match_id, winner, reason, ply, score0, score1, "
                        "ended_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [S_DELETE_RESULT] = "DELETE FROM results WHERE match_id = ?1",
    [S_SET_ASIDE] = "INSERT OR REPLACE INTO set_aside (match_id, reason, at) VALUES (?1, ?2, ?3)",
    [S_IS_SET_ASIDE] = "SELECT reason FROM set_aside WHERE match_id = ?1",
    [S_LOAD_MATCH] = "SELECT spec, plies FROM matches WHERE id = ?1",
    [S_LOAD_SEATS] = "SELECT seat, token FROM seats WHERE match_id = ?1 ORDER BY seat",
    [S_LOAD_RESULT] = "SELECT winner, reason, ply FROM results WHERE match_id = ?1",
    [S_PUT_CLOCK] = "INSERT OR REPLACE INTO clocks (match_id, base_ms, increment_ms, left0_ms, "
                    "left1_ms, started, flagged) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [S_LOAD_CLOCK] = "SELECT base_ms, increment_ms, left0_ms, left1_ms, started, flagged "
                     "FROM clocks WHERE match_id = ?1",
    [S_LOAD_MOVES] = "SELECT ply, move, notation, hash_after, seat FROM moves "
                     "WHERE match_id = ?1 ORDER BY ply",
    [S_COUNT] = "SELECT count(*) FROM matches",
    /* The matches still being played: no result, no flag fall, not aborted. */
    [S_COUNT_LIVE] = "SELECT count(*) FROM matches m WHERE NOT EXISTS (SELECT 1 FROM results r "
                     "WHERE r.match_id = m.id) AND NOT EXISTS (SELECT 1 FROM clocks c WHERE "
                     "c.match_id = m.id AND c.flagged IS NOT NULL) AND NOT EXISTS (SELECT 1 "
                     "FROM aborted a WHERE a.match_id = m.id)",
    [S_PUT_KEPT] = "INSERT OR REPLACE INTO kept_throws (match_id, notations) VALUES (?1, ?2)",
    [S_DELETE_KEPT] = "DELETE FROM kept_throws WHERE match_id = ?1",
    [S_LOAD_KEPT] = "SELECT notations FROM kept_throws WHERE match_id = ?1",
    [S_INSERT_INVITE] = "INSERT INTO invites (match_id, seat, invite) VALUES (?1, ?2, ?3)",
    [S_DELETE_INVITE] = "DELETE FROM invites WHERE match_id = ?1",
    [S_LOAD_INVITE] = "SELECT seat, invite FROM invites WHERE match_id = ?1",
    [S_INSERT_ABORTED] = "INSERT INTO aborted (match_id, at) VALUES (?1, ?2)",
    [S_LOAD_ABORTED] = "SELECT at FROM aborted WHERE match_id = ?1",
    [S_EXISTS] = "SELECT 1 FROM matches WHERE id = ?1",
    [S_EACH_SET_ASIDE] = "SELECT match_id, reason FROM set_aside ORDER BY match_id",
    [S_LIST] = "SELECT id FROM matches WHERE id > ?1 ORDER BY id LIMIT ?2",
    [S_PUT_UNDO] = "INSERT OR REPLACE INTO undo_requests (match_id, seat, ply, asked_at, answer) "
                   "VALUES (?1, ?2, ?3, ?4, NULL)",
    [S_END_UNDO] = "UPDATE undo_requests SET answer = ?2 WHERE match_id = ?1",
    [S_DELETE_UNDO] = "DELETE FROM undo_requests WHERE match_id = ?1",
    [S_LOAD_UNDO] = "SELECT seat, ply, asked_at, answer FROM undo_requests WHERE match_id = ?1",
    [S_SCHEMA_VERSION] = "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema'",
};

#define SCHEMA_VERSION 2

bool store_failed(struct store *st, int code)
{
    st->last_code = code;
    snprintf(st->last_error, sizeof st->last_error, "%s", sqlite3_errmsg(st->db));
    return false;
}

const char *store_error(const struct store *st)
{
    if (st->pg)
        return pg_error(st->pg);
    return st->last_error;
}

bool store_last_was_damage(const struct store *st)
{
    if (st->pg)
        return pg_last_was_damage(st->pg);
    int primary = st->last_code & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

sqlite3_stmt *store_prepared(struct store *st, enum stmt_id id)
{
    sqlite3_stmt *s = st->stmt[id];
    if (!s && sqlite3_prepare_v3(st->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) !=
                  SQLITE_OK) {
        store_failed(st, sqlite3_errcode(st->db));
        return NULL;
    }
    st->stmt[id] = s;
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

/* Runs a statement that returns no rows (its parameters already bound). */
static bool run(struct store *st, sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

static bool run_plain(struct store *st, enum stmt_id id)
{
    sqlite3_stmt *s = store_prepared(st, id);
    return s && run(st, s);
}

static sqlite3_int64 as_signed(uint64_t v)
{
    /* Hashes use all 64 bits; SQL integers are signed. The bits are kept as they are. */
    sqlite3_int64 out;
    memcpy(&out, &v, sizeof out);
    return out;
}

uint64_t store_as_unsigned(sqlite3_int64 v)
{
    uint64_t out;
    memcpy(&out, &v, sizeof out);
    return out;
}

static sqlite3_int64 now_seconds(void)
{
    return (sqlite3_int64)time(NULL);
}

/* SQLite's automatic checkpoints run from this hook, which replaces its own: after a commit
 * the log holds `frames`, and those are what a later failed commit must not disturb. */
static int on_commit(void *ctx, sqlite3 *db, const char *name, int frames)
{
    struct store *st = ctx;
    st->acked_frames = (uint64_t)frames;
    st->have_salt = st->wal_path && wal_salts(st->wal_path, st->acked_salt);
    if (frames >= 1000)
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

struct store *store_open(const char *path, char *err, size_t err_cap)
{
    struct store *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    if (pg_is_conninfo(path)) {
        if (!(st->pg = pg_open(path, err, err_cap))) {
            free(st);
            return NULL;
        }
        return st;
    }
    int rc = sqlite3_open_v2(
        path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    char *msg = NULL;
    if (rc == SQLITE_OK) {
        /* WAL: a commit appends to the log and syncs it once, and readers never wait.
         * synchronous=FULL syncs at every commit, so an acknowledged change survives power
         * loss, not only a crash of the process. */
        /* cell_size_check: SQLite checks each b-tree cell's size as it reads it, so more
         * damaged pages are reported as damage instead of read as rows. */
        rc = sqlite3_exec(st->db,
                          "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
                          "PRAGMA foreign_keys=ON; PRAGMA cell_size_check=ON;",
                          NULL, NULL, &msg);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(st->db, schema_sql, NULL, NULL, &msg);
    if (rc == SQLITE_OK) {
        /* A database a newer server made may hold what this one would not keep: refused. */
        sqlite3_stmt *s = NULL;
        rc = sqlite3_prepare_v2(st->db, stmt_sql[S_SCHEMA_VERSION], -1, &s, NULL);
        if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
            sqlite3_column_int64(s, 0) > SCHEMA_VERSION) {
            rc = SQLITE_CANTOPEN;
            msg = sqlite3_mprintf("the database's schema is version %lld, newer than this "
                                  "server's (%d)",
                                  (long long)sqlite3_column_int64(s, 0), SCHEMA_VERSION);
        }
        sqlite3_finalize(s);
    }
    if (rc == SQLITE_OK) {
        /* journal_mode answers the mode it got: a database that cannot use WAL says so. */
        sqlite3_stmt *s = NULL;
        rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &s, NULL);
        if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
            strcmp((const char *)sqlite3_column_text(s, 0), "wal") != 0)
            rc = SQLITE_CANTOPEN;
        sqlite3_finalize(s);
    }
    /* Every statement prepared now: a database made by another version of the server, whose
     * tables lack a column, is refused at start-up rather than read as damaged matches. */
    for (int i = 0; rc == SQLITE_OK && i < S_COUNT_STATEMENTS; i++)
        rc = sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
                                NULL);
    if (rc == SQLITE_OK) {
        const char *wal = sqlite3_filename_wal(sqlite3_db_filename(st->db, "main"));
        int frames = 0;
        if (!wal || !(st->wal_path = strdup(wal)))
            rc = SQLITE_NOMEM;
        else if (sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &frames,
                                           NULL) == SQLITE_OK)
            on_commit(st, st->db, "main", frames < 0 ? 0 : frames);
        sqlite3_wal_hook(st->db, on_commit, st);
    }
    if (rc != SQLITE_OK) {
        snprintf(err, err_cap, "%s: %s", path,
                 msg      ? msg
                 : st->db ? sqlite3_errmsg(st->db)
                          : sqlite3_errstr(rc));
        sqlite3_free(msg);
        store_close(st);
        return NULL;
    }
    return st;
}

void store_close(struct store *st)
{
    if (!st)
        return;
    pg_close(st->pg);
    for (int i = 0; i < S_COUNT_STATEMENTS; i++)
        sqlite3_finalize(st->stmt[i]);
    sqlite3_close(st->db);
    free(st->wal_path);
    free(st);
}

bool store_settle(struct store *st, char *err, size_t err_cap)
{
    if (st->pg)
        return true; /* PostgreSQL rolls a failed commit back itself */
    static const uint32_t none[2] = {0, 0};
    return wal_refuse_after(st->wal_path, st->have_salt ? st->acked_salt : none,
                            st->have_salt ? st->acked_frames : 0, err, err_cap);
}

bool store_begin_round(struct store *st)
{
    if (st->pg)
        return pg_begin_round(st->pg);
    return run_plain(st, S_BEGIN);
}

bool store_in_transaction(const struct store *st)
{
    if (st->pg)
        return pg_in_transaction(st->pg);
    return !sqlite3_get_autocommit(st->db);
}

bool store_change_begin(struct store *st)
{
    if (st->pg)
        return pg_change_begin(st->pg);
    if (!store_in_transaction(st) && !store_begin_round(st))
        return false;
    return run_plain(st, S_SAVEPOINT);
}

enum change_outcome store_change_end(struct store *st, bool ok)
{
    if (st->pg)
        return pg_change_end(st->pg, ok);
    if (!store_in_transaction(st))
        return CHANGE_ROUND_LOST; /* SQLite rolled it all back (an I/O error, a full disk) */
    if (ok && run_plain(st, S_RELEASE))
        return CHANGE_KEPT;
    int code = st->last_code;
    char why[sizeof st->last_error];
    memcpy(why, st->last_error, sizeof why);
    bool kept = run_plain(st, S_ROLLBACK_TO) && run_plain(st, S_RELEASE);
    st->last_code = code; /* the caller wants the change's own error, not the rollback's */
    memcpy(st->last_error, why, sizeof why);
    return kept && store_in_transaction(st) ? CHANGE_DROPPED : CHANGE_ROUND_LOST;
}

bool store_commit_round(struct store *st)
{
    if (st->pg)
        return pg_commit_round(st->pg);
    if (!store_in_transaction(st))
        return true;
    if (run_plain(st, S_COMMIT))
        return true;
    store_rollback_round(st);
    return false;
}

void store_rollback_round(struct store *st)
{
    if (st->pg) {
        pg_rollback_round(st->pg);
        return;
    }
    if (store_in_transaction(st)) {
        int code = st->last_code;
        run_plain(st, S_ROLLBACK);
        st->last_code = code;
    }
}

bool store_insert_match(struct store *st, uint64_t wanted_id, const char *spec,
                        const char tokens[2][TOKEN_HEX_LEN + 1], uint64_t *id)
{
    if (st->pg)
        return pg_insert_match(st->pg, wanted_id, spec, tokens, id);
    sqlite3_stmt *s = store_prepared(st, wanted_id ? S_INSERT_MATCH_ID : S_INSERT_MATCH);
    if (!s)
        return false;
    sqlite3_bind_text(s, 1, spec, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, now_seconds());
    if (wanted_id)
        sqlite3_bind_int64(s, 3, (sqlite3_int64)wanted_id);
    if (!run(st, s))
        return false;
    *id = (uint64_t)sqlite3_last_insert_rowid(st->db);
    for (int seat = 0; seat < 2; seat++) {
        sqlite3_stmt *t = store_prepared(st, S_INSERT_SEAT);
        if (!t)
            return false;
        sqlite3_bind_int64(t, 1, (sqlite3_int64)*id);
        sqlite3_bind_int(t, 2, seat);
        sqlite3_bind_text(t, 3, tokens[seat], -1, SQLITE_STATIC);
        if (!run(st, t))
            return false;
    }
    return true;
}

bool store_insert_move(struct store *st, uint64_t id, uint64_t ply, const struct stored_move *m)
{
    if (st->pg)
        return pg_insert_move(st->pg, id, ply, m);
    sqlite3_stmt *s = store_prepared(st, S_INSERT_MOVE);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)ply);
    sqlite3_bind_int64(s, 3, m->move);
    sqlite3_bind_text(s, 4, m->notation, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, as_signed(m->hash_after));
    if (m->seat >= 0)
        sqlite3_bind_int(s, 6, m->seat);
    sqlite3_bind_int64(s, 7, now_seconds());
    return run(st, s);
}

bool store_set_plies(struct store *st, uint64_t id, uint64_t plies)
{
    if (st->pg)
        return pg_set_plies(st->pg, id, plies);
    sqlite3_stmt *s = store_prepared(st, S_SET_PLIES);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)plies);
    if (!run(st, s))
        return false;
    if (sqlite3_changes(st->db) != 1) { /* the match's own row is gone: damage */
        st->last_code = SQLITE_CORRUPT;
        snprintf(st->last_error, sizeof st->last_error, "the matches row is missing");
        return false;
    }
    return true;
}

bool store_add_moves(struct store *st, uint64_t id, uint64_t first, const struct stored_move *m,
                     size_t n, uint64_t plies)
{
    if (st->pg)
        return pg_add_moves(st->pg, id, first, m, n, plies);
    for (size_t i = 0; i < n; i++)
        if (!store_insert_move(st, id, first + i, &m[i]))
            return false;
    return store_set_plies(st, id, plies);
}

bool store_delete_moves_from(struct store *st, uint64_t id, uint64_t ply)
{
    if (st->pg)
        return pg_delete_moves_from(st->pg, id, ply);
    sqlite3_stmt *s = store_prepared(st, S_DELETE_MOVES);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)ply);
    return run(st, s);
}

bool store_put_clock(struct store *st, uint64_t id, const struct stored_clock *c)
{
    if (st->pg)
        return pg_put_clock(st->pg, id, c);
    sqlite3_stmt *s = store_prepared(st, S_PUT_CLOCK);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, c->base_ms);
    sqlite3_bind_int64(s, 3, c->increment_ms);
    sqlite3_bind_int64(s, 4, c->left_ms[0]);
    sqlite3_bind_int64(s, 5, c->left_ms[1]);
    sqlite3_bind_int(s, 6, c->started);
    if (c->flagged >= 0)
        sqlite3_bind_int(s, 7, c->flagged);
    return run(st, s);
}

static sqlite3_int64 now_milliseconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (sqlite3_int64)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

bool store_put_undo_request(struct store *st, uint64_t id, int seat, uint64_t ply)
{
    if (st->pg)
        return pg_put_undo_request(st->pg, id, seat, ply);
    sqlite3_stmt *s = store_prepared(st, S_PUT_UNDO);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, seat);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)ply);
    sqlite3_bind_int64(s, 4, now_milliseconds());
    return run(st, s);
}

bool store_end_undo_request(struct store *st, uint64_t id, enum undo_state how)
{
    if (st->pg)
        return pg_end_undo_request(st->pg, id, how);
    sqlite3_stmt *s = store_prepared(st, how == UNDO_NONE ? S_DELETE_UNDO : S_END_UNDO);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    if (how != UNDO_NONE)
        sqlite3_bind_text(s, 2, how == UNDO_LAPSED ? "timeout" : "declined", -1, SQLITE_STATIC);
    return run(st, s);
}

bool store_put_kept_throws(struct store *st, uint64_t id, const char *notations)
{
    if (st->pg)
        return pg_put_kept_throws(st->pg, id, notations);
    sqlite3_stmt *s = store_prepared(st, notations ? S_PUT_KEPT : S_DELETE_KEPT);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    if (notations)
        sqlite3_bind_text(s, 2, notations, -1, SQLITE_TRANSIENT);
    return run(st, s);
}

bool store_put_invite(struct store *st, uint64_t id, int seat, const char *invite)
{
    if (st->pg)
        return pg_put_invite(st->pg, id, seat, invite);
    sqlite3_stmt *s = store_prepared(st, S_INSERT_INVITE);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, seat);
    sqlite3_bind_text(s, 3, invite, -1, SQLITE_TRANSIENT);
    return run(st, s);
}

bool store_delete_invite(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_delete_invite(st->pg, id);
    sqlite3_stmt *s = store_prepared(st, S_DELETE_INVITE);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return run(st, s);
}

bool store_set_aborted(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_set_aborted(st->pg, id);
    sqlite3_stmt *s = store_prepared(st, S_INSERT_ABORTED);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)time(NULL));
    return run(st, s);
}

bool store_set_result(struct store *st, uint64_t id, int winner, bool by_resignation, uint64_t ply,
                      int score0, int score1)
{
    if (st->pg)
        return pg_set_result(st->pg, id, winner, by_resignation, ply, score0, score1);
    sqlite3_stmt *s = store_prepared(st, S_INSERT_RESULT);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    if (winner >= 0)
        sqlite3_bind_int(s, 2, winner);
    sqlite3_bind_text(s, 3, by_resignation ? "resignation" : "rules", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)ply);
    sqlite3_bind_int(s, 5, score0);
    sqlite3_bind_int(s, 6, score1);
    sqlite3_bind_int64(s, 7, now_seconds());
    return run(st, s);
}

bool store_clear_result(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_clear_result(st->pg, id);
    sqlite3_stmt *s = store_prepared(st, S_DELETE_RESULT);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return run(st, s);
}

bool store_set_aside(struct store *st, uint64_t id, const char *reason)
{
    if (st->pg)
        return pg_set_aside(st->pg, id, reason);
    if (store_in_transaction(st))
        return false; /* only between rounds: a damaged page must not sink a round */
    sqlite3_stmt *s = store_prepared(st, S_SET_ASIDE);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_text(s, 2, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, now_seconds());
    return run(st, s);
}

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

bool store_count_matches(struct store *st, uint64_t *count)
{
    if (st->pg)
        return pg_count_matches(st->pg, count);
    sqlite3_stmt *s = store_prepared(st, S_COUNT);
    sqlite3_int64 n = 0;
    bool found;
    if (!s || !single_integer(st, s, &n, &found))
        return false;
    *count = (uint64_t)n;
    return true;
}

bool store_count_live_matches(struct store *st, uint64_t *count)
{
    if (st->pg)
        return pg_count_live_matches(st->pg, count);
    sqlite3_stmt *s = store_prepared(st, S_COUNT_LIVE);
    sqlite3_int64 n = 0;
    bool found;
    if (!s || !single_integer(st, s, &n, &found))
        return false;
    *count = (uint64_t)n;
    return true;
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

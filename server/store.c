/* Opening the SQLite database (store.h): its schema, pragmas and prepared statements, the
 * commit hook that notes what each commit left in the write-ahead log, closing it; and what
 * every SQLite store file uses: the store's errors, its statements and their running. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "common.h"
#include "store-private.h"
#include "store-pg.h"
#include "wal.h"

#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain SQL types, explicit keys and no SQLite-only column behaviour, so that a client/server
 * database can take the same tables (docs/server.md says what changes). WITHOUT ROWID keeps
 * each match's moves and seats together on disk, so loading a match is one range read. */
/* In parts: C compilers need only take string literals of 4095 bytes. */
static const char *const schema_sql[] = {
    "CREATE TABLE IF NOT EXISTS meta ("
    "  key   TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL);"
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', '8');"
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
    ,
    /* Schema 3: accounts, their sessions and ratings, and the account that held a seat
     * (docs/server.md, "Accounts"). A deleted account keeps its row, anonymised (no name, no
     * password), so that the seats of its games still point at one player. Only a hash of a
     * session's token is stored; times are Unix milliseconds. Created in place; versions 1
     * and 2 become 3 once they exist. */
    "CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, name TEXT, name_folded TEXT "
    "UNIQUE, password_hash TEXT, created_at INTEGER NOT NULL, deleted INTEGER NOT NULL CHECK "
    "(deleted IN (0, 1)), CHECK ((deleted = 0) = (password_hash IS NOT NULL)));"
    "CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY, account_id INTEGER NOT "
    "NULL REFERENCES accounts (id), created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) "
    "WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS sessions_by_account ON sessions (account_id);"
    "CREATE TABLE IF NOT EXISTS ratings (account_id INTEGER NOT NULL REFERENCES accounts (id), "
    "game TEXT NOT NULL, category TEXT NOT NULL, rating REAL NOT NULL, rd REAL NOT NULL, "
    "volatility REAL NOT NULL, games INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY "
    "(account_id, game, category)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS seat_accounts (match_id INTEGER NOT NULL REFERENCES matches "
    "(id), seat INTEGER NOT NULL, account_id INTEGER NOT NULL REFERENCES accounts (id), "
    "PRIMARY KEY (match_id, seat)) WITHOUT ROWID;"
    /* Schema 4: a rated match's game and clock category, and when both players' ratings were
     * updated from its result (NULL until then): the key that makes the update happen once
     * (docs/server.md, "Rated games"). Created in place; 1 to 3 become 4 once it exists. */
    "CREATE TABLE IF NOT EXISTS rated_matches (match_id INTEGER PRIMARY KEY REFERENCES matches "
    "(id), game TEXT NOT NULL, category TEXT NOT NULL, rated_at INTEGER);"
    ,
    /* Schema 5: each rating as a rated result left it, for the graph of a player's page
     * (docs/server.md, "History"); written in the change that moves the rating, at (Unix
     * milliseconds, like ratings.updated_at). The index on seat_accounts finds a player's
     * games. The schema no longer fits on page 1; store-repair.c rebuilds it whole. Created
     * in place; 1 to 4 become 5 once it exists. */
    "CREATE TABLE IF NOT EXISTS rating_history ("
    "  id         INTEGER PRIMARY KEY,"
    "  account_id INTEGER NOT NULL REFERENCES accounts (id),"
    "  game       TEXT    NOT NULL,"
    "  category   TEXT    NOT NULL,"
    "  rating     REAL    NOT NULL,"
    "  rd         REAL    NOT NULL,"
    "  volatility REAL    NOT NULL,"
    "  match_id   INTEGER NOT NULL REFERENCES matches (id),"
    "  at         INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS rating_history_by_account "
    "  ON rating_history (account_id, id);"
    "CREATE INDEX IF NOT EXISTS rating_history_by_match ON rating_history (match_id);"
    "CREATE INDEX IF NOT EXISTS seat_accounts_by_account "
    "  ON seat_accounts (account_id, match_id);"
    "UPDATE meta SET value = '5' WHERE key = 'schema' AND value IN ('1', '2', '3', '4');"
    /* Schema 6: a correspondence match's days per move and the deadline of its seat to move,
     * in Unix milliseconds of the wall clock (NULL once it is over), written with its clocks
     * row in each change: it survives a restart, and the deadlines passed are found by one
     * indexed range read (docs/server.md, "Correspondence"). Created in place; 1 to 5 become
     * 6 once it exists. */
    "CREATE TABLE IF NOT EXISTS correspondence ("
    "  match_id INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  days     INTEGER NOT NULL CHECK (days IN (1, 2, 3, 5, 7, 14)),"
    "  deadline INTEGER,"
    "  to_move  INTEGER CHECK (to_move IN (0, 1)));"
    "CREATE INDEX IF NOT EXISTS correspondence_by_deadline ON correspondence (deadline);"
    "UPDATE meta SET value = '6' WHERE key = 'schema' AND value IN ('1', '2', '3', '4', '5');"
    /* Schema 7: a running match's draw offer (docs/server.md, "Draw offers"): the seat offering
     * (NULL: none) and whether each seat has offered since the other seat last decided, kept
     * by each change that makes, answers or lapses it and gone with the match's end; and the
     * lobby's live matches (docs/server.md, "Lobby"), each with its `lobby live` line after
     * the id, written in the accepted seek's change and gone with the match's end, so that a
     * restarted server lists them again. Created in place; 1 to 6 become 7 once they exist. */
    "CREATE TABLE IF NOT EXISTS draw_offers ("
    "  match_id   INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  offered_by INTEGER CHECK (offered_by IN (0, 1)),"
    "  spent0     INTEGER NOT NULL CHECK (spent0 IN (0, 1)),"
    "  spent1     INTEGER NOT NULL CHECK (spent1 IN (0, 1)));"
    "CREATE TABLE IF NOT EXISTS lobby_matches ("
    "  match_id INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  line     TEXT    NOT NULL);"
    "UPDATE meta SET value = '7' WHERE key = 'schema' AND value IN ('1', '2', '3', '4', '5', "
    "'6');"
    /* Schema 8: each finished match's rematch (docs/server.md, "Rematch": a match has one),
     * written in the rematch's own change, so that a restarted server still sends a later
     * watcher `event ID rematch NEW` and makes no second one (PostgreSQL keeps the same as
     * matches.rematch_of). Created in place; 1 to 7 become 8 once it exists. */
    "CREATE TABLE IF NOT EXISTS rematches ("
    "  of INTEGER PRIMARY KEY REFERENCES matches (id),"
    "  id INTEGER NOT NULL UNIQUE REFERENCES matches (id));"
    "UPDATE meta SET value = '8' WHERE key = 'schema' AND value IN ('1', '2', '3', '4', '5', "
    "'6', '7');"
    SET_ASIDE_TABLE_SQL,
};

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
    [S_LOAD_CLOCK] = "SELECT c.base_ms, c.increment_ms, c.left0_ms, c.left1_ms, c.started, "
                     "c.flagged, k.days, k.deadline FROM clocks c LEFT JOIN correspondence k "
                     "ON k.match_id = c.match_id WHERE c.match_id = ?1",
    [S_PUT_DEADLINE] = "INSERT OR REPLACE INTO correspondence (match_id, days, deadline, "
                       "to_move) VALUES (?1, ?2, ?3, ?4)",
    /* An account's correspondence matches being played (LIVE as S_OVERDUE says). */
    [S_EACH_CORRESPONDENCE] =
        "SELECT m.id, m.spec, me.seat, a.name, k.days, k.to_move, k.deadline FROM seat_accounts "
        "me JOIN correspondence k ON k.match_id = me.match_id JOIN matches m ON m.id = "
        "me.match_id LEFT JOIN seat_accounts o ON o.match_id = me.match_id AND o.seat = 1 - "
        "me.seat LEFT JOIN accounts a ON a.id = o.account_id WHERE me.account_id = ?1 "
        "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.match_id = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = m.id AND "
        "c.flagged IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM aborted x WHERE x.match_id = "
        "m.id) AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.match_id = m.id) "
        "ORDER BY k.deadline IS NULL, k.deadline LIMIT ?2",
    /* Being played (LIVE as S_COUNT_LIVE says), both seats taken, the deadline passed. */
    [S_OVERDUE] = "SELECT k.match_id FROM correspondence k WHERE k.deadline <= ?1 "
                  "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.match_id = k.match_id) "
                  "AND NOT EXISTS (SELECT 1 FROM clocks c WHERE c.match_id = k.match_id AND "
                  "c.flagged IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM aborted a WHERE "
                  "a.match_id = k.match_id) AND NOT EXISTS (SELECT 1 FROM invites i WHERE "
                  "i.match_id = k.match_id) AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE "
                  "s.match_id = k.match_id) ORDER BY k.deadline LIMIT ?2",
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
    /* An offer by ?2: that seat has now offered (the other seat's mark is kept). */
    [S_OFFER_DRAW] = "INSERT INTO draw_offers (match_id, offered_by, spent0, spent1) VALUES "
                     "(?1, ?2, ?2 = 0, ?2 = 1) ON CONFLICT (match_id) DO UPDATE SET offered_by "
                     "= ?2, spent0 = draw_offers.spent0 OR ?2 = 0, spent1 = draw_offers.spent1 "
                     "OR ?2 = 1",
    /* ?4: the open offer ends (an answer, a withdrawal, an undo); ?2, ?3: seat 0, seat 1
     * decided, which lets the other seat offer again and lapses that seat's offer. Written
     * as a change of the row rather than its new value, so that it holds whatever the
     * server knew of the offer. */
    [S_DRAW_DECIDED] = "UPDATE draw_offers SET offered_by = CASE WHEN ?4 OR (offered_by = 0 AND "
                       "?3) OR (offered_by = 1 AND ?2) THEN NULL ELSE offered_by END, spent0 = "
                       "CASE WHEN ?3 THEN 0 ELSE spent0 END, spent1 = CASE WHEN ?2 THEN 0 ELSE "
                       "spent1 END WHERE match_id = ?1",
    [S_FORGET_DRAW] = "DELETE FROM draw_offers WHERE match_id = ?1",
    [S_LOAD_DRAW] = "SELECT offered_by, spent0, spent1 FROM draw_offers WHERE match_id = ?1",
    [S_MARK_REMATCH] = "INSERT INTO rematches (of, id) VALUES (?2, ?1)",
    [S_LOAD_REMATCH] = "SELECT id FROM rematches WHERE of = ?1",
    [S_PUT_LOBBY_MATCH] = "INSERT OR REPLACE INTO lobby_matches (match_id, line) VALUES (?1, ?2)",
    [S_FORGET_LOBBY_MATCH] = "DELETE FROM lobby_matches WHERE match_id = ?1",
    /* The newest ?1 being played (LIVE as S_COUNT_LIVE says), listed oldest first. */
    [S_EACH_LOBBY_MATCH] =
        "SELECT match_id, line FROM (SELECT l.match_id, l.line FROM lobby_matches l WHERE NOT "
        "EXISTS (SELECT 1 FROM results r WHERE r.match_id = l.match_id) AND NOT EXISTS (SELECT "
        "1 FROM clocks c WHERE c.match_id = l.match_id AND c.flagged IS NOT NULL) AND NOT "
        "EXISTS (SELECT 1 FROM aborted a WHERE a.match_id = l.match_id) AND NOT EXISTS (SELECT "
        "1 FROM set_aside s WHERE s.match_id = l.match_id) ORDER BY l.match_id DESC LIMIT ?1) "
        "ORDER BY match_id",
    [S_SCHEMA_VERSION] = "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema'",
    [S_INSERT_ACCOUNT] = "INSERT INTO accounts (name, name_folded, password_hash, created_at, "
                         "deleted) VALUES (?1, ?2, ?3, ?4, 0)",
    [S_FIND_ACCOUNT] = "SELECT id, name, password_hash FROM accounts "
                       "WHERE name_folded = ?1 AND deleted = 0",
    [S_ACCOUNT_BY_ID] = "SELECT id, name, password_hash FROM accounts "
                        "WHERE id = ?1 AND deleted = 0",
    [S_INSERT_SESSION] = "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) "
                         "VALUES (?1, ?2, ?3, ?3 + ?4)",
    [S_FIND_SESSION] = "SELECT a.id, a.name FROM sessions s JOIN accounts a ON a.id = "
                       "s.account_id WHERE s.token_hash = ?1 AND s.expires_at > ?2 "
                       "AND a.deleted = 0",
    [S_DELETE_SESSION] = "DELETE FROM sessions WHERE token_hash = ?1",
    [S_DELETE_SESSIONS] = "DELETE FROM sessions WHERE account_id = ?1",
    [S_DELETE_EXPIRED_SESSIONS] = "DELETE FROM sessions WHERE account_id = ?1 "
                                  "AND expires_at <= ?2",
    [S_ANONYMISE_ACCOUNT] = "UPDATE accounts SET name = NULL, name_folded = NULL, "
                            "password_hash = NULL, deleted = 1 WHERE id = ?1 AND deleted = 0",
    [S_DELETE_RATINGS] = "DELETE FROM ratings WHERE account_id = ?1",
    [S_SET_SEAT_ACCOUNT] = "INSERT OR REPLACE INTO seat_accounts (match_id, seat, account_id) "
                           "VALUES (?1, ?2, ?3)",
    [S_INSERT_RATED] = "INSERT INTO rated_matches (match_id, game, category, rated_at) "
                       "VALUES (?1, ?2, ?3, NULL)",
    [S_FIND_RATED] = "SELECT game, category, rated_at IS NOT NULL FROM rated_matches "
                     "WHERE match_id = ?1",
    [S_CLAIM_RATED] = "UPDATE rated_matches SET rated_at = ?2 WHERE match_id = ?1 AND "
                      "rated_at IS NULL RETURNING game, category",
    [S_SEAT_ACCOUNTS] = "SELECT seat, account_id FROM seat_accounts WHERE match_id = ?1",
    [S_GET_RATING] = "SELECT rating, rd, volatility, games FROM ratings WHERE account_id = ?1 "
                     "AND game = ?2 AND category = ?3",
    [S_PUT_RATING] = "INSERT OR REPLACE INTO ratings (account_id, game, category, rating, rd, "
                     "volatility, games, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [S_ADD_RATING_POINT] = "INSERT INTO rating_history (account_id, game, category, rating, rd, "
                           "volatility, match_id, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [S_DELETE_RATING_HISTORY] = "DELETE FROM rating_history WHERE account_id = ?1",
    [S_EACH_RATING_POINT] = "SELECT game, category, rating, rd, volatility, match_id, at FROM "
                            "rating_history WHERE account_id = ?1 ORDER BY id DESC LIMIT ?2",
    /* A finished game: a result, or a flag fall (recorded in clocks, not results). */
    [S_EACH_PLAYED_GAME] =
        "SELECT m.id, m.spec, me.seat, a.name, a.deleted, r.match_id IS NOT NULL, r.winner, "
        "r.reason, c.flagged, rm.game, rm.category, m.plies, m.created_at, r.ended_at "
        "FROM seat_accounts me JOIN matches m ON m.id = me.match_id "
        "LEFT JOIN seat_accounts o ON o.match_id = me.match_id AND o.seat = 1 - me.seat "
        "LEFT JOIN accounts a ON a.id = o.account_id LEFT JOIN results r ON r.match_id = m.id "
        "LEFT JOIN clocks c ON c.match_id = m.id LEFT JOIN rated_matches rm ON rm.match_id = "
        "m.id WHERE me.account_id = ?1 AND (r.match_id IS NOT NULL OR c.flagged IS NOT NULL) "
        "ORDER BY me.match_id DESC LIMIT ?3 OFFSET ?2",
    [S_MATCH_SUMMARY] =
        "SELECT m.spec, m.plies, m.created_at, r.match_id IS NOT NULL, r.winner, r.reason, "
        "r.ended_at, r.score0, r.score1, c.flagged, ab.at, rm.game, rm.category "
        "FROM matches m LEFT JOIN results r ON r.match_id = m.id LEFT JOIN clocks c ON "
        "c.match_id = m.id LEFT JOIN aborted ab ON ab.match_id = m.id LEFT JOIN rated_matches "
        "rm ON rm.match_id = m.id WHERE m.id = ?1",
    /* Each seat's account, and the rating the match's result left it with and the one
     * before (the account's previous point in the same game and category). */
    [S_SUMMARY_SEATS] =
        "SELECT s.seat, a.name, a.deleted, h.rating, (SELECT p.rating FROM rating_history p "
        "WHERE p.account_id = s.account_id AND p.game = h.game AND p.category = h.category AND "
        "p.id < h.id ORDER BY p.id DESC LIMIT 1) FROM seat_accounts s LEFT JOIN accounts a ON "
        "a.id = s.account_id LEFT JOIN rating_history h ON h.match_id = s.match_id AND "
        "h.account_id = s.account_id WHERE s.match_id = ?1 ORDER BY s.seat",
    [S_EACH_RATING] = "SELECT game, category, rating, rd, volatility, games FROM ratings "
                      "WHERE account_id = ?1 ORDER BY game, category",
};

#define SCHEMA_VERSION 8

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

bool store_run(struct store *st, sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

sqlite3_int64 store_as_signed(uint64_t v)
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
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof schema_sql / sizeof *schema_sql; i++)
        rc = sqlite3_exec(st->db, schema_sql[i], NULL, NULL, &msg);
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

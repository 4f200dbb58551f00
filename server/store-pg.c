/* The match server's PostgreSQL storage (store-pg.h): the connection, its prepared statements
 * and errors (the schema and its migrations are in store-pg-schema.c, the round's transaction in
 * store-pg-round.c, the writes in store-pg-write.c, the leases and notifications of several
 * servers in store-pg-leases.c; docs/server.md, "PostgreSQL"). */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"
#include "common.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A lease taken if free, ours, or run out ($1 match, $2 owner, $3 milliseconds): the row lock
 * makes two servers' claims take turns. */
#define CLAIM_LEASE                                                                                \
    "INSERT INTO leases (match_id, owner, expires_at) "                                            \
    "VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond') "                          \
    "ON CONFLICT (match_id) DO UPDATE SET owner = EXCLUDED.owner, "                                \
    "expires_at = EXCLUDED.expires_at WHERE leases.owner = EXCLUDED.owner "                        \
    "OR leases.expires_at <= clock_timestamp() RETURNING match_id"

static const char *const stmt_sql[P_COUNT_STATEMENTS] = {
    [P_INSERT_MATCH] = "INSERT INTO matches (spec, plies, created_at) VALUES ($1, 0, now()) "
                       "RETURNING id",
    [P_INSERT_MATCH_ID] = "INSERT INTO matches (id, spec, plies, created_at) "
                          "VALUES ($2, $1, 0, now()) RETURNING id",
    /* After an id chosen by the caller (a migration), new ids start above every stored one. */
    [P_FIX_SEQUENCE] = "SELECT setval(pg_get_serial_sequence('matches', 'id'), "
                       "(SELECT max(id) FROM matches))",
    [P_INSERT_SEAT] = "INSERT INTO seats (match_id, seat, token) VALUES ($1, $2, $3)",
    [P_INSERT_LEASE] = "INSERT INTO leases (match_id, owner, expires_at) "
                       "VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')",
    [P_SET_PLIES] = "UPDATE matches SET plies = $2 WHERE id = $1",
    [P_INSERT_MOVE] = "INSERT INTO moves (match_id, ply, move, notation, hash_after, seat, "
                      "played_at) VALUES ($1, $2, $3, $4, $5, $6, now())",
    [P_DELETE_MOVES] = "DELETE FROM moves WHERE match_id = $1 AND ply >= $2",
    [P_INSERT_RESULT] = "INSERT INTO results (match_id, winner, reason, ply, score0, score1, "
                        "ended_at) VALUES ($1, $2, $3, $4, $5, $6, now())",
    [P_DELETE_RESULT] = "DELETE FROM results WHERE match_id = $1",
    [P_SET_ASIDE] =
        "INSERT INTO set_aside (match_id, reason, at) VALUES ($1, $2, now()) "
        "ON CONFLICT (match_id) DO UPDATE SET reason = EXCLUDED.reason, at = EXCLUDED.at",
    [P_IS_SET_ASIDE] = "SELECT reason FROM set_aside WHERE match_id = $1",
    [P_LOAD_MATCH] = "SELECT spec, plies, version FROM matches WHERE id = $1",
    [P_LOAD_SEATS] = "SELECT seat, token FROM seats WHERE match_id = $1 ORDER BY seat",
    [P_LOAD_RESULT] = "SELECT winner, reason, ply FROM results WHERE match_id = $1",
    [P_PUT_CLOCK] = "INSERT INTO clocks (match_id, base_ms, increment_ms, left0_ms, left1_ms, "
                    "started, flagged, turn_started_at) VALUES ($1, $2, $3, $4, $5, $6, $7, "
                    "clock_timestamp()) ON CONFLICT (match_id) DO UPDATE SET "
                    "base_ms = EXCLUDED.base_ms, increment_ms = EXCLUDED.increment_ms, "
                    "left0_ms = EXCLUDED.left0_ms, left1_ms = EXCLUDED.left1_ms, "
                    "started = EXCLUDED.started, flagged = EXCLUDED.flagged, "
                    "turn_started_at = EXCLUDED.turn_started_at",
    [P_LOAD_CLOCK] = "SELECT base_ms, increment_ms, left0_ms, left1_ms, started, flagged, "
                     "GREATEST(0, (extract(epoch FROM clock_timestamp() - turn_started_at) "
                     "* 1000)::bigint) FROM clocks WHERE match_id = $1",
    [P_PUT_DEADLINE] =
        "INSERT INTO correspondence (match_id, days, deadline, to_move) VALUES ($1, $2, CASE WHEN "
        "$3::bigint IS NULL THEN NULL ELSE (extract(epoch FROM clock_timestamp()) * 1000)::bigint "
        "+ $3 END, $4) ON CONFLICT (match_id) DO UPDATE SET days = EXCLUDED.days, deadline = "
        "EXCLUDED.deadline, to_move = EXCLUDED.to_move",
    /* clang-format off */
    [P_EACH_CORRESPONDENCE] =
        "SELECT m.id, m.spec, me.seat, a.name, k.days, k.to_move, k.deadline FROM seat_accounts "
        "me JOIN correspondence k ON k.match_id = me.match_id JOIN matches m ON m.id = "
        "me.match_id LEFT JOIN seat_accounts o ON o.match_id = me.match_id AND o.seat = 1 - "
        "me.seat LEFT JOIN accounts a ON a.id = o.account_id WHERE me.account_id = $1 AND "
        LIVE_MATCH("m.id") " AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.match_id = m.id) "
        "ORDER BY k.deadline NULLS LAST LIMIT $2",
    /* clang-format on */
    [P_LOAD_MOVES] = "SELECT ply, move, notation, hash_after, seat FROM moves "
                     "WHERE match_id = $1 ORDER BY ply",
    [P_COUNT] = "SELECT count(*) FROM matches",
    [P_COUNT_LIVE] = "SELECT count(*) FROM matches m WHERE " LIVE_MATCH("m.id"),
    [P_PUT_KEPT] = "INSERT INTO kept_throws (match_id, notations) VALUES ($1, $2) "
                   "ON CONFLICT (match_id) DO UPDATE SET notations = EXCLUDED.notations",
    [P_DELETE_KEPT] = "DELETE FROM kept_throws WHERE match_id = $1",
    [P_LOAD_KEPT] = "SELECT notations FROM kept_throws WHERE match_id = $1",
    [P_INSERT_INVITE] = "INSERT INTO invites (match_id, seat, invite) VALUES ($1, $2, $3)",
    [P_DELETE_INVITE] = "DELETE FROM invites WHERE match_id = $1",
    [P_LOAD_INVITE] = "SELECT seat, invite FROM invites WHERE match_id = $1",
    [P_INSERT_ABORTED] = "INSERT INTO aborted (match_id, at) VALUES ($1, now())",
    [P_LOAD_ABORTED] = "SELECT 1 FROM aborted WHERE match_id = $1",
    [P_EXISTS] = "SELECT 1 FROM matches WHERE id = $1",
    [P_EACH_SET_ASIDE] = "SELECT match_id, reason FROM set_aside ORDER BY match_id",
    [P_LIST] = "SELECT id FROM matches WHERE id > $1 ORDER BY id LIMIT $2",
    [P_CLAIM] = CLAIM_LEASE,
    /* The claim of a change in one round trip: the lease, then the version counted (and the
     * other servers told) only if the lease was had and the copy is current. */
    [P_CLAIM_BUMP] = "WITH l AS (" CLAIM_LEASE "), "
                     "u AS (UPDATE matches SET version = version + 1 WHERE id = $1 AND "
                     "version = $4 AND EXISTS (SELECT 1 FROM l) RETURNING version) "
                     "SELECT (SELECT count(*) FROM l), (SELECT count(*) FROM u), "
                     "(SELECT pg_notify('tg_match', $1::text || ' ' || version::text) FROM u)",
    [P_VERSION_LOCK] = "SELECT version FROM matches WHERE id = $1 FOR UPDATE",
    /* A row another session holds locked (a frozen server's claim on it, in its open
     * transaction) is skipped, not waited for: the other leases are renewed, that one at the
     * next tick or never (then it runs out, as a dead server's would). */
    [P_RENEW] = "UPDATE leases SET expires_at = clock_timestamp() + $2 * interval '1 millisecond' "
                "WHERE owner = $1 AND match_id IN (SELECT match_id FROM leases WHERE owner = $1 "
                "FOR UPDATE SKIP LOCKED)",
    [P_RELEASE] = "DELETE FROM leases WHERE owner = $1 AND match_id IN (SELECT match_id FROM "
                  "leases WHERE owner = $1 AND match_id = ANY ($2::bigint[]) FOR UPDATE SKIP "
                  "LOCKED)",
    [P_RELEASE_ALL] = "DELETE FROM leases WHERE owner = $1",
    /* The leases that ran out on live clocked matches, to take over (a match without a clock
     * waits for its players, whose first change claims it wherever they come back); those of
     * ended matches (their server died before it unloaded them) are deleted on the way, so
     * they do not pile up. A lease row locked by an open transaction (its server frozen in
     * the middle of a round) is skipped, not waited for: it is taken over once that server's
     * session has been ended (idle_in_transaction_session_timeout) and the lock is gone. */
    /* clang-format off */
    [P_EXPIRED] = "WITH ended AS (DELETE FROM leases WHERE match_id IN (SELECT l.match_id FROM "
                  "leases l WHERE l.expires_at <= clock_timestamp() AND NOT (" LIVE_MATCH(
                  "l.match_id") ") FOR UPDATE SKIP LOCKED)) SELECT l.match_id FROM leases l "
                  "JOIN clocks k ON k.match_id = l.match_id WHERE l.expires_at <= "
                  "clock_timestamp() AND " LIVE_MATCH("l.match_id") " ORDER BY l.expires_at "
                  "LIMIT $1 FOR UPDATE OF l SKIP LOCKED",
    /* clang-format on */
    [P_VERSIONS] = "SELECT id, version FROM matches WHERE id = ANY ($1::bigint[])",
    [P_WANT] = "SELECT pg_notify('tg_want', $1)",
    /* Run on the loop: a lease row another session holds locked (a change of this server's
     * waiting on the round's connection, or a frozen server's claim) is left, not waited for;
     * the next tg_want asks again. */
    [P_RELEASE_ONE] = "DELETE FROM leases WHERE owner = $1 AND match_id IN (SELECT match_id FROM "
                      "leases WHERE owner = $1 AND match_id = $2 FOR UPDATE SKIP LOCKED)",
    [P_PUT_UNDO] = "INSERT INTO undo_requests (match_id, seat, ply, asked_at, answer) "
                   "VALUES ($1, $2, $3, clock_timestamp(), NULL) ON CONFLICT (match_id) DO "
                   "UPDATE SET seat = EXCLUDED.seat, ply = EXCLUDED.ply, "
                   "asked_at = EXCLUDED.asked_at, answer = NULL",
    [P_END_UNDO] = "UPDATE undo_requests SET answer = $2 WHERE match_id = $1",
    [P_DELETE_UNDO] = "DELETE FROM undo_requests WHERE match_id = $1",
    /* As store.c's S_OFFER_DRAW and S_DRAW_DECIDED: changes of the row as it is. */
    [P_OFFER_DRAW] = "INSERT INTO draw_offers (match_id, offered_by, spent0, spent1) VALUES "
                     "($1, $2::smallint, $2::smallint = 0, $2::smallint = 1) ON CONFLICT "
                     "(match_id) DO UPDATE SET offered_by = EXCLUDED.offered_by, spent0 = "
                     "draw_offers.spent0 OR EXCLUDED.spent0, spent1 = draw_offers.spent1 OR "
                     "EXCLUDED.spent1",
    [P_DRAW_DECIDED] = "UPDATE draw_offers SET offered_by = CASE WHEN $4::boolean OR "
                       "(offered_by = 0 AND $3::boolean) OR (offered_by = 1 AND $2::boolean) "
                       "THEN NULL ELSE offered_by END, spent0 = spent0 AND NOT $3::boolean, "
                       "spent1 = spent1 AND NOT $2::boolean WHERE match_id = $1",
    [P_FORGET_DRAW] = "DELETE FROM draw_offers WHERE match_id = $1",
    [P_PUT_LOBBY_MATCH] = "INSERT INTO lobby_matches (match_id, line) VALUES ($1, $2) ON "
                          "CONFLICT (match_id) DO UPDATE SET line = EXCLUDED.line",
    [P_FORGET_LOBBY_MATCH] = "DELETE FROM lobby_matches WHERE match_id = $1",
    /* clang-format off */
    [P_EACH_LOBBY_MATCH] = "SELECT match_id, line FROM (SELECT l.match_id, l.line FROM "
                           "lobby_matches l WHERE " LIVE_MATCH("l.match_id") " AND NOT EXISTS "
                           "(SELECT 1 FROM set_aside s WHERE s.match_id = l.match_id) ORDER BY "
                           "l.match_id DESC LIMIT $1) n ORDER BY match_id",
    /* clang-format on */
    [P_ADMIT] = "SELECT tg_admit($1, $2)",
    /* This server's row, the rows of servers long gone deleted, and the site's counts; the
     * main query does not see the row written, so this server is counted from $2. */
    [P_SITE] =
        "WITH me AS (INSERT INTO instances (owner, clients, loaded, started_at, seen_at) "
        "VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp()) ON CONFLICT (owner) "
        "DO UPDATE SET clients = EXCLUDED.clients, loaded = EXCLUDED.loaded, "
        "seen_at = EXCLUDED.seen_at), gone AS (DELETE FROM instances WHERE owner <> $1 "
        "AND seen_at < clock_timestamp() - ($4::float8 * 10) * interval '1 millisecond') "
        "SELECT (SELECT count(*) FROM matches), (SELECT count(*) FROM matches m WHERE " LIVE_MATCH(
            "m.id") "), 1 + count(*), $2::bigint + coalesce(sum(clients), 0) "
                    "FROM instances WHERE owner <> $1 AND seen_at >= clock_timestamp() - "
                    "$4::float8 * interval '1 millisecond'",
    [P_INSTANCE_GONE] = "DELETE FROM instances WHERE owner = $1",
    /* A change's moves rows and its count of plies in one round trip: the rows as arrays
     * ($3..$6, in ply order from $2), the count checked by the caller (one matches row). */
    /* The new match is the rematch of $2: unique, so a second rematch of one match fails
     * (after waiting for the first's commit); the old match's version is counted and the
     * other servers told, so that its watchers everywhere hear of the rematch. */
    [P_MARK_REMATCH] = "WITH r AS (UPDATE matches SET rematch_of = $2 WHERE id = $1 RETURNING id) "
                       "UPDATE matches SET version = version + 1 WHERE id = $2 AND EXISTS "
                       "(SELECT 1 FROM r) RETURNING pg_notify('tg_match', id::text || ' ' || "
                       "version::text)",
    [P_FIND_REMATCH] = "SELECT id FROM matches WHERE rematch_of = $1",
    [P_ADD_MOVES] = "WITH ins AS (INSERT INTO moves (match_id, ply, move, notation, hash_after, "
                    "seat, played_at) SELECT $1, $2 + t.o - 1, t.mv, t.nt, t.h, t.st, now() "
                    "FROM unnest($3::bigint[], $4::text[], $5::bigint[], $6::smallint[]) "
                    "WITH ORDINALITY AS t (mv, nt, h, st, o)) "
                    "UPDATE matches SET plies = $7 WHERE id = $1",
    [P_INSERT_ACCOUNT] = "INSERT INTO accounts (name, name_folded, password_hash, created_at, "
                         "deleted) VALUES ($1, $2, $3, now(), false) RETURNING id",
    [P_FIND_ACCOUNT] = "SELECT id, name, password_hash FROM accounts "
                       "WHERE name_folded = $1 AND NOT deleted",
    [P_INSERT_SESSION] = "WITH gone AS (DELETE FROM sessions WHERE account_id = $2 "
                         "AND expires_at <= now()) INSERT INTO sessions (token_hash, account_id, "
                         "created_at, expires_at) VALUES ($1, $2, now(), "
                         "now() + $3 * interval '1 millisecond')",
    [P_FIND_SESSION] = "SELECT a.id, a.name FROM sessions s JOIN accounts a ON a.id = "
                       "s.account_id WHERE s.token_hash = $1 AND s.expires_at > now() "
                       "AND NOT a.deleted",
    [P_DELETE_SESSION] = "DELETE FROM sessions WHERE token_hash = $1",
    [P_DELETE_SESSIONS] = "DELETE FROM sessions WHERE account_id = $1",
    /* $1 the key, $2 the budget (attempts in a window, at least 1), $3 the refill per second:
     * one token taken, refilled first from the time since the last charge; no row when fewer
     * than one is left, and the row is left as it was (refilling is linear: nothing is lost). */
    [P_CHARGE_SIGN_IN] =
        "INSERT INTO sign_in_budgets AS b (key, tokens, refilled_at) "
        "VALUES ($1, $2::float8 - 1, statement_timestamp()) "
        "ON CONFLICT (key) DO UPDATE SET tokens = least($2::float8, b.tokens + $3::float8 * "
        "extract(epoch FROM statement_timestamp() - b.refilled_at)) - 1, "
        "refilled_at = statement_timestamp() "
        "WHERE least($2::float8, b.tokens + $3::float8 * "
        "extract(epoch FROM statement_timestamp() - b.refilled_at)) >= 1 "
        "RETURNING tokens",
    /* $1 the window in seconds: up to 100 rows full again go, none another server holds (SKIP
     * LOCKED: a charge never waits on another's expiry). */
    [P_EXPIRE_SIGN_INS] =
        "DELETE FROM sign_in_budgets WHERE key IN (SELECT key FROM sign_in_budgets "
        "WHERE refilled_at < statement_timestamp() - make_interval(secs => $1::float8) "
        "LIMIT 100 FOR UPDATE SKIP LOCKED)",
    [P_DELETE_ACCOUNT] = "WITH s AS (DELETE FROM sessions WHERE account_id = $1), "
                         "r AS (DELETE FROM ratings WHERE account_id = $1), "
                         "h AS (DELETE FROM rating_history WHERE account_id = $1) "
                         "UPDATE accounts SET name = NULL, name_folded = NULL, "
                         "password_hash = NULL, deleted = true WHERE id = $1 AND NOT deleted",
    [P_SET_SEAT_ACCOUNT] = "INSERT INTO seat_accounts (match_id, seat, account_id) "
                           "VALUES ($1, $2, $3) ON CONFLICT (match_id, seat) DO UPDATE SET "
                           "account_id = EXCLUDED.account_id",
    [P_INSERT_RATED] = "INSERT INTO rated_matches (match_id, game, category, rated_at) "
                       "VALUES ($1, $2, $3, NULL)",
    [P_FIND_RATED] = "SELECT game, category, rated_at IS NOT NULL FROM rated_matches "
                     "WHERE match_id = $1",
    /* The row stays locked to the commit: a second server's claim waits, then finds it
     * rated and updates nothing. */
    [P_CLAIM_RATED] = "UPDATE rated_matches SET rated_at = now() WHERE match_id = $1 AND "
                      "rated_at IS NULL RETURNING game, category",
    [P_SEAT_ACCOUNTS] = "SELECT seat, account_id FROM seat_accounts WHERE match_id = $1",
    [P_GET_RATING] = "SELECT rating, rd, volatility, games FROM ratings WHERE account_id = $1 "
                     "AND game = $2 AND category = $3",
    /* The rating and its point of the player's graph, in one statement. */
    [P_PUT_RATING] = "WITH point AS (INSERT INTO rating_history (account_id, game, category, "
                     "rating, rd, volatility, match_id, at) VALUES ($1, $2, $3, $4, $5, $6, $8, "
                     "now())) INSERT INTO ratings (account_id, game, category, rating, rd, "
                     "volatility, games, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, now()) "
                     "ON CONFLICT (account_id, game, category) DO UPDATE SET "
                     "rating = EXCLUDED.rating, rd = EXCLUDED.rd, "
                     "volatility = EXCLUDED.volatility, games = EXCLUDED.games, "
                     "updated_at = EXCLUDED.updated_at",
    [P_EACH_RATING] = "SELECT game, category, rating, rd, volatility, games FROM ratings "
                      "WHERE account_id = $1 ORDER BY game, category",
    /* The player and match pages (store-pg-history.c): times in Unix milliseconds. */
    [P_EACH_RATING_POINT] = "SELECT game, category, rating, rd, volatility, match_id, "
                            "(extract(epoch FROM at) * 1000)::bigint FROM rating_history "
                            "WHERE account_id = $1 ORDER BY id DESC LIMIT $2",
    [P_EACH_PLAYED_GAME] =
        "SELECT m.id, m.spec, me.seat, a.name, a.deleted, r.match_id IS NOT NULL, r.winner, "
        "r.reason, c.flagged, rm.game, rm.category, m.plies, (extract(epoch FROM "
        "m.created_at) * 1000)::bigint, (extract(epoch FROM r.ended_at) * 1000)::bigint "
        "FROM seat_accounts me JOIN matches m ON m.id = me.match_id "
        "LEFT JOIN seat_accounts o ON o.match_id = me.match_id AND o.seat = 1 - me.seat "
        "LEFT JOIN accounts a ON a.id = o.account_id LEFT JOIN results r ON r.match_id = m.id "
        "LEFT JOIN clocks c ON c.match_id = m.id LEFT JOIN rated_matches rm ON rm.match_id = "
        "m.id WHERE me.account_id = $1 AND (r.match_id IS NOT NULL OR c.flagged IS NOT NULL) "
        "ORDER BY me.match_id DESC LIMIT $3 OFFSET $2",
    [P_MATCH_SUMMARY] =
        "SELECT m.spec, m.plies, (extract(epoch FROM m.created_at) * 1000)::bigint, "
        "r.match_id IS NOT NULL, r.winner, r.reason, (extract(epoch FROM r.ended_at) * "
        "1000)::bigint, r.score0, r.score1, c.flagged, (extract(epoch FROM ab.at) * "
        "1000)::bigint, rm.game, rm.category FROM matches m LEFT JOIN results r ON r.match_id "
        "= m.id LEFT JOIN clocks c ON c.match_id = m.id LEFT JOIN aborted ab ON ab.match_id = "
        "m.id LEFT JOIN rated_matches rm ON rm.match_id = m.id WHERE m.id = $1",
    [P_SUMMARY_SEATS] =
        "SELECT s.seat, a.name, a.deleted, h.rating, (SELECT p.rating FROM rating_history p "
        "WHERE p.account_id = s.account_id AND p.game = h.game AND p.category = h.category AND "
        "p.id < h.id ORDER BY p.id DESC LIMIT 1) FROM seat_accounts s LEFT JOIN accounts a ON "
        "a.id = s.account_id LEFT JOIN rating_history h ON h.match_id = s.match_id AND "
        "h.account_id = s.account_id WHERE s.match_id = $1 ORDER BY s.seat",
    /* The notice goes out with the commit, and only if this change deleted the row. */
    [P_TAKE_SEEK] = "WITH d AS (DELETE FROM seeks WHERE id = $1 RETURNING id) "
                    "SELECT pg_notify('tg_lobby', $2) FROM d",
    [P_TELL_SITE] = "SELECT pg_notify('tg_lobby', $1)",
    /* Stored and told in one statement: one round trip, and no notice of a row not made. */
    [P_ADD_SEEK] = "WITH s AS (INSERT INTO seeks (instance, owner_serial, owner_account, "
                   "owner_name, target_account, target_name, spec, clock, rated, min_rating, "
                   "max_rating, rating, provisional, created_at) VALUES ($1, $2, $3, $4, $5, "
                   "$6, $7, $8, $9, $10, $11, $12, $13, now()) RETURNING id) "
                   "SELECT id, pg_notify('tg_lobby', $1 || ' seek ' || id::text) FROM s",
    /* A row another session holds (a server taking the seek, perhaps frozen in its change) is
     * skipped, never waited for, and said so ('held'); one gone already is not returned. The
     * last SELECT sees the rows as they were before the DELETE, hence NOT IN d. */
    [P_REMOVE_SEEKS] =
        "WITH free AS (SELECT id FROM seeks WHERE id = ANY($1::bigint[]) FOR UPDATE SKIP "
        "LOCKED), d AS (DELETE FROM seeks WHERE id IN (SELECT id FROM free) RETURNING id), "
        "told AS (SELECT id, pg_notify('tg_lobby', $2 || ' unseek ' || id::text || ' ' || $3) "
        "FROM d) SELECT id, 'removed' FROM told UNION ALL SELECT id, 'held' FROM seeks WHERE "
        "id = ANY($1::bigint[]) AND id NOT IN (SELECT id FROM d)",
    /* A server not seen for $3 seconds (its row in instances, written every few seconds) has
     * lost its connections; a seek younger than that may be of a server not yet seen. Rows
     * another session holds are left for the next sweep. */
    [P_SWEEP_SEEKS] =
        "WITH d AS (DELETE FROM seeks WHERE id IN (SELECT s.id FROM seeks s WHERE s.created_at "
        "< now() - $2::float8 * interval '1 second' OR (s.created_at < now() - $3::float8 * "
        "interval '1 second' AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.owner = "
        "s.instance AND i.seen_at >= clock_timestamp() - $3::float8 * interval '1 second')) "
        "FOR UPDATE OF s SKIP LOCKED) RETURNING id, created_at < now() - $2::float8 * interval "
        "'1 second' AS old) SELECT pg_notify('tg_lobby', $1 || ' unseek ' || id::text || CASE "
        "WHEN old THEN ' expired' ELSE ' owner-gone' END) FROM d",
};

bool pg_is_conninfo(const char *db)
{
    if (strncmp(db, "postgresql://", 13) == 0 || strncmp(db, "postgres://", 11) == 0)
        return true;
    /* A conninfo starts with a keyword and '=' (host=..., dbname=...); a file's path with an
     * '=' further on (/data/a=b.db) stays a SQLite file. */
    while (*db == ' ')
        db++;
    size_t n = 0;
    while ((db[n] >= 'a' && db[n] <= 'z') || db[n] == '_')
        n++;
    while (db[n] == ' ')
        n++;
    return n > 0 && db[n] == '=';
}

bool pg_fail(struct pg_store *pg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pg->last_error, sizeof pg->last_error, fmt, ap);
    va_end(ap);
    pg->sqlstate[0] = '\0';
    return false;
}

/* Notes libpq's error: the statement's (with its SQLSTATE) or the connection's. */
void pg_note_error(struct pg_store *pg, const PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = r ? PQresultErrorMessage(r) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(pg->conn);
    if (!msg || !*msg)
        msg = "the connection to PostgreSQL was lost";
    snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s", state ? state : "");
    /* One line: libpq's messages end in a newline and may hold more lines, tab-indented. */
    size_t n = 0;
    for (const char *p = msg; *p && n + 3 < sizeof pg->last_error; p++) {
        if (*p == '\n') {
            while (p[1] == '\t' || p[1] == ' ')
                p++;
            if (p[1]) {
                pg->last_error[n++] = ';';
                pg->last_error[n++] = ' ';
            }
        } else {
            pg->last_error[n++] = *p;
        }
    }
    pg->last_error[n] = '\0';
}

PGresult *pg_run(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values)
{
    char name[16];
    snprintf(name, sizeof name, "tg%d", (int)id);
    PGresult *r = PQexecPrepared(pg->conn, name, n, values, NULL, NULL, 0);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return r;
    pg_note_error(pg, r);
    PQclear(r);
    return NULL;
}

/* A statement run for its effect only. */
bool pg_run_done(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values)
{
    PGresult *r = pg_run(pg, id, n, values);
    PQclear(r);
    return r != NULL;
}

bool pg_run_sql(struct pg_store *pg, const char *sql)
{
    PGresult *r = PQexec(pg->conn, sql);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    bool ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
    if (!ok)
        pg_note_error(pg, r);
    PQclear(r);
    return ok;
}

void pg_rollback_keeping_error(struct pg_store *pg)
{
    char why[sizeof pg->last_error];
    memcpy(why, pg->last_error, sizeof why);
    pg_run_sql(pg, "ROLLBACK");
    memcpy(pg->last_error, why, sizeof why);
}

/* PostgreSQL's notices (a table that already exists, ...) are not the operator's business. */
static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* The server's event loop waits for each statement: how long one may make it wait.
 * lock_timeout: a lock held by another session (a server frozen in the middle of a round) is
 * given up on quickly, and the change answered `err leased` or `err busy`, try again;
 * statement_timeout: anything else the database is slow at; idle_in_transaction: a session
 * whose server stopped in the middle of a round (SIGSTOP, a pause, a cut) is ended by
 * PostgreSQL itself, its locks with it, a lease after it stopped (never less than a second,
 * so a busy machine's short pause between a round's statements does not end a sound one), so
 * that its matches are taken over like a dead server's. */
#define LOCK_TIMEOUT_MS 250
#define STATEMENT_TIMEOUT_MS 3000
#define IDLE_IN_TRANSACTION_MIN_MS 1000

bool pg_apply_session_limits(struct pg_store *pg)
{
    unsigned idle_ms = pg->lease_ms > IDLE_IN_TRANSACTION_MIN_MS ? pg->lease_ms
                                                                 : IDLE_IN_TRANSACTION_MIN_MS;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SET lock_timeout = %d; SET statement_timeout = %d; "
             "SET idle_in_transaction_session_timeout = %u",
             LOCK_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, idle_ms);
    return pg_run_sql(pg, sql);
}

/* What every connection needs: its settings, the statements, and LISTEN. */
static bool set_up_connection(struct pg_store *pg)
{
    PQsetNoticeProcessor(pg->conn, ignore_notice, NULL);
    /* A commit is acknowledged once durable (synchronous_commit as the server has it, `on` by
     * default). */
    /* A sibling (the round's connection) takes no notifications: nobody would read them. */
    if (!pg_apply_session_limits(pg) ||
        (!pg->sibling && (!pg_run_sql(pg, "LISTEN tg_match") || !pg_run_sql(pg, "LISTEN tg_want"))))
        return false;
    for (int i = 0; i < P_COUNT_STATEMENTS; i++) {
        char name[16];
        snprintf(name, sizeof name, "tg%d", i);
        PGresult *r = PQprepare(pg->conn, name, stmt_sql[i], 0, NULL);
        bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok)
            pg_note_error(pg, r);
        PQclear(r);
        if (!ok)
            return false;
    }
    pg->prepared = true;
    return PQsetnonblocking(pg->conn, 0) == 0 || pg_fail(pg, "cannot set the connection up");
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool pg_connected(struct pg_store *pg)
{
    if (PQstatus(pg->conn) == CONNECTION_OK && pg->prepared)
        return true;
    /* Once a second at most: a database that is down costs the loop one attempt a second
     * (each bounded by connect_timeout), not one a round. */
    double now = seconds_now();
    if (now - pg->last_attempt < 1.0)
        return pg->last_cause[0]
                   ? pg_fail(pg, "the connection to PostgreSQL was lost (%s)", pg->last_cause)
                   : pg_fail(pg, "the connection to PostgreSQL was lost; it is made again "
                                 "within a second");
    pg->last_attempt = now;
    pg->prepared = false;
    PQreset(pg->conn);
    if (PQstatus(pg->conn) != CONNECTION_OK) {
        pg_note_error(pg, NULL);
        snprintf(pg->last_cause, sizeof pg->last_cause, "%s", pg->last_error);
        return false;
    }
    pg->last_cause[0] = '\0'; /* made again: an earlier failure's cause is no longer news */
    pg->missed = true;
    return set_up_connection(pg);
}

/* Connects as the server named pg->owner. A database that does not answer must not hold a
 * thread for ever: 5 s to connect, and over TCP a host that went away noticed within about
 * 10 s (keepalives while waiting for an answer, tcp_user_timeout while data is
 * unacknowledged), unless the conninfo says otherwise (its own settings come later, and win).
 * The session is named after the server's name in the leases table, for pg_stat_activity. */
static bool connect_as_owner(struct pg_store *pg, const char *conninfo)
{
    char app_name[16 + TOKEN_HEX_LEN];
    snprintf(app_name, sizeof app_name, "tg-server %s", pg->owner);
    const char *const keys[] = {"connect_timeout",    "keepalives",       "keepalives_idle",
                                "keepalives_interval", "keepalives_count", "tcp_user_timeout",
                                "fallback_application_name", "dbname", NULL};
    const char *const values[] = {"5", "1", "5", "2", "3", "10000", app_name, conninfo, NULL};
    pg->conn = PQconnectdbParams(keys, values, 1);
    bool ok = pg->conn && PQstatus(pg->conn) == CONNECTION_OK;
    if (!ok)
        pg_note_error(pg, NULL);
    if (ok)
        PQsetNoticeProcessor(pg->conn, ignore_notice, NULL);
    return ok;
}

struct pg_store *pg_open(const char *conninfo, char *err, size_t err_cap)
{
    struct pg_store *pg = calloc(1, sizeof *pg);
    if (!pg || !new_token(pg->owner) || !(pg->conninfo = strdup(conninfo))) {
        snprintf(err, err_cap, "out of memory");
        pg_close(pg);
        return NULL;
    }
    pg->lease_ms = 5000;
    if (!connect_as_owner(pg, conninfo) || !pg_migrate(pg) || !set_up_connection(pg)) {
        snprintf(err, err_cap, "PostgreSQL: %s", pg->last_error);
        pg_close(pg);
        return NULL;
    }
    return pg;
}

struct pg_store *pg_open_sibling(const struct pg_store *of, char *err, size_t err_cap)
{
    struct pg_store *pg = calloc(1, sizeof *pg);
    if (!pg || !(pg->conninfo = strdup(of->conninfo))) {
        snprintf(err, err_cap, "out of memory");
        pg_close(pg);
        return NULL;
    }
    pg->sibling = true;
    memcpy(pg->owner, of->owner, sizeof pg->owner);
    pg->lease_ms = of->lease_ms;
    if (!connect_as_owner(pg, pg->conninfo) || !set_up_connection(pg)) {
        snprintf(err, err_cap, "PostgreSQL: %s", pg->last_error);
        pg_close(pg);
        return NULL;
    }
    return pg;
}

void pg_close(struct pg_store *pg)
{
    if (!pg)
        return;
    /* A clean stop hands this server's matches over at once, without waiting for the leases
     * to run out. */
    if (!pg->sibling && pg->conn && PQstatus(pg->conn) == CONNECTION_OK && pg->prepared &&
        !pg->in_round && PQtransactionStatus(pg->conn) == PQTRANS_IDLE) {
        const char *v[] = {pg->owner};
        pg_run_done(pg, P_RELEASE_ALL, 1, v);
        pg_run_done(pg, P_INSTANCE_GONE, 1, v);
    }
    PQfinish(pg->conn);
    free(pg->conninfo);
    free(pg->releases);
    free(pg);
}

const char *pg_error(const struct pg_store *pg)
{
    return pg->last_error;
}

bool pg_last_was_lock_wait(const struct pg_store *pg)
{
    return strcmp(pg->sqlstate, "55P03") == 0; /* lock_not_available */
}

bool pg_last_was_conflict(const struct pg_store *pg)
{
    return strcmp(pg->sqlstate, "23505") == 0; /* unique_violation */
}

bool pg_last_was_damage(const struct pg_store *pg)
{
    /* data_corrupted, index_corrupted: what PostgreSQL reports for a damaged page. */
    return strcmp(pg->sqlstate, "XX001") == 0 || strcmp(pg->sqlstate, "XX002") == 0;
}

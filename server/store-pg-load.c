/* Reading from the PostgreSQL store (store-pg.h): one stored match, its rows each checked for
 * the shape it must have, and the counts and lists. */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"
#include "common.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every row of one match in one statement: one snapshot, so that another server's commit in
 * the middle of the read cannot make a sound match look damaged, and one round trip. Each row
 * says which table it comes from (k); the columns n1..n7 and t1 are that table's. */
static const char load_sql[] =
    "SELECT 0 AS k, NULL::bigint AS n1, NULL::bigint AS n2, NULL::bigint AS n3, "
    "NULL::bigint AS n4, NULL::bigint AS n5, NULL::bigint AS n6, NULL::bigint AS n7, "
    "reason AS t1 FROM set_aside WHERE match_id = $1 "
    "UNION ALL SELECT 1, plies, version, (SELECT r.id FROM matches r WHERE r.rematch_of = $1), "
    "NULL, NULL, NULL, NULL, spec FROM matches WHERE id = $1 "
    "UNION ALL SELECT 2, seat, NULL, NULL, NULL, NULL, NULL, NULL, token FROM seats "
    "WHERE match_id = $1 "
    "UNION ALL SELECT 3, winner, ply, NULL, NULL, NULL, NULL, NULL, reason FROM results "
    "WHERE match_id = $1 "
    /* t1: a correspondence match's days per move and its deadline as milliseconds from now by
     * the database's clock ("3 -1200"; "3 -" once over), NULL for any other clock. */
    "UNION ALL SELECT 4, c.base_ms, c.increment_ms, c.left0_ms, c.left1_ms, c.started::int, "
    "c.flagged, GREATEST(0, (extract(epoch FROM clock_timestamp() - c.turn_started_at) * "
    "1000)::bigint), k.days::text || ' ' || coalesce((k.deadline - (extract(epoch FROM "
    "clock_timestamp()) * 1000)::bigint)::text, '-') FROM clocks c LEFT JOIN correspondence k "
    "ON k.match_id = c.match_id WHERE c.match_id = $1 "
    "UNION ALL SELECT 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, notations FROM kept_throws "
    "WHERE match_id = $1 "
    "UNION ALL SELECT 6, seat, NULL, NULL, NULL, NULL, NULL, NULL, invite FROM invites "
    "WHERE match_id = $1 "
    "UNION ALL SELECT 7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM aborted "
    "WHERE match_id = $1 "
    "UNION ALL SELECT 8, ply, move, hash_after, seat, NULL, NULL, NULL, notation FROM moves "
    "WHERE match_id = $1 "
    "UNION ALL SELECT 9, seat, ply, GREATEST(0, (extract(epoch FROM clock_timestamp() - "
    "asked_at) * 1000)::bigint), NULL, NULL, NULL, NULL, answer FROM undo_requests "
    "WHERE match_id = $1 "
    "UNION ALL SELECT 10, offered_by, spent0::int, spent1::int, NULL, NULL, NULL, NULL, NULL "
    "FROM draw_offers WHERE match_id = $1 "
    "ORDER BY 1, 2";

enum { COL_K, COL_N1, COL_T1 = 8 };

static bool is_token(const char *t)
{
    if (!t || strlen(t) != TOKEN_HEX_LEN)
        return false;
    for (const char *p = t; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

static bool is_null(const PGresult *r, int row, int n)
{
    return PQgetisnull(r, row, COL_N1 + n - 1);
}

static int64_t num(const PGresult *r, int row, int n)
{
    return strtoll(PQgetvalue(r, row, COL_N1 + n - 1), NULL, 10);
}

static enum load_result damaged(struct stored_match *out, char *why, size_t why_cap,
                                const char *what)
{
    if (why != what)
        snprintf(why, why_cap, "%s", what);
    stored_match_free(out);
    return LOAD_DAMAGED;
}

/* Reads the rows into out, checking each; LOAD_DAMAGED with why on the first that is wrong. */
static enum load_result read_rows(const PGresult *r, struct stored_match *out, char *why,
                                  size_t why_cap)
{
    int rows = PQntuples(r), i = 0;
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 0) {
        snprintf(why, why_cap, "%s", PQgetvalue(r, i, COL_T1));
        return LOAD_SET_ASIDE;
    }
    if (i == rows || atoi(PQgetvalue(r, i, COL_K)) != 1)
        return LOAD_NOT_FOUND;
    if (is_null(r, i, 1) || num(r, i, 1) < 0)
        return damaged(out, why, why_cap, "matches row");
    uint64_t plies = (uint64_t)num(r, i, 1);
    out->version = (uint64_t)num(r, i, 2);
    out->rematch = is_null(r, i, 3) ? 0 : (uint64_t)num(r, i, 3);
    if (!(out->spec = strdup(PQgetvalue(r, i, COL_T1))))
        return damaged(out, why, why_cap, "out of memory");
    int seats = 0;
    for (i++; i < rows && atoi(PQgetvalue(r, i, COL_K)) == 2; i++, seats++) {
        const char *t = PQgetvalue(r, i, COL_T1);
        if (num(r, i, 1) != seats || !is_token(t))
            return damaged(out, why, why_cap, "seats rows are not two seat tokens");
        memcpy(out->tokens[seats], t, TOKEN_HEX_LEN + 1);
    }
    if (seats != 2)
        return damaged(out, why, why_cap, "seats rows are not two seat tokens");
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 3) {
        const char *reason = PQgetvalue(r, i, COL_T1);
        out->has_result = true;
        out->winner = is_null(r, i, 1) ? -1 : (int)num(r, i, 1);
        out->by_resignation = strcmp(reason, "resignation") == 0;
        if ((!out->by_resignation && strcmp(reason, "rules") != 0) || num(r, i, 2) < 0 ||
            out->winner < -1 || out->winner > 1)
            return damaged(out, why, why_cap, "results row is malformed");
        out->result_ply = (uint64_t)num(r, i, 2);
        i++;
    }
    out->clock.flagged = -1;
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 4) {
        struct stored_clock *c = &out->clock;
        c->on = true;
        c->base_ms = num(r, i, 1);
        c->increment_ms = num(r, i, 2);
        c->left_ms[0] = num(r, i, 3);
        c->left_ms[1] = num(r, i, 4);
        c->started = num(r, i, 5) != 0;
        c->flagged = is_null(r, i, 6) ? -1 : (int)num(r, i, 6);
        c->used_ms = num(r, i, 7);
        if (c->base_ms <= 0 || c->increment_ms < 0 || c->flagged < -1 || c->flagged > 1)
            return damaged(out, why, why_cap, "clocks row is malformed");
        if (!PQgetisnull(r, i, COL_T1)) {
            long long to_deadline;
            int got = sscanf(PQgetvalue(r, i, COL_T1), "%d %lld", &c->days, &to_deadline);
            if (got < 1 || c->days <= 0)
                return damaged(out, why, why_cap, "correspondence row is malformed");
            if (got == 2)
                c->used_ms = correspondence_used_ms(c, to_deadline, 0);
        }
        i++;
    }
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 5) {
        if (!(out->kept_throws = strdup(PQgetvalue(r, i, COL_T1))))
            return damaged(out, why, why_cap, "out of memory");
        i++;
    }
    out->invite_seat = -1;
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 6) {
        const char *t = PQgetvalue(r, i, COL_T1);
        out->invite_seat = (int)num(r, i, 1);
        if ((out->invite_seat != 0 && out->invite_seat != 1) || !is_token(t))
            return damaged(out, why, why_cap, "invites row is malformed");
        memcpy(out->invite, t, TOKEN_HEX_LEN + 1);
        i++;
    }
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 7) {
        out->aborted = true;
        i++;
    }
    size_t cap = 0;
    for (; i < rows && atoi(PQgetvalue(r, i, COL_K)) == 8; i++) {
        struct stored_move *grown =
            array_reserve(out->moves, &cap, out->move_count + 1, sizeof *grown, 64);
        if (!grown)
            return damaged(out, why, why_cap, "out of memory");
        out->moves = grown;
        struct stored_move *m = &out->moves[out->move_count];
        const char *name = PQgetvalue(r, i, COL_T1);
        size_t name_len = strlen(name);
        int64_t move = num(r, i, 2), hash = num(r, i, 3);
        if (num(r, i, 1) != (int64_t)out->move_count) {
            snprintf(why, why_cap, "moves rows: ply %zu is missing", out->move_count);
            return damaged(out, why, why_cap, why);
        }
        if (move < 0 || move > UINT32_MAX || name_len == 0 || name_len >= NOTATION_MAX) {
            snprintf(why, why_cap, "moves rows: ply %zu is malformed", out->move_count);
            return damaged(out, why, why_cap, why);
        }
        m->move = (uint32_t)move;
        memcpy(m->notation, name, name_len + 1);
        memcpy(&m->hash_after, &hash, sizeof hash);
        m->seat = is_null(r, i, 4) ? -1 : (int)num(r, i, 4);
        out->move_count++;
    }
    /* An undo request made at another ply was ended by the change since: none is open. */
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 9) {
        int seat = (int)num(r, i, 1);
        if (is_null(r, i, 1) || (seat != 0 && seat != 1))
            return damaged(out, why, why_cap, "undo_requests row is malformed");
        if ((uint64_t)num(r, i, 2) == plies) {
            const char *answer = PQgetvalue(r, i, COL_T1);
            out->undo.seat = seat;
            out->undo.state = PQgetisnull(r, i, COL_T1)        ? UNDO_OPEN
                              : strcmp(answer, "timeout") != 0 ? UNDO_DECLINED
                                                               : UNDO_LAPSED;
            out->undo.age_ms = num(r, i, 3);
        }
        i++;
    }
    if (i < rows && atoi(PQgetvalue(r, i, COL_K)) == 10) {
        int by = is_null(r, i, 1) ? -1 : (int)num(r, i, 1);
        if (by < -1 || by > 1)
            return damaged(out, why, why_cap, "draw_offers row is malformed");
        out->draw = (struct stored_draw){.by = by, .spent = {num(r, i, 2) != 0, num(r, i, 3) != 0}};
        i++;
    }
    if (i != rows)
        return damaged(out, why, why_cap, "a row of an unknown kind");
    if (out->move_count != plies) {
        snprintf(why, why_cap, "the match has %" PRIu64 " plies but %zu moves rows", plies,
                 out->move_count);
        return damaged(out, why, why_cap, why);
    }
    return LOAD_FOUND;
}

enum load_result pg_load_match(struct pg_store *pg, uint64_t id, struct stored_match *out,
                               char *why, size_t why_cap)
{
    memset(out, 0, sizeof *out);
    out->id = id;
    out->winner = -1;
    out->draw.by = -1;
    char key[24];
    snprintf(key, sizeof key, "%" PRIu64, id);
    const char *v[] = {key};
    /* Inside the round's transaction a failed read would sink the round: a savepoint keeps
     * it to itself. */
    bool inside = pg_in_transaction(pg);
    PGresult *r = NULL;
    if (inside ? PQstatus(pg->conn) == CONNECTION_OK : pg_connected(pg)) {
        if (inside)
            PQclear(PQexec(pg->conn, "SAVEPOINT load"));
        r = PQexecParams(pg->conn, load_sql, 1, NULL, v, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
            snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s", state ? state : "");
            pg_fail(pg, "%s", PQerrorMessage(pg->conn));
            snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s", state ? state : "");
            PQclear(r);
            r = NULL;
        }
        if (inside)
            PQclear(PQexec(pg->conn, r ? "RELEASE load" : "ROLLBACK TO load"));
    } else {
        pg_fail(pg, "%s", PQerrorMessage(pg->conn));
    }
    if (!r) {
        /* Damage is set aside; a lost connection is not the match's fault. */
        snprintf(why, why_cap, "database error: %s", pg->last_error);
        stored_match_free(out);
        return pg_last_was_damage(pg) ? LOAD_DAMAGED : LOAD_UNAVAILABLE;
    }
    enum load_result result = read_rows(r, out, why, why_cap);
    PQclear(r);
    return result;
}

/* A read outside the round's transaction reconnects first if the connection was lost. */
static PGresult *read_query(struct pg_store *pg, enum pg_stmt id, int n, const char *const *v)
{
    if (!pg_in_transaction(pg) && !pg_connected(pg))
        return NULL;
    return pg_run(pg, id, n, v);
}

static bool count_of(struct pg_store *pg, enum pg_stmt id, uint64_t *count)
{
    PGresult *r = read_query(pg, id, 0, NULL);
    if (!r)
        return false;
    *count = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return true;
}

bool pg_count_matches(struct pg_store *pg, uint64_t *count)
{
    return count_of(pg, P_COUNT, count);
}

bool pg_count_live_matches(struct pg_store *pg, uint64_t *count)
{
    return count_of(pg, P_COUNT_LIVE, count);
}

bool pg_match_exists(struct pg_store *pg, uint64_t id, bool *exists)
{
    char key[24];
    snprintf(key, sizeof key, "%" PRIu64, id);
    const char *v[] = {key};
    PGresult *r = read_query(pg, P_EXISTS, 1, v);
    if (!r)
        return false;
    *exists = PQntuples(r) > 0;
    PQclear(r);
    return true;
}

/* Each row (an id, a text) of a read, to `each`. */
static bool each_id_and_text(struct pg_store *pg, enum pg_stmt stmt, int n,
                             const char *const *values,
                             void (*each)(uint64_t, const char *, void *), void *ctx)
{
    PGresult *r = read_query(pg, stmt, n, values);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++)
        each(strtoull(PQgetvalue(r, i, 0), NULL, 10), PQgetvalue(r, i, 1), ctx);
    PQclear(r);
    return true;
}

bool pg_each_set_aside(struct pg_store *pg, void (*each)(uint64_t, const char *, void *), void *ctx)
{
    return each_id_and_text(pg, P_EACH_SET_ASIDE, 0, NULL, each, ctx);
}

bool pg_each_lobby_match(struct pg_store *pg, size_t max,
                         void (*each)(uint64_t id, const char *line, void *ctx), void *ctx)
{
    char a[24];
    snprintf(a, sizeof a, "%zu", max);
    const char *v[] = {a};
    return each_id_and_text(pg, P_EACH_LOBBY_MATCH, 1, v, each, ctx);
}

bool pg_list_ids(struct pg_store *pg, uint64_t after, uint64_t *ids, size_t max, size_t *count,
                 bool *more)
{
    char a[24], b[24];
    snprintf(a, sizeof a, "%" PRIu64, after);
    snprintf(b, sizeof b, "%zu", max + 1);
    const char *v[] = {a, b};
    PGresult *r = read_query(pg, P_LIST, 2, v);
    *count = 0;
    *more = false;
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++) {
        if (*count == max) {
            *more = true;
            break;
        }
        ids[(*count)++] = strtoull(PQgetvalue(r, i, 0), NULL, 10);
    }
    PQclear(r);
    return true;
}

/* PostgreSQL checks its pages itself (checksums, if the cluster has them; pg_amcheck for the
 * indexes): --check here says whether the database answers, and the replay of every match
 * that follows is the server's own check. */
bool pg_check(struct pg_store *pg, bool full, char *out, size_t out_cap)
{
    (void)full;
    uint64_t n;
    if (!pg_count_matches(pg, &n)) {
        snprintf(out, out_cap, "%s", pg->last_error);
        return false;
    }
    snprintf(out, out_cap,
             "ok (PostgreSQL; %" PRIu64 " matches; pages are checked by "
             "PostgreSQL's checksums and pg_amcheck)",
             n);
    return true;
}

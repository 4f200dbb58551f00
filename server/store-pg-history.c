/* A player's and a match's history on PostgreSQL (store-pg.h; the statements are
 * store-pg.c's): reads only, on the loop's connection like the other reads outside a round.
 * They take no row locks, so a round holding some never makes them wait; each is one indexed
 * statement with a bound on its rows, and statement_timeout bounds the rest (store-pg.c). */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"

#include <libpq-fe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs a statement that reads. Inside a round's transaction (the loop's own, as for `new`), in
 * a savepoint, so that a failed read does not sink the round. */
static PGresult *read_rows(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values)
{
    bool inside = pg_in_transaction(pg);
    if (inside ? PQstatus(pg->conn) != CONNECTION_OK : !pg_connected(pg))
        return NULL;
    if (inside && !pg_run_sql(pg, "SAVEPOINT history_read"))
        return NULL;
    PGresult *r = pg_run(pg, id, n, values);
    if (inside)
        pg_run_sql(pg, r ? "RELEASE history_read" : "ROLLBACK TO history_read");
    return r;
}

static void copy_value(char *out, size_t cap, PGresult *r, int row, int column)
{
    snprintf(out, cap, "%s", PQgetvalue(r, row, column));
}

static bool is_true(PGresult *r, int row, int column)
{
    return strcmp(PQgetvalue(r, row, column), "t") == 0;
}

static int64_t ms_or_none(PGresult *r, int row, int column)
{
    return PQgetisnull(r, row, column) ? -1 : strtoll(PQgetvalue(r, row, column), NULL, 10);
}

bool pg_each_rating_point(struct pg_store *pg, uint64_t account_id, size_t max,
                          void (*each)(const struct rating_point *, void *), void *ctx)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id), pg_u64_text(b, max)};
    PGresult *r = read_rows(pg, P_EACH_RATING_POINT, 2, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++) {
        struct rating_point p = {0};
        copy_value(p.game, sizeof p.game, r, i, 0);
        copy_value(p.category, sizeof p.category, r, i, 1);
        p.rating = strtod(PQgetvalue(r, i, 2), NULL);
        p.rd = strtod(PQgetvalue(r, i, 3), NULL);
        p.volatility = strtod(PQgetvalue(r, i, 4), NULL);
        p.match_id = strtoull(PQgetvalue(r, i, 5), NULL, 10);
        p.at_ms = ms_or_none(r, i, 6);
        each(&p, ctx);
    }
    PQclear(r);
    return true;
}

bool pg_each_played_game(struct pg_store *pg, uint64_t account_id, uint64_t skip, size_t max,
                         void (*each)(const struct played_game *, void *), void *ctx)
{
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id), pg_u64_text(b, skip), pg_u64_text(c, max)};
    PGresult *r = read_rows(pg, P_EACH_PLAYED_GAME, 3, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++) {
        struct played_game g = {0};
        g.match_id = strtoull(PQgetvalue(r, i, 0), NULL, 10);
        copy_value(g.spec, sizeof g.spec, r, i, 1);
        g.seat = atoi(PQgetvalue(r, i, 2));
        copy_value(g.opponent, sizeof g.opponent, r, i, 3);
        g.opponent_deleted = is_true(r, i, 4);
        if (is_true(r, i, 5)) { /* a result */
            g.winner = PQgetisnull(r, i, 6) ? -1 : atoi(PQgetvalue(r, i, 6));
            copy_value(g.reason, sizeof g.reason, r, i, 7);
        } else { /* a flag fall: the other seat won */
            g.winner = 1 - atoi(PQgetvalue(r, i, 8));
            snprintf(g.reason, sizeof g.reason, "time");
        }
        g.rated = !PQgetisnull(r, i, 9);
        copy_value(g.game, sizeof g.game, r, i, 9);
        copy_value(g.category, sizeof g.category, r, i, 10);
        g.plies = strtoull(PQgetvalue(r, i, 11), NULL, 10);
        g.created_ms = ms_or_none(r, i, 12);
        g.ended_ms = ms_or_none(r, i, 13);
        each(&g, ctx);
    }
    PQclear(r);
    return true;
}

static bool read_seats(struct pg_store *pg, const char *const *v, struct match_summary *out)
{
    PGresult *r = read_rows(pg, P_SUMMARY_SEATS, 1, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++) {
        int seat = atoi(PQgetvalue(r, i, 0));
        if (seat != 0 && seat != 1)
            continue;
        struct summary_seat *to = &out->seats[seat];
        to->has_account = true;
        copy_value(to->name, sizeof to->name, r, i, 1);
        to->deleted = is_true(r, i, 2);
        to->has_rating = !PQgetisnull(r, i, 3);
        to->rating_after = strtod(PQgetvalue(r, i, 3), NULL);
        to->has_before = !PQgetisnull(r, i, 4);
        to->rating_before = strtod(PQgetvalue(r, i, 4), NULL);
    }
    PQclear(r);
    return true;
}

enum rated_result pg_match_summary(struct pg_store *pg, uint64_t id, struct match_summary *out)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    memset(out, 0, sizeof *out);
    PGresult *r = read_rows(pg, P_MATCH_SUMMARY, 1, v);
    if (!r)
        return RATED_FAILED;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return RATED_NO;
    }
    copy_value(out->spec, sizeof out->spec, r, 0, 0);
    out->plies = strtoull(PQgetvalue(r, 0, 1), NULL, 10);
    out->created_ms = ms_or_none(r, 0, 2);
    out->ended_ms = -1;
    if (is_true(r, 0, 3)) {
        int winner = PQgetisnull(r, 0, 4) ? -1 : atoi(PQgetvalue(r, 0, 4));
        snprintf(out->result, sizeof out->result, "%s",
                 winner == 0   ? "0"
                 : winner == 1 ? "1"
                               : "draw");
        copy_value(out->reason, sizeof out->reason, r, 0, 5);
        out->ended_ms = ms_or_none(r, 0, 6);
        out->has_scores = true;
        out->scores[0] = atoi(PQgetvalue(r, 0, 7));
        out->scores[1] = atoi(PQgetvalue(r, 0, 8));
    } else if (!PQgetisnull(r, 0, 9)) {
        snprintf(out->result, sizeof out->result, "%s", atoi(PQgetvalue(r, 0, 9)) == 0 ? "1" : "0");
        snprintf(out->reason, sizeof out->reason, "time");
    } else if (!PQgetisnull(r, 0, 10)) {
        snprintf(out->result, sizeof out->result, "aborted");
        snprintf(out->reason, sizeof out->reason, "aborted");
        out->ended_ms = ms_or_none(r, 0, 10);
    } else {
        snprintf(out->result, sizeof out->result, "running");
    }
    out->rated = !PQgetisnull(r, 0, 11);
    copy_value(out->game, sizeof out->game, r, 0, 11);
    copy_value(out->category, sizeof out->category, r, 0, 12);
    PQclear(r);
    return read_seats(pg, v, out) ? RATED_YES : RATED_FAILED;
}

bool pg_each_correspondence(struct pg_store *pg, uint64_t account_id, size_t max,
                            void (*each)(const struct correspondence_game *, void *), void *ctx)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id), pg_u64_text(b, max)};
    PGresult *r = read_rows(pg, P_EACH_CORRESPONDENCE, 2, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r); i++) {
        struct correspondence_game g = {.match_id = strtoull(PQgetvalue(r, i, 0), NULL, 10),
                                        .seat = atoi(PQgetvalue(r, i, 2)),
                                        .days = atoi(PQgetvalue(r, i, 4))};
        copy_value(g.spec, sizeof g.spec, r, i, 1);
        copy_value(g.opponent, sizeof g.opponent, r, i, 3);
        g.to_move = PQgetisnull(r, i, 5) ? -1 : atoi(PQgetvalue(r, i, 5));
        g.deadline_ms = PQgetisnull(r, i, 6) ? -1 : strtoll(PQgetvalue(r, i, 6), NULL, 10);
        each(&g, ctx);
    }
    PQclear(r);
    return true;
}

/* Rated matches and ratings on PostgreSQL (store-pg.h; the statements are store-pg.c's):
 * site-wide. The writes ride on the round's transaction like the result they follow; the
 * claim of a match's rating update is its rated_matches row, updated and so locked to the
 * commit, so that two servers deciding one result rate it once. Reads may come inside a round,
 * in a savepoint so that a failed read does not sink it. */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"

#include <libpq-fe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs a statement that reads, inside the round or not. */
static PGresult *read_rows(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values)
{
    bool inside = pg_in_transaction(pg);
    if (inside ? PQstatus(pg->conn) != CONNECTION_OK : !pg_connected(pg))
        return NULL;
    if (inside && !pg_run_sql(pg, "SAVEPOINT rating_read"))
        return NULL;
    PGresult *r = pg_run(pg, id, n, values);
    if (inside)
        pg_run_sql(pg, r ? "RELEASE rating_read" : "ROLLBACK TO rating_read");
    return r;
}

static void double_text(char out[NUM_TEXT * 2], double v)
{
    snprintf(out, NUM_TEXT * 2, "%.17g", v); /* every bit of the double, read back the same */
}

bool pg_mark_rated(struct pg_store *pg, uint64_t id, const char *game, const char *category)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), game, category};
    return pg_run_done(pg, P_INSERT_RATED, 3, v);
}

static enum rated_result game_and_category(PGresult *r, char game[RATED_GAME_MAX],
                                           char category[RATED_CATEGORY_MAX], bool *rated_done)
{
    if (!r)
        return RATED_FAILED;
    enum rated_result found = PQntuples(r) == 1 ? RATED_YES : RATED_NO;
    if (found == RATED_YES) {
        snprintf(game, RATED_GAME_MAX, "%s", PQgetvalue(r, 0, 0));
        snprintf(category, RATED_CATEGORY_MAX, "%s", PQgetvalue(r, 0, 1));
        if (rated_done)
            *rated_done = strcmp(PQgetvalue(r, 0, 2), "t") == 0;
    }
    PQclear(r);
    return found;
}

enum rated_result pg_find_rated(struct pg_store *pg, uint64_t id, char game[RATED_GAME_MAX],
                                char category[RATED_CATEGORY_MAX], bool *rated_done)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    return game_and_category(read_rows(pg, P_FIND_RATED, 1, v), game, category, rated_done);
}

enum rated_result pg_claim_rated(struct pg_store *pg, uint64_t id, char game[RATED_GAME_MAX],
                                 char category[RATED_CATEGORY_MAX])
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    return game_and_category(pg_run(pg, P_CLAIM_RATED, 1, v), game, category, NULL);
}

bool pg_seat_accounts(struct pg_store *pg, uint64_t id, uint64_t accounts[2])
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    PGresult *r = read_rows(pg, P_SEAT_ACCOUNTS, 1, v);
    if (!r)
        return false;
    accounts[0] = accounts[1] = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        int seat = atoi(PQgetvalue(r, i, 0));
        if (seat == 0 || seat == 1)
            accounts[seat] = strtoull(PQgetvalue(r, i, 1), NULL, 10);
    }
    PQclear(r);
    return true;
}

static void read_numbers(PGresult *r, int row, int first, struct stored_rating *out)
{
    out->rating = strtod(PQgetvalue(r, row, first), NULL);
    out->rd = strtod(PQgetvalue(r, row, first + 1), NULL);
    out->volatility = strtod(PQgetvalue(r, row, first + 2), NULL);
    out->games = strtoull(PQgetvalue(r, row, first + 3), NULL, 10);
}

enum rated_result pg_get_rating(struct pg_store *pg, uint64_t account_id,
                                struct stored_rating *inout)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id), inout->game, inout->category};
    PGresult *r = read_rows(pg, P_GET_RATING, 3, v);
    if (!r)
        return RATED_FAILED;
    enum rated_result found = PQntuples(r) == 1 ? RATED_YES : RATED_NO;
    if (found == RATED_YES)
        read_numbers(r, 0, 0, inout);
    PQclear(r);
    return found;
}

bool pg_put_rating(struct pg_store *pg, uint64_t account_id, const struct stored_rating *r,
                   uint64_t match_id)
{
    char a[NUM_TEXT], rating[NUM_TEXT * 2], rd[NUM_TEXT * 2], vol[NUM_TEXT * 2], games[NUM_TEXT],
        m[NUM_TEXT];
    double_text(rating, r->rating);
    double_text(rd, r->rd);
    double_text(vol, r->volatility);
    const char *v[] = {pg_u64_text(a, account_id),
                       r->game,
                       r->category,
                       rating,
                       rd,
                       vol,
                       pg_u64_text(games, r->games),
                       pg_u64_text(m, match_id)};
    return pg_run_done(pg, P_PUT_RATING, 8, v);
}

bool pg_each_rating(struct pg_store *pg, uint64_t account_id, size_t max,
                    void (*each)(const struct stored_rating *, void *), void *ctx)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id)};
    PGresult *r = read_rows(pg, P_EACH_RATING, 1, v);
    if (!r)
        return false;
    for (int i = 0; i < PQntuples(r) && (size_t)i < max; i++) {
        struct stored_rating one = {0};
        snprintf(one.game, sizeof one.game, "%s", PQgetvalue(r, i, 0));
        snprintf(one.category, sizeof one.category, "%s", PQgetvalue(r, i, 1));
        read_numbers(r, i, 2, &one);
        each(&one, ctx);
    }
    PQclear(r);
    return true;
}

/* Rated matches and ratings in the SQLite database (store.h; the statements are store.c's,
 * PostgreSQL's are store-pg-ratings.c's). The writes ride on the change that stores the
 * match's rows or its result, inside the round's transaction: a result and the ratings it
 * moves are committed together or not at all. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-pg.h"
#include "store-private.h"

#include <sqlite3.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static sqlite3_int64 now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (sqlite3_int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void copy_text(char *out, size_t cap, const unsigned char *text)
{
    snprintf(out, cap, "%s", text ? (const char *)text : "");
}

bool store_mark_rated(struct store *st, uint64_t id, const char *game, const char *category)
{
    if (st->pg)
        return pg_mark_rated(st->pg, id, game, category);
    sqlite3_stmt *s = store_prepared(st, S_INSERT_RATED);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_text(s, 2, game, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, category, -1, SQLITE_TRANSIENT);
    return store_run(st, s);
}

enum rated_result store_find_rated(struct store *st, uint64_t id, char game[RATED_GAME_MAX],
                                   char category[RATED_CATEGORY_MAX], bool *rated_done)
{
    if (st->pg)
        return pg_find_rated(st->pg, id, game, category, rated_done);
    sqlite3_stmt *s = store_prepared(st, S_FIND_RATED);
    if (!s)
        return RATED_FAILED;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        copy_text(game, RATED_GAME_MAX, sqlite3_column_text(s, 0));
        copy_text(category, RATED_CATEGORY_MAX, sqlite3_column_text(s, 1));
        if (rated_done)
            *rated_done = sqlite3_column_int(s, 2) != 0;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return RATED_YES;
    if (rc == SQLITE_DONE)
        return RATED_NO;
    store_failed(st, rc);
    return RATED_FAILED;
}

enum rated_result store_claim_rated(struct store *st, uint64_t id, char game[RATED_GAME_MAX],
                                    char category[RATED_CATEGORY_MAX])
{
    if (st->pg)
        return pg_claim_rated(st->pg, id, game, category);
    sqlite3_stmt *s = store_prepared(st, S_CLAIM_RATED);
    if (!s)
        return RATED_FAILED;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, now_ms());
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        copy_text(game, RATED_GAME_MAX, sqlite3_column_text(s, 0));
        copy_text(category, RATED_CATEGORY_MAX, sqlite3_column_text(s, 1));
        rc = sqlite3_step(s); /* to its end, so that the update is done */
        if (rc == SQLITE_DONE)
            rc = SQLITE_ROW;
    }
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return RATED_YES;
    if (rc == SQLITE_DONE)
        return RATED_NO;
    store_failed(st, rc);
    return RATED_FAILED;
}

bool store_seat_accounts(struct store *st, uint64_t id, uint64_t accounts[2])
{
    if (st->pg)
        return pg_seat_accounts(st->pg, id, accounts);
    sqlite3_stmt *s = store_prepared(st, S_SEAT_ACCOUNTS);
    if (!s)
        return false;
    accounts[0] = accounts[1] = 0;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int seat = sqlite3_column_int(s, 0);
        if (seat == 0 || seat == 1)
            accounts[seat] = store_as_unsigned(sqlite3_column_int64(s, 1));
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

enum rated_result store_get_rating(struct store *st, uint64_t account_id,
                                   struct stored_rating *inout)
{
    if (st->pg)
        return pg_get_rating(st->pg, account_id, inout);
    sqlite3_stmt *s = store_prepared(st, S_GET_RATING);
    if (!s)
        return RATED_FAILED;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_text(s, 2, inout->game, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, inout->category, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        inout->rating = sqlite3_column_double(s, 0);
        inout->rd = sqlite3_column_double(s, 1);
        inout->volatility = sqlite3_column_double(s, 2);
        inout->games = store_as_unsigned(sqlite3_column_int64(s, 3));
    }
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return RATED_YES;
    if (rc == SQLITE_DONE)
        return RATED_NO;
    store_failed(st, rc);
    return RATED_FAILED;
}

bool store_put_rating(struct store *st, uint64_t account_id, const struct stored_rating *r,
                      uint64_t match_id)
{
    if (st->pg)
        return pg_put_rating(st->pg, account_id, r, match_id);
    sqlite3_int64 now = now_ms();
    sqlite3_stmt *s = store_prepared(st, S_ADD_RATING_POINT);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_text(s, 2, r->game, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, r->category, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 4, r->rating);
    sqlite3_bind_double(s, 5, r->rd);
    sqlite3_bind_double(s, 6, r->volatility);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)match_id);
    sqlite3_bind_int64(s, 8, now);
    if (!store_run(st, s) || !(s = store_prepared(st, S_PUT_RATING)))
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_text(s, 2, r->game, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, r->category, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 4, r->rating);
    sqlite3_bind_double(s, 5, r->rd);
    sqlite3_bind_double(s, 6, r->volatility);
    sqlite3_bind_int64(s, 7, (sqlite3_int64)r->games);
    sqlite3_bind_int64(s, 8, now);
    return store_run(st, s);
}

bool store_each_rating(struct store *st, uint64_t account_id, size_t max,
                       void (*each)(const struct stored_rating *, void *), void *ctx)
{
    if (st->pg)
        return pg_each_rating(st->pg, account_id, max, each, ctx);
    sqlite3_stmt *s = store_prepared(st, S_EACH_RATING);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    int rc;
    size_t seen = 0;
    while (seen < max && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct stored_rating r = {0};
        copy_text(r.game, sizeof r.game, sqlite3_column_text(s, 0));
        copy_text(r.category, sizeof r.category, sqlite3_column_text(s, 1));
        r.rating = sqlite3_column_double(s, 2);
        r.rd = sqlite3_column_double(s, 3);
        r.volatility = sqlite3_column_double(s, 4);
        r.games = store_as_unsigned(sqlite3_column_int64(s, 5));
        each(&r, ctx);
        seen++;
    }
    if (seen == max)
        rc = SQLITE_DONE;
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

/* A player's and a match's history in the SQLite database (store.h; the statements are
 * store.c's, PostgreSQL's are store-pg-history.c's): reads only, for the player and match
 * pages (docs/server.md, "History"). matches, results and aborted keep Unix seconds, the
 * rating tables Unix milliseconds: every time is handed out in milliseconds. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-pg.h"
#include "store-private.h"

#include <sqlite3.h>

#include <stdio.h>
#include <string.h>

static void copy_text(char *out, size_t cap, sqlite3_stmt *s, int column)
{
    const unsigned char *text = sqlite3_column_text(s, column);
    snprintf(out, cap, "%s", text ? (const char *)text : "");
}

static int64_t seconds_to_ms(sqlite3_stmt *s, int column)
{
    return sqlite3_column_type(s, column) == SQLITE_NULL ? -1
                                                         : sqlite3_column_int64(s, column) * 1000;
}

bool store_each_rating_point(struct store *st, uint64_t account_id, size_t max,
                             void (*each)(const struct rating_point *, void *), void *ctx)
{
    if (st->pg)
        return pg_each_rating_point(st->pg, account_id, max, each, ctx);
    sqlite3_stmt *s = store_prepared(st, S_EACH_RATING_POINT);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct rating_point p = {0};
        copy_text(p.game, sizeof p.game, s, 0);
        copy_text(p.category, sizeof p.category, s, 1);
        p.rating = sqlite3_column_double(s, 2);
        p.rd = sqlite3_column_double(s, 3);
        p.volatility = sqlite3_column_double(s, 4);
        p.match_id = store_as_unsigned(sqlite3_column_int64(s, 5));
        p.at_ms = sqlite3_column_int64(s, 6);
        each(&p, ctx);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

bool store_each_played_game(struct store *st, uint64_t account_id, uint64_t skip, size_t max,
                            void (*each)(const struct played_game *, void *), void *ctx)
{
    if (st->pg)
        return pg_each_played_game(st->pg, account_id, skip, max, each, ctx);
    sqlite3_stmt *s = store_prepared(st, S_EACH_PLAYED_GAME);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_int64(s, 2, skip > INT64_MAX ? INT64_MAX : (sqlite3_int64)skip);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)max);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct played_game g = {0};
        g.match_id = store_as_unsigned(sqlite3_column_int64(s, 0));
        copy_text(g.spec, sizeof g.spec, s, 1);
        g.seat = sqlite3_column_int(s, 2);
        copy_text(g.opponent, sizeof g.opponent, s, 3);
        g.opponent_deleted = sqlite3_column_int(s, 4) != 0;
        if (sqlite3_column_int(s, 5)) { /* a result */
            g.winner = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 6);
            copy_text(g.reason, sizeof g.reason, s, 7);
        } else { /* a flag fall: the other seat won */
            g.winner = 1 - sqlite3_column_int(s, 8);
            snprintf(g.reason, sizeof g.reason, "time");
        }
        g.rated = sqlite3_column_type(s, 9) != SQLITE_NULL;
        copy_text(g.game, sizeof g.game, s, 9);
        copy_text(g.category, sizeof g.category, s, 10);
        g.plies = store_as_unsigned(sqlite3_column_int64(s, 11));
        g.created_ms = seconds_to_ms(s, 12);
        g.ended_ms = seconds_to_ms(s, 13);
        each(&g, ctx);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

static bool read_seats(struct store *st, uint64_t id, struct match_summary *out)
{
    sqlite3_stmt *s = store_prepared(st, S_SUMMARY_SEATS);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int seat = sqlite3_column_int(s, 0);
        if (seat != 0 && seat != 1)
            continue;
        struct summary_seat *to = &out->seats[seat];
        to->has_account = true;
        copy_text(to->name, sizeof to->name, s, 1);
        to->deleted = sqlite3_column_int(s, 2) != 0;
        to->has_rating = sqlite3_column_type(s, 3) != SQLITE_NULL;
        to->rating_after = sqlite3_column_double(s, 3);
        to->has_before = sqlite3_column_type(s, 4) != SQLITE_NULL;
        to->rating_before = sqlite3_column_double(s, 4);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE || store_failed(st, rc);
}

enum rated_result store_match_summary(struct store *st, uint64_t id, struct match_summary *out)
{
    if (st->pg)
        return pg_match_summary(st->pg, id, out);
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s = store_prepared(st, S_MATCH_SUMMARY);
    if (!s)
        return RATED_FAILED;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        copy_text(out->spec, sizeof out->spec, s, 0);
        out->plies = store_as_unsigned(sqlite3_column_int64(s, 1));
        out->created_ms = seconds_to_ms(s, 2);
        out->ended_ms = -1;
        if (sqlite3_column_int(s, 3)) {
            int winner = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 4);
            snprintf(out->result, sizeof out->result, "%s",
                     winner == 0   ? "0"
                     : winner == 1 ? "1"
                                   : "draw");
            copy_text(out->reason, sizeof out->reason, s, 5);
            out->ended_ms = seconds_to_ms(s, 6);
            out->has_scores = true;
            out->scores[0] = sqlite3_column_int(s, 7);
            out->scores[1] = sqlite3_column_int(s, 8);
        } else if (sqlite3_column_type(s, 9) != SQLITE_NULL) {
            snprintf(out->result, sizeof out->result, "%s",
                     sqlite3_column_int(s, 9) == 0 ? "1" : "0");
            snprintf(out->reason, sizeof out->reason, "time");
        } else if (sqlite3_column_type(s, 10) != SQLITE_NULL) {
            snprintf(out->result, sizeof out->result, "aborted");
            snprintf(out->reason, sizeof out->reason, "aborted");
            out->ended_ms = seconds_to_ms(s, 10);
        } else {
            snprintf(out->result, sizeof out->result, "running");
        }
        out->rated = sqlite3_column_type(s, 11) != SQLITE_NULL;
        copy_text(out->game, sizeof out->game, s, 11);
        copy_text(out->category, sizeof out->category, s, 12);
    }
    sqlite3_reset(s);
    if (rc == SQLITE_DONE)
        return RATED_NO;
    if (rc != SQLITE_ROW) {
        store_failed(st, rc);
        return RATED_FAILED;
    }
    return read_seats(st, id, out) ? RATED_YES : RATED_FAILED;
}

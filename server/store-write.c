/* Writing a match's rows on SQLite (store.h): the match and its seats, moves and their count,
 * clock, undo request, kept throws, invite, abort, result, and its set-aside mark, each from
 * its prepared statement inside the round's change. PostgreSQL's is store-pg-write.c. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"
#include "store-pg.h"

#include <sqlite3.h>

#include <stdio.h>
#include <time.h>

static sqlite3_int64 now_seconds(void)
{
    return (sqlite3_int64)time(NULL);
}

static sqlite3_int64 now_milliseconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (sqlite3_int64)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A statement whose one parameter is the match's id. */
static bool run_for_match(struct store *st, enum stmt_id stmt, uint64_t id)
{
    sqlite3_stmt *s = store_prepared(st, stmt);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return store_run(st, s);
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
    if (!store_run(st, s))
        return false;
    *id = (uint64_t)sqlite3_last_insert_rowid(st->db);
    for (int seat = 0; seat < 2; seat++) {
        sqlite3_stmt *t = store_prepared(st, S_INSERT_SEAT);
        if (!t)
            return false;
        sqlite3_bind_int64(t, 1, (sqlite3_int64)*id);
        sqlite3_bind_int(t, 2, seat);
        sqlite3_bind_text(t, 3, tokens[seat], -1, SQLITE_STATIC);
        if (!store_run(st, t))
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
    sqlite3_bind_int64(s, 5, store_as_signed(m->hash_after));
    if (m->seat >= 0)
        sqlite3_bind_int(s, 6, m->seat);
    sqlite3_bind_int64(s, 7, now_seconds());
    return store_run(st, s);
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
    if (!store_run(st, s))
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
    return store_run(st, s);
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
    if (!store_run(st, s))
        return false;
    if (!c->days)
        return true;
    if (!(s = store_prepared(st, S_PUT_DEADLINE)))
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, c->days);
    /* The seat to move has the lesser time left (the other's was reset to the whole allowance
     * by its own decision), from now, when the change is stored. */
    if (c->flagged < 0 && !c->no_deadline)
        sqlite3_bind_int64(s, 3, now_milliseconds() + correspondence_left_ms(c));
    if (c->to_move == 0 || c->to_move == 1)
        sqlite3_bind_int(s, 4, c->to_move);
    return store_run(st, s);
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
    return store_run(st, s);
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
    return store_run(st, s);
}

bool store_offer_draw(struct store *st, uint64_t id, int seat)
{
    if (st->pg)
        return pg_offer_draw(st->pg, id, seat);
    sqlite3_stmt *s = store_prepared(st, S_OFFER_DRAW);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, seat);
    return store_run(st, s);
}

bool store_draw_decided(struct store *st, uint64_t id, bool ended, const bool decided[2])
{
    if (st->pg)
        return pg_draw_decided(st->pg, id, ended, decided);
    sqlite3_stmt *s = store_prepared(st, S_DRAW_DECIDED);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, decided[0]);
    sqlite3_bind_int(s, 3, decided[1]);
    sqlite3_bind_int(s, 4, ended);
    return store_run(st, s);
}

static bool delete_by_id(struct store *st, enum stmt_id stmt, uint64_t id)
{
    sqlite3_stmt *s = store_prepared(st, stmt);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return store_run(st, s);
}

bool store_forget_draw(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_forget_draw(st->pg, id);
    return delete_by_id(st, S_FORGET_DRAW, id);
}

bool store_mark_rematch(struct store *st, uint64_t id, uint64_t of)
{
    if (st->pg)
        return pg_mark_rematch(st->pg, id, of);
    sqlite3_stmt *s = store_prepared(st, S_MARK_REMATCH);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)of);
    return store_run(st, s);
}

bool store_put_lobby_match(struct store *st, uint64_t id, const char *line)
{
    if (st->pg)
        return pg_put_lobby_match(st->pg, id, line);
    sqlite3_stmt *s = store_prepared(st, S_PUT_LOBBY_MATCH);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_text(s, 2, line, -1, SQLITE_TRANSIENT);
    return store_run(st, s);
}

bool store_forget_lobby_match(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_forget_lobby_match(st->pg, id);
    return delete_by_id(st, S_FORGET_LOBBY_MATCH, id);
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
    return store_run(st, s);
}

bool store_put_invite(struct store *st, uint64_t id, int seat, const char *invite)
{
    if (seat < 0)
        return true; /* both seats were taken at once (an accepted seek): nobody to invite */
    if (st->pg)
        return pg_put_invite(st->pg, id, seat, invite);
    sqlite3_stmt *s = store_prepared(st, S_INSERT_INVITE);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, seat);
    sqlite3_bind_text(s, 3, invite, -1, SQLITE_TRANSIENT);
    return store_run(st, s);
}

bool store_delete_invite(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_delete_invite(st->pg, id);
    return run_for_match(st, S_DELETE_INVITE, id);
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
    return store_run(st, s);
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
    return store_run(st, s);
}

bool store_clear_result(struct store *st, uint64_t id)
{
    if (st->pg)
        return pg_clear_result(st->pg, id);
    return run_for_match(st, S_DELETE_RESULT, id);
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
    return store_run(st, s);
}

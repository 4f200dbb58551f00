/* Reading one stored match (store.h): its rows, each checked for the shape it must have, so
 * that a damaged row or page is reported as damage, never served. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "common.h"
#include "store-private.h"
#include "store-pg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void stored_match_free(struct stored_match *m)
{
    free(m->spec);
    free(m->moves);
    free(m->kept_throws);
    memset(m, 0, sizeof *m);
}

static bool is_token(const unsigned char *t, int len)
{
    if (!t || len != TOKEN_HEX_LEN)
        return false;
    for (int i = 0; i < len; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
            return false;
    return true;
}

/* Ends a load that found damage: a SQLite error (a corrupt page) or rows that break the
 * schema's promises. */
static enum load_result damaged(struct store *st, sqlite3_stmt *s, struct stored_match *out,
                                char *why, size_t why_cap, const char *what, int rc)
{
    if (rc != SQLITE_ROW && rc != SQLITE_DONE && rc != SQLITE_OK) {
        store_failed(st, rc);
        snprintf(why, why_cap, "%s: database error: %s", what, st->last_error);
    } else {
        snprintf(why, why_cap, "%s", what);
    }
    if (s)
        sqlite3_reset(s);
    stored_match_free(out);
    return LOAD_DAMAGED;
}

enum load_result store_load_match(struct store *st, uint64_t id, struct stored_match *out,
                                  char *why, size_t why_cap)
{
    if (st->pg)
        return pg_load_match(st->pg, id, out, why, why_cap);
    memset(out, 0, sizeof *out);
    out->id = id;
    out->winner = -1;
    out->draw.by = -1;
    sqlite3_int64 key = (sqlite3_int64)id;

    sqlite3_stmt *s = store_prepared(st, S_IS_SET_ASIDE);
    if (!s)
        return damaged(st, NULL, out, why, why_cap, "set-aside table", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        snprintf(why, why_cap, "%s", (const char *)sqlite3_column_text(s, 0));
        sqlite3_reset(s);
        return LOAD_SET_ASIDE;
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "set-aside table", rc);
    sqlite3_reset(s);

    if (!(s = store_prepared(st, S_LOAD_MATCH)))
        return damaged(st, NULL, out, why, why_cap, "matches row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(s);
        return LOAD_NOT_FOUND;
    }
    if (rc != SQLITE_ROW || sqlite3_column_type(s, 0) != SQLITE_TEXT ||
        sqlite3_column_type(s, 1) != SQLITE_INTEGER || sqlite3_column_int64(s, 1) < 0)
        return damaged(st, s, out, why, why_cap, "matches row", rc);
    uint64_t plies = (uint64_t)sqlite3_column_int64(s, 1);
    out->spec = strdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_reset(s);
    if (!out->spec)
        return damaged(st, NULL, out, why, why_cap, "out of memory", SQLITE_NOMEM);

    if (!(s = store_prepared(st, S_LOAD_SEATS)))
        return damaged(st, NULL, out, why, why_cap, "seats rows", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    int seats = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 1);
        int seat = sqlite3_column_int(s, 0);
        if (seat != seats || !is_token(t, sqlite3_column_bytes(s, 1)))
            return damaged(st, s, out, why, why_cap, "seats rows are not two seat tokens", rc);
        memcpy(out->tokens[seat], t, TOKEN_HEX_LEN + 1);
        seats++;
    }
    if (rc != SQLITE_DONE || seats != 2)
        return damaged(st, s, out, why, why_cap, "seats rows are not two seat tokens", rc);

    if (!(s = store_prepared(st, S_LOAD_RESULT)))
        return damaged(st, NULL, out, why, why_cap, "results row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *reason = (const char *)sqlite3_column_text(s, 1);
        out->has_result = true;
        out->winner = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 0);
        out->by_resignation = reason && strcmp(reason, "resignation") == 0;
        sqlite3_int64 ply = sqlite3_column_int64(s, 2);
        if (!reason || (!out->by_resignation && strcmp(reason, "rules") != 0) || ply < 0 ||
            out->winner < -1 || out->winner > 1)
            return damaged(st, s, out, why, why_cap, "results row is malformed", rc);
        out->result_ply = (uint64_t)ply;
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "results row", rc);
    sqlite3_reset(s);

    out->clock.flagged = -1;
    if (!(s = store_prepared(st, S_LOAD_CLOCK)))
        return damaged(st, NULL, out, why, why_cap, "clocks row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        struct stored_clock *c = &out->clock;
        c->on = true;
        c->base_ms = sqlite3_column_int64(s, 0);
        c->increment_ms = sqlite3_column_int64(s, 1);
        c->left_ms[0] = sqlite3_column_int64(s, 2);
        c->left_ms[1] = sqlite3_column_int64(s, 3);
        c->started = sqlite3_column_int(s, 4) != 0;
        c->flagged = sqlite3_column_type(s, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 5);
        if (c->base_ms <= 0 || c->increment_ms < 0 || c->flagged < -1 || c->flagged > 1)
            return damaged(st, s, out, why, why_cap, "clocks row is malformed", rc);
        c->days = sqlite3_column_int(s, 6); /* 0: no correspondence row */
        if (c->days && sqlite3_column_type(s, 7) != SQLITE_NULL) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            c->used_ms = correspondence_used_ms(c, sqlite3_column_int64(s, 7),
                                                (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000);
        }
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "clocks row", rc);
    sqlite3_reset(s);

    if (!(s = store_prepared(st, S_LOAD_KEPT)))
        return damaged(st, NULL, out, why, why_cap, "kept_throws row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        if (!t || !(out->kept_throws = strdup((const char *)t)))
            return damaged(st, s, out, why, why_cap, "kept_throws row is malformed", rc);
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "kept_throws row", rc);
    sqlite3_reset(s);

    out->invite_seat = -1;
    if (!(s = store_prepared(st, S_LOAD_INVITE)))
        return damaged(st, NULL, out, why, why_cap, "invites row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 1);
        out->invite_seat = sqlite3_column_int(s, 0);
        if ((out->invite_seat != 0 && out->invite_seat != 1) ||
            !is_token(t, sqlite3_column_bytes(s, 1)))
            return damaged(st, s, out, why, why_cap, "invites row is malformed", rc);
        memcpy(out->invite, t, TOKEN_HEX_LEN + 1);
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "invites row", rc);
    sqlite3_reset(s);

    if (!(s = store_prepared(st, S_LOAD_ABORTED)))
        return damaged(st, NULL, out, why, why_cap, "aborted row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        out->aborted = true;
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "aborted row", rc);
    sqlite3_reset(s);

    /* An undo request made at another ply was ended by the change since: none is open. */
    if (!(s = store_prepared(st, S_LOAD_UNDO)))
        return damaged(st, NULL, out, why, why_cap, "undo_requests row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const unsigned char *answer = sqlite3_column_text(s, 3);
        int seat = sqlite3_column_int(s, 0);
        if (seat != 0 && seat != 1)
            return damaged(st, s, out, why, why_cap, "undo_requests row is malformed", rc);
        if ((uint64_t)sqlite3_column_int64(s, 1) == plies) {
            out->undo.seat = seat;
            out->undo.state = !answer                                   ? UNDO_OPEN
                              : strcmp((const char *)answer, "timeout") ? UNDO_DECLINED
                                                                        : UNDO_LAPSED;
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            int64_t age =
                (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000 - sqlite3_column_int64(s, 2);
            out->undo.age_ms = age > 0 ? age : 0;
        }
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "undo_requests row", rc);
    sqlite3_reset(s);

    if (!(s = store_prepared(st, S_LOAD_DRAW)))
        return damaged(st, NULL, out, why, why_cap, "draw_offers row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        int by = sqlite3_column_type(s, 0) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 0);
        int spent0 = sqlite3_column_int(s, 1), spent1 = sqlite3_column_int(s, 2);
        if (by < -1 || by > 1 || spent0 < 0 || spent0 > 1 || spent1 < 0 || spent1 > 1)
            return damaged(st, s, out, why, why_cap, "draw_offers row is malformed", rc);
        out->draw = (struct stored_draw){.by = by, .spent = {spent0 == 1, spent1 == 1}};
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "draw_offers row", rc);
    sqlite3_reset(s);

    if (!(s = store_prepared(st, S_LOAD_REMATCH)))
        return damaged(st, NULL, out, why, why_cap, "rematches row", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 rematch = sqlite3_column_int64(s, 0);
        if (rematch <= 0)
            return damaged(st, s, out, why, why_cap, "rematches row is malformed", rc);
        out->rematch = (uint64_t)rematch;
        rc = sqlite3_step(s);
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "rematches row", rc);
    sqlite3_reset(s);

    if (!(s = store_prepared(st, S_LOAD_MOVES)))
        return damaged(st, NULL, out, why, why_cap, "moves rows", st->last_code);
    sqlite3_bind_int64(s, 1, key);
    size_t cap = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct stored_move *grown =
            array_reserve(out->moves, &cap, out->move_count + 1, sizeof *grown, 64);
        if (!grown)
            return damaged(st, s, out, why, why_cap, "out of memory", SQLITE_NOMEM);
        out->moves = grown;
        struct stored_move *m = &out->moves[out->move_count];
        sqlite3_int64 ply = sqlite3_column_int64(s, 0), move = sqlite3_column_int64(s, 1);
        const unsigned char *name = sqlite3_column_text(s, 2);
        int name_len = sqlite3_column_bytes(s, 2);
        if (ply != (sqlite3_int64)out->move_count) {
            snprintf(why, why_cap, "moves rows: ply %zu is missing", out->move_count);
            return damaged(st, s, out, why, why_cap, why, SQLITE_OK);
        }
        if (move < 0 || move > UINT32_MAX || !name || name_len <= 0 || name_len >= NOTATION_MAX ||
            sqlite3_column_type(s, 3) != SQLITE_INTEGER) {
            snprintf(why, why_cap, "moves rows: ply %zu is malformed", out->move_count);
            return damaged(st, s, out, why, why_cap, why, SQLITE_OK);
        }
        m->move = (uint32_t)move;
        memcpy(m->notation, name, (size_t)name_len + 1);
        m->hash_after = store_as_unsigned(sqlite3_column_int64(s, 3));
        m->seat = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 4);
        out->move_count++;
    }
    if (rc != SQLITE_DONE)
        return damaged(st, s, out, why, why_cap, "moves rows", rc);
    if (out->move_count != plies) {
        snprintf(why, why_cap, "the match has %" PRIu64 " plies but %zu moves rows", plies,
                 out->move_count);
        return damaged(st, s, out, why, why_cap, why, SQLITE_OK);
    }
    sqlite3_reset(s);
    return LOAD_FOUND;
}

/* The PostgreSQL store's writes (store-pg.h): one function for each of store.h's, each a
 * prepared statement (store-pg.c) inside the round's transaction. */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"
#include "common.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pg_u64_text(char out[NUM_TEXT], uint64_t v)
{
    snprintf(out, NUM_TEXT, "%" PRIu64, v);
    return out;
}

const char *pg_i64_text(char out[NUM_TEXT], int64_t v)
{
    snprintf(out, NUM_TEXT, "%" PRId64, v);
    return out;
}

/* One row changed, or the match's own row is gone. */
static bool run_one_row(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values,
                        const char *what)
{
    PGresult *r = pg_run(pg, id, n, values);
    if (!r)
        return false;
    bool one = strcmp(PQcmdTuples(r), "1") == 0;
    PQclear(r);
    return one || pg_fail(pg, "%s", what);
}

bool pg_insert_match(struct pg_store *pg, uint64_t wanted_id, const char *spec,
                     const char tokens[2][TOKEN_HEX_LEN + 1], uint64_t *id)
{
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT];
    const char *v[] = {spec, pg_u64_text(a, wanted_id)};
    PGresult *r = pg_run(pg, wanted_id ? P_INSERT_MATCH_ID : P_INSERT_MATCH, wanted_id ? 2 : 1, v);
    if (!r)
        return false;
    *id = PQntuples(r) == 1 ? strtoull(PQgetvalue(r, 0, 0), NULL, 10) : 0;
    PQclear(r);
    if (!*id)
        return pg_fail(pg, "the new match got no id");
    if (wanted_id && !pg_run_done(pg, P_FIX_SEQUENCE, 0, NULL))
        return false;
    for (int seat = 0; seat < 2; seat++) {
        const char *s[] = {pg_u64_text(a, *id), seat ? "1" : "0", tokens[seat]};
        if (!pg_run_done(pg, P_INSERT_SEAT, 3, s))
            return false;
    }
    /* The server that makes a match plays it. */
    const char *l[] = {pg_u64_text(a, *id), pg->owner, pg_u64_text(c, pg->lease_ms)};
    (void)b;
    return pg_run_done(pg, P_INSERT_LEASE, 3, l);
}

bool pg_insert_move(struct pg_store *pg, uint64_t id, uint64_t ply, const struct stored_move *m)
{
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT], d[NUM_TEXT];
    int64_t hash;
    memcpy(&hash, &m->hash_after, sizeof hash); /* all 64 bits, in a signed column */
    const char *v[] = {pg_u64_text(a, id),      pg_u64_text(b, ply),
                       pg_u64_text(c, m->move), m->notation,
                       pg_i64_text(d, hash),    m->seat < 0 ? NULL : m->seat ? "1" : "0"};
    return pg_run_done(pg, P_INSERT_MOVE, 6, v);
}

bool pg_set_plies(struct pg_store *pg, uint64_t id, uint64_t plies)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), pg_u64_text(b, plies)};
    return run_one_row(pg, P_SET_PLIES, 2, v, "the matches row is missing");
}

/* An array literal's element for a move name: quoted, its quotes and backslashes escaped. */
static bool quoted(struct buf *b, const char *text)
{
    bool ok = buf_append(b, "\"", 1);
    for (const char *p = text; ok && *p; p++) {
        if (*p == '"' || *p == '\\')
            ok = buf_append(b, "\\", 1);
        ok = ok && buf_append(b, p, 1);
    }
    return ok && buf_append(b, "\"", 1);
}

bool pg_add_moves(struct pg_store *pg, uint64_t id, uint64_t first, const struct stored_move *m,
                  size_t n, uint64_t plies)
{
    if (n == 0)
        return pg_set_plies(pg, id, plies);
    struct buf arrays[4] = {{0}};
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        int64_t hash;
        memcpy(&hash, &m[i].hash_after, sizeof hash); /* all 64 bits, in a signed column */
        const char *sep = i ? "," : "{";
        ok = buf_printf(&arrays[0], "%s%" PRIu32, sep, m[i].move) &&
             buf_append(&arrays[1], sep, 1) && quoted(&arrays[1], m[i].notation) &&
             buf_printf(&arrays[2], "%s%" PRId64, sep, hash) &&
             buf_printf(&arrays[3], "%s%s", sep,
                        m[i].seat < 0 ? "NULL"
                        : m[i].seat   ? "1"
                                      : "0");
    }
    for (int k = 0; ok && k < 4; k++)
        ok = buf_append(&arrays[k], "}", 1); /* buf keeps its text NUL-terminated */
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id),   pg_u64_text(b, first), arrays[0].data,
                       arrays[1].data,       arrays[2].data,        arrays[3].data,
                       pg_u64_text(c, plies)};
    ok = ok ? run_one_row(pg, P_ADD_MOVES, 7, v, "the matches row is missing")
            : pg_fail(pg, "out of memory");
    for (int k = 0; k < 4; k++)
        free(arrays[k].data);
    return ok;
}

bool pg_delete_moves_from(struct pg_store *pg, uint64_t id, uint64_t ply)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), pg_u64_text(b, ply)};
    return pg_run_done(pg, P_DELETE_MOVES, 2, v);
}

bool pg_set_result(struct pg_store *pg, uint64_t id, int winner, bool by_resignation, uint64_t ply,
                   int score0, int score1)
{
    char a[NUM_TEXT], b[NUM_TEXT], c[NUM_TEXT], d[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id),
                       winner < 0 ? NULL
                       : winner   ? "1"
                                  : "0",
                       by_resignation ? "resignation" : "rules",
                       pg_u64_text(b, ply),
                       pg_i64_text(c, score0),
                       pg_i64_text(d, score1)};
    return pg_run_done(pg, P_INSERT_RESULT, 6, v);
}

static bool by_id(struct pg_store *pg, enum pg_stmt stmt, uint64_t id)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    return pg_run_done(pg, stmt, 1, v);
}

bool pg_clear_result(struct pg_store *pg, uint64_t id)
{
    return by_id(pg, P_DELETE_RESULT, id);
}

bool pg_put_kept_throws(struct pg_store *pg, uint64_t id, const char *notations)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), notations};
    return pg_run_done(pg, notations ? P_PUT_KEPT : P_DELETE_KEPT, notations ? 2 : 1, v);
}

bool pg_put_invite(struct pg_store *pg, uint64_t id, int seat, const char *invite)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), seat ? "1" : "0", invite};
    return pg_run_done(pg, P_INSERT_INVITE, 3, v);
}

bool pg_delete_invite(struct pg_store *pg, uint64_t id)
{
    return by_id(pg, P_DELETE_INVITE, id);
}

bool pg_set_aborted(struct pg_store *pg, uint64_t id)
{
    return by_id(pg, P_INSERT_ABORTED, id);
}

bool pg_put_clock(struct pg_store *pg, uint64_t id, const struct stored_clock *c)
{
    char a[NUM_TEXT], b[NUM_TEXT], d[NUM_TEXT], e[NUM_TEXT], f[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id),
                       pg_i64_text(b, c->base_ms),
                       pg_i64_text(d, c->increment_ms),
                       pg_i64_text(e, c->left_ms[0]),
                       pg_i64_text(f, c->left_ms[1]),
                       c->started ? "true" : "false",
                       c->flagged < 0 ? NULL
                       : c->flagged   ? "1"
                                      : "0"};
    if (!pg_run_done(pg, P_PUT_CLOCK, 7, v))
        return false;
    if (!c->days)
        return true;
    char days[NUM_TEXT], left[NUM_TEXT];
    /* The deadline from the database's clock (P_PUT_DEADLINE): the one the scans compare. */
    const char *w[] = {a, pg_i64_text(days, c->days),
                       c->flagged < 0 && !c->no_deadline
                           ? pg_i64_text(left, correspondence_left_ms(c))
                           : NULL,
                       c->to_move == 0   ? "0"
                       : c->to_move == 1 ? "1"
                                         : NULL};
    return pg_run_done(pg, P_PUT_DEADLINE, 4, w);
}

bool pg_put_undo_request(struct pg_store *pg, uint64_t id, int seat, uint64_t ply)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), seat ? "1" : "0", pg_u64_text(b, ply)};
    return pg_run_done(pg, P_PUT_UNDO, 3, v);
}

bool pg_end_undo_request(struct pg_store *pg, uint64_t id, enum undo_state how)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), how == UNDO_LAPSED ? "timeout" : "declined"};
    return pg_run_done(pg, how == UNDO_NONE ? P_DELETE_UNDO : P_END_UNDO, how == UNDO_NONE ? 1 : 2,
                       v);
}

bool pg_offer_draw(struct pg_store *pg, uint64_t id, int seat)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), seat ? "1" : "0"};
    return pg_run_done(pg, P_OFFER_DRAW, 2, v);
}

bool pg_draw_decided(struct pg_store *pg, uint64_t id, bool ended, const bool decided[2])
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), decided[0] ? "true" : "false",
                       decided[1] ? "true" : "false", ended ? "true" : "false"};
    return pg_run_done(pg, P_DRAW_DECIDED, 4, v);
}

bool pg_forget_draw(struct pg_store *pg, uint64_t id)
{
    return by_id(pg, P_FORGET_DRAW, id);
}

bool pg_put_lobby_match(struct pg_store *pg, uint64_t id, const char *line)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), line};
    return pg_run_done(pg, P_PUT_LOBBY_MATCH, 2, v);
}

bool pg_forget_lobby_match(struct pg_store *pg, uint64_t id)
{
    return by_id(pg, P_FORGET_LOBBY_MATCH, id);
}

bool pg_set_aside(struct pg_store *pg, uint64_t id, const char *reason)
{
    if (pg_in_transaction(pg) || !pg_connected(pg))
        return false; /* only between rounds, like SQLite's */
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), reason};
    return pg_run_done(pg, P_SET_ASIDE, 2, v);
}

/* The lobby's seeks on PostgreSQL (store.h, "the lobby's seeks"): the seeks table, the
 * channel tg_lobby on which every server hears of seeks made and gone and of matches started
 * and ended, and the taking of a seek inside the match's own change. The feed has a
 * connection of its own: the store's connection hears the matches' channels, and what it
 * hears is the store's (store-pg-leases.c). The feed reads and tells on the loop; the writes
 * (pg_add_seek, pg_remove_seeks, pg_sweep_seeks) are made on a database thread's store
 * connection (db-pool.c), never the feed's. Payloads begin with the sending server's name, so
 * that a server skips its own. */
#define _POSIX_C_SOURCE 200809L

#include "common.h"
#include "store-pg-private.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lobby_feed {
    PGconn *conn;
};

/* What the feed still runs on the loop is reads of committed rows and notices (lobby-site.c), none
 * of which waits for a row lock; the limits bound what else could make the loop wait (a table
 * locked whole by a migration, a slow database) as on the store's connections (store-pg.c). */
#define FEED_SESSION "SET lock_timeout = 250; SET statement_timeout = 3000; LISTEN tg_lobby"

#define SEEK_COLUMNS                                                                               \
    "id, instance, owner_serial, coalesce(owner_account, 0), owner_name, "                         \
    "coalesce(target_account, 0), target_name, spec, clock, rated, min_rating, max_rating, "       \
    "rating, provisional"

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

struct lobby_feed *lobby_feed_open(const char *conninfo, char *err, size_t err_cap)
{
    struct lobby_feed *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    const char *const keys[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
    const char *const values[] = {"5", "tg-server lobby", conninfo, NULL};
    f->conn = PQconnectdbParams(keys, values, 1);
    PGresult *r = NULL;
    if (f->conn && PQstatus(f->conn) == CONNECTION_OK) {
        PQsetNoticeProcessor(f->conn, ignore_notice, NULL);
        r = PQexec(f->conn, FEED_SESSION);
    }
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
        snprintf(err, err_cap, "the lobby's connection: %s",
                 f->conn ? PQerrorMessage(f->conn) : "out of memory");
        PQclear(r);
        lobby_feed_close(f);
        return NULL;
    }
    PQclear(r);
    return f;
}

void lobby_feed_close(struct lobby_feed *f)
{
    if (!f)
        return;
    PQfinish(f->conn);
    free(f);
}

/* Runs a statement; its result if it ran (rows or not), else NULL. A lost connection is made
 * again once (its LISTEN too) for the next call. */
static PGresult *run(struct lobby_feed *f, const char *sql, int n, const char *const *values)
{
    if (PQstatus(f->conn) != CONNECTION_OK) {
        PQreset(f->conn);
        PGresult *l = PQstatus(f->conn) == CONNECTION_OK ? PQexec(f->conn, FEED_SESSION) : NULL;
        PQclear(l);
        if (PQstatus(f->conn) != CONNECTION_OK)
            return NULL;
    }
    PGresult *r = PQexecParams(f->conn, sql, n, NULL, values, NULL, NULL, 0);
    ExecStatusType status = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
        PQclear(r);
        return NULL;
    }
    return r;
}

static bool run_done(struct lobby_feed *f, const char *sql, int n, const char *const *values)
{
    PGresult *r = run(f, sql, n, values);
    PQclear(r);
    return r != NULL;
}

bool lobby_feed_notify(struct lobby_feed *f, const char *payload)
{
    const char *v[] = {payload};
    return run_done(f, "SELECT pg_notify('tg_lobby', $1)", 1, v);
}

static void read_seek(PGresult *r, int row, struct stored_seek *s)
{
    memset(s, 0, sizeof *s);
    s->id = strtoull(PQgetvalue(r, row, 0), NULL, 10);
    snprintf(s->instance, sizeof s->instance, "%s", PQgetvalue(r, row, 1));
    s->owner_serial = strtoull(PQgetvalue(r, row, 2), NULL, 10);
    s->owner_account = strtoull(PQgetvalue(r, row, 3), NULL, 10);
    snprintf(s->owner_name, sizeof s->owner_name, "%s", PQgetvalue(r, row, 4));
    s->target_account = strtoull(PQgetvalue(r, row, 5), NULL, 10);
    snprintf(s->target_name, sizeof s->target_name, "%s", PQgetvalue(r, row, 6));
    snprintf(s->spec, sizeof s->spec, "%s", PQgetvalue(r, row, 7));
    snprintf(s->clock_text, sizeof s->clock_text, "%s", PQgetvalue(r, row, 8));
    s->rated = strcmp(PQgetvalue(r, row, 9), "t") == 0;
    s->min = atoi(PQgetvalue(r, row, 10));
    s->max = atoi(PQgetvalue(r, row, 11));
    s->rating = strtod(PQgetvalue(r, row, 12), NULL);
    s->provisional = strcmp(PQgetvalue(r, row, 13), "t") == 0;
}

bool lobby_feed_get_seek(struct lobby_feed *f, uint64_t id, struct stored_seek *out, bool *failed)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id)};
    PGresult *r = run(f, "SELECT " SEEK_COLUMNS " FROM seeks WHERE id = $1", 1, v);
    *failed = !r;
    bool found = r && PQntuples(r) == 1;
    if (found)
        read_seek(r, 0, out);
    PQclear(r);
    return found;
}

bool lobby_feed_each_seek(struct lobby_feed *f, void (*each)(const struct stored_seek *, void *),
                          void *ctx)
{
    PGresult *r = run(f, "SELECT " SEEK_COLUMNS " FROM seeks ORDER BY id", 0, NULL);
    for (int i = 0; r && i < PQntuples(r); i++) {
        struct stored_seek s;
        read_seek(r, i, &s);
        each(&s, ctx);
    }
    PQclear(r);
    return r != NULL;
}

bool lobby_feed_take(struct lobby_feed *f, void (*each)(const char *, void *), void *ctx)
{
    if (PQstatus(f->conn) != CONNECTION_OK || !PQconsumeInput(f->conn))
        return false;
    for (PGnotify *n; (n = PQnotifies(f->conn)) != NULL; PQfreemem(n))
        if (n->extra)
            each(n->extra, ctx);
    return true;
}

bool pg_tell_site(struct pg_store *pg, const char *notice)
{
    const char *v[] = {notice};
    return pg_run_done(pg, P_TELL_SITE, 1, v);
}

bool pg_take_seek(struct pg_store *pg, uint64_t id, const char *notice, bool *taken)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), notice};
    PGresult *r = pg_run(pg, P_TAKE_SEEK, 2, v);
    if (!r)
        return false;
    *taken = PQntuples(r) == 1;
    PQclear(r);
    if (!*taken)
        return pg_fail(pg, "seek %" PRIu64 " was taken through another server", id);
    return true;
}

bool pg_add_seek(struct pg_store *pg, struct stored_seek *s)
{
    char serial[NUM_TEXT], owner[NUM_TEXT], target[NUM_TEXT], min[NUM_TEXT], max[NUM_TEXT],
        rating[64];
    snprintf(rating, sizeof rating, "%.17g", s->rating);
    const char *v[] = {s->instance,
                       pg_u64_text(serial, s->owner_serial),
                       s->owner_account ? pg_u64_text(owner, s->owner_account) : NULL,
                       s->owner_name,
                       s->target_account ? pg_u64_text(target, s->target_account) : NULL,
                       s->target_name,
                       s->spec,
                       s->clock_text,
                       s->rated ? "t" : "f",
                       pg_i64_text(min, s->min),
                       pg_i64_text(max, s->max),
                       rating,
                       s->provisional ? "t" : "f"};
    if (!pg_connected(pg))
        return false;
    PGresult *r = pg_run(pg, P_ADD_SEEK, 13, v);
    bool made = r && PQntuples(r) == 1;
    if (made)
        s->id = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return made;
}

bool pg_remove_seeks(struct pg_store *pg, const char *instance, const uint64_t *ids, size_t count,
                     const char *why, enum seek_removal *outcome)
{
    /* The ids as a PostgreSQL array, {1,2,3}. */
    struct buf list = {0};
    buf_append(&list, "{", 1);
    for (size_t i = 0; i < count; i++)
        buf_printf(&list, "%s%" PRIu64, i ? "," : "", ids[i]);
    buf_append(&list, "}", 1);
    const char *v[] = {list.data, instance, why};
    PGresult *r = list.data && pg_connected(pg) ? pg_run(pg, P_REMOVE_SEEKS, 3, v) : NULL;
    free(list.data);
    if (!r)
        return false;
    for (size_t i = 0; i < count; i++)
        outcome[i] = SEEK_ABSENT;
    for (int row = 0; row < PQntuples(r); row++) {
        uint64_t id = strtoull(PQgetvalue(r, row, 0), NULL, 10);
        bool removed = strcmp(PQgetvalue(r, row, 1), "removed") == 0;
        for (size_t i = 0; i < count; i++)
            if (ids[i] == id)
                outcome[i] = removed ? SEEK_REMOVED : SEEK_HELD;
    }
    PQclear(r);
    return true;
}

bool pg_sweep_seeks(struct pg_store *pg, const char *sweeper, double lifetime, double gone_after)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%.3f", lifetime);
    snprintf(b, sizeof b, "%.3f", gone_after);
    const char *v[] = {sweeper, a, b};
    return pg_connected(pg) && pg_run_done(pg, P_SWEEP_SEEKS, 3, v);
}

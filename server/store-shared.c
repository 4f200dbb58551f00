/* The store's part in several servers sharing one database (store.h): PostgreSQL's leases and
 * notifications; on SQLite, which one server has to itself, each is a no-op. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-pg.h"
#include "store-private.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

bool store_names_postgres(const char *db)
{
    return pg_is_conninfo(db);
}

bool store_is_shared(const struct store *st)
{
    return st->pg != NULL;
}

const char *store_owner(const struct store *st)
{
    return st->pg ? pg_owner(st->pg) : "";
}

void store_set_lease(struct store *st, unsigned lease_ms)
{
    if (st->pg)
        pg_set_lease(st->pg, lease_ms);
}

enum claim_result store_claim(struct store *st, uint64_t id, uint64_t version, bool bump)
{
    return st->pg ? pg_claim(st->pg, id, version, bump) : CLAIM_OK;
}

void store_release(struct store *st, uint64_t id)
{
    if (st && st->pg)
        pg_release(st->pg, id);
}

void store_keep_lease(struct store *st, uint64_t id)
{
    if (st && st->pg)
        pg_keep_lease(st->pg, id);
}

struct store *store_open_sibling(const struct store *of, char *err, size_t err_cap)
{
    if (!of->pg) {
        snprintf(err, err_cap, "only a PostgreSQL store has a sibling connection");
        return NULL;
    }
    struct store *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    if (!(st->pg = pg_open_sibling(of->pg, err, err_cap))) {
        free(st);
        return NULL;
    }
    return st;
}

bool store_leases_tick(struct store *st)
{
    return !st->pg || pg_leases_tick(st->pg);
}

bool store_expired_leases(struct store *st, uint64_t *ids, size_t max, size_t *count)
{
    *count = 0;
    return !st->pg || pg_expired_leases(st->pg, ids, max, count);
}

int store_notify_fd(const struct store *st)
{
    return st->pg ? pg_notify_fd(st->pg) : -1;
}

void store_want(struct store *st, uint64_t id)
{
    if (st->pg)
        pg_want(st->pg, id);
}

bool store_take_notifications(struct store *st, void (*each)(uint64_t, uint64_t, void *),
                              bool (*wanted)(uint64_t, void *), void *ctx, bool *missed)
{
    *missed = false;
    return !st->pg || pg_take_notifications(st->pg, each, wanted, ctx, missed);
}

bool store_versions(struct store *st, const uint64_t *ids, size_t n, uint64_t *versions)
{
    for (size_t i = 0; i < n; i++)
        versions[i] = 0;
    return !st->pg || pg_versions(st->pg, ids, n, versions);
}

bool store_site_poll(struct store *st, uint64_t clients, uint64_t loaded, unsigned alive_ms,
                     struct site_counts *out)
{
    return st->pg && pg_site_poll(st->pg, clients, loaded, alive_ms, out);
}

enum admit_result store_admit_match(struct store *st, uint64_t max, bool may_wait)
{
    return st->pg ? pg_admit_match(st->pg, max, may_wait) : ADMIT_OK;
}

bool store_find_rematch(struct store *st, uint64_t of, uint64_t *id)
{
    *id = 0;
    return !st->pg || pg_find_rematch(st->pg, of, id);
}

bool store_last_was_conflict(const struct store *st)
{
    return st->pg && pg_last_was_conflict(st->pg);
}

bool store_last_was_lock_wait(const struct store *st)
{
    return st->pg && pg_last_was_lock_wait(st->pg);
}

bool store_tell_site(struct store *st, const char *notice)
{
    return !st->pg || pg_tell_site(st->pg, notice);
}

bool store_take_seek(struct store *st, uint64_t id, const char *notice, bool *taken)
{
    *taken = true;
    return !st->pg || pg_take_seek(st->pg, id, notice, taken);
}

bool store_add_seek(struct store *st, struct stored_seek *s)
{
    return st->pg && pg_add_seek(st->pg, s);
}

bool store_remove_seeks(struct store *st, const char *instance, const uint64_t *ids, size_t count,
                        const char *why, enum seek_removal *outcome)
{
    return st->pg && pg_remove_seeks(st->pg, instance, ids, count, why, outcome);
}

bool store_sweep_seeks(struct store *st, const char *sweeper, double lifetime, double gone_after)
{
    return st->pg && pg_sweep_seeks(st->pg, sweeper, lifetime, gone_after);
}

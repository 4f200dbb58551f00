/* The loop's own database work on a shared database, on threads with connections of their own
 * (docs/server.md, "Concurrency: nothing blocks the loop"): the take-over claim of a match whose
 * server stopped renewing its lease (follow.c), the account writes (accounts.c), the lobby's
 * writes (lobby-write.c: seeks stored and withdrawn, the sweeps), the loads' reads of a match's
 * rows (load-read.c), and two of the once-a-second passes: the correspondence scan (clock.c) and
 * the ends of expired matches not loaded (match.c), one job of each at a time. A statement there
 * may wait for another session's lock up to lock_timeout, or for a slow database up to
 * statement_timeout; the loop meanwhile serves everyone else and hears of the result through the
 * wake-up pipe, as of any worker's job. The jobs go through a pool (pool.h), so that one address's
 * account writes take turns with everyone else's; each worker takes a connection of its own for a
 * job, one per thread, so none is ever shared. Nothing here runs on SQLite, whose writes stay
 * between the loop's rounds. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two: a job held by another server's lock (lock_timeout at most) leaves one thread for the
 * rest. Jobs beyond DB_QUEUE_MAX waiting are refused `err overloaded`. */
#define DB_THREADS 2
#define DB_QUEUE_MAX 1024

struct db_pool {
    struct pool *workers;
    pthread_mutex_t lock;
    struct store *stores[DB_THREADS];
    bool in_use[DB_THREADS]; /* under lock */
    size_t opened;
};

/* One connection no other worker holds: there are as many as threads, so one is always free. */
static struct store *take_store(struct db_pool *db, size_t *slot)
{
    struct store *st = NULL;
    pthread_mutex_lock(&db->lock);
    for (size_t i = 0; i < db->opened && !st; i++)
        if (!db->in_use[i]) {
            db->in_use[i] = true;
            *slot = i;
            st = db->stores[i];
        }
    pthread_mutex_unlock(&db->lock);
    return st;
}

static void give_store(struct db_pool *db, size_t slot)
{
    pthread_mutex_lock(&db->lock);
    db->in_use[slot] = false;
    pthread_mutex_unlock(&db->lock);
}

static void work_db(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    size_t slot = 0;
    struct store *st = take_store(j->db, &slot);
    if (!st) /* not while threads == connections; the job's result stays "failed" */
        return;
    j->db_work(j, st);
    give_store(j->db, slot);
}

static void close_stores(struct db_pool *db)
{
    for (size_t i = 0; i < db->opened; i++)
        store_close(db->stores[i]);
    pthread_mutex_destroy(&db->lock);
    free(db);
}

bool db_pool_start(struct server *sv, char *err, size_t err_cap)
{
    if (!store_is_shared(sv->store))
        return true;
    struct db_pool *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, err_cap, "out of memory");
        return false;
    }
    pthread_mutex_init(&db->lock, NULL);
    for (; db->opened < DB_THREADS; db->opened++)
        if (!(db->stores[db->opened] = store_open_sibling(sv->store, err, err_cap))) {
            close_stores(db);
            return false;
        }
    if (!(db->workers = pool_new(DB_THREADS, DB_QUEUE_MAX, sv->wake_write))) {
        snprintf(err, err_cap, "cannot start the database threads");
        close_stores(db);
        return false;
    }
    sv->db_pool = db;
    return true;
}

void db_pool_stop(struct server *sv)
{
    struct db_pool *db = sv->db_pool;
    if (!db)
        return;
    struct pool_job *left = NULL;
    /* A job is one statement or a short transaction, each bounded by statement_timeout. */
    if (!pool_stop(db->workers, STOP_WAIT_SECONDS + 3.0, &left))
        return; /* a worker is still inside a statement: its connection is left to the exit */
    for (struct pool_job *pj = left, *next; pj; pj = next) {
        next = pj->next;
        job_free((struct job *)pj);
    }
    close_stores(db);
    sv->db_pool = NULL;
}

bool db_submit(struct server *sv, struct client *c, struct job *j)
{
    j->kind = JOB_DB;
    j->base.work = work_db;
    j->db = sv->db_pool;
    if (c) /* one connection has one job at a time; its address takes turns with the others */
        return job_submit(sv->db_pool->workers, c, j, 0);
    return pool_submit(sv->db_pool->workers, &j->base, "", 0) == POOL_QUEUED;
}

struct pool *db_pool_workers(const struct server *sv)
{
    return sv->db_pool ? sv->db_pool->workers : NULL;
}

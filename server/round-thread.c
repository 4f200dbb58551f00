/* The round's transaction on threads of its own, each with its own database connection, on a
 * shared database (docs/server.md, "Concurrency: nothing blocks the loop"). The loop gathers
 * the changes to stored matches and shares them out among the round threads that are free
 * (while none is, the changes gather into larger batches); a thread writes each change's rows
 * in a savepoint and commits, waiting for the database's locks and answers as long as it
 * must; a byte on the wake-up pipe then tells the loop, which applies the committed changes
 * to memory and answers them. Several threads, so that a batch held by another server's lock
 * (a frozen server's, up to lock_timeout a change) does not hold the changes to other matches
 * gathered after it; the batches touch different matches (a match is busy while its change
 * is staged), so their transactions never wait for each other. New matches (`new`,
 * `rematch`, an accepted seek) go in a lane of their own: all those gathered in one batch, and
 * one such batch in flight at a time, since each takes the site's admission lock (tg_admit)
 * to its commit and two of this server's batches would only wait for each other there. The
 * loop never waits for a thread, except when the server stops. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUND_THREADS 4

struct batch {
    struct change *changes;
    size_t count, cap;
};

struct round_worker {
    struct round_thread *rt;
    pthread_t thread;
    pthread_cond_t work_came;
    struct store *store; /* the thread's own connection, as this server */
    struct batch flight; /* the thread's from the hand-over until it is done */
    bool in_flight;      /* the loop's: a batch was handed over and not yet applied */
    bool admitting;      /* the loop's: that batch is the lane of new matches */
    bool has_work, done; /* under rt->lock */
    /* Written by the thread before it says done, read by the loop after. */
    bool committed;
    double commit_seconds;
    char why[300];
};

struct round_thread {
    pthread_mutex_t lock;
    bool stopping; /* under lock */
    int wake_fd;
    uint64_t max_matches;
    struct batch gathering; /* the loop's: staged since the last hand-over */
    struct batch admitting; /* the loop's: new matches staged, for the lane's next batch */
    struct round_worker workers[ROUND_THREADS];
    size_t started;
};

/* Stages every change of the batch in one transaction and commits it. */
static void write_batch(struct round_worker *w)
{
    struct batch *b = &w->flight;
    for (size_t i = 0; i < b->count; i++) {
        struct change *ch = &b->changes[i];
        stage_rows(w->store, ch, w->rt->max_matches, !store_in_transaction(w->store));
        if (ch->rows.outcome == CHANGE_ROUND_LOST) /* the ones kept before went with it */
            for (size_t k = 0; k < i; k++)
                b->changes[k].failed = true;
    }
    double t0 = monotonic_seconds();
    w->committed = store_commit_round(w->store);
    w->commit_seconds = monotonic_seconds() - t0;
    w->why[0] = '\0';
    if (!w->committed)
        snprintf(w->why, sizeof w->why, "%s", store_error(w->store));
}

static void *run(void *arg)
{
    struct round_worker *w = arg;
    struct round_thread *rt = w->rt;
    pthread_mutex_lock(&rt->lock);
    for (;;) {
        while (!w->has_work && !rt->stopping)
            pthread_cond_wait(&w->work_came, &rt->lock);
        if (!w->has_work)
            break;
        w->has_work = false;
        pthread_mutex_unlock(&rt->lock);
        write_batch(w);
        pthread_mutex_lock(&rt->lock);
        w->done = true;
        /* A full pipe already holds a wake-up, so a failed write loses nothing. */
        ssize_t ignored = write(rt->wake_fd, "r", 1);
        (void)ignored;
    }
    pthread_mutex_unlock(&rt->lock);
    return NULL;
}

static void discard_batch(struct server *sv, struct batch *b)
{
    for (size_t i = 0; i < b->count; i++)
        change_discard(sv, &b->changes[i]);
    free(b->changes);
}

void round_thread_stop(struct server *sv)
{
    struct round_thread *rt = sv->round_thread;
    if (!rt)
        return;
    pthread_mutex_lock(&rt->lock);
    rt->stopping = true;
    for (size_t i = 0; i < rt->started; i++)
        pthread_cond_signal(&rt->workers[i].work_came);
    pthread_mutex_unlock(&rt->lock);
    for (size_t i = 0; i < rt->started; i++) {
        struct round_worker *w = &rt->workers[i];
        pthread_join(w->thread, NULL);
        discard_batch(sv, &w->flight); /* never answered: the clients are gone with the server */
        store_close(w->store);
        pthread_cond_destroy(&w->work_came);
    }
    discard_batch(sv, &rt->gathering);
    discard_batch(sv, &rt->admitting);
    pthread_mutex_destroy(&rt->lock);
    free(rt);
    sv->round_thread = NULL;
}

bool round_thread_start(struct server *sv, char *err, size_t err_cap)
{
    if (!store_is_shared(sv->store))
        return true;
    struct round_thread *rt = calloc(1, sizeof *rt);
    if (!rt) {
        snprintf(err, err_cap, "out of memory");
        return false;
    }
    rt->wake_fd = sv->wake_write;
    rt->max_matches = sv->opt.max_matches;
    pthread_mutex_init(&rt->lock, NULL);
    sv->round_thread = rt;
    for (size_t i = 0; i < ROUND_THREADS; i++) {
        struct round_worker *w = &rt->workers[i];
        w->rt = rt;
        if (!(w->store = store_open_sibling(sv->store, err, err_cap)))
            break;
        pthread_cond_init(&w->work_came, NULL);
        if (pthread_create(&w->thread, NULL, run, w) != 0) {
            snprintf(err, err_cap, "cannot start the round's threads");
            pthread_cond_destroy(&w->work_came);
            store_close(w->store);
            break;
        }
        rt->started++;
    }
    if (rt->started == ROUND_THREADS)
        return true;
    round_thread_stop(sv);
    return false;
}

bool round_thread_take(struct server *sv, struct change *ch)
{
    struct round_thread *rt = sv->round_thread;
    struct batch *b = ch->kind == CH_NEW ? &rt->admitting : &rt->gathering;
    struct change *grown = array_reserve(b->changes, &b->cap, b->count + 1, sizeof *grown, 32);
    if (!grown)
        return false;
    b->changes = grown;
    b->changes[b->count++] = *ch;
    return true;
}

bool round_thread_waiting(const struct server *sv)
{
    const struct round_thread *rt = sv->round_thread;
    if (!rt)
        return false;
    for (size_t i = 0; i < rt->started; i++)
        if (rt->workers[i].in_flight)
            return true;
    return rt->gathering.count > 0 || rt->admitting.count > 0;
}

size_t round_thread_news(const struct server *sv)
{
    const struct round_thread *rt = sv->round_thread;
    if (!rt)
        return 0;
    size_t news = rt->admitting.count;
    for (size_t i = 0; i < rt->started; i++)
        if (rt->workers[i].in_flight && rt->workers[i].admitting)
            news += rt->workers[i].flight.count;
    return news;
}

struct change *round_thread_last(struct server *sv)
{
    struct batch *b = sv->round_thread ? &sv->round_thread->gathering : NULL;
    return b && b->count ? &b->changes[b->count - 1] : NULL;
}

/* A batch done: refusals answered, then the committed changes applied and answered, in the
 * order they were staged. */
static void apply_batch(struct server *sv, struct round_worker *w)
{
    struct batch *b = &w->flight;
    if (b->count)
        metrics_commit(sv, w->commit_seconds);
    if (!w->committed)
        fprintf(stderr, "tg-server: a commit failed: %s\n", w->why);
    for (size_t i = 0; i < b->count; i++) {
        struct change *ch = &b->changes[i];
        if (ch->rows.outcome != CHANGE_KEPT)
            stage_settle(sv, ch);
        else
            apply_change(sv, ch, w->committed, w->why);
    }
    b->count = 0;
    write_set_aside_marks(sv);
}

/* Hands the worker its share of the changes gathered in `source`, from..to. False: out of
 * memory (the changes stay gathered for the next turn). */
static bool hand_over(struct round_thread *rt, struct round_worker *w, const struct batch *source,
                      size_t from, size_t to)
{
    struct batch *b = &w->flight;
    struct change *grown = array_reserve(b->changes, &b->cap, to - from, sizeof *grown, 32);
    if (!grown)
        return false;
    b->changes = grown;
    memcpy(b->changes, source->changes + from, (to - from) * sizeof *grown);
    b->count = to - from;
    w->in_flight = true;
    w->admitting = source == &rt->admitting;
    pthread_mutex_lock(&rt->lock);
    w->has_work = true;
    pthread_cond_signal(&w->work_came);
    pthread_mutex_unlock(&rt->lock);
    return true;
}

void round_thread_turn(struct server *sv)
{
    struct round_thread *rt = sv->round_thread;
    struct round_worker *idle[ROUND_THREADS];
    size_t idle_count = 0;
    for (size_t i = 0; i < rt->started; i++) {
        struct round_worker *w = &rt->workers[i];
        if (w->in_flight) {
            pthread_mutex_lock(&rt->lock);
            bool done = w->done;
            w->done = false;
            pthread_mutex_unlock(&rt->lock);
            if (!done)
                continue;
            w->in_flight = false;
            apply_batch(sv, w);
        }
        idle[idle_count++] = w;
    }
    bool lane_busy = false;
    for (size_t i = 0; i < rt->started; i++)
        lane_busy = lane_busy || (rt->workers[i].in_flight && rt->workers[i].admitting);
    if (!lane_busy && idle_count && rt->admitting.count &&
        hand_over(rt, idle[idle_count - 1], &rt->admitting, 0, rt->admitting.count)) {
        idle_count--;
        rt->admitting.count = 0;
    }
    /* Spread over the free threads, so that a change held by a lock holds as few others as
     * can be; while every thread is busy the changes gather into larger batches. */
    size_t n = rt->gathering.count, shares = idle_count < n ? idle_count : n, handed = 0;
    for (size_t k = 0; k < shares; k++) {
        size_t to = n * (k + 1) / shares;
        if (!hand_over(rt, idle[k], &rt->gathering, handed, to))
            break;
        handed = to;
    }
    if (!handed)
        return;
    memmove(rt->gathering.changes, rt->gathering.changes + handed,
            (n - handed) * sizeof *rt->gathering.changes);
    rt->gathering.count = n - handed;
}

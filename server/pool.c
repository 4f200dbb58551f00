/* The match server's worker threads (pool.h): a queue for each owner with jobs, and the
 * owners with queued jobs in a ring that the workers go round, one job each turn. */
#define _POSIX_C_SOURCE 200809L

#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define OWNER_BUCKETS 256
#define OWNER_NAME_MAX 64 /* an address's name fits (struct address) */

/* Exists while it has a job queued or running. */
struct pool_owner {
    char name[OWNER_NAME_MAX];
    struct pool_owner *next_in_bucket;
    struct pool_owner *next_ready; /* in the ring of owners whose turn comes */
    struct pool_job *head, *tail;
    size_t queued, running;
    bool ready;
};

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready;  /* a job was queued, or the pool is stopping */
    pthread_cond_t worker_gone; /* a worker left its loop */
    struct pool_owner *owners[OWNER_BUCKETS];
    struct pool_owner *ready_head, *ready_tail; /* owners with queued jobs, next turn first */
    struct pool_job *done_head, *done_tail;
    size_t queued, running, max_queued;
    unsigned threads, alive;
    bool stopping;
    int wake_fd;
    pthread_t *ids;
};

static void append(struct pool_job **head, struct pool_job **tail, struct pool_job *job)
{
    job->next = NULL;
    if (*tail)
        (*tail)->next = job;
    else
        *head = job;
    *tail = job;
}

static struct pool_owner **owner_slot(struct pool *p, const char *name)
{
    uint64_t h = 14695981039346656037u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211u;
    struct pool_owner **slot = &p->owners[h % OWNER_BUCKETS];
    while (*slot && strcmp((*slot)->name, name) != 0)
        slot = &(*slot)->next_in_bucket;
    return slot;
}

static void make_ready(struct pool *p, struct pool_owner *o)
{
    o->ready = true;
    o->next_ready = NULL;
    if (p->ready_tail)
        p->ready_tail->next_ready = o;
    else
        p->ready_head = o;
    p->ready_tail = o;
}

/* The first job of the owner whose turn it is; the owner goes to the back of the ring. */
static struct pool_job *next_job(struct pool *p)
{
    struct pool_owner *o = p->ready_head;
    p->ready_head = o->next_ready;
    if (!p->ready_head)
        p->ready_tail = NULL;
    o->ready = false;
    struct pool_job *job = o->head;
    o->head = job->next;
    if (!o->head)
        o->tail = NULL;
    o->queued--;
    o->running++;
    if (o->head)
        make_ready(p, o);
    return job;
}

static void owner_job_done(struct pool *p, struct pool_owner *o)
{
    o->running--;
    if (o->queued || o->running)
        return;
    struct pool_owner **slot = owner_slot(p, o->name);
    *slot = o->next_in_bucket;
    free(o);
}

static void *worker_main(void *arg)
{
    struct pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->ready_head && !p->stopping)
            pthread_cond_wait(&p->work_ready, &p->lock);
        if (p->stopping)
            break;
        struct pool_job *job = next_job(p);
        p->queued--;
        p->running++;
        pthread_mutex_unlock(&p->lock);

        job->work(job);

        pthread_mutex_lock(&p->lock);
        p->running--;
        owner_job_done(p, job->owner);
        job->owner = NULL;
        append(&p->done_head, &p->done_tail, job);
        /* A full pipe already holds a wake-up, so a failed write loses nothing. */
        ssize_t ignored = write(p->wake_fd, "j", 1);
        (void)ignored;
    }
    p->alive--;
    pthread_cond_broadcast(&p->worker_gone);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

struct pool *pool_new(unsigned threads, size_t max_queued, int wake_fd)
{
    struct pool *p = calloc(1, sizeof *p);
    if (!p || !(p->ids = calloc(threads, sizeof *p->ids))) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work_ready, NULL);
    pthread_cond_init(&p->worker_gone, NULL);
    p->max_queued = max_queued;
    p->wake_fd = wake_fd;
    for (unsigned i = 0; i < threads; i++) {
        pthread_mutex_lock(&p->lock);
        p->alive++;
        pthread_mutex_unlock(&p->lock);
        if (pthread_create(&p->ids[i], NULL, worker_main, p) != 0) {
            pthread_mutex_lock(&p->lock);
            p->alive--;
            pthread_mutex_unlock(&p->lock);
            struct pool_job *none;
            p->threads = i;
            pool_stop(p, 10.0, &none);
            return NULL;
        }
    }
    p->threads = threads;
    return p;
}

enum pool_submitted pool_submit(struct pool *p, struct pool_job *job, const char *owner,
                                size_t owner_max)
{
    char name[OWNER_NAME_MAX];
    snprintf(name, sizeof name, "%s", owner);
    pthread_mutex_lock(&p->lock);
    struct pool_owner **slot = owner_slot(p, name), *o = *slot;
    enum pool_submitted result = POOL_QUEUED;
    if (p->queued >= p->max_queued || p->stopping)
        result = POOL_FULL;
    else if (o && owner_max && o->queued + o->running >= owner_max)
        result = POOL_OWNER_FULL;
    else if (!o && (o = *slot = calloc(1, sizeof *o)) != NULL)
        memcpy(o->name, name, sizeof name);
    else if (!o)
        result = POOL_FULL; /* no memory for the owner's queue: as busy */
    if (result == POOL_QUEUED) {
        job->owner = o;
        append(&o->head, &o->tail, job);
        o->queued++;
        if (!o->ready)
            make_ready(p, o);
        p->queued++;
        pthread_cond_signal(&p->work_ready);
    }
    pthread_mutex_unlock(&p->lock);
    return result;
}

struct pool_job *pool_take_done(struct pool *p)
{
    pthread_mutex_lock(&p->lock);
    struct pool_job *list = p->done_head;
    p->done_head = p->done_tail = NULL;
    pthread_mutex_unlock(&p->lock);
    return list;
}

size_t pool_in_flight(struct pool *p)
{
    pthread_mutex_lock(&p->lock);
    size_t n = p->queued + p->running;
    pthread_mutex_unlock(&p->lock);
    return n;
}

void pool_counts(struct pool *p, size_t *queued, size_t *running)
{
    pthread_mutex_lock(&p->lock);
    *queued = p->queued;
    *running = p->running;
    pthread_mutex_unlock(&p->lock);
}

bool pool_stop(struct pool *p, double wait_seconds, struct pool_job **leftover)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)wait_seconds;
    deadline.tv_nsec += (long)((wait_seconds - (double)(time_t)wait_seconds) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    /* Every owner's queued jobs, owner after owner. */
    struct pool_job *left_head = NULL, *left_tail = NULL;
    for (struct pool_owner *o = p->ready_head; o; o = o->next_ready) {
        if (left_tail)
            left_tail->next = o->head;
        else
            left_head = o->head;
        left_tail = o->tail;
        o->head = o->tail = NULL;
        o->queued = 0;
        o->ready = false;
    }
    p->ready_head = p->ready_tail = NULL;
    *leftover = left_head;
    p->queued = 0;
    pthread_cond_broadcast(&p->work_ready);
    int rc = 0;
    while (p->alive > 0 && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&p->worker_gone, &p->lock, &deadline);
    bool all_gone = p->alive == 0;
    if (all_gone && p->done_head) {
        /* Finished jobs go back with the unstarted ones, so that the caller frees them all. */
        p->done_tail->next = *leftover;
        *leftover = p->done_head;
        p->done_head = p->done_tail = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    if (!all_gone)
        return false;
    for (unsigned i = 0; i < p->threads; i++)
        pthread_join(p->ids[i], NULL);
    for (size_t b = 0; b < OWNER_BUCKETS; b++)
        for (struct pool_owner *o = p->owners[b], *next; o; o = next) {
            next = o->next_in_bucket;
            free(o);
        }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work_ready);
    pthread_cond_destroy(&p->worker_gone);
    free(p->ids);
    free(p);
    return true;
}

/* The match server's worker threads (pool.h). */
#define _POSIX_C_SOURCE 200809L

#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready;  /* a job was queued, or the pool is stopping */
    pthread_cond_t worker_gone; /* a worker left its loop */
    struct pool_job *queue_head, *queue_tail;
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

static void *worker_main(void *arg)
{
    struct pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->queue_head && !p->stopping)
            pthread_cond_wait(&p->work_ready, &p->lock);
        if (p->stopping)
            break;
        struct pool_job *job = p->queue_head;
        p->queue_head = job->next;
        if (!p->queue_head)
            p->queue_tail = NULL;
        p->queued--;
        p->running++;
        pthread_mutex_unlock(&p->lock);

        job->work(job);

        pthread_mutex_lock(&p->lock);
        p->running--;
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

bool pool_submit(struct pool *p, struct pool_job *job)
{
    pthread_mutex_lock(&p->lock);
    bool room = p->queued < p->max_queued;
    if (room) {
        append(&p->queue_head, &p->queue_tail, job);
        p->queued++;
        pthread_cond_signal(&p->work_ready);
    }
    pthread_mutex_unlock(&p->lock);
    return room;
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
    *leftover = p->queue_head;
    p->queue_head = p->queue_tail = NULL;
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
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work_ready);
    pthread_cond_destroy(&p->worker_gone);
    free(p->ids);
    free(p);
    return true;
}

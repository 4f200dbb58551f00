/* A small pool of worker threads for the match server: the loop hands it work that may take
 * long (bot searches, moves, replaying a stored match) and picks up the finished jobs when the
 * pool wakes it through a pipe. Each job is for an owner (a client's address): the workers
 * take the owners' jobs in turn, so that one owner's long queue delays another's job by at
 * most the jobs already running, not by its whole queue. */
#ifndef TG_SERVER_POOL_H
#define TG_SERVER_POOL_H

#include <stdbool.h>
#include <stddef.h>

struct pool_owner;

struct pool_job {
    struct pool_job *next;
    void (*work)(struct pool_job *job); /* runs on a worker thread */
    struct pool_owner *owner;           /* set by pool_submit */
};

struct pool;

/* threads workers; at most max_queued jobs wait for one; a byte is written to wake_fd each
 * time a job finishes. NULL if the threads cannot be started. */
struct pool *pool_new(unsigned threads, size_t max_queued, int wake_fd);

enum pool_submitted {
    POOL_QUEUED,
    POOL_FULL,      /* max_queued jobs already wait: the server is busy */
    POOL_OWNER_FULL /* the owner has its limit of jobs queued or running */
};
/* Queues job for `owner` (a name of at most 63 bytes, longer ones cut), behind that owner's
 * earlier jobs; owner_max (0: no limit) bounds the owner's jobs queued or running. */
enum pool_submitted pool_submit(struct pool *p, struct pool_job *job, const char *owner,
                                size_t owner_max);
/* The finished jobs, oldest first, as a list the caller now owns. */
struct pool_job *pool_take_done(struct pool *p);
/* Jobs waiting or running. */
size_t pool_in_flight(struct pool *p);
/* The jobs waiting for a worker, and those a worker is running (a worker busy), at this
 * moment. */
void pool_counts(struct pool *p, size_t *queued, size_t *running);
/* Stops the workers after their current jobs. Waits at most wait_seconds: true and the pool
 * freed if every worker stopped, with every job it still held (not started, or finished and
 * not taken) handed back in *leftover; false if a worker is still inside a job, whose search
 * cannot be interrupted (the pool must then be left to the process's exit). */
bool pool_stop(struct pool *p, double wait_seconds, struct pool_job **leftover);

#endif

/* A small pool of worker threads for the match server: the loop hands it work that may take
 * long (bot searches, moves, replaying a stored match) and picks up the finished jobs when the
 * pool wakes it through a pipe. */
#ifndef TG_SERVER_POOL_H
#define TG_SERVER_POOL_H

#include <stdbool.h>
#include <stddef.h>

struct pool_job {
    struct pool_job *next;
    void (*work)(struct pool_job *job); /* runs on a worker thread */
};

struct pool;

/* threads workers; at most max_queued jobs wait for one; a byte is written to wake_fd each
 * time a job finishes. NULL if the threads cannot be started. */
struct pool *pool_new(unsigned threads, size_t max_queued, int wake_fd);
/* False when max_queued jobs already wait: the caller answers that the server is busy. */
bool pool_submit(struct pool *p, struct pool_job *job);
/* The finished jobs, oldest first, as a list the caller now owns. */
struct pool_job *pool_take_done(struct pool *p);
/* Jobs waiting or running. */
size_t pool_in_flight(struct pool *p);
/* Stops the workers after their current jobs. Waits at most wait_seconds: true and the pool
 * freed if every worker stopped, with every job it still held (not started, or finished and
 * not taken) handed back in *leftover; false if a worker is still inside a job, whose search
 * cannot be interrupted (the pool must then be left to the process's exit). */
bool pool_stop(struct pool *p, double wait_seconds, struct pool_job **leftover);

#endif

/* What the programs in tools/ share besides the library: clocks in seconds and splitmix64 for
 * their own choices (seeds, positions), which must not depend on the library's private copy
 * of the generator. A program that includes this defines _POSIX_C_SOURCE (clock_gettime). */
#ifndef TG_TOOLS_CLOCK_RANDOM_H
#define TG_TOOLS_CLOCK_RANDOM_H

#include <math.h>
#include <stdint.h>
#include <time.h>

/* The monotonic clock: the wall-clock time of what is measured. */
static inline double tool_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Clock `id` (a thread's CPU time, mostly), NaN when it cannot be read: a thread's clock id
 * stops working once the thread has ended. */
static inline double tool_clock_seconds(clockid_t id)
{
    struct timespec t;
    if (clock_gettime(id, &t) != 0)
        return NAN;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The CPU time of the calling thread: what it spent itself, not the time other processes had
 * the core. */
static inline double tool_thread_cpu_seconds(void)
{
    return tool_clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

static inline uint64_t tool_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

#endif

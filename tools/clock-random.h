/* What the programs in tools/ share besides the library: a monotonic clock in seconds and
 * splitmix64 for their own choices (seeds, positions), which must not depend on the library's
 * private copy of the generator. */
#ifndef TG_TOOLS_CLOCK_RANDOM_H
#define TG_TOOLS_CLOCK_RANDOM_H

#include <stdint.h>
#include <time.h>

static inline double tool_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline uint64_t tool_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

#endif

/* The library's documented generator (splitmix64) and its unbiased bounded draw, inline: a
 * playout draws once a ply. Shared by the core and the games' own playout loops. */
#ifndef TG_RNG_H
#define TG_RNG_H

#include <stdint.h>

static inline uint64_t tg__splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A uniform index below n: Lemire's multiply-shift on the high 32 bits of a draw, with
 * rejection of the few values that would bias it. */
static inline uint32_t tg__uniform_below(uint64_t *rng, uint32_t n)
{
    uint64_t m = (tg__splitmix64(rng) >> 32) * (uint64_t)n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (tg__splitmix64(rng) >> 32) * (uint64_t)n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

#endif

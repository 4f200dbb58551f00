#include "ring.h"

#include <string.h>

void tg__ring_init(struct tg_ring *ring, const uint8_t *cells, unsigned len)
{
    memset(ring, 0, sizeof *ring);
    memset(ring->at, TG__NOT_ON_RING, sizeof ring->at);
    ring->len = (uint8_t)len;
    for (unsigned i = 0; i < len; i++) {
        ring->hole[i] = cells[i];
        ring->at[cells[i]] = (uint8_t)i;
    }
}

unsigned tg__ring_sow(const struct tg_ring *ring, uint8_t *cell, unsigned from, unsigned n)
{
    unsigned len = ring->len;
    /* Whole laps first, so a large sowing costs one pass over the ring, not one per counter. */
    if (n >= len) {
        unsigned laps = n / len;
        for (unsigned i = 0; i < len; i++)
            cell[ring->hole[i]] = (uint8_t)(cell[ring->hole[i]] + laps);
        n -= laps * len;
        if (n == 0)
            return from;
    }
    unsigned at = from;
    while (n--) {
        at = tg__ring_next(ring, at);
        cell[ring->hole[at]]++;
    }
    return at;
}

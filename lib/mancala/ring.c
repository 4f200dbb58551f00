#include "ring.h"

#include <string.h>

void tg__ring_init(struct tg_ring *ring, const uint8_t *cells, unsigned len)
{
    memset(ring, 0, sizeof *ring);
    memset(ring->at, TG__NOT_ON_RING, sizeof ring->at);
    ring->len = (uint8_t)len;
    for (unsigned i = 0; i < len; i++) {
        ring->hole[i] = ring->hole[len + i] = cells[i];
        ring->at[cells[i]] = (uint8_t)i;
    }
}

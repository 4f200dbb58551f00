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

bool tg__relay(const struct tg_ring *ring, uint8_t *cell, unsigned cells, struct tg_lap lap,
               tg__relay_rule rule, void *ctx, unsigned *last, uint64_t *laps)
{
    /* Besides Brent's moving checkpoint, every lap is compared with the first one: endless
     * moves usually return to their very first lap (no lead-in), and then the repeat is seen
     * after one cycle instead of up to two. */
    uint8_t first_cell[TG__RING_MAX], saved_cell[TG__RING_MAX];
    struct tg_lap first_lap = lap, saved_lap = lap;
    uint64_t power = 1, since_saved = 0, count = 0;
    memcpy(first_cell, cell, cells);
    memcpy(saved_cell, cell, cells);
    for (;;) {
        unsigned end = tg__ring_sow(ring, cell, lap.at, lap.hand);
        count++;
        if (!rule(ctx, ring, cell, end, &lap)) {
            *last = end;
            *laps = count;
            return true;
        }
        since_saved++;
        if ((lap.at == saved_lap.at && lap.hand == saved_lap.hand &&
             memcmp(cell, saved_cell, cells) == 0) ||
            (lap.at == first_lap.at && lap.hand == first_lap.hand &&
             memcmp(cell, first_cell, cells) == 0)) {
            *last = end;
            *laps = count;
            return false;
        }
        if (since_saved == power) {
            memcpy(saved_cell, cell, cells);
            saved_lap = lap;
            power *= 2;
            since_saved = 0;
        }
    }
}

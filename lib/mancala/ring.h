/* Sowing rings: the cyclic order in which a player sows, written once for every mancala game.
 * A ring is a list of cell indices; a shared two-row ring and a player's own four-row ring
 * are the same thing with different lists. */
#ifndef TG_MANCALA_RING_H
#define TG_MANCALA_RING_H

#include <stdint.h>

#define TG__RING_MAX 128
#define TG__NOT_ON_RING 0xFFu

struct tg_ring {
    uint8_t len;
    uint8_t hole[TG__RING_MAX]; /* ring position -> cell index */
    uint8_t at[TG__RING_MAX];   /* cell index -> ring position, TG__NOT_ON_RING if absent */
};

/* Builds a ring from cells listed in sowing order. */
void tg__ring_init(struct tg_ring *ring, const uint8_t *cells, unsigned len);

/* Sows `n` counters one by one into the holes after ring position `from`, round and round:
 * laps of a full ring or more feed the origin too. Returns the ring position of the hole that
 * received the last counter (`from` itself when n is a multiple of the ring length; n > 0). */
unsigned tg__ring_sow(const struct tg_ring *ring, uint8_t *cell, unsigned from, unsigned n);

/* The ring position after `at`, and the one before it. */
static inline unsigned tg__ring_next(const struct tg_ring *ring, unsigned at)
{
    return at + 1u == ring->len ? 0u : at + 1u;
}

static inline unsigned tg__ring_prev(const struct tg_ring *ring, unsigned at)
{
    return at == 0u ? ring->len - 1u : at - 1u;
}

#endif

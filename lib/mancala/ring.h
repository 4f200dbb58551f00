/* Sowing rings: the cyclic order in which a player sows, written once for every mancala game.
 * A ring is a list of cell indices; a shared two-row ring and a player's own four-row ring
 * are the same thing with different lists. */
#ifndef TG_MANCALA_RING_H
#define TG_MANCALA_RING_H

#include <stdbool.h>
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

/* A lap about to be sown: the ring position the hand is lifted from and the counters in it. */
struct tg_lap {
    unsigned at;
    unsigned hand;
};

/* A relay game's rule for what follows a lap whose last counter fell at ring position `last`:
 * true to go on with the lap it writes to *next (having changed the board as the rule says,
 * e.g. lifting a hole), false to end the sowing. `ctx` is the game's own per-move context. */
typedef bool (*tg__relay_rule)(void *ctx, const struct tg_ring *ring, uint8_t *cell, unsigned last,
                               struct tg_lap *next);

/* Sows `lap` and every lap the rule chains after it. On return *last is the ring position of
 * the last counter sown and *laps the number of laps. Returns false for an endless move: the
 * sowing is a deterministic function of (board, lap) at each lap start, so a repeat of that
 * state means it never ends. Brent's cycle finder keeps one saved state, so memory stays
 * constant however long the cycle (Walak-pussa has cycles of over 14 million laps); the board
 * is then left mid-sowing and the caller restores it. `cells` is the size of the board. */
bool tg__relay(const struct tg_ring *ring, uint8_t *cell, unsigned cells, struct tg_lap lap,
               tg__relay_rule rule, void *ctx, unsigned *last, uint64_t *laps);

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

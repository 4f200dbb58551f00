/* Sowing rings: the cyclic order in which a player sows, written once for every mancala game.
 * A ring is a list of cell indices; a shared two-row ring and a player's own four-row ring
 * are the same thing with different lists. */
#ifndef TG_MANCALA_RING_H
#define TG_MANCALA_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A story sink (story.h), NULL on the hot path: a sowing telling its story drops counter by
 * counter and reports each drop and its lap count. */
struct tg__story;
void tg__story_ring_drop(struct tg__story *story, unsigned cell);
void tg__story_set_laps(struct tg__story *story, uint64_t laps);

/* The sowing loops below must be inlined into each game's apply, so that the game's rule and a
 * NULL story fold into them: clang's WebAssembly cost model declined tg__relay() (a function of
 * its own, its rule an indirect call and its story tests kept, a lap at a time), which cost the
 * relay games a third of their speed there. */
#if defined(__GNUC__)
#define TG__RING_INLINE inline __attribute__((always_inline))
#else
#define TG__RING_INLINE inline
#endif

#define TG__RING_MAX 128
#define TG__NOT_ON_RING 0xFFu

struct tg_ring {
    uint8_t len;
    /* ring position -> cell index, listed twice over (hole[p + len] == hole[p]) so that a
     * sowing of less than a lap walks it without wrapping */
    uint8_t hole[2 * TG__RING_MAX];
    uint8_t at[TG__RING_MAX]; /* cell index -> ring position, TG__NOT_ON_RING if absent */
};

/* The largest board sown on rings (Hus, 4 x 16): a move's snapshot of the board, taken in case
 * the move proves endless and must be taken back, copies this many bytes at a fixed size. */
#define TG__SOWN_BOARD_MAX 64

/* Builds a ring from cells listed in sowing order. */
void tg__ring_init(struct tg_ring *ring, const uint8_t *cells, unsigned len);

/* A lap about to be sown: the ring position the hand is lifted from and the counters in it. */
struct tg_lap {
    unsigned at;
    unsigned hand;
};

/* A relay game's rule for what follows a lap whose last counter fell at ring position `last`:
 * true to go on with the lap it writes to *next (having changed the board as the rule says,
 * e.g. lifting a hole), false to end the sowing. `ctx` is the game's own per-move context. */
typedef bool (*tg__relay_rule)(void *ctx, const struct tg_ring *ring, uint8_t *cell, unsigned last,
                               struct tg_lap *next, struct tg__story *story);
/* The rule gets the relay's story as a parameter rather than in its ctx, so that on the hot
 * path (a constant NULL) its emission points fold away; it reports its lifts before it changes
 * the board (story.h). */

/* The ring position after `at`, and the one before it. */
static inline unsigned tg__ring_next(const struct tg_ring *ring, unsigned at)
{
    return at + 1u == ring->len ? 0u : at + 1u;
}

static inline unsigned tg__ring_prev(const struct tg_ring *ring, unsigned at)
{
    return at == 0u ? ring->len - 1u : at - 1u;
}

/* Sows `n` counters one by one into the holes after ring position `from`, round and round (with a
 * story sink, counter by counter with a DROP each; NULL takes whole laps at once):
 * laps of a full ring or more feed the origin too. Returns the ring position of the hole that
 * received the last counter (`from` itself when n is a multiple of the ring length; n > 0). */
static TG__RING_INLINE unsigned tg__ring_sow(const struct tg_ring *ring, uint8_t *cell,
                                             unsigned from, unsigned n, struct tg__story *story)
{
    unsigned len = ring->len;
    if (story) {
        /* Counter by counter in true ring order, one DROP each. */
        unsigned at = from;
        for (unsigned i = 0; i < n; i++) {
            at = tg__ring_next(ring, at);
            tg__story_ring_drop(story, ring->hole[at]);
            cell[ring->hole[at]]++;
        }
        return at;
    }
    /* Whole laps first, so a large sowing costs one pass over the ring, not one per counter. */
    if (n >= len) {
        unsigned laps = n / len;
        for (unsigned i = 0; i < len; i++)
            cell[ring->hole[i]] = (uint8_t)(cell[ring->hole[i]] + laps);
        n -= laps * len;
        if (n == 0)
            return from;
    }
    const uint8_t *next = ring->hole + from + 1;
    for (unsigned i = 0; i < n; i++)
        cell[next[i]]++;
    unsigned at = from + n;
    return at >= len ? at - len : at;
}

/* Sows `lap` and every lap the rule chains after it. On return *last is the ring position of
 * the last counter sown and *sown the number of counters sown over all laps. Returns false
 * for an endless move (rules/README.md, "Endless moves"): one whose sowing has not ended by
 * the end of lap `lap_limit` (0: no limit), or that repeats a lap-start state. The sowing is a
 * deterministic function of (board, lap) at each lap start, so a repeat means it never ends;
 * Brent's cycle finder keeps one saved state, so memory stays constant however long the cycle
 * (Walak-pussa has cycles of over 14 million laps). Under a limit the finder only judges short
 * cycles early: both judges give the same endless loss, so which one sees it first changes
 * nothing but the work. The board is then left mid-sowing and the caller restores it. `cell`
 * is a board array of at least TG__SOWN_BOARD_MAX bytes, which is what the saved states copy
 * and compare: a fixed size the compiler turns into a few vector moves, where the board's own
 * size was a library call (bytes past the board are never sown, so comparing them changes
 * nothing). Inline, so that each game's call gets its rule inlined into the lap loop. `story`:
 * NULL, or the sink the laps are told to (tg__ring_sow(); the rule gets it too, and the laps
 * sown are reported to it). */
static TG__RING_INLINE bool tg__relay(const struct tg_ring *ring, uint8_t *cell, struct tg_lap lap,
                                      uint32_t lap_limit, tg__relay_rule rule, void *ctx,
                                      unsigned *last, uint64_t *sown, struct tg__story *story)
{
    /* Most moves are a single lap: they need no saved states at all. */
    unsigned end = tg__ring_sow(ring, cell, lap.at, lap.hand, story);
    uint64_t counters = lap.hand;
    if (story)
        tg__story_set_laps(story, 1);
    if (!rule(ctx, ring, cell, end, &lap, story)) {
        *last = end;
        *sown = counters;
        return true;
    }
    if (lap_limit == 1) {
        *last = end;
        *sown = counters;
        return false;
    }
    /* From the second lap on, the sowing is a function of (board, lap) at each lap start, so
     * the states from here on are eventually periodic, and periodic from here if they are from
     * the first lap. Besides Brent's moving checkpoint, every lap is compared with this one:
     * endless moves usually return to it (no lead-in), and then the repeat is seen after one
     * cycle instead of up to two. */
    uint8_t first_cell[TG__SOWN_BOARD_MAX], saved_cell[TG__SOWN_BOARD_MAX];
    struct tg_lap first_lap = lap, saved_lap = lap;
    uint64_t power = 1, since_saved = 0;
    /* Laps sown so far; with no limit it may pass 2^32 (cycles of 10^8 laps and more). */
    uint64_t laps = 1, limit = lap_limit ? lap_limit : UINT64_MAX;
    memcpy(first_cell, cell, sizeof first_cell);
    memcpy(saved_cell, cell, sizeof saved_cell);
    for (;;) {
        end = tg__ring_sow(ring, cell, lap.at, lap.hand, story);
        counters += lap.hand;
        if (story)
            tg__story_set_laps(story, laps + 1);
        if (!rule(ctx, ring, cell, end, &lap, story)) {
            *last = end;
            *sown = counters;
            return true;
        }
        since_saved++;
        if (++laps == limit ||
            (lap.at == saved_lap.at && lap.hand == saved_lap.hand &&
             memcmp(cell, saved_cell, sizeof saved_cell) == 0) ||
            (lap.at == first_lap.at && lap.hand == first_lap.hand &&
             memcmp(cell, first_cell, sizeof first_cell) == 0)) {
            *last = end;
            *sown = counters;
            return false;
        }
        if (since_saved == power) {
            memcpy(saved_cell, cell, sizeof saved_cell);
            saved_lap = lap;
            power *= 2;
            since_saved = 0;
        }
    }
}

#endif

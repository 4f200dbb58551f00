/* What a database position is and where it sits in a file (docs/egtb.md, "Positions"): the
 * board's counts ranked among all boards with the same number of counters, the side to move
 * and the quiet count. Scores are not part of it: no rule of the supported games reads them. */
#ifndef TG_EGTB_INDEX_H
#define TG_EGTB_INDEX_H

#include "../internal.h"
#include "traditional-games/tg-egtb.h"

#include <stdbool.h>
#include <stdint.h>

/* Values stored per entry (int8): a margin to go in -72..72, or one of these. */
enum {
    TG__EGTB_WIN_ENDLESS = 127,   /* the opponent is forced into an endless move */
    TG__EGTB_LOSS_ENDLESS = -127, /* the side to move is forced into one */
    TG__EGTB_NO_POSITION = -128   /* the side to move has no move: the game is already over */
};

/* Entries per block: a layer (one quiet count) is cut into blocks of this many entries. */
#define TG__EGTB_BLOCK_ENTRIES 65536u

/* Binomials C(n, k) for n < 96, k < 17: enough for 72 counters over 14 holes. */
enum { TG__EGTB_BINOM_N = 96, TG__EGTB_BINOM_K = 17 };

/* The shape of one file: boards of `counters` counters over `holes` holes. */
struct tg_egtb_tier {
    unsigned holes;
    unsigned counters;
    unsigned quiet;         /* layers: quiet counts 0 .. quiet - 1 */
    uint64_t boards;        /* C(counters + holes - 1, holes - 1) */
    uint64_t layer_entries; /* 2 * boards: side to move, then board rank */
    uint64_t layer_blocks;  /* blocks per layer */
    /* Ranking a board costs a table look-up per hole rather than a product per hole. */
    uint64_t choose[TG__EGTB_BINOM_N][TG__EGTB_BINOM_K];
};

/* Whether the rule set has databases (Halusa; Walak-pussa single games; a quiet limit). */
tg_egtb_status tg__egtb_supported(const struct tg_config *cfg);
/* Whether a file exists for this many counters: Halusa keeps an even number on the board
 * while it runs (every capture is even), so odd numbers have none. */
bool tg__egtb_tier_exists(const struct tg_config *cfg, unsigned counters);
/* The tier's shape; false if it is too large to index (more than 2^31 entries a layer). */
bool tg__egtb_tier_make(const struct tg_config *cfg, unsigned counters, struct tg_egtb_tier *t);
/* The rank of a board of t->counters counters among all such boards, and back. */
uint64_t tg__egtb_rank(const struct tg_egtb_tier *t, const uint8_t *cell);
void tg__egtb_unrank(const struct tg_egtb_tier *t, uint64_t rank, uint8_t *cell);

#endif

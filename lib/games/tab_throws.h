/* At-Tab wa-d-Dukk's throws and stored throws, and the small helpers its rules (games/tab.c)
 * and its notation (games/tab_notation.c) share. */
#ifndef TG_GAMES_TAB_THROWS_H
#define TG_GAMES_TAB_THROWS_H

#include "../game.h"

#include <stdint.h>

/* ---- throws: four sticks, white on one side --------------------------------------------- */

enum { THROW_KINDS = 5, STORE_MAX = 255, THROW_OUTCOME = 0x01000000 };

/* A throw is the number of white sides up, or 6 when none is: 1 in 16 ways, 4, 6, 4, 1. */
static const unsigned throw_value[THROW_KINDS] = {1, 2, 3, 4, 6};
static const double throw_prob[THROW_KINDS] = {4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0, 1 / 16.0};

/* The stored throws are counts per kind in the position's field bytes. */
#define STORED(pos, kind) ((pos)->field[kind])

/* The store index of each throw value (values that no throw gives map to NOT_A_THROW). */
enum { NOT_A_THROW = 0xFF };
static const uint8_t kind_of_value[7] = {NOT_A_THROW, 0, 1, 2, 3, NOT_A_THROW, 4};

static inline int throw_kind(unsigned long v)
{
    return v < 7 && kind_of_value[v] != NOT_A_THROW ? kind_of_value[v] : -1;
}

static inline unsigned stored_total(const struct tg_pos *pos)
{
    unsigned n = 0;
    for (int k = 0; k < THROW_KINDS; k++)
        n += STORED(pos, k);
    return n;
}

static inline void clear_throws(struct tg_pos *pos)
{
    for (int k = 0; k < THROW_KINDS; k++)
        STORED(pos, k) = 0;
}

/* The board's width: the columns of each of its four rows. */
static inline int width_of(const struct tg_config *cfg)
{
    return cfg->cols;
}

/* A decision: the unit's cell, the throw value spent and how many of its pieces move. */
static inline tg_move decision(int cell, unsigned v, unsigned count)
{
    return (tg_move)((unsigned)cell | v << 8 | count << 16);
}

#endif

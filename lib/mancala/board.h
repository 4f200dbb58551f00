/* Hooks shared by the mancala games: a cell is a hole holding a count, the board is split
 * between the players by rows, and a move is the name of the hole emptied. */
#ifndef TG_MANCALA_BOARD_H
#define TG_MANCALA_BOARD_H

#include "../game.h"
#include "../story.h"

#include <string.h>

/* Word-at-a-time scans of a run of holes, the hot part of move generation and end checks: a
 * side is at most 32 holes, so these are a few loads and bit operations instead of a loop
 * per hole. `n` holes from cell[first]; the board array is large enough (TG__MAX_CELLS) that
 * reading a whole word past the run's end stays inside it, and the bytes past the end are
 * masked off. */
static inline uint64_t tg__cells_word(const uint8_t *p, unsigned n)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    if (n >= 8)
        return x;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return x & ~(~UINT64_C(0) >> (8 * n));
#else
    return x & ((UINT64_C(1) << (8 * n)) - 1);
#endif
}

/* The sum of n holes (bytes added in 16-bit lanes, so no count limit). */
static inline unsigned tg__cells_sum(const uint8_t *p, unsigned n)
{
    uint64_t lanes = 0;
    for (unsigned i = 0; i < n; i += 8) {
        uint64_t x = tg__cells_word(p + i, n - i);
        lanes += (x & UINT64_C(0x00FF00FF00FF00FF)) + ((x >> 8) & UINT64_C(0x00FF00FF00FF00FF));
    }
    /* A board has at most 128 holes: each lane holds at most 32 * 255, all four under 2^16. */
    return (unsigned)((lanes * UINT64_C(0x0001000100010001)) >> 48);
}

/* Whether any of n holes has a bit of `mask` set: 0xFF asks for any counter, 0xFE for a hole
 * of two or more. */
static inline bool tg__cells_any(const uint8_t *p, unsigned n, uint8_t mask)
{
    uint64_t m = UINT64_C(0x0101010101010101) * mask;
    for (unsigned i = 0; i < n; i += 8)
        if (tg__cells_word(p + i, n - i) & m)
            return true;
    return false;
}

int tg__mancala_count(const struct tg_config *cfg, const struct tg_pos *pos, int cell);
/* The south half of the rows is player 0's, the north half player 1's. */
int tg__mancala_owner(const struct tg_config *cfg, const struct tg_pos *pos, int cell);
unsigned tg__mancala_no_flags(const struct tg_config *cfg, const struct tg_pos *pos, int cell);
void tg__mancala_write_cell(const struct tg_config *cfg, const struct tg_pos *pos, int cell,
                            struct tg_out *o);
bool tg__mancala_read_cell(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos,
                           int cell);
bool tg__mancala_move_to_string(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
                                struct tg_out *o);
bool tg__mancala_move_from_string(const struct tg_config *cfg, const struct tg_pos *pos,
                                  const char *s, size_t n, tg_move *m);

/* A four-row board of `cols` columns where each player sows round their own two rows: sets the
 * board size and both rings. Anticlockwise, player 0 goes west to east along row 0 and back
 * along row 1, player 1 east to west along row 3 and back along row 2; clockwise reverses
 * both. */
void tg__mancala_four_row_rings(struct tg_config *cfg, int cols, bool clockwise);

/* The holes among n (at most 64) from cell[first] with a bit of `mask` set (see
 * tg__cells_any), as a move set: bit i stands for the hole first + i. */
static inline uint64_t tg__cells_set(const uint8_t *cell, unsigned first, unsigned n, uint8_t mask)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F), high = UINT64_C(0x8080808080808080);
    uint64_t m = UINT64_C(0x0101010101010101) * mask, set = 0;
    for (unsigned i = 0; i < n; i += 8) {
        uint64_t t = tg__cells_word(cell + first + i, n - i) & m;
        /* The high bit of each byte that is not zero, then those eight bits gathered into the
         * top byte by one multiplication (no two partial products meet, so nothing carries). */
        uint64_t hit = (((t & low7) + low7) | t) & high;
        set |= ((hit >> 7) * UINT64_C(0x0102040810204080)) >> 56 << i;
    }
    return set;
#else
    uint64_t set = 0;
    for (unsigned i = 0; i < n; i++)
        if (cell[first + i] & mask)
            set |= UINT64_C(1) << i;
    return set;
#endif
}

/* Counters on the board, and on one player's side of it. */
static inline unsigned tg__mancala_board_total(const struct tg_config *cfg,
                                               const struct tg_pos *pos)
{
    return tg__cells_sum(pos->cell, (unsigned)cfg->cells);
}

static inline unsigned tg__mancala_side_total(const struct tg_config *cfg, const struct tg_pos *pos,
                                              int player)
{
    unsigned half = (unsigned)cfg->cells / 2;
    return tg__cells_sum(pos->cell + (unsigned)player * half, half);
}
/* Each player adds the counters on their own side to their score; the board is emptied (a GATHER
 * event per hole, in cell order, for a story). */
void tg__mancala_take_own_sides(const struct tg_config *cfg, struct tg_pos *pos,
                                struct tg__story *story);
/* The counters left on the board all go to `player` (GATHER events as above). */
void tg__mancala_take_all(const struct tg_config *cfg, struct tg_pos *pos, int player,
                          struct tg__story *story);
/* A quiet end where each player takes their own side, then the higher score wins. */
void tg__mancala_quiet_end_own_sides(const struct tg_config *cfg, struct tg_pos *pos,
                                     struct tg__story *story);
/* Counters on the board plus both scores make the starting total (captures leave the board
 * for the captor's score). */
bool tg__mancala_counters_conserved(const struct tg_config *cfg, const struct tg_pos *pos);
/* Whether the quiet limit can have ended this finished position: the count stands at it. */
bool tg__quiet_end_reached(const struct tg_config *cfg, const struct tg_pos *pos);
/* The finish of the games whose end (or quiet end) empties the board into the scores: an
 * empty board and the winner by score. */
bool tg__mancala_emptied_by_score(const struct tg_config *cfg, const struct tg_pos *pos);

#endif

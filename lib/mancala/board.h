/* Hooks shared by the mancala games: a cell is a hole holding a count, the board is split
 * between the players by rows, and a move is the name of the hole emptied. */
#ifndef TG_MANCALA_BOARD_H
#define TG_MANCALA_BOARD_H

#include "../game.h"
#include "../story.h"
#include "cells.h"

#include <string.h>

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

/* The relay games' move and lap, inline like tg__relay() so that each game's rule and a NULL
 * story fold into its apply. */

/* A relay rule's next lap when the sowing goes on from cell `hole` (ring position `at`): its
 * counters lifted (a LIFT for a story) and sown on. Returns true, the rule's answer. */
static TG__ALWAYS_INLINE bool tg__mancala_lift_on(uint8_t *cell, unsigned hole, unsigned at,
                                                  struct tg_lap *next, struct tg__story *story)
{
    if (story)
        tg__story_lift(story, hole, cell[hole]);
    next->at = at;
    next->hand = cell[hole];
    cell[hole] = 0;
    return true;
}

/* The sowing of a relay move: the counters of hole `m` lifted and sown on `ring` under the
 * game's `rule` (with `ctx`) until it ends, *last and *sown as tg__relay() gives them. False
 * for an endless move: by de Voogt's rule (rules/README.md) the mover loses and nothing moves,
 * the board put back from a snapshot of its first `board_bytes` bytes (a constant, at most
 * TG__SOWN_BOARD_MAX, so that the copies are a few vector moves). */
static TG__ALWAYS_INLINE bool tg__mancala_relay_move(const struct tg_config *cfg,
                                                     struct tg_pos *pos, const struct tg_ring *ring,
                                                     tg_move m, size_t board_bytes,
                                                     tg__relay_rule rule, void *ctx, unsigned *last,
                                                     uint64_t *sown, struct tg__story *story)
{
    uint8_t before[TG__SOWN_BOARD_MAX];
    memcpy(before, pos->cell, board_bytes);
    struct tg_lap lap = {ring->at[m], pos->cell[m]};
    if (story)
        tg__story_lift(story, m, pos->cell[m]);
    pos->cell[m] = 0;
    if (tg__relay(ring, pos->cell, lap, cfg->lap_limit, rule, ctx, last, sown, story))
        return true;
    memcpy(pos->cell, before, board_bytes);
    tg__end_endless(story, pos, 1 - pos->side);
    return false;
}

#endif

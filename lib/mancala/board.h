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

#endif

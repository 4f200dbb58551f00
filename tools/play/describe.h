/* tg-play's words for what a move did, from its story (tg_state_story()). */
#ifndef TG_PLAY_DESCRIBE_H
#define TG_PLAY_DESCRIBE_H

#include <traditional-games.h>

#include <stddef.h>

/** Describes move `index` of the history of `s` into `buf` (always NUL-terminated), e.g.
 *  "sowed 7, captured 4 from c2 and d2" or "takes 1 on h3"; "" when there is nothing to add
 *  to the move's name (a Tab move that takes nothing, a throw). Returns 0 if the story
 *  could not be read (then `buf` is ""). */
int describe_move(const tg_state *s, size_t index, char *buf, size_t cap);

/** The name of cell `cell` (row * cols + col) in notation: a column letter (a .. z, then aa,
 *  ab, ...) and the 1-based row, as docs/notation.md writes cells. */
void describe_cell(const tg_state *s, uint32_t cell, char *buf, size_t cap);

#endif

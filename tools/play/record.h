/* tg-play's game records (docs/records.md): --save writes one, --load reads one back. */
#ifndef TG_PLAY_RECORD_H
#define TG_PLAY_RECORD_H

#include <traditional-games.h>

#include <stdint.h>

/** Writes the record of `s` to `path`, with the tags South and North (each seat's bot spec,
 *  or "person" for `human`'s seat), Date (today, UTC, as YYYY.MM.DD) and Seed. Returns 1, or
 *  0 with a message on standard error. */
int record_save(const tg_state *s, const char *path, const char *const bot[2], int human,
                uint64_t seed);

/** Reads the record at `path` into a new state. Returns 1, or 0 with a message on standard
 *  error (the file unreadable, or not a record the library accepts). */
int record_load(const char *path, tg_state **out);

/** Prints every move of the history of `s`, numbered, each with what it did. Returns 0 if the
 *  history could not be replayed (a message is printed). */
int record_print_moves(const tg_state *s);

#endif

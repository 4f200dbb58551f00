/* Reading back the games of an earlier tg-arena run (the JSON of --json), so that runs made
 * at different times (cheap pairings first, dear ones later) are fitted together. Only
 * tg-arena's own layout is read: the "games" array with one game per line, as report.c
 * writes it. */
#ifndef TG_ARENA_LOAD_H
#define TG_ARENA_LOAD_H

#include "tournament.h"

#include <stddef.h>

/** One game read back: its rule set and bots by spec (owned strings), the rest as played
 *  (`g.rules`, `g.pairing` and `g.seat` are left for the caller to resolve). */
struct loaded_game {
    char *rules;
    char *bots[2];
    struct game g;
};

/** Appends the games of the file at `path` to `*games` (`*count` of them, grown with
 *  realloc). Returns 1, or 0 with a message in `err` (the file unreadable, or not a
 *  tg-arena JSON file); on failure the games appended so far stay and are the caller's. */
int load_games(const char *path, struct loaded_game **games, size_t *count, char *err,
               size_t err_cap);

/** Frees the strings and move times of `count` loaded games, and the array. */
void load_free(struct loaded_game *games, size_t count);

#endif

/* Pieces the match server's files share: growable text, the OS's random source, seat tokens,
 * and recording a move with its notation and the hash after it. */
#ifndef TG_SERVER_COMMON_H
#define TG_SERVER_COMMON_H

#include "store.h"

#include <traditional-games.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
    char *data;
    size_t len, cap;
};

bool buf_reserve(struct buf *b, size_t extra);
bool buf_append(struct buf *b, const char *text, size_t n);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
bool buf_printf(struct buf *b, const char *fmt, ...);
void buf_consume(struct buf *b, size_t n);

/* Fills out from the OS's random source (getrandom); false if it cannot. */
bool os_random(void *out, size_t n);
/* A fresh seat token: 128 bits from the OS's random source, as lower-case hex. */
bool new_token(char out[TOKEN_HEX_LEN + 1]);

/* Room for `need` elements of `size` bytes in the array `items` of capacity *cap, which grows
 * by doubling from `first`. Returns the array (moved, perhaps; never NULL on success, even
 * for need 0), or NULL with the array and *cap untouched when memory runs out: every growable
 * list of the server grows this way. */
void *array_reserve(void *items, size_t *cap, size_t need, size_t size, size_t first);

/* A growable list of moves made (stored_move rows to write). */
struct move_list {
    struct stored_move *items;
    size_t count, cap;
};

/* Names the move in the position it is played in, applies it, and records the hash after it.
 * seat is the player who chose it, or -1 for a throw. */
tg_status record_move(tg_state *s, tg_move move, int seat, struct move_list *out);
/* While the state waits for a throw, throws for it from the OS's random source and records
 * each outcome: no client ever chooses one. */
tg_status throw_while_chance(tg_state *s, struct move_list *out);
void move_list_free(struct move_list *l);

/* Copies the file `from` to `to`, which must not exist yet (kept for the operator: a damaged
 * database, a log cut short); false if it cannot. */
bool copy_file(const char *from, const char *to);

#endif

/* The handles behind the opaque public types, and the core's internal functions. */
#ifndef TG_INTERNAL_H
#define TG_INTERNAL_H

#include "game.h"
#include "playout.h"
#include "rng.h"

#define TG__SPEC_MAX 128

struct tg_rules {
    struct tg_config cfg;
    char spec[TG__SPEC_MAX]; /* canonical spec */
};

struct tg_undo {
    struct tg_pos before;
    tg_move move;
};

struct tg_state {
    struct tg_rules rules; /* a private copy: the caller may free the tg_rules it came from */
    struct tg_pos pos;
    size_t ply;
    struct tg_undo *history;
    size_t history_len;
    size_t history_cap;
};

/* alloc.c: the one path to the heap. realloc semantics; size 0 frees and returns NULL. */
void *tg__realloc(void *p, size_t size);
/* Zeroed memory of `size` bytes (NULL for 0 or on failure), released with tg__realloc(p, 0). */
void *tg__calloc(size_t size);

#ifdef TG_ALLOC_FAIL_INJECTION
/* Test-only hooks (alloc.c, built with -DTG_ALLOC_FAIL_INJECTION; never in the shipped library).
 * tg__alloc_fail_arm(n): from now, the n-th allocation of size > 0 fails (once); 0 disarms.
 * tg__alloc_calls(): allocations attempted since arming; tg__alloc_fail_hit(): the armed one
 * was reached. */
void tg__alloc_fail_arm(size_t n);
size_t tg__alloc_calls(void);
bool tg__alloc_fail_hit(void);
#endif

/* rules.c */
size_t tg__game_count(void);
const struct tg_game *tg__game_at(size_t i);
tg_status tg__rules_parse(const char *spec, size_t len, struct tg_rules *out);
bool tg__rules_same(const struct tg_rules *a, const struct tg_rules *b);

/* state.c */
tg_status tg__state_make(const struct tg_rules *rules, const struct tg_pos *pos, size_t history_cap,
                         tg_state **out);
tg_status tg__state_push(tg_state *s, tg_move m);
uint64_t tg__pos_hash(const struct tg_config *cfg, const struct tg_pos *pos);
void tg__hash_setup(struct tg_config *cfg);

/* notation.c */
tg_status tg__pos_parse(const struct tg_rules *rules, const char *text, struct tg_pos *out);
void tg__pos_write(const struct tg_rules *rules, const struct tg_pos *pos, struct tg_out *o);
/* The endings that leave this finished position, bit r for tg_end_reason r: the game's own,
 * the quiet limit's, and an endless move's. */
unsigned tg__endings(const struct tg_config *cfg, const struct tg_pos *pos);
void tg__pos_render(const struct tg_rules *rules, const struct tg_pos *pos, size_t ply,
                    struct tg_out *o);

/* random.c (the generator is in rng.h, the random draw of a move in playout.h) */
/* stats: NULL, or TG_STAT_COUNT counters that the playout adds to. */
size_t tg__playout(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng, size_t max_plies,
                   uint64_t *stats);
uint64_t tg__perft(const struct tg_config *cfg, const struct tg_pos *pos, unsigned depth);

#endif

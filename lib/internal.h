/* The handles behind the opaque public types, and the core's internal functions. */
#ifndef TG_INTERNAL_H
#define TG_INTERNAL_H

#include "game.h"

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

/* notation.c */
tg_status tg__pos_parse(const struct tg_rules *rules, const char *text, struct tg_pos *out);
void tg__pos_write(const struct tg_rules *rules, const struct tg_pos *pos, struct tg_out *o);
void tg__pos_render(const struct tg_rules *rules, const struct tg_pos *pos, size_t ply,
                    struct tg_out *o);

/* random.c */
/* The generator and its unbiased bounded draw, inline: a playout draws once a ply. */
static inline uint64_t tg__splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A uniform index below n: Lemire's multiply-shift on the high 32 bits of a draw, with
 * rejection of the few values that would bias it. */
static inline uint32_t tg__uniform_below(uint64_t *rng, uint32_t n)
{
    uint64_t m = (tg__splitmix64(rng) >> 32) * (uint64_t)n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (tg__splitmix64(rng) >> 32) * (uint64_t)n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

tg_move tg__pick(const struct tg_config *cfg, const struct tg_pos *pos, uint64_t *rng,
                 const tg_move *moves, const double *prob, size_t n);
/* stats: NULL, or TG_STAT_COUNT counters that the playout adds to. */
size_t tg__playout(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng, size_t max_plies,
                   uint64_t *stats);
uint64_t tg__perft(const struct tg_config *cfg, const struct tg_pos *pos, unsigned depth);

#endif

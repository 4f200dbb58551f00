/* tg_state: a position plus its undo history. Undo is exact by construction: the history
 * keeps each earlier position whole. */
#include "internal.h"

#include <string.h>

tg_status tg__state_make(const struct tg_rules *rules, const struct tg_pos *pos, size_t history_cap,
                         tg_state **out)
{
    tg_state *s = tg__realloc(NULL, sizeof *s);
    if (!s)
        return TG_ERR_NO_MEMORY;
    memset(s, 0, sizeof *s);
    if (history_cap) {
        s->history = tg__realloc(NULL, history_cap * sizeof *s->history);
        if (!s->history) {
            tg__realloc(s, 0);
            return TG_ERR_NO_MEMORY;
        }
        s->history_cap = history_cap;
    }
    s->rules = *rules;
    s->pos = *pos;
    *out = s;
    return TG_OK;
}

/* Records the current position before `m` is applied, growing the history geometrically so
 * that a long game costs amortised constant time per move. The first growth is small: a
 * position is about 180 bytes, and the JavaScript package gives every changed clone its own
 * history, so 64 entries made each forgotten clone cost 11 KiB of wasm memory. */
tg_status tg__state_push(tg_state *s, tg_move m)
{
    if (s->history_len == s->history_cap) {
        size_t cap = s->history_cap ? s->history_cap * 2 : 8;
        if (cap > SIZE_MAX / sizeof *s->history)
            return TG_ERR_NO_MEMORY;
        struct tg_undo *grown = tg__realloc(s->history, cap * sizeof *grown);
        if (!grown)
            return TG_ERR_NO_MEMORY;
        s->history = grown;
        s->history_cap = cap;
    }
    s->history[s->history_len].before = s->pos;
    s->history[s->history_len].move = m;
    s->history_len++;
    return TG_OK;
}

/* Zobrist hashing with keys computed rather than tabulated: the key of (slot, value) is a
 * fixed 64-bit mix of both, so the hash is the same on every platform and in every run, needs
 * no table in memory and stays incrementally updatable (XOR a key out, XOR a key in). */
static uint64_t zobrist_key(uint64_t slot, uint64_t value)
{
    uint64_t z = (slot << 20 ^ value) + 0x9E3779B97F4A7C15u * (slot + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The hash with slot `i` after the cells holding `value` rather than 0. */
static uint64_t tail_slot(uint64_t h, const struct tg_config *cfg, size_t i, uint64_t value)
{
    return value ? h ^ cfg->hash_zero[i] ^ zobrist_key(TG__MAX_CELLS + i, value) : h;
}

void tg__hash_setup(struct tg_config *cfg)
{
    cfg->hash_zero_all = 0;
    for (size_t i = 0; i < TG__HASH_TAIL; i++) {
        cfg->hash_zero[i] = zobrist_key(TG__MAX_CELLS + i, 0);
        cfg->hash_zero_all ^= cfg->hash_zero[i];
    }
}

/* Every slot after the cells has a key, 0 included; most of them hold 0 in most positions
 * (the fields a game does not use, the winner of a running game), so the keys of 0 come
 * combined from the rules and only the other slots are mixed. The same hash, for 58% of the
 * instructions in a Walak-pussa search, where the hash had been a third of all of them. */
uint64_t tg__pos_hash(const struct tg_config *cfg, const struct tg_pos *pos)
{
    uint64_t h = cfg->hash_zero_all;
    for (int c = 0; c < cfg->cells; c++) {
        if (pos->cell[c])
            h ^= zobrist_key((uint64_t)c, pos->cell[c]);
    }
    h = tail_slot(h, cfg, 0, pos->score[0]);
    h = tail_slot(h, cfg, 1, pos->score[1]);
    h = tail_slot(h, cfg, 2, pos->quiet);
    h = tail_slot(h, cfg, 3, pos->side);
    h = tail_slot(h, cfg, 4, pos->phase);
    h = tail_slot(h, cfg, 5, (uint8_t)pos->winner);
    /* The fields eight at a time: most games leave most of them 0. */
    for (size_t at = 0; at < TG__MAX_FIELD_BYTES; at += 8) {
        uint64_t word;
        memcpy(&word, &pos->field[at], sizeof word);
        for (size_t i = at; word && i < at + 8; i++)
            h = tail_slot(h, cfg, 6 + i, pos->field[i]);
    }
    return h;
}

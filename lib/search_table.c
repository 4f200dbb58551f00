/* The `search` engine's memory: its transposition table (a key of its own per position,
 * buckets of two entries, a fixed replacement rule, the clearing of the pages a search wrote)
 * and its allocation with the handle. */
#include "search.h"

#include <string.h>

/* The table is cleared by pages of this many entries (4 KB), only those written since the
 * last clearing, with a look at the stop before each page and at the clock every 16. */
#define TT_CLEAR_CHUNK 256u
/* A bucket (two entries, 32 bytes) on one cache line rather than across two: a lookup is a
 * random access to the whole table, most of them a cache miss. */
#define TT_LINE ((size_t)64)

_Static_assert(sizeof(struct tg__tt_entry) == 16, "the documented table entry is 16 bytes");
_Static_assert(sizeof(struct tg__pn_entry) == sizeof(struct tg__tt_entry),
               "the prover's entries fill the same table");

static size_t dirty_words(size_t entries)
{
    size_t chunks = (entries + TT_CLEAR_CHUNK - 1) / TT_CLEAR_CHUNK;
    return (chunks + 63) / 64;
}

tg_status tg__engine_init(struct tg__engine *e, uint32_t tt_mb)
{
    memset(e, 0, sizeof *e);
    size_t entries = ((size_t)tt_mb << 20) / sizeof(struct tg__tt_entry);
    size_t bytes = entries * sizeof *e->tt;
    e->tt_block = tg__calloc(bytes + TT_LINE);
    if (!e->tt_block)
        return TG_ERR_NO_MEMORY;
    e->tt = (struct tg__tt_entry *)(void *)((char *)e->tt_block +
                                            (TT_LINE - (uintptr_t)e->tt_block % TT_LINE));
    e->tt_dirty = tg__calloc(dirty_words(entries) * sizeof *e->tt_dirty);
    if (!e->tt_dirty) {
        tg__realloc(e->tt_block, 0);
        e->tt = e->tt_block = NULL;
        return TG_ERR_NO_MEMORY;
    }
    e->tt_entries = entries;
    return TG_OK;
}

void tg__engine_release(struct tg__engine *e)
{
    tg__realloc(e->tt_block, 0);
    tg__realloc(e->tt_dirty, 0);
    tg__realloc(e->frames, 0);
    tg__realloc(e->levels, 0);
    memset(e, 0, sizeof *e);
}

/* The table's key of a position, the search's own (tg_state_hash() keeps its Zobrist hash):
 * the position's bytes as little-endian words, each word that is not 0 mixed with its index
 * by a bijective 64-bit finaliser, the results combined by XOR, so two positions that differ
 * in one word never share a key. A Walak-pussa position is three words here, where the
 * Zobrist hash mixes every occupied cell. The same key on every platform, so a search
 * bounded by nodes or depth fills its table alike everywhere. */
static uint64_t word_le(const uint8_t *b)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
        w = w << 8 | b[i];
    return w;
}

static uint64_t mix_word(uint64_t w, uint64_t index)
{
    uint64_t z = w + 0x9E3779B97F4A7C15u * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

uint64_t tg__table_key(const struct tg_config *cfg, const struct tg_pos *pos)
{
    /* Unused cells are 0 (game.h), so whole words of cells need no mask. */
    size_t words = ((size_t)cfg->cells + 7) / 8, index = 0;
    uint64_t key = 0;
    for (size_t w = 0; w < words; w++, index++) {
        uint64_t cells = word_le(&pos->cell[8 * w]);
        if (cells) /* At-Tab wa-d-Dukk's board is mostly empty */
            key ^= mix_word(cells, index);
    }
    uint64_t head = (uint64_t)pos->score[0] | (uint64_t)pos->score[1] << 16 |
                    (uint64_t)pos->quiet << 32 | (uint64_t)pos->side << 48 |
                    (uint64_t)pos->phase << 50 | (uint64_t)(uint8_t)pos->winner << 56;
    key ^= mix_word(head, index++);
    for (size_t at = 0; at < TG__MAX_FIELD_BYTES; at += 8, index++) {
        uint64_t fields = word_le(&pos->field[at]);
        if (fields)
            key ^= mix_word(fields, index);
    }
    return key;
}

/* Two entries a bucket: the first keeps the deeper search, the second the latest one. */
struct tg__tt_entry *tg__tt_probe(const struct tg__engine *e, uint64_t key)
{
    struct tg__tt_entry *b = &e->tt[(size_t)key & (e->tt_entries - 2)];
    if (b[0].flags && b[0].key == key)
        return &b[0];
    if (b[1].flags && b[1].key == key)
        return &b[1];
    return NULL;
}

void tg__tt_store(struct tg__engine *e, uint64_t key, int depth, int16_t value, unsigned flags,
                  tg_move move)
{
    struct tg__tt_entry *b = &e->tt[(size_t)key & (e->tt_entries - 2)];
    struct tg__tt_entry *slot = &b[1];
    if (!b[0].flags || b[0].key == key || (flags & TG__TT_PROVEN) ||
        (depth >= b[0].depth && !(b[0].flags & TG__TT_PROVEN)))
        slot = &b[0];
    tg__tt_mark(e, (size_t)(slot - e->tt));
    slot->key = key;
    slot->move = move;
    slot->value = value;
    slot->depth = (uint8_t)depth;
    slot->flags = (uint8_t)flags;
}

void tg__tt_mark(struct tg__engine *e, size_t index)
{
    size_t chunk = index / TT_CLEAR_CHUNK;
    e->tt_dirty[chunk / 64] |= (uint64_t)1 << (chunk % 64);
}

/* Every search starts from an empty table, so that no result depends on an earlier one.
 * Only the pages an earlier search wrote are cleared: the others were never touched, so
 * they cost neither the clearing nor their first faults (clearing the whole 8 MB table
 * after a short search took 90 ms of page faults on this project's virtual machine).
 * Clearing is the one long step without positions, so it looks at the stop before each
 * page (and at the clock every 16). */
bool tg__tt_clear(struct tg__engine *e, struct tg__control *ctl)
{
    size_t chunks = (e->tt_entries + TT_CLEAR_CHUNK - 1) / TT_CLEAR_CHUNK, cleared = 0;
    for (size_t k = 0; k < chunks; k++) {
        uint64_t bit = (uint64_t)1 << (k % 64);
        if (!(e->tt_dirty[k / 64] & bit))
            continue;
        if (tg__control_poll(ctl, cleared++ % 16 == 0))
            return false;
        size_t at = k * TT_CLEAR_CHUNK;
        size_t len = e->tt_entries - at < TT_CLEAR_CHUNK ? e->tt_entries - at : TT_CLEAR_CHUNK;
        memset(&e->tt[at], 0, len * sizeof *e->tt);
        e->tt_dirty[k / 64] &= ~bit;
    }
    return true;
}

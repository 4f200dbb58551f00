/* A reader: one thread's way into an open directory. tg_egtb_probe() may be called from any
 * thread but pays for a decompression context and a whole block on every call; a reader keeps
 * its own context, read buffer and the last few blocks it decompressed, so the probes of a
 * search (which come in runs on neighbouring positions) mostly cost a rank and a look-up. It is
 * written by every probe, hence one reader per thread; the directory itself stays read-only. */
#include "probe.h"

#include <string.h>

/* Blocks kept: 1 MB a reader. A position's children lie in its own file's next layer or in
 * the first layers of smaller files, so a search returns to the same blocks often; the gain
 * is measured by `tg-egtb bench` (docs/strength.md). */
enum { CACHED_BLOCKS = 16 };

struct cached_block {
    bool filled;
    unsigned counters;
    uint64_t block;
    uint64_t last_use;
    int8_t values[TG__EGTB_BLOCK_ENTRIES];
};

struct tg_egtb_reader {
    const tg_egtb *db;
    struct tg__egtb_scratch scratch;
    uint64_t uses;
    struct cached_block cache[CACHED_BLOCKS];
};

tg_egtb_status tg_egtb_reader_new(const tg_egtb *db, tg_egtb_reader **out)
{
    if (!db || !out)
        return TG_EGTB_BAD_ARGUMENT;
    tg_egtb_reader *r = tg__realloc(NULL, sizeof *r);
    if (!r)
        return TG_EGTB_NO_MEMORY;
    r->db = db;
    memset(&r->scratch, 0, sizeof r->scratch);
    r->uses = 0;
    for (int i = 0; i < CACHED_BLOCKS; i++)
        r->cache[i].filled = false;
    *out = r;
    return TG_EGTB_OK;
}

void tg_egtb_reader_free(tg_egtb_reader *reader)
{
    if (!reader)
        return;
    tg__egtb_scratch_release(&reader->scratch);
    tg__realloc(reader, 0);
}

const tg_egtb *tg__egtb_reader_db(const tg_egtb_reader *reader)
{
    return reader->db;
}

/* The cached block holding `where`, read into the least recently used slot if absent. A block
 * that fails its checks leaves that slot empty, so a damaged block is never served. */
static tg_egtb_status block_for(tg_egtb_reader *r, const struct tg__egtb_where *where,
                                const struct cached_block **out)
{
    struct cached_block *victim = &r->cache[0];
    r->uses++;
    for (int i = 0; i < CACHED_BLOCKS; i++) {
        struct cached_block *c = &r->cache[i];
        if (c->filled && c->counters == where->counters && c->block == where->block) {
            c->last_use = r->uses;
            *out = c;
            return TG_EGTB_OK;
        }
        if (!c->filled || (victim->filled && c->last_use < victim->last_use))
            victim = c;
    }
    size_t got = 0;
    victim->filled = false;
    tg_egtb_status st = tg__egtb_read_block(where->fd, where->header, where->block, victim->values,
                                            &got, &r->scratch);
    if (st != TG_EGTB_OK)
        return st;
    victim->filled = true;
    victim->counters = where->counters;
    victim->block = where->block;
    victim->last_use = r->uses;
    *out = victim;
    return TG_EGTB_OK;
}

tg_egtb_status tg__egtb_reader_probe_pos(tg_egtb_reader *reader, const struct tg_pos *pos,
                                         tg_egtb_value *out)
{
    struct tg__egtb_where where;
    tg_egtb_status st = tg__egtb_locate(reader->db, pos, &where);
    const struct cached_block *block = NULL;
    if (st == TG_EGTB_OK)
        st = block_for(reader, &where, &block);
    return st == TG_EGTB_OK ? tg__egtb_decode(pos, block->values[where.entry], out) : st;
}

tg_egtb_status tg_egtb_reader_probe(tg_egtb_reader *reader, const tg_state *s, tg_egtb_value *out)
{
    if (!reader || !s || !out)
        return TG_EGTB_BAD_ARGUMENT;
    if (!tg__rules_same(&s->rules, tg__egtb_rules(reader->db)))
        return TG_EGTB_WRONG_RULES;
    return tg__egtb_reader_probe_pos(reader, &s->pos, out);
}

/* Reading a database directory: every file's header checked at open, one block read and
 * decompressed per probe (readers, reader.c, keep blocks and a context from probe to probe).
 * The handle is never written after tg_egtb_open() and blocks are read with pread() (file.c;
 * in the WebAssembly build the host's reads, host.c), so probes need no lock. */
#include "probe.h"

#include "../mancala/board.h"

#include <string.h>

struct tier_file {
    tg_egtb_status status; /* TG_EGTB_OK when the file is there and sound */
    int fd;
    struct tg_egtb_header header;
    struct tg_egtb_tier *shape;
};

struct tg_egtb {
    struct tg_rules rules;
    struct tier_file tier[TG__MAX_CELLS];
    int max_counters;  /* largest sound file */
    int last_present;  /* largest file present, sound or not */
};

const char *tg_egtb_status_string(tg_egtb_status s)
{
    switch (s) {
    case TG_EGTB_OK:
        return "ok";
    case TG_EGTB_BAD_ARGUMENT:
        return "bad argument";
    case TG_EGTB_UNSUPPORTED:
        return "no endgame database for these rules";
    case TG_EGTB_NOT_IN_DATABASE:
        return "position not in the database";
    case TG_EGTB_MISSING_FILE:
        return "database file missing";
    case TG_EGTB_DAMAGED:
        return "database file damaged";
    case TG_EGTB_WRONG_RULES:
        return "database of other rules";
    case TG_EGTB_IO_ERROR:
        return "input/output error";
    case TG_EGTB_NO_MEMORY:
        return "out of memory";
    }
    return "unknown status";
}

tg_egtb_status tg_egtb_supported(const tg_rules *r)
{
    return r ? tg__egtb_supported(&r->cfg) : TG_EGTB_BAD_ARGUMENT;
}

static tg_egtb_status open_tier(tg_egtb *db, const char *dir, unsigned n)
{
    struct tier_file *tf = &db->tier[n];
    tf->fd = -1;
    char path[4096];
    if (!tg__egtb_file_name(&db->rules.cfg, n, dir, path, sizeof path))
        return TG_EGTB_BAD_ARGUMENT;
    tg_egtb_status opened = tg__egtb_file_open(path, &tf->fd);
    if (opened != TG_EGTB_OK)
        return opened;
    tf->shape = tg__realloc(NULL, sizeof *tf->shape);
    if (!tf->shape)
        return TG_EGTB_NO_MEMORY;
    if (!tg__egtb_tier_make(&db->rules.cfg, n, tf->shape))
        return TG_EGTB_NOT_IN_DATABASE;
    tg_egtb_status st = tg__egtb_read_header(tf->fd, &tf->header);
    if (st != TG_EGTB_OK)
        return st;
    const struct tg_egtb_header *h = &tf->header;
    if (strcmp(h->spec, db->rules.spec) != 0)
        return TG_EGTB_WRONG_RULES;
    /* Same rules, so the shape must be the one computed here: anything else is damage. */
    if (h->holes != tf->shape->holes || h->counters != n || h->quiet != tf->shape->quiet ||
        h->layer_entries != tf->shape->layer_entries ||
        h->block_count != (uint64_t)h->quiet * tf->shape->layer_blocks)
        return TG_EGTB_DAMAGED;
    return TG_EGTB_OK;
}

tg_egtb_status tg_egtb_open(const char *dir, const tg_rules *r, tg_egtb **out)
{
    if (!dir || !r || !out)
        return TG_EGTB_BAD_ARGUMENT;
    tg_egtb_status st = tg__egtb_supported(&r->cfg);
    if (st != TG_EGTB_OK)
        return st;
    st = tg__egtb_dir_check(dir);
    if (st != TG_EGTB_OK)
        return st;
    tg_egtb *db = tg__calloc(sizeof *db);
    if (!db)
        return TG_EGTB_NO_MEMORY;
    db->rules = *r;
    for (unsigned n = 0; n < TG__MAX_CELLS; n++) {
        db->tier[n].fd = -1;
        db->tier[n].status = TG_EGTB_NOT_IN_DATABASE;
    }
    for (unsigned n = 1; n <= (unsigned)r->cfg.total; n++) {
        if (!tg__egtb_tier_exists(&r->cfg, n))
            continue;
        struct tier_file *tf = &db->tier[n];
        tf->status = open_tier(db, dir, n);
        if (tf->status == TG_EGTB_NO_MEMORY) {
            tg_egtb_close(db);
            return TG_EGTB_NO_MEMORY;
        }
        if (tf->status != TG_EGTB_MISSING_FILE)
            db->last_present = (int)n;
        if (tf->status == TG_EGTB_OK)
            db->max_counters = (int)n;
    }
    *out = db;
    return TG_EGTB_OK;
}

int tg_egtb_max_counters(const tg_egtb *db)
{
    return db ? db->max_counters : 0;
}

const struct tg_rules *tg__egtb_rules(const tg_egtb *db)
{
    return &db->rules;
}

tg_egtb_status tg__egtb_locate(const tg_egtb *db, const struct tg_pos *pos,
                               struct tg__egtb_where *where)
{
    const struct tg_config *cfg = &db->rules.cfg;
    if (pos->phase != TG__DECIDE || pos->quiet >= cfg->quiet_limit)
        return TG_EGTB_NOT_IN_DATABASE;
    unsigned n = tg__mancala_board_total(cfg, pos);
    if (n == 0 || (int)n > db->last_present)
        return TG_EGTB_NOT_IN_DATABASE;
    const struct tier_file *tf = &db->tier[n];
    if (tf->status != TG_EGTB_OK)
        return tf->status;
    const struct tg_egtb_tier *t = tf->shape;
    uint64_t at = pos->side * t->boards + tg__egtb_rank(t, pos->cell);
    where->fd = tf->fd;
    where->header = &tf->header;
    where->counters = n;
    where->block = pos->quiet * t->layer_blocks + at / TG__EGTB_BLOCK_ENTRIES;
    where->entry = (size_t)(at % TG__EGTB_BLOCK_ENTRIES);
    return TG_EGTB_OK;
}

tg_egtb_status tg__egtb_decode(const struct tg_pos *pos, int stored, tg_egtb_value *out)
{
    /* A running position always has a move, so its entry is never the no-position mark. */
    if (stored == TG__EGTB_NO_POSITION)
        return TG_EGTB_DAMAGED;
    int me = pos->side;
    int banked = (int)pos->score[me] - (int)pos->score[1 - me];
    tg_egtb_value value = {0, 0, 0, 0};
    if (stored == TG__EGTB_WIN_ENDLESS || stored == TG__EGTB_LOSS_ENDLESS) {
        value.outcome = stored > 0 ? 1 : -1;
        value.endless = 1;
    } else {
        value.margin_to_go = stored;
        value.final_margin = banked + stored;
        value.outcome = (value.final_margin > 0) - (value.final_margin < 0);
    }
    *out = value;
    return TG_EGTB_OK;
}

tg_egtb_status tg_egtb_probe(const tg_egtb *db, const tg_state *s, tg_egtb_value *out)
{
    if (!db || !s || !out)
        return TG_EGTB_BAD_ARGUMENT;
    if (!tg__rules_same(&s->rules, &db->rules))
        return TG_EGTB_WRONG_RULES;
    struct tg__egtb_where where;
    tg_egtb_status st = tg__egtb_locate(db, &s->pos, &where);
    if (st != TG_EGTB_OK)
        return st;
    int8_t *values = tg__realloc(NULL, TG__EGTB_BLOCK_ENTRIES);
    if (!values)
        return TG_EGTB_NO_MEMORY;
    size_t got = 0;
    st = tg__egtb_read_block(where.fd, where.header, where.block, values, &got, NULL);
    int v = st == TG_EGTB_OK ? values[where.entry] : 0;
    tg__realloc(values, 0);
    return st == TG_EGTB_OK ? tg__egtb_decode(&s->pos, v, out) : st;
}

void tg_egtb_close(tg_egtb *db)
{
    if (!db)
        return;
    for (unsigned n = 0; n < TG__MAX_CELLS; n++) {
        struct tier_file *tf = &db->tier[n];
        tg__egtb_file_close(tf->fd);
        tg__egtb_header_free(&tf->header);
        tg__realloc(tf->shape, 0);
    }
    tg__realloc(db, 0);
}

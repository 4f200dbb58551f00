/* pread, fileno, O_CLOEXEC: POSIX.1-2008 beyond C11. */
#define _POSIX_C_SOURCE 200809L

/* Solving by counter number (docs/egtb.md, "How the files are solved"): a position with n
 * counters on the board leads only to positions with n counters (a move that captures nothing)
 * or fewer (a capture, which also restarts the quiet count). So within one n the value at quiet
 * count K depends only on values at K + 1 and on the quiet count 0 of smaller n: the layers are
 * solved from K = quiet - 1 down to 0, each one pass, with no fixed point to wait for. Every
 * move is the library's own (tg_game.moves and tg__play), so the database follows whatever the
 * rules code does. */
#include "file.h"

#include "../mancala/board.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A child's entry: its index in the layer, and this bit when the mover moves again (the value
 * then counts for, not against, the mover). */
#define SAME_SIDE (UINT32_C(1) << 31)

/* The moves of the positions of one block, solved once per counter number and then read by
 * every layer: the best move that ends the game, captures or is endless (its value does not
 * depend on the quiet count), the best quiet end (the last layer's value of the other moves),
 * and the quiet moves' children. */
struct chunk {
    uint64_t first;    /* layer index of its first position */
    size_t n;          /* positions */
    int8_t *fixed;     /* best value of the moves above, or TG__EGTB_NO_POSITION if none */
    int8_t *quiet_end; /* best value of a quiet move at the quiet limit, likewise */
    uint8_t *children; /* quiet moves per position */
    uint32_t *child;   /* their layer indices, SAME_SIDE or-ed in */
    void *packed;      /* this chunk's block of the current layer, compressed */
    size_t packed_size;
};

struct build {
    const struct tg_rules *rules;
    const struct tg_config *cfg;
    struct tg_egtb_tier *tiers[TG__MAX_CELLS]; /* shape of each counter number solved */
    int8_t *zero[TG__MAX_CELLS];               /* its layer at quiet count 0 */
    unsigned counters;                         /* the one being solved */
    struct chunk *chunks;
    size_t chunk_count;
    int8_t *prev, *cur;
    unsigned layer; /* quiet count being solved */
    _Atomic uint64_t running; /* running positions of the layer at quiet count 0 */
    unsigned threads;
    atomic_size_t next;
    atomic_int failed; /* a tg_egtb_status, or 0 */
    void (*job)(struct build *b, struct chunk *c);
};

static double now_seconds(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(struct build *b, tg_egtb_status st)
{
    int expected = 0;
    atomic_compare_exchange_strong(&b->failed, &expected, (int)st);
}

/* The value of a move for its mover: what it gained, then the value of what follows, taken for
 * the mover if they move again and against them otherwise; an endless result stays one. */
static int combine(int gain, bool same_side, int after)
{
    if (after == TG__EGTB_WIN_ENDLESS || after == TG__EGTB_LOSS_ENDLESS)
        return same_side ? after : -after;
    return gain + (same_side ? after : -after);
}

static int score_gain(const struct tg_pos *pos, int me)
{
    return (int)pos->score[me] - (int)pos->score[1 - me];
}

static void position_of(const struct build *b, const struct tg_egtb_tier *t, uint64_t index,
                        struct tg_pos *pos)
{
    memset(pos, 0, sizeof *pos);
    tg__egtb_unrank(t, index % t->boards, pos->cell);
    pos->side = (uint8_t)(index / t->boards);
    pos->phase = TG__DECIDE;
    pos->winner = TG_NO_WINNER_YET;
    (void)b;
}

/* The moves of one position, sorted into the chunk's tables. */
static void solve_moves(struct build *b, struct chunk *c, size_t i, uint32_t *child_out,
                        unsigned *child_count)
{
    const struct tg_config *cfg = b->cfg;
    const struct tg_egtb_tier *t = b->tiers[b->counters];
    struct tg_pos pos;
    position_of(b, t, c->first + i, &pos);
    int me = pos.side;
    tg_move moves[TG__MAX_MOVES];
    size_t n = cfg->game->moves(cfg, &pos, moves);
    int fixed = TG__EGTB_NO_POSITION, quiet_end = TG__EGTB_NO_POSITION;
    unsigned k = 0;
    for (size_t m = 0; m < n; m++) {
        struct tg_pos after = pos;
        uint64_t result = tg__play(cfg, &after, moves[m]);
        int value;
        if (result & TG__ENDLESS) {
            value = TG__EGTB_LOSS_ENDLESS;
        } else if (after.phase == TG__OVER) {
            value = score_gain(&after, me);
        } else {
            unsigned left = tg__mancala_board_total(cfg, &after);
            bool same_side = after.side == me;
            if (left < b->counters) {
                const struct tg_egtb_tier *lower = b->tiers[left];
                if (!lower || !(result & TG__CAPTURED)) {
                    fail(b, TG_EGTB_UNSUPPORTED);
                    return;
                }
                uint64_t at = after.side * lower->boards + tg__egtb_rank(lower, after.cell);
                int v = b->zero[left][at];
                if (v == TG__EGTB_NO_POSITION) {
                    fail(b, TG_EGTB_UNSUPPORTED);
                    return;
                }
                value = combine(score_gain(&after, me), same_side, v);
            } else {
                /* A quiet move: its value depends on the quiet count, read layer by layer. */
                if (score_gain(&after, me) != 0 || (result & TG__CAPTURED)) {
                    fail(b, TG_EGTB_UNSUPPORTED);
                    return;
                }
                uint64_t at = after.side * t->boards + tg__egtb_rank(t, after.cell);
                child_out[k++] = (uint32_t)at | (same_side ? SAME_SIDE : 0);
                /* The same move one short of the quiet limit, ended by the library itself. */
                struct tg_pos last = pos;
                last.quiet = (uint16_t)(cfg->quiet_limit - 1);
                tg__play(cfg, &last, moves[m]);
                if (last.phase != TG__OVER) {
                    fail(b, TG_EGTB_UNSUPPORTED);
                    return;
                }
                int q = score_gain(&last, me);
                if (q > quiet_end)
                    quiet_end = q;
                continue;
            }
        }
        if (value > fixed)
            fixed = value;
    }
    c->fixed[i] = (int8_t)fixed;
    c->quiet_end[i] = (int8_t)quiet_end;
    c->children[i] = (uint8_t)k;
    *child_count = k;
}

static void job_moves(struct build *b, struct chunk *c)
{
    uint32_t *child = tg__realloc(NULL, c->n * b->cfg->max_moves * sizeof *child);
    c->fixed = tg__realloc(NULL, c->n);
    c->quiet_end = tg__realloc(NULL, c->n);
    c->children = tg__realloc(NULL, c->n);
    if (!child || !c->fixed || !c->quiet_end || !c->children) {
        tg__realloc(child, 0);
        fail(b, TG_EGTB_NO_MEMORY);
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < c->n && !atomic_load(&b->failed); i++) {
        unsigned k = 0;
        solve_moves(b, c, i, child + total, &k);
        total += k;
    }
    /* Kept at its size: the lists are the largest table of the build. */
    uint32_t *fit = tg__realloc(child, (total ? total : 1) * sizeof *child);
    c->child = fit ? fit : child;
}

/* One layer of one chunk: the best of the fixed moves and the quiet moves' children at the
 * next quiet count (or their quiet end at the last count), then the block compressed. */
static void job_layer(struct build *b, struct chunk *c)
{
    int8_t *out = b->cur + c->first;
    bool last = b->layer + 1 == b->cfg->quiet_limit;
    const uint32_t *child = c->child;
    uint64_t running = 0;
    for (size_t i = 0; i < c->n; i++) {
        int best = c->fixed[i];
        unsigned k = c->children[i];
        if (last) {
            if (k && c->quiet_end[i] > best)
                best = c->quiet_end[i];
        } else {
            for (unsigned j = 0; j < k; j++) {
                int v = b->prev[child[j] & ~SAME_SIDE];
                int mine = combine(0, (child[j] & SAME_SIDE) != 0, v);
                if (mine > best)
                    best = mine;
            }
        }
        child += k;
        running += best != TG__EGTB_NO_POSITION;
        out[i] = (int8_t)best;
    }
    c->packed_size = tg__egtb_compress(out, c->n, c->packed, tg__egtb_block_bound());
    if (!c->packed_size)
        fail(b, TG_EGTB_NO_MEMORY);
    /* Counted once, at quiet count 0 (every layer has the same running positions). */
    if (b->layer == 0)
        atomic_fetch_add(&b->running, running);
}

static void *worker(void *arg)
{
    struct build *b = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&b->next, 1);
        if (i >= b->chunk_count || atomic_load(&b->failed))
            return NULL;
        b->job(b, &b->chunks[i]);
    }
}

/* Runs b->job on every chunk with b->threads threads (the caller is one of them). */
static void run_jobs(struct build *b, void (*job)(struct build *, struct chunk *))
{
    b->job = job;
    atomic_store(&b->next, 0);
    pthread_t tid[256];
    unsigned started = 0;
    for (unsigned i = 1; i < b->threads; i++, started++)
        if (pthread_create(&tid[started], NULL, worker, b) != 0)
            break;
    worker(b);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

static void free_chunks(struct build *b)
{
    for (size_t i = 0; i < b->chunk_count; i++) {
        struct chunk *c = &b->chunks[i];
        tg__realloc(c->fixed, 0);
        tg__realloc(c->quiet_end, 0);
        tg__realloc(c->children, 0);
        tg__realloc(c->child, 0);
        tg__realloc(c->packed, 0);
    }
    tg__realloc(b->chunks, 0);
    b->chunks = NULL;
    b->chunk_count = 0;
}

/* The layer at quiet count 0 of a file already built, instead of building it again. */
static tg_egtb_status load_zero_layer(struct build *b, const char *path, int8_t **out)
{
    const struct tg_egtb_tier *t = b->tiers[b->counters];
    FILE *f = fopen(path, "rb");
    if (!f)
        return TG_EGTB_MISSING_FILE;
    struct tg_egtb_header h;
    tg_egtb_status st = tg__egtb_read_header(fileno(f), &h);
    if (st == TG_EGTB_OK && (strcmp(h.spec, b->rules->spec) != 0 || h.counters != t->counters ||
                             h.quiet != t->quiet || h.layer_entries != t->layer_entries))
        st = TG_EGTB_WRONG_RULES;
    int8_t *layer = st == TG_EGTB_OK ? tg__realloc(NULL, (size_t)t->layer_entries) : NULL;
    if (st == TG_EGTB_OK && !layer)
        st = TG_EGTB_NO_MEMORY;
    for (uint64_t j = 0; st == TG_EGTB_OK && j < t->layer_blocks; j++) {
        size_t n;
        st = tg__egtb_read_block(fileno(f), &h, j, layer + j * TG__EGTB_BLOCK_ENTRIES, &n, NULL);
    }
    tg__egtb_header_free(&h);
    fclose(f);
    if (st != TG_EGTB_OK) {
        tg__realloc(layer, 0);
        return st;
    }
    *out = layer;
    return TG_EGTB_OK;
}

static tg_egtb_status make_chunks(struct build *b)
{
    const struct tg_egtb_tier *t = b->tiers[b->counters];
    b->chunk_count = (size_t)t->layer_blocks;
    b->chunks = tg__calloc(b->chunk_count * sizeof *b->chunks);
    if (!b->chunks)
        return TG_EGTB_NO_MEMORY;
    for (size_t i = 0; i < b->chunk_count; i++) {
        struct chunk *c = &b->chunks[i];
        c->first = (uint64_t)i * TG__EGTB_BLOCK_ENTRIES;
        c->n = (size_t)(t->layer_entries - c->first < TG__EGTB_BLOCK_ENTRIES
                            ? t->layer_entries - c->first
                            : TG__EGTB_BLOCK_ENTRIES);
        c->packed = tg__realloc(NULL, tg__egtb_block_bound());
        if (!c->packed)
            return TG_EGTB_NO_MEMORY;
    }
    return TG_EGTB_OK;
}

/* Solves one counter number into `path`; its layer at quiet count 0 stays in b->zero. */
static tg_egtb_status solve_tier(struct build *b, const char *path, tg_egtb_tier_report *report)
{
    const struct tg_egtb_tier *t = b->tiers[b->counters];
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return TG_EGTB_BAD_ARGUMENT;
    tg_egtb_status st = make_chunks(b);
    b->prev = tg__realloc(NULL, (size_t)t->layer_entries);
    b->cur = tg__realloc(NULL, (size_t)t->layer_entries);
    if (st == TG_EGTB_OK && (!b->prev || !b->cur))
        st = TG_EGTB_NO_MEMORY;
    if (st == TG_EGTB_OK) {
        run_jobs(b, job_moves);
        st = (tg_egtb_status)atomic_load(&b->failed);
    }
    struct tg_egtb_writer w;
    bool writing = false;
    if (st == TG_EGTB_OK) {
        st = tg__egtb_writer_open(&w, tmp, b->rules, t);
        writing = st == TG_EGTB_OK;
    }
    atomic_store(&b->running, 0);
    for (unsigned k = b->cfg->quiet_limit; st == TG_EGTB_OK && k-- > 0;) {
        b->layer = k;
        run_jobs(b, job_layer);
        st = (tg_egtb_status)atomic_load(&b->failed);
        for (size_t i = 0; st == TG_EGTB_OK && i < b->chunk_count; i++)
            st = tg__egtb_writer_block(&w, (uint64_t)k * t->layer_blocks + i,
                                       b->chunks[i].packed, b->chunks[i].packed_size);
        int8_t *swap = b->prev;
        b->prev = b->cur;
        b->cur = swap;
    }
    if (writing) {
        if (st == TG_EGTB_OK) {
            report->file_bytes = w.offset;
            st = tg__egtb_writer_finish(&w);
        } else {
            tg__egtb_writer_abandon(&w);
        }
        if (st == TG_EGTB_OK && rename(tmp, path) != 0)
            st = TG_EGTB_IO_ERROR;
        if (st != TG_EGTB_OK)
            remove(tmp);
    }
    free_chunks(b);
    tg__realloc(b->cur, 0);
    b->cur = NULL;
    if (st == TG_EGTB_OK) {
        b->zero[b->counters] = b->prev; /* the last layer solved: quiet count 0 */
        report->running = atomic_load(&b->running) * b->cfg->quiet_limit;
    } else {
        tg__realloc(b->prev, 0);
    }
    b->prev = NULL;
    return st;
}

tg_egtb_status tg_egtb_build(const tg_rules *r, const char *dir, int counters, unsigned threads,
                             tg_egtb_progress_fn *progress, void *ctx)
{
    if (!r || !dir || threads < 1 || threads > 256 || counters < 1)
        return TG_EGTB_BAD_ARGUMENT;
    tg_egtb_status st = tg__egtb_supported(&r->cfg);
    if (st != TG_EGTB_OK)
        return st;
    if (counters > r->cfg.total)
        return TG_EGTB_BAD_ARGUMENT;
    struct build b;
    memset(&b, 0, sizeof b);
    b.rules = r;
    b.cfg = &r->cfg;
    b.threads = threads;
    atomic_init(&b.next, 0);
    atomic_init(&b.failed, 0);
    atomic_init(&b.running, 0);
    for (unsigned n = 1; st == TG_EGTB_OK && n <= (unsigned)counters; n++) {
        if (!tg__egtb_tier_exists(b.cfg, n))
            continue;
        double start = now_seconds();
        b.tiers[n] = tg__realloc(NULL, sizeof *b.tiers[n]);
        if (!b.tiers[n]) {
            st = TG_EGTB_NO_MEMORY;
            break;
        }
        if (!tg__egtb_tier_make(b.cfg, n, b.tiers[n])) {
            st = TG_EGTB_BAD_ARGUMENT;
            break;
        }
        char path[4096];
        if (!tg__egtb_file_name(b.cfg, n, dir, path, sizeof path)) {
            st = TG_EGTB_BAD_ARGUMENT;
            break;
        }
        b.counters = n;
        tg_egtb_tier_report report = {(int)n, b.tiers[n]->layer_entries * b.cfg->quiet_limit,
                                      0, 0, 0.0};
        st = load_zero_layer(&b, path, &b.zero[n]);
        if (st == TG_EGTB_MISSING_FILE)
            st = solve_tier(&b, path, &report);
        else if (st == TG_EGTB_OK)
            for (uint64_t i = 0; i < b.tiers[n]->layer_entries; i++)
                report.running += (b.zero[n][i] != TG__EGTB_NO_POSITION) * b.cfg->quiet_limit;
        if (st != TG_EGTB_OK)
            break;
        FILE *f = fopen(path, "rb");
        if (f && fseek(f, 0, SEEK_END) == 0)
            report.file_bytes = (uint64_t)ftell(f);
        if (f)
            fclose(f);
        report.seconds = now_seconds() - start;
        if (progress)
            progress(ctx, &report);
    }
    for (size_t n = 0; n < TG__MAX_CELLS; n++) {
        tg__realloc(b.tiers[n], 0);
        tg__realloc(b.zero[n], 0);
    }
    return st;
}

/* The `search` engine: negamax alpha-beta with principal-variation windows, iterative
 * deepening and a transposition table, with expectimax at chance states (At-Tab
 * wa-d-Dukk's throws). Players need not alternate: a child whose side to move is the same
 * player is searched without negation. Values are integers (centi-counters of score lead;
 * results as +-WIN), so a search bounded by nodes or depth is the same on every platform.
 *
 * A value is proven when it holds for every ending: every child it rests on was proven (a
 * finished game, a proven table entry), or its best child is a proven win, which nothing
 * can better. A heuristic leaf is never proven. */
#include "bot.h"

#include <stdint.h>
#include <string.h>

#define MAX_PLY 128
#define INF 32000
#define WIN 30000
#define WIN_MIN (WIN - 1000) /* a value beyond this is a result, won or lost */
#define EVAL_MAX (WIN_MIN - 1)
#define NO_MOVE 0xFFFFFFFFu
#define CLOCK_EVERY 256u /* positions between two reads of the clock */
/* The table is cleared by pages of this many entries (4 KB), only those written since the
 * last clearing, with a look at the stop before each page and at the clock every 16. */
#define TT_CLEAR_CHUNK 256u
/* A bucket (two entries, 32 bytes) on one cache line rather than across two: a lookup is a
 * random access to the whole table, most of them a cache miss. */
#define TT_LINE ((size_t)64)

enum { TT_UPPER = 1, TT_LOWER = 2, TT_EXACT = 3, TT_BOUND = 3, TT_PROVEN = 4 };

/* 16 bytes on every platform, so that a table of a given size holds the same number of
 * entries everywhere (and replaces the same ones). */
struct tg__tt_entry {
    uint64_t key;
    tg_move move;
    int16_t value;
    uint8_t depth;
    uint8_t flags; /* 0: empty */
};

_Static_assert(sizeof(struct tg__tt_entry) == 16, "the documented table entry is 16 bytes");

struct ctx {
    struct tg__engine *e;
    const struct tg_config *cfg;
    struct tg__control *ctl;
    bool adjust;   /* results are nearer the larger: not where throws average them */
    bool majority; /* more than half the counters in score is a won game (Halusa) */
    bool stopped;
    uint64_t nodes, node_limit;
    tg_move killer[MAX_PLY][2];
    /* The root's options: kept here rather than on the stack (WebAssembly's is 64 KB). */
    struct root_item {
        int value;
        bool proven;
    } item[TG__MAX_MOVES];
    size_t order[TG__MAX_MOVES];
};

/* ---- memory -------------------------------------------------------------------------- */

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
    memset(e, 0, sizeof *e);
}

/* One ply's scratch: the children of the options, the options and their ordering keys. */
struct frame {
    struct tg_pos *child;
    tg_move *move;
    int32_t *key;
    double *prob;
};

/* A ply's arrays by decreasing alignment (probabilities, moves and keys, positions), each
 * ply's block rounded to 8 bytes, so that every array is aligned for its type. */
static size_t frame_bytes(size_t moves)
{
    size_t n = moves * (sizeof(double) + sizeof(tg_move) + sizeof(int32_t) + sizeof(struct tg_pos));
    return (n + 7) & ~(size_t)7;
}

static tg_status frames_reserve(struct tg__engine *e, size_t moves)
{
    if (e->frames && e->frame_moves >= moves)
        return TG_OK;
    void *p = tg__realloc(e->frames, frame_bytes(moves) * MAX_PLY);
    if (!p)
        return TG_ERR_NO_MEMORY;
    e->frames = p;
    e->frame_moves = moves;
    return TG_OK;
}

static struct frame frame_at(const struct tg__engine *e, int ply)
{
    size_t n = e->frame_moves;
    char *base = (char *)e->frames + frame_bytes(n) * (size_t)ply;
    struct frame f;
    f.prob = (double *)(void *)base;
    f.move = (tg_move *)(void *)(base + n * sizeof(double));
    f.key = (int32_t *)(void *)(base + n * (sizeof(double) + sizeof(tg_move)));
    f.child =
        (struct tg_pos *)(void *)(base + n * (sizeof(double) + sizeof(tg_move) + sizeof(int32_t)));
    return f;
}

/* ---- values -------------------------------------------------------------------------- */

/* The heuristic: the score lead in centi-counters (captured counters in Halusa, Hawalis and
 * Walak-pussa, counters in own rows in Hus, captured pieces in At-Tab wa-d-Dukk); in Halusa
 * 0.3 a counter of the lead on the board (the counters on one's own row: what the quiet limit
 * gives each player, and the material that captures come from); in Walak-pussa 0.6 a counter
 * of the lead on the board (either ending gives each player their own row) less 0.7 for each
 * more empty hole on one's row (an empty hole is where the opponent's sowing stops and
 * captures the hole after it): a least-squares fit to self-play results gave both signs,
 * and matches against mcts chose these weights near it (docs/strength.md); in At-Tab
 * wa-d-Dukk 0.3 of a piece for each piece freed from its home row. */
static int evaluate(const struct ctx *c, const struct tg_pos *pos, int me)
{
    long v = 100L * ((long)pos->score[me] - (long)pos->score[1 - me]);
    const struct tg_config *cfg = c->cfg;
    if (cfg->game == &tg__halusa) {
        long own = 0, all = 0;
        for (int cell = 0; cell < cfg->cells; cell++)
            all += pos->cell[cell];
        for (int cell = me * cfg->cols; cell < (me + 1) * cfg->cols; cell++)
            own += pos->cell[cell];
        v += 30 * (2 * own - all);
    }
    if (cfg->game == &tg__walak_pussa) {
        long row[2] = {0, 0}, empty[2] = {0, 0};
        for (int r = 0; r < 2; r++)
            for (int cell = r * cfg->cols; cell < (r + 1) * cfg->cols; cell++) {
                row[r] += pos->cell[cell];
                empty[r] += pos->cell[cell] == 0;
            }
        v += 60 * (row[me] - row[1 - me]) - 70 * (empty[me] - empty[1 - me]);
    }
    if (cfg->game == &tg__tab) {
        for (int cell = 0; cell < cfg->cells; cell++) {
            int owner = cfg->game->owner(cfg, pos, cell);
            if (owner < 0 || cfg->game->flags(cfg, pos, cell) & TG_CELL_LOCKED)
                continue;
            long pieces = cfg->game->count(cfg, pos, cell);
            v += owner == me ? 30 * pieces : -30 * pieces;
        }
    }
    return v > EVAL_MAX ? EVAL_MAX : v < -EVAL_MAX ? -EVAL_MAX : (int)v;
}

static int result_value(const struct ctx *c, const struct tg_pos *over, int me, int ply)
{
    if (over->winner == TG_DRAW)
        return 0;
    int v = WIN - (c->adjust ? ply : 0);
    return over->winner == me ? v : -v;
}

/* Results are stored as distances from the node, not from the root. */
static int16_t to_tt(const struct ctx *c, int v, int ply)
{
    if (c->adjust && v >= WIN_MIN)
        v += ply;
    else if (c->adjust && v <= -WIN_MIN)
        v -= ply;
    return (int16_t)v;
}

static int from_tt(const struct ctx *c, int v, int ply)
{
    if (c->adjust && v >= WIN_MIN)
        return v - ply;
    if (c->adjust && v <= -WIN_MIN)
        return v + ply;
    return v;
}

/* ---- the table ----------------------------------------------------------------------- */

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

static uint64_t table_key(const struct tg_config *cfg, const struct tg_pos *pos)
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
static struct tg__tt_entry *tt_probe(const struct ctx *c, uint64_t key)
{
    struct tg__tt_entry *b = &c->e->tt[(size_t)key & (c->e->tt_entries - 2)];
    if (b[0].flags && b[0].key == key)
        return &b[0];
    if (b[1].flags && b[1].key == key)
        return &b[1];
    return NULL;
}

static void tt_store(const struct ctx *c, uint64_t key, int depth, int v, int ply, unsigned flags,
                     tg_move move)
{
    struct tg__tt_entry *b = &c->e->tt[(size_t)key & (c->e->tt_entries - 2)];
    struct tg__tt_entry *slot = &b[1];
    if (!b[0].flags || b[0].key == key || (flags & TT_PROVEN) ||
        (depth >= b[0].depth && !(b[0].flags & TT_PROVEN)))
        slot = &b[0];
    size_t chunk = (size_t)(slot - c->e->tt) / TT_CLEAR_CHUNK;
    c->e->tt_dirty[chunk / 64] |= (uint64_t)1 << (chunk % 64);
    slot->key = key;
    slot->move = move;
    slot->value = to_tt(c, v, ply);
    slot->depth = (uint8_t)depth;
    slot->flags = (uint8_t)flags;
}

/* ---- the search ---------------------------------------------------------------------- */

/* Counts a position and says whether the search must end now. */
static bool spent(struct ctx *c)
{
    if (c->stopped)
        return true;
    c->nodes++;
    if ((c->node_limit && c->nodes > c->node_limit) ||
        tg__control_poll(c->ctl, c->nodes % CLOCK_EVERY == 0))
        c->stopped = true;
    return c->stopped;
}

static int search(struct ctx *c, const struct tg_pos *pos, int depth, int alpha, int beta, int ply,
                  bool *proven);

/* A value that no line can better: a won result (in a game with throws, won on every one). */
static bool sure_win(const struct ctx *c, int v)
{
    return c->adjust ? v >= WIN_MIN : v >= WIN;
}

/* The value for `me` of a child position searched with the window (alpha, beta) of `me`;
 * *proven: the value (or the bound it is, outside the window) holds for every ending. */
static int child_value(struct ctx *c, const struct tg_pos *child, int me, int depth, int alpha,
                       int beta, int ply, bool *proven)
{
    if (child->phase == TG__OVER) {
        c->nodes++;
        *proven = true;
        return result_value(c, child, me, ply);
    }
    if (child->side == me)
        return search(c, child, depth, alpha, beta, ply, proven);
    return -search(c, child, depth, -beta, -alpha, ply, proven);
}

/* Expectimax: every outcome, weighted by its probability in 1/65536 (the throws' sixteenths
 * are exact), with the full window below. A throw that lets the player throw again costs a
 * ply of depth, so that chains of throws stay bounded. */
static int chance_value(struct ctx *c, const struct tg_pos *pos, int depth, int ply, bool *proven)
{
    struct frame f = frame_at(c->e, ply);
    size_t n = c->cfg->game->chance(c->cfg, pos, f.move, f.prob);
    int me = pos->side;
    int64_t sum = 0, weights = 0;
    *proven = true;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos *child = &f.child[i];
        *child = *pos;
        tg__play(c->cfg, child, f.move[i]);
        int d = child->phase == TG__CHANCE && child->side == me ? depth - 1 : depth;
        bool p;
        int v = child_value(c, child, me, d, -INF, INF, ply + 1, &p);
        if (c->stopped)
            return 0;
        *proven = *proven && p;
        int64_t w = (int64_t)(f.prob[i] * 65536.0 + 0.5);
        sum += w * v;
        weights += w;
    }
    return weights ? (int)(sum / weights) : 0;
}

/* The winner of a running Halusa game already decided by the scores, or -1. Scores there
 * only grow (captures, and the counters taken at the end), so a player holding more than
 * half of the counters has won, whatever is played; the relay games are left out because an
 * endless move loses whatever the scores. */
static int decided(const struct ctx *c, const struct tg_pos *pos)
{
    if (!c->majority)
        return -1;
    if (2 * (int)pos->score[0] > c->cfg->total)
        return 0;
    if (2 * (int)pos->score[1] > c->cfg->total)
        return 1;
    return -1;
}

/* Ordering keys: the table's move, then a move that wins at once, then the killers, then
 * the score the move gains for the mover. */
static void order_keys(struct ctx *c, const struct tg_pos *pos, struct frame f, size_t n,
                       tg_move tt_move, int ply)
{
    int me = pos->side;
    long before = (long)pos->score[me] - (long)pos->score[1 - me];
    for (size_t i = 0; i < n; i++) {
        const struct tg_pos *child = &f.child[i];
        int32_t key;
        if (f.move[i] == tt_move)
            key = 1 << 30;
        else if ((child->phase == TG__OVER && child->winner == me) || decided(c, child) == me)
            key = 1 << 29;
        else {
            long gain = (long)child->score[me] - (long)child->score[1 - me] - before;
            key = (int32_t)(gain * 16);
            if (f.move[i] == c->killer[ply][0])
                key += 8;
            else if (f.move[i] == c->killer[ply][1])
                key += 4;
        }
        f.key[i] = key;
    }
}

/* Plays every move but `done` (already played, and already searched: its key is spent) and
 * gives each its ordering key. */
static void expand(struct ctx *c, const struct tg_pos *pos, struct frame f, size_t n, size_t done,
                   tg_move tt_move, int ply)
{
    for (size_t i = 0; i < n; i++) {
        if (i == done)
            continue;
        f.child[i] = *pos;
        tg__play(c->cfg, &f.child[i], f.move[i]);
    }
    order_keys(c, pos, f, n, tt_move, ply);
    if (done < n)
        f.key[done] = INT32_MIN;
}

/* The next option to try: the highest key left, the first on ties; its key is spent. */
static size_t next_best(struct frame f, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (f.key[i] != INT32_MIN && (best == n || f.key[i] > f.key[best]))
            best = i;
    f.key[best] = INT32_MIN;
    return best;
}

static int search(struct ctx *c, const struct tg_pos *pos, int depth, int alpha, int beta, int ply,
                  bool *proven)
{
    *proven = false;
    if (spent(c))
        return 0;
    int me = pos->side;
    int winner = decided(c, pos);
    if (winner >= 0) {
        *proven = true;
        return winner == me ? WIN - ply : -(WIN - ply);
    }
    if (depth <= 0 || ply >= MAX_PLY - 1)
        return evaluate(c, pos, me);
    bool tabled = depth > 1 || pos->phase == TG__CHANCE;
    uint64_t key = tabled ? table_key(c->cfg, pos) : 0;
    tg_move tt_move = NO_MOVE;
    const struct tg__tt_entry *te = tabled ? tt_probe(c, key) : NULL;
    if (te) {
        tt_move = te->move;
        bool exact = te->flags & TT_PROVEN;
        if (exact || te->depth >= depth) {
            int v = from_tt(c, te->value, ply);
            unsigned bound = te->flags & TT_BOUND;
            if (bound == TT_EXACT || (bound == TT_LOWER && v >= beta) ||
                (bound == TT_UPPER && v <= alpha)) {
                *proven = exact;
                return v;
            }
        }
    }
    if (pos->phase == TG__CHANCE) {
        int v = chance_value(c, pos, depth, ply, proven);
        if (c->stopped)
            return 0;
        tt_store(c, key, depth, v, ply, TT_EXACT | (*proven ? TT_PROVEN : 0), NO_MOVE);
        return v;
    }

    struct frame f = frame_at(c->e, ply);
    size_t n = c->cfg->game->moves(c->cfg, pos, f.move);
    /* The table's move is searched first (its key is the highest), so it is played alone
     * first, and the other moves only if it does not cut off: the same tree, without the
     * moves a cut-off never looks at (most of the applies of a search). */
    size_t first = n;
    for (size_t i = 0; tt_move != NO_MOVE && i < n; i++)
        if (f.move[i] == tt_move)
            first = i;
    if (first == n)
        expand(c, pos, f, n, n, tt_move, ply);
    else {
        f.child[first] = *pos;
        tg__play(c->cfg, &f.child[first], f.move[first]);
    }

    int alpha0 = alpha, best = -INF;
    tg_move best_move = NO_MOVE;
    bool all_proven = true, best_proven = false;
    for (size_t k = 0; k < n; k++) {
        size_t i = first;
        if (k > 0 || first == n) {
            if (k == 1 && first < n)
                expand(c, pos, f, n, first, tt_move, ply);
            i = next_best(f, n);
        }
        const struct tg_pos *child = &f.child[i];
        bool p;
        int v;
        if (k == 0) {
            v = child_value(c, child, me, depth - 1, alpha, beta, ply + 1, &p);
        } else {
            v = child_value(c, child, me, depth - 1, alpha, alpha + 1, ply + 1, &p);
            if (!c->stopped && v > alpha && v < beta)
                v = child_value(c, child, me, depth - 1, alpha, beta, ply + 1, &p);
        }
        if (c->stopped)
            return 0;
        all_proven = all_proven && p;
        if (v > best) {
            best = v;
            best_move = f.move[i];
            best_proven = p;
            if (v > alpha)
                alpha = v;
            if (alpha >= beta) {
                if (c->killer[ply][0] != f.move[i]) {
                    c->killer[ply][1] = c->killer[ply][0];
                    c->killer[ply][0] = f.move[i];
                }
                break;
            }
        }
    }
    unsigned bound = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT;
    /* A won result needs no other move searched to the end: nothing can better it. */
    *proven = all_proven || (best_proven && sure_win(c, best));
    if (tabled)
        tt_store(c, key, depth, best, ply, bound | (*proven ? TT_PROVEN : 0), best_move);
    return best;
}

/* ---- the root ------------------------------------------------------------------------ */

double tg__engine_value(int v, bool proven, bool averaged)
{
    if (proven && !averaged)
        return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
    if (proven)
        return (double)v / WIN;
    double x = (double)v / ((v < 0 ? -(double)v : (double)v) + 1000.0);
    return x;
}

int tg__engine_evaluate(const struct tg_config *cfg, const struct tg_pos *pos, int me)
{
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.cfg = cfg;
    return evaluate(&c, pos, me);
}

/* The option a search one ply deep picks: the best finished result or evaluation of the
 * position it leaves, the first of equals. */
static tg_move best_at_a_glance(const struct ctx *c, const struct tg_pos *pos,
                                const tg_move *options, size_t n)
{
    tg_move best = NO_MOVE;
    int best_value = -INF;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos child = *pos;
        tg__play(c->cfg, &child, options[i]);
        int winner = decided(c, &child);
        int v = child.phase == TG__OVER ? result_value(c, &child, pos->side, 1)
                : winner >= 0           ? (winner == pos->side ? WIN - 1 : -(WIN - 1))
                                        : evaluate(c, &child, pos->side);
        if (v > best_value) {
            best_value = v;
            best = options[i];
        }
    }
    return best;
}

/* The principal line after a root option: the table's moves; where the table has none
 * (positions one ply above the leaves are not stored, and entries get replaced), once, the
 * move picked at a glance; at a throw the likeliest outcome (the first of equal ones). */
static uint32_t principal_line(struct ctx *c, const struct tg_pos *after, tg_move first,
                               tg_move *line)
{
    tg_move options[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    uint32_t len = 0;
    bool guessed = false;
    line[len++] = first;
    struct tg_pos pos = *after;
    while (len < TG__LINE_MAX && pos.phase != TG__OVER) {
        size_t n = tg__options_now(c->cfg, &pos, options, prob);
        if (n == 0)
            break;
        tg_move m = NO_MOVE;
        if (pos.phase == TG__CHANCE) {
            size_t best = 0;
            for (size_t i = 1; i < n; i++)
                if (prob[i] > prob[best])
                    best = i;
            m = options[best];
        } else {
            const struct tg__tt_entry *te = tt_probe(c, table_key(c->cfg, &pos));
            for (size_t i = 0; te && i < n; i++)
                if (options[i] == te->move)
                    m = te->move;
            if (m == NO_MOVE && !guessed) {
                m = best_at_a_glance(c, &pos, options, n);
                guessed = true;
            }
        }
        if (m == NO_MOVE)
            break;
        line[len++] = m;
        tg__play(c->cfg, &pos, m);
    }
    return len;
}

tg_status tg__engine_run(struct tg__engine *e, const struct tg_config *cfg,
                         const struct tg_pos *pos, const struct tg__bot *b, struct tg__control *ctl,
                         tg_move *out, struct tg__result *results, uint64_t *nodes,
                         uint32_t *depth_done)
{
    tg_status st = frames_reserve(e, cfg->max_moves > 0 ? cfg->max_moves : 1);
    if (st != TG_OK)
        return st;
    struct ctx *c = tg__realloc(NULL, sizeof *c);
    if (!c)
        return TG_ERR_NO_MEMORY;
    memset(c, 0, sizeof *c);
    /* Every search starts from an empty table, so that no result depends on an earlier one.
     * Only the pages an earlier search wrote are cleared: the others were never touched, so
     * they cost neither the clearing nor their first faults (clearing the whole 8 MB table
     * after a short search took 90 ms of page faults on this project's virtual machine).
     * Clearing is the one long step without positions, so it looks at the stop before each
     * page (and at the clock every 16). A stop there ends the search before its first
     * position; the pages not yet cleared stay marked, for the next search. */
    bool dirty = false; /* stopped while clearing: the table still holds an earlier search */
    size_t chunks = (e->tt_entries + TT_CLEAR_CHUNK - 1) / TT_CLEAR_CHUNK, cleared = 0;
    for (size_t k = 0; k < chunks; k++) {
        uint64_t bit = (uint64_t)1 << (k % 64);
        if (!(e->tt_dirty[k / 64] & bit))
            continue;
        if (tg__control_poll(ctl, cleared++ % 16 == 0)) {
            c->stopped = dirty = true;
            break;
        }
        size_t at = k * TT_CLEAR_CHUNK;
        size_t len = e->tt_entries - at < TT_CLEAR_CHUNK ? e->tt_entries - at : TT_CLEAR_CHUNK;
        memset(&e->tt[at], 0, len * sizeof *e->tt);
        e->tt_dirty[k / 64] &= ~bit;
    }
    c->e = e;
    c->cfg = cfg;
    c->ctl = ctl;
    c->adjust = cfg->game->chance == NULL;
    c->majority = cfg->game == &tg__halusa;
    c->node_limit = b->nodes;
    for (int p = 0; p < MAX_PLY; p++)
        c->killer[p][0] = c->killer[p][1] = NO_MOVE;

    /* The root's options live in the last frame, which the search never reaches. */
    struct frame f = frame_at(e, MAX_PLY - 1);
    size_t n = tg__options_now(cfg, pos, f.move, f.prob);
    struct root_item *item = c->item;
    size_t *order = c->order;
    int me = pos->side;
    /* Before any search, a move is worth the position it leaves. */
    for (size_t i = 0; i < n; i++) {
        f.child[i] = *pos;
        tg__play(cfg, &f.child[i], f.move[i]);
        bool over = f.child[i].phase == TG__OVER;
        item[i].value = over ? result_value(c, &f.child[i], me, 1) : evaluate(c, &f.child[i], me);
        item[i].proven = over;
    }
    bool at_chance = pos->phase == TG__CHANCE;
    if (!at_chance)
        order_keys(c, pos, f, n, NO_MOVE, 0);
    else
        for (size_t i = 0; i < n; i++)
            f.key[i] = 0;
    for (size_t k = 0; k < n; k++)
        order[k] = next_best(f, n);

    size_t best = order[0];
    uint32_t completed = 0;
    for (uint32_t d = 1; d <= b->depth && !c->stopped; d++) {
        int alpha = -INF;
        size_t iteration_best = n;
        bool all_proven = true;
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            const struct tg_pos *child = &f.child[i];
            int cd = at_chance
                         ? (child->phase == TG__CHANCE && child->side == me ? (int)d - 1 : (int)d)
                         : (int)d - 1;
            bool proven;
            int v;
            if (results || k == 0) {
                v = child_value(c, child, me, cd, -INF, INF, 1, &proven);
            } else {
                v = child_value(c, child, me, cd, alpha, alpha + 1, 1, &proven);
                if (!c->stopped && v > alpha)
                    v = child_value(c, child, me, cd, alpha, INF, 1, &proven);
            }
            if (c->stopped)
                break;
            if (results || k == 0 || v > alpha) {
                item[i].value = v;
                item[i].proven = proven;
            }
            all_proven = all_proven && proven;
            if (k == 0 || v > alpha) {
                alpha = v > alpha ? v : alpha;
                iteration_best = i;
            }
        }
        if (iteration_best < n)
            best = iteration_best;
        if (c->stopped)
            break;
        completed = d;
        /* Root order for the next depth: best first, then by value, ties as before. */
        for (size_t k = 1; k < n; k++) {
            size_t x = order[k], j = k;
            while (j > 0 && item[order[j - 1]].value < item[x].value) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        for (size_t k = 0; k < n; k++)
            if (order[k] == best && k > 0) {
                memmove(&order[1], &order[0], k * sizeof order[0]);
                order[0] = best;
                break;
            }
        if (all_proven || (!results && item[best].proven && item[best].value >= WIN_MIN))
            break;
    }

    *out = f.move[best];
    if (results) {
        for (size_t i = 0; i < n; i++) {
            results[i].move = f.move[i];
            results[i].proven = item[i].proven;
            results[i].value = tg__engine_value(item[i].value, item[i].proven, !c->adjust);
            results[i].line[0] = f.move[i];
            results[i].line_len =
                dirty ? 1 : principal_line(c, &f.child[i], f.move[i], results[i].line);
        }
    }
    *nodes = c->nodes;
    *depth_done = completed;
    tg__realloc(c, 0);
    return TG_OK;
}

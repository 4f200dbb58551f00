/* The prover (`prove`): depth-first proof-number search (df-pn, Nagai 2002) with a
 * transposition table of bounded size, for the games without chance.
 *
 * A proof is of one goal for one player, the attacker: "the attacker wins" or "the attacker
 * does not lose" (a draw or a win), against every defence. A root move's value comes from
 * proofs: "the mover wins" proven is a win, "the opponent wins" proven a loss; a draw is
 * "neither wins" disproven, or "each does not lose" proven. Only finished games end a line (no
 * heuristic leaf, no shortcut such as Halusa's decided majority), so a proof is a tree down to
 * finished games, which tools/tg-prove writes out and checks.
 *
 * Why df-pn rather than PN²: it keeps nothing but the table, whose size is fixed by `tt=`,
 * and it re-searches what the table lost; PN² keeps its whole first-level tree in memory,
 * which grows with the proof.
 *
 * Players need not alternate: a node is an OR node when the attacker is to move there,
 * whoever moved before. A position that repeats one on the path (a cycle the quiet count does
 * not break: captures reset it) or lies beyond the longest line allowed (`depth=`, and the
 * recursion's bound) counts as the attacker's failure: a proof never rests on one, since a
 * proven node rests on proven children only. A disproof may, so once one has been met in an
 * analysis its disproofs are not used: only proofs then give values. */
#include "search.h"

#include <string.h>

#define PN_INF 0x3FFFFFFFu /* a proven or disproven number; sums saturate here */
/* The deepest line: the search recurses once a ply, and WebAssembly's stack is 64 KB. */
#if defined(__wasm__)
#define MAX_DEPTH 192
#else
#define MAX_DEPTH 1024
#endif
#define BUCKET 4            /* entries a bucket: 64 bytes, one cache line */
#define PATH_FILTER 4096    /* counters of the keys on the path, by their low bits */
#define CLOCK_EVERY 256u    /* positions between two reads of the clock */

enum goal { GOAL_WINS, GOAL_NOT_LOSE };

struct prover {
    struct tg__engine *e;
    const struct tg_config *cfg;
    struct tg__control *ctl;
    int attacker;
    enum goal goal;
    uint64_t salt; /* mixed into the keys: each attacker and goal has entries of its own */
    uint64_t nodes, limit;
    int horizon;  /* the attempt's root is at ply 1 of the analysis; lines end before this */
    bool stopped; /* the caller's stop or clock: the analysis ends */
    bool ended;   /* this attempt's budget: it ends unknown */
    bool cut;     /* a repetition or the horizon was met: disproofs are not to be trusted */
    size_t width;
    struct tg_pos *child; /* MAX_DEPTH levels of `width` children */
    uint64_t *key;        /* the children's keys, likewise */
    uint64_t path[MAX_DEPTH];
    uint16_t on_path[PATH_FILTER];
};

static size_t level_bytes(size_t width)
{
    return (size_t)MAX_DEPTH * width * (sizeof(struct tg_pos) + sizeof(uint64_t));
}

static tg_status levels_reserve(struct tg__engine *e, size_t width)
{
    if (e->levels && e->level_moves >= width)
        return TG_OK;
    void *p = tg__realloc(e->levels, level_bytes(width));
    if (!p)
        return TG_ERR_NO_MEMORY;
    e->levels = p;
    e->level_moves = width;
    return TG_OK;
}

/* ---- the table ----------------------------------------------------------------------- */

static struct tg__pn_entry *bucket(const struct prover *p, uint64_t key)
{
    return &p->e->pn[(size_t)key & (p->e->tt_entries - BUCKET)];
}

/* An unknown position counts as one move to prove and one to disprove. */
static void lookup(const struct prover *p, uint64_t key, uint32_t *pn, uint32_t *dn)
{
    const struct tg__pn_entry *b = bucket(p, key);
    for (int i = 0; i < BUCKET; i++)
        if (b[i].key == key && (b[i].pn | b[i].dn)) {
            *pn = b[i].pn;
            *dn = b[i].dn;
            return;
        }
    *pn = *dn = 1;
}

/* Replaces the same position, else the entry with the smallest pn + dn: the least work
 * behind it (proven and disproven entries, with a number at infinity, are kept longest). */
static void store(struct prover *p, uint64_t key, uint32_t pn, uint32_t dn)
{
    struct tg__pn_entry *b = bucket(p, key);
    int slot = 0;
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < BUCKET; i++) {
        if (b[i].key == key || !(b[i].pn | b[i].dn)) {
            slot = i;
            break;
        }
        uint64_t work = (uint64_t)b[i].pn + b[i].dn;
        if (work < least) {
            least = work;
            slot = i;
        }
    }
    b[slot].key = key;
    b[slot].pn = pn;
    b[slot].dn = dn;
    tg__tt_mark(p->e, (size_t)(&b[slot] - p->e->pn));
}

/* ---- the search ---------------------------------------------------------------------- */

static bool goal_met(const struct prover *p, const struct tg_pos *over)
{
    if (p->goal == GOAL_WINS)
        return over->winner == p->attacker;
    return over->winner != 1 - p->attacker;
}

static uint32_t add(uint32_t a, uint32_t b)
{
    return a + b >= PN_INF ? PN_INF : a + b;
}

/* Counts a position and says whether the attempt must end now. */
static bool spent(struct prover *p)
{
    if (p->stopped || p->ended)
        return true;
    p->nodes++;
    if (tg__control_poll(p->ctl, p->nodes % CLOCK_EVERY == 0))
        p->stopped = true;
    else if (p->nodes > p->limit)
        p->ended = true;
    return p->stopped || p->ended;
}

/* Whether `key` is a position on the path above `depth`: the filter's counter first, the
 * path itself only when the counter says it may be. */
static bool repeats(const struct prover *p, uint64_t key, int depth)
{
    if (!p->on_path[key % PATH_FILTER])
        return false;
    for (int d = 0; d < depth; d++)
        if (p->path[d] == key)
            return true;
    return false;
}

/* The proof and disproof numbers of a position's children, combined for its node (OR where
 * the attacker moves: the easiest child to prove, every child to disprove; AND the other
 * way), with the child to search next and the threshold that makes another child the
 * better one. */
struct combined {
    uint32_t pn, dn;
    size_t best;
    uint32_t best_pn, best_dn, second;
};

static struct combined combine(const struct prover *p, const struct tg_pos *kids,
                               const uint64_t *keys, size_t n, bool or_node)
{
    struct combined c = {or_node ? PN_INF : 0, or_node ? 0 : PN_INF, 0, 0, 0, PN_INF};
    uint32_t best_number = PN_INF + 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t pn, dn;
        if (kids[i].phase == TG__OVER) {
            bool met = goal_met(p, &kids[i]);
            pn = met ? 0 : PN_INF;
            dn = met ? PN_INF : 0;
        } else {
            lookup(p, keys[i], &pn, &dn);
        }
        uint32_t number = or_node ? pn : dn; /* what this node minimises over its children */
        if (or_node) {
            c.pn = pn < c.pn ? pn : c.pn;
            c.dn = add(c.dn, dn);
        } else {
            c.pn = add(c.pn, pn);
            c.dn = dn < c.dn ? dn : c.dn;
        }
        if (number < best_number) {
            c.second = best_number > PN_INF ? c.second : best_number;
            best_number = number;
            c.best = i;
            c.best_pn = pn;
            c.best_dn = dn;
        } else if (number < c.second) {
            c.second = number;
        }
    }
    return c;
}

static uint32_t below(uint64_t x)
{
    return x > PN_INF ? PN_INF : (uint32_t)x;
}

/* Searches `pos` until its proof number reaches `th_pn` or its disproof number `th_dn`, and
 * stores its numbers. */
static void mid(struct prover *p, const struct tg_pos *pos, uint64_t key, int depth, uint32_t th_pn,
                uint32_t th_dn)
{
    uint32_t pn, dn;
    lookup(p, key, &pn, &dn);
    if (pn >= th_pn || dn >= th_dn || spent(p))
        return;
    if (depth + 1 >= p->horizon || repeats(p, key, depth)) {
        p->cut = true;
        store(p, key, PN_INF, 0);
        return;
    }
    p->path[depth] = key;
    p->on_path[key % PATH_FILTER]++;

    struct tg_pos *kids = &p->child[(size_t)depth * p->width];
    uint64_t *keys = &p->key[(size_t)depth * p->width];
    tg_move moves[TG__MAX_MOVES];
    size_t n = p->cfg->game->moves(p->cfg, pos, moves);
    for (size_t i = 0; i < n; i++) {
        kids[i] = *pos;
        tg__play(p->cfg, &kids[i], moves[i]);
        keys[i] = kids[i].phase == TG__OVER ? 0 : tg__table_key(p->cfg, &kids[i]) ^ p->salt;
    }
    bool or_node = pos->side == p->attacker;
    for (;;) {
        struct combined c = combine(p, kids, keys, n, or_node);
        pn = c.pn;
        dn = c.dn;
        if (pn >= th_pn || dn >= th_dn || p->stopped || p->ended)
            break;
        uint32_t child_pn, child_dn;
        if (or_node) {
            child_pn = below((uint64_t)c.second + 1) < th_pn ? below((uint64_t)c.second + 1) : th_pn;
            child_dn = below((uint64_t)th_dn - dn + c.best_dn);
        } else {
            child_dn = below((uint64_t)c.second + 1) < th_dn ? below((uint64_t)c.second + 1) : th_dn;
            child_pn = below((uint64_t)th_pn - pn + c.best_pn);
        }
        mid(p, &kids[c.best], keys[c.best], depth + 1, child_pn, child_dn);
    }
    store(p, key, pn, dn);
    p->on_path[key % PATH_FILTER]--;
}

/* 1: `attacker` reaches the goal from `pos`, 0: disproven (and no repetition or horizon met
 * so far), -1: unknown (budget, stop, or a disproof not to be trusted). */
static int attempt(struct prover *p, const struct tg_pos *pos, int attacker, enum goal goal,
                   uint64_t budget)
{
    static const uint64_t salts[2][2] = {{0, 0x9E3779B97F4A7C15u},
                                         {0xD1B54A32D192ED03u, 0x8CB92BA72F3D8DD7u}};
    p->attacker = attacker;
    p->goal = goal;
    p->salt = salts[attacker][goal];
    p->ended = false;
    p->limit = p->nodes + budget;
    memset(p->on_path, 0, sizeof p->on_path);
    uint64_t key = tg__table_key(p->cfg, pos) ^ p->salt;
    mid(p, pos, key, 0, PN_INF, PN_INF);
    if (p->stopped || p->ended)
        return -1;
    uint32_t pn, dn;
    lookup(p, key, &pn, &dn);
    return pn == 0 ? 1 : dn == 0 && !p->cut ? 0 : -1;
}

/* An equal part of what is left of the move's share for each attempt still to come. */
static uint64_t part(const struct prover *p, uint64_t end, uint64_t attempts)
{
    return end > p->nodes ? (end - p->nodes) / attempts : 0;
}

tg_status tg__prove_run(struct tg__engine *e, const struct tg_config *cfg,
                        const struct tg_pos *pos, const struct tg__bot *b, struct tg__control *ctl,
                        bool choose, struct tg__result *results, uint64_t *nodes)
{
    *nodes = 0;
    if (cfg->game->chance || pos->phase != TG__DECIDE)
        return TG_ERR_BAD_OPTION;
    size_t width = cfg->max_moves > 0 ? cfg->max_moves : 1;
    tg_status st = levels_reserve(e, width);
    if (st != TG_OK)
        return st;
    struct prover *p = tg__realloc(NULL, sizeof *p);
    if (!p)
        return TG_ERR_NO_MEMORY;
    memset(p, 0, sizeof *p);
    p->e = e;
    p->cfg = cfg;
    p->ctl = ctl;
    p->width = width;
    p->horizon = (int)(b->depth < MAX_DEPTH ? b->depth : MAX_DEPTH);
    p->child = e->levels;
    p->key = (uint64_t *)(void *)((char *)e->levels +
                                  (size_t)MAX_DEPTH * width * sizeof(struct tg_pos));
    /* Every analysis starts from an empty table, as the search's does (search_table.c). */
    p->stopped = !tg__tt_clear(e, ctl);

    tg_move moves[TG__MAX_MOVES];
    size_t n = cfg->game->moves(cfg, pos, moves);
    uint64_t budget = b->nodes;
    for (size_t i = 0; i < n; i++) {
        results[i].move = results[i].line[0] = moves[i];
        results[i].line_len = 1;
        results[i].value = 0.0;
        results[i].proven = false;
    }
    for (size_t i = 0; i < n; i++) {
        struct tg__result *r = &results[i];
        struct tg_pos child = *pos;
        tg__play(cfg, &child, moves[i]);
        if (child.phase == TG__OVER) {
            r->proven = true;
            r->value = child.winner == TG_DRAW ? 0.0 : child.winner == pos->side ? 1.0 : -1.0;
            if (choose && r->value == 1.0)
                break;
            continue;
        }
        /* Each move has an equal share of what is left; what it does not use passes on. */
        uint64_t used = p->nodes, share = budget > used ? (budget - used) / (n - i) : 0;
        if (p->stopped || share == 0)
            continue;
        uint64_t end = used + share;
        int me = pos->side, wins = attempt(p, &child, me, GOAL_WINS, part(p, end, 2));
        int loses = wins == 1 || p->stopped ? -1 : attempt(p, &child, 1 - me, GOAL_WINS, part(p, end, 1));
        if (wins == 1 || loses == 1) {
            r->proven = true;
            r->value = wins == 1 ? 1.0 : -1.0;
            if (choose && wins == 1) /* nothing betters a win: the moves after it stay unknown */
                break;
            continue;
        }
        /* A draw: neither wins, each side's "does not lose" proven where its "the other wins"
         * was not disproven. */
        bool holds = loses == 0, keeps = wins == 0;
        if (!holds && !p->stopped)
            holds = attempt(p, &child, me, GOAL_NOT_LOSE, part(p, end, keeps ? 1 : 2)) == 1;
        if (holds && !keeps && !p->stopped)
            keeps = attempt(p, &child, 1 - me, GOAL_NOT_LOSE, part(p, end, 1)) == 1;
        if (holds && keeps) {
            r->proven = true;
            r->value = 0.0;
        }
    }
    *nodes = p->nodes;
    tg__realloc(p, 0);
    return TG_OK;
}

/* Hawalis (rules/hawalis.md): the rules page's worked examples (Oman 1-4, Zanzibar 5), both
 * variants' sowing rings walked hole by hole, the forced-start rule for singletons, captures
 * in both variants and by both players, the end by blocked singletons, the quiet limit,
 * endless moves (pinned positions found by a search over random playouts, and a long but
 * finite move), options, pinned perft counts, rejected position strings, and a differential
 * test against a reference model written here from the rules page alone. */
#include "test_util.h"

#include <inttypes.h>

#define OSPEC "hawalis:variant=oman,laps=10000,quiet=100"
#define ZSPEC "hawalis:variant=zanzibar,laps=10000,quiet=100"
#define OSTART OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2 0 0,0 quiet=0"
#define ZSTART                                                                                     \
    ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 0 0,0 quiet=0"

/* ---- a reference model, from the rules page ------------------------------------------- */

enum { OMAN = 0, ZANZIBAR = 1 };

#define MAXW 8
#define MAXCELLS (4 * MAXW)
#define MAXRING (2 * MAXW)

static const char *const variant_name[2] = {"oman", "zanzibar"};
static const int variant_cols[2] = {7, 8};
static const int variant_start[2] = {2, 3};

/* The rings exactly as the page lists them. */
static const char *const ring_text[2][2] = {
    [OMAN] = {"a1 b1 c1 d1 e1 f1 g1 g2 f2 e2 d2 c2 b2 a2",
              "g4 f4 e4 d4 c4 b4 a4 a3 b3 c3 d3 e3 f3 g3"},
    [ZANZIBAR] = {"h1 g1 f1 e1 d1 c1 b1 a1 a2 b2 c2 d2 e2 f2 g2 h2",
                  "a4 b4 c4 d4 e4 f4 g4 h4 h3 g3 f3 e3 d3 c3 b3 a3"},
};

/* A cell name (`c2`) as a cell index on a board of w columns. */
static int cell_of(int w, const char *name)
{
    return (name[1] - '1') * w + (name[0] - 'a');
}

/* Player p's ring as cell indices, read from the page's list; returns its length. */
static int ref_ring(int variant, int p, int *ring)
{
    int w = variant_cols[variant], n = 0;
    for (const char *t = ring_text[variant][p]; *t; t += t[2] ? 3 : 2)
        ring[n++] = cell_of(w, t);
    return n;
}

struct ref {
    int variant, w;
    int cell[MAXCELLS]; /* row * w + col, row 0 = row 1 of the notation */
    int score[2];       /* counters captured (and taken at a quiet end) */
    int side;
    bool over;
    int winner;
    int quiet;
    int limit;
};

static int ref_cells(const struct ref *r)
{
    return 4 * r->w;
}

static void ref_init(struct ref *r, int variant, int limit)
{
    memset(r, 0, sizeof *r);
    r->variant = variant;
    r->w = variant_cols[variant];
    r->limit = limit;
    for (int c = 0; c < ref_cells(r); c++)
        r->cell[c] = variant_start[variant];
    r->winner = TG_NO_WINNER_YET;
}

/* Player p's own holes: rows 1 and 2 of the notation for player 0, rows 3 and 4 for 1. */
static bool own_hole(const struct ref *r, int p, int cell)
{
    return cell / (2 * r->w) == p;
}

/* The legal moves, ascending: any hole of 2 or more; failing that, a single counter whose
 * next ring hole is empty. */
static int ref_moves(const struct ref *r, tg_move *out)
{
    if (r->over)
        return 0;
    int ring[MAXRING], len = ref_ring(r->variant, r->side, ring), n = 0;
    for (int c = 0; c < ref_cells(r); c++)
        if (own_hole(r, r->side, c) && r->cell[c] >= 2) {
            if (out)
                out[n] = (tg_move)c;
            n++;
        }
    if (n > 0)
        return n;
    for (int c = 0; c < ref_cells(r); c++) {
        if (!own_hole(r, r->side, c) || r->cell[c] != 1)
            continue;
        int at = 0;
        while (ring[at] != c)
            at++;
        if (r->cell[ring[(at + 1) % len]] != 0)
            continue;
        if (out)
            out[n] = (tg_move)c;
        n++;
    }
    return n;
}

/* The sowing of one move, lap by lap: (board, ring position sown after, counters in hand). */
struct lapstate {
    uint8_t cell[MAXCELLS];
    int at, hand;
    bool done;
    uint64_t laps;
};

static void lap_step(struct lapstate *s, const int *ring, int len)
{
    if (s->done)
        return;
    int at = s->at;
    for (int k = 0; k < s->hand; k++) {
        at = (at + 1) % len;
        s->cell[ring[at]]++;
    }
    s->laps++;
    s->at = at;
    int h = ring[at];
    if (s->cell[h] == 1) { /* the last counter fell into an empty hole */
        s->done = true;
        return;
    }
    s->hand = s->cell[h]; /* relay: lift the whole hole, the last counter too */
    s->cell[h] = 0;
}

static bool lap_same(const struct lapstate *a, const struct lapstate *b)
{
    return a->at == b->at && a->hand == b->hand && memcmp(a->cell, b->cell, sizeof a->cell) == 0;
}

static void lap_start(struct lapstate *s, const int *cell, int cells, const int *ring, int m)
{
    memset(s, 0, sizeof *s);
    for (int c = 0; c < cells; c++)
        s->cell[c] = (uint8_t)cell[c];
    s->hand = s->cell[m];
    s->cell[m] = 0;
    while (ring[s->at] != m)
        s->at++;
}

enum { SOW_DONE = 1, SOW_ENDLESS = 0, SOW_UNKNOWN = -1 };

/* Cap on the reference's own sowing: moves that neither end nor repeat within this many laps
 * of the hare are left out of comparisons (the library has no such cap). */
static uint64_t ref_cap = UINT64_C(2000000);

/* Sows player me's move from cell m, with Floyd's cycle finder (independent of the library's
 * Brent). SOW_DONE: cell is the board after the sowing, *last the cell of the last counter and
 * *laps the laps. SOW_ENDLESS: the sowing repeats (cell untouched). SOW_UNKNOWN: over the
 * cap. */
static int ref_sow(int variant, int w, int *cell, int me, int m, int *last, uint64_t *laps)
{
    int ring[MAXRING], len = ref_ring(variant, me, ring);
    struct lapstate tort, hare;
    lap_start(&tort, cell, 4 * w, ring, m);
    hare = tort;
    for (;;) {
        lap_step(&hare, ring, len);
        lap_step(&hare, ring, len);
        if (hare.done) {
            for (int c = 0; c < 4 * w; c++)
                cell[c] = hare.cell[c];
            *last = ring[hare.at];
            *laps = hare.laps;
            return SOW_DONE;
        }
        lap_step(&tort, ring, len);
        if (lap_same(&tort, &hare))
            return SOW_ENDLESS;
        if (hare.laps > ref_cap)
            return SOW_UNKNOWN;
    }
}

static void ref_finish(struct ref *r, int winner)
{
    r->over = true;
    r->winner = winner;
}

static int by_score(const struct ref *r)
{
    return r->score[0] == r->score[1] ? TG_DRAW : r->score[0] > r->score[1] ? 0 : 1;
}

#define REF_UNKNOWN UINT64_MAX

/* Applies a legal move. Returns the laps of a move that ends, 0 for an endless move, or
 * REF_UNKNOWN (r untouched) when the reference could not decide within its cap. */
static uint64_t ref_apply(struct ref *r, int m)
{
    int me = r->side, w = r->w, last;
    uint64_t laps;
    int cell[MAXCELLS];
    memcpy(cell, r->cell, sizeof cell);
    int how = ref_sow(r->variant, w, cell, me, m, &last, &laps);
    if (how == SOW_UNKNOWN)
        return REF_UNKNOWN;
    if (how == SOW_ENDLESS) { /* the mover loses; board, scores and quiet count stay */
        ref_finish(r, 1 - me);
        return 0;
    }
    memcpy(r->cell, cell, sizeof cell);
    /* The capture: only a last counter in the mover's inner row (notation row 2 for player 0,
     * row 3 for player 1) takes the facing enemy inner hole and the outer hole behind it. */
    int taken = 0, row = last / w, col = last % w;
    if (row == (me == 0 ? 1 : 2)) {
        int facing = (me == 0 ? 2 : 1) * w + col, behind = (me == 0 ? 3 : 0) * w + col;
        if (r->variant == ZANZIBAR || r->cell[facing] > 0) {
            taken = r->cell[facing] + r->cell[behind];
            r->cell[facing] = 0;
            r->cell[behind] = 0;
        }
    }
    r->score[me] += taken;
    r->quiet = taken > 0 ? 0 : r->quiet + 1;
    r->side = 1 - me;
    if (ref_moves(r, NULL) == 0) {
        ref_finish(r, by_score(r));
    } else if (r->limit && r->quiet >= r->limit) {
        for (int c = 0; c < ref_cells(r); c++) {
            r->score[c / (2 * w)] += r->cell[c];
            r->cell[c] = 0;
        }
        ref_finish(r, by_score(r));
    }
    return laps;
}

static void ref_spec(const struct ref *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "hawalis:variant=%s,laps=10000,quiet=%d", variant_name[r->variant], r->limit);
}

static void ref_string(const struct ref *r, char *buf, size_t cap)
{
    int w = r->w;
    ref_spec(r, buf, cap);
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, cap - len, " ");
    for (int row = 3; row >= 0; row--)
        for (int col = 0; col < w; col++)
            len += (size_t)snprintf(buf + len, cap - len, "%d%s", r->cell[row * w + col],
                                    col < w - 1 ? ","
                                    : row       ? "/"
                                                : "");
    if (r->over)
        len += (size_t)snprintf(buf + len, cap - len, " -");
    else
        len += (size_t)snprintf(buf + len, cap - len, " %d", r->side);
    len += (size_t)snprintf(buf + len, cap - len, " %d,%d quiet=%d", r->score[0], r->score[1],
                            r->quiet);
    if (r->over)
        snprintf(buf + len, cap - len, " winner=%s",
                 r->winner == TG_DRAW ? "draw"
                 : r->winner == 0     ? "0"
                                      : "1");
}

static uint64_t ref_perft(const struct ref *r, unsigned depth)
{
    if (depth == 0)
        return 1;
    tg_move moves[MAXCELLS];
    int n = ref_moves(r, moves);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t leaves = 0;
    for (int i = 0; i < n; i++) {
        struct ref child = *r;
        uint64_t laps = ref_apply(&child, (int)moves[i]);
        assert_true(laps != REF_UNKNOWN);
        leaves += ref_perft(&child, depth - 1);
    }
    return leaves;
}

/* ---- helpers --------------------------------------------------------------------------- */

static void expect_ref(const tg_state *s, const struct ref *r, const char *what)
{
    char want[512];
    ref_string(r, want, sizeof want);
    char *got = tu_str(s);
    if (strcmp(got, want) != 0)
        TU_FAIL("%s:\n  library   \"%s\"\n  reference \"%s\"", what, got, want);
    free(got);
}

/* The reference model of a running position (read back through the public API). */
static void ref_from_state(const tg_state *s, struct ref *r)
{
    const char *spec = tg_rules_spec(tg_state_rules(s));
    memset(r, 0, sizeof *r);
    r->variant = strstr(spec, "variant=zanzibar") ? ZANZIBAR : OMAN;
    r->w = variant_cols[r->variant];
    assert_int_equal(tg_rules_cols(tg_state_rules(s)), r->w);
    r->limit = atoi(strstr(spec, "quiet=") + 6);
    for (int cell = 0; cell < 4 * r->w; cell++)
        r->cell[cell] = tg_state_count(s, cell / r->w, cell % r->w);
    r->score[0] = tg_state_score(s, 0);
    r->score[1] = tg_state_score(s, 1);
    r->over = tg_state_is_terminal(s);
    r->side = r->over ? 0 : tg_state_player(s);
    r->winner = tg_state_winner(s);
    char *text = tu_str(s);
    const char *q = strstr(text, " quiet=");
    assert_non_null(q);
    r->quiet = atoi(q + 7);
    free(text);
}

/* The legal moves of s as cell names separated by spaces. */
static void moves_text(const tg_state *s, char *buf, size_t cap)
{
    tg_move moves[64];
    size_t n = tu_moves(s, moves, 64), len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char name[16];
        TU_OK(tg_move_to_string(s, moves[i], name, sizeof name, NULL));
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " " : "", name);
    }
}

#define TU_MOVES(s, expected)                                                                      \
    do {                                                                                           \
        char tu_moves_[512];                                                                       \
        moves_text((s), tu_moves_, sizeof tu_moves_);                                              \
        if (strcmp(tu_moves_, (expected)) != 0)                                                    \
            TU_FAIL("%s:%d: legal moves \"%s\", expected \"%s\"", __FILE__, __LINE__, tu_moves_,   \
                    (expected));                                                                   \
    } while (0)

/* Plays `move` on `before` (a position string of the rule set `spec`), checks `after` and the
 * reference model, undoes, checks `before` again (string and hash). Returns the laps the
 * reference counted. */
static uint64_t play_check(const char *spec, const char *before, const char *move,
                           const char *after)
{
    tg_state *s = tu_from(spec, before);
    TU_POS(s, before);
    uint64_t hash = tg_state_hash(s);
    struct ref r;
    ref_from_state(s, &r);
    tg_move m = tu_move(s, move);
    assert_true(tg_state_is_legal(s, m));
    uint64_t laps = ref_apply(&r, (int)m);
    assert_true(laps != REF_UNKNOWN);
    tu_play(s, move);
    TU_POS(s, after);
    expect_ref(s, &r, before);
    /* The string read back is the same position. */
    tg_state *t = tu_from(spec, after);
    assert_true(tg_state_equal(s, t));
    assert_true(tg_state_hash(s) == tg_state_hash(t));
    tg_state_free(t);
    TU_OK(tg_state_undo(s));
    TU_POS(s, before);
    assert_true(tg_state_hash(s) == hash);
    tg_state_free(s);
    return laps;
}

/* ---- start, options, notation ---------------------------------------------------------- */

static void test_start(void **unused)
{
    (void)unused;
    for (int v = 0; v < 2; v++) {
        tg_state *s = tu_new(v ? "hawalis:variant=zanzibar" : "hawalis");
        TU_POS(s, v ? ZSTART : OSTART);
        const tg_rules *r = tg_state_rules(s);
        int w = variant_cols[v];
        assert_string_equal(tg_rules_spec(r), v ? ZSPEC : OSPEC);
        assert_string_equal(tg_rules_game_id(r), "hawalis");
        assert_int_equal(tg_rules_rows(r), 4);
        assert_int_equal(tg_rules_cols(r), w);
        assert_true(tg_rules_max_moves(r) >= (size_t)(2 * w));
        /* 2 counters a hole on 4 x 7 = 56, 3 on 4 x 8 = 96, all on the board. */
        int total = 0;
        for (int row = 0; row < 4; row++)
            for (int col = 0; col < w; col++) {
                assert_int_equal(tg_state_count(s, row, col), variant_start[v]);
                assert_int_equal(tg_state_owner(s, row, col), row / 2);
                total += tg_state_count(s, row, col);
            }
        assert_int_equal(total, v ? 96 : 56);
        assert_int_equal(tg_state_count(s, 0, w), -1);
        assert_int_equal(tg_state_count(s, 4, 0), -1);
        assert_int_equal(tg_state_score(s, 0), 0);
        assert_int_equal(tg_state_score(s, 1), 0);
        assert_int_equal(tg_state_player(s), 0);
        assert_int_equal(tg_state_winner(s), TG_NO_WINNER_YET);
        /* Every hole of player 0 holds 2 or more: all 2w are legal, ascending. */
        tg_move moves[64];
        assert_int_equal(tu_moves(s, moves, 64), (size_t)(2 * w));
        for (int i = 0; i < 2 * w; i++)
            assert_int_equal(moves[i], i);
        struct ref ref;
        ref_init(&ref, v, 100);
        expect_ref(s, &ref, "start");
        tg_state_free(s);
    }
    /* Cell names: a1 = 0, row * cols + col. */
    tg_state *s = tu_new("hawalis");
    TU_MOVES(s, "a1 b1 c1 d1 e1 f1 g1 a2 b2 c2 d2 e2 f2 g2");
    assert_int_equal(tu_move(s, "a1"), 0);
    assert_int_equal(tu_move(s, "g1"), 6);
    assert_int_equal(tu_move(s, "a2"), 7);
    assert_int_equal(tu_move(s, "g4"), 27);
    tg_move m = 0;
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "h1", &m));
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "a5", &m));
    tg_state_free(s);
    s = tu_new("hawalis:variant=zanzibar");
    assert_int_equal(tu_move(s, "h1"), 7);
    assert_int_equal(tu_move(s, "a2"), 8);
    assert_int_equal(tu_move(s, "h4"), 31);
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "i1", &m));
    tg_state_free(s);
}

static void test_options(void **unused)
{
    (void)unused;
    const char *bad[] = {"hawalis:variant=bao",   "hawalis:quiet=1001",
                         "hawalis:quiet=01",      "hawalis:variant=",
                         "hawalis:variant=Oman",  "hawalis:variant=oman,variant=oman",
                         "hawalis:quiet=-1",      "hawalis:quiet=",
                         "hawalis:width=8",       "hawalis:variant=oman,laps=10000,quiet=100,quiet=100",
                         "hawalis:variant=omani", "hawalis:variant=zanzibar "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_rules *r = NULL;
        tg_status st = tg_rules_new(bad[i], &r);
        if (st != TG_ERR_BAD_OPTION)
            TU_FAIL("tg_rules_new(\"%s\") = %d (%s), expected TG_ERR_BAD_OPTION", bad[i], (int)st,
                    tg_status_string(st));
        assert_null(r);
    }
    /* Spellings of rule sets and their canonical specs (quiet comes last). */
    static const struct {
        const char *spec, *canon;
    } good[] = {
        {"hawalis", OSPEC},
        {"hawalis:variant=oman", OSPEC},
        {"hawalis:quiet=100,variant=oman", OSPEC},
        {"hawalis:variant=zanzibar", ZSPEC},
        {"hawalis:quiet=2", "hawalis:variant=oman,laps=10000,quiet=2"},
        {"hawalis:quiet=0,variant=zanzibar", "hawalis:variant=zanzibar,laps=10000,quiet=0"},
        {"hawalis:quiet=1000", "hawalis:variant=oman,laps=10000,quiet=1000"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tg_rules *r = tu_rules(good[i].spec);
        assert_string_equal(tg_rules_spec(r), good[i].canon);
        tg_rules_free(r);
    }
    /* The catalogue entry. */
    size_t game = tg_game_count();
    for (size_t i = 0; i < tg_game_count(); i++)
        if (strcmp(tg_game_id(i), "hawalis") == 0)
            game = i;
    assert_true(game < tg_game_count());
    assert_string_equal(tg_game_name(game), "Hawalis");
    assert_int_equal(tg_game_option_count(game), 3);
    assert_string_equal(tg_game_option_key(game, 0), "variant");
    assert_string_equal(tg_game_option_values(game, 0), "oman|zanzibar");
    assert_string_equal(tg_game_option_default(game, 0), "oman");
    assert_string_equal(tg_game_option_key(game, 1), "laps");
    assert_string_equal(tg_game_option_values(game, 1), "0..1000000000");
    assert_string_equal(tg_game_option_default(game, 1), "10000");
    assert_string_equal(tg_game_option_key(game, 2), "quiet");
    assert_string_equal(tg_game_option_values(game, 2), "0..1000");
    assert_string_equal(tg_game_option_default(game, 2), "100");
}

/* ---- the rings ------------------------------------------------------------------------- */

/* A single lap of n counters from the first hole of a ring, into the mover's otherwise empty
 * rows: ring holes 1..n receive one counter each, in the page's order, and the last one ends
 * the move. The opponent's counters are all in their outer row, so Oman never captures, and
 * Zanzibar takes the outer hole facing a last counter in the mover's inner row. */
static void ring_walk(int v, int p, int n)
{
    int w = variant_cols[v], total = 4 * w * variant_start[v];
    int ring[MAXRING], len = ref_ring(v, p, ring);
    struct ref r;
    ref_init(&r, v, 100);
    memset(r.cell, 0, sizeof r.cell);
    r.side = p;
    r.cell[ring[0]] = n;
    int outer = p == 0 ? 3 : 0; /* the opponent's outer row */
    for (int k = 0; k < total - n; k++)
        r.cell[outer * w + k % w]++;
    char before[512], spec[64];
    ref_string(&r, before, sizeof before);
    ref_spec(&r, spec, sizeof spec);
    tg_state *s = tu_from(spec, before);
    char name[3] = {(char)('a' + ring[0] % w), (char)('1' + ring[0] / w), '\0'};
    tu_play(s, name);
    /* Hole by hole round the mover's ring. */
    for (int k = 0; k < len; k++) {
        int want = k >= 1 && k <= n ? 1 : 0, got = tg_state_count(s, ring[k] / w, ring[k] % w);
        if (got != want)
            TU_FAIL("%s player %d, %d counters from %s: ring hole %d (%c%d) holds %d, expected %d",
                    variant_name[v], p, n, name, k, 'a' + ring[k] % w, ring[k] / w + 1, got, want);
    }
    int last = ring[n], inner = p == 0 ? 1 : 2, taken = 0;
    if (v == ZANZIBAR && last / w == inner)
        taken = r.cell[outer * w + last % w];
    for (int col = 0; col < w; col++)
        assert_int_equal(tg_state_count(s, outer, col), col == last % w
                                                            ? r.cell[outer * w + col] - taken
                                                            : r.cell[outer * w + col]);
    assert_int_equal(tg_state_score(s, p), taken);
    /* The reference model, with the same ring table, agrees on the whole position. */
    assert_true(ref_apply(&r, ring[0]) == 1);
    expect_ref(s, &r, before);
    tg_state_free(s);
}

static void test_rings(void **unused)
{
    (void)unused;
    /* The page's lists: Oman anticlockwise, Zanzibar clockwise; a ring runs along the outer
     * row and back along the inner row, and its last hole is followed by its first. */
    for (int v = 0; v < 2; v++)
        for (int p = 0; p < 2; p++)
            for (int n = 1; n < 2 * variant_cols[v]; n++)
                ring_walk(v, p, n);
    /* The same laps written out: 13 (15) counters from the ring's first hole fill every other
     * hole and end in the last one, which is in the inner row. */
    play_check(
        OSPEC, OSPEC " 7,6,6,6,6,6,6/0,0,0,0,0,0,0/0,0,0,0,0,0,0/13,0,0,0,0,0,0 0 0,0 quiet=0",
        "a1", OSPEC " 7,6,6,6,6,6,6/0,0,0,0,0,0,0/1,1,1,1,1,1,1/0,1,1,1,1,1,1 1 0,0 quiet=1");
    play_check(
        OSPEC, OSPEC " 0,0,0,0,0,0,13/0,0,0,0,0,0,0/0,0,0,0,0,0,0/7,6,6,6,6,6,6 1 0,0 quiet=0",
        "g4", OSPEC " 1,1,1,1,1,1,0/1,1,1,1,1,1,1/0,0,0,0,0,0,0/7,6,6,6,6,6,6 0 0,0 quiet=1");
    /* Zanzibar: the last counter in h2 (a3) takes the outer hole h4 (a1) behind the empty
     * inner one. */
    play_check(ZSPEC,
               ZSPEC " 11,10,10,10,10,10,10,10/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,15 0 "
                     "0,0 quiet=0",
               "h1",
               ZSPEC " 11,10,10,10,10,10,10,0/0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,0 1 "
                     "10,0 quiet=0");
    play_check(ZSPEC,
               ZSPEC " 15,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/11,10,10,10,10,10,10,10 1 "
                     "0,0 quiet=0",
               "a4",
               ZSPEC " 0,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,0,0,0,0,0/0,10,10,10,10,10,10,10 0 "
                     "0,11 quiet=0");
    /* A full ring or more feeds the origin too: 14 (16) counters end in the origin itself,
     * an outer hole. */
    play_check(
        OSPEC, OSPEC " 6,6,6,6,6,6,6/0,0,0,0,0,0,0/0,0,0,0,0,0,0/14,0,0,0,0,0,0 0 0,0 quiet=0",
        "a1", OSPEC " 6,6,6,6,6,6,6/0,0,0,0,0,0,0/1,1,1,1,1,1,1/1,1,1,1,1,1,1 1 0,0 quiet=1");
    play_check(ZSPEC,
               ZSPEC " 10,10,10,10,10,10,10,10/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,16 0 "
                     "0,0 quiet=0",
               "h1",
               ZSPEC " 10,10,10,10,10,10,10,10/0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 1 "
                     "0,0 quiet=1");
    /* First moves from the start, relaying round each ring. Zanzibar h1: g1 f1 e1, relay e1:
     * d1 c1 b1 a1, relay a1: a2 b2 c2 d2, relay d2: e2 f2 g2 h2, relay h2: h1 g1 f1 e1, e1
     * was empty (outer): end. */
    play_check(ZSPEC, ZSTART, "h1",
               ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/4,4,4,0,4,4,4,0/0,4,4,4,1,5,5,1 1 0,0 "
                     "quiet=1");
    /* Oman, player 1 answers example 1 with g4: f4 e4, relay e4: d4 c4 b4, relay b4: a4 a3
     * b3, relay b3: c3 d3 e3, relay e3: f3 g3 g4, g4 was empty (outer): end. */
    play_check(OSPEC,
               OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/3,3,0,3,3,0,3/1,3,0,3,3,0,3 1 0,0 quiet=1", "g4",
               OSPEC " 3,0,3,3,0,3,1/3,0,3,3,0,3,3/3,3,0,3,3,0,3/1,3,0,3,3,0,3 0 0,0 quiet=2");
}

/* ---- the worked examples of rules/hawalis.md -------------------------------------------- */

#define EX1_AFTER OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/3,3,0,3,3,0,3/1,3,0,3,3,0,3 1 0,0 quiet=1"

static void test_example1_relay(void **unused)
{
    (void)unused;
    /* a1: b1 c1, relay c1: d1 e1 f1, relay f1: g1 g2 f2, relay f2: e2 d2 c2, relay c2: b2 a2
     * a1; a1 was empty (outer): end, no capture. Player 1 untouched. */
    assert_int_equal(play_check("hawalis", OSTART, "a1", EX1_AFTER), 5);
    tg_state *s = tu_new("hawalis");
    tu_play(s, "a1");
    static const int row1[7] = {1, 3, 0, 3, 3, 0, 3}, row2[7] = {3, 3, 0, 3, 3, 0, 3};
    for (int col = 0; col < 7; col++) {
        assert_int_equal(tg_state_count(s, 0, col), row1[col]);
        assert_int_equal(tg_state_count(s, 1, col), row2[col]);
        assert_int_equal(tg_state_count(s, 2, col), 2);
        assert_int_equal(tg_state_count(s, 3, col), 2);
    }
    assert_int_equal(tg_state_player(s), 1);
    assert_int_equal(tg_state_score(s, 0), 0);
    assert_int_equal(tg_state_score(s, 1), 0);
    tg_state_free(s);
}

/* Example 2: player 0 has f1 2, g1 0, g2 0; player 1 has g3 3, g4 2; the other holes hold 2
 * and 3 counters have been captured before. */
#define EX2_BEFORE OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,3/2,2,2,2,2,2,0/2,2,2,2,2,2,0 0 2,1 quiet=7"
#define EX2_AFTER OSPEC " 2,2,2,2,2,2,0/2,2,2,2,2,2,0/2,2,2,2,2,2,1/2,2,2,2,2,0,1 1 7,1 quiet=0"
/* Example 3: the same with g3 0 (its 3 counters in a3), g4 still 2. */
#define EX3_BEFORE OSPEC " 2,2,2,2,2,2,2/5,2,2,2,2,2,0/2,2,2,2,2,2,0/2,2,2,2,2,2,0 0 2,1 quiet=7"
#define EX3_AFTER OSPEC " 2,2,2,2,2,2,2/5,2,2,2,2,2,0/2,2,2,2,2,2,1/2,2,2,2,2,0,1 1 2,1 quiet=8"

static void test_example2_capture_both(void **unused)
{
    (void)unused;
    /* f1: g1 g2; g2 is inner and was empty; g3 is non-empty: g3 and g4 taken, 5 counters. */
    assert_int_equal(play_check("hawalis", EX2_BEFORE, "f1", EX2_AFTER), 1);
    tg_state *s = tu_from("hawalis", EX2_BEFORE);
    tu_play(s, "f1");
    assert_int_equal(tg_state_count(s, 0, 6), 1); /* g1 */
    assert_int_equal(tg_state_count(s, 1, 6), 1); /* g2 */
    assert_int_equal(tg_state_count(s, 2, 6), 0); /* g3 */
    assert_int_equal(tg_state_count(s, 3, 6), 0); /* g4 */
    assert_int_equal(tg_state_score(s, 0), 2 + 5);
    assert_int_equal(tg_state_score(s, 1), 1);
    assert_int_equal(tg_state_player(s), 1);
    tg_state_free(s);
}

static void test_example3_empty_front(void **unused)
{
    (void)unused;
    /* The same sowing; g3 is empty, so Oman captures nothing, g4 (2) notwithstanding. */
    play_check("hawalis", EX3_BEFORE, "f1", EX3_AFTER);
    tg_state *s = tu_from("hawalis", EX3_BEFORE);
    tu_play(s, "f1");
    assert_int_equal(tg_state_count(s, 1, 6), 1); /* g2 */
    assert_int_equal(tg_state_count(s, 3, 6), 2); /* g4 stays */
    assert_int_equal(tg_state_score(s, 0), 2);
    tg_state_free(s);
}

/* Example 4: player 0 has only d1 1 and e1 1. */
#define EX4_BOARD "2,2,2,2,2,2,2/2,2,2,2,2,2,2/0,0,0,0,0,0,0/0,0,0,1,1,0,0"
#define EX4_BEFORE OSPEC " " EX4_BOARD " 0 16,10 quiet=12"
#define EX4_AFTER OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/0,0,0,0,0,0,0/0,0,0,1,0,1,0 1 16,10 quiet=13"

static void test_example4_singletons(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("hawalis", EX4_BEFORE);
    TU_MOVES(s, "e1");
    /* d1 would sow its single counter into e1, which is occupied. */
    tg_move d1 = tu_move(s, "d1");
    assert_false(tg_state_is_legal(s, d1));
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, d1));
    TU_UNCHANGED(s, &snap, "apply(d1)");
    tu_snap_free(&snap);
    /* e1 goes into the empty f1 (outer): the move ends, nothing captured. */
    assert_true(tg_state_is_legal(s, tu_move(s, "e1")));
    tu_play(s, "e1");
    TU_POS(s, EX4_AFTER);
    assert_int_equal(tg_state_player(s), 1);
    tg_state_free(s);
    play_check("hawalis", EX4_BEFORE, "e1", EX4_AFTER);
}

/* Example 5: player 0 has b1 2, a1 0, a2 0; player 1 has a3 0, a4 2. */
#define EX5_BEFORE                                                                                 \
    ZSPEC " 2,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/0,2,3,3,3,3,3,3 0 6,5 quiet=4"
#define EX5_AFTER                                                                                  \
    ZSPEC " 0,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/1,3,3,3,3,3,3,3/1,0,3,3,3,3,3,3 1 8,5 quiet=0"

static void test_example5_zanzibar_outer(void **unused)
{
    (void)unused;
    /* b1 (clockwise): a1 a2; a2 is inner and was empty; a3 is empty, a4 holds 2: taken. */
    assert_int_equal(play_check("hawalis:variant=zanzibar", EX5_BEFORE, "b1", EX5_AFTER), 1);
    tg_state *s = tu_from("hawalis:variant=zanzibar", EX5_BEFORE);
    tu_play(s, "b1");
    assert_int_equal(tg_state_count(s, 0, 0), 1); /* a1 */
    assert_int_equal(tg_state_count(s, 1, 0), 1); /* a2 */
    assert_int_equal(tg_state_count(s, 2, 0), 0); /* a3 */
    assert_int_equal(tg_state_count(s, 3, 0), 0); /* a4 */
    assert_int_equal(tg_state_score(s, 0), 6 + 2);
    assert_int_equal(tg_state_player(s), 1);
    tg_state_free(s);
}

/* ---- the forced start ------------------------------------------------------------------ */

static void test_forced_start(void **unused)
{
    (void)unused;
    static const struct {
        const char *spec, *pos, *moves;
    } cases[] = {
        /* Oman, player 0: c1 holds 2, so the singletons a1 and g2 (next holes empty) may not
         * start. */
        {"hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/0,0,0,0,0,0,1/1,0,2,0,0,0,0 0 13,11 quiet=0", "c1"},
        /* Singletons only: a1 (b1 occupied) and g1 (g2 occupied) may not; a2 neither, as its
         * next hole is a1, round the end of the ring. */
        {"hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/1,0,0,0,0,0,1/1,1,0,1,0,0,1 0 12,10 quiet=0",
         "b1 d1 g2"},
        /* With a1 empty, a2 may go. */
        {"hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/1,0,0,0,0,0,1/0,1,0,1,0,0,1 0 13,10 quiet=0",
         "b1 d1 a2 g2"},
        /* Oman, player 1 (g4 f4 .. a4 a3 .. g3): d4 holds 3. */
        {"hawalis",
         OSPEC " 0,0,0,3,0,0,1/1,0,0,0,0,0,0/2,2,2,2,2,2,2/2,2,2,2,2,2,2 1 12,11 quiet=0", "d4"},
        /* g3's next is g4, round the end; d4's next is c4, occupied. */
        {"hawalis",
         OSPEC " 1,0,1,1,0,0,0/0,0,0,0,0,0,1/2,2,2,2,2,2,2/2,2,2,2,2,2,2 1 12,12 quiet=0",
         "g3 a4 c4"},
        {"hawalis",
         OSPEC " 1,0,1,1,0,0,1/0,0,0,0,0,0,1/2,2,2,2,2,2,2/2,2,2,2,2,2,2 1 12,11 quiet=0",
         "a4 c4 g4"},
        /* Zanzibar, player 0 (h1 g1 .. a1 a2 .. h2): e1 holds 2. */
        {"hawalis:variant=zanzibar",
         ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,0,0,0,0,0,1/1,0,0,0,2,0,0,0 0 24,20 quiet=0",
         "e1"},
        /* a1's next is a2 (empty), b1's is a1 (occupied), h2's is h1, round the end. */
        {"hawalis:variant=zanzibar",
         ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,0,0,0,0,0,1/1,1,0,0,1,0,0,0 0 24,20 quiet=0",
         "a1 e1 h2"},
        {"hawalis:variant=zanzibar",
         ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,0,0,0,0,0,1/1,1,0,0,1,0,0,1 0 24,19 quiet=0",
         "a1 e1 h1"},
        /* Zanzibar, player 1 (a4 b4 .. h4 h3 .. a3): c4 holds 3. */
        {"hawalis:variant=zanzibar",
         ZSPEC " 0,0,3,0,0,0,0,1/1,0,0,0,0,0,0,0/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 1 24,19 quiet=0",
         "c4"},
        /* a3's next is a4, round the end; e3's is d3 and b4's is c4, both occupied. */
        {"hawalis:variant=zanzibar",
         ZSPEC " 0,1,1,0,0,0,0,0/1,0,0,1,1,0,0,0/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 1 24,19 quiet=0",
         "a3 d3 c4"},
        {"hawalis:variant=zanzibar",
         ZSPEC " 1,1,1,0,0,0,0,0/1,0,0,1,1,0,0,0/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 1 24,18 quiet=0",
         "d3 c4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tg_state *s = tu_from(cases[i].spec, cases[i].pos);
        TU_MOVES(s, cases[i].moves);
        struct ref r;
        ref_from_state(s, &r);
        tg_move mine[64], lib[64];
        int n = ref_moves(&r, mine);
        assert_int_equal(tu_moves(s, lib, 64), (size_t)n);
        assert_memory_equal(lib, mine, (size_t)n * sizeof *lib);
        /* Every other hole of the mover is refused, and leaves the state alone. */
        int w = variant_cols[r.variant];
        for (int cell = 0; cell < 4 * w; cell++) {
            bool legal = false;
            for (int k = 0; k < n; k++)
                legal = legal || (int)mine[k] == cell;
            assert_true(tg_state_is_legal(s, (tg_move)cell) == legal);
            if (!legal) {
                struct tu_snap snap;
                tu_snap_take(s, &snap);
                TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, (tg_move)cell));
                TU_UNCHANGED(s, &snap, "an illegal start");
                tu_snap_free(&snap);
            }
        }
        tg_state_free(s);
    }
    /* The singletons round the end of each ring, played: a single counter into an empty outer
     * hole ends the move with no capture. */
    play_check(
        "hawalis", OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/1,0,0,0,0,0,1/0,1,0,1,0,0,1 0 13,10 quiet=0",
        "a2", OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/0,0,0,0,0,0,1/1,1,0,1,0,0,1 1 13,10 quiet=1");
    play_check(
        "hawalis", OSPEC " 1,0,1,1,0,0,0/0,0,0,0,0,0,1/2,2,2,2,2,2,2/2,2,2,2,2,2,2 1 12,12 quiet=0",
        "g3", OSPEC " 1,0,1,1,0,0,1/0,0,0,0,0,0,0/2,2,2,2,2,2,2/2,2,2,2,2,2,2 0 12,12 quiet=1");
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,0,0,0,0,0,1/1,1,0,0,1,0,0,0 0 24,20 "
                     "quiet=0",
               "h2",
               ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,0,0,0,0,0,0/1,1,0,0,1,0,0,1 1 24,20 "
                     "quiet=1");
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 0,1,1,0,0,0,0,0/1,0,0,1,1,0,0,0/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 1 24,19 "
                     "quiet=0",
               "a3",
               ZSPEC " 1,1,1,0,0,0,0,0/0,0,0,1,1,0,0,0/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 0 24,19 "
                     "quiet=1");
}

/* ---- captures -------------------------------------------------------------------------- */

static void test_captures(void **unused)
{
    (void)unused;
    /* Oman: facing inner hole g3 occupied, outer g4 empty: g3 alone is taken. */
    play_check("hawalis",
               OSPEC " 4,2,2,2,2,2,0/2,2,2,2,2,2,3/2,2,2,2,2,2,0/2,2,2,2,2,2,0 0 2,1 quiet=7", "f1",
               OSPEC " 4,2,2,2,2,2,0/2,2,2,2,2,2,0/2,2,2,2,2,2,1/2,2,2,2,2,0,1 1 5,1 quiet=0");
    /* Oman: facing inner hole g3 empty: nothing, however full g4 is. */
    play_check(
        "hawalis", OSPEC " 2,2,2,2,2,2,20/0,0,0,0,0,0,0/2,2,2,2,2,2,0/2,2,2,2,2,2,0 0 0,0 quiet=7",
        "f1", OSPEC " 2,2,2,2,2,2,20/0,0,0,0,0,0,0/2,2,2,2,2,2,1/2,2,2,2,2,0,1 1 0,0 quiet=8");
    /* Zanzibar, example 5's board with a3 2 as well: both taken (4). */
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 2,3,3,3,3,3,3,3/2,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/0,2,3,3,3,3,3,3 0 4,5 "
                     "quiet=4",
               "b1",
               ZSPEC " 0,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/1,3,3,3,3,3,3,3/1,0,3,3,3,3,3,3 1 8,5 "
                     "quiet=0");
    /* Zanzibar: a3 2, a4 empty: a3 alone (2). */
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 0,5,3,3,3,3,3,3/2,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/0,2,3,3,3,3,3,3 0 4,5 "
                     "quiet=4",
               "b1",
               ZSPEC " 0,5,3,3,3,3,3,3/0,3,3,3,3,3,3,3/1,3,3,3,3,3,3,3/1,0,3,3,3,3,3,3 1 6,5 "
                     "quiet=0");
    /* Zanzibar: a3 and a4 both empty: nothing, a quiet move. */
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 0,5,3,3,3,3,3,3/0,3,3,3,3,3,3,3/0,3,3,3,3,3,3,3/0,2,3,3,3,3,3,3 0 6,5 "
                     "quiet=4",
               "b1",
               ZSPEC " 0,5,3,3,3,3,3,3/0,3,3,3,3,3,3,3/1,3,3,3,3,3,3,3/1,0,3,3,3,3,3,3 1 6,5 "
                     "quiet=5");
    /* A last counter in one's own outer row captures nothing, in either variant: c1 sows d1
     * e1, e1 was empty; e3 and e4 stay. */
    play_check("hawalis",
               OSPEC " 2,2,2,2,2,2,2/2,2,2,2,9,2,2/2,2,2,2,2,2,2/0,0,2,0,0,0,0 0 3,2 quiet=3", "c1",
               OSPEC " 2,2,2,2,2,2,2/2,2,2,2,9,2,2/2,2,2,2,2,2,2/0,0,0,1,1,0,0 1 3,2 quiet=4");
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 3,3,3,3,3,3,3,3/3,3,9,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,0,0,2,0,0,0 0 10,6 "
                     "quiet=3",
               "e1",
               ZSPEC " 3,3,3,3,3,3,3,3/3,3,9,3,3,3,3,3/3,3,3,3,3,3,3,3/0,0,1,1,0,0,0,0 1 10,6 "
                     "quiet=4");
    /* Player 1 captures (facing rows reversed). Oman a4: a3 b3; b3 is inner and was empty:
     * b2 (3) and b1 (2) are taken. */
    play_check("hawalis",
               OSPEC " 2,2,2,2,2,2,2/0,0,2,2,2,2,2/2,3,2,2,2,2,2/2,2,2,2,2,2,2 1 1,2 quiet=9", "a4",
               OSPEC " 0,2,2,2,2,2,2/1,1,2,2,2,2,2/2,0,2,2,2,2,2/2,0,2,2,2,2,2 0 1,7 quiet=0");
    /* Oman: b2 empty, so b1 stays. */
    play_check("hawalis",
               OSPEC " 2,2,2,2,2,2,2/0,0,2,2,2,2,2/3,0,4,2,2,2,2/2,2,2,2,2,2,2 1 1,2 quiet=9", "a4",
               OSPEC " 0,2,2,2,2,2,2/1,1,2,2,2,2,2/3,0,4,2,2,2,2/2,2,2,2,2,2,2 0 1,2 quiet=10");
    /* Zanzibar h4: h3 g3; g3 is inner and was empty: g2 is empty, g1 (3) is taken. */
    play_check("hawalis:variant=zanzibar",
               ZSPEC " 3,3,3,3,3,3,3,2/3,3,3,3,3,3,0,0/3,3,3,3,3,3,0,3/3,3,3,3,3,3,3,3 1 5,5 "
                     "quiet=20",
               "h4",
               ZSPEC " 3,3,3,3,3,3,3,0/3,3,3,3,3,3,1,1/3,3,3,3,3,3,0,3/3,3,3,3,3,3,0,3 0 5,8 "
                     "quiet=0");
    /* A capture after relays: player 1 answers example 1 with a3: b3 c3, relay c3: d3 e3 f3,
     * relay f3: g3 g4 f4, relay f4: e4 d4 c4, relay c4: b4 a4 a3; a3 was empty (inner) and
     * a2 holds 3: a2 and a1 (1) are taken. */
    assert_int_equal(play_check("hawalis", EX1_AFTER, "a3",
                                OSPEC " 3,3,0,3,3,0,3/1,3,0,3,3,0,3/0,3,0,3,3,0,3/"
                                      "0,3,0,3,3,0,3 0 0,4 quiet=0"),
                     5);
    /* Zanzibar, player 1's b3: a3 a4 b4, relay b4: c4 d4 e4 f4, relay f4: g4 h4 h3 g3, relay
     * g3: f3 e3 d3 c3; c3 was empty (inner): c2 (1) and c1 (4) are taken. */
    assert_int_equal(play_check("hawalis:variant=zanzibar",
                                ZSPEC " 3,3,0,3,3,3,3,3/3,3,0,3,3,3,3,3/5,5,1,4,4,4,0,4/"
                                      "1,0,4,4,4,0,4,4 1 6,0 quiet=0",
                                "b3",
                                ZSPEC " 4,0,1,4,4,0,4,4/4,0,1,4,4,4,0,4/5,5,0,4,4,4,0,4/"
                                      "1,0,0,4,4,0,4,4 0 6,5 quiet=0"),
                     4);
    tg_state *s = tu_from("hawalis", EX2_BEFORE);
    int before = 0;
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 7; col++)
            before += tg_state_count(s, row, col);
    tu_play(s, "f1");
    int after = 0;
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 7; col++)
            after += tg_state_count(s, row, col);
    /* The catch leaves the board for the captor's score. */
    assert_int_equal(before - after, 5);
    assert_int_equal(after + tg_state_score(s, 0) + tg_state_score(s, 1), 56);
    tg_state_free(s);
}

/* ---- the end: no legal move ------------------------------------------------------------ */

/* Player 1's 14 singletons: each is followed round the ring by an occupied hole. (With only
 * 0s and 1s on a ring, some 1 is followed by a 0 unless every hole holds 1 or none does, so
 * this is the only blocked side besides an empty one.) Player 0's a1 sows b1 c1 and ends. */
#define BLOCK_BOARD "1,1,1,1,1,1,1/1,1,1,1,1,1,1/0,0,0,0,0,0,0/2,0,0,0,0,0,0"
#define BLOCK_AFTER "1,1,1,1,1,1,1/1,1,1,1,1,1,1/0,0,0,0,0,0,0/0,1,1,0,0,0,0"

static void expect_end(const char *spec, const char *before, const char *move, const char *after,
                       int winner)
{
    play_check(spec, before, move, after);
    tg_state *s = tu_from(spec, before);
    tu_play(s, move);
    assert_true(tg_state_is_terminal(s));
    assert_int_equal(tg_state_player(s), TG_TERMINAL);
    assert_int_equal(tg_state_turn(s), TG_TERMINAL);
    assert_int_equal(tg_state_winner(s), winner);
    assert_int_equal(tu_moves(s, NULL, 0), 0);
    TU_STATUS(TG_ERR_GAME_OVER, tg_state_apply(s, tu_move(s, "a1")));
    double ret[2] = {9, 9};
    TU_OK(tg_state_returns(s, ret));
    if (winner == TG_DRAW)
        assert_true(ret[0] == 0.0 && ret[1] == 0.0);
    else
        assert_true(ret[winner] == 1.0 && ret[1 - winner] == -1.0);
    tg_state_free(s);
}

static void test_blocked_end(void **unused)
{
    (void)unused;
    /* The player to move has no legal move: the game ends, higher captures win; the counters
     * left on the board count for nobody. */
    expect_end("hawalis", OSPEC " " BLOCK_BOARD " 0 25,15 quiet=3", "a1",
               OSPEC " " BLOCK_AFTER " - 25,15 quiet=4 winner=0", 0);
    expect_end("hawalis", OSPEC " " BLOCK_BOARD " 0 15,25 quiet=3", "a1",
               OSPEC " " BLOCK_AFTER " - 15,25 quiet=4 winner=1", 1);
    expect_end("hawalis", OSPEC " " BLOCK_BOARD " 0 20,20 quiet=3", "a1",
               OSPEC " " BLOCK_AFTER " - 20,20 quiet=4 winner=draw", TG_DRAW);
    /* Zanzibar, the other way round: player 1's a4 sows b4 c4, and player 0's 16 singletons
     * are blocked; player 0 has more captures and wins. */
    expect_end("hawalis:variant=zanzibar",
               ZSPEC " 2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 1 40,38 "
                     "quiet=50",
               "a4",
               ZSPEC " 0,1,1,0,0,0,0,0/0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 - 40,38 "
                     "quiet=51 winner=0",
               0);
    /* A capture takes player 1's last counters: no counters, no move. */
    expect_end("hawalis",
               OSPEC " 0,0,0,0,0,0,2/0,0,0,0,0,0,3/2,2,2,2,2,2,0/2,2,2,2,2,2,0 0 12,15 quiet=30",
               "f1",
               OSPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0/2,2,2,2,2,2,1/2,2,2,2,2,0,1 - 17,15 quiet=0 "
                     "winner=0",
               0);
    /* The game's own end comes before the quiet limit reached by the same move: the board
     * stays and captures decide (22-18), where the limit's count would give 24-32. */
    expect_end("hawalis:quiet=4", "hawalis:variant=oman,laps=10000,quiet=4 " BLOCK_BOARD " 0 22,18 quiet=3",
               "a1", "hawalis:variant=oman,laps=10000,quiet=4 " BLOCK_AFTER " - 22,18 quiet=4 winner=0", 0);
}

/* ---- the quiet limit -------------------------------------------------------------------- */

#define Q2 "hawalis:variant=oman,laps=10000,quiet=2"
#define ZQ2 "hawalis:variant=zanzibar,laps=10000,quiet=2"
#define OEMPTY "0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0"
#define ZEMPTY "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0"

static void test_quiet_limit(void **unused)
{
    (void)unused;
    /* Example 1 as the second quiet move under quiet=2: the board is emptied, each player
     * takes their own rows (28 each): a draw. */
    tg_state *s = tu_new("hawalis:quiet=2");
    TU_POS(s, Q2 " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2 0 0,0 quiet=0");
    tg_state_free(s);
    expect_end("hawalis:quiet=2",
               Q2 " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2 0 0,0 quiet=1", "a1",
               Q2 " " OEMPTY " - 28,28 quiet=2 winner=draw", TG_DRAW);
    /* More captures (10-0) but fewer own counters (16 against 30): player 1 wins 26-30. */
    expect_end("hawalis:quiet=2",
               Q2 " 2,2,2,2,2,2,4/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,0,0,0,0,0,0 0 10,0 quiet=1", "a1",
               Q2 " " OEMPTY " - 26,30 quiet=2 winner=1", 1);
    /* Zanzibar, player 1 making the limit: a4 sows b4 c4; 4 + 48 against 3 + 41. */
    expect_end("hawalis:variant=zanzibar,laps=10000,quiet=2",
               ZQ2 " 2,0,0,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 1 4,3 quiet=1",
               "a4", ZQ2 " " ZEMPTY " - 52,44 quiet=2 winner=0", 0);
    /* A capture at the limit's edge restarts the count instead. */
    play_check("hawalis:quiet=2",
               Q2 " 2,2,2,2,2,2,2/2,2,2,2,2,2,3/2,2,2,2,2,2,0/2,2,2,2,2,2,0 0 2,1 quiet=1", "f1",
               Q2 " 2,2,2,2,2,2,0/2,2,2,2,2,2,0/2,2,2,2,2,2,1/2,2,2,2,2,0,1 1 7,1 quiet=0");
    /* The default limit 100: example 4's e1 as the 100th quiet move; 16 + 2 against
     * 10 + 28. */
    expect_end("hawalis", OSPEC " " EX4_BOARD " 0 16,10 quiet=99", "e1",
               OSPEC " " OEMPTY " - 18,38 quiet=100 winner=1", 1);
    /* quiet=0 turns the limit off. */
    s = tu_from("hawalis:quiet=0", "hawalis:variant=oman,laps=10000,quiet=0 " EX4_BOARD " 0 16,10 quiet=999");
    tu_play(s, "e1");
    TU_POS(s, "hawalis:variant=oman,laps=10000,quiet=0 2,2,2,2,2,2,2/2,2,2,2,2,2,2/0,0,0,0,0,0,0/"
              "0,0,0,1,0,1,0 1 16,10 quiet=1000");
    assert_false(tg_state_is_terminal(s));
    tg_state_free(s);
    /* Random games under small limits against the reference, every ply. */
    static const int limits[] = {1, 2, 5, 20};
    int draws = 0, wins = 0;
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        for (int v = 0; v < 2; v++) {
            char spec[64];
            snprintf(spec, sizeof spec, "hawalis:variant=%s,laps=10000,quiet=%d", variant_name[v], limits[i]);
            for (uint64_t seed = 1; seed <= 10; seed++) {
                struct ref r;
                ref_init(&r, v, limits[i]);
                tg_state *g = tu_new(spec);
                uint64_t rng = seed * 7919;
                while (!r.over) {
                    tg_move legal[64];
                    int n = ref_moves(&r, legal);
                    tg_move mv = tu_apply_random_as(g, &rng, legal, (size_t)n);
                    assert_true(ref_apply(&r, (int)mv) != REF_UNKNOWN);
                    expect_ref(g, &r, spec);
                }
                assert_true(tg_state_is_terminal(g));
                draws += r.winner == TG_DRAW;
                wins += r.winner != TG_DRAW;
                tg_state_free(g);
            }
        }
    print_message("# quiet limits 1, 2, 5, 20: %d wins, %d draws\n", wins, draws);
    assert_true(wins > 0 && draws > 0);
}

/* ---- endless moves ---------------------------------------------------------------------- */

struct endless_case {
    const char *spec;
    const char *board_etc; /* the position after the spec, up to the side to move */
    const char *side;      /* "0" or "1" */
    const char *rest;      /* scores and quiet count */
    const char *move;
    uint64_t cycle; /* laps until the sowing is back at its first lap */
};

/* Found by a search over the positions of seeded random playouts (every legal move of every
 * ply tried; 5000 games a variant met 428 endless moves in Oman and 251 in Zanzibar, with
 * cycles from 63 to over 100 million laps); each cycle was measured with Brent's algorithm
 * over the reference model. Every endless Hawalis move met came back to its very first lap
 * (no lead-in), so the cycle length is the number of laps until the first lap repeats. The
 * cycles up to 100,000 laps are checked against the reference here; the longest is left to
 * the library alone, to keep the suite fast (it was measured once the same way). */
static const struct endless_case endless_cases[] = {
    /* Oman, player 0 moves (and loses although ahead on captures). */
    {OSPEC, "0,0,0,0,1,1,1/1,1,1,0,1,1,0/3,2,1,0,1,2,0/2,1,0,1,0,2,1", "0", "20,12 quiet=4", "b2",
     77},
    /* Oman, player 1 moves. */
    {OSPEC, "1,0,3,2,6,1,2/0,2,1,0,1,0,3/0,0,0,1,1,1,3/3,0,1,0,1,1,0", "1", "6,16 quiet=3", "e4",
     63},
    /* The same at quiet=99: an endless move leaves the count alone, so the limit is not
     * reached. */
    {OSPEC, "1,0,3,2,6,1,2/0,2,1,0,1,0,3/0,0,0,1,1,1,3/3,0,1,0,1,1,0", "1", "6,16 quiet=99", "e4",
     63},
    /* Zanzibar, player 0 moves. */
    {ZSPEC, "5,5,1,1,0,5,0,1/2,0,1,2,1,5,0,0/0,2,3,4,1,2,1,10/1,5,1,0,1,0,1,4", "0",
     "19,12 quiet=1", "h2", 68},
    /* Zanzibar, player 1 moves. */
    {ZSPEC, "2,1,0,3,4,1,0,9/3,1,0,1,2,6,1,0/0,1,1,0,0,1,1,0/2,0,6,1,3,0,4,1", "1", "14,27 quiet=0",
     "f3", 70},
    /* Oman, a longer cycle. */
    {OSPEC, "1,1,4,4,2,0,5/0,3,1,0,1,1,0/1,0,1,0,1,0,2/0,1,0,8,1,0,3", "0", "5,10 quiet=0", "g2",
     1449},
    /* Zanzibar, a cycle of 3,817,760 laps (a known case, not from the search). */
    {ZSPEC, "0,3,2,1,2,3,13,1/1,0,1,5,4,0,1,2/0,1,0,1,0,1,0,0/0,1,2,1,2,0,3,1", "1", "9,35 quiet=5",
     "d3", 3817760},
};

/* Laps until the reference's sowing returns to its first lap, up to cap (0 if not). */
static uint64_t ref_cycle(const struct ref *r, int m, uint64_t cap)
{
    int ring[MAXRING], len = ref_ring(r->variant, r->side, ring);
    struct lapstate first, s;
    lap_start(&first, r->cell, ref_cells(r), ring, m);
    s = first;
    do {
        lap_step(&s, ring, len);
        if (s.done || s.laps > cap)
            return 0;
    } while (!lap_same(&s, &first));
    return s.laps;
}

static void test_endless_pinned(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof endless_cases / sizeof endless_cases[0]; i++) {
        const struct endless_case *c = &endless_cases[i];
        char before[512], after[512];
        int mover = c->side[0] - '0';
        snprintf(before, sizeof before, "%s %s %s %s", c->spec, c->board_etc, c->side, c->rest);
        snprintf(after, sizeof after, "%s %s - %s winner=%d", c->spec, c->board_etc, c->rest,
                 1 - mover);
        tg_state *s = tu_from(c->spec, before);
        TU_POS(s, before);
        uint64_t hash = tg_state_hash(s);
        int w = tg_rules_cols(tg_state_rules(s));
        int score0 = tg_state_score(s, 0), score1 = tg_state_score(s, 1);
        int counts[MAXCELLS];
        for (int cell = 0; cell < 4 * w; cell++)
            counts[cell] = tg_state_count(s, cell / w, cell % w);
        tg_move m = tu_move(s, c->move);
        assert_true(tg_state_is_legal(s, m));
        TU_OK(tg_state_apply(s, m));
        /* The mover loses; board, scores and quiet count stay exactly as they were. */
        TU_POS(s, after);
        assert_true(tg_state_is_terminal(s));
        assert_int_equal(tg_state_player(s), TG_TERMINAL);
        assert_int_equal(tg_state_winner(s), 1 - mover);
        assert_int_equal(tg_state_score(s, 0), score0);
        assert_int_equal(tg_state_score(s, 1), score1);
        for (int cell = 0; cell < 4 * w; cell++)
            assert_int_equal(tg_state_count(s, cell / w, cell % w), counts[cell]);
        double ret[2];
        TU_OK(tg_state_returns(s, ret));
        assert_true(ret[mover] == -1.0 && ret[1 - mover] == 1.0);
        assert_int_equal(tu_moves(s, NULL, 0), 0);
        assert_int_equal(tu_history_len(s), 1);
        tg_state *t = tu_from(c->spec, after);
        assert_true(tg_state_equal(s, t));
        assert_true(tg_state_hash(s) == tg_state_hash(t));
        tg_state_free(t);
        /* Undo restores the position exactly. */
        TU_OK(tg_state_undo(s));
        TU_POS(s, before);
        assert_true(tg_state_hash(s) == hash);
        assert_false(tg_state_is_terminal(s));
        assert_int_equal(tg_state_player(s), mover);
        /* Applied again, the move ends the game the same way. */
        tu_play(s, c->move);
        TU_POS(s, after);
        TU_OK(tg_state_undo(s));
        tu_check_endless_unlimited(before, after, m);
        /* The reference model agrees independently, and the cycle has the pinned length. */
        if (c->cycle <= 100000) {
            struct ref r;
            ref_from_state(s, &r);
            assert_int_equal(ref_cycle(&r, (int)m, 10 * c->cycle), c->cycle);
            struct ref after_ref = r;
            assert_true(ref_apply(&after_ref, (int)m) == 0);
            expect_ref(s, &r, before);
            TU_OK(tg_state_apply(s, m));
            expect_ref(s, &after_ref, before);
        }
        tg_state_free(s);
    }
}

/* The longest finite moves a search over random positions met (in laps, counted by the
 * reference model): however long, they end, and must not be taken for endless moves. */
struct long_case {
    const char *spec, *before, *move;
    uint64_t laps;
    const char *after;
};

static const struct long_case long_cases[] = {
    /* Zanzibar, 2400 laps, ending in a capture of 4. */
    {ZSPEC, ZSPEC " 3,2,1,2,3,2,4,6/1,4,2,2,2,5,0,5/1,2,1,4,3,2,3,4/2,5,2,5,1,4,1,2 0 9,1 quiet=4",
     "h2", 2400,
     ZSPEC " 0,2,1,2,3,2,4,6/0,4,2,2,2,5,0,5/1,3,0,1,4,3,2,1/4,5,1,9,1,2,3,2 1 13,1 quiet=0"},
    /* Zanzibar, player 1, 1576 laps, quiet. */
    {ZSPEC, ZSPEC " 6,3,0,3,4,1,2,3/1,4,6,1,4,3,2,0/5,1,3,4,3,5,1,3/1,1,5,3,5,1,3,1 1 6,2 quiet=1",
     "c3", 1576,
     ZSPEC " 4,1,1,0,1,6,1,2/11,1,2,3,2,3,0,5/5,1,3,4,3,5,1,3/1,1,5,3,5,1,3,1 0 6,2 quiet=2"},
    /* Oman, 1090 laps, quiet. */
    {OSPEC, OSPEC " 1,1,1,1,3,3,2/2,1,2,1,0,0,2/3,2,2,5,2,1,2/2,1,2,3,0,4,1 0 0,6 quiet=21", "c2",
     1090, OSPEC " 1,1,1,1,3,3,2/2,1,2,1,0,0,2/7,1,2,1,2,1,0/1,0,4,1,1,8,1 1 0,6 quiet=22"},
};

static void test_long_finite_move(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof long_cases / sizeof long_cases[0]; i++) {
        const struct long_case *c = &long_cases[i];
        assert_int_equal(play_check(c->spec, c->before, c->move, c->after), c->laps);
        tg_state *s = tu_from(c->spec, c->before);
        tu_check_lap_boundary(c->before, tu_move(s, c->move), (unsigned long)c->laps);
        tu_play(s, c->move);
        assert_false(tg_state_is_terminal(s));
        tg_state_free(s);
    }
}

/* ---- perft ------------------------------------------------------------------------------ */

/* Pinned after three counts agreed: tg_perft, apply/undo through the public API, and the
 * reference model. (A release build gives 15,755,969 for Oman and 123,864,938 for Zanzibar at
 * depth 8, too slow for this suite.) */
static const uint64_t perft_oman[] = {1, 14, 182, 1539, 12626, 80262, 502762, 2849453};
static const uint64_t perft_zanzibar[] = {1, 16, 240, 2474, 24961, 215880, 1837652};

static void test_perft(void **unused)
{
    (void)unused;
    for (int v = 0; v < 2; v++) {
        const uint64_t *want = v ? perft_zanzibar : perft_oman;
        unsigned depths = v ? sizeof perft_zanzibar / sizeof perft_zanzibar[0]
                            : sizeof perft_oman / sizeof perft_oman[0];
        tg_state *s = tu_new(v ? "hawalis:variant=zanzibar" : "hawalis");
        struct ref r;
        ref_init(&r, v, 100);
        for (unsigned d = 0; d < depths; d++) {
            uint64_t lib = tg_perft(s, d), mine = tu_perft_apply_undo(s, d), ref = ref_perft(&r, d);
            if (lib != want[d] || mine != want[d] || ref != want[d])
                TU_FAIL("%s depth %u: tg_perft %" PRIu64 ", apply/undo %" PRIu64
                        ", reference %" PRIu64 ", pinned %" PRIu64,
                        variant_name[v], d, lib, mine, ref, want[d]);
        }
        TU_POS(s, v ? ZSTART : OSTART);
        assert_int_equal(tu_history_len(s), 0);
        tg_state_free(s);
    }
}

/* ---- rejected position strings ---------------------------------------------------------- */

#define OROWS "2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2"

static void test_bad_input(void **unused)
{
    (void)unused;
    static const struct {
        const char *spec, *text;
    } good[] = {
        {"hawalis", OSTART},
        {"hawalis:variant=zanzibar", ZSTART},
        /* Any spelling of the same rule set. */
        {"hawalis", "hawalis " OROWS " 0 0,0 quiet=0"},
        {"hawalis", "hawalis:quiet=100 " OROWS " 0 0,0 quiet=0"},
        /* A cell may hold every counter. */
        {"hawalis",
         OSPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/56,0,0,0,0,0,0 0 0,0 quiet=0"},
        /* An endless move can decide a game against the scores; a draw needs equal scores. */
        {"hawalis", OSPEC " " BLOCK_BOARD " - 25,15 quiet=3 winner=1"},
        {"hawalis", OSPEC " " BLOCK_AFTER " - 20,20 quiet=4 winner=draw"},
        {"hawalis", OSPEC " " OEMPTY " - 28,28 quiet=100 winner=draw"},
        {"hawalis", OSPEC " " BLOCK_AFTER " 0 20,20 quiet=99"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tg_state *s = tu_from(good[i].spec, good[i].text);
        tg_state_free(s);
    }
    static const struct {
        tg_status status;
        const char *spec, *text;
    } bad[] = {
        /* Totals not adding up to 56 (96). */
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 1,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,3 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,1 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis:variant=zanzibar",
         ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,2 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis:variant=zanzibar",
         ZSPEC " 3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3/3,3,3,3,3,3,3,3 0 0,1 quiet=0"},
        /* A cell too big, malformed cells. */
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/57,0,0,0,0,0,0 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/312,0,0,0,0,0,0 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/02,2,2,2,2,2,2 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2/-2,2,2,2,2,2,6 0 0,0 quiet=0"},
        /* Wrong numbers of rows or columns. */
        {TG_ERR_PARSE, "hawalis", OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/4,4,4,4,4,4,4 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS "/0,0,0,0,0,0,0 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,2,2,0/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,4/2,2,2,2,2,2,2/2,2,2,2,2,2,2/2,2,2,2,2,2,2 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis:variant=zanzibar",
         ZSPEC " 3,3,3,3,3,3,3/3,3,3,3,3,3,3/3,3,3,3,3,3,3/3,3,3,3,3,3,3 0 12,0 quiet=0"},
        /* Player 1 is blocked, so could not have made the endless move that this loss would
         * need, and player 0 having no move is not the end either (the scores say 1). */
        {TG_ERR_PARSE, "hawalis", OSPEC " " BLOCK_BOARD " - 19,21 quiet=3 winner=0"},
        /* A draw with unequal scores. */
        {TG_ERR_PARSE, "hawalis", OSPEC " " BLOCK_AFTER " - 21,19 quiet=4 winner=draw"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OEMPTY " - 29,27 quiet=100 winner=draw"},
        /* A running position whose mover has no legal move: blocked singletons, no counters. */
        {TG_ERR_PARSE, "hawalis", OSPEC " " BLOCK_AFTER " 1 20,20 quiet=4"},
        {TG_ERR_PARSE, "hawalis",
         OSPEC " 2,2,2,2,2,2,2/2,2,2,2,2,2,2/0,0,0,0,0,0,0/0,0,0,0,0,0,0 0 20,8 quiet=4"},
        {TG_ERR_PARSE, "hawalis:variant=zanzibar",
         ZSPEC " 2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 0 40,38 "
               "quiet=50"},
        /* Bad quiet counts: at or past the limit in a running game, past it in a finished one,
         * malformed, missing. */
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 quiet=100"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OEMPTY " - 28,28 quiet=101 winner=draw"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 quiet=01"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 quiet=-1"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 quiet="},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 q=0"},
        {TG_ERR_PARSE, "hawalis:quiet=2", Q2 " " OROWS " 0 0,0 quiet=2"},
        /* Bad sides, missing or extra fields. */
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 2 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " c0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " - 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 quiet=0 winner=0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0,0 quiet=0 extra=1"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OROWS " 0 0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", OSPEC " " OEMPTY " - 28,28 quiet=2 winner=2"},
        /* The other variant's spec, another limit: another rule set. A malformed spec. */
        {TG_ERR_RULES_MISMATCH, "hawalis", ZSTART},
        {TG_ERR_RULES_MISMATCH, "hawalis:variant=zanzibar", OSTART},
        {TG_ERR_RULES_MISMATCH, "hawalis", Q2 " " OROWS " 0 0,0 quiet=0"},
        {TG_ERR_RULES_MISMATCH, "hawalis", "hus " OROWS " 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", "hawalis:variant=bao " OROWS " 0 0,0 quiet=0"},
        {TG_ERR_PARSE, "hawalis", "hawalis:quiet=1001 " OROWS " 0 0,0 quiet=0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tu_from_fails(bad[i].status, bad[i].spec, bad[i].text);
    /* Moves: an opponent's hole, a cell off the board, after the end. */
    tg_state *s = tu_new("hawalis");
    tg_move m = 0;
    assert_false(tg_state_is_legal(s, tu_move(s, "a4")));
    assert_false(tg_state_is_legal(s, 28));
    assert_false(tg_state_is_legal(s, TG_MOVE_PASS));
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, tu_move(s, "a4")));
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, 28));
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, TG_MOVE_PASS));
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "h1", &m));
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "a0", &m));
    TU_UNCHANGED(s, &snap, "illegal moves");
    tu_snap_free(&snap);
    tg_state_free(s);
}

/* ---- random positions and games against the reference ----------------------------------- */

/* Applies every legal move of s (and of r, the same position) in both, compares, undoes.
 * Counts the moves compared, the endless ones, the captures, and the moves the reference
 * could not decide within its cap (left out). */
struct tally {
    int moves, endless, captures, skipped;
    int boundaries;  /* moves whose lap-limit boundary was checked */
    uint64_t longest; /* the most laps among them */
};

static void compare_children(tg_state *s, const struct ref *r, const char *what, struct tally *t)
{
    tg_move lib[64], mine[64];
    size_t n = tu_moves(s, lib, 64);
    int rn = ref_moves(r, mine);
    if (n != (size_t)rn || memcmp(lib, mine, n * sizeof *lib) != 0) {
        char text[512];
        ref_string(r, text, sizeof text);
        TU_FAIL("%s: %zu legal moves in the library, %d in the reference, at \"%s\"", what, n, rn,
                text);
    }
    for (size_t i = 0; i < n; i++) {
        struct ref c = *r;
        uint64_t laps = ref_apply(&c, (int)mine[i]);
        if (laps == REF_UNKNOWN) {
            t->skipped++;
            continue;
        }
        t->moves++;
        t->endless += laps == 0;
        t->captures += !c.over && c.quiet == 0;
        /* The lap limit's boundary sits exactly at the reference's count of laps. */
        if (laps >= 2 && t->boundaries < tu_battery(400)) {
            char text[512];
            ref_string(r, text, sizeof text);
            tu_check_lap_boundary(text, lib[i], (unsigned long)laps);
            t->boundaries++;
            t->longest = laps > t->longest ? laps : t->longest;
        }
        TU_OK(tg_state_apply(s, lib[i]));
        expect_ref(s, &c, what);
        TU_OK(tg_state_undo(s));
    }
    expect_ref(s, r, what);
}

/* A random position: a random number of counters on the board, spread at random over the
 * holes, the rest split at random between the scores; a random side to move (with a move). */
static void random_position(struct ref *r, uint64_t *gen, int v)
{
    int total = 4 * variant_cols[v] * variant_start[v];
    for (;;) {
        ref_init(r, v, 100);
        memset(r->cell, 0, sizeof r->cell);
        int on = 4 + (int)tu_uniform_below(gen, (uint32_t)(total - 3));
        for (int k = 0; k < on; k++)
            r->cell[tu_uniform_below(gen, (uint32_t)ref_cells(r))]++;
        r->score[0] = (int)tu_uniform_below(gen, (uint32_t)(total - on + 1));
        r->score[1] = total - on - r->score[0];
        r->side = (int)(tu_splitmix64(gen) & 1);
        r->quiet = (int)tu_uniform_below(gen, 100);
        if (ref_moves(r, NULL) > 0)
            return;
    }
}

static void test_random_positions_vs_reference(void **unused)
{
    (void)unused;
    uint64_t gen = 20250317;
    struct tally t = {0, 0, 0, 0, 0, 0};
    const int trials = tu_battery(2000);
    for (int trial = 0; trial < trials; trial++) {
        struct ref r;
        random_position(&r, &gen, trial % 2);
        char text[512], spec[64];
        ref_string(&r, text, sizeof text);
        ref_spec(&r, spec, sizeof spec);
        tg_state *s = tu_from(spec, text);
        TU_POS(s, text);
        compare_children(s, &r, text, &t);
        tg_state_free(s);
    }
    print_message("# random positions: %d moves compared, %d endless, %d captures, %d skipped; "
                  "lap-limit boundary of %d moves checked, the longest %" PRIu64 " laps\n",
                  t.moves, t.endless, t.captures, t.skipped, t.boundaries, t.longest);
    assert_true(t.endless > 0 && t.captures > 0);
    assert_true(t.boundaries == tu_battery(400) && t.longest >= 3);
}

static void test_random_games_vs_reference(void **unused)
{
    (void)unused;
    struct tally t = {0, 0, 0, 0, 0, 0};
    int games = 0, plies = 0, endings[3] = {0, 0, 0}; /* blocked, quiet limit, endless */
    const uint64_t seeds = (uint64_t)tu_battery(200);
    for (int v = 0; v < 2; v++)
        for (uint64_t seed = 1; seed <= seeds; seed++) {
            struct ref r;
            ref_init(&r, v, 100);
            tg_state *s = tu_new(v ? "hawalis:variant=zanzibar" : "hawalis");
            uint64_t rng = seed * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)v;
            uint64_t last = 1;
            while (!r.over) {
                compare_children(s, &r, "random game", &t);
                tg_move legal[64];
                int n = ref_moves(&r, legal);
                tg_move mv = tu_apply_random_as(s, &rng, legal, (size_t)n);
                last = ref_apply(&r, (int)mv);
                if (last == REF_UNKNOWN) /* the reference gave up: carry on from the library */
                    ref_from_state(s, &r);
                plies++;
            }
            expect_ref(s, &r, "random game end");
            assert_true(tg_state_is_terminal(s));
            endings[last == 0 ? 2 : r.limit && r.quiet >= r.limit ? 1 : 0]++;
            games++;
            tg_state_free(s);
        }
    print_message("# %d random games, %d plies, ended %d blocked, %d quiet, %d endless; %d moves "
                  "compared, %d endless, %d captures, %d skipped\n",
                  games, plies, endings[0], endings[1], endings[2], t.moves, t.endless, t.captures,
                  t.skipped);
    assert_true(t.endless > 0 && t.captures > 0);
}

#ifndef HAWALIS_DEV
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_rings),
        cmocka_unit_test(test_example1_relay),
        cmocka_unit_test(test_example2_capture_both),
        cmocka_unit_test(test_example3_empty_front),
        cmocka_unit_test(test_example4_singletons),
        cmocka_unit_test(test_example5_zanzibar_outer),
        cmocka_unit_test(test_forced_start),
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_blocked_end),
        cmocka_unit_test(test_quiet_limit),
        cmocka_unit_test(test_endless_pinned),
        cmocka_unit_test(test_long_finite_move),
        cmocka_unit_test(test_perft),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_random_positions_vs_reference),
        cmocka_unit_test(test_random_games_vs_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

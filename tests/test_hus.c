/* Hus (rules/hus.md): the rules page's worked examples (width 8, and a capture on width 16),
 * endless moves (pinned positions found by a search over random positions, and a long but
 * finite move), the quiet limit, options, pinned perft counts, rejected position strings, and
 * a differential test against a reference model written here from the rules page alone. */
#include "test_util.h"

#include <inttypes.h>

#define SPEC "hus:width=8,laps=10000,quiet=100"
#define SPEC16 "hus:width=16,laps=10000,quiet=100"
#define START                                                                                  \
    SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0"
#define START16                                                                                \
    SPEC16 " 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0/"                 \
           "0,0,0,0,0,0,0,0,2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2 0 48,48 quiet=0"

/* ---- a reference model, from the rules page ------------------------------------------- */

#define MAXW 16
#define MAXCELLS (4 * MAXW)

struct ref {
    int w;
    int cell[MAXCELLS]; /* row * w + col, row 0 = row 1 of the notation */
    int score[2];
    int side;
    bool over;
    int winner;
    int quiet;
    int limit;
};

/* Player p's ring as cell indices: player 0 a1 .. last1 then row 2 from the right end back to
 * a2; player 1 row 4 from the right end to a4, then row 3 from a3 to the right end. */
static void ref_ring(int w, int p, int *ring)
{
    for (int i = 0; i < w; i++) {
        if (p == 0) {
            ring[i] = i;
            ring[w + i] = w + (w - 1 - i);
        } else {
            ring[i] = 3 * w + (w - 1 - i);
            ring[w + i] = 2 * w + i;
        }
    }
}

static int side_total(const struct ref *r, int p)
{
    int sum = 0;
    for (int c = p * 2 * r->w; c < (p + 1) * 2 * r->w; c++)
        sum += r->cell[c];
    return sum;
}

static void ref_init(struct ref *r, int w, int limit)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->limit = limit;
    for (int c = 0; c < w; c++) {
        r->cell[c] = 2;         /* row 1, outer */
        r->cell[3 * w + c] = 2; /* row 4, outer */
        r->cell[w + c] = c >= w / 2 ? 2 : 0;
        r->cell[2 * w + c] = c < w / 2 ? 2 : 0;
    }
    r->score[0] = side_total(r, 0);
    r->score[1] = side_total(r, 1);
}

struct lapstate {
    int cell[MAXCELLS];
    int at, hand; /* ring index the hand is sown after, counters in hand */
    bool done, captured;
    uint64_t laps;
};

/* One lap: sow the hand, then end, capture or relay as the page's list says. */
static void lap_step(struct lapstate *s, int w, int me, const int *ring)
{
    if (s->done)
        return;
    int n = 2 * w, at = s->at;
    for (int k = 0; k < s->hand; k++) {
        at = (at + 1) % n;
        s->cell[ring[at]]++;
    }
    s->laps++;
    s->at = at;
    int h = ring[at];
    if (s->cell[h] == 1) {
        s->done = true;
        return;
    }
    int row = h / w, col = h % w;
    if (row == (me == 0 ? 1 : 2)) {
        int facing = (me == 0 ? 2 : 1) * w + col, behind = (me == 0 ? 3 : 0) * w + col;
        if (s->cell[facing] > 0) {
            s->hand = s->cell[facing] + s->cell[behind];
            s->cell[facing] = 0;
            s->cell[behind] = 0;
            s->captured = true;
            return;
        }
    }
    s->hand = s->cell[h];
    s->cell[h] = 0;
}

static bool lap_same(const struct lapstate *a, const struct lapstate *b)
{
    return a->at == b->at && a->hand == b->hand && memcmp(a->cell, b->cell, sizeof a->cell) == 0;
}

/* Sows player me's move from cell m (Floyd's cycle finder, independent of the library's
 * Brent). Returns false for an endless move (cell untouched), else true with the board after
 * the move, whether it captured and the number of laps. */
static bool ref_sow(int *cell, int w, int me, int m, bool *captured, uint64_t *laps)
{
    int ring[2 * MAXW];
    ref_ring(w, me, ring);
    struct lapstate tort, hare;
    memset(&tort, 0, sizeof tort);
    memcpy(tort.cell, cell, sizeof tort.cell);
    tort.hand = tort.cell[m];
    tort.cell[m] = 0;
    while (ring[tort.at] != m)
        tort.at++;
    hare = tort;
    for (;;) {
        lap_step(&hare, w, me, ring);
        lap_step(&hare, w, me, ring);
        if (hare.done) {
            memcpy(cell, hare.cell, sizeof hare.cell);
            *captured = hare.captured;
            *laps = hare.laps;
            return true;
        }
        lap_step(&tort, w, me, ring);
        if (lap_same(&tort, &hare))
            return false;
    }
}

static int ref_moves(const struct ref *r, tg_move *out)
{
    if (r->over)
        return 0;
    int k = 0;
    for (int c = r->side * 2 * r->w; c < (r->side + 1) * 2 * r->w; c++)
        if (r->cell[c] >= 2) {
            if (out)
                out[k] = (tg_move)c;
            k++;
        }
    return k;
}

static void ref_finish(struct ref *r, int winner)
{
    r->over = true;
    r->winner = winner;
}

/* Applies m; returns the laps sown, 0 for an endless move. */
static uint64_t ref_apply(struct ref *r, int m)
{
    int me = r->side;
    bool captured;
    uint64_t laps;
    if (!ref_sow(r->cell, r->w, me, m, &captured, &laps)) {
        ref_finish(r, 1 - me);
        return 0;
    }
    r->score[0] = side_total(r, 0);
    r->score[1] = side_total(r, 1);
    r->quiet = captured ? 0 : r->quiet + 1;
    r->side = 1 - me;
    if (ref_moves(r, NULL) == 0)
        ref_finish(r, me);
    else if (r->limit && r->quiet >= r->limit)
        ref_finish(r, r->score[0] == r->score[1] ? TG_DRAW : r->score[0] > r->score[1] ? 0 : 1);
    return laps;
}

static void ref_string(const struct ref *r, char *buf, size_t cap)
{
    int w = r->w;
    size_t len = (size_t)snprintf(buf, cap, "hus:width=%d,laps=10000,quiet=%d ", w, r->limit);
    for (int row = 3; row >= 0; row--)
        for (int col = 0; col < w; col++)
            len += (size_t)snprintf(buf + len, cap - len, "%d%s", r->cell[row * w + col],
                                    col < w - 1 ? "," : row ? "/" : "");
    if (r->over)
        len += (size_t)snprintf(buf + len, cap - len, " -");
    else
        len += (size_t)snprintf(buf + len, cap - len, " %d", r->side);
    len += (size_t)snprintf(buf + len, cap - len, " %d,%d quiet=%d", r->score[0], r->score[1],
                            r->quiet);
    if (r->over)
        snprintf(buf + len, cap - len, " winner=%s",
                 r->winner == TG_DRAW ? "draw" : r->winner == 0 ? "0" : "1");
}

static uint64_t ref_perft(const struct ref *r, unsigned depth)
{
    if (depth == 0)
        return 1;
    tg_move moves[2 * MAXW];
    int n = ref_moves(r, moves);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t leaves = 0;
    for (int i = 0; i < n; i++) {
        struct ref child = *r;
        ref_apply(&child, (int)moves[i]);
        leaves += ref_perft(&child, depth - 1);
    }
    return leaves;
}

/* A random position with 6w counters, player 0 to move (with a hole of 2 or more). The
 * counters are split between the sides at random, then spread at random over each side;
 * sometimes player 1's inner row is left empty, so that nothing can be captured. */
static void random_position(struct ref *r, uint64_t *gen, int w)
{
    for (;;) {
        ref_init(r, w, 100);
        memset(r->cell, 0, sizeof r->cell);
        int total = 6 * w;
        int mine = 2 + (int)tu_uniform_below(gen, (uint32_t)(total - 2));
        bool no_inner = (tu_splitmix64(gen) & 3) == 0;
        for (int k = 0; k < mine; k++)
            r->cell[tu_uniform_below(gen, (uint32_t)(2 * w))]++;
        for (int k = mine; k < total; k++) {
            int row = no_inner ? 3 : 2 + (int)(tu_splitmix64(gen) & 1);
            r->cell[row * w + (int)tu_uniform_below(gen, (uint32_t)w)]++;
        }
        r->score[0] = side_total(r, 0);
        r->score[1] = side_total(r, 1);
        r->quiet = (int)tu_uniform_below(gen, 100);
        if (ref_moves(r, NULL) == 0)
            continue;
        return;
    }
}

/* ---- helpers --------------------------------------------------------------------------- */

static tg_state *ref_state(const struct ref *r, char *text, size_t cap)
{
    ref_string(r, text, cap);
    char spec[64];
    snprintf(spec, sizeof spec, "hus:width=%d,laps=10000,quiet=%d", r->w, r->limit);
    return tu_from(spec, text);
}

static void expect_ref(const tg_state *s, const struct ref *r, const char *what)
{
    char want[512];
    ref_string(r, want, sizeof want);
    char *got = tu_str(s);
    if (strcmp(got, want) != 0)
        TU_FAIL("%s:\n  library   \"%s\"\n  reference \"%s\"", what, got, want);
    free(got);
}

/* The reference model of a position string (read back through the library). */
static void ref_from_state(const tg_state *s, int w, int limit, struct ref *r)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->limit = limit;
    for (int cell = 0; cell < 4 * w; cell++)
        r->cell[cell] = tg_state_count(s, cell / w, cell % w);
    r->score[0] = side_total(r, 0);
    r->score[1] = side_total(r, 1);
    r->side = tg_state_player(s);
    char *text = tu_str(s);
    const char *q = strstr(text, " quiet=");
    assert_non_null(q);
    r->quiet = atoi(q + 7);
    free(text);
}

/* Plays `move` on `before`, checks `after` and the reference model, undoes, checks `before`. */
static void play_check(const char *spec, int w, const char *before, const char *move,
                       const char *after)
{
    tg_state *s = tu_from(spec, before);
    TU_POS(s, before);
    struct ref r;
    const char *q = strstr(spec, "quiet=");
    ref_from_state(s, w, q ? atoi(q + 6) : 100, &r);
    uint64_t laps = ref_apply(&r, (int)tu_move(s, move));
    assert_true(laps > 0);
    tu_play(s, move);
    TU_POS(s, after);
    expect_ref(s, &r, before);
    TU_OK(tg_state_undo(s));
    TU_POS(s, before);
    tg_state_free(s);
}

/* ---- start, options, notation ---------------------------------------------------------- */

static void test_start(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("hus");
    TU_POS(s, START);
    tg_move moves[64];
    assert_int_equal(tu_moves(s, moves, 64), 12);
    /* a1..h1 and e2..h2, ascending cell index. */
    for (int i = 0; i < 12; i++)
        assert_int_equal(moves[i], i < 8 ? i : 12 + (i - 8));
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 8; col++)
            assert_int_equal(tg_state_owner(s, row, col), row / 2);
    assert_int_equal(tg_state_score(s, 0), 24);
    assert_int_equal(tg_state_score(s, 1), 24);
    assert_int_equal(tu_move(s, "a1"), 0);
    assert_int_equal(tu_move(s, "h1"), 7);
    assert_int_equal(tu_move(s, "e2"), 12);
    assert_int_equal(tu_move(s, "h4"), 31);
    tg_state_free(s);
    s = tu_new("hus:width=16");
    TU_POS(s, START16);
    assert_int_equal(tu_moves(s, moves, 64), 24);
    assert_int_equal(tu_move(s, "p1"), 15);
    assert_int_equal(tu_move(s, "p4"), 63);
    tg_state_free(s);
    s = tu_new("hus:quiet=7");
    TU_POS(s, "hus:width=8,laps=10000,quiet=7 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/"
              "2,2,2,2,2,2,2,2 0 24,24 quiet=0");
    tg_state_free(s);
}

static void test_options(void **unused)
{
    (void)unused;
    const char *bad[] = {"hus:width=9",  "hus:width=18", "hus:width=",     "hus:width=08",
                         "hus:width=6",  "hus:width=7",  "hus:width=-8",   "hus:width=8,width=8",
                         "hus:quiet=01", "hus:quiet=1001", "hus:colour=red", "hus:width=0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_rules *r = NULL;
        TU_STATUS(TG_ERR_BAD_OPTION, tg_rules_new(bad[i], &r));
        assert_null(r);
    }
    for (int w = 8; w <= 16; w += 2) {
        char spec[64], canon[64];
        snprintf(spec, sizeof spec, "hus:width=%d", w);
        snprintf(canon, sizeof canon, "hus:width=%d,laps=10000,quiet=100", w);
        tg_state *s = tu_new(spec);
        char *text = tu_str(s);
        assert_true(strncmp(text, canon, strlen(canon)) == 0 && text[strlen(canon)] == ' ');
        int total = 0;
        for (int row = 0; row < 4; row++)
            for (int col = 0; col < w; col++)
                total += tg_state_count(s, row, col);
        assert_int_equal(total, 6 * w);
        assert_int_equal(tg_state_score(s, 0), 3 * w);
        assert_int_equal(tg_state_score(s, 1), 3 * w);
        /* Columns beyond the board are out of range. */
        assert_int_equal(tg_state_count(s, 0, w), -1);
        /* The start against the reference. */
        struct ref r;
        ref_init(&r, w, 100);
        expect_ref(s, &r, spec);
        assert_int_equal(tu_moves(s, NULL, 0), (size_t)(3 * w / 2));
        free(text);
        tg_state_free(s);
    }
    /* The canonical spec. */
    tg_state *s = tu_new("hus");
    char *text = tu_str(s);
    assert_true(strncmp(text, SPEC " ", strlen(SPEC) + 1) == 0);
    free(text);
    tg_state_free(s);
    s = tu_new("hus:quiet=100,width=8");
    TU_POS(s, START);
    tg_state_free(s);
}

/* ---- the worked examples of rules/hus.md ------------------------------------------------ */

static void test_example1_no_relay(void **unused)
{
    (void)unused;
    play_check("hus", 8, START, "e2",
               SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,1,1,0,2,2,2/2,2,2,2,2,2,2,2 1 24,24 "
                    "quiet=1");
    tg_state *s = tu_new("hus");
    tu_play(s, "e2");
    assert_int_equal(tg_state_count(s, 1, 3), 1); /* d2 */
    assert_int_equal(tg_state_count(s, 1, 2), 1); /* c2 */
    assert_int_equal(tg_state_count(s, 1, 4), 0); /* e2 */
    assert_int_equal(tg_state_player(s), 1);
    tg_state_free(s);
}

static void test_example2_relay(void **unused)
{
    (void)unused;
    play_check("hus", 8, START, "h1",
               SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,1,3,3,0,3/2,2,2,2,2,2,2,0 1 24,24 "
                    "quiet=1");
}

/* Example 3: player 0 has h1 = 2, h2 = 2, g2 = 1 and nothing else; player 1 has g3 = 3,
 * g4 = 2 and 38 more counters away from column g, which player 0's move never looks at. */
#define EX3_BOARD                                                                              \
    "3,3,3,3,3,3,2,3/3,2,2,2,2,3,3,3/0,0,0,0,0,0,1,2/0,0,0,0,0,0,0,2"
#define EX3_BEFORE SPEC " " EX3_BOARD " 0 5,43 quiet=5"
#define EX3_AFTER                                                                              \
    SPEC " 3,3,3,3,3,3,0,3/3,2,2,2,2,3,0,3/0,1,1,1,1,1,2,3/0,0,0,0,0,0,0,0 1 10,38 quiet=0"
/* Example 4: the same with g4 = 0 (its 2 counters moved to h4). */
#define EX4_BEFORE                                                                             \
    SPEC " 3,3,3,3,3,3,0,5/3,2,2,2,2,3,3,3/0,0,0,0,0,0,1,2/0,0,0,0,0,0,0,2 0 5,43 quiet=5"
#define EX4_AFTER                                                                              \
    SPEC " 3,3,3,3,3,3,0,5/3,2,2,2,2,3,0,3/0,0,0,1,1,1,2,3/0,0,0,0,0,0,0,0 1 8,40 quiet=0"

static void test_example3_capture_outer(void **unused)
{
    (void)unused;
    play_check("hus", 8, EX3_BEFORE, "h1", EX3_AFTER);
    tg_state *s = tu_from("hus", EX3_BEFORE);
    tu_play(s, "h1");
    /* h1 0, h2 3, g2 2, f2 .. b2 1 each, a2 0; g3 and g4 emptied. */
    const int row2[8] = {0, 1, 1, 1, 1, 1, 2, 3};
    for (int col = 0; col < 8; col++)
        assert_int_equal(tg_state_count(s, 1, col), row2[col]);
    assert_int_equal(tg_state_count(s, 0, 7), 0);
    assert_int_equal(tg_state_count(s, 2, 6), 0);
    assert_int_equal(tg_state_count(s, 3, 6), 0);
    assert_int_equal(tg_state_score(s, 0), 5 + 5);
    assert_int_equal(tg_state_score(s, 1), 43 - 5);
    tg_state_free(s);
}

static void test_example4_capture_inner_only(void **unused)
{
    (void)unused;
    play_check("hus", 8, EX4_BEFORE, "h1", EX4_AFTER);
    tg_state *s = tu_from("hus", EX4_BEFORE);
    tu_play(s, "h1");
    const int row2[8] = {0, 0, 0, 1, 1, 1, 2, 3};
    for (int col = 0; col < 8; col++)
        assert_int_equal(tg_state_count(s, 1, col), row2[col]);
    assert_int_equal(tg_state_count(s, 2, 6), 0);
    assert_int_equal(tg_state_count(s, 3, 7), 5); /* h4 untouched */
    assert_int_equal(tg_state_score(s, 0), 5 + 3);
    tg_state_free(s);
}

/* Example 3 on width 16 in the last columns: p1 = 2, p2 = 2, o2 = 1; o3 = 3, o4 = 2. p1 sows
 * p2 o2; o2 captures o3 and o4 (5) and sows n2 m2 l2 k2 j2; j2 was empty: end. */
#define EX3W_BEFORE                                                                            \
    SPEC16 " 3,3,3,3,3,3,3,3,3,3,3,3,3,3,2,3/2,2,2,2,3,3,3,3,3,3,3,3,3,3,3,3/"                  \
           "0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,2/0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2 0 5,91 quiet=0"
#define EX3W_AFTER                                                                             \
    SPEC16 " 3,3,3,3,3,3,3,3,3,3,3,3,3,3,0,3/2,2,2,2,3,3,3,3,3,3,3,3,3,3,0,3/"                  \
           "0,0,0,0,0,0,0,0,0,1,1,1,1,1,2,3/0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 1 10,86 quiet=0"

static void test_example3_width16(void **unused)
{
    (void)unused;
    play_check(SPEC16, 16, EX3W_BEFORE, "p1", EX3W_AFTER);
}

static void test_example5_end(void **unused)
{
    (void)unused;
    /* Player 1 already has no hole of 2+; player 0's quiet move a1 (b1 c1) leaves it so:
     * player 1 cannot move and loses. */
    const char *before =
        SPEC " 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,0,0,0,0,6/2,0,0,0,6,6,6,6 0 32,16 quiet=3";
    const char *after =
        SPEC " 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,0,0,0,0,6/0,1,1,0,6,6,6,6 - 32,16 quiet=4 "
             "winner=0";
    play_check("hus", 8, before, "a1", after);
    tg_state *s = tu_from("hus", before);
    tu_play(s, "a1");
    assert_true(tg_state_is_terminal(s));
    assert_int_equal(tg_state_winner(s), 0);
    assert_int_equal(tg_state_player(s), TG_TERMINAL);
    assert_int_equal(tu_moves(s, NULL, 0), 0);
    double ret[2];
    TU_OK(tg_state_returns(s, ret));
    assert_true(ret[0] == 1.0 && ret[1] == -1.0);
    tg_state_free(s);
    /* Player 1's only hole of 2+ (g3) is captured with g4 (1): f2 e2 d2, then no move. */
    play_check("hus", 8,
               SPEC " 1,1,1,1,1,1,1,1/1,1,1,1,1,1,2,1/0,0,0,0,0,0,1,2/4,4,4,4,4,3,3,2 0 31,17 "
                    "quiet=7",
               "h1",
               SPEC " 1,1,1,1,1,1,0,1/1,1,1,1,1,1,0,1/0,0,0,1,1,1,2,3/4,4,4,4,4,3,3,0 - 34,14 "
                    "quiet=0 winner=0");
    /* The mirror: player 0 left without a move loses. Player 1 plays a4 (a3 b3). */
    play_check("hus", 8,
               SPEC " 2,0,0,0,6,6,6,6/0,0,0,0,0,0,0,6/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 1 16,32 "
                    "quiet=0",
               "a4",
               SPEC " 0,0,0,0,6,6,6,6/1,1,0,0,0,0,0,6/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 - 16,32 "
                    "quiet=1 winner=1");
}

/* ---- endless moves ---------------------------------------------------------------------- */

struct endless_case {
    const char *before; /* after SPEC */
    const char *move;
    const char *after;
};

/* Found by a search over random width-8 positions (counters split at random between the
 * sides, player 0 to move) with the reference model's Floyd cycle finder; the laps before and
 * in each cycle were counted with a separate Brent finder over the reference model. */
static const struct endless_case endless_cases[] = {
    /* no capture possible; a cycle of 88 laps from the first lap */
    {" 1,1,5,6,3,1,4,1/0,0,0,0,0,0,0,0/1,0,1,2,3,2,5,1/2,1,2,0,5,0,1,0 0 26,22 quiet=76", "c1",
     " 1,1,5,6,3,1,4,1/0,0,0,0,0,0,0,0/1,0,1,2,3,2,5,1/2,1,2,0,5,0,1,0 - 26,22 quiet=76 winner=1"},
    /* captures in the first 14 laps, then a cycle of 562 laps: the captured counters go back */
    {" 1,0,0,1,1,2,0,3/1,0,2,0,0,1,1,2/1,0,1,4,3,2,1,2/2,3,2,1,1,3,6,1 0 33,15 quiet=88", "a1",
     " 1,0,0,1,1,2,0,3/1,0,2,0,0,1,1,2/1,0,1,4,3,2,1,2/2,3,2,1,1,3,6,1 - 33,15 quiet=88 winner=1"},
    /* the previous case turned round: player 1 moves and loses */
    {" 1,6,3,1,1,2,3,2/2,1,2,3,4,1,0,1/2,1,1,0,0,2,0,1/3,0,2,1,1,0,0,1 1 15,33 quiet=88", "h4",
     " 1,6,3,1,1,2,3,2/2,1,2,3,4,1,0,1/2,1,1,0,0,2,0,1/3,0,2,1,1,0,0,1 - 15,33 quiet=88 winner=0"},
    /* 26 laps with captures, then a cycle of 524 laps */
    {" 0,2,0,2,1,3,4,1/0,0,3,1,1,1,0,3/3,0,1,2,3,0,1,4/2,1,0,3,2,1,2,1 0 26,22 quiet=50", "g1",
     " 0,2,0,2,1,3,4,1/0,0,3,1,1,1,0,3/3,0,1,2,3,0,1,4/2,1,0,3,2,1,2,1 - 26,22 quiet=50 winner=1"},
    /* a cycle of 896,076 laps */
    {" 0,0,0,0,0,1,0,0/0,0,0,0,0,0,0,0/4,3,1,0,3,4,1,4/1,2,3,2,3,5,4,7 0 47,1 quiet=61", "d1",
     " 0,0,0,0,0,1,0,0/0,0,0,0,0,0,0,0/4,3,1,0,3,4,1,4/1,2,3,2,3,5,4,7 - 47,1 quiet=61 winner=1"},
    /* 26 laps with captures, then a cycle of 1,226,771 laps */
    {" 0,3,1,2,2,2,1,1/2,2,4,0,3,1,0,1/0,3,2,1,0,0,0,1/3,0,1,2,3,2,0,5 0 23,25 quiet=30", "f1",
     " 0,3,1,2,2,2,1,1/2,2,4,0,3,1,0,1/0,3,2,1,0,0,0,1/3,0,1,2,3,2,0,5 - 23,25 quiet=30 winner=1"},
    /* 18 laps with captures, then a cycle of 28,067,024 laps */
    {" 0,0,1,2,0,0,1,0/0,1,0,1,1,2,0,0/4,2,5,2,3,2,1,3/1,4,1,2,1,3,2,3 0 39,9 quiet=10", "b2",
     " 0,0,1,2,0,0,1,0/0,1,0,1,1,2,0,0/4,2,5,2,3,2,1,3/1,4,1,2,1,3,2,3 - 39,9 quiet=10 winner=1"},
};

static void test_endless_pinned(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof endless_cases / sizeof endless_cases[0]; i++) {
        const struct endless_case *c = &endless_cases[i];
        char before[512], after[512];
        snprintf(before, sizeof before, "%s%s", SPEC, c->before);
        snprintf(after, sizeof after, "%s%s", SPEC, c->after);
        tg_state *s = tu_from("hus", before);
        int mover = tg_state_player(s);
        int score0 = tg_state_score(s, 0), score1 = tg_state_score(s, 1);
        int counts[32];
        for (int cell = 0; cell < 32; cell++)
            counts[cell] = tg_state_count(s, cell / 8, cell % 8);
        assert_true(tg_state_is_legal(s, tu_move(s, c->move)));
        tu_play(s, c->move);
        TU_POS(s, after);
        assert_true(tg_state_is_terminal(s));
        assert_int_equal(tg_state_player(s), TG_TERMINAL);
        assert_int_equal(tg_state_winner(s), 1 - mover);
        assert_int_equal(tg_state_score(s, 0), score0);
        assert_int_equal(tg_state_score(s, 1), score1);
        for (int cell = 0; cell < 32; cell++)
            assert_int_equal(tg_state_count(s, cell / 8, cell % 8), counts[cell]);
        double ret[2];
        TU_OK(tg_state_returns(s, ret));
        assert_true(ret[mover] == -1.0 && ret[1 - mover] == 1.0);
        assert_int_equal(tu_moves(s, NULL, 0), 0);
        tg_state *t = tu_from("hus", after);
        assert_true(tg_state_equal(s, t));
        tg_state_free(t);
        TU_OK(tg_state_undo(s));
        TU_POS(s, before);
        assert_false(tg_state_is_terminal(s));
        tu_play(s, c->move);
        TU_POS(s, after);
        TU_OK(tg_state_undo(s));
        tu_check_endless_unlimited(before, after, tu_move(s, c->move));
        /* The reference model agrees, independently. */
        struct ref r;
        ref_from_state(s, 8, 100, &r);
        bool captured;
        uint64_t laps;
        assert_false(ref_sow(r.cell, 8, mover, (int)tu_move(s, c->move), &captured, &laps));
        tg_state_free(s);
    }
}

/* The longest finite moves the search met (in laps, counted by the reference model): they
 * end normally, however long, and must not be taken for endless moves. */
struct long_case {
    const char *before; /* after SPEC */
    const char *move;
    uint64_t laps;
    const char *after;
};

static const struct long_case long_cases[] = {
    /* Captures on the way; player 1 is left to move. */
    {" 3,2,2,2,2,1,0,0/0,2,0,0,1,1,1,2/2,1,2,1,2,3,2,3/3,0,1,2,1,2,1,3 0 29,19 quiet=75", "f1",
     1585, " 3,0,2,2,0,0,0,0/0,0,0,0,0,0,0,0/1,7,1,2,1,2,1,0/0,6,9,4,1,5,0,1 1 41,7 quiet=0"},
    /* Player 1's inner row is empty, so nothing is captured: a quiet move of 1227 laps. */
    {" 0,0,0,0,1,0,0,2/0,0,0,0,0,0,0,0/3,2,1,4,1,6,1,8/0,5,2,1,4,2,5,0 0 45,3 quiet=13", "e1",
     1227, " 0,0,0,0,1,0,0,2/0,0,0,0,0,0,0,0/2,3,4,1,3,6,0,10/3,0,3,2,5,0,1,2 1 45,3 quiet=14"},
    /* Captures everything: player 1 has no counters left and loses. */
    {" 0,0,1,0,0,0,0,1/0,0,1,0,0,0,0,1/3,0,1,4,3,4,3,2/5,2,3,4,3,2,3,2 0 44,4 quiet=27", "h1",
     541,
     " 0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,1,0,5,1,4,7,16/1,0,1,4,5,2,1,0 - 48,0 quiet=0 winner=0"},
};

static void test_long_finite_move(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof long_cases / sizeof long_cases[0]; i++) {
        const struct long_case *c = &long_cases[i];
        char before[512], after[512];
        snprintf(before, sizeof before, "%s%s", SPEC, c->before);
        snprintf(after, sizeof after, "%s%s", SPEC, c->after);
        tg_state *s = tu_from("hus", before);
        struct ref r;
        ref_from_state(s, 8, 100, &r);
        assert_int_equal(ref_apply(&r, (int)tu_move(s, c->move)), c->laps);
        tu_check_lap_boundary(before, tu_move(s, c->move), (unsigned long)c->laps);
        tu_play(s, c->move);
        expect_ref(s, &r, before);
        TU_POS(s, after);
        TU_OK(tg_state_undo(s));
        TU_POS(s, before);
        tg_state_free(s);
    }
}

/* ---- the quiet limit -------------------------------------------------------------------- */

static void test_quiet_limit(void **unused)
{
    (void)unused;
    /* Example 1 at quiet=99: the 100th quiet move ends the game; 24 each is a draw. */
    tg_state *s = tu_from("hus", SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/"
                                      "2,2,2,2,2,2,2,2 0 24,24 quiet=99");
    tu_play(s, "e2");
    TU_POS(s, SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,1,1,0,2,2,2/2,2,2,2,2,2,2,2 - 24,24 "
                   "quiet=100 winner=draw");
    assert_int_equal(tg_state_winner(s), TG_DRAW);
    double ret[2] = {9, 9};
    TU_OK(tg_state_returns(s, ret));
    assert_true(ret[0] == 0.0 && ret[1] == 0.0);
    TU_OK(tg_state_undo(s));
    assert_false(tg_state_is_terminal(s));
    tg_state_free(s);
    /* A small limit: more counters on one's own side wins, whoever moved last. Player 1 plays
     * a4 (a3 b3, b3 was empty): the third quiet move. */
    play_check("hus:quiet=3", 8,
               "hus:width=8,laps=10000,quiet=3 2,0,0,0,0,0,0,4/0,0,0,0,0,0,0,4/5,5,5,5,5,5,4,4/"
               "0,0,0,0,0,0,0,0 1 38,10 quiet=2",
               "a4",
               "hus:width=8,laps=10000,quiet=3 0,0,0,0,0,0,0,4/1,1,0,0,0,0,0,4/5,5,5,5,5,5,4,4/"
               "0,0,0,0,0,0,0,0 - 38,10 quiet=3 winner=0");
    play_check("hus:quiet=3", 8,
               "hus:width=8,laps=10000,quiet=3 2,0,0,0,0,0,0,20/0,0,0,0,0,0,0,18/0,0,0,0,0,0,0,0/"
               "2,2,2,2,0,0,0,0 1 8,40 quiet=2",
               "a4",
               "hus:width=8,laps=10000,quiet=3 0,0,0,0,0,0,0,20/1,1,0,0,0,0,0,18/0,0,0,0,0,0,0,0/"
               "2,2,2,2,0,0,0,0 - 8,40 quiet=3 winner=1");
    /* The limit reached by a move that also leaves player 1 without a move: the game's own
     * end (player 1 loses) and the count both show. */
    play_check("hus:quiet=4", 8,
               "hus:width=8,laps=10000,quiet=4 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,0,0,0,0,6/"
               "2,0,0,0,6,6,6,6 0 32,16 quiet=3",
               "a1",
               "hus:width=8,laps=10000,quiet=4 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,0,0,0,0,6/"
               "0,1,1,0,6,6,6,6 - 32,16 quiet=4 winner=0");
    /* A capture resets the count before the limit is looked at. */
    play_check("hus", 8, SPEC " " EX3_BOARD " 0 5,43 quiet=99", "h1", EX3_AFTER);
    /* quiet=0 turns the limit off. */
    s = tu_from("hus:quiet=0", "hus:width=8,laps=10000,quiet=0 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/"
                               "0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=500");
    tu_play(s, "e2");
    assert_false(tg_state_is_terminal(s));
    tg_state_free(s);
    /* Random games at small limits against the reference, every ply. */
    static const int limits[] = {1, 2, 5, 20};
    int draws = 0, wins = 0;
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "hus:width=8,laps=10000,quiet=%d", limits[i]);
        for (uint64_t seed = 1; seed <= 40; seed++) {
            struct ref r;
            ref_init(&r, 8, limits[i]);
            tg_state *g = tu_new(spec);
            uint64_t rng = seed * 7919;
            while (!r.over) {
                tg_move legal[64];
                int n = ref_moves(&r, legal);
                tg_move mv = tu_apply_random_as(g, &rng, legal, (size_t)n);
                ref_apply(&r, (int)mv);
                expect_ref(g, &r, spec);
            }
            assert_true(tg_state_is_terminal(g));
            draws += r.winner == TG_DRAW;
            wins += r.winner != TG_DRAW;
            tg_state_free(g);
        }
    }
    /* Limit 1 ends every game at 24-24 after the first move: draws; longer games win. */
    print_message("# quiet limits 1, 2, 5, 20: %d wins, %d draws\n", wins, draws);
    assert_true(wins > 0 && draws > 0);
}

/* ---- perft ------------------------------------------------------------------------------ */

/* Pinned after three counts agreed: tg_perft, apply/undo, and the reference model. */
static const uint64_t perft8[] = {1, 12, 144, 1244, 11350, 77105, 576966};
static const uint64_t perft16[] = {1, 24, 576, 10704, 207744, 3324448};

static void test_perft(void **unused)
{
    (void)unused;
    for (int k = 0; k < 2; k++) {
        int w = k ? 16 : 8;
        unsigned depths = k ? 6 : 7;
        const uint64_t *want = k ? perft16 : perft8;
        tg_state *s = tu_new(k ? "hus:width=16" : "hus");
        struct ref r;
        ref_init(&r, w, 100);
        for (unsigned d = 0; d < depths; d++) {
            uint64_t lib = tg_perft(s, d), mine = tu_perft_apply_undo(s, d), ref = ref_perft(&r, d);
            if (lib != want[d] || mine != want[d] || ref != want[d])
                TU_FAIL("width %d depth %u: tg_perft %" PRIu64 ", apply/undo %" PRIu64
                        ", reference %" PRIu64 ", pinned %" PRIu64,
                        w, d, lib, mine, ref, want[d]);
        }
        TU_POS(s, k ? START16 : START);
        tg_state_free(s);
    }
}

/* ---- rejected position strings ---------------------------------------------------------- */

static void test_bad_input(void **unused)
{
    (void)unused;
    const char *good[] = {
        START,
        EX3_BEFORE,
        SPEC " 0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,48 0 48,0 quiet=0",
        SPEC " 0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,48 - 48,0 quiet=0 "
             "winner=0",
        SPEC " 6,6,6,6,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,6,6,6 - 24,24 quiet=100 "
             "winner=draw",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tg_state *s = tu_from("hus", good[i]);
        TU_POS(s, good[i]);
        tg_state_free(s);
    }
    const char *bad[] = {
        /* wrong total */
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,3 0 25,24 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,1 0 23,24 quiet=0",
        /* scores not matching the sides */
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 25,23 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 48,0 quiet=0",
        /* the side to move without a hole of 2 or more */
        SPEC " 0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,48 1 48,0 quiet=0",
        SPEC " 1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,17 1 32,16 quiet=0",
        /* a draw with unequal sides */
        SPEC " 6,6,6,4,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,6,6,6,8 - 26,22 quiet=100 "
             "winner=draw",
        /* wrong row count, wrong width */
        SPEC " 2,2,2,2,2,2,2,2/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2/0,0,0,0,0,0,0,0 0 "
             "24,24 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2,0/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0",
        /* missing or extra fields, a bad side, quiet at or past the limit */
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 2 24,24 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0 "
             "extra=1",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=100",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 c0 24,24 quiet=0",
        SPEC " 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 - 24,24 quiet=0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tu_from_fails(TG_ERR_PARSE, "hus", bad[i]);
    /* A width-16 string under width 8 rules: another rule set. */
    tg_rules *r8 = tu_rules("hus");
    tg_state *s = NULL;
    TU_STATUS(TG_ERR_RULES_MISMATCH, tg_state_from_string(r8, START16, &s));
    assert_null(s);
    tg_rules_free(r8);
    /* Moves: a hole of 1, an opponent's hole, a cell off the board. */
    s = tu_new("hus");
    tg_move m = 0;
    assert_false(tg_state_is_legal(s, tu_move(s, "a2")));
    assert_false(tg_state_is_legal(s, tu_move(s, "a4")));
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, tu_move(s, "a2")));
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "i1", &m));
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "a5", &m));
    TU_POS(s, START);
    tg_state_free(s);
}

/* ---- random positions and games against the reference ----------------------------------- */

static void test_random_positions_vs_reference(void **unused)
{
    (void)unused;
    uint64_t gen = 20250202;
    int endless = 0, tried = 0, captures = 0, boundaries = 0;
    uint64_t longest = 0;
    /* Every trial even under emulation: endless moves are rare (2 of 25,872 random Hus
     * moves, 13 of 15,627 Walak-pussa ones); only the lap-limit boundary checks are fewer. */
    const int boundary_checks = tu_battery(400);
    for (int trial = 0; trial < 3000; trial++) {
        struct ref r;
        int w = trial % 3 == 2 ? 8 + 2 * (int)tu_uniform_below(&gen, 5) : 8;
        random_position(&r, &gen, w);
        char text[512];
        tg_state *s = ref_state(&r, text, sizeof text);
        TU_POS(s, text);
        tg_move lib[64], mine[64];
        size_t n = tu_moves(s, lib, 64);
        int rn = ref_moves(&r, mine);
        assert_int_equal(n, (size_t)rn);
        assert_memory_equal(lib, mine, n * sizeof *lib);
        for (size_t i = 0; i < n; i++) {
            struct ref c = r;
            uint64_t laps = ref_apply(&c, (int)mine[i]);
            endless += laps == 0;
            captures += c.quiet == 0;
            tried++;
            /* The lap limit's boundary sits exactly at the reference's count of laps. */
            if (laps >= 2 && boundaries < boundary_checks) {
                tu_check_lap_boundary(text, lib[i], (unsigned long)laps);
                boundaries++;
                longest = laps > longest ? laps : longest;
            }
            TU_OK(tg_state_apply(s, lib[i]));
            expect_ref(s, &c, text);
            TU_OK(tg_state_undo(s));
            TU_POS(s, text);
        }
        tg_state_free(s);
    }
    print_message("# %d of %d random moves were endless, %d captured; lap-limit boundary of %d "
                  "moves checked, the longest %" PRIu64 " laps\n",
                  endless, tried, captures, boundaries, longest);
    assert_true(endless > 0);
    assert_true(boundaries == boundary_checks && longest >= 3);
    assert_true(captures > 0);
}

static void test_random_games_vs_reference(void **unused)
{
    (void)unused;
    const uint64_t seeds = (uint64_t)tu_battery(60);
    for (int w = 8; w <= 16; w += 2)
        for (uint64_t seed = 1; seed <= seeds; seed++) {
            struct ref r;
            ref_init(&r, w, 100);
            char spec[64];
            snprintf(spec, sizeof spec, "hus:width=%d", w);
            tg_state *s = tu_new(spec);
            uint64_t rng = seed * 0x9E3779B97F4A7C15u;
            for (int ply = 0; ply < 20000 && !r.over; ply++) {
                expect_ref(s, &r, "random game");
                tg_move legal[64];
                int n = ref_moves(&r, legal);
                tg_move mv = tu_apply_random_as(s, &rng, legal, (size_t)n);
                ref_apply(&r, (int)mv);
            }
            expect_ref(s, &r, "random game end");
            assert_true(tg_state_is_terminal(s));
            tg_state_free(s);
        }
}

#ifndef HUS_DEV
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_example1_no_relay),
        cmocka_unit_test(test_example2_relay),
        cmocka_unit_test(test_example3_capture_outer),
        cmocka_unit_test(test_example4_capture_inner_only),
        cmocka_unit_test(test_example3_width16),
        cmocka_unit_test(test_example5_end),
        cmocka_unit_test(test_endless_pinned),
        cmocka_unit_test(test_long_finite_move),
        cmocka_unit_test(test_quiet_limit),
        cmocka_unit_test(test_perft),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_random_positions_vs_reference),
        cmocka_unit_test(test_random_games_vs_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

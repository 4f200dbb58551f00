/* Walak-pussa (rules/walak-pussa.md): the rules page's worked examples, endless moves (pinned
 * positions found by a search over random positions, and a long but finite move), match play
 * (refill, dead holes, starter, reserves), the quiet limit, pinned perft counts, rejected
 * position strings, and a differential test against a reference model written here from the
 * rules page alone. */
#include "test_util.h"

#include <inttypes.h>

#define SPEC "walak-pussa:rounds=single,laps=10000,quiet=100"
#define MSPEC "walak-pussa:rounds=match,laps=10000,quiet=100"
#define START SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 quiet=0"
#define MSTART                                                                                 \
    MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 round=1 dead=- reserve=0,0 starter=0 quiet=0"

/* ---- a reference model, from the rules page ------------------------------------------- */

/* The ring a1 b1 c1 d1 e1 f1 g1 g2 f2 e2 d2 c2 b2 a2 as cell indices (row * 7 + col). */
static const int ring14[14] = {0, 1, 2, 3, 4, 5, 6, 13, 12, 11, 10, 9, 8, 7};

struct ref {
    int cell[14];
    int score[2];
    int side;
    bool over;
    int winner;
    int quiet;
    int limit;
    bool match;
    int round;
    unsigned dead; /* bit = cell index */
    int reserve[2];
    int starter;
};

static void ref_init(struct ref *r, bool match, int limit)
{
    memset(r, 0, sizeof *r);
    for (int c = 0; c < 14; c++)
        r->cell[c] = 4;
    r->match = match;
    r->limit = limit;
    r->round = 1;
}

static int row_total(const int *cell, int p)
{
    int sum = 0;
    for (int c = p * 7; c < p * 7 + 7; c++)
        sum += cell[c];
    return sum;
}

/* The live ring in ring order; returns its length. */
static int live_ring(unsigned dead, int *lr)
{
    int n = 0;
    for (int i = 0; i < 14; i++)
        if (!(dead >> ring14[i] & 1u))
            lr[n++] = ring14[i];
    return n;
}

struct lapstate {
    int cell[14];
    int at, hand;
    bool done;
    int last;
    uint64_t laps;
};

/* One lap: sow the hand from `at`, then relay or stop. */
static void lap_step(struct lapstate *s, const int *lr, int n)
{
    if (s->done)
        return;
    int at = s->at;
    for (int k = 0; k < s->hand; k++) {
        at = (at + 1) % n;
        s->cell[lr[at]]++;
    }
    s->laps++;
    int n1 = (at + 1) % n;
    if (s->cell[lr[n1]] == 0) {
        s->done = true;
        s->last = at;
        return;
    }
    s->hand = s->cell[lr[n1]];
    s->cell[lr[n1]] = 0;
    s->at = n1;
}

static bool lap_same(const struct lapstate *a, const struct lapstate *b)
{
    return a->at == b->at && a->hand == b->hand && memcmp(a->cell, b->cell, sizeof a->cell) == 0;
}

/* Sows the move from cell m on `cell` (Floyd's cycle finder, independent of the library's
 * Brent). Returns false for an endless move (cell untouched), else true with the board after
 * the sowing, the last lap's end (ring index) and the number of laps. */
static bool ref_sow(int *cell, unsigned dead, int m, int *last, uint64_t *laps)
{
    int lr[14];
    int n = live_ring(dead, lr);
    struct lapstate tort, hare;
    memcpy(tort.cell, cell, sizeof tort.cell);
    tort.hand = tort.cell[m];
    tort.cell[m] = 0;
    tort.at = 0;
    while (lr[tort.at] != m)
        tort.at++;
    tort.done = false;
    tort.laps = 0;
    tort.last = -1;
    hare = tort;
    for (;;) {
        lap_step(&hare, lr, n);
        lap_step(&hare, lr, n);
        if (hare.done) {
            memcpy(cell, hare.cell, sizeof hare.cell);
            *last = hare.last;
            *laps = hare.laps;
            return true;
        }
        lap_step(&tort, lr, n);
        if (lap_same(&tort, &hare))
            return false;
    }
}

static int ref_capture(int *cell, unsigned dead, int last)
{
    int lr[14];
    int n = live_ring(dead, lr);
    int taken = 0;
    int e = (last + 1) % n;
    for (;;) {
        int h = (e + 1) % n;
        if (cell[lr[e]] != 0 || cell[lr[h]] == 0)
            return taken;
        taken += cell[lr[h]];
        cell[lr[h]] = 0;
        e = (h + 1) % n;
    }
}

static int ref_moves(const struct ref *r, tg_move *out)
{
    if (r->over)
        return 0;
    int k = 0;
    for (int c = r->side * 7; c < r->side * 7 + 7; c++)
        if (r->cell[c])
            out[k++] = (tg_move)c;
    return k;
}

static void ref_finish(struct ref *r, int winner)
{
    r->over = true;
    r->winner = winner;
}

/* The board has been taken: a single game ends, a match refills or ends. Returns true when a
 * new round was set up. */
static bool ref_round_over(struct ref *r)
{
    if (!r->match) {
        ref_finish(r, r->score[0] == r->score[1] ? TG_DRAW : r->score[0] > r->score[1] ? 0 : 1);
        return false;
    }
    for (int p = 0; p < 2; p++)
        if (r->score[p] < 4) {
            ref_finish(r, 1 - p);
            return false;
        }
    int starter = r->score[0] != r->score[1] ? (r->score[0] < r->score[1] ? 0 : 1)
                                             : 1 - r->starter;
    r->dead = 0;
    for (int p = 0; p < 2; p++) {
        int filled = r->score[p] / 4;
        if (filled > 7)
            filled = 7;
        /* Ring order from a1 for player 0, from g2 for player 1. */
        const int *fill = p == 0 ? ring14 : ring14 + 7;
        for (int i = 0; i < 7; i++) {
            if (i < filled)
                r->cell[fill[i]] = 4;
            else
                r->dead |= 1u << fill[i];
        }
        r->score[p] -= 4 * filled;
        r->reserve[p] = r->score[p];
    }
    r->round++;
    r->starter = starter;
    r->side = starter;
    r->quiet = 0;
    return true;
}

/* Applies m; returns the laps sown, 0 for an endless move. */
static uint64_t ref_apply(struct ref *r, int m)
{
    int me = r->side, last;
    uint64_t laps;
    if (!ref_sow(r->cell, r->dead, m, &last, &laps)) {
        ref_finish(r, 1 - me);
        return 0;
    }
    int taken = ref_capture(r->cell, r->dead, last);
    r->score[me] += taken;
    r->quiet = taken ? 0 : r->quiet + 1;
    r->side = 1 - me;
    if (row_total(r->cell, r->side) == 0) {
        r->score[me] += row_total(r->cell, 0) + row_total(r->cell, 1);
        memset(r->cell, 0, sizeof r->cell);
        ref_round_over(r);
    } else if (r->limit && r->quiet >= r->limit) {
        for (int p = 0; p < 2; p++)
            r->score[p] += row_total(r->cell, p);
        memset(r->cell, 0, sizeof r->cell);
        ref_round_over(r);
    }
    return laps;
}

static void cell_name(int c, char *out)
{
    out[0] = (char)('a' + c % 7);
    out[1] = (char)('1' + c / 7);
    out[2] = 0;
}

static void ref_string(const struct ref *r, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "walak-pussa:rounds=%s,laps=10000,quiet=%d ",
                                  r->match ? "match" : "single", r->limit);
    for (int row = 1; row >= 0; row--)
        for (int col = 0; col < 7; col++)
            len += (size_t)snprintf(buf + len, cap - len, "%d%s", r->cell[row * 7 + col],
                                    col < 6 ? "," : row ? "/" : "");
    if (r->over)
        len += (size_t)snprintf(buf + len, cap - len, " -");
    else
        len += (size_t)snprintf(buf + len, cap - len, " %d", r->side);
    len += (size_t)snprintf(buf + len, cap - len, " %d,%d", r->score[0], r->score[1]);
    if (r->match) {
        len += (size_t)snprintf(buf + len, cap - len, " round=%d dead=", r->round);
        if (!r->dead)
            len += (size_t)snprintf(buf + len, cap - len, "-");
        for (int c = 0, first = 1; c < 14; c++)
            if (r->dead >> c & 1u) {
                char name[3];
                cell_name(c, name);
                len += (size_t)snprintf(buf + len, cap - len, "%s%s", first ? "" : "+", name);
                first = 0;
            }
        len += (size_t)snprintf(buf + len, cap - len, " reserve=%d,%d starter=%d", r->reserve[0],
                                r->reserve[1], r->starter);
    }
    len += (size_t)snprintf(buf + len, cap - len, " quiet=%d", r->quiet);
    if (r->over)
        snprintf(buf + len, cap - len, " winner=%s",
                 r->winner == TG_DRAW ? "draw" : r->winner == 0 ? "0" : "1");
}

static uint64_t ref_perft(const struct ref *r, unsigned depth)
{
    if (depth == 0)
        return 1;
    tg_move moves[7];
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

/* A random position with a non-empty row for the side to move (player 0 in a single game). In
 * a match, mostly round 2 or later with one side short of holes. */
static void random_position(struct ref *r, uint64_t *gen, bool match)
{
    for (;;) {
        ref_init(r, match, 100);
        memset(r->cell, 0, sizeof r->cell);
        if (match && (tu_splitmix64(gen) & 3) != 0) {
            r->round = 2 + (int)tu_uniform_below(gen, 5);
            int p = (int)(tu_splitmix64(gen) & 1);
            int live = 1 + (int)tu_uniform_below(gen, 7); /* 7: nobody short */
            const int *fill = p == 0 ? ring14 : ring14 + 7;
            for (int i = live; i < 7; i++)
                r->dead |= 1u << fill[i];
            r->starter = (int)(tu_splitmix64(gen) & 1);
        }
        int on_board = 1 + (int)tu_uniform_below(gen, 56);
        int lr[14];
        int n = live_ring(r->dead, lr);
        for (int k = 0; k < on_board; k++)
            r->cell[lr[tu_uniform_below(gen, (uint32_t)n)]]++;
        r->score[0] = (int)tu_uniform_below(gen, (uint32_t)(56 - on_board + 1));
        r->score[1] = 56 - on_board - r->score[0];
        r->side = match ? (int)(tu_splitmix64(gen) & 1) : 0;
        if (row_total(r->cell, r->side) == 0)
            continue;
        if (match && r->round > 1) {
            for (int p = 0; p < 2; p++) {
                bool short_side = (r->dead & (p == 0 ? 0x7Fu : 0x3F80u)) != 0;
                int cap = short_side ? (r->score[p] < 3 ? r->score[p] : 3) : r->score[p];
                r->reserve[p] = (int)tu_uniform_below(gen, (uint32_t)cap + 1);
            }
        }
        return;
    }
}

/* ---- helpers --------------------------------------------------------------------------- */

static tg_state *ref_state(const struct ref *r, char *text, size_t cap)
{
    ref_string(r, text, cap);
    char spec[64];
    snprintf(spec, sizeof spec, "walak-pussa:rounds=%s,laps=10000,quiet=%d", r->match ? "match" : "single",
             r->limit);
    return tu_from(spec, text);
}

static void expect_ref(const tg_state *s, const struct ref *r, const char *what)
{
    char want[256];
    ref_string(r, want, sizeof want);
    char *got = tu_str(s);
    if (strcmp(got, want) != 0)
        TU_FAIL("%s:\n  library   \"%s\"\n  reference \"%s\"", what, got, want);
    free(got);
}

static bool parse_field(const tg_state *s, const char *key, int *a, int *b)
{
    char *text = tu_str(s);
    const char *f = strstr(text, key);
    bool ok = f != NULL;
    if (ok && b)
        ok = sscanf(f + strlen(key), "%d,%d", a, b) == 2;
    else if (ok)
        ok = sscanf(f + strlen(key), "%d", a) == 1;
    free(text);
    return ok;
}

/* ---- start, notation ------------------------------------------------------------------ */

static void test_start(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("walak-pussa");
    TU_POS(s, START);
    tg_move moves[16];
    assert_int_equal(tu_moves(s, moves, 16), 7);
    for (int i = 0; i < 7; i++)
        assert_int_equal(moves[i], i);
    for (int row = 0; row < 2; row++)
        for (int col = 0; col < 7; col++) {
            assert_int_equal(tg_state_count(s, row, col), 4);
            assert_int_equal(tg_state_owner(s, row, col), row);
            assert_int_equal(tg_state_flags(s, row, col), 0);
        }
    assert_int_equal(tu_move(s, "a1"), 0);
    assert_int_equal(tu_move(s, "g1"), 6);
    assert_int_equal(tu_move(s, "a2"), 7);
    assert_int_equal(tu_move(s, "g2"), 13);
    tg_state_free(s);
    s = tu_new("walak-pussa:rounds=match");
    TU_POS(s, MSTART);
    tg_state_free(s);
    s = tu_new("walak-pussa:quiet=7");
    TU_POS(s, "walak-pussa:rounds=single,laps=10000,quiet=7 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 quiet=0");
    tg_state_free(s);
}

/* ---- the worked examples of rules/walak-pussa.md ---------------------------------------- */

static void test_example1_opening_relay(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("walak-pussa");
    tu_play(s, "a1");
    TU_POS(s, SPEC " 0,6,6,1,6,0,0/2,1,7,7,7,0,7 1 6,0 quiet=0");
    const int row0[7] = {2, 1, 7, 7, 7, 0, 7}, row1[7] = {0, 6, 6, 1, 6, 0, 0};
    for (int col = 0; col < 7; col++) {
        assert_int_equal(tg_state_count(s, 0, col), row0[col]);
        assert_int_equal(tg_state_count(s, 1, col), row1[col]);
    }
    assert_int_equal(tg_state_score(s, 0), 6);
    assert_int_equal(tg_state_player(s), 1);
    /* The reference model: 7 laps. */
    struct ref r;
    ref_init(&r, false, 100);
    assert_int_equal(ref_apply(&r, 0), 7);
    expect_ref(s, &r, "example 1");
    /* The same in a match. */
    tg_state *m = tu_new("walak-pussa:rounds=match");
    tu_play(m, "a1");
    TU_POS(m, MSPEC " 0,6,6,1,6,0,0/2,1,7,7,7,0,7 1 6,0 round=1 dead=- reserve=0,0 starter=0 "
                    "quiet=0");
    tg_state_free(m);
    tg_state_free(s);
}

static void test_example2_chain(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("walak-pussa", SPEC " 1,1,1,1,1,1,0/1,0,0,3,0,2,0 0 22,22 quiet=4");
    tu_play(s, "a1");
    TU_POS(s, SPEC " 1,1,1,1,1,1,0/0,1,0,0,0,0,0 1 27,22 quiet=0");
    assert_int_equal(tg_state_score(s, 0), 22 + 5);
    assert_int_equal(tg_state_count(s, 0, 3), 0); /* d1 */
    assert_int_equal(tg_state_count(s, 0, 5), 0); /* f1 */
    TU_OK(tg_state_undo(s));
    TU_POS(s, SPEC " 1,1,1,1,1,1,0/1,0,0,3,0,2,0 0 22,22 quiet=4");
    tg_state_free(s);
    /* Other player-1 holes: any with at least one counter. */
    s = tu_from("walak-pussa", SPEC " 3,1,2,1,5,4,0/1,0,0,3,0,2,0 0 12,22 quiet=0");
    tu_play(s, "a1");
    TU_POS(s, SPEC " 3,1,2,1,5,4,0/0,1,0,0,0,0,0 1 17,22 quiet=0");
    tg_state_free(s);
}

static void test_example3_no_capture(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("walak-pussa", SPEC " 0,0,0,0,0,0,5/1,0,0,0,0,0,0 0 25,25 quiet=3");
    tu_play(s, "a1");
    TU_POS(s, SPEC " 0,0,0,0,0,0,5/0,1,0,0,0,0,0 1 25,25 quiet=4");
    tg_state_free(s);
    /* After a relay: a2 (1) sows a1; N1 = b1 (2) relays to c1 d1; e1 and f1 empty. */
    s = tu_from("walak-pussa", SPEC " 1,0,0,0,0,0,0/0,2,0,0,0,0,0 1 26,27 quiet=0");
    tu_play(s, "a2");
    TU_POS(s, SPEC " 0,0,0,0,0,0,0/1,0,1,1,0,0,0 0 26,27 quiet=1");
    tg_state_free(s);
}

static void test_example4_end(void **unused)
{
    (void)unused;
    /* Player 0 captures f2 and leaves player 1 an empty row: player 0 takes a1 and g1. */
    tg_state *s = tu_from("walak-pussa", SPEC " 0,0,0,0,0,3,0/2,0,0,0,0,1,0 0 20,30 quiet=9");
    tu_play(s, "f1");
    TU_POS(s, SPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 26,30 quiet=0 winner=1");
    assert_true(tg_state_is_terminal(s));
    assert_int_equal(tg_state_winner(s), 1);
    assert_int_equal(tu_moves(s, NULL, 0), 0);
    TU_OK(tg_state_undo(s));
    TU_POS(s, SPEC " 0,0,0,0,0,3,0/2,0,0,0,0,1,0 0 20,30 quiet=9");
    tg_state_free(s);
    /* Player 1 captures b1, player 0's row is empty: player 1 takes a2 (2); a draw. */
    s = tu_from("walak-pussa", SPEC " 1,1,0,0,0,0,0/0,3,0,0,0,0,0 1 28,23 quiet=2");
    tu_play(s, "b2");
    TU_POS(s, SPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 28,28 quiet=0 winner=draw");
    assert_int_equal(tg_state_winner(s), TG_DRAW);
    double ret[2] = {9, 9};
    TU_OK(tg_state_returns(s, ret));
    assert_true(ret[0] == 0.0 && ret[1] == 0.0);
    tg_state_free(s);
    /* The same, player 1 winning by 2. */
    s = tu_from("walak-pussa", SPEC " 1,1,0,0,0,0,0/0,3,0,0,0,0,0 1 30,21 quiet=2");
    tu_play(s, "b2");
    TU_POS(s, SPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=0 winner=0");
    tg_state_free(s);
}

/* ---- endless moves ---------------------------------------------------------------------- */

/* Found by a search over random single-game positions (random counters over the 14 holes,
 * scores making 56, player 0 to move) with the reference model's Floyd cycle finder. */
struct endless_case {
    const char *spec;
    const char *before; /* after the spec */
    const char *move;
    const char *after;
    /* The reference model's cycle finder needs seconds to see this move repeat (6.2 s natively,
     * three quarters of the suite's CPU time): it confirms it natively, in the gcc and
     * ASan/UBSan runs, and not under valgrind or emulation (TG_TEST_EMULATED=1), where that one
     * confirmation cost over a minute of CPU and checked none of the library's code; the
     * library's side of the case runs everywhere. */
    bool slow_model;
};

static const struct endless_case endless_cases[] = {
    {SPEC, " 2,5,3,4,2,5,6/3,2,1,5,4,3,2 0 3,6 quiet=7", "d1",
     " 2,5,3,4,2,5,6/3,2,1,5,4,3,2 - 3,6 quiet=7 winner=1", false},
    {SPEC, " 0,1,0,1,2,0,1/1,1,4,1,0,1,0 0 42,1 quiet=0", "b1",
     " 0,1,0,1,2,0,1/1,1,4,1,0,1,0 - 42,1 quiet=0 winner=1", false},
    {SPEC, " 4,3,6,3,6,3,0/6,2,8,3,4,3,5 0 0,0 quiet=55", "g1",
     " 4,3,6,3,6,3,0/6,2,8,3,4,3,5 - 0,0 quiet=55 winner=1", true},
    {SPEC, " 1,0,1,0,1,2,1/2,1,0,2,1,0,2 0 34,8 quiet=99", "a1",
     " 1,0,1,0,1,2,1/2,1,0,2,1,0,2 - 34,8 quiet=99 winner=1", false},
    /* In a match an endless move ends the whole match (round 1, then with dead holes). */
    {MSPEC, " 2,5,3,4,2,5,6/3,2,1,5,4,3,2 0 3,6 round=1 dead=- reserve=0,0 starter=0 quiet=7", "d1",
     " 2,5,3,4,2,5,6/3,2,1,5,4,3,2 - 3,6 round=1 dead=- reserve=0,0 starter=0 quiet=7 "
     "winner=1",
     false},
    {MSPEC,
     " 0,0,0,0,0,3,4/4,5,4,9,7,8,3 0 6,3 round=5 dead=a2+b2+c2+d2+e2 reserve=0,0 starter=1 "
     "quiet=12",
     "e1",
     " 0,0,0,0,0,3,4/4,5,4,9,7,8,3 - 6,3 round=5 dead=a2+b2+c2+d2+e2 reserve=0,0 starter=1 "
     "quiet=12 winner=1",
     false},
    {MSPEC,
     " 3,3,4,3,1,5,3/2,3,0,0,0,0,0 1 0,29 round=5 dead=d1+e1+f1+g1 reserve=0,12 starter=0 "
     "quiet=0",
     "a2",
     " 3,3,4,3,1,5,3/2,3,0,0,0,0,0 - 0,29 round=5 dead=d1+e1+f1+g1 reserve=0,12 starter=0 "
     "quiet=0 winner=0",
     false},
};

static void test_endless_pinned(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof endless_cases / sizeof endless_cases[0]; i++) {
        const struct endless_case *c = &endless_cases[i];
        char before[256], after[256];
        snprintf(before, sizeof before, "%s%s", c->spec, c->before);
        snprintf(after, sizeof after, "%s%s", c->spec, c->after);
        tg_state *s = tu_from(c->spec, before);
        int mover = tg_state_player(s);
        int score0 = tg_state_score(s, 0), score1 = tg_state_score(s, 1);
        int counts[14];
        for (int cell = 0; cell < 14; cell++)
            counts[cell] = tg_state_count(s, cell / 7, cell % 7);
        assert_true(tg_state_is_legal(s, tu_move(s, c->move)));
        tu_play(s, c->move);
        TU_POS(s, after);
        assert_true(tg_state_is_terminal(s));
        assert_int_equal(tg_state_player(s), TG_TERMINAL);
        assert_int_equal(tg_state_winner(s), 1 - mover);
        assert_int_equal(tg_state_score(s, 0), score0);
        assert_int_equal(tg_state_score(s, 1), score1);
        for (int cell = 0; cell < 14; cell++)
            assert_int_equal(tg_state_count(s, cell / 7, cell % 7), counts[cell]);
        double ret[2];
        TU_OK(tg_state_returns(s, ret));
        assert_true(ret[mover] == -1.0 && ret[1 - mover] == 1.0);
        assert_int_equal(tu_moves(s, NULL, 0), 0);
        /* The finished string reads back as an equal state. */
        tg_state *t = tu_from(c->spec, after);
        assert_true(tg_state_equal(s, t));
        tg_state_free(t);
        /* Undo restores the position exactly, and the move is endless again. */
        TU_OK(tg_state_undo(s));
        TU_POS(s, before);
        assert_false(tg_state_is_terminal(s));
        tu_play(s, c->move);
        TU_POS(s, after);
        tu_check_endless_unlimited(before, after, tu_move(s, c->move));
        /* The reference model agrees, independently (tu_battery(10) is less than 10 exactly
         * under TG_TEST_EMULATED=1). */
        if (c->slow_model && tu_battery(10) < 10) {
            tg_state_free(s);
            continue;
        }
        struct ref r;
        memset(&r, 0, sizeof r);
        r.match = c->spec[19] == 'm';
        r.limit = 100;
        for (int cell = 0; cell < 14; cell++)
            r.cell[cell] = counts[cell];
        r.score[0] = score0;
        r.score[1] = score1;
        int last;
        uint64_t laps;
        unsigned dead = 0;
        for (int cell = 0; cell < 14; cell++)
            if (tg_state_flags(s, cell / 7, cell % 7) & TG_CELL_DEAD)
                dead |= 1u << cell;
        assert_false(ref_sow(r.cell, dead, (int)tu_move(s, c->move), &last, &laps));
        tg_state_free(s);
    }
}

/* The longest finite move the search met: b1 here sows 450 laps and then ends normally. */
#define LONG_BEFORE SPEC " 2,3,4,2,4,0,3/5,5,2,1,4,5,2 0 8,6 quiet=0"
#define LONG_AFTER SPEC " 4,5,6,2,3,2,3/0,0,8,3,2,3,0 1 9,6 quiet=0"

static void test_long_finite_move(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("walak-pussa", LONG_BEFORE);
    struct ref r;
    memset(&r, 0, sizeof r);
    r.limit = 100;
    for (int cell = 0; cell < 14; cell++)
        r.cell[cell] = tg_state_count(s, cell / 7, cell % 7);
    r.score[0] = 8;
    r.score[1] = 6;
    expect_ref(s, &r, "long move, before");
    assert_int_equal(ref_apply(&r, 1), 450);
    tu_check_lap_boundary(LONG_BEFORE, 1, 450);
    tu_play(s, "b1");
    expect_ref(s, &r, "long move, after");
    TU_POS(s, LONG_AFTER);
    assert_false(tg_state_is_terminal(s));
    assert_int_equal(tg_state_player(s), 1);
    TU_OK(tg_state_undo(s));
    TU_POS(s, LONG_BEFORE);
    tg_state_free(s);
}

/* ---- match play ------------------------------------------------------------------------- */

struct match_stats {
    int rounds;           /* rounds played (the last one included) */
    int rounds_with_dead; /* rounds that started with dead holes */
    size_t plies;
};

/* Checks a freshly set-up round: refill, dead holes, reserves, starter. */
static void check_new_round(const tg_state *s, int prev_starter)
{
    int round, reserve0, reserve1, starter;
    assert_true(parse_field(s, " round=", &round, NULL));
    assert_true(parse_field(s, " reserve=", &reserve0, &reserve1));
    assert_true(parse_field(s, " starter=", &starter, NULL));
    int board = 0;
    for (int cell = 0; cell < 14; cell++)
        board += tg_state_count(s, cell / 7, cell % 7);
    assert_int_equal(board + tg_state_score(s, 0) + tg_state_score(s, 1), 56);
    int store[2];
    for (int p = 0; p < 2; p++) {
        const int *fill = p == 0 ? ring14 : ring14 + 7;
        int filled = 0;
        for (int i = 0; i < 7; i++) {
            int cell = fill[i];
            unsigned flags = tg_state_flags(s, cell / 7, cell % 7);
            int count = tg_state_count(s, cell / 7, cell % 7);
            if (flags & TG_CELL_DEAD) {
                assert_int_equal(count, 0);
            } else {
                assert_int_equal(count, 4);
                assert_int_equal(filled, i); /* live holes first in fill order */
                filled++;
            }
        }
        int reserve = p == 0 ? reserve0 : reserve1;
        assert_int_equal(reserve, tg_state_score(s, p));
        store[p] = reserve + 4 * filled;
        int want = store[p] / 4 > 7 ? 7 : store[p] / 4;
        assert_int_equal(filled, want);
        assert_int_equal(reserve, store[p] - 4 * filled);
        assert_true(filled >= 1);
    }
    int want_starter = store[0] != store[1] ? (store[0] < store[1] ? 0 : 1) : 1 - prev_starter;
    assert_int_equal(starter, want_starter);
    assert_int_equal(tg_state_player(s), starter);
    int quiet;
    assert_true(parse_field(s, " quiet=", &quiet, NULL));
    assert_int_equal(quiet, 0);
}

/* Plays a match by tg_state_apply_random, checking each ply against the reference model and
 * each new round against the rules. */
static struct match_stats play_match(const char *spec, int limit, uint64_t seed, char **final)
{
    struct match_stats st = {1, 0, 0};
    tg_state *s = tu_new(spec);
    struct ref r;
    ref_init(&r, true, limit);
    uint64_t rng = seed;
    int round = 1, starter = 0;
    while (!tg_state_is_terminal(s)) {
        tg_move legal[7];
        int n = ref_moves(&r, legal);
        tg_move m = tu_apply_random_as(s, &rng, legal, (size_t)n);
        ref_apply(&r, (int)m);
        st.plies++;
        expect_ref(s, &r, spec);
        int now;
        assert_true(parse_field(s, " round=", &now, NULL));
        if (now != round) {
            assert_int_equal(now, round + 1);
            check_new_round(s, starter);
            assert_true(parse_field(s, " starter=", &starter, NULL));
            round = now;
            st.rounds++;
            bool dead = false;
            for (int cell = 0; cell < 14; cell++)
                dead = dead || (tg_state_flags(s, cell / 7, cell % 7) & TG_CELL_DEAD);
            st.rounds_with_dead += dead;
        }
        assert_true(st.plies < 100000);
    }
    *final = tu_str(s);
    tg_state_free(s);
    return st;
}

#define MATCH_SEED 1
static void test_match_deterministic(void **unused)
{
    (void)unused;
    char *final = NULL;
    struct match_stats st = play_match("walak-pussa:rounds=match", 100, MATCH_SEED, &final);
    print_message("# match seed %d: %d rounds, %d with dead holes, %zu plies: %s\n", MATCH_SEED,
                  st.rounds, st.rounds_with_dead, st.plies, final);
    assert_true(st.rounds >= 3);
    assert_true(st.rounds_with_dead >= 1);
    /* Pinned: the generator is documented and the reference model replays every ply. */
    assert_int_equal(st.rounds, 28);
    assert_int_equal(st.rounds_with_dead, 27);
    assert_int_equal(st.plies, 409);
    assert_string_equal(final, MSPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 3,53 round=28 dead=e1+f1+g1 "
                                     "reserve=1,11 starter=0 quiet=0 winner=1");
    char *again = NULL;
    struct match_stats st2 = play_match("walak-pussa:rounds=match", 100, MATCH_SEED, &again);
    assert_int_equal(st2.plies, st.plies);
    assert_string_equal(again, final);
    free(again);
    free(final);
}

static void test_match_round_end_built(void **unused)
{
    (void)unused;
    /* Round 2, player 1 short (a2 and b2 dead). Player 0 plays f1: g1 1, g2 empty, captures f2
     * (2); e2 and d2 empty. Player 1's live row is empty: player 0 takes a1 and g1 (4). Stores
     * 35 and 21: player 1 has fewer and starts; player 0 fills 7 holes and keeps 7, player 1
     * fills g2 to c2 and keeps 1. */
    const char *before = MSPEC " 0,0,0,0,0,2,0/3,0,0,0,0,1,0 0 29,21 round=2 dead=a2+b2 "
                               "reserve=0,1 starter=1 quiet=5";
    const char *after = MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 "
                              "reserve=7,1 starter=1 quiet=0";
    tg_state *s = tu_from("walak-pussa:rounds=match", before);
    assert_int_equal(tg_state_flags(s, 1, 0), TG_CELL_DEAD);
    assert_int_equal(tg_state_flags(s, 1, 1), TG_CELL_DEAD);
    assert_int_equal(tg_state_flags(s, 1, 2), 0);
    tu_play(s, "f1");
    TU_POS(s, after);
    assert_false(tg_state_is_terminal(s));
    assert_int_equal(tg_state_player(s), 1);
    check_new_round(s, 1);
    assert_false(tg_state_is_legal(s, 7)); /* a2 is dead */
    assert_false(tg_state_is_legal(s, 8));
    assert_true(tg_state_is_legal(s, 9));
    TU_OK(tg_state_undo(s));
    TU_POS(s, before);
    tg_state_free(s);

    /* Equal stores: the player who did not start the previous round starts. */
    for (int prev = 0; prev < 2; prev++) {
        char b[256], a[256];
        snprintf(b, sizeof b,
                 MSPEC " 0,0,0,0,0,1,0/1,0,0,0,0,1,0 0 25,28 round=2 dead=- reserve=1,0 "
                       "starter=%d quiet=0",
                 prev);
        snprintf(a, sizeof a,
                 MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 %d 0,0 round=3 dead=- reserve=0,0 "
                       "starter=%d quiet=0",
                 1 - prev, 1 - prev);
        s = tu_from("walak-pussa:rounds=match", b);
        tu_play(s, "f1");
        TU_POS(s, a);
        check_new_round(s, prev);
        tg_state_free(s);
    }

    /* A store under 4 ends the match; the fields of the last round stay. */
    s = tu_from("walak-pussa:rounds=match",
                MSPEC " 0,0,0,0,0,0,2/0,0,0,0,1,0,0 0 51,2 round=4 dead=a2+b2+c2+d2+e2+f2 "
                      "reserve=23,2 starter=1 quiet=3");
    tu_play(s, "e1");
    TU_POS(s, MSPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 54,2 round=4 dead=a2+b2+c2+d2+e2+f2 "
                    "reserve=23,2 starter=1 quiet=0 winner=0");
    assert_int_equal(tg_state_winner(s), 0);
    tg_state_free(s);
}

/* ---- the quiet limit -------------------------------------------------------------------- */

static void test_quiet_limit(void **unused)
{
    (void)unused;
    /* Single game: each player takes their own row. */
    tg_state *s = tu_from("walak-pussa", SPEC " 0,0,0,0,0,0,5/1,0,0,0,0,0,0 0 25,25 quiet=99");
    tu_play(s, "a1");
    TU_POS(s, SPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 26,30 quiet=100 winner=1");
    tg_state_free(s);
    /* Match: the round ends the same way; the next one starts with quiet=0. */
    s = tu_from("walak-pussa:rounds=match",
                MSPEC " 0,0,0,0,0,0,5/1,0,0,0,0,0,0 0 25,25 round=1 dead=- reserve=0,0 "
                      "starter=0 quiet=99");
    tu_play(s, "a1");
    TU_POS(s, MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,0 0 2,2 round=2 dead=g1 reserve=2,2 starter=0 "
                    "quiet=0");
    check_new_round(s, 0);
    assert_int_equal(tg_state_flags(s, 0, 6), TG_CELL_DEAD);
    tg_state_free(s);
    /* A capture resets the count before the limit is looked at. */
    s = tu_from("walak-pussa", SPEC " 1,1,1,1,1,1,0/1,0,0,3,0,2,0 0 22,22 quiet=99");
    tu_play(s, "a1");
    TU_POS(s, SPEC " 1,1,1,1,1,1,0/0,1,0,0,0,0,0 1 27,22 quiet=0");
    tg_state_free(s);
    /* Small limits, random matches checked against the reference at every ply. */
    static const int limits[] = {1, 2, 5, 20};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "walak-pussa:rounds=match,laps=10000,quiet=%d", limits[i]);
        for (uint64_t seed = 1; seed <= 20; seed++) {
            char *final = NULL;
            play_match(spec, limits[i], seed * 7919, &final);
            free(final);
        }
    }
}

/* ---- perft ------------------------------------------------------------------------------ */

/* Pinned after three counts agreed: tg_perft, apply/undo, and the reference model. */
static const uint64_t single_perft[] = {1, 7, 30, 131, 698, 3161, 14576, 63135};
static const uint64_t match_perft[] = {1, 7, 30, 131, 698, 3161, 14631, 63808};

static void test_perft(void **unused)
{
    (void)unused;
    for (int m = 0; m < 2; m++) {
        tg_state *s = tu_new(m ? "walak-pussa:rounds=match" : "walak-pussa");
        struct ref r;
        ref_init(&r, m == 1, 100);
        const uint64_t *want = m ? match_perft : single_perft;
        for (unsigned d = 0; d < 8; d++) {
            uint64_t lib = tg_perft(s, d), mine = tu_perft_apply_undo(s, d), ref = ref_perft(&r, d);
            if (lib != want[d] || mine != want[d] || ref != want[d])
                TU_FAIL("%s depth %u: tg_perft %" PRIu64 ", apply/undo %" PRIu64
                        ", reference %" PRIu64 ", pinned %" PRIu64,
                        m ? "match" : "single", d, lib, mine, ref, want[d]);
        }
        TU_POS(s, m ? MSTART : START);
        tg_state_free(s);
    }
}

/* ---- rejected position strings ---------------------------------------------------------- */

#define MSPEC_S "walak-pussa:rounds=match"

static void test_bad_input(void **unused)
{
    (void)unused;
    /* Controls: valid strings close to the bad ones below. */
    const char *good[] = {
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,1 starter=1 "
              "quiet=0",
        MSPEC " 0,4,4,4,4,4,4/4,4,4,4,4,4,4 0 3,1 round=2 dead=a2 reserve=3,1 starter=0 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 3,5 round=3 dead=a2+b2 reserve=3,3 starter=1 "
              "quiet=0",
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,0 0 0,4 round=2 dead=g1 reserve=0,3 starter=0 quiet=0",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tg_state *s = tu_from(MSPEC_S, good[i]);
        TU_POS(s, good[i]);
        tg_state_free(s);
    }
    const char *bad_match[] = {
        /* wrong totals */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 8,1 round=3 dead=a2+b2 reserve=7,1 starter=1 "
              "quiet=0",
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,1 round=1 dead=- reserve=0,0 starter=0 quiet=0",
        /* a dead cell holding counters */
        MSPEC " 1,0,4,4,4,4,4/4,4,4,4,4,4,4 1 6,1 round=3 dead=a2+b2 reserve=6,1 starter=1 "
              "quiet=0",
        /* dead holes on both sides */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,0 1 3,1 round=3 dead=g1+a2+b2 reserve=3,1 starter=1 "
              "quiet=0",
        /* dead holes not at the tail of the fill order */
        MSPEC " 4,4,4,4,4,4,4/0,4,4,4,4,4,4 0 4,0 round=2 dead=a1 reserve=0,0 starter=0 quiet=0",
        MSPEC " 4,4,4,4,4,4,0/4,4,4,4,4,4,4 0 0,4 round=2 dead=g2 reserve=0,0 starter=0 quiet=0",
        MSPEC " 0,4,0,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+c2 reserve=3,1 starter=1 "
              "quiet=0",
        /* dead cells not ascending, or repeated */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=b2+a2 reserve=7,1 starter=1 "
              "quiet=0",
        MSPEC " 0,4,4,4,4,4,4/4,4,4,4,4,4,4 0 3,1 round=2 dead=a2+a2 reserve=3,1 starter=0 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2+b2 reserve=7,1 starter=1 "
              "quiet=0",
        /* malformed dead lists */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead= reserve=7,1 starter=1 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+ reserve=7,1 starter=1 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=+a2+b2 reserve=7,1 starter=1 "
              "quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2,b2 reserve=7,1 starter=1 "
              "quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a3+b2 reserve=7,1 starter=1 "
              "quiet=0",
        /* round=0 */
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 round=0 dead=- reserve=0,0 starter=0 quiet=0",
        /* reserve above the score */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=8,1 starter=1 "
              "quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,2 starter=1 "
              "quiet=0",
        /* a reserve of 4 or more with dead holes on that side */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 3,5 round=3 dead=a2+b2 reserve=3,4 starter=1 "
              "quiet=0",
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,0 0 4,0 round=2 dead=g1 reserve=4,0 starter=0 quiet=0",
        /* missing, extra, out-of-order fields */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,1 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,1 starter=1",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 dead=a2+b2 reserve=7,1 starter=1 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,1 starter=1 "
              "extra=1 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 reserve=7,1 dead=a2+b2 starter=1 "
              "quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,1 starter=1 "
              "quiet=0 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7 starter=1 quiet=0",
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=3 dead=a2+b2 reserve=7,1 starter=2 "
              "quiet=0",
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 quiet=0",
        /* round 1 with dead holes, or with a reserve */
        MSPEC " 0,0,4,4,4,4,4/4,4,4,4,4,4,4 1 7,1 round=1 dead=a2+b2 reserve=7,1 starter=1 "
              "quiet=0",
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,0 0 4,0 round=1 dead=- reserve=4,0 starter=0 quiet=0",
        MSPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 round=1 dead=- reserve=0,0 starter=1 quiet=0",
        /* no live hole at all on one side */
        MSPEC " 0,0,0,0,0,0,0/4,4,4,4,4,4,4 0 28,0 round=2 dead=a2+b2+c2+d2+e2+f2+g2 "
              "reserve=0,0 starter=0 quiet=0",
    };
    for (size_t i = 0; i < sizeof bad_match / sizeof bad_match[0]; i++)
        tu_from_fails(TG_ERR_PARSE, MSPEC_S, bad_match[i]);
    const char *bad_single[] = {
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 1,0 quiet=0",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,3 0 0,0 quiet=0",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 round=1 dead=- reserve=0,0 starter=0 quiet=0",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 0 0,0 quiet=0 round=1",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4 0 0,0 quiet=0",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4,0 0 0,0 quiet=0",
        SPEC " 4,4,4,4,4,4,4/4,4,4,4,4,4,4 2 0,0 quiet=0",
        /* a finished game whose winner does not match the scores */
        SPEC " 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=0 winner=1",
    };
    for (size_t i = 0; i < sizeof bad_single / sizeof bad_single[0]; i++)
        tu_from_fails(TG_ERR_PARSE, "walak-pussa", bad_single[i]);
    /* A match string under the single-game rules, and the reverse: another rule set. */
    tg_rules *single = tu_rules("walak-pussa"), *match = tu_rules(MSPEC_S);
    tg_state *s = NULL;
    TU_STATUS(TG_ERR_RULES_MISMATCH, tg_state_from_string(single, good[0], &s));
    TU_STATUS(TG_ERR_RULES_MISMATCH, tg_state_from_string(match, START, &s));
    assert_null(s);
    tg_rules_free(single);
    tg_rules_free(match);
}

/* ---- random positions and games against the reference ----------------------------------- */

static void test_random_positions_vs_reference(void **unused)
{
    (void)unused;
    uint64_t gen = 20250101;
    int endless = 0, tried = 0, boundaries = 0;
    uint64_t longest = 0;
    /* Every trial even under emulation: endless moves are rare (2 of 25,872 random Hus
     * moves, 13 of 15,627 Walak-pussa ones); only the lap-limit boundary checks are fewer. */
    const int boundary_checks = tu_battery(400);
    for (int trial = 0; trial < 3000; trial++) {
        struct ref r;
        random_position(&r, &gen, trial % 2 == 1);
        char text[256];
        tg_state *s = ref_state(&r, text, sizeof text);
        TU_POS(s, text);
        tg_move lib[16], mine[7];
        size_t n = tu_moves(s, lib, 16);
        int rn = ref_moves(&r, mine);
        assert_int_equal(n, (size_t)rn);
        assert_memory_equal(lib, mine, n * sizeof *lib);
        for (size_t i = 0; i < n; i++) {
            struct ref c = r;
            uint64_t laps = ref_apply(&c, (int)mine[i]);
            endless += laps == 0;
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
    print_message("# %d of %d random moves were endless; lap-limit boundary of %d moves "
                  "checked, the longest %" PRIu64 " laps\n",
                  endless, tried, boundaries, longest);
    assert_true(endless > 0);
    assert_true(boundaries == boundary_checks && longest >= 3);
}

static void test_random_games_vs_reference(void **unused)
{
    (void)unused;
    const uint64_t seeds = (uint64_t)tu_battery(200);
    for (int m = 0; m < 2; m++)
        for (uint64_t seed = 1; seed <= seeds; seed++) {
            struct ref r;
            ref_init(&r, m == 1, 100);
            tg_state *s = tu_new(m ? MSPEC : SPEC);
            uint64_t rng = seed * 0x9E3779B97F4A7C15u;
            for (int ply = 0; ply < 20000 && !r.over; ply++) {
                expect_ref(s, &r, "random game");
                tg_move legal[7];
                int n = ref_moves(&r, legal);
                tg_move mv = tu_apply_random_as(s, &rng, legal, (size_t)n);
                ref_apply(&r, (int)mv);
            }
            expect_ref(s, &r, "random game end");
            assert_true(tg_state_is_terminal(s));
            tg_state_free(s);
        }
}

#ifndef WP_DEV
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_example1_opening_relay),
        cmocka_unit_test(test_example2_chain),
        cmocka_unit_test(test_example3_no_capture),
        cmocka_unit_test(test_example4_end),
        cmocka_unit_test(test_endless_pinned),
        cmocka_unit_test(test_long_finite_move),
        cmocka_unit_test(test_match_deterministic),
        cmocka_unit_test(test_match_round_end_built),
        cmocka_unit_test(test_quiet_limit),
        cmocka_unit_test(test_perft),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_random_positions_vs_reference),
        cmocka_unit_test(test_random_games_vs_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

/* Stories (tg_state_story) and end reasons (tg_state_end_reason): the property that defines a
 * story, checked over seeded random games of every rule set (each event's documented effect,
 * applied to the counts and scores before a move, gives those after it); the rules pages'
 * worked examples as exact event sequences; bounded stories of the longest endless moves; the
 * buffer contract; and every end reason from play and from position strings. */
#include "test_util.h"

enum { MAX_EVENTS = 65536, MAX_CELLS = 128, GAMES = 12, MAX_PLIES = 400 };

#define NA UINT32_MAX

static const char *const specs[] = {
    "halusa",
    "halusa:remainder=owner",
    "halusa:quiet=10",
    "walak-pussa",
    "walak-pussa:rounds=match",
    "walak-pussa:quiet=10",
    "walak-pussa:rounds=match,quiet=10",
    "walak-pussa:laps=1",
    "walak-pussa:laps=2",
    "walak-pussa:rounds=match,laps=2",
    "hus",
    "hus:width=10",
    "hus:width=12",
    "hus:width=14",
    "hus:width=16",
    "hus:quiet=10",
    "hus:laps=1",
    "hus:laps=2",
    "hawalis",
    "hawalis:variant=zanzibar",
    "hawalis:quiet=10",
    "hawalis:laps=1",
    "hawalis:variant=zanzibar,laps=2",
    "tab",
    "tab:width=19",
    "tab:width=21",
    "tab:width=29",
};

/* ---- reading stories -------------------------------------------------------------------- */

struct story {
    uint32_t *ev; /* MAX_EVENTS events */
    size_t n;
};

static void story_of(const tg_state *s, size_t index, struct story *st)
{
    size_t count = 0;
    TU_OK(tg_state_story(s, index, NULL, 0, &count));
    assert_true(count > 0 && count <= MAX_EVENTS);
    size_t again = 0;
    TU_OK(tg_state_story(s, index, st->ev, MAX_EVENTS, &again));
    assert_int_equal(again, count);
    st->n = count;
}

static uint32_t kind_at(const struct story *st, size_t i)
{
    return st->ev[i * TG_EVENT_FIELDS];
}

/* The counts and scores a story is checked against. */
struct tally {
    int rows, cols;
    long count[MAX_CELLS];
    long score[2];
};

static void tally_of(const tg_state *s, struct tally *t)
{
    const tg_rules *r = tg_state_rules(s);
    t->rows = tg_rules_rows(r);
    t->cols = tg_rules_cols(r);
    for (int row = 0; row < t->rows; row++)
        for (int col = 0; col < t->cols; col++)
            t->count[row * t->cols + col] = tg_state_count(s, row, col);
    t->score[0] = tg_state_score(s, 0);
    t->score[1] = tg_state_score(s, 1);
}

/* Applies each event's documented effect (include/traditional-games/tg-story.h, tg_event_kind). */
static void apply_story(struct tally *t, const struct story *st)
{
    int cells = t->rows * t->cols;
    for (size_t i = 0; i < st->n; i++) {
        const uint32_t *e = st->ev + i * TG_EVENT_FIELDS;
        uint32_t kind = e[0], cell = e[1], count = e[2], player = e[3];
        bool on_cell = cell != NA;
        if (on_cell && cell >= (uint32_t)cells)
            TU_FAIL("event %zu kind %u: cell %u off the board", i, kind, cell);
        bool to_player = player == 0 || player == 1;
        switch (kind) {
        case TG_EVENT_LIFT:
        case TG_EVENT_RESOW:
        case TG_EVENT_MOVE_FROM:
            assert_true(on_cell);
            t->count[cell] -= count;
            break;
        case TG_EVENT_DROP:
        case TG_EVENT_MOVE_TO:
            assert_true(on_cell);
            t->count[cell] += count;
            break;
        case TG_EVENT_CAPTURE:
        case TG_EVENT_TAKE:
        case TG_EVENT_GATHER:
            assert_true(on_cell && to_player);
            t->count[cell] -= count;
            t->score[player] += count;
            break;
        case TG_EVENT_FILL:
            assert_true(on_cell && to_player);
            t->count[cell] += count;
            t->score[player] -= count;
            break;
        case TG_EVENT_SCORE:
            assert_true(to_player);
            t->score[player] = count;
            break;
        case TG_EVENT_SET:
            assert_true(on_cell);
            t->count[cell] = count;
            break;
        case TG_EVENT_PASS:
        case TG_EVENT_THROW:
        case TG_EVENT_STEP:
        case TG_EVENT_UNLOCK:
        case TG_EVENT_KING:
        case TG_EVENT_SPLIT:
        case TG_EVENT_THROWS_LOST:
        case TG_EVENT_TURN:
        case TG_EVENT_ROUND_END:
        case TG_EVENT_DEAD:
        case TG_EVENT_ROUND_START:
        case TG_EVENT_ENDLESS:
        case TG_EVENT_ELISION:
        case TG_EVENT_ELIDED_SOWN:
        case TG_EVENT_GAME_END:
            break;
        default:
            TU_FAIL("event %zu: unknown kind %u", i, kind);
        }
    }
}

static void expect_same_tally(const struct tally *a, const struct tally *b, const char *what)
{
    for (int c = 0; c < a->rows * a->cols; c++)
        if (a->count[c] != b->count[c])
            TU_FAIL("%s: cell %d: story gives %ld, position has %ld", what, c, a->count[c],
                    b->count[c]);
    for (int p = 0; p < 2; p++)
        if (a->score[p] != b->score[p])
            TU_FAIL("%s: score %d: story gives %ld, position has %ld", what, p, a->score[p],
                    b->score[p]);
}

/* The story of the last move of `s` (just applied), checked against the positions. */
static void check_last_story(const tg_state *s, const struct tally *before, struct story *st,
                             int turn_before, const char *what)
{
    size_t len = 0;
    TU_OK(tg_state_history(s, NULL, 0, &len));
    story_of(s, len - 1, st);
    struct tally t = *before, after;
    apply_story(&t, st);
    tally_of(s, &after);
    expect_same_tally(&t, &after, what);
    uint32_t last = kind_at(st, st->n - 1);
    bool over = tg_state_is_terminal(s);
    /* GAME_END last when the move finished the game, TURN last when the turn passed. */
    if (over) {
        assert_int_equal(last, TG_EVENT_GAME_END);
        const uint32_t *e = st->ev + (st->n - 1) * TG_EVENT_FIELDS;
        assert_int_equal(e[2], (uint32_t)tg_state_end_reason(s));
        int w = tg_state_winner(s);
        assert_int_equal(e[3], w == TG_DRAW ? NA : (uint32_t)w);
    } else if (tg_state_turn(s) != turn_before) {
        assert_int_equal(last, TG_EVENT_TURN);
        assert_int_equal(st->ev[(st->n - 1) * TG_EVENT_FIELDS + 3], (uint32_t)tg_state_turn(s));
    }
    size_t ends = 0;
    for (size_t i = 0; i < st->n; i++)
        ends += kind_at(st, i) == TG_EVENT_GAME_END;
    assert_int_equal(ends, over ? 1 : 0);
}

/* ---- the defining property over random games --------------------------------------------- */

static void test_random_games(void **unused)
{
    (void)unused;
    struct story st = {malloc((size_t)MAX_EVENTS * TG_EVENT_FIELDS * sizeof(uint32_t)), 0};
    assert_non_null(st.ev);
    size_t reasons[TG_END_ENDLESS + 1] = {0};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (uint64_t g = 0; g < GAMES; g++) {
            tg_state *s = tu_new(specs[i]);
            uint64_t rng = 0x5107 + g * 7919 + i;
            for (int ply = 0; ply < MAX_PLIES && !tg_state_is_terminal(s); ply++) {
                struct tally before;
                tally_of(s, &before);
                int turn = tg_state_turn(s);
                TU_OK(tg_state_apply_random(s, &rng));
                char what[160];
                snprintf(what, sizeof what, "%s game %u ply %d", specs[i], (unsigned)g, ply);
                check_last_story(s, &before, &st, turn, what);
            }
            tg_end_reason r = tg_state_end_reason(s);
            assert_int_equal(r == TG_END_NONE, !tg_state_is_terminal(s));
            assert_true(r <= TG_END_ENDLESS && r != TG_END_UNKNOWN);
            reasons[r]++;
            /* The same position read from its string: the same ending, or unknown when
             * another fits too. */
            char *text = tu_str(s);
            tg_state *read = tu_from(specs[i], text);
            tg_end_reason from_text = tg_state_end_reason(read);
            if (from_text != r && from_text != TG_END_UNKNOWN)
                TU_FAIL("%s: played to %s, read as %s", text, tg_end_reason_name(r),
                        tg_end_reason_name(from_text));
            tg_state_free(read);
            free(text);
            tg_state_free(s);
        }
    }
    for (int r = 0; r <= TG_END_ENDLESS; r++)
        print_message("# %s: %zu games\n", tg_end_reason_name((tg_end_reason)r), reasons[r]);
    /* Play reaches every ending but the blocked one (see TG_END_BLOCKED). */
    for (int r = TG_END_NO_MOVE; r <= TG_END_ENDLESS; r++)
        if (r != TG_END_BLOCKED && reasons[r] == 0)
            TU_FAIL("no random game ended by %s", tg_end_reason_name((tg_end_reason)r));
    free(st.ev);
}

/* ---- worked examples ---------------------------------------------------------------------- */

struct ev {
    uint32_t kind, cell, count, player;
};

static void expect_story(const tg_state *s, size_t index, const struct ev *want, size_t n)
{
    uint32_t buf[64 * TG_EVENT_FIELDS];
    size_t count = 0;
    TU_OK(tg_state_story(s, index, buf, 64, &count));
    for (size_t i = 0; i < n && i < count; i++) {
        const uint32_t *e = buf + i * TG_EVENT_FIELDS;
        if (e[0] != want[i].kind || e[1] != want[i].cell || e[2] != want[i].count ||
            e[3] != want[i].player)
            TU_FAIL("event %zu: got {%u, %u, %u, %u}, expected {%u, %u, %u, %u}", i, e[0], e[1],
                    e[2], e[3], want[i].kind, want[i].cell, want[i].count, want[i].player);
    }
    assert_int_equal(count, n);
}

static size_t count_kind(const uint32_t *buf, size_t n, uint32_t kind)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += buf[i * TG_EVENT_FIELDS] == kind;
    return k;
}

/* rules/halusa.md example 3: a1 (2) sows b1 (now 2) and c1 (now 4); c1 is even and taken, then
 * backwards b1 (2); the emptied a1 stops the chain: 32 + 6. */
static void test_halusa_chain(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("halusa", "halusa:remainder=last-mover,quiet=100 "
                                    "1,0,0,0,0,1/2,1,3,0,0,0 0 32,32 quiet=0");
    tu_play(s, "a1");
    /* a1 is cell 0, b1 cell 1, c1 cell 2. */
    const struct ev want[] = {
        {TG_EVENT_LIFT, 0, 2, 0},    {TG_EVENT_DROP, 1, 1, 0},    {TG_EVENT_DROP, 2, 1, 0},
        {TG_EVENT_CAPTURE, 2, 4, 0}, {TG_EVENT_CAPTURE, 1, 2, 0}, {TG_EVENT_TURN, NA, NA, 1},
    };
    expect_story(s, 0, want, sizeof want / sizeof want[0]);
    tg_state_free(s);
}

/* rules/walak-pussa.md example 1: a1 from the start. Seven laps, each started by lifting the
 * hole after the last counter (f1, d2, b1, g2, a2, f1 again), then across the empty g2 the six
 * counters of f2 are taken. Cells: a1..g1 are 0..6, a2..g2 are 7..13. */
static void test_walak_pussa_opening(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("walak-pussa");
    tu_play(s, "a1");
    const struct ev want[] = {
        {TG_EVENT_LIFT, 0, 4, 0},   {TG_EVENT_DROP, 1, 1, 0},  {TG_EVENT_DROP, 2, 1, 0},
        {TG_EVENT_DROP, 3, 1, 0},   {TG_EVENT_DROP, 4, 1, 0},  {TG_EVENT_LIFT, 5, 4, 0},
        {TG_EVENT_DROP, 6, 1, 0},   {TG_EVENT_DROP, 13, 1, 0}, {TG_EVENT_DROP, 12, 1, 0},
        {TG_EVENT_DROP, 11, 1, 0},  {TG_EVENT_LIFT, 10, 4, 0}, {TG_EVENT_DROP, 9, 1, 0},
        {TG_EVENT_DROP, 8, 1, 0},   {TG_EVENT_DROP, 7, 1, 0},  {TG_EVENT_DROP, 0, 1, 0},
        {TG_EVENT_LIFT, 1, 5, 0},   {TG_EVENT_DROP, 2, 1, 0},  {TG_EVENT_DROP, 3, 1, 0},
        {TG_EVENT_DROP, 4, 1, 0},   {TG_EVENT_DROP, 5, 1, 0},  {TG_EVENT_DROP, 6, 1, 0},
        {TG_EVENT_LIFT, 13, 5, 0},  {TG_EVENT_DROP, 12, 1, 0}, {TG_EVENT_DROP, 11, 1, 0},
        {TG_EVENT_DROP, 10, 1, 0},  {TG_EVENT_DROP, 9, 1, 0},  {TG_EVENT_DROP, 8, 1, 0},
        {TG_EVENT_LIFT, 7, 5, 0},   {TG_EVENT_DROP, 0, 1, 0},  {TG_EVENT_DROP, 1, 1, 0},
        {TG_EVENT_DROP, 2, 1, 0},   {TG_EVENT_DROP, 3, 1, 0},  {TG_EVENT_DROP, 4, 1, 0},
        {TG_EVENT_LIFT, 5, 1, 0},   {TG_EVENT_DROP, 6, 1, 0},  {TG_EVENT_CAPTURE, 12, 6, 0},
        {TG_EVENT_TURN, NA, NA, 1},
    };
    expect_story(s, 0, want, sizeof want / sizeof want[0]);
    tg_state_free(s);
}

/* A Walak-pussa match round change (example 4 of the page, in a match): the round ends, the
 * next is filled from the stores. */
static void test_walak_pussa_round_change(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("walak-pussa:rounds=match",
                          "walak-pussa:rounds=match,laps=10000,quiet=100 0,0,0,0,0,3,0/"
                          "2,0,0,0,0,1,0 0 20,30 round=1 dead=- reserve=0,0 starter=0 quiet=9");
    tu_play(s, "f1");
    /* f1 (cell 5, 1 counter) sows g1 (6); the hole after, g2 (13), is empty; beyond it f2
     * (12, 3 counters) is taken. Player 1's row is then empty: player 0 gathers a1 (2) and g1
     * (1). Round 1 ends 26 to 30 (player 1 ahead); round 2 is started by player 0, the one
     * behind: player 0 fills six holes (24 of 26, g1 dead), player 1 all seven. The turn stays
     * with player 0: no TURN. */
    const struct ev want[] = {
        {TG_EVENT_LIFT, 5, 1, 0},         {TG_EVENT_DROP, 6, 1, 0},
        {TG_EVENT_CAPTURE, 12, 3, 0},     {TG_EVENT_GATHER, 0, 2, 0},
        {TG_EVENT_GATHER, 6, 1, 0},       {TG_EVENT_ROUND_END, NA, 1, 1},
        {TG_EVENT_ROUND_START, NA, 2, 0}, {TG_EVENT_FILL, 0, 4, 0},
        {TG_EVENT_FILL, 1, 4, 0},         {TG_EVENT_FILL, 2, 4, 0},
        {TG_EVENT_FILL, 3, 4, 0},         {TG_EVENT_FILL, 4, 4, 0},
        {TG_EVENT_FILL, 5, 4, 0},         {TG_EVENT_DEAD, 6, NA, NA},
        {TG_EVENT_FILL, 13, 4, 1},        {TG_EVENT_FILL, 12, 4, 1},
        {TG_EVENT_FILL, 11, 4, 1},        {TG_EVENT_FILL, 10, 4, 1},
        {TG_EVENT_FILL, 9, 4, 1},         {TG_EVENT_FILL, 8, 4, 1},
        {TG_EVENT_FILL, 7, 4, 1},
    };
    expect_story(s, 0, want, sizeof want / sizeof want[0]);
    assert_true(tg_state_flags(s, 0, 6) & TG_CELL_DEAD);
    assert_int_equal(tg_state_end_reason(s), TG_END_NONE);
    tg_state_free(s);
}

/* rules/tab.md example 2: throws, then the first piece unlocks (m1+1 to m2). */
static void test_tab_unlock(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("tab");
    tu_play_line(s, "throw:1 throw:4 throw:2");
    const struct ev one[] = {{TG_EVENT_THROW, NA, 1, 0}}, two[] = {{TG_EVENT_THROW, NA, 2, 0}};
    expect_story(s, 0, one, 1);
    expect_story(s, 2, two, 1); /* the throwing ends: player 0 decides, the turn stays */
    tu_play(s, "m1+1");
    /* m1 is cell 12; the next track position is m2, cell 25. */
    const struct ev unlock[] = {
        {TG_EVENT_UNLOCK, 12, 1, 0},
        {TG_EVENT_MOVE_FROM, 12, 1, 0},
        {TG_EVENT_MOVE_TO, 25, 1, 0},
    };
    expect_story(s, 3, unlock, 3);
    tg_state_free(s);
    /* Example 1: a 2 with nothing to move: the throw is lost and the turn passes. */
    s = tu_new("tab");
    tu_play(s, "throw:2");
    const struct ev lost[] = {
        {TG_EVENT_THROW, NA, 2, 0}, {TG_EVENT_THROWS_LOST, NA, 1, 0}, {TG_EVENT_TURN, NA, NA, 1}};
    expect_story(s, 0, lost, 3);
    tg_state_free(s);
}

/* rules/tab.md example 3: x on b2 throws 6, walks a2 and a3 .. d3 and takes the king o2 on e3. */
static void test_tab_capture(void **unused)
{
    (void)unused;
    tg_state *s =
        tu_from("tab", "tab:width=13 .,.,.,.,.,.,.,.,.,.,.,.,O/.,.,.,.,o2,.,.,.,.,.,.,.,./"
                       ".,x,.,.,.,.,.,.,.,.,.,.,./X,.,.,.,.,.,.,.,.,.,.,.,. 0 10,11 "
                       "throws=6");
    tu_play(s, "b2+6");
    const struct ev want[] = {
        {TG_EVENT_MOVE_FROM, 14, 1, 0}, {TG_EVENT_STEP, 13, NA, NA},  {TG_EVENT_STEP, 26, NA, NA},
        {TG_EVENT_STEP, 27, NA, NA},    {TG_EVENT_STEP, 28, NA, NA},  {TG_EVENT_STEP, 29, NA, NA},
        {TG_EVENT_TAKE, 30, 2, 0},      {TG_EVENT_MOVE_TO, 30, 1, 0}, {TG_EVENT_TURN, NA, NA, 1},
    };
    expect_story(s, 0, want, sizeof want / sizeof want[0]);
    tg_state_free(s);
}

/* Kings and splits in random Tab games: where they stand among a decision's events. */
static void test_tab_kings(void **unused)
{
    (void)unused;
    uint32_t buf[256 * TG_EVENT_FIELDS];
    size_t kings = 0, splits = 0;
    for (uint64_t g = 0; g < 6; g++) {
        tg_state *s = tu_new("tab");
        uint64_t rng = 1000 + g;
        for (size_t ply = 0; ply < 3000 && !tg_state_is_terminal(s); ply++) {
            TU_OK(tg_state_apply_random(s, &rng));
            size_t n = 0;
            TU_OK(tg_state_story(s, ply, buf, 256, &n));
            for (size_t i = 0; i < n; i++) {
                const uint32_t *e = buf + i * TG_EVENT_FIELDS;
                if (e[0] == TG_EVENT_KING) {
                    kings++;
                    assert_true(i > 0 && e[-4] == TG_EVENT_MOVE_TO && e[-3] == e[1]);
                    int cols = tg_rules_cols(tg_state_rules(s));
                    assert_int_equal(e[2], tg_state_count(s, (int)e[1] / cols, (int)e[1] % cols));
                }
                if (e[0] == TG_EVENT_SPLIT) {
                    splits++;
                    assert_true(i + 1 < n && e[4] == TG_EVENT_MOVE_FROM && e[5] == e[1] &&
                                e[6] == e[2]);
                }
            }
        }
        tg_state_free(s);
    }
    assert_true(kings > 0);
    assert_true(splits > 0);
}

/* A Hus capture sown on: the captured counters are RESOW events, then dropped. */
static void test_hus_capture_resown(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("hus");
    uint64_t rng = 7;
    bool seen = false;
    uint32_t *buf = malloc((size_t)MAX_EVENTS * TG_EVENT_FIELDS * sizeof(uint32_t));
    assert_non_null(buf);
    for (int ply = 0; ply < 200 && !seen && !tg_state_is_terminal(s); ply++) {
        TU_OK(tg_state_apply_random(s, &rng));
        size_t n = 0;
        TU_OK(tg_state_story(s, (size_t)ply, buf, MAX_EVENTS, &n));
        for (size_t i = 0; i + 1 < n; i++) {
            if (buf[i * TG_EVENT_FIELDS] != TG_EVENT_RESOW)
                continue;
            /* The lap it fills is sown from the landing hole on. */
            size_t j = i + 1;
            while (buf[j * TG_EVENT_FIELDS] == TG_EVENT_RESOW)
                j++;
            assert_int_equal(buf[j * TG_EVENT_FIELDS], TG_EVENT_DROP);
            seen = true;
        }
        assert_int_equal(count_kind(buf, n, TG_EVENT_CAPTURE), 0);
    }
    assert_true(seen);
    free(buf);
    tg_state_free(s);
}

/* ---- bounded stories -------------------------------------------------------------------- */

/* The long cycles of tests/test_lap_limit.c, endless at the default lap limit of 10000. */
static const char *const long_endless[][2] = {
    {"hus:width=8 0,0,1,2,0,0,1,0/0,1,0,1,1,2,0,0/4,2,5,2,3,2,1,3/1,4,1,2,1,3,2,3 0 39,9 "
     "quiet=10",
     "b2"},
    {"hus:width=8 0,0,0,0,0,1,0,0/0,0,0,0,0,0,0,0/4,3,1,0,3,4,1,4/1,2,3,2,3,5,4,7 0 47,1 "
     "quiet=61",
     "d1"},
    {"hawalis:variant=zanzibar 0,3,2,1,2,3,13,1/1,0,1,5,4,0,1,2/0,1,0,1,0,1,0,0/"
     "0,1,2,1,2,0,3,1 1 9,35 quiet=5",
     "d3"},
};

static void test_endless_bounded(void **unused)
{
    (void)unused;
    uint32_t *buf = malloc((size_t)MAX_EVENTS * TG_EVENT_FIELDS * sizeof(uint32_t));
    assert_non_null(buf);
    for (size_t i = 0; i < sizeof long_endless / sizeof long_endless[0]; i++) {
        tg_state *s = tu_from_text(long_endless[i][0]);
        struct tally before, after;
        tally_of(s, &before);
        tu_play(s, long_endless[i][1]);
        assert_int_equal(tg_state_end_reason(s), TG_END_ENDLESS);
        size_t n = 0;
        TU_OK(tg_state_story(s, 0, NULL, 0, &n));
        assert_true(n < MAX_EVENTS); /* under 1 MiB */
        TU_OK(tg_state_story(s, 0, buf, n, &n));
        assert_int_equal(count_kind(buf, n, TG_EVENT_ELISION), 1);
        assert_int_equal(count_kind(buf, n, TG_EVENT_ELIDED_SOWN), 1);
        assert_int_equal(count_kind(buf, n, TG_EVENT_ENDLESS), 1);
        for (size_t k = 0; k < n; k++) {
            const uint32_t *e = buf + k * TG_EVENT_FIELDS;
            /* Judged at the limit: 10000 laps sown, laps 61 to 9960 elided. */
            if (e[0] == TG_EVENT_ELISION)
                assert_int_equal(e[2], 10000 - 100);
            if (e[0] == TG_EVENT_ENDLESS)
                assert_int_equal(e[2], 10000);
        }
        struct story st = {buf, n};
        apply_story(&before, &st);
        tally_of(s, &after);
        expect_same_tally(&before, &after, long_endless[i][0]);
        tg_state_free(s);
    }
    /* Every move of a Hus position of long relays on the widest board. */
    tg_state *s = tu_from_text("hus:width=16,quiet=100 4,1,6,1,6,0,6,2,1,4,1,0,1,8,1,6/"
                               "10,2,1,0,2,1,0,3,0,1,0,3,2,6,7,3/0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0/"
                               "0,0,0,0,0,0,0,0,0,2,0,2,1,0,1,0 1 7,89 quiet=3");
    tg_move moves[64];
    size_t k = tu_moves(s, moves, 64);
    for (size_t j = 0; j < k; j++) {
        struct tally before, after;
        tally_of(s, &before);
        TU_OK(tg_state_apply(s, moves[j]));
        struct story st = {buf, 0};
        story_of(s, 0, &st);
        apply_story(&before, &st);
        tally_of(s, &after);
        expect_same_tally(&before, &after, "hus width 16");
        TU_OK(tg_state_undo(s));
    }
    tg_state_free(s);
    free(buf);
}

/* The laps a story writes out: those whose lap starts (a lift or re-sown captures after a
 * drop, or the first) are among its events. */
static size_t laps_written(const uint32_t *buf, size_t n)
{
    size_t laps = 0;
    uint32_t last = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t k = buf[i * TG_EVENT_FIELDS];
        if (k == TG_EVENT_DROP && last != TG_EVENT_DROP)
            laps++;
        last = k;
    }
    return laps;
}

/* A move of up to 100 laps is written whole; one of 101 elides one lap. */
static void test_hundred_laps_whole(void **unused)
{
    (void)unused;
    uint32_t *buf = malloc((size_t)MAX_EVENTS * TG_EVENT_FIELDS * sizeof(uint32_t));
    assert_non_null(buf);
    /* A finite move of 95 laps (found by a search over random positions). */
    tg_state *s = tu_from_text("walak-pussa:rounds=single,laps=0,quiet=100 "
                               "3,2,3,2,3,4,3/4,6,4,3,0,3,1 0 7,8 quiet=0");
    tu_play(s, "a1");
    size_t n = 0;
    TU_OK(tg_state_story(s, 0, buf, MAX_EVENTS, &n));
    assert_int_equal(laps_written(buf, n), 95);
    assert_int_equal(count_kind(buf, n, TG_EVENT_ELISION), 0);
    assert_int_equal(count_kind(buf, n, TG_EVENT_ENDLESS), 0);
    tg_state_free(s);
    /* A finite Hus move of exactly 100 laps (found the same way): whole, with no limit and
     * under laps=100; under laps=99 it is endless, and whole too. */
    static const char *const hundred[] = {
        "hus:width=8,laps=0,quiet=100 3,0,3,4,1,1,1,1/0,2,0,2,2,0,4,0/4,1,0,0,0,1,2,3/"
        "0,3,1,2,2,1,2,2 0 24,24 quiet=0",
        "hus:width=8,laps=100,quiet=100 3,0,3,4,1,1,1,1/0,2,0,2,2,0,4,0/4,1,0,0,0,1,2,3/"
        "0,3,1,2,2,1,2,2 0 24,24 quiet=0",
        "hus:width=8,laps=99,quiet=100 3,0,3,4,1,1,1,1/0,2,0,2,2,0,4,0/4,1,0,0,0,1,2,3/"
        "0,3,1,2,2,1,2,2 0 24,24 quiet=0",
    };
    for (int i = 0; i < 3; i++) {
        s = tu_from_text(hundred[i]);
        tu_play(s, "a2");
        TU_OK(tg_state_story(s, 0, buf, MAX_EVENTS, &n));
        assert_int_equal(count_kind(buf, n, TG_EVENT_ELISION), 0);
        assert_int_equal(laps_written(buf, n), i < 2 ? 100 : 99);
        assert_int_equal(count_kind(buf, n, TG_EVENT_ENDLESS), i < 2 ? 0 : 1);
        assert_int_equal(tg_state_end_reason(s), i < 2 ? TG_END_NONE : TG_END_ENDLESS);
        tg_state_free(s);
    }
    /* A cycle judged at a limit of 100 laps, then of 101. */
    const char *text = long_endless[0][0];
    size_t id = strcspn(text, " ");
    for (int limit = 100; limit <= 101; limit++) {
        char spec_text[512];
        snprintf(spec_text, sizeof spec_text, "%.*s,laps=%d%s", (int)id, text, limit, text + id);
        s = tu_from_text(spec_text);
        tu_play(s, long_endless[0][1]);
        TU_OK(tg_state_story(s, 0, buf, MAX_EVENTS, &n));
        assert_int_equal(count_kind(buf, n, TG_EVENT_ELISION), limit == 100 ? 0 : 1);
        assert_int_equal(laps_written(buf, n), 100);
        for (size_t i = 0; i < n; i++) {
            const uint32_t *e = buf + i * TG_EVENT_FIELDS;
            if (e[0] == TG_EVENT_ENDLESS)
                assert_int_equal(e[2], (uint32_t)limit);
            if (e[0] == TG_EVENT_ELISION)
                assert_int_equal(e[2], 1);
        }
        tg_state_free(s);
    }
    free(buf);
}

/* ---- the buffer contract ------------------------------------------------------------------ */

static void test_buffer_contract(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("walak-pussa");
    uint32_t buf[8 * TG_EVENT_FIELDS];
    size_t count = 77;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_story(s, 0, NULL, 0, &count));
    assert_int_equal(count, 77);
    tu_play(s, "a1");
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_story(NULL, 0, NULL, 0, &count));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_story(s, 0, NULL, 0, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_story(s, 0, NULL, 3, &count));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_story(s, 1, NULL, 0, &count));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_story(s, SIZE_MAX, buf, 8, &count));
    assert_int_equal(count, 77);
    TU_OK(tg_state_story(s, 0, NULL, 0, &count));
    assert_true(count > 8);
    size_t needed = count;
    memset(buf, 0xAB, sizeof buf);
    count = 0;
    TU_STATUS(TG_ERR_BUFFER_TOO_SMALL, tg_state_story(s, 0, buf, 8, &count));
    assert_int_equal(count, needed);
    for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
        assert_int_equal(buf[i], 0xABABABABu);
    /* A story does not change the state. */
    char *text = tu_str(s);
    uint32_t *all = malloc(needed * TG_EVENT_FIELDS * sizeof *all);
    assert_non_null(all);
    TU_OK(tg_state_story(s, 0, all, needed, &count));
    char *again = tu_str(s);
    assert_string_equal(text, again);
    free(all);
    free(text);
    free(again);
    tg_state_free(s);
}

/* ---- end reasons ------------------------------------------------------------------------ */

static void test_end_reason_names(void **unused)
{
    (void)unused;
    static const char *const names[] = {"none",        "unknown",      "no-move",    "empty-row",
                                        "store-short", "all-captured", "all-across", "blocked",
                                        "quiet",       "endless"};
    for (int r = 0; r <= TG_END_ENDLESS; r++)
        assert_string_equal(tg_end_reason_name((tg_end_reason)r), names[r]);
    assert_string_equal(tg_end_reason_name((tg_end_reason)10), "invalid");
    assert_string_equal(tg_end_reason_name((tg_end_reason)-1), "invalid");
    assert_int_equal(tg_state_end_reason(NULL), TG_END_NONE);
    tg_state *s = tu_new("hus");
    assert_int_equal(tg_state_end_reason(s), TG_END_NONE);
    tg_state_free(s);
}

struct reason_case {
    const char *text;
    tg_end_reason want;
};

/* Finished positions read from strings: the one ending that fits, or unknown. */
static const struct reason_case from_strings[] = {
    /* Halusa: an emptied board with the count short of the limit: only the own end. */
    {"halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=0",
     TG_END_NO_MOVE},
    /* ... with the count at the limit: the quiet end fits too. */
    {"halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=100 winner=0",
     TG_END_UNKNOWN},
    {"walak-pussa:rounds=single,laps=10000,quiet=100 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 26,30 quiet=0 "
     "winner=1",
     TG_END_EMPTY_ROW},
    {"walak-pussa:rounds=match,laps=10000,quiet=100 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 54,2 round=3 "
     "dead=- reserve=0,0 starter=0 quiet=0 winner=0",
     TG_END_STORE_SHORT},
    /* An endless move leaves the board as it was: a board a move can be played from. */
    {"walak-pussa:rounds=single,laps=10000,quiet=100 2,5,3,4,2,5,6/3,2,1,5,4,3,2 - 3,6 quiet=7 "
     "winner=1",
     TG_END_ENDLESS},
    {"hus:width=8,laps=10000,quiet=100 2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/1,1,1,1,1,1,1,1/"
     "1,1,1,1,1,1,1,1 - 16,32 quiet=5 winner=1",
     TG_END_NO_MOVE},
    {"tab:width=13 .,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,./"
     "x,x,x,x,x,x,x,x,x,x,x,x,x/.,.,.,.,.,.,.,.,.,.,.,.,. - 13,0 throws=- winner=0",
     TG_END_ALL_CAPTURED},
    {"tab:width=13 "
     "x,x,x,x,x,x,x,x,x,x,x,x,x/.,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,./"
     "o,o,o,o,o,o,o,o,o,o,o,o,o - 0,0 throws=- winner=draw",
     TG_END_ALL_ACROSS},
    {"hus:width=8,laps=10000,quiet=100 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/0,0,0,0,2,2,2,2/"
     "2,2,2,2,2,2,2,2 - 24,24 quiet=100 winner=draw",
     TG_END_QUIET},
};

static void test_end_reason_from_strings(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof from_strings / sizeof from_strings[0]; i++) {
        tg_state *s = tu_from_text(from_strings[i].text);
        if (tg_state_end_reason(s) != from_strings[i].want)
            TU_FAIL("\"%s\": %s, expected %s", from_strings[i].text,
                    tg_end_reason_name(tg_state_end_reason(s)),
                    tg_end_reason_name(from_strings[i].want));
        tg_state_free(s);
    }
}

/* The history decides where the position alone cannot: the same finished position from play
 * names its ending; a copy (no history) falls back on the position. */
static void test_end_reason_from_play(void **unused)
{
    (void)unused;
    tg_state *s = tu_from_text("walak-pussa:rounds=single,laps=10000,quiet=100 "
                               "2,5,3,4,2,5,6/3,2,1,5,4,3,2 0 3,6 quiet=7");
    tu_play(s, "d1");
    assert_int_equal(tg_state_end_reason(s), TG_END_ENDLESS);
    tg_state *c = tu_new("walak-pussa");
    TU_OK(tg_state_copy(c, s));
    assert_int_equal(tg_state_end_reason(c), TG_END_ENDLESS);
    tg_state_free(c);
    tg_state_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end_reason_names),
        cmocka_unit_test(test_buffer_contract),
        cmocka_unit_test(test_halusa_chain),
        cmocka_unit_test(test_walak_pussa_opening),
        cmocka_unit_test(test_walak_pussa_round_change),
        cmocka_unit_test(test_tab_unlock),
        cmocka_unit_test(test_tab_capture),
        cmocka_unit_test(test_tab_kings),
        cmocka_unit_test(test_hus_capture_resown),
        cmocka_unit_test(test_endless_bounded),
        cmocka_unit_test(test_hundred_laps_whole),
        cmocka_unit_test(test_end_reason_from_strings),
        cmocka_unit_test(test_end_reason_from_play),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The prover (`prove` specs of tg_search): its values against an exhaustive minimax written
 * here over the public API on small endgames from random games (Halusa, Walak-pussa, Hus,
 * Hawalis, draws among them), a budget too small to prove anything, and errors that change
 * nothing: bad specs, a game with throws, a finished game. */
#include "test_util.h"

#include <stdlib.h>

#define MAX_OPTIONS 512
#define MEMO_BITS 20

/* ---- exhaustive minimax ------------------------------------------------------------------ */

/* Values of player 0 (1 won, 0 drawn, -1 lost) by position hash, and the positions on the
 * path (a repetition is a cycle the minimax does not value). */
struct memo {
    uint64_t key[1u << MEMO_BITS];
    int8_t value[1u << MEMO_BITS]; /* 0 empty, else value + 2 */
    uint64_t path[4096];
    int depth;
    size_t filled;
};

static int8_t *memo_slot(struct memo *m, uint64_t key)
{
    size_t mask = ((size_t)1 << MEMO_BITS) - 1;
    for (size_t i = (size_t)key & mask;; i = (i + 1) & mask)
        if (!m->value[i] || m->key[i] == key) {
            m->key[i] = key;
            return &m->value[i];
        }
}

/* Player 0's value of s, or false if a line repeats a position, runs deeper than the path
 * holds or fills the memo (the position is then left out). */
static bool minimax(struct memo *m, tg_state *s, int *value)
{
    if (tg_state_is_terminal(s)) {
        int w = tg_state_winner(s);
        *value = w == 0 ? 1 : w == 1 ? -1 : 0;
        return true;
    }
    uint64_t key = tg_state_hash(s);
    int8_t *slot = memo_slot(m, key);
    if (*slot) {
        *value = *slot - 2;
        return true;
    }
    for (int d = 0; d < m->depth; d++)
        if (m->path[d] == key)
            return false;
    if (m->depth == (int)(sizeof m->path / sizeof m->path[0]) ||
        m->filled > ((size_t)1 << MEMO_BITS) / 2)
        return false;
    m->path[m->depth++] = key;
    tg_move moves[MAX_OPTIONS];
    size_t n = tu_moves(s, moves, MAX_OPTIONS);
    int player = tg_state_player(s), best = player == 0 ? -2 : 2;
    bool known = true;
    for (size_t i = 0; i < n && known; i++) {
        int v;
        TU_OK(tg_state_apply(s, moves[i]));
        known = minimax(m, s, &v);
        TU_OK(tg_state_undo(s));
        if (known && (player == 0 ? v > best : v < best))
            best = v;
    }
    m->depth--;
    if (!known)
        return false;
    /* A slot may have moved since: look it up again. */
    *memo_slot(m, key) = (int8_t)(best + 2);
    m->filled++;
    *value = best;
    return true;
}

/* ---- positions ---------------------------------------------------------------------------- */

static int counters_on_board(const tg_state *s)
{
    const tg_rules *r = tg_state_rules(s);
    int total = 0;
    for (int row = 0; row < tg_rules_rows(r); row++)
        for (int col = 0; col < tg_rules_cols(r); col++)
            total += tg_state_count(s, row, col);
    return total;
}

/* The counters that measure how late a game is: those on the board where captures take them
 * off it, the weaker player's where they stay on it (Hus: a player's counters are the score). */
static int material(const tg_state *s)
{
    if (strncmp(tg_rules_spec(tg_state_rules(s)), "hus", 3) != 0)
        return counters_on_board(s);
    int a = tg_state_score(s, 0), b = tg_state_score(s, 1);
    return a < b ? a : b;
}

/* A running position of `rules` from random play, reached when its material (above) is first
 * at most `counters`; NULL if the game ended first. */
static tg_state *endgame(const char *rules, uint64_t seed, int counters)
{
    tg_state *s = tu_new(rules);
    while (!tg_state_is_terminal(s) && material(s) > counters)
        TU_OK(tg_state_apply_random(s, &seed));
    if (tg_state_is_terminal(s)) {
        tg_state_free(s);
        return NULL;
    }
    return s;
}

struct tally {
    size_t positions, moves, known, proven, draws, wins, losses;
};

/* Every move of s: the prover's proven values must be the minimax's, and with `all` every
 * move the minimax values must be proven. */
static void compare(struct memo *m, tg_search *h, tg_state *s, bool all, struct tally *t)
{
    uint64_t rng = 0;
    TU_OK(tg_search_analyse(h, s, &rng));
    size_t n = tg_search_result_count(h);
    int me = tg_state_player(s);
    uint64_t nodes = 0;
    TU_OK(tg_search_stats(h, &nodes, NULL));
    assert_true(nodes > 0 || n > 0);
    for (size_t i = 0; i < n; i++) {
        tg_move mv;
        double v;
        bool proven;
        TU_OK(tg_search_result(h, i, &mv, &v, &proven));
        TU_OK(tg_state_apply(s, mv));
        int exact0;
        memset(m->value, 0, sizeof m->value);
        m->filled = 0;
        m->depth = 0;
        bool known = minimax(m, s, &exact0);
        TU_OK(tg_state_undo(s));
        t->moves++;
        if (!known) {
            if (!proven)
                assert_true(v == 0.0);
            continue;
        }
        int exact = me == 0 ? exact0 : -exact0;
        t->known++;
        if (proven && v != (double)exact) {
            char *text = tu_str(s);
            TU_FAIL("%s: move %u proven %.0f, minimax %d", text, mv, v, exact);
        }
        if (all && !proven) {
            char *text = tu_str(s);
            TU_FAIL("%s: move %u not proven; minimax %d", text, mv, exact);
        }
        t->proven += proven;
        t->draws += proven && exact == 0;
        t->wins += proven && exact == 1;
        t->losses += proven && exact == -1;
    }
    t->positions++;
}

/* `positions` endgames of `rules`; of their moves at least `known_percent` % valued by the
 * minimax (Hus keeps its counters on the board: many of its lines outgrow the memo or repeat). */
static void agree_on(const char *rules, int counters, int positions, int known_percent,
                     const char *spec)
{
    struct memo *m = calloc(1, sizeof *m);
    assert_non_null(m);
    tg_search *h = tu_search_new(spec);
    struct tally t = {0, 0, 0, 0, 0, 0, 0};
    /* Under emulation a tenth, but at least 10: the share the minimax values needs that many. */
    const int least = positions < 10 ? positions : 10;
    positions = tu_battery(positions) > least ? tu_battery(positions) : least;
    for (uint64_t seed = 1; t.positions < (size_t)positions && seed < 2000; seed++) {
        tg_state *s = endgame(rules, seed, counters);
        if (!s)
            continue;
        compare(m, h, s, true, &t);
        tg_state_free(s);
    }
    printf("# %-14s <=%d counters: %zu positions, %zu moves, %zu valued by the minimax, all "
           "proven: %zu won, %zu drawn, %zu lost\n",
           rules, counters, t.positions, t.moves, t.known, t.wins, t.draws, t.losses);
    assert_int_equal(t.positions, positions);
    /* Every move the minimax values is proven (compare() checks each); most are valued. */
    assert_int_equal(t.proven, t.known);
    assert_true(t.known * 100 >= t.moves * (size_t)known_percent);
    tg_search_free(h);
    free(m);
}

static void test_halusa_endgames(void **unused)
{
    (void)unused;
    agree_on("halusa:quiet=12", 8, 60, 75, "prove:nodes=200000,tt=4");
}

static void test_halusa_draws(void **unused)
{
    (void)unused;
    /* Draws need equal scores: the remainder to its owner makes them common. */
    struct memo *m = calloc(1, sizeof *m);
    assert_non_null(m);
    tg_search *h = tu_search_new("prove:nodes=200000,tt=4");
    struct tally t = {0, 0, 0, 0, 0, 0, 0};
    const size_t draws = (size_t)tu_battery(10);
    for (uint64_t seed = 1; seed < 400 && t.draws < draws; seed++) {
        tg_state *s = endgame("halusa:remainder=owner,quiet=12", seed, 8);
        if (!s)
            continue;
        compare(m, h, s, true, &t);
        tg_state_free(s);
    }
    printf("# draws: %zu of %zu proven moves, %zu positions\n", t.draws, t.proven, t.positions);
    assert_true(t.draws >= draws);
    tg_search_free(h);
    free(m);
}

static void test_walak_pussa_endgames(void **unused)
{
    (void)unused;
    agree_on("walak-pussa:quiet=12", 7, 40, 75, "prove:nodes=200000,tt=4");
}

static void test_hus_endgames(void **unused)
{
    (void)unused;
    agree_on("hus:quiet=12", 8, 20, 40, "prove:nodes=1000000,tt=4");
}

static void test_hawalis_endgames(void **unused)
{
    (void)unused;
    agree_on("hawalis:quiet=12", 6, 20, 75, "prove:nodes=1000000,tt=4");
}

/* A bound on the lines (depth=) leaves what needs longer lines unknown, never wrong; where the
 * bound cut a line, draws are proven by each side's "does not lose" (its disproofs are not
 * used), so this exercises that goal too. */
static void test_depth_bound(void **unused)
{
    (void)unused;
    struct memo *m = calloc(1, sizeof *m);
    assert_non_null(m);
    tg_search *h = tu_search_new("prove:nodes=200000,tt=4,depth=18");
    tg_search *shallow = tu_search_new("prove:nodes=200000,tt=4,depth=2");
    struct tally t = {0, 0, 0, 0, 0, 0, 0}, s2 = {0, 0, 0, 0, 0, 0, 0};
    const size_t draws = (size_t)tu_battery(10);
    for (uint64_t seed = 1; seed < 400 && t.draws < draws; seed++) {
        tg_state *s = endgame("halusa:remainder=owner,quiet=12", seed, 8);
        if (!s)
            continue;
        compare(m, h, s, false, &t);
        compare(m, shallow, s, false, &s2);
        tg_state_free(s);
    }
    printf("# depth=18: %zu of %zu moves proven, %zu draws; depth=2: %zu proven\n", t.proven,
           t.known, t.draws, s2.proven);
    assert_true(t.draws >= draws);
    assert_true(s2.proven < t.proven);
    tg_search_free(shallow);
    tg_search_free(h);
    free(m);
}

/* A budget too small to prove a move leaves it unknown (0, not proven): never a wrong value. */
static void test_small_budget(void **unused)
{
    (void)unused;
    struct memo *m = calloc(1, sizeof *m);
    assert_non_null(m);
    tg_search *h = tu_search_new("prove:nodes=3");
    struct tally t = {0, 0, 0, 0, 0, 0, 0};
    for (uint64_t seed = 1; t.positions < (size_t)tu_battery(20); seed++) {
        tg_state *s = endgame("halusa:quiet=12", seed, 10);
        if (!s)
            continue;
        compare(m, h, s, false, &t);
        uint64_t nodes;
        TU_OK(tg_search_stats(h, &nodes, NULL));
        assert_true(nodes <= 3 + 2 * 6);
        tg_state_free(s);
    }
    assert_true(t.proven < t.moves);
    tg_search_free(h);
    free(m);
}

/* The start of Halusa is far beyond a small budget: every move unknown, the positions
 * counted, and choosing returns a legal move. */
static void test_start_unknown(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa");
    tg_search *h = tu_search_new("prove:nodes=1000");
    uint64_t rng = 0;
    TU_OK(tg_search_analyse(h, s, &rng));
    assert_int_equal(tg_search_result_count(h), 6);
    for (size_t i = 0; i < 6; i++) {
        double v;
        bool proven;
        TU_OK(tg_search_result(h, i, NULL, &v, &proven));
        assert_false(proven);
        assert_true(v == 0.0);
    }
    uint64_t nodes;
    uint32_t depth;
    TU_OK(tg_search_stats(h, &nodes, &depth));
    assert_true(nodes >= 990 && nodes <= 1000 + 12);
    assert_int_equal(depth, 0);
    tg_move m;
    TU_OK(tg_search_choose(h, s, &rng, &m));
    assert_true(tg_state_is_legal(s, m));
    TU_OK(tg_bot_choose(s, "prove:nodes=100", &rng, &m));
    assert_true(tg_state_is_legal(s, m));
    tg_search_free(h);
    tg_state_free(s);
}

/* A proven win is chosen: the position's only winning move. */
static void test_choose_plays_the_win(void **unused)
{
    (void)unused;
    struct memo *m = calloc(1, sizeof *m);
    assert_non_null(m);
    tg_search *h = tu_search_new("prove:nodes=200000,tt=4");
    size_t checked = 0;
    for (uint64_t seed = 1; seed < 300 && checked < 10; seed++) {
        tg_state *s = endgame("halusa:quiet=12", seed, 8);
        if (!s)
            continue;
        tg_move moves[MAX_OPTIONS];
        size_t n = tu_moves(s, moves, MAX_OPTIONS);
        int me = tg_state_player(s), wins = 0;
        for (size_t i = 0; i < n; i++) {
            int v;
            TU_OK(tg_state_apply(s, moves[i]));
            memset(m->value, 0, sizeof m->value);
            m->filled = 0;
            m->depth = 0;
            bool known = minimax(m, s, &v);
            TU_OK(tg_state_undo(s));
            wins += known && (me == 0 ? v : -v) == 1;
        }
        if (wins > 0) {
            uint64_t rng = 0;
            tg_move choice;
            TU_OK(tg_search_choose(h, s, &rng, &choice));
            TU_OK(tg_state_apply(s, choice));
            int v;
            memset(m->value, 0, sizeof m->value);
            m->filled = 0;
            m->depth = 0;
            assert_true(minimax(m, s, &v));
            assert_int_equal(me == 0 ? v : -v, 1);
            checked++;
        }
        tg_state_free(s);
    }
    assert_true(checked >= 5);
    tg_search_free(h);
    free(m);
}

static void test_errors(void **unused)
{
    (void)unused;
    static const char *const bad[] = {
        "prove:nodes=0", "prove:depth=0", "prove:depth=1001", "prove:iterations=10", "prove:nodes=", "prove:",
        "prove:nodes=5,nodes=6", "prove:tt=0", "prove:tt=2000", "prove:c=1", "proven",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_search *h = (tg_search *)&bad; /* a sentinel the call must leave alone */
        if (tg_search_new(bad[i], &h) != TG_ERR_BAD_OPTION || h != (tg_search *)&bad)
            TU_FAIL("tg_search_new(%s) was not refused", bad[i]);
        if (tg_bot_check(bad[i]) != TG_ERR_BAD_OPTION)
            TU_FAIL("tg_bot_check(%s) was not refused", bad[i]);
    }
    TU_OK(tg_bot_check("prove"));
    TU_OK(tg_bot_check("prove:nodes=10,tt=2,time=50"));

    /* A game with throws: refused, nothing kept, the generator unchanged. */
    tg_search *h = tu_search_new("prove:nodes=1000");
    tg_state *tab = tu_new("tab");
    uint64_t rng = 77;
    tg_move m = 0xA5A5A5A5u;
    TU_STATUS(TG_ERR_BAD_OPTION, tg_search_analyse(h, tab, &rng));
    assert_int_equal(tg_search_result_count(h), 0);
    TU_STATUS(TG_ERR_BAD_OPTION, tg_search_choose(h, tab, &rng, &m));
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_choose(tab, "prove", &rng, &m));
    assert_int_equal(rng, 77);
    assert_int_equal(m, 0xA5A5A5A5u);
    tg_state_free(tab);

    /* A finished game: refused, and the handle still works. */
    tg_state *s = tu_new("halusa:quiet=12");
    uint64_t seed = 5;
    while (!tg_state_is_terminal(s))
        TU_OK(tg_state_apply_random(s, &seed));
    TU_STATUS(TG_ERR_GAME_OVER, tg_search_analyse(h, s, &rng));
    TU_OK(tg_state_undo(s));
    TU_OK(tg_search_analyse(h, s, &rng));
    assert_true(tg_search_result_count(h) > 0);
    tg_state_free(s);
    tg_search_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_start_unknown),
        cmocka_unit_test(test_small_budget),
        cmocka_unit_test(test_choose_plays_the_win),
        cmocka_unit_test(test_halusa_endgames),
        cmocka_unit_test(test_halusa_draws),
        cmocka_unit_test(test_depth_bound),
        cmocka_unit_test(test_walak_pussa_endgames),
        cmocka_unit_test(test_hus_endgames),
        cmocka_unit_test(test_hawalis_endgames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

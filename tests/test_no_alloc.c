/* No allocation on the hot paths (issue 10). This test is linked with the library's sources
 * compiled with -DTG_ALLOC_FAIL_INJECTION (see tests/meson.build), which makes lib/alloc.c
 * count every allocation (every tg__realloc() call with a size above 0, the one path of the
 * library to the heap): tg__alloc_fail_arm(0) resets the count and arms no failure, and
 * tg__alloc_calls() reads it. The test's own malloc() calls and cmocka's do not go through
 * tg__realloc(), so they are never counted.
 *
 * What is proved, for every game at its defaults and under hus:width=16,
 * hawalis:variant=zanzibar, tab:width=29 and walak-pussa:rounds=match:
 *   - over whole random games (thousands of calls each), these make no allocation at all:
 *     tg_state_moves, tg_state_chance, tg_state_is_legal, tg_state_apply and
 *     tg_state_apply_random once the history has room, tg_state_undo, tg_state_copy,
 *     tg_state_playout, tg_perft, tg_state_hash, tg_state_equal, tg_move_to_string,
 *     tg_move_from_string, tg_state_to_string, tg_state_render, tg_state_history, the
 *     read-only queries, and tg_bot_choose with "random" and "greedy";
 *   - tg_state_apply grows the history geometrically: from a state with an empty history,
 *     reaching a history depth of d costs exactly growths(d) allocations (below), however
 *     many apply/undo calls it takes;
 *   - tg_bot_choose with "mcts:iterations=50" makes exactly one allocation (its tree) when
 *     the side to move has two or more decisions, and none otherwise;
 *   - the counter itself works (creating rules and states counts), so that the zero
 *     assertions cannot pass vacuously. */
#include "test_util.h"

#include "internal.h" /* the test-only hooks tg__alloc_fail_arm() and tg__alloc_calls() */

#ifndef TG_ALLOC_FAIL_INJECTION
#error "build this test with -DTG_ALLOC_FAIL_INJECTION"
#endif

static const char *const specs[] = {
    "halusa",       "hus",
    "hawalis",      "walak-pussa",
    "tab",          "hus:width=16",
    "hawalis:variant=zanzibar", "tab:width=29",
    "walak-pussa:rounds=match",
};
#define SPEC_COUNT (sizeof specs / sizeof specs[0])

#define MAX_MOVES 512  /* TG__MAX_MOVES: above tg_rules_max_moves() of every rule set */
#define GAMES 3        /* whole random games per rule set in the zero-allocation run */
#define TEXT_MAX 16384 /* position strings and renderings; checked with the measured size */
#define HISTORY_MAX 65536

/* ---- counting -------------------------------------------------------------------------- */

/* Resets the library's allocation counter. Arming 0 arms no failure, but every allocation
 * is still counted (lib/alloc.c counts before it looks at the countdown), so nothing the
 * test does can fail because of the counter. */
static void count_reset(void)
{
    tg__alloc_fail_arm(0);
}

static size_t counted(void)
{
    return tg__alloc_calls();
}

/* The history growth of lib/state.c (tg__state_push): the first push into an empty history
 * allocates FIRST_BLOCK entries, and each push into a full history doubles it. A state whose
 * history capacity is 0 (tg_state_new, tg_state_from_string) therefore allocates once when its
 * history first reaches depth 1, 9, 17, 33, ..., 8 * 2^k + 1: reaching depth d costs
 *     growths(0) = 0,  growths(d) = 1 + ceil(log2(d / 8))  (d > 0; the log term is 0 for d <= 8)
 * allocations in all, whatever the number of apply and undo calls in between, since undo,
 * tg_state_copy and tg_state_playout keep the capacity. */
enum { FIRST_BLOCK = 8 };

static size_t growths(size_t depth)
{
    if (depth == 0)
        return 0;
    size_t n = 1;
    for (size_t cap = FIRST_BLOCK; cap < depth; cap *= 2)
        n++;
    return n;
}

/* ceil(log2(x)) for x >= 1, independently of growths(): the bound the issue states. */
static size_t ceil_log2(double x)
{
    size_t k = 0;
    while ((double)((size_t)1 << k) < x)
        k++;
    return k;
}

/* One counter per function (or group) checked for zero allocations. */
enum fn {
    F_MOVES,
    F_CHANCE,
    F_IS_LEGAL,
    F_APPLY,
    F_UNDO,
    F_APPLY_RANDOM,
    F_COPY,
    F_PLAYOUT,
    F_PERFT,
    F_HASH,
    F_EQUAL,
    F_MOVE_TO_STRING,
    F_MOVE_FROM_STRING,
    F_TO_STRING,
    F_RENDER,
    F_HISTORY,
    F_QUERIES,
    F_BOT_RANDOM,
    F_BOT_GREEDY,
    F_COUNT
};

static const char *const fn_names[F_COUNT] = {
    "tg_state_moves",      "tg_state_chance",        "tg_state_is_legal",
    "tg_state_apply",      "tg_state_undo",          "tg_state_apply_random",
    "tg_state_copy",       "tg_state_playout",       "tg_perft",
    "tg_state_hash",       "tg_state_equal",         "tg_move_to_string",
    "tg_move_from_string", "tg_state_to_string",     "tg_state_render",
    "tg_state_history",
    "queries (player, turn, terminal, winner, score, returns, ply, count, owner, flags, rules)",
    "tg_bot_choose random", "tg_bot_choose greedy",
};

struct tally {
    size_t allocs[F_COUNT]; /* allocations counted during the calls */
    size_t calls[F_COUNT];  /* calls made */
};

/* Runs the call (one expression, or a block: hence variadic, for its commas) and books its
 * allocations under `fn`. */
#define COUNT(t, fn, ...)                                                                      \
    do {                                                                                       \
        size_t count_before_ = counted();                                                      \
        __VA_ARGS__;                                                                           \
        (t)->allocs[fn] += counted() - count_before_;                                          \
        (t)->calls[fn]++;                                                                      \
    } while (0)

/* ---- the counter works ----------------------------------------------------------------- */

static void test_counter_counts(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        count_reset();
        tg_rules *r = tu_rules(specs[i]);
        assert_true(counted() >= 1);

        count_reset();
        tg_state *s = NULL;
        TU_OK(tg_state_new(r, &s));
        if (counted() < 1)
            TU_FAIL("%s: tg_state_new counted %zu allocations", specs[i], counted());

        uint64_t rng = 5;
        TU_OK(tg_state_apply_random(s, &rng));
        count_reset();
        tg_state *c = NULL;
        TU_OK(tg_state_clone(s, &c));
        if (counted() < 1)
            TU_FAIL("%s: tg_state_clone counted %zu allocations", specs[i], counted());

        /* The first apply on a fresh state allocates the history: the counter sees
         * tg_state_apply itself, so zero elsewhere is not the counter being blind. */
        tg_state *f = NULL;
        TU_OK(tg_state_new(r, &f));
        tg_move m[MAX_MOVES];
        double p[MAX_MOVES];
        size_t n = 0;
        if (tg_state_player(f) == TG_CHANCE)
            TU_OK(tg_state_chance(f, m, p, MAX_MOVES, &n));
        else
            n = tu_moves(f, m, MAX_MOVES);
        assert_true(n > 0);
        count_reset();
        TU_OK(tg_state_apply(f, m[0]));
        if (counted() != 1)
            TU_FAIL("%s: the first tg_state_apply on a new state counted %zu allocations, "
                    "expected 1 (the history)",
                    specs[i], counted());

        tg_state_free(f);
        tg_state_free(c);
        tg_state_free(s);
        tg_rules_free(r);
    }
    count_reset();
}

/* ---- zero allocations over whole games ------------------------------------------------- */

/* The game trajectory of game g of a rule set: even plies by tg_state_apply_random, odd plies
 * by tg_state_apply of an option drawn by the test, both from `walk` only. Returns the length. */
static size_t advance(tg_state *s, uint64_t *walk, struct tally *t)
{
    if (tg_state_ply(s) % 2 == 0) {
        tg_status st;
        COUNT(t, F_APPLY_RANDOM, st = tg_state_apply_random(s, walk));
        TU_OK(st);
        return 1;
    }
    tg_move m[MAX_MOVES];
    double p[MAX_MOVES];
    size_t n = tu_options(s, m, p, MAX_MOVES);
    assert_true(n > 0);
    tg_move pick = m[tu_splitmix64(walk) % n];
    tg_status st;
    COUNT(t, F_APPLY, st = tg_state_apply(s, pick));
    TU_OK(st);
    return 1;
}

static uint64_t game_seed(size_t spec, size_t g)
{
    return UINT64_C(0x5EED0000) + spec * 100 + g;
}

/* Every function under test, many times, at the current position of s. */
static void exercise(tg_state *s, tg_state *scratch, struct tally *t, uint64_t *bot_rng,
                     size_t ply)
{
    static char text[TEXT_MAX];
    static tg_move hist[HISTORY_MAX];
    tg_move m[MAX_MOVES];
    double p[MAX_MOVES];
    size_t n = 0, needed = 0;
    tg_status st;
    const tg_rules *r = tg_state_rules(s);
    size_t max_moves = tg_rules_max_moves(r);

    /* Queries. */
    COUNT(t, F_QUERIES, {
        (void)tg_state_player(s);
        (void)tg_state_turn(s);
        (void)tg_state_is_terminal(s);
        (void)tg_state_winner(s);
        (void)tg_state_score(s, 0);
        (void)tg_state_score(s, 1);
        double ret[2];
        TU_OK(tg_state_returns(s, ret));
        (void)tg_state_ply(s);
        (void)tg_rules_spec(tg_state_rules(s));
        int rows = tg_rules_rows(r), cols = tg_rules_cols(r);
        for (int row = 0; row < rows; row++)
            for (int col = 0; col < cols; col++) {
                (void)tg_state_count(s, row, col);
                (void)tg_state_owner(s, row, col);
                (void)tg_state_flags(s, row, col);
            }
    });

    /* Moves and chance: measured, then written. */
    COUNT(t, F_MOVES, st = tg_state_moves(s, NULL, 0, &n));
    TU_OK(st);
    COUNT(t, F_MOVES, st = tg_state_moves(s, m, MAX_MOVES, &n));
    TU_OK(st);
    size_t decisions = n;
    COUNT(t, F_CHANCE, st = tg_state_chance(s, NULL, NULL, 0, &n));
    TU_OK(st);
    COUNT(t, F_CHANCE, st = tg_state_chance(s, m + decisions, p, MAX_MOVES - decisions, &n));
    TU_OK(st);
    size_t total = decisions + n; /* one of the two is 0 */
    assert_true(total > 0);

    /* Legality: every option, and values around them that are mostly illegal. */
    for (size_t i = 0; i < total; i++)
        COUNT(t, F_IS_LEGAL, assert_true(tg_state_is_legal(s, m[i])));
    for (tg_move v = 0; v < 24; v++)
        COUNT(t, F_IS_LEGAL, (void)tg_state_is_legal(s, v));
    for (tg_move v = 24; v < 2 * max_moves + 8; v += 7)
        COUNT(t, F_IS_LEGAL, (void)tg_state_is_legal(s, v));
    COUNT(t, F_IS_LEGAL, (void)tg_state_is_legal(s, TG_MOVE_PASS));
    COUNT(t, F_IS_LEGAL, (void)tg_state_is_legal(s, UINT32_MAX));

    /* Notation of every option, measured, written and read back. */
    for (size_t i = 0; i < total; i++) {
        char mv[64];
        COUNT(t, F_MOVE_TO_STRING, st = tg_move_to_string(s, m[i], NULL, 0, &needed));
        TU_OK(st);
        COUNT(t, F_MOVE_TO_STRING, st = tg_move_to_string(s, m[i], mv, sizeof mv, &needed));
        TU_OK(st);
        tg_move back = 0;
        COUNT(t, F_MOVE_FROM_STRING, st = tg_move_from_string(s, mv, &back));
        TU_OK(st);
        assert_int_equal(back, m[i]);
    }
    tg_move junk = 0;
    COUNT(t, F_MOVE_FROM_STRING, (void)tg_move_from_string(s, "zz99+77", &junk));

    /* Position text and rendering. */
    COUNT(t, F_TO_STRING, st = tg_state_to_string(s, NULL, 0, &needed));
    TU_OK(st);
    assert_true(needed < TEXT_MAX);
    COUNT(t, F_TO_STRING, st = tg_state_to_string(s, text, TEXT_MAX, &needed));
    TU_OK(st);
    COUNT(t, F_TO_STRING, st = tg_state_to_string(s, text, 1, &needed));
    TU_STATUS(TG_ERR_BUFFER_TOO_SMALL, st);
    COUNT(t, F_RENDER, st = tg_state_render(s, NULL, 0, &needed));
    TU_OK(st);
    assert_true(needed < TEXT_MAX);
    COUNT(t, F_RENDER, st = tg_state_render(s, text, TEXT_MAX, &needed));
    TU_OK(st);
    COUNT(t, F_HISTORY, st = tg_state_history(s, NULL, 0, &n));
    TU_OK(st);
    assert_true(n <= HISTORY_MAX);
    COUNT(t, F_HISTORY, st = tg_state_history(s, hist, HISTORY_MAX, &n));
    TU_OK(st);

    /* Hash and equality, against a copy. */
    uint64_t h;
    COUNT(t, F_HASH, h = tg_state_hash(s));
    COUNT(t, F_COPY, st = tg_state_copy(scratch, s));
    TU_OK(st);
    COUNT(t, F_EQUAL, assert_true(tg_state_equal(s, scratch)));
    COUNT(t, F_HASH, assert_true(tg_state_hash(scratch) == h));
    COUNT(t, F_COPY, st = tg_state_copy(scratch, scratch)); /* onto itself */
    TU_OK(st);

    /* Every option applied and taken back (the history has room: see test_zero). */
    for (size_t i = 0; i < total; i++) {
        COUNT(t, F_APPLY, st = tg_state_apply(s, m[i]));
        TU_OK(st);
        COUNT(t, F_HASH, (void)tg_state_hash(s));
        COUNT(t, F_EQUAL, (void)tg_state_equal(s, scratch));
        COUNT(t, F_UNDO, st = tg_state_undo(s));
        TU_OK(st);
    }
    COUNT(t, F_EQUAL, assert_true(tg_state_equal(s, scratch)));
    COUNT(t, F_APPLY, st = tg_state_apply(s, UINT32_MAX)); /* a rejected move */
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, st);

    /* A random move made and taken back. */
    uint64_t r2 = *bot_rng;
    COUNT(t, F_APPLY_RANDOM, st = tg_state_apply_random(s, &r2));
    TU_OK(st);
    COUNT(t, F_UNDO, st = tg_state_undo(s));
    TU_OK(st);

    /* The bots that allocate nothing. */
    tg_move choice;
    COUNT(t, F_BOT_RANDOM, st = tg_bot_choose(s, "random", bot_rng, &choice));
    TU_OK(st);
    COUNT(t, F_BOT_GREEDY, st = tg_bot_choose(s, "greedy", bot_rng, &choice));
    TU_OK(st);

    /* Playouts on the scratch state (copied first: the copy allocates nothing either); and
     * perft. Less often deep into the long games (Tab, Walak-pussa matches), to stay fast. */
    size_t every = ply < 256 ? 8 : 64;
    if (ply % every == 0) {
        size_t plies = 0;
        COUNT(t, F_COPY, st = tg_state_copy(scratch, s));
        TU_OK(st);
        COUNT(t, F_PLAYOUT, st = tg_state_playout(scratch, bot_rng, SIZE_MAX, &plies));
        TU_OK(st);
        COUNT(t, F_COPY, st = tg_state_copy(scratch, s));
        TU_OK(st);
        COUNT(t, F_PLAYOUT, st = tg_state_playout(scratch, bot_rng, 10, NULL));
        TU_OK(st);
        COUNT(t, F_PLAYOUT, st = tg_state_playout(scratch, bot_rng, 0, &plies));
        TU_OK(st);
    }

    /* perft: depth 3 at the start of the game, depth 2 at every second playout position. */
    if (ply % (2 * every) == 0) {
        uint64_t leaves;
        COUNT(t, F_PERFT, leaves = tg_perft(s, ply == 0 ? 3 : 2));
        assert_true(leaves > 0 || ply > 0);
        COUNT(t, F_PERFT, leaves = tg_perft(s, 0));
        assert_true(leaves == 1);
    }
}

/* The zero-allocation run of one rule set:
 *   1. warm-up: the GAMES trajectories are played from the initial position on one state,
 *      reset by tg_state_copy between games; this grows the history to the longest game, and
 *      must cost exactly growths(longest game) allocations (the amortised growth);
 *   2. the same trajectories again, with every function called at every position; nothing
 *      may allocate, since no history depth is reached that the warm-up did not reach
 *      (exercise() applies one move beyond the current position, which the trajectory
 *      itself does next). */
static void test_zero(void **state)
{
    size_t si = (size_t)(uintptr_t)*state;
    const char *spec = specs[si];
    tg_state *init = tu_new(spec);
    tg_state *s = tu_new(spec);
    tg_state *scratch = tu_new(spec);
    struct tally warm = {{0}, {0}};
    struct tally t = {{0}, {0}};

    /* 1. warm-up */
    size_t longest = 0;
    count_reset();
    for (size_t g = 0; g < GAMES; g++) {
        TU_OK(tg_state_copy(s, init));
        uint64_t walk = game_seed(si, g);
        size_t len = 0;
        while (!tg_state_is_terminal(s))
            len += advance(s, &walk, &warm);
        assert_int_equal(tu_history_len(s), len);
        if (len > longest)
            longest = len;
    }
    size_t warm_allocs = counted();
    if (warm_allocs != growths(longest))
        TU_FAIL("%s: %d games (longest %zu plies) allocated %zu times, expected %zu", spec,
                GAMES, longest, warm_allocs, growths(longest));
    /* The bound, computed independently. */
    size_t bound = 1 + (longest > FIRST_BLOCK ? ceil_log2((double)longest / FIRST_BLOCK) : 0);
    assert_true(warm_allocs <= bound);

    /* 2. counted run */
    size_t positions = 0;
    count_reset();
    for (size_t g = 0; g < GAMES; g++) {
        COUNT(&t, F_COPY, TU_OK(tg_state_copy(s, init)));
        uint64_t walk = game_seed(si, g);
        uint64_t bot_rng = walk ^ UINT64_C(0xB07);
        while (!tg_state_is_terminal(s)) {
            exercise(s, scratch, &t, &bot_rng, tg_state_ply(s));
            positions++;
            advance(s, &walk, &t);
        }
        /* At the end: the terminal position's read-only calls, then back to the start. */
        tg_move choice;
        tg_status st;
        COUNT(&t, F_BOT_RANDOM, st = tg_bot_choose(s, "random", &bot_rng, &choice));
        TU_STATUS(TG_ERR_GAME_OVER, st);
        COUNT(&t, F_BOT_GREEDY, st = tg_bot_choose(s, "greedy", &bot_rng, &choice));
        TU_STATUS(TG_ERR_GAME_OVER, st);
        COUNT(&t, F_APPLY_RANDOM, st = tg_state_apply_random(s, &bot_rng));
        TU_STATUS(TG_ERR_GAME_OVER, st);
        COUNT(&t, F_PERFT, (void)tg_perft(s, 2));
        COUNT(&t, F_PLAYOUT, TU_OK(tg_state_playout(scratch, &bot_rng, 5, NULL)));
        size_t n = 0;
        COUNT(&t, F_MOVES, TU_OK(tg_state_moves(s, NULL, 0, &n)));
        assert_int_equal(n, 0);
        while (tg_state_ply(s) > 0)
            COUNT(&t, F_UNDO, TU_OK(tg_state_undo(s)));
        COUNT(&t, F_UNDO, TU_STATUS(TG_ERR_NO_HISTORY, tg_state_undo(s)));
        COUNT(&t, F_EQUAL, assert_true(tg_state_equal(s, init)));
    }
    size_t total_calls = 0, total_allocs = counted();
    for (int f = 0; f < F_COUNT; f++) {
        total_calls += t.calls[f];
        if (t.allocs[f] != 0)
            print_error("%s: %s allocated %zu times in %zu calls\n", spec, fn_names[f],
                        t.allocs[f], t.calls[f]);
        if (t.calls[f] == 0)
            print_error("%s: %s was never called\n", spec, fn_names[f]);
    }
    printf("# %-26s %d games, longest %4zu plies (warm-up: %zu allocations), %5zu positions, "
           "%7zu calls: %zu allocations\n",
           spec, GAMES, longest, warm_allocs, positions, total_calls, total_allocs);
    for (int f = 0; f < F_COUNT; f++) {
        assert_int_equal(t.allocs[f], 0);
        assert_true(t.calls[f] > 0);
    }
    assert_int_equal(total_allocs, 0);

    tg_state_free(scratch);
    tg_state_free(s);
    tg_state_free(init);
    count_reset();
}

/* ---- the amortised history growth ------------------------------------------------------ */

/* A single line of 10,000 applies (Halusa without its quiet limit: games there can run on
 * for ever): the allocations happen exactly when the depth first reaches 1, 65, 129, ...,
 * and number growths(10000) = 1 + ceil(log2(10000 / 8)) = 12. */
static void test_apply_long_line(void **unused)
{
    (void)unused;
    enum { PLIES = 10000 };
    tg_state *s = NULL;
    for (uint64_t seed = 1;; seed++) {
        assert_true(seed < 1000);
        s = tu_new("halusa:quiet=0");
        uint64_t walk = seed;
        size_t allocs = 0;
        for (size_t d = 0; d < PLIES && !tg_state_is_terminal(s); d++) {
            tg_move m[MAX_MOVES];
            double p[MAX_MOVES];
            size_t n = tu_options(s, m, p, MAX_MOVES);
            tg_move pick = m[tu_splitmix64(&walk) % n];
            count_reset();
            TU_OK(tg_state_apply(s, pick));
            size_t c = counted();
            /* depth d before this push: the history is full at 0 and at 8 * 2^k */
            bool grows = growths(d + 1) != growths(d);
            if (c != (grows ? 1u : 0u))
                TU_FAIL("apply at depth %zu allocated %zu times, expected %d", d, c,
                        grows ? 1 : 0);
            allocs += c;
        }
        if (tg_state_ply(s) < PLIES) { /* this game ended: try another */
            tg_state_free(s);
            continue;
        }
        printf("# one line of %d applies (halusa:quiet=0, seed %llu): %zu allocations "
               "(1 + ceil(log2(%d / %d)) = %zu)\n",
               PLIES, (unsigned long long)seed, allocs, PLIES, FIRST_BLOCK,
               1 + ceil_log2((double)PLIES / FIRST_BLOCK));
        assert_int_equal(allocs, growths(PLIES));
        assert_int_equal(allocs, 1 + ceil_log2((double)PLIES / FIRST_BLOCK));
        assert_true(allocs <= 12);
        /* Taking it all back and replaying a line as deep costs nothing more. */
        count_reset();
        while (tg_state_ply(s) > 0)
            TU_OK(tg_state_undo(s));
        for (size_t d = 0; d < PLIES && !tg_state_is_terminal(s); d++)
            TU_OK(tg_state_apply_random(s, &walk));
        assert_int_equal(counted(), 0);
        break;
    }
    tg_state_free(s);
    count_reset();
}

/* Apply/undo cycles: 10,000 applies from a fresh state of each rule set, as a random walk
 * (two forward, one back, whole games replayed from the start when one ends): the
 * allocations are exactly growths(the deepest history reached), at most 10. */
static void test_apply_undo_cycles(void **unused)
{
    (void)unused;
    enum { APPLIES = 10000 };
    for (size_t si = 0; si < SPEC_COUNT; si++) {
        tg_state *s = tu_new(specs[si]);
        uint64_t walk = 77 + si;
        size_t applies = 0, undos = 0, deepest = 0;
        count_reset();
        while (applies < APPLIES) {
            if (tg_state_is_terminal(s) || (tu_splitmix64(&walk) % 3 == 0 && tg_state_ply(s))) {
                if (tg_state_is_terminal(s) && tu_splitmix64(&walk) % 2 == 0) {
                    while (tg_state_ply(s) > 0) { /* back to the start */
                        TU_OK(tg_state_undo(s));
                        undos++;
                    }
                } else {
                    TU_OK(tg_state_undo(s));
                    undos++;
                }
                continue;
            }
            TU_OK(tg_state_apply_random(s, &walk));
            applies++;
            if (tg_state_ply(s) > deepest)
                deepest = tg_state_ply(s);
        }
        size_t allocs = counted();
        printf("# %-26s %d applies, %zu undos, deepest %4zu: %zu allocations\n", specs[si],
               APPLIES, undos, deepest, allocs);
        assert_int_equal(allocs, growths(deepest));
        assert_true(allocs <= 10);
        tg_state_free(s);
    }
    count_reset();
}

/* ---- mcts: one allocation per search --------------------------------------------------- */

/* Positions per rule set: until MCTS_SEARCHES searches were made (Tab opens with throws and
 * forced moves), within MCTS_PLIES plies. Keeps the test fast under valgrind. */
#define MCTS_SEARCHES 12
#define MCTS_PLIES 200

static void test_mcts_one_allocation(void **unused)
{
    (void)unused;
    for (size_t si = 0; si < SPEC_COUNT; si++) {
        tg_state *s = tu_new(specs[si]);
        uint64_t walk = 900 + si, rng = 31 + si;
        size_t searches = 0, forced = 0, chance = 0;
        for (size_t ply = 0; searches < MCTS_SEARCHES && ply < MCTS_PLIES &&
                             !tg_state_is_terminal(s);
             ply++) {
            size_t n = tu_moves(s, NULL, 0);
            bool searched = tg_state_player(s) != TG_CHANCE && n >= 2;
            tg_move m;
            count_reset();
            TU_OK(tg_bot_choose(s, "mcts:iterations=50", &rng, &m));
            size_t c = counted();
            if (c != (searched ? 1u : 0u))
                TU_FAIL("%s ply %zu (%s, %zu decisions): mcts allocated %zu times, expected %d",
                        specs[si], ply, tg_state_player(s) == TG_CHANCE ? "chance" : "decision",
                        n, c, searched ? 1 : 0);
            assert_true(tg_state_is_legal(s, m));
            if (searched)
                searches++;
            else if (tg_state_player(s) == TG_CHANCE)
                chance++;
            else
                forced++;
            TU_OK(tg_state_apply_random(s, &walk));
        }
        /* A finished game: nothing to choose, nothing allocated. */
        tg_state *end = tu_new(specs[si]);
        while (!tg_state_is_terminal(end))
            TU_OK(tg_state_apply_random(end, &walk));
        tg_move m = 12345;
        count_reset();
        TU_STATUS(TG_ERR_GAME_OVER, tg_bot_choose(end, "mcts:iterations=50", &rng, &m));
        assert_int_equal(counted(), 0);
        assert_int_equal(m, 12345);
        printf("# %-26s mcts: %zu searches (1 allocation each), %zu forced and %zu chance "
               "positions (none)\n",
               specs[si], searches, forced, chance);
        assert_true(searches > 0);
        tg_state_free(end);
        tg_state_free(s);
    }
    count_reset();
}

/* ---- main ------------------------------------------------------------------------------ */

#define ZERO(name, i) {name, test_zero, NULL, NULL, (void *)(uintptr_t)(i)}

int main(void)
{
    _Static_assert(SPEC_COUNT == 9, "one ZERO() per spec");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_counts),
        ZERO("zero halusa", 0),
        ZERO("zero hus", 1),
        ZERO("zero hawalis", 2),
        ZERO("zero walak-pussa", 3),
        ZERO("zero tab", 4),
        ZERO("zero hus:width=16", 5),
        ZERO("zero hawalis:variant=zanzibar", 6),
        ZERO("zero tab:width=29", 7),
        ZERO("zero walak-pussa:rounds=match", 8),
        cmocka_unit_test(test_apply_long_line),
        cmocka_unit_test(test_apply_undo_cycles),
        cmocka_unit_test(test_mcts_one_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Allocation failures. This test is linked with the library's sources compiled with
 * -DTG_ALLOC_FAIL_INJECTION (see tests/meson.build), which gives lib/alloc.c a counter: for
 * every scenario and every n = 1, 2, ... until the scenario completes without reaching it, the
 * n-th allocation fails. The call that meets the failure must return TG_ERR_NO_MEMORY, leave
 * its out-pointer and its state exactly as they were, and leak nothing (valgrind and ASan run
 * this suite); the state must then go on exactly as if nothing had happened. */
#include "test_util.h"

#include "internal.h" /* the test-only hooks tg__alloc_fail_arm() and friends */

#ifndef TG_ALLOC_FAIL_INJECTION
#error "build this test with -DTG_ALLOC_FAIL_INJECTION"
#endif

static const char *const games[] = {"halusa", "hus", "hawalis", "walak-pussa", "tab"};
#define GAME_COUNT (sizeof games / sizeof games[0])

static char sentinel_byte;
#define RULES_SENTINEL ((tg_rules *)(void *)&sentinel_byte)
#define STATE_SENTINEL ((tg_state *)(void *)&sentinel_byte)

#define MAX_POINTS 1000 /* far above any scenario: stops a runaway loop */
#define LONG_GAME 400   /* plies: the history grows at 1, 65, 129 and 257 */

/* What one run of a scenario did. */
struct outcome {
    bool hit;       /* the armed allocation was reached (and failed) */
    bool made;      /* a final state exists (else the failure stopped its creation) */
    uint64_t final; /* hash of the final position, to compare with an undisturbed run */
    size_t ply;     /* final ply */
};

typedef struct outcome (*scenario)(const char *spec, size_t n);

/* Checks the status of a call made while armed: TG_ERR_NO_MEMORY exactly when the injected
 * failure was reached during this call. `hit_before` is tg__alloc_fail_hit() before it. */
static bool failed_here(tg_status st, bool hit_before, const char *what)
{
    bool hit = tg__alloc_fail_hit() && !hit_before;
    if (hit && st != TG_ERR_NO_MEMORY)
        TU_FAIL("%s: the injected allocation failure gave %d (%s), expected TG_ERR_NO_MEMORY", what,
                (int)st, tg_status_string(st));
    if (!hit && st == TG_ERR_NO_MEMORY)
        TU_FAIL("%s: TG_ERR_NO_MEMORY without an injected failure", what);
    return hit;
}

/* Runs `run` for n = 1, 2, ... until a run completes without reaching the failure; every
 * run must end in the same position as an undisturbed run. Returns the failure points. */
static size_t failure_points(scenario run, const char *spec, const char *name)
{
    struct outcome want = run(spec, 0);
    assert_false(want.hit);
    size_t n = 1;
    for (;; n++) {
        if (n > MAX_POINTS)
            TU_FAIL("%s(%s): more than %d failure points", name, spec, MAX_POINTS);
        struct outcome got = run(spec, n);
        if (got.made && (got.final != want.final || got.ply != want.ply))
            TU_FAIL("%s(%s): after a failure at allocation %zu the run ended elsewhere "
                    "(ply %zu, not %zu)",
                    name, spec, n, got.ply, want.ply);
        if (!got.hit)
            break;
    }
    tg__alloc_fail_arm(0);
    printf("# %-24s %-12s %zu failure point(s)\n", name, spec, n - 1);
    return n - 1;
}

static uint64_t splitmix(uint64_t *x)
{
    return tu_splitmix64(x);
}

/* A move for s (a decision or a chance outcome) picked by the test's own generator. */
static tg_move pick(const tg_state *s, uint64_t *rng)
{
    tg_move moves[512];
    double probs[512];
    size_t n = 0;
    if (tg_state_player(s) == TG_CHANCE)
        TU_OK(tg_state_chance(s, moves, probs, 512, &n));
    else
        n = tu_moves(s, moves, 512);
    assert_true(n > 0);
    return moves[splitmix(rng) % n];
}

/* A state of `spec` after up to `plies` random moves (made with the injection disarmed); if
 * the game ended, the last move is taken back so that the state can still move. */
static tg_state *played(const char *spec, size_t plies, uint64_t seed)
{
    tg_state *s = tu_new(spec);
    for (size_t i = 0; i < plies && !tg_state_is_terminal(s); i++)
        TU_OK(tg_state_apply_random(s, &seed));
    if (tg_state_is_terminal(s))
        TU_OK(tg_state_undo(s));
    return s;
}

static struct outcome done(bool hit, const tg_state *s)
{
    struct outcome o = {hit, s != NULL, s ? tg_state_hash(s) : 0, s ? tg_state_ply(s) : 0};
    return o;
}

/* ---- scenarios ------------------------------------------------------------------------- */

static struct outcome run_rules_new(const char *spec, size_t n)
{
    tg_rules *r = RULES_SENTINEL;
    tg__alloc_fail_arm(n);
    tg_status st = tg_rules_new(spec, &r);
    bool hit = failed_here(st, false, "tg_rules_new");
    tg__alloc_fail_arm(0);
    if (hit) {
        assert_ptr_equal(r, RULES_SENTINEL);
        return done(true, NULL);
    }
    TU_OK(st);
    assert_string_equal(tg_rules_game_id(r), spec);
    tg_rules_free(r);
    return done(false, NULL);
}

static struct outcome run_state_new(const char *spec, size_t n)
{
    tg_rules *r = tu_rules(spec);
    tg_state *s = STATE_SENTINEL;
    tg__alloc_fail_arm(n);
    tg_status st = tg_state_new(r, &s);
    bool hit = failed_here(st, false, "tg_state_new");
    tg__alloc_fail_arm(0);
    tg_rules_free(r);
    if (hit) {
        assert_ptr_equal(s, STATE_SENTINEL);
        return done(true, NULL);
    }
    TU_OK(st);
    struct outcome o = done(false, s);
    tg_state_free(s);
    return o;
}

static struct outcome run_from_string(const char *spec, size_t n)
{
    tg_state *orig = played(spec, 10, 7);
    char *text = tu_str(orig);
    tg_state_free(orig);
    tg_rules *r = tu_rules(spec);
    tg_state *s = STATE_SENTINEL;
    tg__alloc_fail_arm(n);
    tg_status st = tg_state_from_string(r, text, &s);
    bool hit = failed_here(st, false, "tg_state_from_string");
    tg__alloc_fail_arm(0);
    tg_rules_free(r);
    struct outcome o = done(hit, NULL);
    if (hit) {
        assert_ptr_equal(s, STATE_SENTINEL);
    } else {
        TU_OK(st);
        TU_POS(s, text);
        o = done(false, s);
        tg_state_free(s);
    }
    free(text);
    return o;
}

/* A record of a played game read back: the state, then its history (sized once for every move
 * of the record). */
static struct outcome run_from_record(const char *spec, size_t n)
{
    tg_state *orig = played(spec, 10, 7);
    size_t needed = 0;
    TU_OK(tg_state_record(orig, "[Event \"alloc\"]", NULL, 0, &needed));
    char *text = malloc(needed + 1);
    assert_non_null(text);
    TU_OK(tg_state_record(orig, "[Event \"alloc\"]", text, needed + 1, NULL));
    tg_state *s = STATE_SENTINEL;
    tg__alloc_fail_arm(n);
    tg_status st = tg_state_from_record(text, &s);
    bool hit = failed_here(st, false, "tg_state_from_record");
    tg__alloc_fail_arm(0);
    struct outcome o = done(hit, NULL);
    if (hit) {
        assert_ptr_equal(s, STATE_SENTINEL);
    } else {
        TU_OK(st);
        assert_true(tg_state_equal(s, orig));
        o = done(false, s);
        tg_state_free(s);
    }
    tg_state_free(orig);
    free(text);
    return o;
}

/* Clone a state with a long history, then apply a move to the clone: its history was made
 * exactly as long as needed, so that move grows it. */
static struct outcome run_clone(const char *spec, size_t n)
{
    tg_state *s = played(spec, LONG_GAME, 11);
    assert_true(tu_history_len(s) > 0);
    struct tu_snap before;
    tu_snap_take(s, &before);
    tg_state *c = STATE_SENTINEL;
    tg__alloc_fail_arm(n);
    tg_status st = tg_state_clone(s, &c);
    bool hit = failed_here(st, false, "tg_state_clone");
    TU_UNCHANGED(s, &before, "tg_state_clone (of the original)");
    struct outcome o = done(hit, NULL);
    if (hit) {
        assert_ptr_equal(c, STATE_SENTINEL);
    } else {
        TU_OK(st);
        TU_UNCHANGED(c, &before, "tg_state_clone (the clone differs from the original)");
        /* The first move on the clone grows its history. */
        uint64_t rng = 5, rng_before = rng;
        bool hit_before = tg__alloc_fail_hit();
        st = tg_state_apply_random(c, &rng);
        hit = failed_here(st, hit_before, "tg_state_apply_random on a clone");
        if (hit) {
            TU_UNCHANGED(c, &before, "tg_state_apply_random on a clone");
            assert_true(rng == rng_before);
            tg__alloc_fail_arm(0);
            TU_OK(tg_state_apply_random(c, &rng));
        } else {
            TU_OK(st);
        }
        TU_OK(tg_state_undo(c));
        TU_UNCHANGED(c, &before, "apply then undo on a clone");
        TU_OK(tg_state_apply_random(c, &rng));
        o = done(hit, c);
        tg_state_free(c);
    }
    tg__alloc_fail_arm(0);
    TU_UNCHANGED(s, &before, "working on a clone (the original)");
    tu_snap_free(&before);
    tg_state_free(s);
    return o;
}

/* A long game from the start: tg_state_new, then moves by tg_state_apply (use_random false)
 * or tg_state_apply_random, all armed. A failed move must change nothing (nor the caller's
 * generator); it is then retried disarmed and the game goes on, to the same end. */
static struct outcome run_game(const char *spec, size_t n, bool use_random)
{
    tg_rules *r = tu_rules(spec);
    tg_state *s = STATE_SENTINEL;
    tg__alloc_fail_arm(n);
    tg_status st = tg_state_new(r, &s);
    bool hit = failed_here(st, false, "tg_state_new");
    tg_rules_free(r);
    if (hit) {
        assert_ptr_equal(s, STATE_SENTINEL);
        tg__alloc_fail_arm(0);
        return done(true, NULL);
    }
    TU_OK(st);
    uint64_t rng = 99;
    bool any = false;
    for (size_t i = 0; i < LONG_GAME && !tg_state_is_terminal(s); i++) {
        struct tu_snap before;
        tu_snap_take(s, &before);
        uint64_t rng_before = rng;
        bool hit_before = tg__alloc_fail_hit();
        tg_move m = 0;
        if (use_random) {
            st = tg_state_apply_random(s, &rng);
        } else {
            m = pick(s, &rng);
            rng_before = rng;
            st = tg_state_apply(s, m);
        }
        const char *what = use_random ? "tg_state_apply_random" : "tg_state_apply";
        if (failed_here(st, hit_before, what)) {
            any = true;
            TU_UNCHANGED(s, &before, what);
            assert_true(rng == rng_before);
            tg__alloc_fail_arm(0);
            st = use_random ? tg_state_apply_random(s, &rng) : tg_state_apply(s, m);
        }
        TU_OK(st);
        assert_int_equal(tu_history_len(s), before.history_len + 1);
        tu_snap_free(&before);
    }
    tg__alloc_fail_arm(0);
    /* The whole history is intact: undo it all, back to the start. */
    size_t plies = tg_state_ply(s);
    struct outcome o = done(any, s);
    for (size_t i = 0; i < plies; i++)
        TU_OK(tg_state_undo(s));
    tg_state *fresh = tu_new(spec);
    assert_true(tg_state_equal(s, fresh));
    tg_state_free(fresh);
    tg_state_free(s);
    return o;
}

static struct outcome run_apply(const char *spec, size_t n)
{
    return run_game(spec, n, false);
}

static struct outcome run_apply_random(const char *spec, size_t n)
{
    return run_game(spec, n, true);
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_rules_new(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < GAME_COUNT; g++)
        assert_int_equal(failure_points(run_rules_new, games[g], "tg_rules_new"), 1);
}

static void test_state_new(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < GAME_COUNT; g++)
        assert_int_equal(failure_points(run_state_new, games[g], "tg_state_new"), 1);
}

static void test_from_string(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < GAME_COUNT; g++)
        assert_int_equal(failure_points(run_from_string, games[g], "tg_state_from_string"), 1);
}

static void test_from_record(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < GAME_COUNT; g++)
        assert_int_equal(failure_points(run_from_record, games[g], "tg_state_from_record"), 2);
}

static void test_clone(void **unused)
{
    (void)unused;
    /* The state, its history, then the clone's history growing on its first move. */
    for (size_t g = 0; g < GAME_COUNT; g++)
        assert_int_equal(failure_points(run_clone, games[g], "tg_state_clone+apply"), 3);
}

/* The state, then one growth of the history per power of two from 8 (lib/state.c's first
 * block) that the game reaches. */
static size_t expected_game_points(const char *spec)
{
    tg_state *s = tu_new(spec);
    uint64_t rng = 99;
    for (size_t i = 0; i < LONG_GAME && !tg_state_is_terminal(s); i++)
        TU_OK(tg_state_apply(s, pick(s, &rng)));
    size_t plies = tg_state_ply(s), points = 1;
    tg_state_free(s);
    for (size_t cap = 0; cap < plies; cap = cap ? cap * 2 : 8)
        points++;
    return points;
}

static void test_apply(void **unused)
{
    (void)unused;
    size_t most = 0;
    for (size_t g = 0; g < GAME_COUNT; g++) {
        size_t points = failure_points(run_apply, games[g], "tg_state_apply (game)");
        assert_int_equal(points, expected_game_points(games[g]));
        most = points > most ? points : most;
    }
    /* At least one game is long enough to grow its history past the first block. */
    assert_true(most >= 3);
}

static void test_apply_random(void **unused)
{
    (void)unused;
    size_t most = 0;
    for (size_t g = 0; g < GAME_COUNT; g++) {
        size_t points = failure_points(run_apply_random, games[g], "tg_state_apply_random");
        assert_true(points >= 2);
        most = points > most ? points : most;
    }
    assert_true(most >= 3);
}

/* The history grows exactly at the 65th move of a state: make that growth fail. */
static void test_growth_point(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < GAME_COUNT; g++) {
        tg_state *s = tu_new(games[g]);
        uint64_t rng = 3;
        while (tu_history_len(s) < 64) {
            if (tg_state_is_terminal(s)) {
                tg_state_free(s);
                s = tu_new(games[g]);
                rng = splitmix(&rng);
            }
            TU_OK(tg_state_apply_random(s, &rng));
        }
        if (tg_state_is_terminal(s)) {
            tg_state_free(s);
            continue;
        }
        struct tu_snap before;
        tu_snap_take(s, &before);
        tg_move m = pick(s, &rng);
        tg__alloc_fail_arm(1);
        TU_STATUS(TG_ERR_NO_MEMORY, tg_state_apply(s, m));
        assert_true(tg__alloc_fail_hit());
        TU_UNCHANGED(s, &before, "tg_state_apply at the growth point");
        uint64_t rng_before = rng;
        tg__alloc_fail_arm(1);
        TU_STATUS(TG_ERR_NO_MEMORY, tg_state_apply_random(s, &rng));
        assert_true(rng == rng_before);
        TU_UNCHANGED(s, &before, "tg_state_apply_random at the growth point");
        tg__alloc_fail_arm(0);
        TU_OK(tg_state_apply(s, m));
        assert_int_equal(tu_history_len(s), 65);
        tu_snap_free(&before);
        tg_state_free(s);
    }
}

/* The calls documented (or meant) not to allocate make no allocation at all. */
static void test_no_allocation(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < GAME_COUNT; g++) {
        tg_state *s = played(games[g], 30, 21);
        tg_state *t = tu_new(games[g]);
        char buf[4096];
        size_t needed = 0, count = 0;
        tg_move moves[512];
        uint64_t rng = 1;
        tg__alloc_fail_arm(1);
        TU_OK(tg_state_to_string(s, buf, sizeof buf, &needed));
        TU_OK(tg_state_render(s, buf, sizeof buf, &needed));
        TU_OK(tg_state_history(s, moves, 512, &count));
        TU_OK(tg_state_undo(s));
        TU_OK(tg_state_apply(s, moves[count - 1])); /* the history has room */
        (void)tg_state_hash(s);
        (void)tg_perft(s, 3);
        /* Stories, end reasons and records write to the caller's buffers only. */
        uint32_t events[4096 * TG_EVENT_FIELDS];
        for (size_t i = 0; i < count; i++)
            TU_OK(tg_state_story(s, i, events, 4096, &needed));
        (void)tg_state_end_reason(s);
        static char record[1 << 16];
        TU_OK(tg_state_record(s, "[Site \"here\"]", record, sizeof record, &needed));
        TU_OK(tg_state_copy(t, s));
        TU_OK(tg_state_playout(t, &rng, 1000, NULL));
        (void)tg_state_end_reason(t);
        assert_false(tg__alloc_fail_hit());
        assert_int_equal(tg__alloc_calls(), 0);
        tg__alloc_fail_arm(0);
        tg_state_free(t);
        tg_state_free(s);
    }
}

/* mcts allocates its tree once per call: when that fails the call returns TG_ERR_NO_MEMORY
 * and changes nothing (not *out, not *rng, not the state); the next call succeeds and chooses
 * as an undisturbed call would. random and greedy allocate nothing. */
static void test_bot_choose(void **unused)
{
    (void)unused;
    static const char *const searches[] = {"mcts:iterations=40", "mcts:iterations=1",
                                           "mcts:c=0,iterations=25"};
    for (size_t g = 0; g < GAME_COUNT; g++) {
        tg_state *s = played(games[g], 20, 31);
        /* A decision with a choice to make (Tab may stand at a throw or a forced move). */
        uint64_t walk = 8;
        while (tg_state_player(s) == TG_CHANCE || tu_moves(s, NULL, 0) < 2) {
            TU_OK(tg_state_apply_random(s, &walk));
            if (tg_state_is_terminal(s))
                TU_OK(tg_state_undo(s));
        }
        for (size_t b = 0; b < sizeof searches / sizeof searches[0]; b++) {
            const char *spec = searches[b];
            tg_move want = 0;
            uint64_t want_rng = 1234;
            TU_OK(tg_bot_choose(s, spec, &want_rng, &want));

            struct tu_snap before;
            tu_snap_take(s, &before);
            uint64_t rng = 1234;
            tg_move m = 0xA5A5A5A5u;
            tg__alloc_fail_arm(1);
            TU_STATUS(TG_ERR_NO_MEMORY, tg_bot_choose(s, spec, &rng, &m));
            assert_true(tg__alloc_fail_hit());
            tg__alloc_fail_arm(0);
            assert_true(rng == 1234);
            assert_int_equal(m, 0xA5A5A5A5u);
            TU_UNCHANGED(s, &before, spec);

            /* The next call succeeds, as if nothing had happened. */
            TU_OK(tg_bot_choose(s, spec, &rng, &m));
            assert_int_equal(m, want);
            assert_true(rng == want_rng);
            assert_true(tg_state_is_legal(s, m));
            TU_UNCHANGED(s, &before, spec);

            /* One allocation per call: failing the second one is never reached. */
            tg__alloc_fail_arm(2);
            rng = 1234;
            TU_OK(tg_bot_choose(s, spec, &rng, &m));
            assert_false(tg__alloc_fail_hit());
            assert_int_equal(tg__alloc_calls(), 1);
            tg__alloc_fail_arm(0);
            assert_int_equal(m, want);
            tu_snap_free(&before);
        }
        /* random and greedy make no allocation at all. */
        tg__alloc_fail_arm(1);
        uint64_t rng = 5;
        tg_move m = 0;
        TU_OK(tg_bot_choose(s, "random", &rng, &m));
        TU_OK(tg_bot_choose(s, "greedy", &rng, &m));
        assert_false(tg__alloc_fail_hit());
        assert_int_equal(tg__alloc_calls(), 0);
        tg__alloc_fail_arm(0);
        tg_state_free(s);
    }
}

/* The search handle: every allocation of tg_search_new, of a search through tg_bot_choose
 * (a handle made for the call), of an analysis on a kept handle, and of a timed mcts whose
 * tree grows, fails in turn; each failure is TG_ERR_NO_MEMORY with nothing changed, and the
 * next call gives what an undisturbed one gives. */
static void test_search(void **unused)
{
    (void)unused;
    static const char *const specs[] = {"search:nodes=300,tt=1",
                                        "mcts:time=600000,iterations=9000"};
    for (size_t g = 0; g < GAME_COUNT; g++) {
        tg_state *s = played(games[g], 20, 41);
        uint64_t walk = 9;
        while (tg_state_player(s) == TG_CHANCE || tu_moves(s, NULL, 0) < 2) {
            TU_OK(tg_state_apply_random(s, &walk));
            if (tg_state_is_terminal(s))
                TU_OK(tg_state_undo(s));
        }
        for (size_t b = 0; b < 2; b++) {
            tg_move want = 0;
            uint64_t want_rng = 77;
            TU_OK(tg_bot_choose(s, specs[b], &want_rng, &want));
            size_t points = 0;
            for (size_t n = 1;; n++) {
                assert_true(n < MAX_POINTS);
                uint64_t rng = 77;
                tg_move m = 0xA5A5A5A5u;
                tg__alloc_fail_arm(n);
                tg_status st = tg_bot_choose(s, specs[b], &rng, &m);
                bool hit = failed_here(st, false, specs[b]);
                tg__alloc_fail_arm(0);
                if (!hit) {
                    assert_int_equal(m, want);
                    assert_true(rng == want_rng);
                    break;
                }
                assert_int_equal(m, 0xA5A5A5A5u);
                assert_true(rng == 77);
                points++;
            }
            assert_true(points >= 1);
        }
        /* A kept handle: its making, then an analysis, each allocation failing in turn. */
        for (size_t n = 1;; n++) {
            assert_true(n < MAX_POINTS);
            tg_search *h = NULL;
            tg__alloc_fail_arm(n);
            tg_status st = tg_search_new("search:nodes=300,tt=1", &h);
            bool hit = failed_here(st, false, "tg_search_new");
            if (hit) {
                tg__alloc_fail_arm(0);
                assert_null(h);
                continue;
            }
            uint64_t rng = 5;
            st = tg_search_analyse(h, s, &rng);
            hit = failed_here(st, false, "tg_search_analyse");
            bool reached = tg__alloc_fail_hit();
            tg__alloc_fail_arm(0);
            if (st == TG_ERR_NO_MEMORY)
                assert_int_equal(tg_search_result_count(h), 0);
            TU_OK(tg_search_analyse(h, s, &rng));
            assert_int_equal(tg_search_result_count(h), tu_moves(s, NULL, 0));
            tg_search_free(h);
            if (!reached)
                break;
        }
        tg_state_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_new),     cmocka_unit_test(test_state_new),
        cmocka_unit_test(test_from_string),   cmocka_unit_test(test_from_record),
        cmocka_unit_test(test_clone),         cmocka_unit_test(test_apply),
        cmocka_unit_test(test_apply_random),  cmocka_unit_test(test_growth_point),
        cmocka_unit_test(test_no_allocation), cmocka_unit_test(test_bot_choose),
        cmocka_unit_test(test_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Bots (tg_bot_choose, tg_bot_check): the spec grammar, error handling that changes nothing,
 * and, in every game, legal, deterministic choices that never touch the state. `random` is
 * checked against tg_state_apply_random(), `greedy` against a reference written here from the
 * header's description, and both `greedy` and `mcts` on hand-built positions. Search sizes
 * stay small: this suite also runs under valgrind and the sanitizers. */
#include "test_util.h"

#include <limits.h>

#define MOVE_SENTINEL 0xA5A5A5A5u
#define RNG_SENTINEL UINT64_C(0x0123456789ABCDEF)

#define HALUSA "halusa:remainder=last-mover,quiet=100"
#define HUS "hus:width=8,laps=10000,quiet=100"
#define HAWALIS "hawalis:variant=oman,laps=10000,quiet=100"
#define WALAK "walak-pussa:rounds=single,laps=10000,quiet=100"

/* Every game at its defaults, plus option sets that change the board or the throws. */
static const char *const rule_sets[] = {"halusa", "hus",     "hawalis",
                                        "walak-pussa", "tab", "hus:width=12",
                                        "hawalis:variant=zanzibar", "tab:width=29"};
#define RULE_SET_COUNT (sizeof rule_sets / sizeof rule_sets[0])

/* ---- tg_bot_check ---------------------------------------------------------------------- */

static const char *const good_specs[] = {
    "random",
    "greedy",
    "mcts",
    "mcts:iterations=1",
    "mcts:iterations=9",
    "mcts:iterations=10",
    "mcts:iterations=1000",
    "mcts:iterations=9999999",
    "mcts:iterations=10000000",
    "mcts:c=0",
    "mcts:c=0.0",
    "mcts:c=1",
    "mcts:c=1.4",
    "mcts:c=0.7",
    "mcts:c=0.000001",
    "mcts:c=99.999999",
    "mcts:c=100",
    "mcts:c=100.0",
    "mcts:c=100.000000",
    "mcts:c=10.5",
    "mcts:iterations=5,c=0.25",
    "mcts:c=0.25,iterations=5",
    "mcts:iterations=10000000,c=100",
    "mcts:c=0,iterations=1",
};

static const char *const bad_specs[] = {
    /* names */
    "",
    "rand",
    "randomx",
    "Random",
    "GREEDY",
    "MCTS",
    "mct",
    "mctsx",
    "uct",
    "minimax",
    " random",
    "random ",
    "greedy\n",
    "mcts ",
    ":",
    ":iterations=5",
    /* options on bots that take none */
    "random:",
    "greedy:",
    "greedy:iterations=5",
    "random:c=1",
    "random:iterations=5",
    /* empty or malformed option lists */
    "mcts:",
    "mcts::",
    "mcts:iterations",
    "mcts:iterations=",
    "mcts:=5",
    "mcts:=",
    "mcts:,",
    "mcts:iterations=5,",
    "mcts:,iterations=5",
    "mcts:iterations=5,,c=1",
    "mcts:iterations=5;c=1",
    "mcts,iterations=5",
    "mcts:iterations:5",
    "mcts:iterations==5",
    /* iterations out of range or not a plain decimal */
    "mcts:iterations=0",
    "mcts:iterations=00",
    "mcts:iterations=10000001",
    "mcts:iterations=99999999",
    "mcts:iterations=100000000",
    "mcts:iterations=4294967296",
    "mcts:iterations=4294967297",
    "mcts:iterations=18446744073709551617",
    "mcts:iterations=-1",
    "mcts:iterations=+5",
    "mcts:iterations=05",
    "mcts:iterations=1e3",
    "mcts:iterations=0x10",
    "mcts:iterations=5x",
    "mcts:iterations=5.0",
    "mcts:iterations=5 ",
    "mcts:iterations= 5",
    "mcts: iterations=5",
    "mcts:iterations =5",
    /* repeated keys */
    "mcts:iterations=5,iterations=5",
    "mcts:iterations=5,iterations=6",
    "mcts:c=1,c=1",
    "mcts:c=1,iterations=5,c=2",
    "mcts:iterations=5,c=1,iterations=5",
    /* c out of range or malformed */
    "mcts:c",
    "mcts:c=",
    "mcts:c=100.5",
    "mcts:c=100.000001",
    "mcts:c=101",
    "mcts:c=1000",
    "mcts:c=1000.0",
    "mcts:c=.5",
    "mcts:c=1.",
    "mcts:c=1.1234567",
    "mcts:c=-1",
    "mcts:c=-0",
    "mcts:c=+1",
    "mcts:c=1.5.2",
    "mcts:c=1,5",
    "mcts:c=1e1",
    "mcts:c=0x1",
    "mcts:c=inf",
    "mcts:c=nan",
    "mcts:c=abc",
    "mcts:c=1.4 ",
    "mcts:c= 1.4",
    /* unknown keys */
    "mcts:C=1",
    "mcts:ITERATIONS=5",
    "mcts:iter=5",
    "mcts:seed=1",
    "mcts:iterations=5,seed=1",
    "mcts:exploration=1",
};

static void test_check_good(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof good_specs / sizeof good_specs[0]; i++)
        if (tg_bot_check(good_specs[i]) != TG_OK)
            TU_FAIL("tg_bot_check(\"%s\") = %d, expected TG_OK", good_specs[i],
                    (int)tg_bot_check(good_specs[i]));
}

static void test_check_bad(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++)
        if (tg_bot_check(bad_specs[i]) != TG_ERR_BAD_OPTION)
            TU_FAIL("tg_bot_check(\"%s\") = %d, expected TG_ERR_BAD_OPTION", bad_specs[i],
                    (int)tg_bot_check(bad_specs[i]));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_bot_check(NULL));
}

/* Hostile lengths: 10 KB of name, of digits, of options. */
static void test_check_long(void **unused)
{
    (void)unused;
    enum { LEN = 10240 };
    char *buf = malloc(LEN + 64);
    assert_non_null(buf);

    memset(buf, 'a', LEN);
    buf[LEN] = '\0';
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(buf));

    strcpy(buf, "mcts:iterations=");
    size_t at = strlen(buf);
    memset(buf + at, '9', LEN);
    buf[at + LEN] = '\0';
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(buf));
    memset(buf + at, '0', LEN - 1); /* 000...01 */
    buf[at + LEN - 1] = '1';
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(buf));

    strcpy(buf, "mcts:c=1.");
    at = strlen(buf);
    memset(buf + at, '0', LEN);
    buf[at + LEN] = '\0';
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(buf));

    /* mcts:c=1,c=1,c=1,... */
    strcpy(buf, "mcts:");
    at = strlen(buf);
    while (at + 4 < LEN) {
        memcpy(buf + at, "c=1,", 4);
        at += 4;
    }
    buf[at - 1] = '\0';
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(buf));

    /* a valid spec followed by 10 KB of junk */
    strcpy(buf, "greedy");
    at = strlen(buf);
    memset(buf + at, 'x', LEN);
    buf[at + LEN] = '\0';
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(buf));

    /* the same through tg_bot_choose */
    tg_state *s = tu_new("halusa");
    uint64_t rng = RNG_SENTINEL;
    tg_move m = MOVE_SENTINEL;
    TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_choose(s, buf, &rng, &m));
    assert_true(rng == RNG_SENTINEL);
    assert_int_equal(m, MOVE_SENTINEL);
    tg_state_free(s);
    free(buf);
}

/* ---- tg_bot_choose: errors ------------------------------------------------------------- */

/* Asserts that tg_bot_choose(s, spec, &rng, &out) (with the pointers as given) returns
 * `want` and changes neither the sentinels nor the state. */
static void choose_fails(tg_status want, const tg_state *s, const char *spec, bool null_rng,
                         bool null_out)
{
    struct tu_snap before = {0};
    if (s)
        tu_snap_take(s, &before);
    uint64_t rng = RNG_SENTINEL;
    tg_move m = MOVE_SENTINEL;
    tg_status st = tg_bot_choose(s, spec, null_rng ? NULL : &rng, null_out ? NULL : &m);
    if (st != want)
        TU_FAIL("tg_bot_choose(%s, \"%s\", %s, %s) = %d (%s), expected %d (%s)",
                s ? "s" : "NULL", spec ? spec : "(null)", null_rng ? "NULL" : "&rng",
                null_out ? "NULL" : "&out", (int)st, tg_status_string(st), (int)want,
                tg_status_string(want));
    assert_true(rng == RNG_SENTINEL);
    assert_int_equal(m, MOVE_SENTINEL);
    if (s) {
        TU_UNCHANGED(s, &before, "a failed tg_bot_choose");
        tu_snap_free(&before);
    }
}

static const char *const all_bots[] = {"random", "greedy", "mcts", "mcts:iterations=10000000"};
#define ALL_BOT_COUNT (sizeof all_bots / sizeof all_bots[0])

static void test_choose_errors(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa");
    tu_play(s, "b1");
    tu_play(s, "b2"); /* a history, so that a change would show */
    for (size_t b = 0; b < ALL_BOT_COUNT; b++) {
        choose_fails(TG_ERR_INVALID_ARGUMENT, NULL, all_bots[b], false, false);
        choose_fails(TG_ERR_INVALID_ARGUMENT, s, all_bots[b], true, false);
        choose_fails(TG_ERR_INVALID_ARGUMENT, s, all_bots[b], false, true);
        choose_fails(TG_ERR_INVALID_ARGUMENT, NULL, all_bots[b], true, true);
    }
    choose_fails(TG_ERR_INVALID_ARGUMENT, s, NULL, false, false);
    choose_fails(TG_ERR_INVALID_ARGUMENT, NULL, NULL, true, true);
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++)
        choose_fails(TG_ERR_BAD_OPTION, s, bad_specs[i], false, false);
    tg_state_free(s);
}

/* A finished game, from a string and from play, in every rule set: nothing to choose. */
static void test_choose_game_over(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("halusa", HALUSA " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=0");
    for (size_t b = 0; b < ALL_BOT_COUNT; b++)
        choose_fails(TG_ERR_GAME_OVER, s, all_bots[b], false, false);
    tg_state_free(s);

    for (size_t g = 0; g < RULE_SET_COUNT; g++) {
        s = tu_new(rule_sets[g]);
        uint64_t seed = 42 + g;
        while (!tg_state_is_terminal(s))
            TU_OK(tg_state_apply_random(s, &seed));
        for (size_t b = 0; b < ALL_BOT_COUNT; b++)
            choose_fails(TG_ERR_GAME_OVER, s, all_bots[b], false, false);
        /* A bad spec is still reported as such. */
        choose_fails(TG_ERR_BAD_OPTION, s, "mcts:iterations=0", false, false);
        tg_state_free(s);
    }
}

/* ---- tg_bot_choose: every game --------------------------------------------------------- */

/* Greedy's reference, from the header: an outright win first, then the largest lead (own
 * score minus the opponent's) after the move, an outright loss last. Returns a rank where
 * greater is better. */
static long greedy_rank(const tg_state *s, tg_move m)
{
    int me = tg_state_player(s);
    tg_state *c = tu_after(s, m);
    long lead = (long)tg_state_score(c, me) - (long)tg_state_score(c, 1 - me);
    int w = tg_state_winner(c);
    tg_state_free(c);
    long cls = w == me ? 2 : (w == 1 - me ? 0 : 1);
    return cls * 100000L + lead;
}

/* Whether m is a possible outcome of the chance state s. */
static bool is_outcome(const tg_state *s, tg_move m)
{
    tg_move outcomes[512];
    double probs[512];
    size_t n = 0;
    TU_OK(tg_state_chance(s, outcomes, probs, 512, &n));
    for (size_t i = 0; i < n; i++)
        if (outcomes[i] == m)
            return probs[i] > 0.0;
    return false;
}

/* What tg_state_apply_random() plays from s with *rng, and how it leaves *rng. */
static tg_move random_reference(const tg_state *s, uint64_t rng, uint64_t *rng_after)
{
    tg_state *c = NULL;
    TU_OK(tg_state_clone(s, &c));
    TU_OK(tg_state_apply_random(c, &rng));
    size_t n = tu_history_len(c);
    tg_move *hist = malloc(n * sizeof *hist);
    assert_non_null(hist);
    size_t got = 0;
    TU_OK(tg_state_history(c, hist, n, &got));
    tg_move m = hist[n - 1];
    free(hist);
    tg_state_free(c);
    *rng_after = rng;
    return m;
}

struct tally {
    unsigned long calls, chance, single;
};

/* One bot on one state: legal, state untouched, deterministic, and as documented for random
 * play, chance states and single decisions. Returns the move. */
static tg_move check_choice(const tg_state *s, const char *spec, uint64_t seed, struct tally *t)
{
    struct tu_snap before;
    tu_snap_take(s, &before);
    uint64_t rng = seed;
    tg_move m = MOVE_SENTINEL;
    TU_OK(tg_bot_choose(s, spec, &rng, &m));
    TU_UNCHANGED(s, &before, spec);
    t->calls++;

    bool chance = tg_state_player(s) == TG_CHANCE;
    if (!tg_state_is_legal(s, m))
        TU_FAIL("%s chose %u, not legal in \"%s\"", spec, (unsigned)m, before.text);
    if (chance && !is_outcome(s, m))
        TU_FAIL("%s chose %u, not an outcome of \"%s\"", spec, (unsigned)m, before.text);

    /* The same call again: the same move and the same generator state. */
    uint64_t rng2 = seed;
    tg_move m2 = MOVE_SENTINEL;
    TU_OK(tg_bot_choose(s, spec, &rng2, &m2));
    if (m2 != m || rng2 != rng)
        TU_FAIL("%s is not deterministic in \"%s\": %u then %u", spec, before.text,
                (unsigned)m, (unsigned)m2);

    bool is_random = strcmp(spec, "random") == 0;
    size_t n = chance ? 0 : tu_moves(s, NULL, 0);
    if (chance || is_random) {
        /* Exactly what tg_state_apply_random() does with the same generator. */
        uint64_t want_rng = 0;
        tg_move want = random_reference(s, seed, &want_rng);
        if (want != m || want_rng != rng)
            TU_FAIL("%s chose %u (rng %016llx), tg_state_apply_random %u (rng %016llx) in "
                    "\"%s\"",
                    spec, (unsigned)m, (unsigned long long)rng, (unsigned)want,
                    (unsigned long long)want_rng, before.text);
        t->chance += chance;
    } else if (n == 1) {
        /* The only decision, without a search and without touching the generator. */
        tg_move only = 0;
        assert_int_equal(tu_moves(s, &only, 1), 1);
        assert_int_equal(m, only);
        if (rng != seed)
            TU_FAIL("%s advanced the generator with a single legal move in \"%s\"", spec,
                    before.text);
        t->single++;
    } else if (strncmp(spec, "mcts", 4) == 0) {
        assert_true(rng != seed); /* a search draws */
    }
    if (!chance && strcmp(spec, "greedy") == 0) {
        tg_move moves[512];
        n = tu_moves(s, moves, 512);
        long best = LONG_MIN + 1, mine = greedy_rank(s, m);
        for (size_t i = 0; i < n; i++) {
            long r = greedy_rank(s, moves[i]);
            best = r > best ? r : best;
        }
        if (mine != best)
            TU_FAIL("greedy chose %u (rank %ld), the best rank is %ld, in \"%s\"", (unsigned)m,
                    mine, best, before.text);
    }

    /* The history does not matter: the same position read from its string. */
    if (!is_random) {
        tg_state *fresh = tu_from(tg_rules_spec(tg_state_rules(s)), before.text);
        uint64_t rng3 = seed;
        tg_move m3 = MOVE_SENTINEL;
        TU_OK(tg_bot_choose(fresh, spec, &rng3, &m3));
        if (m3 != m || rng3 != rng)
            TU_FAIL("%s chose %u with the history, %u without, in \"%s\"", spec, (unsigned)m,
                    (unsigned)m3, before.text);
        tg_state_free(fresh);
    }
    tu_snap_free(&before);
    return m;
}

#define MAX_PLIES 400

/* Random games of every rule set; random and greedy at every ply, small searches now and
 * then. */
static void test_every_game(void **unused)
{
    (void)unused;
    struct tally total = {0, 0, 0};
    for (size_t g = 0; g < RULE_SET_COUNT; g++) {
        struct tally t = {0, 0, 0};
        unsigned searches = 0;
        for (uint64_t game = 0; game < 3; game++) {
            tg_state *s = tu_new(rule_sets[g]);
            uint64_t rng = 1000 * g + game + 1;
            for (unsigned ply = 0; ply < MAX_PLIES && !tg_state_is_terminal(s); ply++) {
                uint64_t seed = tu_splitmix64(&rng);
                check_choice(s, "random", seed, &t);
                check_choice(s, "greedy", seed, &t);
                if ((ply < 100 ? ply % 11 == 5 : ply % 61 == 5) || (ply < 40 && tg_state_player(s) >= 0 &&
                                      tu_moves(s, NULL, 0) == 1)) {
                    check_choice(s, ply % 2 ? "mcts:iterations=40" : "mcts:iterations=25,c=0",
                                 seed, &t);
                    searches++;
                }
                /* Move on with one of the bots' choices, so that all of them steer play. */
                tg_move m = MOVE_SENTINEL;
                uint64_t r2 = seed;
                TU_OK(tg_bot_choose(s, ply % 3 == 0 ? "greedy" : "random", &r2, &m));
                TU_OK(tg_state_apply(s, m));
            }
            tg_state_free(s);
        }
        printf("# %-26s %lu choices, %lu at chance states, %lu single decisions, %u searches\n",
               rule_sets[g], t.calls, t.chance, t.single, searches);
        assert_true(searches >= 4);
        if (strncmp(rule_sets[g], "tab", 3) == 0)
            assert_true(t.chance > 0);
        total.calls += t.calls;
        total.single += t.single;
    }
    assert_true(total.single > 0); /* forced moves were met and checked */
}

/* The first ply of every rule set with every bot, and Tab's throws. */
static void test_start_positions(void **unused)
{
    (void)unused;
    static const char *const bots[] = {"random", "greedy", "mcts:iterations=30",
                                       "mcts:iterations=1", "mcts:iterations=20,c=0",
                                       "mcts:c=100,iterations=20"};
    struct tally t = {0, 0, 0};
    for (size_t g = 0; g < RULE_SET_COUNT; g++) {
        tg_state *s = tu_new(rule_sets[g]);
        for (size_t b = 0; b < sizeof bots / sizeof bots[0]; b++)
            for (uint64_t seed = 0; seed < 2; seed++)
                check_choice(s, bots[b], seed * 0x9E3779B97F4A7C15u + g, &t);
        tg_state_free(s);
    }
    /* Tab starts with a throw: every bot stands in for the sticks, as tg_state_apply_random. */
    tg_state *s = tu_new("tab");
    assert_int_equal(tg_state_player(s), TG_CHANCE);
    unsigned seen_differ = 0;
    tg_move first = MOVE_SENTINEL;
    for (uint64_t seed = 0; seed < 16; seed++) {
        for (size_t b = 0; b < sizeof bots / sizeof bots[0]; b++) {
            tg_move m = check_choice(s, bots[b], seed, &t);
            if (first == MOVE_SENTINEL)
                first = m;
            seen_differ += m != first;
        }
    }
    assert_true(seen_differ > 0); /* the throws differ with the seed */
    tg_state_free(s);
}

/* A single legal move: greedy and mcts return it without searching (a 10-million-iteration
 * search would not finish here) and leave the generator alone. */
static void test_single_decision(void **unused)
{
    (void)unused;
    /* The rules page's example 3: after a1, player 1 must feed with a2. */
    tg_state *s = tu_from("halusa", HALUSA " 1,0,0,0,0,1/0,0,0,0,0,0 1 38,32 quiet=0");
    assert_int_equal(tu_moves(s, NULL, 0), 1);
    tg_move a2 = tu_move(s, "a2");
    static const char *const bots[] = {"greedy", "mcts", "mcts:iterations=10000000",
                                       "mcts:iterations=10000000,c=0"};
    for (size_t b = 0; b < sizeof bots / sizeof bots[0]; b++) {
        struct tu_snap before;
        tu_snap_take(s, &before);
        uint64_t rng = RNG_SENTINEL;
        tg_move m = MOVE_SENTINEL;
        TU_OK(tg_bot_choose(s, bots[b], &rng, &m));
        assert_int_equal(m, a2);
        assert_true(rng == RNG_SENTINEL);
        TU_UNCHANGED(s, &before, bots[b]);
        tu_snap_free(&before);
    }
    /* random draws even so, as tg_state_apply_random does. */
    uint64_t rng = RNG_SENTINEL;
    tg_move m = MOVE_SENTINEL;
    TU_OK(tg_bot_choose(s, "random", &rng, &m));
    assert_int_equal(m, a2);
    assert_true(rng != RNG_SENTINEL);
    tg_state_free(s);
}

/* ---- greedy on hand-built positions ---------------------------------------------------- */

struct greedy_case {
    const char *spec, *pos;
    const char *best;  /* greedy's move */
    int best_lead;     /* the mover's lead after it */
    bool best_wins;    /* it ends the game, won */
    int other_max;     /* the largest lead any other move gives */
    const char *note;
};

static const struct greedy_case greedy_cases[] = {
    /* Player 0: a1 and b1 each capture 2 (the next hole becomes 2), c1 captures 4 (d1 becomes
     * 4), d1 sows onto the far side; from a lead of 2. */
    {"halusa", HALUSA " 2,2,2,2,2,2/1,1,1,3,0,0 0 28,26 quiet=0", "c1", 6, false, 4,
     "the largest of three captures"},
    /* Walak-pussa: b1 gains more than any other capture. */
    {"walak-pussa", WALAK " 0,3,0,7,9,0,4/0,5,4,6,10,0,1 0 6,1 quiet=0", "b1", 18, false, 14,
     "the largest capture"},
    /* Hawalis: only f1 gains more than one counter. */
    {"hawalis", HAWALIS " 0,1,4,2,0,4,1/2,1,3,3,0,3,0/2,0,0,1,4,0,0/4,0,3,3,0,3,3 0 4,5 quiet=0",
     "f1", 6, false, 1, "the largest capture"},
    /* Hus: e2 leaves player 1 without a move and wins (lead 30), while g1 and f2 capture more
     * (lead 38) and play on: the win comes first. */
    {"hus", HUS " 0,0,0,1,1,1,1,1/0,0,2,1,0,1,1,1/0,4,3,4,2,2,7,3/3,3,1,1,0,1,2,1 0 37,11 quiet=1",
     "e2", 30, true, 38, "an outright win before a larger capture"},
    /* Halusa: a1 captures and leaves player 1 with nothing to sow: the game ends, won. */
    {"halusa", HALUSA " 0,0,0,0,2,2/2,3,5,0,0,0 0 38,20 quiet=2", "a1", 32, true, 18,
     "an outright win"},
};

static void test_greedy_positions(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof greedy_cases / sizeof greedy_cases[0]; i++) {
        const struct greedy_case *c = &greedy_cases[i];
        tg_state *s = tu_from(c->spec, c->pos);
        int me = tg_state_player(s);
        tg_move best = tu_move(s, c->best);
        /* The position is what the case says it is. */
        tg_move moves[512];
        size_t n = tu_moves(s, moves, 512);
        assert_true(n >= 3);
        int other_max = -1000;
        for (size_t k = 0; k < n; k++) {
            tg_state *t = tu_after(s, moves[k]);
            int lead = tg_state_score(t, me) - tg_state_score(t, 1 - me);
            if (moves[k] == best) {
                assert_int_equal(lead, c->best_lead);
                assert_int_equal(tg_state_winner(t), c->best_wins ? me : TG_NO_WINNER_YET);
            } else {
                assert_int_equal(tg_state_winner(t), TG_NO_WINNER_YET);
                other_max = lead > other_max ? lead : other_max;
            }
            tg_state_free(t);
        }
        assert_int_equal(other_max, c->other_max);
        /* Greedy takes it whatever the generator. */
        for (uint64_t seed = 0; seed < 16; seed++) {
            uint64_t rng = seed * 7919;
            tg_move m = MOVE_SENTINEL;
            TU_OK(tg_bot_choose(s, "greedy", &rng, &m));
            if (m != best)
                TU_FAIL("greedy (%s) chose %u, not %s, in \"%s\"", c->note, (unsigned)m, c->best,
                        c->pos);
        }
        tg_state_free(s);
    }
}

/* Ties are broken by the generator: a1, b1 and c1 each capture 2, d1 nothing. */
static void test_greedy_ties(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("halusa", HALUSA " 2,2,2,2,2,2/1,1,1,1,0,0 0 28,28 quiet=0");
    const char *tied[] = {"a1", "b1", "c1"};
    unsigned seen[3] = {0, 0, 0};
    for (uint64_t seed = 0; seed < 48; seed++) {
        uint64_t rng = seed;
        tg_move m = MOVE_SENTINEL;
        TU_OK(tg_bot_choose(s, "greedy", &rng, &m));
        size_t k = 0;
        while (k < 3 && m != tu_move(s, tied[k]))
            k++;
        if (k == 3)
            TU_FAIL("greedy chose %u, not one of the tied captures a1, b1, c1", (unsigned)m);
        seen[k]++;
    }
    printf("# ties a1/b1/c1 over 48 seeds: %u, %u, %u\n", seen[0], seen[1], seen[2]);
    for (size_t k = 0; k < 3; k++)
        assert_true(seen[k] > 0);
    tg_state_free(s);
}

/* ---- mcts on hand-built positions ------------------------------------------------------ */

struct mcts_case {
    const char *spec, *pos, *win;
};

/* Each has exactly one move that wins at once. */
static const struct mcts_case mcts_cases[] = {
    {"halusa", HALUSA " 0,0,0,0,2,2/2,3,5,0,0,0 0 38,20 quiet=2", "a1"},
    {"hawalis", HAWALIS " 0,0,0,0,0,0,0/1,0,0,0,0,0,0/0,1,0,0,1,0,0/0,0,0,0,1,0,1 0 27,24 quiet=5",
     "b2"},
    {"hus", HUS " 1,1,0,0,1,0,1,3/1,1,4,1,2,0,1,1/2,2,1,3,1,2,1,4/4,4,1,1,1,2,0,1 0 30,18 quiet=1",
     "b2"},
};

static void test_mcts_positions(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof mcts_cases / sizeof mcts_cases[0]; i++) {
        const struct mcts_case *c = &mcts_cases[i];
        tg_state *s = tu_from(c->spec, c->pos);
        int me = tg_state_player(s);
        tg_move win = tu_move(s, c->win);
        tg_move moves[512];
        size_t n = tu_moves(s, moves, 512);
        assert_true(n >= 3);
        for (size_t k = 0; k < n; k++) {
            tg_state *t = tu_after(s, moves[k]);
            assert_int_equal(tg_state_winner(t), moves[k] == win ? me : TG_NO_WINNER_YET);
            tg_state_free(t);
        }
        for (uint64_t seed = 1; seed <= 3; seed++) {
            struct tu_snap before;
            tu_snap_take(s, &before);
            uint64_t rng = seed;
            tg_move m = MOVE_SENTINEL;
            TU_OK(tg_bot_choose(s, "mcts:iterations=200", &rng, &m));
            TU_UNCHANGED(s, &before, "mcts");
            if (m != win)
                TU_FAIL("mcts:iterations=200 (seed %u) chose %u, not the winning %s, in \"%s\"",
                        (unsigned)seed, (unsigned)m, c->win, c->pos);
            assert_true(rng != seed);
            tu_snap_free(&before);
        }
        /* Other settings still give a legal move. */
        static const char *const others[] = {"mcts:iterations=50,c=0", "mcts:iterations=1",
                                             "mcts:iterations=2", "mcts:c=100,iterations=30"};
        for (size_t b = 0; b < sizeof others / sizeof others[0]; b++) {
            uint64_t rng = 5;
            tg_move m = MOVE_SENTINEL;
            TU_OK(tg_bot_choose(s, others[b], &rng, &m));
            assert_true(tg_state_is_legal(s, m));
        }
        tg_state_free(s);
    }
}

/* The options change the search: over a few positions, c=0 and c=100 do not always agree,
 * and a different seed may give a different move but never an illegal one. */
static void test_mcts_options(void **unused)
{
    (void)unused;
    unsigned differ = 0, moves_differ = 0, positions = 0;
    for (size_t g = 0; g < 4; g++) {
        tg_state *s = tu_new(rule_sets[g]);
        uint64_t rng = 77 + g;
        for (unsigned ply = 0; ply < 12; ply++) {
            TU_OK(tg_state_apply_random(s, &rng));
            if (tg_state_is_terminal(s))
                break;
            if (ply % 4 != 3 || tu_moves(s, NULL, 0) < 2)
                continue;
            tg_move a = MOVE_SENTINEL, b = MOVE_SENTINEL;
            uint64_t ra = 9, rb = 9;
            TU_OK(tg_bot_choose(s, "mcts:iterations=60,c=0", &ra, &a));
            TU_OK(tg_bot_choose(s, "mcts:iterations=60,c=100", &rb, &b));
            assert_true(tg_state_is_legal(s, a));
            assert_true(tg_state_is_legal(s, b));
            moves_differ += a != b;
            differ += a != b || ra != rb;
            positions++;
        }
        tg_state_free(s);
    }
    printf("# c=0 and c=100: different searches in %u, different moves in %u, of %u positions\n",
           differ, moves_differ, positions);
    assert_true(positions > 0);
    assert_true(differ > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_good),      cmocka_unit_test(test_check_bad),
        cmocka_unit_test(test_check_long),      cmocka_unit_test(test_choose_errors),
        cmocka_unit_test(test_choose_game_over), cmocka_unit_test(test_start_positions),
        cmocka_unit_test(test_single_decision), cmocka_unit_test(test_every_game),
        cmocka_unit_test(test_greedy_positions), cmocka_unit_test(test_greedy_ties),
        cmocka_unit_test(test_mcts_positions),  cmocka_unit_test(test_mcts_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

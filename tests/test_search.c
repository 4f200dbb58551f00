/* The `search` engine and the tg_search handle: spec grammar, errors that change nothing,
 * analyses of small endgames against an exhaustive minimax written here over the public API
 * (expectiminimax for At-Tab wa-d-Dukk), proven wins played out against every reply, and
 * node- and depth-bounded searches that give the same moves on every run (a table the
 * Python and JavaScript packages check too). Budgets stay small: this suite also runs under
 * valgrind and the sanitizers. Threads and stops: tests/test_search_threads.c. */
#include "test_util.h"

#include <math.h>

#define MOVE_SENTINEL 0xA5A5A5A5u
#define RNG_SENTINEL UINT64_C(0x0123456789ABCDEF)
#define MAX_OPTIONS 512

static bool is_option(const tg_state *s, tg_move m)
{
    tg_move all[MAX_OPTIONS];
    double p[MAX_OPTIONS];
    size_t n = tu_options(s, all, p, MAX_OPTIONS);
    for (size_t i = 0; i < n; i++)
        if (all[i] == m)
            return true;
    return false;
}

/* ---- specs ------------------------------------------------------------------------------- */

static const char *const good_specs[] = {
    "search",
    "search:time=1",
    "search:time=600000",
    "search:nodes=1",
    "search:nodes=1000000000",
    "search:depth=1",
    "search:depth=64",
    "search:tt=1",
    "search:tt=1024",
    "search:time=100,nodes=5000",
    "search:nodes=5000,time=100",
    "search:depth=5,nodes=100,time=7,tt=2",
    "search:tt=4,depth=3",
    "mcts:time=1",
    "mcts:time=600000",
    "mcts:time=100,iterations=50",
    "mcts:c=0.5,time=20",
    "mcts:iterations=5,c=0.25,time=3",
};

static const char *const bad_specs[] = {
    "search:",
    "search:,",
    "search:time",
    "search:time=",
    "search:time=0",
    "search:time=600001",
    "search:time=01",
    "search:time=-5",
    "search:time=+5",
    "search:time=1e3",
    "search:time=99999999999",
    "search:nodes=0",
    "search:nodes=1000000001",
    "search:nodes=10000000000",
    "search:depth=0",
    "search:depth=65",
    "search:tt=0",
    "search:tt=1025",
    "search:time=5,time=5",
    "search:nodes=5,nodes=6",
    "search:depth=2,depth=2",
    "search:tt=2,tt=2",
    "search:time=5,",
    "search:,time=5",
    "search: time=5",
    "search:time=5 ",
    "search:iterations=5",
    "search:c=1",
    "search:speed=3",
    "search:TIME=5",
    "searchx",
    "Search",
    "search ",
    "searc",
    "mcts:time=0",
    "mcts:time=600001",
    "mcts:time=5,time=5",
    "mcts:nodes=5",
    "mcts:depth=3",
    "mcts:tt=1",
    "random:time=5",
    "greedy:time=5",
    "greedy:nodes=5",
};

static void test_specs(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof good_specs / sizeof good_specs[0]; i++) {
        TU_OK(tg_bot_check(good_specs[i]));
        tg_search *h = tu_search_new(good_specs[i]);
        tg_search_free(h);
    }
    tg_search *sentinel = (tg_search *)&sentinel;
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
        TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(bad_specs[i]));
        tg_search *h = sentinel;
        TU_STATUS(TG_ERR_BAD_OPTION, tg_search_new(bad_specs[i], &h));
        assert_ptr_equal(h, sentinel);
        tg_state *s = tu_new("halusa");
        uint64_t rng = RNG_SENTINEL;
        tg_move m = MOVE_SENTINEL;
        TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_choose(s, bad_specs[i], &rng, &m));
        assert_int_equal(m, MOVE_SENTINEL);
        assert_true(rng == RNG_SENTINEL);
        tg_state_free(s);
    }
    /* Every other bot works through a handle too. */
    const char *const bots[] = {"random", "greedy", "mcts"};
    for (size_t i = 0; i < 3; i++)
        tg_search_free(tu_search_new(bots[i]));
}

/* ---- errors ------------------------------------------------------------------------------ */

static void test_null_and_range(void **unused)
{
    (void)unused;
    tg_search *h = tu_search_new("search:nodes=500,tt=1");
    tg_state *s = tu_new("hawalis");
    char before[4096], after[4096];
    TU_OK(tg_state_to_string(s, before, sizeof before, NULL));
    uint64_t rng = RNG_SENTINEL;
    tg_move m = MOVE_SENTINEL;
    tg_search *out = NULL;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_new(NULL, &out));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_new("search", NULL));
    assert_null(out);
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_choose(NULL, s, &rng, &m));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_choose(h, NULL, &rng, &m));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_choose(h, s, NULL, &m));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_choose(h, s, &rng, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_analyse(NULL, s, &rng));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_analyse(h, NULL, &rng));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_analyse(h, s, NULL));
    assert_int_equal(m, MOVE_SENTINEL);
    assert_true(rng == RNG_SENTINEL);
    assert_int_equal(tg_search_result_count(NULL), 0);
    assert_int_equal(tg_search_result_count(h), 0);
    double v = 5.0;
    bool proven = true;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result(NULL, 0, &m, &v, &proven));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result(h, 0, &m, &v, &proven));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result_line(NULL, 0, NULL, 0, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result_line(h, 0, NULL, 0, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_stats(NULL, NULL, NULL));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_stop(NULL));
    assert_int_equal(m, MOVE_SENTINEL);
    assert_true(v == 5.0 && proven);
    tg_search_free(NULL);

    /* After an analysis: indexes past the end, and the line's buffer contract. */
    TU_OK(tg_search_analyse(h, s, &rng));
    assert_true(rng == RNG_SENTINEL); /* search never draws at a decision */
    size_t n = tg_search_result_count(h);
    tg_move legal[MAX_OPTIONS];
    size_t count;
    TU_OK(tg_state_moves(s, legal, MAX_OPTIONS, &count));
    assert_int_equal(n, count);
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result(h, n, &m, &v, &proven));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result_line(h, n, NULL, 0, NULL));
    TU_OK(tg_search_result(h, 0, NULL, NULL, NULL));
    size_t needed = 0;
    TU_OK(tg_search_result_line(h, 0, NULL, 0, &needed));
    assert_true(needed >= 2);
    char line[1024];
    memset(line, 'Z', sizeof line);
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result_line(h, 0, NULL, 5, &needed));
    size_t again = 0;
    TU_STATUS(TG_ERR_BUFFER_TOO_SMALL, tg_search_result_line(h, 0, line, needed, &again));
    assert_int_equal(again, needed);
    assert_int_equal(line[0], 'Z');
    TU_OK(tg_search_result_line(h, 0, line, needed + 1, &again));
    assert_int_equal(strlen(line), needed);
    TU_OK(tg_state_to_string(s, after, sizeof after, NULL));
    assert_string_equal(before, after);

    /* A choice clears the analysis. */
    TU_OK(tg_search_choose(h, s, &rng, &m));
    assert_int_equal(tg_search_result_count(h), 0);
    uint64_t nodes = 0;
    uint32_t depth = 0;
    TU_OK(tg_search_stats(h, &nodes, &depth));
    assert_true(nodes > 0 && nodes <= 501);
    assert_true(depth >= 1);
    tg_search_free(h);
    tg_state_free(s);
}

static void test_finished_game(void **unused)
{
    (void)unused;
    const char *const specs[] = {"search:nodes=100,tt=1", "mcts:iterations=10", "greedy", "random"};
    tg_state *s = tu_new("walak-pussa");
    uint64_t rng = 11;
    TU_OK(tg_state_playout(s, &rng, 100000, NULL));
    assert_true(tg_state_is_terminal(s));
    for (size_t i = 0; i < 4; i++) {
        tg_search *h = tu_search_new(specs[i]);
        tg_state *live = tu_new("walak-pussa");
        uint64_t r = 3;
        TU_OK(tg_search_analyse(h, live, &r));
        assert_true(tg_search_result_count(h) > 0);
        r = RNG_SENTINEL;
        tg_move m = MOVE_SENTINEL;
        TU_STATUS(TG_ERR_GAME_OVER, tg_search_choose(h, s, &r, &m));
        TU_STATUS(TG_ERR_GAME_OVER, tg_search_analyse(h, s, &r));
        assert_int_equal(m, MOVE_SENTINEL);
        assert_true(r == RNG_SENTINEL);
        assert_int_equal(tg_search_result_count(h), 0); /* a failed analysis leaves none */
        TU_STATUS(TG_ERR_GAME_OVER, tg_bot_choose(s, specs[i], &r, &m));
        tg_state_free(live);
        tg_search_free(h);
    }
    tg_state_free(s);
}

/* At a throw, choose draws the outcome exactly as tg_state_apply_random() would; analyse
 * values each outcome for the player about to throw. */
static void test_chance_state(void **unused)
{
    (void)unused;
    const char *const specs[] = {"search:nodes=3000,tt=1", "mcts:iterations=50", "greedy"};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        tg_state *s = tu_new("tab");
        uint64_t rng = seed;
        for (int i = 0; i < 30; i++)
            TU_OK(tg_state_apply_random(s, &rng));
        while (tg_state_player(s) != TG_CHANCE)
            TU_OK(tg_state_apply_random(s, &rng));
        for (size_t k = 0; k < 3; k++) {
            tg_search *h = tu_search_new(specs[k]);
            uint64_t a = seed * 77, b = seed * 77;
            tg_move m;
            TU_OK(tg_search_choose(h, s, &a, &m));
            tg_state *copy = NULL;
            TU_OK(tg_state_clone(s, &copy));
            TU_OK(tg_state_apply_random(copy, &b));
            tg_state *mine = tu_after(s, m);
            assert_true(tg_state_equal(mine, copy));
            assert_true(a == b);
            tg_state_free(mine);
            tg_state_free(copy);

            uint64_t before = rng;
            TU_OK(tg_search_analyse(h, s, &rng));
            if (k == 0)
                assert_true(rng == before);
            tg_move outcomes[MAX_OPTIONS];
            double p[MAX_OPTIONS];
            size_t n = tu_options(s, outcomes, p, MAX_OPTIONS);
            assert_int_equal(tg_search_result_count(h), n);
            for (size_t i = 0; i < n; i++) {
                double v;
                TU_OK(tg_search_result(h, i, &m, &v, NULL));
                assert_true(is_option(s, m));
                assert_true(v >= -1.0 && v <= 1.0);
                if (i > 0) {
                    double prev;
                    TU_OK(tg_search_result(h, i - 1, NULL, &prev, NULL));
                    assert_true(prev >= v); /* best first */
                }
            }
            tg_search_free(h);
        }
        tg_state_free(s);
    }
}

/* ---- exhaustive minimax ------------------------------------------------------------------ */

/* The game value for player 0 (1 won, 0 drawn, -1 lost; expected at throws) of every line
 * from s, or false if some line needs more than `plies` more plies. A known 1 at a node of
 * player 0 (or -1 at one of player 1) settles it, whatever its other moves would need. */
static bool exact_value(tg_state *s, int plies, double *value)
{
    if (tg_state_is_terminal(s)) {
        int w = tg_state_winner(s);
        *value = w == 0 ? 1.0 : w == 1 ? -1.0 : 0.0;
        return true;
    }
    if (plies == 0)
        return false;
    tg_move m[MAX_OPTIONS];
    double p[MAX_OPTIONS];
    size_t n = tu_options(s, m, p, MAX_OPTIONS);
    int player = tg_state_player(s);
    double acc = player == TG_CHANCE ? 0.0 : player == 0 ? -2.0 : 2.0;
    bool known = true;
    for (size_t i = 0; i < n; i++) {
        double v = 0.0;
        TU_OK(tg_state_apply(s, m[i]));
        bool k = exact_value(s, plies - 1, &v);
        TU_OK(tg_state_undo(s));
        if (player == TG_CHANCE) {
            known = known && k;
            acc += p[i] * v;
        } else if (k && v == (player == 0 ? 1.0 : -1.0)) {
            *value = v;
            return true;
        } else if (!k) {
            known = false;
        } else if (player == 0 ? v > acc : v < acc) {
            acc = v;
        }
    }
    *value = acc;
    return known;
}

/* Small endgames of each game (from random games, checked by tg_state_from_string), and
 * At-Tab wa-d-Dukk positions built by hand where some moves end the game this turn. */
static const struct endgame {
    const char *rules;
    const char *text;
    int plies; /* the minimax's bound: the games' ends, or At-Tab wa-d-Dukk's turn */
} endgames[] = {
    {"halusa:quiet=12",
     "halusa:remainder=last-mover,quiet=12 0,1,0,0,0,3/0,2,0,0,0,0 1 38,28 quiet=7", 40},
    {"halusa:quiet=12",
     "halusa:remainder=last-mover,quiet=12 0,1,0,0,0,1/0,0,0,0,3,1 1 32,34 quiet=3", 40},
    {"halusa:quiet=12",
     "halusa:remainder=last-mover,quiet=12 1,0,0,0,0,0/0,0,0,1,0,2 0 14,54 quiet=0", 40},
    {"hus",
     "hus:width=8,laps=10000,quiet=100 "
     "0,0,2,0,2,0,0,2/0,0,0,1,1,1,1,0/3,1,0,3,2,5,5,1/3,1,2,0,2,3,1,6 0 38,10 quiet=1",
     40},
    {"hus",
     "hus:width=8,laps=10000,quiet=100 "
     "2,3,1,3,0,3,1,2/2,1,4,2,3,4,4,3/0,1,0,0,1,0,0,2/2,0,0,1,3,0,0,0 0 10,38 quiet=0",
     40},
    {"hus",
     "hus:width=8,laps=10000,quiet=100 "
     "0,1,1,1,0,0,0,3/1,1,0,0,3,0,0,0/3,4,4,5,0,3,7,0/0,2,1,4,1,0,1,2 0 37,11 quiet=1",
     40},
    {"hawalis",
     "hawalis:variant=oman,laps=10000,quiet=100 "
     "0,0,0,0,0,0,0/0,0,0,1,0,0,0/0,0,0,0,0,1,1/0,0,1,0,0,1,0 0 27,24 quiet=0",
     40},
    {"hawalis",
     "hawalis:variant=oman,laps=10000,quiet=100 "
     "0,1,0,0,1,0,0/1,0,1,1,0,0,0/0,0,0,0,0,1,1/0,0,0,0,0,0,0 1 23,26 quiet=8",
     40},
    {"hawalis",
     "hawalis:variant=oman,laps=10000,quiet=100 "
     "0,1,0,0,1,0,0/1,0,0,1,0,0,0/0,0,0,0,0,1,0/0,0,0,0,0,0,0 1 24,27 quiet=2",
     40},
    {"walak-pussa",
     "walak-pussa:rounds=single,laps=10000,quiet=100 1,0,0,0,1,0,0/0,0,0,1,0,0,0 1 24,29 quiet=1",
     40},
    {"walak-pussa",
     "walak-pussa:rounds=single,laps=10000,quiet=100 0,0,0,0,0,1,0/0,1,0,0,0,1,0 0 27,26 quiet=12",
     40},
    {"walak-pussa",
     "walak-pussa:rounds=single,laps=10000,quiet=100 1,0,0,0,0,1,0/0,0,1,0,0,0,0 1 42,11 quiet=0",
     40},
    /* Player 0's two pieces i3, j3 against player 1's last piece on l3, throws 1 and 2:
     * j3+2, i3+1 then j3+2, or i3+2 then k3+1 take it and win. */
    {"tab",
     "tab:width=13 .,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,x,x,.,o,./"
     ".,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,. 0 12,11 throws=1,2",
     6},
    /* The same with a 4 and a 2: only j3+2 takes it. */
    {"tab",
     "tab:width=13 .,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,x,x,.,o,./"
     ".,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,. 0 12,11 throws=2,4",
     6},
};
#define ENDGAME_COUNT (sizeof endgames / sizeof endgames[0])
#define ENDGAME_SPEC "search:nodes=200000,tt=2"

/* The principal line of a proven win (no throws) plays the win out: it ends the game, won by
 * the player to move. Its last decision comes from no table entry (the positions one ply
 * above the leaves are not stored), so this also checks the line's move picked at a glance. */
static void won_line_wins(const tg_search *h, size_t i, const tg_state *s, const char *text)
{
    char line[1024], moves[1024];
    TU_OK(tg_search_result_line(h, i, line, sizeof line, NULL));
    memcpy(moves, line, sizeof moves);
    tg_state *replay = NULL;
    TU_OK(tg_state_clone(s, &replay));
    for (char *tok = strtok(moves, " "); tok; tok = strtok(NULL, " "))
        tu_play(replay, tok);
    if (!tg_state_is_terminal(replay) || tg_state_winner(replay) != tg_state_player(s))
        TU_FAIL("%s: the line of a proven win does not win: %s", text, line);
    tg_state_free(replay);
}

static void test_endgames_agree_with_minimax(void **unused)
{
    (void)unused;
    tg_search *h = tu_search_new(ENDGAME_SPEC);
    size_t proven_total = 0;
    for (size_t e = 0; e < ENDGAME_COUNT; e++) {
        tg_state *s = tu_from(endgames[e].rules, endgames[e].text);
        int me = tg_state_player(s);
        uint64_t rng = 0;
        TU_OK(tg_search_analyse(h, s, &rng));
        size_t n = tg_search_result_count(h);
        tg_move legal[MAX_OPTIONS];
        double p[MAX_OPTIONS];
        assert_int_equal(n, tu_options(s, legal, p, MAX_OPTIONS));
        size_t proven_here = 0;
        for (size_t i = 0; i < n; i++) {
            tg_move m;
            double v;
            bool proven;
            TU_OK(tg_search_result(h, i, &m, &v, &proven));
            assert_true(is_option(s, m));
            TU_OK(tg_state_apply(s, m));
            double exact0 = 0.0;
            bool known = exact_value(s, endgames[e].plies, &exact0);
            TU_OK(tg_state_undo(s));
            double exact = me == 0 ? exact0 : -exact0;
            if (proven && !known)
                TU_FAIL("%s: move %u proven %.4f, beyond the minimax's %d plies", endgames[e].text,
                        m, v, endgames[e].plies);
            if (known && !proven)
                TU_FAIL("%s: move %u not proven (%.4f); minimax %.4f", endgames[e].text, m, v,
                        exact);
            if (proven && fabs(v - exact) > 1e-3)
                TU_FAIL("%s: move %u valued %.6f, minimax %.6f", endgames[e].text, m, v, exact);
            if (proven && v == 1.0 && tg_state_player(s) != TG_CHANCE)
                won_line_wins(h, i, s, endgames[e].text);
            proven_here += proven;
        }
        printf("# %-12s %zu of %zu moves proven\n", endgames[e].rules, proven_here, n);
        assert_true(proven_here > 0);
        proven_total += proven_here;
        tg_state_free(s);
    }
    assert_true(proven_total >= ENDGAME_COUNT * 2);
    tg_search_free(h);
}

/* The search's move at each of `me`'s turns, every reply of the opponent, every throw: the
 * game must end with `me` winning in every line. */
static void play_out(tg_search *h, tg_state *s, int me, unsigned *lines)
{
    if (tg_state_is_terminal(s)) {
        assert_int_equal(tg_state_winner(s), me);
        (*lines)++;
        return;
    }
    tg_move m[MAX_OPTIONS];
    double p[MAX_OPTIONS];
    if (tg_state_player(s) == me) {
        uint64_t rng = 0;
        TU_OK(tg_search_choose(h, s, &rng, &m[0]));
        TU_OK(tg_state_apply(s, m[0]));
        play_out(h, s, me, lines);
        TU_OK(tg_state_undo(s));
        return;
    }
    size_t n = tu_options(s, m, p, MAX_OPTIONS);
    for (size_t i = 0; i < n; i++) {
        TU_OK(tg_state_apply(s, m[i]));
        play_out(h, s, me, lines);
        TU_OK(tg_state_undo(s));
    }
}

static void test_proven_wins_win(void **unused)
{
    (void)unused;
    tg_search *analysis = tu_search_new(ENDGAME_SPEC);
    tg_search *player = tu_search_new("search:nodes=20000,tt=1");
    unsigned won = 0;
    for (size_t e = 0; e < ENDGAME_COUNT; e++) {
        tg_state *s = tu_from(endgames[e].rules, endgames[e].text);
        uint64_t rng = 0;
        TU_OK(tg_search_analyse(analysis, s, &rng));
        double v;
        bool proven;
        TU_OK(tg_search_result(analysis, 0, NULL, &v, &proven));
        if (proven && v == 1.0) {
            unsigned lines = 0;
            play_out(player, s, tg_state_player(s), &lines);
            printf("# %-12s won in all %u lines\n", endgames[e].rules, lines);
            won++;
        }
        tg_state_free(s);
    }
    assert_true(won >= 5);
    tg_search_free(player);
    tg_search_free(analysis);
}

/* ---- determinism ------------------------------------------------------------------------- */

/* (rule set, position, spec, move): the same on every run and platform. The Python and
 * JavaScript packages check this same table (/work/spec/engine-api.md lists it). */
static const struct tuple {
    const char *rules, *text, *spec, *move;
} tuples[] = {
#include "search_tuples.inc"
};

static void test_deterministic_tuples(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof tuples / sizeof tuples[0]; i++) {
        tg_state *s = tu_from(tuples[i].rules, tuples[i].text);
        tg_search *h = tu_search_new(tuples[i].spec);
        uint64_t rng = 5;
        tg_move m;
        char text[64];
        TU_OK(tg_search_choose(h, s, &rng, &m));
        TU_OK(tg_move_to_string(s, m, text, sizeof text, NULL));
        if (strcmp(text, tuples[i].move) != 0)
            TU_FAIL("%s with %s: %s, expected %s", tuples[i].text, tuples[i].spec, text,
                    tuples[i].move);
        TU_OK(tg_bot_choose(s, tuples[i].spec, &rng, &m));
        TU_OK(tg_move_to_string(s, m, text, sizeof text, NULL));
        assert_string_equal(text, tuples[i].move);
        assert_true(rng == 5); /* search never draws at a decision */
        tg_search_free(h);
        tg_state_free(s);
    }
}

/* The same analysis (moves, values, proofs, lines) from a fresh handle and from one that
 * searched something else before. */
static void test_analysis_repeats(void **unused)
{
    (void)unused;
    const char *const rules[] = {"halusa", "hus", "hawalis", "walak-pussa", "tab"};
    for (size_t g = 0; g < 5; g++) {
        tg_state *s = tu_new(rules[g]);
        uint64_t rng = 40 + g;
        for (int i = 0; i < 10; i++)
            TU_OK(tg_state_apply_random(s, &rng));
        while (tg_state_player(s) == TG_CHANCE)
            TU_OK(tg_state_apply_random(s, &rng));
        tg_search *a = tu_search_new("search:nodes=3000,tt=1");
        tg_search *b = tu_search_new("search:nodes=3000,tt=1");
        tg_state *other = tu_new(rules[g]);
        uint64_t r = 0;
        tg_move m;
        TU_OK(tg_search_choose(b, other, &r, &m)); /* fills b's table with other positions */
        TU_OK(tg_search_analyse(a, s, &r));
        TU_OK(tg_search_analyse(b, s, &r));
        size_t n = tg_search_result_count(a);
        assert_int_equal(n, tg_search_result_count(b));
        for (size_t i = 0; i < n; i++) {
            tg_move ma, mb;
            double va, vb;
            bool pa, pb;
            char la[1024], lb[1024];
            TU_OK(tg_search_result(a, i, &ma, &va, &pa));
            TU_OK(tg_search_result(b, i, &mb, &vb, &pb));
            TU_OK(tg_search_result_line(a, i, la, sizeof la, NULL));
            TU_OK(tg_search_result_line(b, i, lb, sizeof lb, NULL));
            assert_int_equal(ma, mb);
            assert_true(va == vb);
            assert_int_equal(pa, pb);
            assert_string_equal(la, lb);
            assert_true(va >= -1.0 && va <= 1.0);
            if (!pa)
                assert_true(va > -1.0 && va < 1.0);
            /* The line starts with the move and replays legally. */
            char first[64];
            TU_OK(tg_move_to_string(s, ma, first, sizeof first, NULL));
            assert_memory_equal(la, first, strlen(first));
            tg_state *replay = NULL;
            TU_OK(tg_state_clone(s, &replay));
            for (char *tok = strtok(la, " "); tok; tok = strtok(NULL, " ")) {
                tg_move x;
                TU_OK(tg_move_from_string(replay, tok, &x));
                TU_OK(tg_state_apply(replay, x));
            }
            tg_state_free(replay);
        }
        uint64_t na, nb;
        uint32_t da, db;
        TU_OK(tg_search_stats(a, &na, &da));
        TU_OK(tg_search_stats(b, &nb, &db));
        assert_true(na == nb && da == db);
        tg_search_free(a);
        tg_search_free(b);
        tg_state_free(other);
        tg_state_free(s);
    }
}

/* ---- every rule set ---------------------------------------------------------------------- */

/* Random games of every rule set: at each of some plies, a small search and a small timed
 * one return legal moves without touching the state, and the handle's choice for every bot
 * equals tg_bot_choose's. */
static void test_every_rule_set(void **unused)
{
    (void)unused;
    const char *const rule_sets[] = {"halusa",
                                     "hus",
                                     "hawalis",
                                     "walak-pussa",
                                     "tab",
                                     "hus:width=12",
                                     "hawalis:variant=zanzibar",
                                     "tab:width=29",
                                     "walak-pussa:rounds=match"};
    const char *const specs[] = {"search:nodes=400,tt=1",
                                 "search:time=5,tt=1",
                                 "mcts:time=5,iterations=100",
                                 "mcts:iterations=30",
                                 "greedy",
                                 "random"};
    for (size_t g = 0; g < sizeof rule_sets / sizeof rule_sets[0]; g++) {
        tg_state *s = tu_new(rule_sets[g]);
        tg_search *h[6];
        for (size_t k = 0; k < 6; k++)
            h[k] = tu_search_new(specs[k]);
        uint64_t rng = 900 + g;
        for (int ply = 0; ply < 400 && !tg_state_is_terminal(s); ply++) {
            if (ply % 25 == 0) {
                char before[4096], after[4096];
                TU_OK(tg_state_to_string(s, before, sizeof before, NULL));
                for (size_t k = 0; k < 6; k++) {
                    uint64_t a = ply, b = ply;
                    tg_move ma, mb;
                    TU_OK(tg_search_choose(h[k], s, &a, &ma));
                    assert_true(is_option(s, ma));
                    if (k != 1 && k != 2) { /* not timed: the same as the one-call bot */
                        TU_OK(tg_bot_choose(s, specs[k], &b, &mb));
                        assert_int_equal(ma, mb);
                        assert_true(a == b);
                    }
                }
                TU_OK(tg_search_analyse(h[0], s, &rng));
                assert_true(tg_search_result_count(h[0]) > 0);
                TU_OK(tg_state_to_string(s, after, sizeof after, NULL));
                assert_string_equal(before, after);
            }
            TU_OK(tg_state_apply_random(s, &rng));
        }
        for (size_t k = 0; k < 6; k++)
            tg_search_free(h[k]);
        tg_state_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specs),
        cmocka_unit_test(test_null_and_range),
        cmocka_unit_test(test_finished_game),
        cmocka_unit_test(test_chance_state),
        cmocka_unit_test(test_endgames_agree_with_minimax),
        cmocka_unit_test(test_proven_wins_win),
        cmocka_unit_test(test_deterministic_tuples),
        cmocka_unit_test(test_analysis_repeats),
        cmocka_unit_test(test_every_rule_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

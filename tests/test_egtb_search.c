/* The search with an endgame database attached (tg_search_set_egtb, docs/egtb.md "In the
 * search"): on random samples of Halusa and Walak-pussa positions of up to 8 counters, the
 * analysis gives every move the exact value the file's own minimax gives it, sorts the best
 * first, and tg_search_choose() plays an optimal move; positions above the database are proven
 * through it at a depth that cannot prove them without it; a missing file, a damaged block and
 * another rule set give their status and leave the search exactly as it is without a
 * database; readers agree with tg_egtb_probe(); two threads share one database; bad input. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, unlink, rmdir */

#include "egtb_reference.h"

#include <pthread.h>

#define HALUSA "halusa:remainder=last-mover,quiet=3"
#define WALAK "walak-pussa:rounds=single,laps=10000,quiet=2"

struct game {
    const char *spec, *id;
    int cols, total, quiet;
    bool even; /* captures are even (Halusa): counters on the board and scores stay even */
};

static const struct game halusa = {HALUSA, "halusa", 6, 72, 3, true};
static const struct game walak = {WALAK, "walak-pussa", 7, 56, 2, false};

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A random running position of `counters` counters on the board, scores near even; NULL if
 * the library refuses it (the side to move has no move). */
static tg_state *random_position(const struct game *g, const tg_rules *r, int counters, uint64_t *x)
{
    int holes = 2 * g->cols, cell[16] = {0};
    for (int k = 0; k < counters; k++)
        cell[next_random(x) % (uint64_t)holes]++;
    int banked = g->total - counters;
    int lead = (int)(next_random(x) % 9) - 4;
    if (g->even)
        lead *= 2;
    int s0 = banked / 2 + (g->even ? (banked / 2) % 2 : 0) + lead;
    char text[512];
    int len = snprintf(text, sizeof text, "%s ", g->spec);
    for (int row = 1; row >= 0; row--)
        for (int c = 0; c < g->cols; c++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%d%s", cell[row * g->cols + c],
                            c + 1 < g->cols ? ","
                            : row           ? "/"
                                            : "");
    snprintf(text + len, sizeof text - (size_t)len, " %d %d,%d quiet=%d", (int)(next_random(x) % 2),
             s0, banked - s0, (int)(next_random(x) % (uint64_t)g->quiet));
    tg_state *s = NULL;
    return tg_state_from_string(r, text, &s) == TG_OK ? s : NULL;
}

/* The reference's value of `move` at `s` for its mover, as reference() values a move: the
 * margin it gains to the end, or REF_WIN / REF_LOSS by an endless move. */
static int move_reference(struct memo *m, tg_state *s, tg_move move, int holes)
{
    int me = tg_state_player(s), before = margin(s, me), v;
    TU_OK(tg_state_apply(s, move));
    if (tg_state_is_terminal(s)) {
        v = tg_state_end_reason(s) == TG_END_ENDLESS ? REF_LOSS : margin(s, me) - before;
    } else {
        int after = reference(m, s, holes);
        bool same = tg_state_player(s) == me;
        if (after == REF_WIN || after == REF_LOSS)
            v = same ? after : -after;
        else
            v = margin(s, me) - before + (same ? after : -after);
    }
    TU_OK(tg_state_undo(s));
    return v;
}

/* The outcome (+1, 0, -1) for the mover of a reference value at `s`. */
static int outcome_of(const tg_state *s, int v)
{
    if (v == REF_WIN || v == REF_LOSS)
        return v > 0 ? 1 : -1;
    int final = margin(s, tg_state_player(s)) + v;
    return (final > 0) - (final < 0);
}

static void assert_exact_matches(const tg_state *s, int want, const tg_egtb_value *got)
{
    if (want == REF_WIN || want == REF_LOSS) {
        assert_true(got->endless);
        assert_int_equal(got->outcome, want > 0 ? 1 : -1);
    } else {
        assert_false(got->endless);
        assert_int_equal(got->margin_to_go, want);
        assert_int_equal(got->final_margin, margin(s, tg_state_player(s)) + want);
        assert_int_equal(got->outcome, outcome_of(s, want));
    }
}

static void build(const struct game *g, int counters, tg_rules **r, char *dir, tg_egtb **db)
{
    TU_OK(tg_rules_new(g->spec, r));
    make_dir(dir);
    assert_int_equal(tg_egtb_build(*r, dir, counters, 2, NULL, NULL), TG_EGTB_OK);
    assert_int_equal(tg_egtb_open(dir, *r, db), TG_EGTB_OK);
}

/* ----- a covered root: every move exact, the best first, an optimal move played */

static void check_covered_roots(const struct game *g, int samples)
{
    tg_rules *r = NULL;
    tg_egtb *db = NULL;
    char dir[64];
    build(g, 8, &r, dir, &db);
    tg_search *h = NULL, *chooser = NULL;
    TU_OK(tg_search_new("search:depth=1", &h));
    TU_OK(tg_search_new("search:depth=1", &chooser));
    TU_OK(tg_search_set_egtb(h, db));
    TU_OK(tg_search_set_egtb(chooser, db));
    struct memo memo = {NULL, 0, 0};
    memo_grow(&memo);
    uint64_t x = 0x9E3779B97F4A7C15u;
    int checked = 0, wins = 0, draws = 0, losses = 0;
    for (int k = 0; checked < samples; k++) {
        assert_true(k < 50 * samples);
        int counters =
            g->even ? 2 * (1 + (int)(next_random(&x) % 4)) : 1 + (int)(next_random(&x) % 8);
        tg_state *s = random_position(g, r, counters, &x);
        if (!s)
            continue;
        int holes = 2 * g->cols, want = reference(&memo, s, holes);
        uint64_t rng = 1;
        TU_OK(tg_search_analyse(h, s, &rng));
        assert_int_equal(tg_search_egtb_status(h), TG_EGTB_OK);
        tg_move moves[16];
        size_t n = 0;
        TU_OK(tg_state_moves(s, moves, 16, &n));
        assert_int_equal(tg_search_result_count(h), n);
        int previous_order = 0;
        for (size_t i = 0; i < n; i++) {
            tg_move m;
            double value;
            bool proven, exact;
            tg_egtb_value v;
            TU_OK(tg_search_result(h, i, &m, &value, &proven));
            TU_OK(tg_search_result_exact(h, i, &v, &exact));
            assert_true(proven);
            assert_true(exact);
            assert_true(value == (double)v.outcome);
            int move_want = move_reference(&memo, s, m, holes);
            assert_exact_matches(s, move_want, &v);
            /* Best first: the first result is optimal, the others never better. */
            int order = v.endless ? 1000 * v.outcome : v.final_margin;
            if (i == 0)
                assert_int_equal(move_want, want);
            else
                assert_true(order <= previous_order);
            previous_order = order;
            if (i == 0) {
                wins += v.outcome > 0;
                draws += v.outcome == 0;
                losses += v.outcome < 0;
            }
        }
        tg_move played;
        TU_OK(tg_search_choose(chooser, s, &rng, &played));
        assert_int_equal(move_reference(&memo, s, played, holes), want);
        tg_state_free(s);
        checked++;
    }
    print_message("# %s: %d positions (%d won, %d drawn, %d lost) exact and optimal\n", g->spec,
                  checked, wins, draws, losses);
    /* The sample is not all one kind of position. */
    assert_true(wins > 0 && losses > 0);
    free(memo.slot);
    tg_search_free(h);
    tg_search_free(chooser);
    tg_egtb_close(db);
    tg_rules_free(r);
    remove_dir(dir, g->id);
}

static void halusa_covered_roots(void **state)
{
    (void)state;
    check_covered_roots(&halusa, 300);
}

static void walak_pussa_covered_roots(void **state)
{
    (void)state;
    check_covered_roots(&walak, 300);
}

/* ----- positions above the database, proven through it */

static void halusa_proven_through_the_database(void **state)
{
    (void)state;
    tg_rules *r = NULL;
    tg_egtb *db = NULL;
    char dir[64];
    build(&halusa, 6, &r, dir, &db);
    /* With quiet=3, three quiet moves end the game and a capture leaves at most 6 counters:
     * depth 4 reaches the database or the end on every line. Without it, depth 4 proves
     * little: the lines then go on to the end of the game. */
    tg_search *with = NULL, *without = NULL;
    TU_OK(tg_search_new("search:depth=4", &with));
    TU_OK(tg_search_new("search:depth=4", &without));
    TU_OK(tg_search_set_egtb(with, db));
    struct memo memo = {NULL, 0, 0};
    memo_grow(&memo);
    uint64_t x = 12345;
    int checked = 0, unproven_without = 0;
    uint64_t nodes_with = 0, nodes_without = 0;
    while (checked < 60) {
        tg_state *s = random_position(&halusa, r, 8, &x);
        if (!s)
            continue;
        uint64_t rng = 1, nodes = 0;
        TU_OK(tg_search_analyse(with, s, &rng));
        TU_OK(tg_search_stats(with, &nodes, NULL));
        nodes_with += nodes;
        TU_OK(tg_search_analyse(without, s, &rng));
        TU_OK(tg_search_stats(without, &nodes, NULL));
        nodes_without += nodes;
        assert_int_equal(tg_search_egtb_status(with), TG_EGTB_OK);
        size_t n = tg_search_result_count(with);
        for (size_t i = 0; i < n; i++) {
            tg_move m;
            double value;
            bool proven, exact = true;
            TU_OK(tg_search_result(with, i, &m, &value, &proven));
            TU_OK(tg_search_result_exact(with, i, NULL, &exact));
            assert_false(exact); /* the root is not covered: results are the search's */
            assert_true(proven);
            int want = outcome_of(s, move_reference(&memo, s, m, 12));
            if (value != (double)want)
                TU_FAIL("result %zu: %g, the minimax says %d", i, value, want);
            TU_OK(tg_search_result(without, i, NULL, NULL, &proven));
            unproven_without += !proven;
        }
        tg_state_free(s);
        checked++;
    }
    print_message("# 60 positions of 8 counters proven through a 6-counter database: %llu "
                  "positions searched (%llu without it, %d results then unproven)\n",
                  (unsigned long long)nodes_with, (unsigned long long)nodes_without,
                  unproven_without);
    assert_true(unproven_without > 0);
    free(memo.slot);
    tg_search_free(with);
    tg_search_free(without);
    tg_egtb_close(db);
    tg_rules_free(r);
    remove_dir(dir, halusa.id);
}

/* ----- failures: the search goes on as without a database */

/* Analyses `text` with `db` attached and without; the status seen, and the results must be
 * the same as without a database, none of them exact. */
static void assert_searched_without(const tg_rules *r, const tg_egtb *db, const char *text,
                                    tg_egtb_status want)
{
    tg_state *s = NULL;
    TU_OK(tg_state_from_string(r, text, &s));
    tg_search *with = NULL, *without = NULL;
    TU_OK(tg_search_new("search:depth=6", &with));
    TU_OK(tg_search_new("search:depth=6", &without));
    TU_OK(tg_search_set_egtb(with, db));
    uint64_t rng = 1, nodes_with = 0, nodes_without = 0;
    TU_OK(tg_search_analyse(with, s, &rng));
    TU_OK(tg_search_analyse(without, s, &rng));
    assert_int_equal(tg_search_egtb_status(with), want);
    assert_int_equal(tg_search_egtb_status(without), TG_EGTB_OK);
    TU_OK(tg_search_stats(with, &nodes_with, NULL));
    TU_OK(tg_search_stats(without, &nodes_without, NULL));
    assert_int_equal(nodes_with, nodes_without);
    size_t n = tg_search_result_count(with);
    assert_int_equal(n, tg_search_result_count(without));
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        tg_move m1, m2;
        double v1, v2;
        bool p1, p2, exact = true;
        TU_OK(tg_search_result(with, i, &m1, &v1, &p1));
        TU_OK(tg_search_result(without, i, &m2, &v2, &p2));
        TU_OK(tg_search_result_exact(with, i, NULL, &exact));
        assert_int_equal(m1, m2);
        assert_true(v1 == v2);
        assert_int_equal(p1, p2);
        assert_false(exact);
    }
    tg_move chosen;
    TU_OK(tg_search_choose(with, s, &rng, &chosen));
    assert_int_equal(tg_search_egtb_status(with), want);
    tg_search_free(with);
    tg_search_free(without);
    tg_state_free(s);
}

#define P4 HALUSA " 0,0,0,0,0,2/0,0,0,1,1,0 0 34,34 quiet=0"
#define P6 HALUSA " 0,0,0,0,2,2/0,0,0,1,1,0 0 34,32 quiet=2"

static void missing_damaged_and_foreign(void **state)
{
    (void)state;
    tg_rules *r = NULL, *other = NULL;
    tg_egtb *db = NULL;
    char dir[64], path[512];
    build(&halusa, 6, &r, dir, &db);
    TU_OK(tg_rules_new("halusa", &other));
    tg_egtb_reader *reader = NULL;
    assert_int_equal(tg_egtb_reader_new(db, &reader), TG_EGTB_OK);
    tg_state *s4 = NULL, *s6 = NULL;
    TU_OK(tg_state_from_string(r, P4, &s4));
    TU_OK(tg_state_from_string(r, P6, &s6));
    tg_egtb_value v;
    assert_int_equal(tg_egtb_reader_probe(reader, s6, &v), TG_EGTB_OK);

    /* Another rule set: nothing probed, the search as without. */
    assert_searched_without(other, db, "halusa 0,0,0,0,2,2/0,0,0,1,1,0 0 34,32 quiet=0",
                            TG_EGTB_WRONG_RULES);

    /* A damaged block: the 6-counter layer of quiet count 2 is one block, the first written
     * (the builder solves the last quiet count first). */
    tg_egtb_close(db);
    file_path(path, sizeof path, dir, "halusa", 6);
    flip_byte(path, 20);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    tg_egtb_reader_free(reader);
    assert_int_equal(tg_egtb_reader_new(db, &reader), TG_EGTB_OK);
    assert_int_equal(tg_egtb_reader_probe(reader, s6, &v), TG_EGTB_DAMAGED);
    assert_int_equal(tg_egtb_reader_probe(reader, s6, &v), TG_EGTB_DAMAGED); /* never kept */
    assert_int_equal(tg_egtb_reader_probe(reader, s4, &v), TG_EGTB_OK);      /* others read */
    assert_searched_without(r, db, P6, TG_EGTB_DAMAGED);
    flip_byte(path, 20);
    assert_int_equal(tg_egtb_reader_probe(reader, s6, &v), TG_EGTB_OK); /* restored */

    /* A missing file. */
    tg_egtb_reader_free(reader);
    tg_egtb_close(db);
    file_path(path, sizeof path, dir, "halusa", 4);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    assert_searched_without(r, db, P4, TG_EGTB_MISSING_FILE);

    /* Detached: no status, no exact result. */
    tg_search *h = NULL;
    TU_OK(tg_search_new("search:depth=2", &h));
    TU_OK(tg_search_set_egtb(h, db));
    TU_OK(tg_search_set_egtb(h, NULL));
    uint64_t rng = 1;
    TU_OK(tg_search_analyse(h, s4, &rng));
    assert_int_equal(tg_search_egtb_status(h), TG_EGTB_OK);
    bool exact = true;
    TU_OK(tg_search_result_exact(h, 0, NULL, &exact));
    assert_false(exact);
    tg_search_free(h);

    tg_state_free(s4);
    tg_state_free(s6);
    tg_egtb_close(db);
    tg_rules_free(r);
    tg_rules_free(other);
    remove_dir(dir, "halusa");
}

/* ----- readers agree with tg_egtb_probe, and one database serves two threads */

struct shared_job {
    const tg_egtb *db;
    const tg_rules *rules;
    uint64_t seed;
    uint64_t digest; /* of every result of every analysis */
};

static void *analyse_many(void *arg)
{
    struct shared_job *j = arg;
    tg_search *h = NULL;
    TU_OK(tg_search_new("search:depth=3", &h));
    TU_OK(tg_search_set_egtb(h, j->db));
    uint64_t x = j->seed;
    j->digest = 0;
    for (int k = 0; k < 40;) {
        tg_state *s = random_position(&halusa, j->rules, 2 * (1 + (int)(next_random(&x) % 5)), &x);
        if (!s)
            continue;
        uint64_t rng = 1;
        TU_OK(tg_search_analyse(h, s, &rng));
        for (size_t i = 0; i < tg_search_result_count(h); i++) {
            tg_move m;
            double value;
            TU_OK(tg_search_result(h, i, &m, &value, NULL));
            j->digest = j->digest * 1000003u + m * 7u + (uint64_t)(value * 1000.0 + 2000.0);
        }
        tg_state_free(s);
        k++;
    }
    tg_search_free(h);
    return NULL;
}

static void readers_and_threads(void **state)
{
    (void)state;
    tg_rules *r = NULL;
    tg_egtb *db = NULL;
    char dir[64];
    build(&halusa, 8, &r, dir, &db);
    tg_egtb_reader *reader = NULL;
    assert_int_equal(tg_egtb_reader_new(db, &reader), TG_EGTB_OK);
    uint64_t x = 99;
    for (int k = 0; k < 2000;) {
        tg_state *s = random_position(&halusa, r, 2 * (1 + (int)(next_random(&x) % 4)), &x);
        if (!s)
            continue;
        tg_egtb_value a, b;
        assert_int_equal(tg_egtb_probe(db, s, &a), TG_EGTB_OK);
        assert_int_equal(tg_egtb_reader_probe(reader, s, &b), TG_EGTB_OK);
        assert_memory_equal(&a, &b, sizeof a);
        tg_state_free(s);
        k++;
    }
    /* Each thread's digest is the one it makes alone. */
    struct shared_job alone[2] = {{db, r, 1, 0}, {db, r, 2, 0}};
    struct shared_job together[2] = {{db, r, 1, 0}, {db, r, 2, 0}};
    analyse_many(&alone[0]);
    analyse_many(&alone[1]);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, analyse_many, &together[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 2; i++)
        assert_true(alone[i].digest == together[i].digest);
    tg_egtb_reader_free(reader);
    tg_egtb_close(db);
    tg_rules_free(r);
    remove_dir(dir, halusa.id);
}

/* ----- bad input */

static void bad_input(void **state)
{
    (void)state;
    tg_rules *r = NULL;
    tg_egtb *db = NULL;
    char dir[64];
    build(&halusa, 2, &r, dir, &db);
    tg_egtb_reader *reader = NULL;
    tg_egtb_value v;
    assert_int_equal(tg_egtb_reader_new(NULL, &reader), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_reader_new(db, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_null(reader);
    assert_int_equal(tg_egtb_reader_new(db, &reader), TG_EGTB_OK);
    tg_state *s = NULL, *foreign = NULL;
    TU_OK(tg_state_new(r, &s));
    assert_int_equal(tg_egtb_reader_probe(NULL, s, &v), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_reader_probe(reader, NULL, &v), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_reader_probe(reader, s, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_reader_probe(reader, s, &v), TG_EGTB_NOT_IN_DATABASE);
    tg_rules *hus = NULL;
    TU_OK(tg_rules_new("hus", &hus));
    TU_OK(tg_state_new(hus, &foreign));
    assert_int_equal(tg_egtb_reader_probe(reader, foreign, &v), TG_EGTB_WRONG_RULES);
    tg_egtb_reader_free(reader);
    tg_egtb_reader_free(NULL);

    tg_search *h = NULL, *mcts = NULL, *prove = NULL;
    TU_OK(tg_search_new("search:depth=1", &h));
    TU_OK(tg_search_new("mcts:iterations=10", &mcts));
    TU_OK(tg_search_new("prove", &prove));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_set_egtb(NULL, db));
    TU_STATUS(TG_ERR_BAD_OPTION, tg_search_set_egtb(mcts, db));
    TU_STATUS(TG_ERR_BAD_OPTION, tg_search_set_egtb(prove, db));
    assert_int_equal(tg_search_egtb_status(NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_search_egtb_status(h), TG_EGTB_OK);
    bool exact;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result_exact(NULL, 0, &v, &exact));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_search_result_exact(h, 0, &v, &exact));
    /* A database of another game searched with: refused at each call, the search as usual. */
    TU_OK(tg_search_set_egtb(h, db));
    uint64_t rng = 1;
    TU_OK(tg_search_analyse(h, foreign, &rng));
    assert_int_equal(tg_search_egtb_status(h), TG_EGTB_WRONG_RULES);
    TU_STATUS(TG_ERR_INVALID_ARGUMENT,
              tg_search_result_exact(h, tg_search_result_count(h), &v, &exact));
    tg_search_free(h);
    tg_search_free(mcts);
    tg_search_free(prove);
    tg_state_free(s);
    tg_state_free(foreign);
    tg_rules_free(hus);
    tg_egtb_close(db);
    tg_rules_free(r);
    remove_dir(dir, "halusa");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(halusa_covered_roots),
        cmocka_unit_test(walak_pussa_covered_roots),
        cmocka_unit_test(halusa_proven_through_the_database),
        cmocka_unit_test(missing_damaged_and_foreign),
        cmocka_unit_test(readers_and_threads),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

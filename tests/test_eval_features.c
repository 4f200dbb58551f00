/* The features of the search's fitted evaluation (lib/search_features.c) on hand-built
 * positions whose counts are worked out in the comments, the evaluation that weighs them, and
 * the `eval=` option of a search spec. The library's sources are compiled in: the features
 * are internal. */
#include "test_util.h"

#include "bot.h"
#include "internal.h"
#include "search_features.h"

/* A state of `spec` whose cells are `cells` (row by row, south first) and scores `s0`, `s1`:
 * a position the features count, not one the rules need to reach. */
static tg_state *board(const char *spec, const uint8_t *cells, int n, int s0, int s1)
{
    tg_state *s = tu_new(spec);
    assert_int_equal(s->rules.cfg.cells, n);
    memcpy(s->pos.cell, cells, (size_t)n);
    s->pos.score[0] = (uint16_t)s0;
    s->pos.score[1] = (uint16_t)s1;
    return s;
}

static void expect_features(const tg_state *s, int me, const int32_t *want, size_t n)
{
    int32_t got[TG__FEATURES_MAX];
    assert_int_equal(tg__eval_features(&s->rules.cfg, &s->pos, me, got), n);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            TU_FAIL("%s feature %zu (%s) for player %d: %d, want %d",
                    tg_rules_spec(tg_state_rules(s)), i,
                    tg__eval_feature_name(s->rules.cfg.game, i), me, (int)got[i], (int)want[i]);
}

static void test_halusa(void **unused)
{
    (void)unused;
    /* South 0 1 3 0 7 2: 13 counters, 2 empty, 1 single, 1 big (at least 6, the row's width).
     * North 4 4 0 1 1 0: 10 counters, 2 empty, 2 single, 0 big. Scores 5 and 3. */
    static const uint8_t cells[12] = {0, 1, 3, 0, 7, 2, 4, 4, 0, 1, 1, 0};
    tg_state *s = board("halusa", cells, 12, 5, 3);
    expect_features(s, 0, (const int32_t[]){2, 3, 0, -1, 1}, 5);
    expect_features(s, 1, (const int32_t[]){-2, -3, 0, 1, -1}, 5);
    assert_string_equal(tg__eval_feature_name(&tg__halusa, 4), "big holes");
    assert_null(tg__eval_feature_name(&tg__halusa, 5));
    tg_state_free(s);
}

static void test_walak_pussa(void **unused)
{
    (void)unused;
    /* South 7 0 0 1 2 0 9: 19 counters, 3 empty, 1 single, 2 big (at least 7).
     * North 1 1 1 0 4 0 0: 7 counters, 3 empty, 3 single, 0 big. Scores 20 and 10. */
    static const uint8_t cells[14] = {7, 0, 0, 1, 2, 0, 9, 1, 1, 1, 0, 4, 0, 0};
    tg_state *s = board("walak-pussa", cells, 14, 20, 10);
    expect_features(s, 0, (const int32_t[]){10, 12, 0, -2, 2}, 5);
    tg_state_free(s);
}

static void test_hus(void **unused)
{
    (void)unused;
    /* Rows: south outer, south inner, north inner, north outer.
     *   south outer 1 5 0 0 0 0 0 0     south inner 3 0 2 1 0 0 0 0
     *   north inner 4 0 0 1 0 0 0 0     north outer 0 0 2 2 9 0 0 0
     * South: inner 6; empty 6 + 5 = 11; single 2 (outer a, inner d); big (at least 8) 0;
     * exposed (an inner hole facing an occupied enemy inner hole, with the outer hole behind
     * it): column a 3 + 1, column d 1 + 0 = 5. North: inner 5; empty 6 + 5 = 11; single 1;
     * big 1 (the 9); exposed column a 4 + 0, column d 1 + 2 = 7. Scores (Hus's are the
     * counters on one's rows) 12 and 18. */
    static const uint8_t cells[32] = {1, 5, 0, 0, 0, 0, 0, 0, 3, 0, 2, 1, 0, 0, 0, 0,
                                      4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 2, 9, 0, 0, 0};
    tg_state *s = board("hus", cells, 32, 12, 18);
    expect_features(s, 0, (const int32_t[]){-6, 1, 0, 1, -1, -2}, 6);
    expect_features(s, 1, (const int32_t[]){6, -1, 0, -1, 1, 2}, 6);
    tg_state_free(s);
}

static void test_hawalis(void **unused)
{
    (void)unused;
    /* Hawalis (Oman, 7 columns):
     *   south outer 2 0 0 0 0 0 0     south inner 1 5 3 0 0 0 0
     *   north inner 0 2 0 0 0 0 0     north outer 0 0 0 0 0 0 8
     * Exposed here is an inner hole (and the outer one behind it) facing an empty enemy inner
     * hole, where the enemy's last counter captures. South: inner 9; empty 6 + 4 = 10;
     * single 1; big (at least 7) 0; exposed column a 1 + 2, column c 3 + 0 = 6 (column b
     * faces an occupied hole). North: inner 2; empty 6 + 6 = 12; single 0; big 1; exposed
     * column g 0 + 8 = 8 (column b faces an occupied hole). Scores 20 and 17. */
    static const uint8_t cells[28] = {2, 0, 0, 0, 0, 0, 0, 1, 5, 3, 0, 0, 0, 0,
                                      0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8};
    tg_state *s = board("hawalis", cells, 28, 20, 17);
    expect_features(s, 1, (const int32_t[]){-3, -7, 2, -1, 1, 2}, 6);
    tg_state_free(s);
}

static uint8_t unit(int owner, bool locked, int size)
{
    return (uint8_t)(owner << 7 | (locked ? 0x40 : 0) | size);
}

static void test_tab(void **unused)
{
    (void)unused;
    /* Width 13. South's track: row 0 east (positions 0-12), row 1 west (13-25), row 2 east
     * (26-38), row 3 west (39-51); north's: row 3 west, row 2 east, row 1 west, row 0 east.
     * South: a locked piece at a1 (not counted), 2 pieces at row 1's west end (cell 13,
     * position 25), 1 at cell 40 (position 50, in the last row). North: 1 piece at cell 26
     * (position 13), 3 at cell 5 (position 44, the last row), a locked one at cell 45.
     * Freed 3 and 4; progress 2 * 25 + 50 = 100 and 13 + 3 * 44 = 145; across 1 and 3.
     * Scores 2 and 5. */
    uint8_t cells[52] = {0};
    cells[0] = unit(0, true, 1);
    cells[13] = unit(0, false, 2);
    cells[40] = unit(0, false, 1);
    cells[26] = unit(1, false, 1);
    cells[5] = unit(1, false, 3);
    cells[45] = unit(1, true, 1);
    tg_state *s = board("tab", cells, 52, 2, 5);
    expect_features(s, 0, (const int32_t[]){-3, -1, -45, -2}, 4);
    expect_features(s, 1, (const int32_t[]){3, 1, 45, 2}, 4);
    tg_state_free(s);
}

/* The fitted evaluation is the table's weights times the features, in hundredths of a unit,
 * truncated towards 0: the same for both players with the sign changed. */
static void test_fitted_value(void **unused)
{
    (void)unused;
    static const uint8_t cells[32] = {1, 5, 0, 0, 0, 0, 0, 0, 3, 0, 2, 1, 0, 0, 0, 0,
                                      4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 2, 9, 0, 0, 0};
    tg_state *s = board("hus", cells, 32, 12, 18);
    const struct tg__fitted_eval *fit = NULL;
    for (size_t i = 0; i < tg__fitted_eval_count; i++)
        if (tg__fitted_evals[i].game == &tg__hus)
            fit = &tg__fitted_evals[i];
    assert_non_null(fit);
    assert_int_equal(fit->count, 6);
    static const int32_t features[6] = {-6, 1, 0, 1, -1, -2};
    long long sum = 0;
    for (int i = 0; i < 6; i++)
        sum += (long long)fit->weight[i] * features[i];
    int v = tg__engine_evaluate_as(&s->rules.cfg, &s->pos, 0, TG__EVAL_FITTED);
    assert_int_equal(v, (int)(sum / 100));
    assert_int_equal(tg__engine_evaluate_as(&s->rules.cfg, &s->pos, 1, TG__EVAL_FITTED), -v);
    /* The classic evaluation: 100 a counter of score lead. */
    assert_int_equal(tg__engine_evaluate_as(&s->rules.cfg, &s->pos, 0, TG__EVAL_CLASSIC), -600);
    tg_state_free(s);
}

static void test_eval_option(void **unused)
{
    (void)unused;
    struct tg__bot b;
    TU_OK(tg__bot_parse("search:nodes=100,eval=fitted", &b));
    assert_int_equal(b.eval, TG__EVAL_FITTED);
    TU_OK(tg__bot_parse("search:eval=classic", &b));
    assert_int_equal(b.eval, TG__EVAL_CLASSIC);
    TU_OK(tg__bot_parse("search", &b));
    assert_int_equal(b.eval, TG__EVAL_DEFAULT);
    static const char *const bad[] = {
        "search:eval=",     "search:eval=best",  "search:eval=fitted,eval=fitted",
        "mcts:eval=fitted", "prove:eval=fitted", "search:eval=FITTED"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        TU_STATUS(TG_ERR_BAD_OPTION, tg_bot_check(bad[i]));
}

/* A search with either evaluation plays a legal move, the same one every time. */
static void test_search_with_each_evaluation(void **unused)
{
    (void)unused;
    static const char *const specs[] = {"halusa", "walak-pussa", "hus", "hawalis", "tab"};
    static const char *const bots[] = {"search:nodes=3000,eval=fitted",
                                       "search:nodes=3000,eval=classic"};
    for (size_t g = 0; g < 5; g++) {
        tg_state *s = tu_midgame(specs[g], 7 + g);
        for (size_t k = 0; k < 2; k++) {
            uint64_t rng = 1, rng2 = 1;
            tg_move a, b;
            TU_OK(tg_bot_choose(s, bots[k], &rng, &a));
            TU_OK(tg_bot_choose(s, bots[k], &rng2, &b));
            assert_true(tg_state_is_legal(s, a));
            assert_int_equal(a, b);
        }
        tg_state_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halusa),      cmocka_unit_test(test_walak_pussa),
        cmocka_unit_test(test_hus),         cmocka_unit_test(test_hawalis),
        cmocka_unit_test(test_tab),         cmocka_unit_test(test_fitted_value),
        cmocka_unit_test(test_eval_option), cmocka_unit_test(test_search_with_each_evaluation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

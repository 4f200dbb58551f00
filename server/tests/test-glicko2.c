/* Glicko-2 (server/glicko2.c): Glickman's worked example, a period without games, the bounds,
 * and bad input refused with the rating unchanged. */
#include "../glicko2.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void assert_close(double got, double want, double within)
{
    if (!(fabs(got - want) <= within))
        fail_msg("%.6f is not %.6f within %g", got, want, within);
}

/* "Example of the Glicko-2 system", section 3: 1500/200/0.06 against 1400/30 (won),
 * 1550/100 (lost) and 1700/300 (lost), tau 0.5. */
static const struct glicko2_game example_games[] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};

static void worked_example(void **unused)
{
    (void)unused;
    for (int bounded = 0; bounded <= 1; bounded++) {
        struct glicko2_rating r = {1500, 200, 0.06};
        assert_true(glicko2_update(&r, example_games, 3, GLICKO2_TAU, bounded));
        /* The paper rounds as it goes (mu' = -0.2069): 1464.06. Unrounded, 1464.0507. */
        assert_close(r.rating, 1464.06, 0.01);
        assert_close(r.rating, 1464.0507, 0.0005);
        assert_close(r.rd, 151.52, 0.005);
        assert_close(r.volatility, 0.05999, 0.00001); /* unrounded 0.059996 */
    }
}

static void no_games_grows_the_deviation_only(void **unused)
{
    (void)unused;
    struct glicko2_rating r = {1500, 200, 0.06};
    assert_true(glicko2_update(&r, NULL, 0, GLICKO2_TAU, true));
    assert_close(r.rating, 1500, 0);
    assert_close(r.rd, sqrt(200.0 * 200.0 + pow(0.06 * 173.7178, 2)), 1e-9); /* 200.27 */
    assert_close(r.volatility, 0.06, 0);
    /* Away long enough, a player is as unknown as a new one, never more. */
    for (int i = 0; i < 100000; i++)
        assert_true(glicko2_update(&r, NULL, 0, GLICKO2_TAU, true));
    assert_close(r.rd, GLICKO2_MAX_RD, 0);
    assert_close(r.rating, 1500, 0);
}

static void one_game_periods_move_the_rating_the_right_way(void **unused)
{
    (void)unused;
    struct glicko2_rating winner = glicko2_start(), loser = glicko2_start(),
                          drawn = glicko2_start();
    struct glicko2_game won = {1500, 350, 1}, lost = {1500, 350, 0}, draw = {1500, 350, 0.5};
    assert_true(glicko2_update(&winner, &won, 1, GLICKO2_TAU, true));
    assert_true(glicko2_update(&loser, &lost, 1, GLICKO2_TAU, true));
    assert_true(glicko2_update(&drawn, &draw, 1, GLICKO2_TAU, true));
    assert_true(winner.rating > 1500 && loser.rating < 1500);
    assert_close(winner.rating - 1500, 1500 - loser.rating, 1e-9);
    assert_close(drawn.rating, 1500, 1e-9);
    assert_true(winner.rd < 350 && drawn.rd < 350);
}

static void ratings_stay_within_the_bounds(void **unused)
{
    (void)unused;
    struct glicko2_rating top = {3990, 50, 0.06}, bottom = {410, 50, 0.06};
    struct glicko2_game beat_a_weak = {400, 45, 1}, lose_to_a_strong = {4000, 45, 0};
    for (int i = 0; i < 2000; i++) {
        assert_true(glicko2_update(&top, &beat_a_weak, 1, GLICKO2_TAU, true));
        assert_true(glicko2_update(&bottom, &lose_to_a_strong, 1, GLICKO2_TAU, true));
        assert_true(top.rating <= GLICKO2_MAX_RATING && bottom.rating >= GLICKO2_MIN_RATING);
        assert_true(top.rd >= GLICKO2_MIN_RD && bottom.rd >= GLICKO2_MIN_RD);
        assert_true(top.volatility <= GLICKO2_MAX_VOLATILITY);
    }
    /* A long run of surprising results raises the volatility, never past its bound. */
    struct glicko2_rating erratic = {1500, 45, 0.06};
    for (int i = 0; i < 500; i++) {
        struct glicko2_game upset = {i % 2 ? 3000 : 600, 45, i % 2 ? 1 : 0};
        assert_true(glicko2_update(&erratic, &upset, 1, GLICKO2_TAU, true));
        assert_true(erratic.volatility <= GLICKO2_MAX_VOLATILITY);
    }
    assert_true(erratic.volatility > 0.06);
    /* Many games in one period: unbounded (the paper's own numbers) the deviation goes below
     * the bound, bounded it stops there. */
    struct glicko2_game even[20];
    for (int i = 0; i < 20; i++)
        even[i] = (struct glicko2_game){1500, 45, 0.5};
    struct glicko2_rating settled = {1500, 45, 0.06}, kept = settled;
    assert_true(glicko2_update(&settled, even, 20, GLICKO2_TAU, false));
    assert_true(glicko2_update(&kept, even, 20, GLICKO2_TAU, true));
    assert_true(settled.rd < GLICKO2_MIN_RD);
    assert_close(kept.rd, GLICKO2_MIN_RD, 0);
}

static void provisional_above_110(void **unused)
{
    (void)unused;
    struct glicko2_rating r = glicko2_start();
    assert_true(glicko2_is_provisional(&r));
    r.rd = 110;
    assert_false(glicko2_is_provisional(&r));
    r.rd = 110.01;
    assert_true(glicko2_is_provisional(&r));
}

static void bad_input_changes_nothing(void **unused)
{
    (void)unused;
    const struct glicko2_rating before = {1500, 200, 0.06};
    const struct glicko2_game bad_games[] = {{NAN, 30, 1},        {1400, 0, 1},     {1400, -30, 1},
                                             {1400, INFINITY, 1}, {1400, 30, -0.1}, {1400, 30, 1.5},
                                             {1400, 30, NAN}};
    for (size_t i = 0; i < sizeof bad_games / sizeof *bad_games; i++) {
        struct glicko2_game games[2] = {example_games[0], bad_games[i]};
        struct glicko2_rating r = before;
        assert_false(glicko2_update(&r, games, 2, GLICKO2_TAU, true));
        assert_memory_equal(&r, &before, sizeof r);
    }
    const struct glicko2_rating bad_players[] = {
        {NAN, 200, 0.06}, {1500, 0, 0.06}, {1500, 200, 0}, {1500, 200, -1}, {INFINITY, 200, 0.06}};
    for (size_t i = 0; i < sizeof bad_players / sizeof *bad_players; i++) {
        struct glicko2_rating r = bad_players[i];
        assert_false(glicko2_update(&r, example_games, 3, GLICKO2_TAU, true));
        assert_memory_equal(&r, &bad_players[i], sizeof r);
    }
    struct glicko2_rating r = before;
    assert_false(glicko2_update(&r, example_games, 3, 0, true));
    assert_false(glicko2_update(&r, example_games, 3, NAN, true));
    assert_false(glicko2_update(&r, NULL, 1, GLICKO2_TAU, true));
    assert_false(glicko2_update(NULL, example_games, 3, GLICKO2_TAU, true));
    assert_memory_equal(&r, &before, sizeof r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(worked_example),
        cmocka_unit_test(no_games_grows_the_deviation_only),
        cmocka_unit_test(one_game_periods_move_the_rating_the_right_way),
        cmocka_unit_test(ratings_stay_within_the_bounds),
        cmocka_unit_test(provisional_above_110),
        cmocka_unit_test(bad_input_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

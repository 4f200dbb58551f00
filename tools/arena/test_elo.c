/* The Elo fit of tg-arena over synthetic results, plain TAP: closed forms for two bots,
 * symmetry, the anchor, ratings recovered from games drawn with known gaps (and how often
 * the 95% interval covers the truth), the prior on perfect scores, and bad input. */
#define _POSIX_C_SOURCE 200112L /* clock_gettime in clock-random.h */

#include "elo.h"

#include "clock-random.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LN10 2.302585092994046
#define ELO_PER_NATURAL (400.0 / LN10)
#define Z95 1.959963984540054

static unsigned test_number;
static int failures;

static void ok(int pass, const char *what)
{
    printf("%s %u - %s\n", pass ? "ok" : "not ok", ++test_number, what);
    if (!pass)
        failures++;
}

static int near(double a, double b, double tolerance)
{
    return fabs(a - b) <= tolerance;
}

static double uniform(uint64_t *rng)
{
    return (double)(tool_splitmix64(rng) >> 11) * 0x1.0p-53;
}

/* One game between bots rated ra and rb: a draw with probability `draw` (at most twice the
 * smaller expectation), else a win or loss, so that the expected score is the model's. */
static double draw_result(uint64_t *rng, double ra, double rb, double draw)
{
    double e = elo_expectation(ra - rb);
    double d = fmin(draw, 2.0 * fmin(e, 1.0 - e));
    double u = uniform(rng);
    if (u < e - d / 2.0)
        return 1.0;
    if (u < e + d / 2.0)
        return 0.5;
    return 0.0;
}

static void two_bots_closed_form(void)
{
    /* 75 wins in 100 games: r = 400 log10(3); information n p (1 - p) in natural units. */
    struct elo_game g[2] = {{1, 0, 1.0, 75.0}, {1, 0, 0.0, 25.0}};
    double r[2] = {-1, -1}, h[2] = {-1, -1};
    enum elo_status st = elo_fit(2, g, 2, 0, 0.0, r, h);
    double expect_h = Z95 * ELO_PER_NATURAL / sqrt(100.0 * 0.75 * 0.25);
    ok(st == ELO_OK && near(r[1], 400.0 * log10(3.0), 1e-6) && near(h[1], expect_h, 1e-6) &&
           r[0] == 0.0 && h[0] == 0.0,
       "two bots, 75 of 100: 400 log10(3) Elo, interval from n p (1 - p)");

    /* Draws are half points: 50 wins, 25 draws, 25 losses is 62.5 points of 100. */
    struct elo_game d[3] = {{0, 1, 1.0, 50.0}, {0, 1, 0.5, 25.0}, {0, 1, 0.0, 25.0}};
    st = elo_fit(2, d, 3, 1, 0.0, r, h);
    ok(st == ELO_OK && near(r[0], 400.0 * log10(62.5 / 37.5), 1e-6) && r[1] == 0.0,
       "draws count as half a point");

    /* One weighted entry is the same as as many single games. */
    struct elo_game many[30];
    for (int i = 0; i < 30; i++)
        many[i] = (struct elo_game){0, 1, i < 20 ? 1.0 : 0.0, 1.0};
    double r1[2], h1[2];
    struct elo_game w[2] = {{0, 1, 1.0, 20.0}, {0, 1, 0.0, 10.0}};
    enum elo_status s1 = elo_fit(2, many, 30, 1, 1.0, r, h);
    enum elo_status s2 = elo_fit(2, w, 2, 1, 1.0, r1, h1);
    ok(s1 == ELO_OK && s2 == ELO_OK && near(r[0], r1[0], 1e-9) && near(h[0], h1[0], 1e-9),
       "a weighted entry equals the games it stands for");
}

/* The covariance: for two bots its one free entry is the variance of the gap; the interval
 * of a gap to the anchor is the rating's own; a gap between two free bots is narrower than
 * the sum of their intervals when both are measured against each other closely. */
static void covariance(void)
{
    struct elo_game chain[4] = {{0, 1, 1.0, 40}, {0, 1, 0.0, 10}, {1, 2, 1.0, 30}, {1, 2, 0.0, 30}};
    double r[3], h[3], c[9], r2[3];
    enum elo_status st = elo_fit_covariance(3, chain, 4, 0, 1.0, r, h, c);
    enum elo_status st2 = elo_fit(3, chain, 4, 0, 1.0, r2, NULL);
    ok(st == ELO_OK && st2 == ELO_OK && r[1] == r2[1] && r[2] == r2[2] && c[0] == 0.0 &&
           c[1] == 0.0 && near(c[5], c[7], 1e-9),
       "the covariance comes with the same fit, symmetric, 0 on the anchor");
    ok(near(elo_gap_half_width(c, 3, 1, 0), h[1], 1e-9) &&
           near(elo_gap_half_width(c, 3, 2, 0), h[2], 1e-9),
       "a gap to the anchor has the rating's own interval");
    /* Bots 1 and 2 met in 60 games: their gap's interval is that of 60 level games. */
    double expect = Z95 * ELO_PER_NATURAL / sqrt(61.0 * 0.25);
    double g = elo_gap_half_width(c, 3, 1, 2);
    printf("# gap 1-2: %.1f +- %.1f (60 level games alone: +- %.1f); bot 2 +- %.1f\n", r[1] - r[2],
           g, expect, h[2]);
    ok(g < h[2] && near(g, expect, 0.5), "the gap between neighbours is known better than either "
                                         "rating");
}

static void symmetry_and_anchor(void)
{
    /* Three bots, each pair level: all 0. A cycle (each beats the next 7 of 10): all 0 too. */
    struct elo_game level[6] = {{0, 1, 1.0, 5}, {0, 1, 0.0, 5}, {1, 2, 0.5, 10},
                                {2, 0, 1.0, 3}, {2, 0, 0.0, 3}, {0, 2, 0.5, 4}};
    double r[3], h[3];
    enum elo_status st = elo_fit(3, level, 6, 0, 1.0, r, h);
    ok(st == ELO_OK && near(r[1], 0.0, 1e-9) && near(r[2], 0.0, 1e-9) && h[1] > 0.0,
       "level pairs fit 0");
    struct elo_game cycle[6] = {{0, 1, 1.0, 7}, {0, 1, 0.0, 3}, {1, 2, 1.0, 7},
                                {1, 2, 0.0, 3}, {2, 0, 1.0, 7}, {2, 0, 0.0, 3}};
    st = elo_fit(3, cycle, 6, 2, 0.0, r, h);
    ok(st == ELO_OK && near(r[0], 0.0, 1e-9) && near(r[1], 0.0, 1e-9) && near(h[0], h[1], 1e-9),
       "a symmetric cycle fits 0, with equal intervals");

    /* Moving the anchor shifts every rating by one constant and keeps the anchor at 0. */
    struct elo_game chain[6] = {{0, 1, 1.0, 30}, {0, 1, 0.0, 10}, {1, 2, 1.0, 25},
                                {1, 2, 0.5, 10}, {1, 2, 0.0, 5},  {2, 0, 1.0, 4}};
    double a0[3], a2[3];
    enum elo_status s0 = elo_fit(3, chain, 6, 0, 1.0, a0, NULL);
    enum elo_status s2 = elo_fit(3, chain, 6, 2, 1.0, a2, NULL);
    ok(s0 == ELO_OK && s2 == ELO_OK && a0[0] == 0.0 && a2[2] == 0.0 &&
           near(a0[1] - a0[2], a2[1], 1e-6) && near(a0[0] - a0[2], a2[0], 1e-6),
       "the anchor is 0 and moving it shifts all ratings alike");
}

/* Five bots at known ratings, a chain of neighbours plus two longer pairs, 1500 games a
 * pairing with draws: every fitted rating within its 95% interval of the truth, and within
 * 25 Elo. */
static void known_gaps(void)
{
    const double truth[5] = {0.0, 150.0, 320.0, 600.0, 1000.0};
    const size_t pairs[6][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 2}, {2, 4}};
    enum { PER_PAIR = 1500 };
    struct elo_game *g = malloc(6 * PER_PAIR * sizeof *g);
    if (g == NULL) {
        ok(0, "known gaps (out of memory)");
        return;
    }
    uint64_t rng = 20261201;
    size_t n = 0;
    for (int p = 0; p < 6; p++)
        for (int k = 0; k < PER_PAIR; k++) {
            size_t a = pairs[p][k % 2], b = pairs[p][1 - k % 2];
            g[n++] = (struct elo_game){a, b, draw_result(&rng, truth[a], truth[b], 0.2), 1.0};
        }
    double r[5], h[5];
    enum elo_status st = elo_fit(5, g, n, 0, 1.0, r, h);
    int inside = st == ELO_OK;
    for (int i = 0; inside && i < 5; i++) {
        printf("# bot %d: true %.0f, fitted %.1f +- %.1f\n", i, truth[i], r[i], h[i]);
        inside = fabs(r[i] - truth[i]) <= h[i] && fabs(r[i] - truth[i]) <= 25.0;
    }
    ok(inside, "ratings of known gaps recovered within their intervals");
    free(g);
}

/* 400 matches of 200 games at a 200 Elo gap: the interval covers the truth in about 95% of
 * them (between 91% and 99% allows for the 400 draws of chance). */
static void coverage(void)
{
    uint64_t rng = 7;
    int covered = 0;
    for (int rep = 0; rep < 400; rep++) {
        double points = 0.0;
        for (int k = 0; k < 200; k++)
            points += draw_result(&rng, 200.0, 0.0, 0.1);
        struct elo_game g[2] = {{0, 1, 1.0, points}, {0, 1, 0.0, 200.0 - points}};
        double r[2], h[2];
        if (elo_fit(2, g, 2, 1, 0.0, r, h) == ELO_OK && fabs(r[0] - 200.0) <= h[0])
            covered++;
    }
    printf("# covered %d of 400\n", covered);
    ok(covered >= 364 && covered <= 396, "the 95% interval covers the truth about 95% of the time");
}

static void perfect_scores(void)
{
    struct elo_game g[1] = {{0, 1, 1.0, 100.0}};
    double r[2] = {5, 5}, h[2] = {5, 5};
    ok(elo_fit(2, g, 1, 1, 0.0, r, h) == ELO_NO_MAXIMUM && r[0] == 5 && h[0] == 5,
       "a perfect score without a prior has no finite fit, and writes nothing");
    /* One virtual draw: 100.5 of 101 points. */
    enum elo_status st = elo_fit(2, g, 1, 1, 1.0, r, h);
    ok(st == ELO_OK && near(r[0], 400.0 * log10(100.5 / 0.5), 1e-6) && isfinite(h[0]),
       "one virtual draw makes 100 straight wins a finite 921 Elo");

    /* A group that lost every game to the rest: bots 2 and 3 only lose to 0 and 1. */
    struct elo_game grp[4] = {{0, 1, 0.5, 4}, {2, 3, 0.5, 4}, {0, 2, 1.0, 3}, {1, 3, 1.0, 3}};
    double r4[4];
    ok(elo_fit(4, grp, 4, 0, 0.0, r4, NULL) == ELO_NO_MAXIMUM &&
           elo_fit(4, grp, 4, 0, 1.0, r4, NULL) == ELO_OK && r4[2] < -100.0,
       "a group beaten in every game needs the prior");
}

static void bad_input(void)
{
    struct elo_game g[2] = {{0, 1, 1.0, 3.0}, {2, 3, 0.0, 3.0}};
    double r[4] = {9, 9, 9, 9};
    ok(elo_fit(4, g, 2, 0, 1.0, r, NULL) == ELO_DISCONNECTED && r[1] == 9,
       "bots not linked to the anchor are refused");
    ok(elo_fit(2, g, 1, 0, 1.0, NULL, NULL) == ELO_BAD_INPUT, "NULL ratings");
    ok(elo_fit(2, NULL, 1, 0, 1.0, r, NULL) == ELO_BAD_INPUT, "NULL games");
    ok(elo_fit(0, g, 0, 0, 1.0, r, NULL) == ELO_BAD_INPUT, "no bots");
    ok(elo_fit(2, g, 1, 2, 1.0, r, NULL) == ELO_BAD_INPUT, "anchor out of range");
    ok(elo_fit(2, g, 2, 0, 1.0, r, NULL) == ELO_BAD_INPUT, "a bot index out of range");
    struct elo_game self = {1, 1, 1.0, 1.0}, score = {0, 1, 1.5, 1.0}, weight = {0, 1, 1.0, 0.0};
    ok(elo_fit(2, &self, 1, 0, 1.0, r, NULL) == ELO_BAD_INPUT, "a bot against itself");
    ok(elo_fit(2, &score, 1, 0, 1.0, r, NULL) == ELO_BAD_INPUT, "a score above 1");
    ok(elo_fit(2, &weight, 1, 0, 1.0, r, NULL) == ELO_BAD_INPUT, "a weight of 0");
    ok(elo_fit(2, g, 1, 0, -1.0, r, NULL) == ELO_BAD_INPUT, "a negative prior");
    ok(elo_fit(2, g, 1, 0, NAN, r, NULL) == ELO_BAD_INPUT, "a prior that is not a number");
    ok(r[0] == 9 && r[1] == 9, "refused fits write nothing");
    double one = 7;
    ok(elo_fit(1, NULL, 0, 0, 1.0, &one, NULL) == ELO_OK && one == 0.0, "one bot alone is 0");
}

int main(void)
{
    two_bots_closed_form();
    symmetry_and_anchor();
    covariance();
    known_gaps();
    coverage();
    perfect_scores();
    bad_input();
    printf("1..%u\n", test_number);
    return failures == 0 ? 0 : 1;
}

/* The Elo (Bradley-Terry) fit of tg-arena: maximum likelihood over game results.
 *
 * Model: bot i scores against bot j with expectation E = 1 / (1 + 10^((r_j - r_i) / 400));
 * a win is 1, a draw 1/2, a loss 0, and the log-likelihood is the sum over games of
 * s log E + (1 - s) log(1 - E) (a draw counts as half a win and half a loss). The ratings
 * maximise it with the anchor held at 0, by Newton's method on the remaining ratings.
 *
 * Prior: `prior` virtual draws are added to every pairing that played at least one game. A
 * bot that won every game would otherwise have no finite maximum; with the virtual draws
 * the fit is finite and its gap is a lower estimate of the true one (a perfect n-game score
 * is fitted as (n + prior/2) / (n + prior) of the points, e.g. 920 Elo for 100 straight wins
 * with one virtual draw). Symmetric results stay symmetric, so the prior does not move equal
 * bots apart.
 *
 * Intervals: the inverse of the observed Fisher information (the negative Hessian of the
 * log-likelihood, prior included, without the anchor's row and column) gives each rating's
 * variance relative to the anchor; the 95% interval is the rating +- 1.96 standard errors. */
#ifndef TG_ARENA_ELO_H
#define TG_ARENA_ELO_H

#include <stddef.h>

/** One game: bot `a` against bot `b`, `score_a` 1, 0.5 or 0 (any value in [0, 1] is
 *  accepted: a sum of results can be entered as one weighted game with `weight`). */
struct elo_game {
    size_t a, b;
    double score_a;
    double weight; /* the number of games this entry stands for, > 0 */
};

enum elo_status {
    ELO_OK = 0,
    ELO_BAD_INPUT,    /* a NULL pointer, no bots, a bot index out of range, a == b, a score
                         outside [0, 1], a weight not > 0, a negative or non-finite prior */
    ELO_DISCONNECTED, /* some bot is not linked to the anchor by a chain of games */
    ELO_NO_MAXIMUM,   /* no finite fit: a perfect score with prior 0 */
    ELO_NO_MEMORY
};

/** The fit. `rating` and `half_width` receive `bots` values each (Elo points; the anchor's
 *  are 0 and 0); `half_width` may be NULL. On any error nothing is written. */
enum elo_status elo_fit(size_t bots, const struct elo_game *games, size_t count, size_t anchor,
                        double prior, double *rating, double *half_width);

/** The same, and if `covariance` is not NULL the covariance of the ratings, `bots` x `bots`
 *  (Elo squared, row-major; the anchor's row and column 0), from which the interval of any
 *  gap follows: the gap r_i - r_j has variance c_ii + c_jj - 2 c_ij. */
enum elo_status elo_fit_covariance(size_t bots, const struct elo_game *games, size_t count,
                                   size_t anchor, double prior, double *rating, double *half_width,
                                   double *covariance);

/** The 95% half-width of the gap between bots i and j from elo_fit_covariance()'s matrix. */
double elo_gap_half_width(const double *covariance, size_t bots, size_t i, size_t j);

/** The expected score of a bot rated `diff` Elo above its opponent. */
double elo_expectation(double diff);

/** A short English description of a status. */
const char *elo_status_string(enum elo_status st);

#endif

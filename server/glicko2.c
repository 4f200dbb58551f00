/* Glicko-2 (glicko2.h), step by step as Glickman's paper numbers them. */
#include "glicko2.h"

#include <math.h>

#define SCALE 173.7178 /* the Glicko-2 scale is the Glicko scale divided by this */
#define CONVERGENCE 0.000001
#define ITERATIONS_MAX 1000 /* the Illinois algorithm converges in a handful; never loop forever   \
                             */

static const double pi = 3.14159265358979323846;

struct glicko2_rating glicko2_start(void)
{
    return (struct glicko2_rating){GLICKO2_START_RATING, GLICKO2_START_RD,
                                   GLICKO2_START_VOLATILITY};
}

bool glicko2_is_provisional(const struct glicko2_rating *r)
{
    return r->rd > GLICKO2_PROVISIONAL_RD;
}

static double g(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (pi * pi));
}

static double expected(double mu, double mu_j, double phi_j)
{
    return 1.0 / (1.0 + exp(-g(phi_j) * (mu - mu_j)));
}

static bool valid_rating(double rating, double rd)
{
    return isfinite(rating) && isfinite(rd) && rd > 0;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Step 5: the new volatility, the root of f by the Illinois algorithm. */
static double new_volatility(double phi, double sigma, double delta, double v, double tau)
{
    double a = log(sigma * sigma), d2 = delta * delta, p2 = phi * phi;
#define F(x)                                                                                       \
    (exp(x) * (d2 - p2 - v - exp(x)) / (2.0 * (p2 + v + exp(x)) * (p2 + v + exp(x))) -             \
     ((x)-a) / (tau * tau))
    double big_a = a, big_b;
    if (d2 > p2 + v) {
        big_b = log(d2 - p2 - v);
    } else {
        int k = 1;
        while (F(a - k * tau) < 0 && k < ITERATIONS_MAX)
            k++;
        big_b = a - k * tau;
    }
    double fa = F(big_a), fb = F(big_b);
    for (int i = 0; fabs(big_b - big_a) > CONVERGENCE && i < ITERATIONS_MAX; i++) {
        double c = big_a + (big_a - big_b) * fa / (fb - fa), fc = F(c);
        if (fc * fb <= 0) {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        big_b = c;
        fb = fc;
    }
#undef F
    return exp(big_a / 2.0);
}

bool glicko2_update(struct glicko2_rating *player, const struct glicko2_game *games, size_t n,
                    double tau, bool bounded)
{
    if (!player || (n && !games) || !valid_rating(player->rating, player->rd) ||
        !isfinite(player->volatility) || player->volatility <= 0 || !isfinite(tau) || tau <= 0)
        return false;
    for (size_t j = 0; j < n; j++)
        if (!valid_rating(games[j].opponent_rating, games[j].opponent_rd) ||
            !(games[j].score >= 0.0 && games[j].score <= 1.0))
            return false;
    /* Step 2: to the Glicko-2 scale. */
    double mu = (player->rating - GLICKO2_START_RATING) / SCALE, phi = player->rd / SCALE;
    double sigma = player->volatility;
    struct glicko2_rating out = *player;
    if (n == 0) {
        /* Step 6 alone: a period without games leaves the rating, and the deviation grows. */
        out.rd = sqrt(phi * phi + sigma * sigma) * SCALE;
    } else {
        /* Steps 3 and 4: the estimated variance, and the improvement the results suggest. */
        double inv_v = 0, sum = 0;
        for (size_t j = 0; j < n; j++) {
            double mu_j = (games[j].opponent_rating - GLICKO2_START_RATING) / SCALE;
            double phi_j = games[j].opponent_rd / SCALE, e = expected(mu, mu_j, phi_j);
            inv_v += g(phi_j) * g(phi_j) * e * (1.0 - e);
            sum += g(phi_j) * (games[j].score - e);
        }
        double v = 1.0 / inv_v, delta = v * sum;
        /* Steps 5 to 8. */
        double sigma_new = new_volatility(phi, sigma, delta, v, tau);
        double phi_star = sqrt(phi * phi + sigma_new * sigma_new);
        double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
        double mu_new = mu + phi_new * phi_new * sum;
        out = (struct glicko2_rating){mu_new * SCALE + GLICKO2_START_RATING, phi_new * SCALE,
                                      sigma_new};
    }
    if (!valid_rating(out.rating, out.rd) || !isfinite(out.volatility) || out.volatility <= 0)
        return false;
    if (bounded) {
        out.rating = clamp(out.rating, GLICKO2_MIN_RATING, GLICKO2_MAX_RATING);
        out.rd = clamp(out.rd, GLICKO2_MIN_RD, GLICKO2_MAX_RD);
        out.volatility = clamp(out.volatility, 0.0, GLICKO2_MAX_VOLATILITY);
    }
    *player = out;
    return true;
}

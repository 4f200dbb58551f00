/* The Elo fit of tg-arena (see elo.h for the model, the prior and the intervals). Internally
 * the ratings are in natural units, x = r * ln(10) / 400, where E = 1 / (1 + e^(x_j - x_i)). */
#include "elo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ELO_PER_NATURAL (400.0 / 2.302585092994046)
#define Z95 1.959963984540054
#define MAX_ITERATIONS 500
#define TOLERANCE 1e-12

/* Results summed per ordered pair: games[i * n + j] == games[j * n + i], and
 * points[i * n + j] + points[j * n + i] == games[i * n + j]. */
struct table {
    size_t n;
    double *games, *points;
};

double elo_expectation(double diff)
{
    return 1.0 / (1.0 + pow(10.0, -diff / 400.0));
}

const char *elo_status_string(enum elo_status st)
{
    switch (st) {
    case ELO_OK:
        return "ok";
    case ELO_BAD_INPUT:
        return "bad input";
    case ELO_DISCONNECTED:
        return "some bot is not linked to the anchor by games";
    case ELO_NO_MAXIMUM:
        return "no finite fit (a bot scored every point, or none, against its opponents; "
               "a prior above 0 makes the fit finite)";
    case ELO_NO_MEMORY:
        return "out of memory";
    }
    return "unknown status";
}

static int check_input(size_t bots, const struct elo_game *games, size_t count, size_t anchor,
                       double prior, const double *rating)
{
    if (bots == 0 || anchor >= bots || rating == NULL || (count > 0 && games == NULL))
        return 0;
    if (!isfinite(prior) || prior < 0.0)
        return 0;
    for (size_t k = 0; k < count; k++) {
        const struct elo_game *g = &games[k];
        if (g->a >= bots || g->b >= bots || g->a == g->b)
            return 0;
        if (!(g->score_a >= 0.0 && g->score_a <= 1.0) || !(g->weight > 0.0) || !isfinite(g->weight))
            return 0;
    }
    return 1;
}

static void fill_table(struct table *t, const struct elo_game *games, size_t count, double prior)
{
    size_t n = t->n;
    for (size_t k = 0; k < count; k++) {
        const struct elo_game *g = &games[k];
        t->games[g->a * n + g->b] += g->weight;
        t->games[g->b * n + g->a] += g->weight;
        t->points[g->a * n + g->b] += g->weight * g->score_a;
        t->points[g->b * n + g->a] += g->weight * (1.0 - g->score_a);
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j && t->games[i * n + j] > 0.0) {
                t->games[i * n + j] += prior;
                t->points[i * n + j] += prior / 2.0;
            }
}

/* Which bots `from` reaches along edges i -> j where edge(t, i, j) holds. */
static void reach(const struct table *t, size_t from,
                  int (*edge)(const struct table *, size_t, size_t), unsigned char *seen,
                  size_t *stack)
{
    size_t n = t->n, top = 0;
    memset(seen, 0, n);
    seen[from] = 1;
    stack[top++] = from;
    while (top > 0) {
        size_t i = stack[--top];
        for (size_t j = 0; j < n; j++)
            if (!seen[j] && edge(t, i, j)) {
                seen[j] = 1;
                stack[top++] = j;
            }
    }
}

static int played(const struct table *t, size_t i, size_t j)
{
    return i != j && t->games[i * t->n + j] > 0.0;
}

/* i took points off j: for a finite maximum every bot must reach every other this way and
 * be reached back (Zermelo's condition: no group of bots lost every game to the rest). */
static int scored(const struct table *t, size_t i, size_t j)
{
    return i != j && t->points[i * t->n + j] > 0.0;
}

static int conceded(const struct table *t, size_t i, size_t j)
{
    return scored(t, j, i);
}

static int all_seen(const unsigned char *seen, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!seen[i])
            return 0;
    return 1;
}

static double log_likelihood(const struct table *t, const double *x)
{
    size_t n = t->n;
    double l = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (played(t, i, j) && t->points[i * n + j] > 0.0)
                l -= t->points[i * n + j] * log1p(exp(x[j] - x[i]));
    return l;
}

/* The gradient over the free bots (all but the anchor, in order) and the negative Hessian,
 * m x m with m = n - 1. */
static void derivatives(const struct table *t, const double *x, size_t anchor, double *grad,
                        double *info)
{
    size_t n = t->n, m = n - 1;
    memset(grad, 0, m * sizeof *grad);
    memset(info, 0, m * m * sizeof *info);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (!played(t, i, j))
                continue;
            double games = t->games[i * n + j];
            double e = 1.0 / (1.0 + exp(x[j] - x[i]));
            double v = games * e * (1.0 - e);
            if (i == anchor)
                continue;
            size_t fi = i < anchor ? i : i - 1;
            grad[fi] += t->points[i * n + j] - games * e;
            info[fi * m + fi] += v;
            if (j != anchor) {
                size_t fj = j < anchor ? j : j - 1;
                info[fi * m + fj] -= v;
            }
        }
    }
}

/* Inverts the m x m matrix `a` into `inv` by Gauss-Jordan elimination with partial pivoting
 * (`a` is destroyed). Returns 0 if it is singular. */
static int invert(double *a, double *inv, size_t m)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
            inv[i * m + j] = i == j ? 1.0 : 0.0;
    for (size_t c = 0; c < m; c++) {
        size_t p = c;
        for (size_t r = c + 1; r < m; r++)
            if (fabs(a[r * m + c]) > fabs(a[p * m + c]))
                p = r;
        if (!(fabs(a[p * m + c]) > 1e-300))
            return 0;
        if (p != c)
            for (size_t j = 0; j < m; j++) {
                double tmp = a[c * m + j];
                a[c * m + j] = a[p * m + j];
                a[p * m + j] = tmp;
                tmp = inv[c * m + j];
                inv[c * m + j] = inv[p * m + j];
                inv[p * m + j] = tmp;
            }
        double d = a[c * m + c];
        for (size_t j = 0; j < m; j++) {
            a[c * m + j] /= d;
            inv[c * m + j] /= d;
        }
        for (size_t r = 0; r < m; r++) {
            if (r == c || a[r * m + c] == 0.0)
                continue;
            double f = a[r * m + c];
            for (size_t j = 0; j < m; j++) {
                a[r * m + j] -= f * a[c * m + j];
                inv[r * m + j] -= f * inv[c * m + j];
            }
        }
    }
    return 1;
}

/* Newton's method from all ratings 0, each step halved until the likelihood does not fall
 * (it is concave, so a full step is taken near the maximum). On success `x` holds the
 * maximum and `cov` the inverse of the information there. */
static enum elo_status newton(const struct table *t, size_t anchor, double *x, double *cov,
                              double *work)
{
    size_t n = t->n, m = n - 1;
    double *grad = work, *info = grad + m, *step = info + m * m, *trial = step + m;
    memset(x, 0, n * sizeof *x);
    if (m == 0)
        return ELO_OK;
    double l = log_likelihood(t, x);
    for (int it = 0; it < MAX_ITERATIONS; it++) {
        derivatives(t, x, anchor, grad, info);
        if (!invert(info, cov, m))
            return ELO_NO_MAXIMUM;
        double largest = 0.0;
        for (size_t i = 0; i < m; i++) {
            step[i] = 0.0;
            for (size_t j = 0; j < m; j++)
                step[i] += cov[i * m + j] * grad[j];
            if (fabs(step[i]) > largest)
                largest = fabs(step[i]);
        }
        if (largest < TOLERANCE)
            break;
        double scale = 1.0;
        for (;;) {
            for (size_t i = 0, f = 0; i < n; i++)
                trial[i] = i == anchor ? 0.0 : x[i] + scale * step[f++];
            double lt = log_likelihood(t, trial);
            if (lt >= l || scale < 1e-9) {
                memcpy(x, trial, n * sizeof *x);
                l = lt;
                break;
            }
            scale /= 2.0;
        }
    }
    derivatives(t, x, anchor, grad, info);
    if (!invert(info, cov, m))
        return ELO_NO_MAXIMUM;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return ELO_NO_MAXIMUM;
    return ELO_OK;
}

double elo_gap_half_width(const double *covariance, size_t bots, size_t i, size_t j)
{
    double v = covariance[i * bots + i] + covariance[j * bots + j] - 2.0 * covariance[i * bots + j];
    return Z95 * sqrt(v > 0.0 ? v : 0.0);
}

enum elo_status elo_fit(size_t bots, const struct elo_game *games, size_t count, size_t anchor,
                        double prior, double *rating, double *half_width)
{
    return elo_fit_covariance(bots, games, count, anchor, prior, rating, half_width, NULL);
}

enum elo_status elo_fit_covariance(size_t bots, const struct elo_game *games, size_t count,
                                   size_t anchor, double prior, double *rating, double *half_width,
                                   double *covariance)
{
    if (!check_input(bots, games, count, anchor, prior, rating))
        return ELO_BAD_INPUT;
    size_t n = bots, m = n - 1;
    struct table t = {n, calloc(n * n, sizeof(double)), calloc(n * n, sizeof(double))};
    double *x = calloc(n, sizeof *x);
    double *cov = calloc(m * m + 1, sizeof *cov);
    double *work = calloc(3 * m + m * m + n + 1, sizeof *work);
    unsigned char *seen = malloc(n);
    size_t *stack = malloc(n * sizeof *stack);
    enum elo_status st = ELO_NO_MEMORY;
    if (t.games == NULL || t.points == NULL || x == NULL || cov == NULL || work == NULL ||
        seen == NULL || stack == NULL)
        goto done;
    fill_table(&t, games, count, prior);
    st = ELO_DISCONNECTED;
    reach(&t, anchor, played, seen, stack);
    if (!all_seen(seen, n))
        goto done;
    st = ELO_NO_MAXIMUM;
    reach(&t, anchor, scored, seen, stack);
    if (!all_seen(seen, n))
        goto done;
    reach(&t, anchor, conceded, seen, stack);
    if (!all_seen(seen, n))
        goto done;
    st = newton(&t, anchor, x, cov, work);
    if (st != ELO_OK)
        goto done;
    for (size_t i = 0, f = 0; i < n; i++) {
        rating[i] = i == anchor ? 0.0 : x[i] * ELO_PER_NATURAL;
        if (half_width != NULL) {
            half_width[i] = i == anchor ? 0.0 : Z95 * sqrt(cov[f * m + f]) * ELO_PER_NATURAL;
        }
        if (i != anchor)
            f++;
    }
    if (covariance != NULL) {
        const double scale = ELO_PER_NATURAL * ELO_PER_NATURAL;
        for (size_t i = 0, fi = 0; i < n; i++) {
            for (size_t j = 0, fj = 0; j < n; j++) {
                int free_pair = i != anchor && j != anchor;
                covariance[i * n + j] = free_pair ? cov[fi * m + fj] * scale : 0.0;
                if (j != anchor)
                    fj++;
            }
            if (i != anchor)
                fi++;
        }
    }
done:
    free(t.games);
    free(t.points);
    free(x);
    free(cov);
    free(work);
    free(seen);
    free(stack);
    return st;
}

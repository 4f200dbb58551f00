/* tg-bench [playouts]: random playouts from the initial state, their counters, and the
 * move-by-move pass that splits their time between decisions and chance outcomes. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "clock-random.h"

#include <math.h>
#include <stdint.h>

/* One run: playouts from the initial state until `seconds` have passed. */
int playout_run(const tg_state *root, tg_state *scratch, double seconds, uint64_t seed,
                struct result *r, int run)
{
    uint64_t rng = seed;
    uint64_t games = 0, sum[TG_STAT_COUNT] = {0}, cut = 0;
    double start = tool_seconds(), elapsed = 0.0;
    do {
        for (int i = 0; i < 16; i++) {
            uint64_t stats[TG_STAT_COUNT];
            if (tg_state_copy(scratch, root) != TG_OK ||
                tg_state_playout_stats(scratch, &rng, MAX_PLAYOUT_PLIES, stats, TG_STAT_COUNT) !=
                    TG_OK)
                return 0;
            for (int k = 0; k < TG_STAT_COUNT; k++)
                sum[k] += stats[k];
            games++;
            cut += !tg_state_is_terminal(scratch);
        }
        elapsed = tool_seconds() - start;
    } while (elapsed < seconds);
    r->games += games;
    r->cut += cut;
    r->plies += sum[TG_STAT_PLIES];
    r->decisions += sum[TG_STAT_DECISIONS];
    r->chance += sum[TG_STAT_CHANCE];
    r->sown += sum[TG_STAT_SOWN];
    double ns = elapsed * 1e9;
    r->playouts_per_s[run] = (double)games / elapsed;
    r->ns_per_ply[run] = sum[TG_STAT_PLIES] ? ns / (double)sum[TG_STAT_PLIES] : NAN;
    if (sum[TG_STAT_CHANCE] == 0 || !r->split) {
        /* No chance (or no split measured): all the time goes to the decisions. */
        r->ns_per_decision[run] =
            sum[TG_STAT_DECISIONS] ? ns / (double)sum[TG_STAT_DECISIONS] : NAN;
        r->ns_per_chance[run] = NAN;
    } else {
        double weight = (double)sum[TG_STAT_DECISIONS] * r->split_decision_ns +
                        (double)sum[TG_STAT_CHANCE] * r->split_chance_ns;
        r->ns_per_decision[run] = sum[TG_STAT_DECISIONS] ? ns * r->split_decision_ns / weight : NAN;
        r->ns_per_chance[run] = ns * r->split_chance_ns / weight;
    }
    r->sown_per_s[run] = sum[TG_STAT_SOWN] ? (double)sum[TG_STAT_SOWN] / elapsed : NAN;
    r->ns_per_sown[run] = sum[TG_STAT_SOWN] ? ns / (double)sum[TG_STAT_SOWN] : NAN;
    return 1;
}

/* The cost of an empty timed region (two clock readings), in ns. */
static double timer_overhead_ns(void)
{
    enum { N = 20000 };
    double best = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        double sum = 0.0;
        for (int i = 0; i < N; i++) {
            double t0 = tool_seconds();
            double t1 = tool_seconds();
            sum += t1 - t0;
        }
        if (sum / N < best)
            best = sum / N;
    }
    return best * 1e9;
}

/* The move-by-move pass that gives the cost ratio of decisions to chance outcomes: random
 * games played with tg_state_apply_random(), each call timed, for `seconds`. Sets r->split
 * only if both kinds of moves were seen. */
int chance_split(const tg_state *root, double seconds, uint64_t seed, struct result *r)
{
    tg_state *game = NULL;
    if (tg_state_clone(root, &game) != TG_OK)
        return 0;
    uint64_t rng = seed ^ 0x5A5A5A5Au;
    uint64_t n[2] = {0, 0};
    double t[2] = {0.0, 0.0};
    double start = tool_seconds();
    uint64_t games = 0;
    do {
        if (tg_state_copy(game, root) != TG_OK) {
            tg_state_free(game);
            return 0;
        }
        for (int ply = 0; ply < MAX_PLAYOUT_PLIES && !tg_state_is_terminal(game); ply++) {
            int kind = tg_state_player(game) == TG_CHANCE;
            double t0 = tool_seconds();
            tg_status st = tg_state_apply_random(game, &rng);
            double t1 = tool_seconds();
            if (st != TG_OK) {
                tg_state_free(game);
                return 0;
            }
            t[kind] += t1 - t0;
            n[kind]++;
        }
        games++;
    } while (tool_seconds() - start < seconds || games < 3);
    tg_state_free(game);
    double overhead = timer_overhead_ns();
    r->split_overhead_ns = overhead;
    r->split_decisions = n[0];
    r->split_chance = n[1];
    if (n[0] == 0 || n[1] == 0)
        return 1;
    double cd = t[0] * 1e9 / (double)n[0] - overhead;
    double cc = t[1] * 1e9 / (double)n[1] - overhead;
    /* The clock's granularity can leave next to nothing of a cheap call: keep it positive. */
    r->split_decision_ns = cd > 0.5 ? cd : 0.5;
    r->split_chance_ns = cc > 0.5 ? cc : 0.5;
    r->split = true;
    return 1;
}

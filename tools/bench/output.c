/* tg-bench's output: the tables, or one JSON object with every metric and every run. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (NaN values, "not measured", are left out); NaN if none. */
static double median(const double *v, int n)
{
    double tmp[MAX_RUNS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]))
            tmp[k++] = v[i];
    if (k == 0)
        return NAN;
    qsort(tmp, (size_t)k, sizeof tmp[0], compare_doubles);
    return k % 2 ? tmp[k / 2] : (tmp[k / 2 - 1] + tmp[k / 2]) / 2;
}

static double per_game(uint64_t x, uint64_t games)
{
    return games ? (double)x / (double)games : NAN;
}

static double inverse_ns(double ns)
{
    return ns > 0 ? 1e9 / ns : NAN;
}

/* A number in a table cell of `width`, "-" if NaN. */
static void cell(double v, int width, int decimals)
{
    if (isnan(v))
        printf(" %*s", width, "-");
    else
        printf(" %*.*f", width, decimals, v);
}

void print_tables(const struct result *res, int n, const struct options *o)
{
    int w = 4; /* the spec column: as wide as the longest spec */
    for (int i = 0; i < n; i++)
        if ((int)strlen(res[i].spec) > w)
            w = (int)strlen(res[i].spec);
    printf("libtraditional-games %s: median of %d runs of %.3g s, seed %" PRIu64 "\n",
           tg_version_string(), o->runs, o->seconds, o->seed);
    if (o->metrics & M_PLAYOUTS) {
        printf("\nrandom playouts (one thread; ns per event: decision or chance outcome)\n");
        printf("%-*s %10s %8s %8s %7s %8s %7s %7s %7s %9s %7s %5s\n", w, "spec", "playouts/s",
               "plies/g", "decis/g", "chnc/g", "sown/g", "ns/ply", "ns/dec", "ns/chnc", "Msown/s",
               "ns/sown", "cut");
        for (int i = 0; i < n; i++) {
            const struct result *r = &res[i];
            printf("%-*s", w, r->spec);
            cell(median(r->playouts_per_s, o->runs), 10, 0);
            cell(per_game(r->plies, r->games), 8, 1);
            cell(per_game(r->decisions, r->games), 8, 1);
            cell(per_game(r->chance, r->games), 7, 1);
            cell(r->sown ? per_game(r->sown, r->games) : NAN, 8, 1);
            cell(median(r->ns_per_ply, o->runs), 7, 1);
            cell(median(r->ns_per_decision, o->runs), 7, 1);
            cell(median(r->ns_per_chance, o->runs), 7, 1);
            cell(median(r->sown_per_s, o->runs) / 1e6, 9, 1);
            cell(median(r->ns_per_sown, o->runs), 7, 2);
            printf(" %5" PRIu64 "\n", r->cut);
        }
        for (int i = 0; i < n; i++)
            if (res[i].split)
                printf("  %s: move-by-move pass %.1f ns per decision, %.1f ns per chance outcome "
                       "(timer %.1f ns subtracted): their ratio splits the playout time\n",
                       res[i].spec, res[i].split_decision_ns, res[i].split_chance_ns,
                       res[i].split_overhead_ns);
        for (int i = 0; i < n; i++)
            if (res[i].cut)
                printf("  %s: %" PRIu64 " of %" PRIu64 " playouts stopped unfinished at %d plies\n",
                       res[i].spec, res[i].cut, res[i].games, MAX_PLAYOUT_PLIES);
    }
    if (o->metrics & (M_PERFT | M_COPY | M_MCTS | M_THREADS)) {
        char threads_head[32];
        snprintf(threads_head, sizeof threads_head, "%d-thr po/s", o->threads);
        printf("\nperft, copy, apply, undo, MCTS (one thread); %d threads against one\n",
               o->threads);
        printf("%-*s %5s %12s %10s %10s %10s %7s %10s %10s %11s %6s\n", w, "spec", "depth",
               "perft n/s", "copy/s", "apply/s", "apl+und/s", "(a+u)/a", "mcts it/s", "1-thr po/s",
               threads_head, "scale");
        for (int i = 0; i < n; i++) {
            const struct result *r = &res[i];
            printf("%-*s", w, r->spec);
            if (o->metrics & M_PERFT)
                printf(" %5u", r->perft_depth);
            else
                printf(" %5s", "-");
            cell(median(r->perft_per_s, o->runs), 12, 0);
            cell(inverse_ns(median(r->copy_ns, o->runs)), 10, 0);
            cell(inverse_ns(median(r->apply_ns, o->runs)), 10, 0);
            cell(inverse_ns(median(r->apply_undo_ns, o->runs)), 10, 0);
            cell(median(r->apply_undo_ratio, o->runs), 7, 2);
            cell(median(r->mcts_per_s, o->runs), 10, 0);
            cell(median(r->thread1_per_s, o->runs), 10, 0);
            cell(median(r->threadn_per_s, o->runs), 11, 0);
            cell(median(r->thread_ratio, o->runs), 6, 2);
            printf("\n");
        }
        for (int i = 0; i < n; i++) {
            double share = median(res[i].threadn_cpu, o->runs);
            if (share < 0.9)
                printf("  %s: the %d threads had %.0f%% of a core each (CPU time over wall-clock "
                       "time): the machine was busy, the scaling understates\n",
                       res[i].spec, o->threads, 100 * share);
        }
        for (int i = 0; i < n; i++)
            if ((o->metrics & M_MCTS) && res[i].mcts_searches == 0)
                printf("  %s: no position with two legal moves found for the MCTS measurement\n",
                       res[i].spec);
    }
    if (o->metrics & M_WORST) {
        printf("\nslowest single apply over every legal decision of random-play positions\n");
        printf("%-*s %10s %10s %9s %11s  %s\n", w, "spec", "positions", "moves", "mean ns",
               "slowest us", "at (position, move)");
        for (int i = 0; i < n; i++) {
            const struct result *r = &res[i];
            printf("%-*s %10" PRIu64 " %10" PRIu64, w, r->spec, r->worst_positions, r->worst_moves);
            cell(r->worst_moves ? r->worst_total_ns / (double)r->worst_moves : NAN, 9, 1);
            cell(r->worst_ns / 1e3, 11, 1);
            printf("  \"%s\" %s\n", r->worst_position, r->worst_move);
        }
    }
}

static void json_number(const char *key, double v, bool comma)
{
    if (isnan(v) || isinf(v))
        printf("\"%s\": null", key);
    else
        printf("\"%s\": %.10g", key, v);
    if (comma)
        printf(", ");
}

static void json_runs(const char *key, const double *v, int n)
{
    printf("\"%s\": [", key);
    for (int i = 0; i < n; i++) {
        if (isnan(v[i]) || isinf(v[i]))
            printf("%snull", i ? ", " : "");
        else
            printf("%s%.10g", i ? ", " : "", v[i]);
    }
    printf("], ");
}

/* A JSON string of plain printable ASCII (specs and version are). */
static void json_string(const char *key, const char *s, bool comma)
{
    printf("\"%s\": \"", key);
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7E)
            printf("\\u%04x", (unsigned)(unsigned char)*s);
        else
            putchar(*s);
    printf("\"%s", comma ? ", " : "");
}

void print_json(const struct result *res, int n, const struct options *o)
{
    printf("{");
    json_string("program", "tg-bench", true);
    json_string("version", tg_version_string(), true);
    json_number("version_number", tg_version(), true);
    json_number("seconds", o->seconds, true);
    json_number("runs", o->runs, true);
    json_number("seed", (double)o->seed, true);
    json_number("mcts_iterations", (double)o->mcts_iterations, true);
    json_number("threads", o->threads, true);
    json_number("max_playout_plies", MAX_PLAYOUT_PLIES, true);
    printf("\"rule_sets\": [");
    for (int i = 0; i < n; i++) {
        const struct result *r = &res[i];
        int k = o->runs;
        printf("%s\n  {", i ? "," : "");
        json_string("spec", r->spec, true);
        json_string("game", r->game, true);
        json_number("playouts", (double)r->games, true);
        json_number("cut", (double)r->cut, true);
        json_number("playouts_per_s", median(r->playouts_per_s, k), true);
        json_runs("playouts_per_s_runs", r->playouts_per_s, k);
        json_number("plies_per_game", per_game(r->plies, r->games), true);
        json_number("decisions_per_game", per_game(r->decisions, r->games), true);
        json_number("chance_per_game", per_game(r->chance, r->games), true);
        json_number("sown_per_game", r->sown ? per_game(r->sown, r->games) : NAN, true);
        json_number("ns_per_ply", median(r->ns_per_ply, k), true);
        json_runs("ns_per_ply_runs", r->ns_per_ply, k);
        json_number("ns_per_decision", median(r->ns_per_decision, k), true);
        json_runs("ns_per_decision_runs", r->ns_per_decision, k);
        json_number("ns_per_chance", median(r->ns_per_chance, k), true);
        json_runs("ns_per_chance_runs", r->ns_per_chance, k);
        json_number("sown_per_s", median(r->sown_per_s, k), true);
        json_runs("sown_per_s_runs", r->sown_per_s, k);
        json_number("ns_per_sown", median(r->ns_per_sown, k), true);
        json_runs("ns_per_sown_runs", r->ns_per_sown, k);
        json_number("split_decision_ns", r->split ? r->split_decision_ns : NAN, true);
        json_number("split_chance_ns", r->split ? r->split_chance_ns : NAN, true);
        json_number("split_timer_overhead_ns", r->split ? r->split_overhead_ns : NAN, true);
        json_number("perft_depth", (o->metrics & M_PERFT) ? r->perft_depth : NAN, true);
        json_number("perft_leaves", (o->metrics & M_PERFT) ? (double)r->perft_leaves : NAN, true);
        json_number("perft_nodes_per_s", median(r->perft_per_s, k), true);
        json_runs("perft_nodes_per_s_runs", r->perft_per_s, k);
        json_number("sample_positions", (o->metrics & M_COPY) ? r->sample_size : NAN, true);
        json_number("copy_ns", median(r->copy_ns, k), true);
        json_number("copy_per_s", inverse_ns(median(r->copy_ns, k)), true);
        json_runs("copy_ns_runs", r->copy_ns, k);
        json_number("apply_ns", median(r->apply_ns, k), true);
        json_number("apply_per_s", inverse_ns(median(r->apply_ns, k)), true);
        json_runs("apply_ns_runs", r->apply_ns, k);
        json_number("apply_undo_ns", median(r->apply_undo_ns, k), true);
        json_number("apply_undo_per_s", inverse_ns(median(r->apply_undo_ns, k)), true);
        json_runs("apply_undo_ns_runs", r->apply_undo_ns, k);
        json_number("apply_undo_over_apply", median(r->apply_undo_ratio, k), true);
        json_runs("apply_undo_over_apply_runs", r->apply_undo_ratio, k);
        json_number("mcts_iterations_per_s", median(r->mcts_per_s, k), true);
        json_runs("mcts_iterations_per_s_runs", r->mcts_per_s, k);
        json_number("mcts_searches", (o->metrics & M_MCTS) ? (double)r->mcts_searches : NAN, true);
        json_number("threads_1_playouts_per_s", median(r->thread1_per_s, k), true);
        json_runs("threads_1_playouts_per_s_runs", r->thread1_per_s, k);
        json_number("threads_n_playouts_per_s", median(r->threadn_per_s, k), true);
        json_runs("threads_n_playouts_per_s_runs", r->threadn_per_s, k);
        json_runs("thread_scaling_runs", r->thread_ratio, k);
        json_number("threads_1_cpu_share", median(r->thread1_cpu, k), true);
        json_number("threads_n_cpu_share", median(r->threadn_cpu, k), true);
        json_number("thread_scaling", median(r->thread_ratio, k), true);
        bool worst = (o->metrics & M_WORST) != 0;
        json_number("worst_positions", worst ? (double)r->worst_positions : NAN, true);
        json_number("worst_moves", worst ? (double)r->worst_moves : NAN, true);
        json_number("worst_mean_apply_ns",
                    worst && r->worst_moves ? r->worst_total_ns / (double)r->worst_moves : NAN,
                    true);
        json_number("worst_apply_ns", worst ? r->worst_ns : NAN, true);
        json_string("worst_position", r->worst_position, true);
        json_string("worst_move", r->worst_move, false);
        printf("}");
    }
    printf("\n]}\n");
}

/* tg-search-bench: how fast and how punctual the `search` engine is.
 *
 *   tg-search-bench [--seed N] [--positions P] [--stops S] [--time MS] [--depth D] [--prove N]
 *                   [SPEC...]
 *
 * Default rule sets: halusa, hus, hawalis, walak-pussa, tab. Positions are taken from random
 * games of each rule set (seeded, at a ply drawn from the first 40, with a choice to make).
 * For each rule set it reports:
 *
 *   nodes/s     positions visited per second by search:nodes=200000 on one handle
 *   return      wall time of search:time=MS (default 100) from the call to its return, over
 *               P positions (default 40), p50 / p99 / max, two ways: "handle" on one kept
 *               tg_search handle (as a server or a GUI would keep it), "bot" through
 *               tg_bot_choose (a new handle, table and all, every call, as tg-play does)
 *   depth       the mean depth those time=MS searches on the kept handle completed: what
 *               the engine's speed buys in plies (a proven position ends its search early)
 *   stop        from tg_search_stop() on this thread to the return of the stopped
 *               search:time=600000 (and mcts:time=600000) on another, over S stops
 *               (default 40) at 5 to 50 ms into the search: p50 / p99 / max of the wall
 *               time, the max of the searching thread's CPU time in that interval (what
 *               the engine itself spent before it noticed; wall time beyond it is the
 *               thread waiting for a core), and "fin": the searches that ended by
 *               themselves (a proven position) before the stop came, which have no latency
 *               and are left out of the percentiles
 *
 * With --prove N it reports instead, per rule set without throws, the prover's speed: the
 * positions per second of prove:nodes=N analyses (tg_search_analyse) of the P positions, and
 * how many of their moves were proven (rule sets with throws are skipped: it refuses them).
 *
 * With --depth D it reports instead, per rule set, the time to depth: the wall time and the
 * positions that search:depth=D on one kept handle takes over the P positions (the same
 * positions for every build of the library, so two engines are compared by running this
 * program against each): what a change of the tree's shape buys, with far less noise than
 * the mean depth of a timed search, which moves only by whole plies.
 *
 * Times are wall-clock on a shared machine: read them as figures of this run, not bounds. */
#define _POSIX_C_SOURCE 200809L

#include <traditional-games.h>

#include "clock-random.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Milliseconds: the unit of everything this program reports. */
static double now_ms(void)
{
    return tool_seconds() * 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* p50, p99 (nearest rank) and max of n samples, sorted in place. */
static void percentiles(double *v, size_t n, double out[3])
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (n * 99 + 99) / 100;
    out[0] = v[(n - 1) / 2];
    out[1] = v[k ? k - 1 : 0];
    out[2] = v[n - 1];
}

static void die(const char *what, tg_status st)
{
    fprintf(stderr, "tg-search-bench: %s: %s\n", what, tg_status_string(st));
    exit(1);
}

/* A position of a random game with at least two legal decisions. */
static tg_state *position(const tg_rules *r, uint64_t *seed)
{
    for (;;) {
        tg_state *s;
        tg_status st = tg_state_new(r, &s);
        if (st != TG_OK)
            die("tg_state_new", st);
        unsigned plies = (unsigned)(tool_splitmix64(seed) % 40);
        for (unsigned i = 0; i < plies && !tg_state_is_terminal(s); i++)
            tg_state_apply_random(s, seed);
        while (tg_state_player(s) == TG_CHANCE)
            tg_state_apply_random(s, seed);
        size_t n = 0;
        if (!tg_state_is_terminal(s) && tg_state_moves(s, NULL, 0, &n) == TG_OK && n >= 2)
            return s;
        tg_state_free(s);
    }
}

/* NaN when the clock cannot be read. */
static double clock_ms(clockid_t id)
{
    return tool_clock_seconds(id) * 1e3;
}

struct job {
    tg_search *h;
    const tg_state *s;
    atomic_bool started;
    clockid_t cpu; /* the searching thread's CPU clock, set before `started` */
    double returned_ms, returned_cpu_ms;
    tg_status status;
};

static void *run_job(void *arg)
{
    struct job *j = arg;
    uint64_t rng = 1;
    tg_move m;
    /* The thread's own clock id, taken while it surely runs (once it has ended, asking for
     * it fails). */
    if (pthread_getcpuclockid(pthread_self(), &j->cpu) != 0)
        j->cpu = CLOCK_THREAD_CPUTIME_ID;
    atomic_store(&j->started, true);
    j->status = tg_search_choose(j->h, j->s, &rng, &m);
    j->returned_ms = now_ms();
    j->returned_cpu_ms = tool_thread_cpu_seconds() * 1e3;
    return NULL;
}

static void sleep_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1000),
                         (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    nanosleep(&t, NULL);
}

/* Stop latencies of `spec` (a 10-minute search): out[0..3) wall p50 / p99 / max, out[3]
 * the max CPU time, over the searches still running when the stop came; *finished: the
 * others. */
static void stop_latency(const tg_rules *r, const char *spec, unsigned stops, uint64_t *seed,
                         double out[4], unsigned *finished)
{
    double *lat = malloc(stops * sizeof *lat);
    tg_search *h;
    tg_status st = tg_search_new(spec, &h);
    if (!lat || st != TG_OK)
        die("tg_search_new", st);
    size_t n = 0;
    double cpu_max = 0.0;
    *finished = 0;
    for (unsigned i = 0; i < stops; i++) {
        tg_state *s = position(r, seed);
        struct job j = {h, s, false, CLOCK_THREAD_CPUTIME_ID, 0.0, 0.0, TG_OK};
        pthread_t t;
        if (pthread_create(&t, NULL, run_job, &j) != 0)
            die("pthread_create", TG_ERR_NO_MEMORY);
        while (!atomic_load(&j.started))
            sleep_ms(0.1);
        sleep_ms(5.0 + (double)(tool_splitmix64(seed) % 46));
        double asked_cpu = clock_ms(j.cpu);
        double asked = now_ms();
        tg_search_stop(h);
        pthread_join(t, NULL);
        if (j.status != TG_OK)
            die("stopped search", j.status);
        if (j.returned_ms <= asked) {
            ++*finished;
        } else {
            lat[n++] = j.returned_ms - asked;
            double used = j.returned_cpu_ms - asked_cpu;
            if (used > cpu_max) /* NaN, false, where a clock could not be read */
                cpu_max = used;
        }
        tg_state_free(s);
    }
    tg_search_free(h);
    if (n) {
        percentiles(lat, n, out);
    } else {
        out[0] = out[1] = out[2] = 0.0;
    }
    out[3] = cpu_max;
    free(lat);
}

static void bench(const char *spec, uint64_t seed, unsigned positions, unsigned stops,
                  unsigned time_ms)
{
    tg_rules *r;
    tg_status st = tg_rules_new(spec, &r);
    if (st != TG_OK)
        die(spec, st);
    char timed[64];
    snprintf(timed, sizeof timed, "search:time=%u", time_ms);

    /* nodes/s */
    tg_search *h;
    if ((st = tg_search_new("search:nodes=200000", &h)) != TG_OK)
        die("tg_search_new", st);
    uint64_t nodes = 0;
    double spent = 0.0;
    for (unsigned i = 0; i < 5; i++) {
        tg_state *s = position(r, &seed);
        uint64_t rng = 1, n;
        tg_move m;
        double t0 = now_ms();
        if ((st = tg_search_choose(h, s, &rng, &m)) != TG_OK)
            die("search", st);
        spent += now_ms() - t0;
        tg_search_stats(h, &n, NULL);
        nodes += n;
        tg_state_free(s);
    }
    tg_search_free(h);

    /* time=MS returns, on a kept handle and through tg_bot_choose */
    double *kept = malloc(positions * sizeof *kept), *fresh = malloc(positions * sizeof *fresh);
    double depth_sum = 0.0;
    if (!kept || !fresh || (st = tg_search_new(timed, &h)) != TG_OK)
        die("tg_search_new", st);
    for (unsigned i = 0; i < positions; i++) {
        tg_state *s = position(r, &seed);
        uint64_t rng = 1;
        tg_move m;
        double t0 = now_ms();
        if ((st = tg_search_choose(h, s, &rng, &m)) != TG_OK)
            die("search", st);
        double t1 = now_ms();
        uint32_t depth;
        tg_search_stats(h, NULL, &depth);
        depth_sum += depth;
        if ((st = tg_bot_choose(s, timed, &rng, &m)) != TG_OK)
            die("tg_bot_choose", st);
        kept[i] = t1 - t0;
        fresh[i] = now_ms() - t1;
        tg_state_free(s);
    }
    tg_search_free(h);
    double pk[3], pf[3], ps[4], pm[4];
    unsigned fs, fm;
    percentiles(kept, positions, pk);
    percentiles(fresh, positions, pf);
    free(kept);
    free(fresh);
    stop_latency(r, "search:time=600000", stops, &seed, ps, &fs);
    stop_latency(r, "mcts:time=600000", stops, &seed, pm, &fm);
    printf("%-28s %10.0f  %6.1f %6.1f %6.1f  %6.1f %6.1f %6.1f  %5.1f  %5.2f %5.2f %5.2f %5.2f "
           "%4u  %5.2f %5.2f %5.2f %5.2f %4u\n",
           tg_rules_spec(r), (double)nodes / (spent / 1e3), pk[0], pk[1], pk[2], pf[0], pf[1],
           pf[2], depth_sum / positions, ps[0], ps[1], ps[2], ps[3], fs, pm[0], pm[1], pm[2], pm[3],
           fm);
    fflush(stdout);
    tg_rules_free(r);
}

/* The time to depth: search:depth=D on one handle over `positions` positions. */
static void prove_speed(const char *spec, uint64_t seed, unsigned positions, unsigned budget)
{
    tg_rules *r;
    tg_status st = tg_rules_new(spec, &r);
    if (st != TG_OK)
        die(spec, st);
    char bot[64];
    snprintf(bot, sizeof bot, "prove:nodes=%u", budget);
    tg_search *h;
    if ((st = tg_search_new(bot, &h)) != TG_OK)
        die("tg_search_new", st);
    uint64_t visited = 0;
    size_t moves = 0, proven = 0;
    double spent = 0.0;
    for (unsigned i = 0; i < positions; i++) {
        tg_state *s = position(r, &seed);
        uint64_t rng = 1, n;
        double t0 = now_ms();
        st = tg_search_analyse(h, s, &rng);
        spent += now_ms() - t0;
        tg_state_free(s);
        if (st == TG_ERR_BAD_OPTION) { /* a game with throws */
            tg_search_free(h);
            tg_rules_free(r);
            return;
        }
        if (st != TG_OK)
            die("prove", st);
        tg_search_stats(h, &n, NULL);
        visited += n;
        for (size_t k = 0; k < tg_search_result_count(h); k++) {
            bool p = false;
            tg_search_result(h, k, NULL, NULL, &p);
            moves++;
            proven += p;
        }
    }
    printf("%-28s %9u %10.3f %12llu %10.0f %7zu/%zu\n", tg_rules_spec(r), positions, spent / 1e3,
           (unsigned long long)visited, spent > 0 ? visited / (spent / 1e3) : 0.0, proven, moves);
    tg_search_free(h);
    tg_rules_free(r);
}

static void time_to_depth(const char *spec, uint64_t seed, unsigned positions, unsigned depth)
{
    tg_rules *r;
    tg_status st = tg_rules_new(spec, &r);
    if (st != TG_OK)
        die(spec, st);
    char bounded[64];
    snprintf(bounded, sizeof bounded, "search:depth=%u", depth);
    tg_search *h;
    if ((st = tg_search_new(bounded, &h)) != TG_OK)
        die("tg_search_new", st);
    uint64_t nodes = 0;
    double spent = 0.0;
    for (unsigned i = 0; i < positions; i++) {
        tg_state *s = position(r, &seed);
        uint64_t rng = 1, n;
        tg_move m;
        double t0 = now_ms();
        if ((st = tg_search_choose(h, s, &rng, &m)) != TG_OK)
            die("search", st);
        spent += now_ms() - t0;
        tg_search_stats(h, &n, NULL);
        nodes += n;
        tg_state_free(s);
    }
    tg_search_free(h);
    printf("%-28s %5u %9u %10.3f %12llu %10.0f\n", tg_rules_spec(r), depth, positions, spent / 1e3,
           (unsigned long long)nodes, (double)nodes / (spent / 1e3));
    fflush(stdout);
    tg_rules_free(r);
}

static unsigned arg_count(const char *flag, const char *text)
{
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || v == 0 || v > 100000) {
        fprintf(stderr, "tg-search-bench: bad %s '%s'\n", flag, text);
        exit(2);
    }
    return (unsigned)v;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    unsigned positions = 40, stops = 40, time_ms = 100, depth = 0, prove = 0;
    int first_spec = argc;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
            seed = arg_count("--seed", argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--positions") == 0)
            positions = arg_count("--positions", argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--stops") == 0)
            stops = arg_count("--stops", argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--time") == 0)
            time_ms = arg_count("--time", argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--depth") == 0)
            depth = arg_count("--depth", argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--prove") == 0)
            prove = arg_count("--prove", argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: tg-search-bench [--seed N] [--positions P] [--stops S] "
                            "[--time MS] [--depth D] [--prove N] [SPEC...]\n");
            return 2;
        } else {
            first_spec = i;
            break;
        }
    }
    static const char *const defaults[] = {"halusa", "hus", "hawalis", "walak-pussa", "tab"};
    size_t specs =
        first_spec < argc ? (size_t)(argc - first_spec) : sizeof defaults / sizeof defaults[0];
    const char *const *spec = first_spec < argc ? (const char *const *)&argv[first_spec] : defaults;
    if (prove) {
        printf("%-28s %9s %10s %12s %10s %11s\n", "rule set", "positions", "seconds", "visited",
               "visited/s", "proven");
        for (size_t i = 0; i < specs; i++)
            prove_speed(spec[i], seed, positions, prove);
        return 0;
    }
    if (depth) {
        printf("%-28s %5s %9s %10s %12s %10s\n", "rule set", "depth", "positions", "seconds",
               "visited", "visited/s");
        for (size_t i = 0; i < specs; i++)
            time_to_depth(spec[i], seed, positions, depth);
        return 0;
    }
    printf("%-28s %10s  %-20s  %-20s  %5s  %-28s  %-28s\n", "rule set", "nodes/s",
           "time return (handle)", "time return (bot)", "depth", "stop search", "stop mcts");
    printf("%-28s %10s  %6s %6s %6s  %6s %6s %6s  %5s  %5s %5s %5s %5s %4s  %5s %5s %5s %5s "
           "%4s\n",
           "", "", "p50", "p99", "max", "p50", "p99", "max", "mean", "p50", "p99", "max", "cpu",
           "fin", "p50", "p99", "max", "cpu", "fin");
    for (size_t i = 0; i < specs; i++)
        bench(spec[i], seed, positions, stops, time_ms);
    return 0;
}

/* tg-bench: how fast the library plays, rule set by rule set.
 *
 *   tg-bench [--seconds X] [--runs N] [--seed N] [--mcts-iterations K] [--threads T]
 *            [--positions P] [--only LIST] [--json] [SPEC...]
 *
 * Default rule sets (when no SPEC is given): halusa, hus at every width (8, 10, 12, 14, 16),
 * hawalis:variant=oman, hawalis:variant=zanzibar, walak-pussa, walak-pussa:rounds=match,
 * tab:width=13, tab:width=19, tab:width=21, tab:width=29. Every move takes bounded time under
 * the default lap limit (rules/README.md), so every rule set finishes; a spec with laps=0 asks
 * for exact judgement of endless moves, and a run on it can take minutes.
 *
 * Every measurement is made --runs times (default 5), each run lasting --seconds (default 0.5),
 * and the MEDIAN of the runs is reported (the machines are shared and noisy). Each run uses its
 * own seed (derived from --seed). Everything but the thread check runs on one thread.
 *
 * Metrics (group names for --only in brackets):
 *
 * [playouts] tg_state_copy() of the initial state into a scratch state, then
 *   tg_state_playout_stats() to the end of the game (at most 10000 plies: a playout stopped
 *   there is "cut" and reported), repeated for the run's duration. The time T of a run covers
 *   the copies too. From the counters (TG_STAT_*) of all the games G of the run:
 *     playouts/s       G / T
 *     plies, decisions, chance, sown per game
 *                      the counters' sums over every game of every run, divided by the games
 *     ns/ply (event)   T / plies, a ply being a decision or a chance outcome
 *     ns/decision      T / decisions in a game without chance. In a game with chance (Tab)
 *                      T is split between decisions and chance outcomes by the RATIO of their
 *                      costs, measured once per rule set by a move-by-move pass: random games
 *                      played with tg_state_apply_random(), each call timed and filed by the
 *                      kind of state it was made at, minus the cost of an empty timed region
 *                      (two clock readings). With c_d and c_c the mean cost of one call of each
 *                      kind, D decisions and C chance outcomes in the run:
 *                        ns/decision = T * c_d / (D c_d + C c_c),
 *                        ns/chance   = T * c_c / (D c_d + C c_c),
 *                      so D ns/decision + C ns/chance = T: only the ratio c_d / c_c is taken
 *                      from the slower move-by-move pass, the level from the playouts.
 *     ns/chance        as above (games with chance only)
 *     sown/s, ns/sown  counters sown (TG_STAT_SOWN) per second, and T / sown (mancala games)
 * [perft] tg_perft() from the initial state at the first depth where one call takes a
 *   noticeable time (0.2 s, or a fifth of --seconds if that is shorter; chosen once), then
 *   repeated for each run: leaves per second.
 * [copy] A sample of 256 mid-game positions (from random games, each at a random ply between
 *   a quarter and three quarters of its game, a decision state), each with one legal decision
 *   drawn at random (moves that take more than a millisecond, the rare endless relay cycles,
 *   are drawn again; where random games are so slow that drawing the sample takes more than
 *   twice --seconds, it stops there with at least 16 positions). Three loops over the sample,
 *   each a third of the run:
 *     copy/s           tg_state_copy(scratch, position_i)
 *     apply/s          tg_state_copy(scratch, position_i) then tg_state_apply(scratch, move_i),
 *                      minus the copy loop's time per call: the cost of the apply alone
 *     apply+undo/s     tg_state_apply(position_i, move_i) then tg_state_undo(position_i), on
 *                      states whose history already has room (one pass made before timing)
 *     (a+u)/a          the cost of an apply+undo pair over the cost of the apply alone
 *                      (median of the runs' ratios)
 * [mcts] tg_bot_choose() with the bot "mcts:iterations=K" (K from --mcts-iterations, default
 *   200) at positions from random games of the rule set (every few plies, at decisions with
 *   at least two legal moves), only the calls timed: iterations per second.
 * [threads] The playout loop above (tg_state_playout()) on 1 thread, then on T threads at once
 *   (--threads, default 2; 0 skips it), each thread with its own states and generator, half
 *   the run each: the summed rate of the T threads over the 1-thread rate (median of the
 *   runs' ratios). Also reported: each thread's CPU time over its wall-clock time (the mean
 *   over the threads, median of the runs): well below 1 means the threads did not each have
 *   a core (a busy machine), and the scaling says more about the machine than the library.
 *
 * [worst] Only when named in --only (it takes seconds per rule set): the slowest single
 *   tg_state_apply() over every legal decision of P positions reached in random play
 *   (--positions, default 1000000): from each decision state of random games (restarted at
 *   their end), every legal move is applied to a copy, each apply timed alone by the thread's
 *   CPU clock (so time the core spent on other processes is not counted), and a move slower
 *   than any before it timed 4 times more, keeping the fastest (the work is the same each
 *   time; the rest was an interrupt's or a page fault's). Reported: the
 *   slowest apply in microseconds, with its position and move, the positions and moves
 *   tried, and the mean apply.
 *
 * --json writes one JSON object instead of the tables: the library version, the settings, and
 * an array "rule_sets" with one object per rule set holding every metric above as a number
 * (medians; null where a metric does not apply or was not measured) and, for the main rates,
 * the raw value of every run (arrays named *_runs). Exit status 2 on bad arguments or specs,
 * 1 if a measurement failed. */
#define _POSIX_C_SOURCE 200809L

#include <traditional-games.h>

#include "clock-random.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A rule set without a quiet limit can cycle for ever under random play (rules/README.md):
 * such playouts are cut here and reported. */
enum { EXIT_BAD_ARGS = 2, MAX_PERFT_DEPTH = 64, MAX_PLAYOUT_PLIES = 10000 };
/* The MCTS measurement searches a position every MCTS_SAMPLE_GAP plies or so of its random
 * games; MCTS_MAX_ITERATIONS is the bot's own limit. */
enum { MCTS_SAMPLE_GAP = 5, MCTS_DEFAULT_ITERATIONS = 200 };
#define MCTS_MAX_ITERATIONS 10000000ul
enum { MAX_RUNS = 101, MAX_THREADS = 64, SAMPLE_SIZE = 256, SAMPLE_MIN = 16 };
/* A sampled move slower than this is drawn again (at most SLOW_RETRIES times). */
#define SLOW_MOVE_SECONDS 1e-3
enum { SLOW_RETRIES = 8 };

enum {
    M_PLAYOUTS = 1u << 0,
    M_PERFT = 1u << 1,
    M_COPY = 1u << 2,
    M_MCTS = 1u << 3,
    M_THREADS = 1u << 4,
    M_ALL = (1u << 5) - 1, /* what runs when --only is not given */
    M_WORST = 1u << 5
};
#define WORST_DEFAULT_POSITIONS 1000000ul
enum { WORST_RETIMES = 4 };

static const char *const default_specs[] = {
    "halusa",
    "hus:width=8",
    "hus:width=10",
    "hus:width=12",
    "hus:width=14",
    "hus:width=16",
    "hawalis:variant=oman",
    "hawalis:variant=zanzibar",
    "walak-pussa",
    "walak-pussa:rounds=match",
    "tab:width=13",
    "tab:width=19",
    "tab:width=21",
    "tab:width=29",
};

struct options {
    double seconds;
    int runs;
    uint64_t seed;
    unsigned long mcts_iterations;
    int threads;
    unsigned long positions;
    unsigned metrics;
    bool json;
};

static uint64_t run_seed(uint64_t seed, int run, uint64_t salt)
{
    uint64_t x = seed ^ salt;
    x += (uint64_t)run * 0xD1B54A32D192ED03ull;
    return tool_splitmix64(&x);
}

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

static void usage(FILE *f)
{
    fputs("usage: tg-bench [--seconds X] [--runs N] [--seed N] [--mcts-iterations K]\n"
          "                [--threads T] [--positions P] [--only LIST] [--json] [SPEC...]\n"
          "\n"
          "  --seconds X             duration of one run of each measurement in seconds\n"
          "                          (default 0.5)\n"
          "  --runs N                runs of each measurement, 1 to 101; the median is\n"
          "                          reported (default 5)\n"
          "  --seed N                seed of the random games (default 1)\n"
          "  --mcts-iterations K     iterations of each MCTS search timed for the mcts it/s\n"
          "                          column, 1 to 10000000 (default 200)\n"
          "  --threads T             threads of the scaling check, 2 to 64, or 0 to skip it\n"
          "                          (default 2)\n"
          "  --positions P           positions of random play whose every legal move is\n"
          "                          applied and timed by 'worst' (default 1000000)\n"
          "  --only LIST             measure only these, comma-separated: playouts, perft,\n"
          "                          copy (copy, apply, apply+undo), mcts, threads; and\n"
          "                          worst (the slowest single apply), run only when named\n"
          "  --json                  one JSON object on standard output instead of tables\n"
          "  SPEC                    a rule set such as halusa or hus:width=12 (default:\n"
          "                          halusa, hus at every width, both hawalis variants,\n"
          "                          walak-pussa single and match, tab at every width)\n"
          "\n"
          "The header comment of tools/tg-bench.c defines every metric exactly.\n",
          f);
}

static int bad_args(const char *why, const char *arg)
{
    fprintf(stderr, "tg-bench: %s: '%s'\n", why, arg ? arg : "");
    fputs("usage: tg-bench [--seconds X] [--runs N] [--seed N] [--mcts-iterations K]\n"
          "                [--threads T] [--positions P] [--only LIST] [--json] [SPEC...]\n"
          "       (tg-bench --help for more)\n",
          stderr);
    return EXIT_BAD_ARGS;
}

/* Per-run values are NaN when not measured. */
struct result {
    char spec[128];
    char game[32];
    /* playouts */
    uint64_t games, cut, plies, decisions, chance, sown; /* sums over every run */
    double playouts_per_s[MAX_RUNS], ns_per_ply[MAX_RUNS], ns_per_decision[MAX_RUNS],
        ns_per_chance[MAX_RUNS], sown_per_s[MAX_RUNS], ns_per_sown[MAX_RUNS];
    bool split; /* the chance split was measured */
    double split_decision_ns, split_chance_ns, split_overhead_ns; /* move-by-move pass */
    uint64_t split_decisions, split_chance;
    /* perft */
    unsigned perft_depth;
    uint64_t perft_leaves; /* leaves of one call at perft_depth */
    double perft_per_s[MAX_RUNS];
    /* copy, apply, undo */
    double copy_ns[MAX_RUNS], apply_ns[MAX_RUNS], apply_undo_ns[MAX_RUNS],
        apply_undo_ratio[MAX_RUNS];
    int sample_size;
    /* mcts */
    double mcts_per_s[MAX_RUNS];
    uint64_t mcts_searches;
    /* threads */
    double thread1_per_s[MAX_RUNS], threadn_per_s[MAX_RUNS], thread_ratio[MAX_RUNS];
    double thread1_cpu[MAX_RUNS], threadn_cpu[MAX_RUNS]; /* CPU time over wall-clock time */
    /* worst */
    uint64_t worst_positions, worst_moves;
    double worst_ns, worst_total_ns;
    char worst_position[512], worst_move[32];
};

static void fill_nan(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = NAN;
}

/* ------------------------------------------------------------------------------------------
 * Playouts */

/* One run: playouts from the initial state until `seconds` have passed. */
static int playout_run(const tg_state *root, tg_state *scratch, double seconds, uint64_t seed,
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
static int chance_split(const tg_state *root, double seconds, uint64_t seed, struct result *r)
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

/* ------------------------------------------------------------------------------------------
 * Perft */

/* The first depth whose call takes `noticeable` seconds. A deeper call is not started when the
 * growth so far says it would take far too long; the depth of the last call with leaves. */
static void perft_depth(const tg_state *root, double seconds, struct result *r)
{
    double noticeable = seconds / 5 < 0.2 ? seconds / 5 : 0.2;
    double too_long = 20 * seconds + 2;
    double last = 0.0, before_last = 0.0;
    unsigned depth = 1;
    uint64_t nodes = 0;
    for (;;) {
        double t0 = tool_seconds();
        nodes = tg_perft(root, depth);
        before_last = last;
        last = tool_seconds() - t0;
        if (last >= noticeable || nodes == 0 || depth == MAX_PERFT_DEPTH)
            break;
        double growth = before_last > 1e-6 ? last / before_last : 1000.0;
        if (last > 1e-3 && last * growth > too_long)
            break;
        depth++;
    }
    if (nodes == 0 && depth > 1) {
        /* Every line ended above this depth: measure the deepest one that has leaves. */
        depth--;
        nodes = tg_perft(root, depth);
    }
    r->perft_depth = depth;
    r->perft_leaves = nodes;
}

static void perft_run(const tg_state *root, double seconds, struct result *r, int run)
{
    uint64_t total = 0;
    double spent = 0.0;
    do {
        double t0 = tool_seconds();
        total += tg_perft(root, r->perft_depth);
        spent += tool_seconds() - t0;
    } while (spent < seconds && r->perft_leaves != 0);
    r->perft_per_s[run] = spent > 0 ? (double)total / spent : NAN;
}

/* ------------------------------------------------------------------------------------------
 * Copy, apply, undo */

struct sample {
    int n;
    tg_state *pos[SAMPLE_SIZE];
    tg_move move[SAMPLE_SIZE];
    tg_state *scratch;
};

static void sample_free(struct sample *sm)
{
    for (int i = 0; i < sm->n; i++)
        tg_state_free(sm->pos[i]);
    tg_state_free(sm->scratch);
    sm->n = 0;
    sm->scratch = NULL;
}

/* Mid-game decision positions of random games, each with a random legal decision. */
static int sample_build(const tg_state *root, uint64_t seed, double seconds, struct sample *sm)
{
    memset(sm, 0, sizeof *sm);
    size_t cap = tg_rules_max_moves(tg_state_rules(root));
    tg_move *moves = malloc((cap ? cap : 1) * sizeof *moves);
    if (moves == NULL || tg_state_clone(root, &sm->scratch) != TG_OK) {
        free(moves);
        return 0;
    }
    uint64_t pick = seed ^ 0xA5A5A5A5u, game_rng = seed ^ 0x3C3C3C3Cu;
    int tries = 0; /* positions drawn again since the last one kept */
    double start = tool_seconds();
    while (sm->n < SAMPLE_SIZE) {
        if (++tries > 1000) /* no random game reaches a decision mid-game: give up */
            break;
        /* Where random games are slow, fewer positions: twice the run's duration at most. */
        if (sm->n >= SAMPLE_MIN && tool_seconds() - start > 2 * seconds)
            break;
        /* The length of a random game, then the same game (same generator) to a ply within
         * its middle half. */
        uint64_t rng = game_rng;
        size_t length = 0;
        tool_splitmix64(&game_rng);
        if (tg_state_copy(sm->scratch, root) != TG_OK ||
            tg_state_playout(sm->scratch, &rng, MAX_PLAYOUT_PLIES, &length) != TG_OK)
            goto fail;
        rng = game_rng;
        size_t target = length / 4 + (size_t)(tool_splitmix64(&pick) % (length / 2 + 1));
        tg_state *s = NULL;
        if (tg_state_clone(root, &s) != TG_OK)
            goto fail;
        size_t made = 0;
        if (tg_state_playout(s, &rng, target, &made) != TG_OK) {
            tg_state_free(s);
            goto fail;
        }
        /* On to a decision state. */
        while (tg_state_player(s) == TG_CHANCE && tg_state_playout(s, &rng, 1, &made) == TG_OK)
            ;
        size_t count = 0;
        if (tg_state_is_terminal(s) || tg_state_moves(s, moves, cap, &count) != TG_OK ||
            count == 0) {
            tg_state_free(s);
            continue;
        }
        tg_move m = moves[tool_splitmix64(&pick) % count];
        /* A move that takes a millisecond (an endless relay cycle being found) is drawn again. */
        double t0 = tool_seconds();
        tg_status st = tg_state_copy(sm->scratch, s);
        if (st == TG_OK)
            st = tg_state_apply(sm->scratch, m);
        double spent = tool_seconds() - t0;
        if (st != TG_OK) {
            tg_state_free(s);
            goto fail;
        }
        if (spent > SLOW_MOVE_SECONDS && tries <= SLOW_RETRIES) {
            tg_state_free(s);
            continue;
        }
        sm->pos[sm->n] = s;
        sm->move[sm->n] = m;
        sm->n++;
        tries = 0;
    }
    free(moves);
    /* Give every position's history room for one move before anything is timed. */
    for (int i = 0; i < sm->n; i++)
        if (tg_state_apply(sm->pos[i], sm->move[i]) != TG_OK || tg_state_undo(sm->pos[i]) != TG_OK)
            return 0;
    return 1;
fail:
    free(moves);
    return 0;
}

static int copy_run(struct sample *sm, double seconds, struct result *r, int run)
{
    if (sm->n == 0) {
        r->copy_ns[run] = r->apply_ns[run] = r->apply_undo_ns[run] = r->apply_undo_ratio[run] = NAN;
        return 1;
    }
    double part = seconds / 3;
    int bad = 0;
    uint64_t calls = 0;
    double start = tool_seconds(), spent;
    do {
        for (int i = 0; i < sm->n; i++)
            bad |= tg_state_copy(sm->scratch, sm->pos[i]) != TG_OK;
        calls += (uint64_t)sm->n;
        spent = tool_seconds() - start;
    } while (spent < part);
    double copy_ns = spent * 1e9 / (double)calls;

    calls = 0;
    start = tool_seconds();
    do {
        for (int i = 0; i < sm->n; i++) {
            bad |= tg_state_copy(sm->scratch, sm->pos[i]) != TG_OK;
            bad |= tg_state_apply(sm->scratch, sm->move[i]) != TG_OK;
        }
        calls += (uint64_t)sm->n;
        spent = tool_seconds() - start;
    } while (spent < part);
    double copy_apply_ns = spent * 1e9 / (double)calls;

    calls = 0;
    start = tool_seconds();
    do {
        for (int i = 0; i < sm->n; i++) {
            bad |= tg_state_apply(sm->pos[i], sm->move[i]) != TG_OK;
            bad |= tg_state_undo(sm->pos[i]) != TG_OK;
        }
        calls += (uint64_t)sm->n;
        spent = tool_seconds() - start;
    } while (spent < part);
    double apply_undo_ns = spent * 1e9 / (double)calls;
    if (bad)
        return 0;
    double apply_ns = copy_apply_ns - copy_ns;
    r->copy_ns[run] = copy_ns;
    r->apply_ns[run] = apply_ns > 0 ? apply_ns : NAN; /* lost in the noise of the copy */
    r->apply_undo_ns[run] = apply_undo_ns;
    r->apply_undo_ratio[run] = apply_ns > 0 ? apply_undo_ns / apply_ns : NAN;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * MCTS */

/* Searches of `iterations` iterations at positions taken from random games of the rule set,
 * one every MCTS_SAMPLE_GAP plies or more (the next decision with at least two legal moves: a
 * single legal move is returned without searching). Only the tg_bot_choose() calls are timed;
 * the run lasts `seconds`, and at least one search unless the random games never reach such a
 * position. */
static int mcts_run(const tg_state *root, double seconds, uint64_t seed, unsigned long iterations,
                    struct result *r, int run)
{
    char bot[64];
    snprintf(bot, sizeof bot, "mcts:iterations=%lu", iterations);
    tg_state *game = NULL;
    if (tg_state_clone(root, &game) != TG_OK)
        return 0;
    uint64_t walk = seed ^ 0xC3C3C3C3u, search = seed;
    uint64_t searches = 0, games = 0;
    size_t since = 0; /* plies since the last search */
    double searching = 0.0, start = tool_seconds();
    for (;;) {
        if (tg_state_is_terminal(game) || tg_state_ply(game) >= MAX_PLAYOUT_PLIES) {
            games++;
            if (tool_seconds() - start >= seconds && (searches > 0 || games >= 100))
                break;
            if (tg_state_copy(game, root) != TG_OK)
                break;
            since = 0;
            continue;
        }
        size_t count = 0;
        if (since >= MCTS_SAMPLE_GAP && tg_state_player(game) != TG_CHANCE &&
            tg_state_moves(game, NULL, 0, &count) == TG_OK && count >= 2) {
            tg_move m;
            double t0 = tool_seconds();
            tg_status st = tg_bot_choose(game, bot, &search, &m);
            double t1 = tool_seconds();
            if (st != TG_OK) {
                fprintf(stderr, "tg-bench: %s: %s\n", bot, tg_status_string(st));
                tg_state_free(game);
                return 0;
            }
            searching += t1 - t0;
            searches++;
            since = 0;
            if (t1 - start >= seconds)
                break;
        }
        /* On along the random game (the history is not needed: playout of one ply). */
        size_t n = 0;
        if (tg_state_playout(game, &walk, 1, &n) != TG_OK) {
            tg_state_free(game);
            return 0;
        }
        since++;
    }
    tg_state_free(game);
    r->mcts_searches += searches;
    r->mcts_per_s[run] = searching > 0 ? (double)searches * (double)iterations / searching : NAN;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * Threads */

struct worker {
    pthread_t thread;
    tg_state *root, *scratch; /* the thread's own */
    uint64_t rng;
    double seconds;
    uint64_t games;
    double elapsed, cpu; /* wall-clock and the thread's CPU time */
    int ok;
};

static double thread_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    double start = tool_seconds(), cpu_start = thread_cpu_now();
    do {
        for (int i = 0; i < 16; i++) {
            size_t n = 0;
            if (tg_state_copy(w->scratch, w->root) != TG_OK ||
                tg_state_playout(w->scratch, &w->rng, MAX_PLAYOUT_PLIES, &n) != TG_OK)
                return NULL;
            w->games++;
        }
        w->elapsed = tool_seconds() - start;
    } while (w->elapsed < w->seconds);
    w->cpu = thread_cpu_now() - cpu_start;
    w->ok = 1;
    return NULL;
}

/* The summed playout rate of `n` threads running at once; NaN on failure. `*cpu_share`: the
 * threads' CPU time over their wall-clock time, averaged (near 1 when each had a core). */
static double threads_rate(const tg_state *root, int n, double seconds, uint64_t seed,
                           double *cpu_share)
{
    struct worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    int made = 0, started = 0, ok = 1;
    for (; made < n; made++) {
        w[made].rng = run_seed(seed, made, 0x7E7E7E7Eu);
        w[made].seconds = seconds;
        if (tg_state_clone(root, &w[made].root) != TG_OK ||
            tg_state_clone(root, &w[made].scratch) != TG_OK) {
            made++;
            ok = 0;
            break;
        }
    }
    if (ok)
        for (; started < n; started++)
            if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0) {
                ok = 0;
                break;
            }
    for (int i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    double rate = 0.0, share = 0.0;
    for (int i = 0; i < made; i++) {
        if (ok && w[i].ok && w[i].elapsed > 0) {
            rate += (double)w[i].games / w[i].elapsed;
            share += w[i].cpu / w[i].elapsed / n;
        } else
            ok = 0;
        tg_state_free(w[i].root);
        tg_state_free(w[i].scratch);
    }
    *cpu_share = ok ? share : NAN;
    return ok ? rate : NAN;
}

/* ------------------------------------------------------------------------------------------
 * [worst] the slowest single apply */

static double thread_cpu_now(void);

static int worst_apply(const tg_state *root, uint64_t seed, unsigned long positions,
                       struct result *r)
{
    size_t cap = tg_rules_max_moves(tg_state_rules(root));
    tg_move *moves = malloc(cap * sizeof *moves);
    tg_state *game = NULL, *scratch = NULL;
    int ok = moves != NULL && tg_state_clone(root, &game) == TG_OK &&
             tg_state_clone(root, &scratch) == TG_OK;
    uint64_t rng = seed;
    r->worst_ns = 0;
    while (ok && r->worst_positions < positions) {
        if (tg_state_is_terminal(game)) {
            ok = tg_state_copy(game, root) == TG_OK;
            continue;
        }
        if (tg_state_player(game) != TG_CHANCE) {
            size_t n = 0;
            ok = tg_state_moves(game, moves, cap, &n) == TG_OK;
            for (size_t i = 0; ok && i < n; i++) {
                ok = tg_state_copy(scratch, game) == TG_OK;
                /* The thread's CPU time, so that a moment when another process held the core
                 * is not taken for a slow move. */
                double t0 = thread_cpu_now();
                ok = ok && tg_state_apply(scratch, moves[i]) == TG_OK;
                double ns = (thread_cpu_now() - t0) * 1e9;
                r->worst_total_ns += ns;
                r->worst_moves++;
                /* A candidate for the slowest is timed again: the work is the same each time,
                 * so the fastest of the timings is the move's, the rest an interrupt's. */
                for (int again = 0; ok && ns > r->worst_ns && again < WORST_RETIMES; again++) {
                    ok = tg_state_copy(scratch, game) == TG_OK;
                    t0 = thread_cpu_now();
                    ok = ok && tg_state_apply(scratch, moves[i]) == TG_OK;
                    double retimed = (thread_cpu_now() - t0) * 1e9;
                    ns = retimed < ns ? retimed : ns;
                }
                if (ok && ns > r->worst_ns) {
                    r->worst_ns = ns;
                    tg_state_to_string(game, r->worst_position, sizeof r->worst_position, NULL);
                    tg_move_to_string(game, moves[i], r->worst_move, sizeof r->worst_move, NULL);
                }
            }
            r->worst_positions++;
        }
        /* On by one random ply; playout keeps no history, so the game never grows. */
        ok = ok && tg_state_playout(game, &rng, 1, NULL) == TG_OK;
    }
    tg_state_free(scratch);
    tg_state_free(game);
    free(moves);
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * One rule set */

static int bench(const char *spec, const struct options *o, struct result *r)
{
    tg_rules *rules = NULL;
    tg_state *root = NULL, *scratch = NULL;
    struct sample sm;
    memset(&sm, 0, sizeof sm);
    tg_status st = tg_rules_new(spec, &rules);
    if (st == TG_OK)
        st = tg_state_new(rules, &root);
    if (st == TG_OK)
        st = tg_state_clone(root, &scratch);
    if (st != TG_OK) {
        fprintf(stderr, "tg-bench: %s: %s\n", spec, tg_status_string(st));
        tg_state_free(root);
        tg_rules_free(rules);
        return 0;
    }
    snprintf(r->spec, sizeof r->spec, "%s", tg_rules_spec(rules));
    snprintf(r->game, sizeof r->game, "%s", tg_rules_game_id(rules));
    double *all[] = {r->playouts_per_s, r->ns_per_ply,    r->ns_per_decision,  r->ns_per_chance,
                     r->sown_per_s,     r->ns_per_sown,   r->perft_per_s,      r->copy_ns,
                     r->apply_ns,       r->apply_undo_ns, r->apply_undo_ratio, r->mcts_per_s,
                     r->thread1_per_s,  r->threadn_per_s, r->thread_ratio,     r->thread1_cpu,
                     r->threadn_cpu};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        fill_nan(all[i], MAX_RUNS);

    const char *failed = NULL;
    if (o->metrics & M_PLAYOUTS) {
        /* Does the game have chance? A quick look at a few playouts, then the split pass. */
        uint64_t rng = o->seed, stats[TG_STAT_COUNT];
        uint64_t chance = 0;
        for (int i = 0; i < 32 && failed == NULL; i++) {
            if (tg_state_copy(scratch, root) != TG_OK ||
                tg_state_playout_stats(scratch, &rng, MAX_PLAYOUT_PLIES, stats, TG_STAT_COUNT) !=
                    TG_OK)
                failed = "playout";
            else
                chance += stats[TG_STAT_CHANCE];
        }
        if (failed == NULL && chance > 0 && !chance_split(root, o->seconds, o->seed, r))
            failed = "move-by-move pass";
        for (int run = 0; run < o->runs && failed == NULL; run++)
            if (!playout_run(root, scratch, o->seconds, run_seed(o->seed, run, 0), r, run))
                failed = "playout";
    }
    if (failed == NULL && (o->metrics & M_PERFT)) {
        perft_depth(root, o->seconds, r);
        for (int run = 0; run < o->runs; run++)
            perft_run(root, o->seconds, r, run);
    }
    if (failed == NULL && (o->metrics & M_COPY)) {
        if (!sample_build(root, o->seed, o->seconds, &sm))
            failed = "sample of positions";
        r->sample_size = sm.n;
        for (int run = 0; run < o->runs && failed == NULL; run++)
            if (!copy_run(&sm, o->seconds, r, run))
                failed = "copy, apply or undo";
    }
    if (failed == NULL && (o->metrics & M_MCTS))
        for (int run = 0; run < o->runs && failed == NULL; run++)
            if (!mcts_run(root, o->seconds, run_seed(o->seed, run, 0x11), o->mcts_iterations, r,
                          run))
                failed = "MCTS search";
    if (failed == NULL && (o->metrics & M_THREADS) && o->threads > 0) {
        for (int run = 0; run < o->runs && failed == NULL; run++) {
            uint64_t seed = run_seed(o->seed, run, 0x22);
            double one = threads_rate(root, 1, o->seconds / 2, seed, &r->thread1_cpu[run]);
            double many =
                threads_rate(root, o->threads, o->seconds / 2, seed, &r->threadn_cpu[run]);
            if (isnan(one) || isnan(many))
                failed = "threads";
            r->thread1_per_s[run] = one;
            r->threadn_per_s[run] = many;
            r->thread_ratio[run] = many / one;
        }
    }
    if (failed == NULL && (o->metrics & M_WORST) &&
        !worst_apply(root, run_seed(o->seed, 0, 0x33), o->positions, r))
        failed = "slowest apply";
    if (failed != NULL)
        fprintf(stderr, "tg-bench: %s: %s failed\n", spec, failed);
    sample_free(&sm);
    tg_state_free(scratch);
    tg_state_free(root);
    tg_rules_free(rules);
    return failed == NULL;
}

/* ------------------------------------------------------------------------------------------
 * Output */

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

static void print_tables(const struct result *res, int n, const struct options *o)
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

static void print_json(const struct result *res, int n, const struct options *o)
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

/* ------------------------------------------------------------------------------------------
 * Arguments */

static int parse_only(const char *list, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"playouts", M_PLAYOUTS}, {"perft", M_PERFT},     {"copy", M_COPY},
                 {"mcts", M_MCTS},         {"threads", M_THREADS}, {"worst", M_WORST}};
    unsigned bits = 0;
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        size_t k = 0;
        for (; k < sizeof names / sizeof names[0]; k++)
            if (strlen(names[k].name) == len && strncmp(names[k].name, p, len) == 0)
                break;
        if (k == sizeof names / sizeof names[0])
            return 0;
        bits |= names[k].bit;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *out = bits;
    return 1;
}

/* A whole number from `lo` to `hi`, decimal digits only. */
static int parse_whole(const char *value, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    char *end;
    if (value == NULL || !isdigit((unsigned char)value[0]))
        return 0;
    errno = 0;
    unsigned long long k = strtoull(value, &end, 10);
    if (errno != 0 || *end != '\0' || k < lo || k > hi)
        return 0;
    *out = k;
    return 1;
}

int main(int argc, char **argv)
{
    struct options o = {0.5,   5,    1, MCTS_DEFAULT_ITERATIONS, 2, WORST_DEFAULT_POSITIONS,
                        M_ALL, false};
    int first_spec = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long k = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--seconds") == 0) {
            char *end;
            if (value == NULL)
                return bad_args("--seconds needs a number", NULL);
            errno = 0;
            o.seconds = strtod(value, &end);
            if (errno != 0 || *end != '\0' || end == value || !(o.seconds > 0) || o.seconds > 86400)
                return bad_args("--seconds needs a positive number", value);
            i++;
        } else if (strcmp(a, "--runs") == 0) {
            if (!parse_whole(value, 1, MAX_RUNS, &k))
                return bad_args("--runs needs a whole number from 1 to 101", value);
            o.runs = (int)k;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            if (value == NULL || !isdigit((unsigned char)value[0]))
                return bad_args("--seed needs a whole number", value);
            errno = 0;
            o.seed = (uint64_t)strtoull(value, &end, 0);
            if (errno != 0 || *end != '\0')
                return bad_args("--seed needs a whole number", value);
            i++;
        } else if (strcmp(a, "--mcts-iterations") == 0) {
            if (!parse_whole(value, 1, MCTS_MAX_ITERATIONS, &k))
                return bad_args("--mcts-iterations needs a whole number from 1 to 10000000", value);
            o.mcts_iterations = (unsigned long)k;
            i++;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_whole(value, 0, MAX_THREADS, &k) || k == 1)
                return bad_args("--threads needs 0 or a whole number from 2 to 64", value);
            o.threads = (int)k;
            i++;
        } else if (strcmp(a, "--positions") == 0) {
            if (!parse_whole(value, 1, 1000000000, &k))
                return bad_args("--positions needs a whole number from 1 to 1000000000", value);
            o.positions = (unsigned long)k;
            i++;
        } else if (strcmp(a, "--only") == 0) {
            if (value == NULL || !parse_only(value, &o.metrics))
                return bad_args("--only needs a comma-separated list of playouts, perft, copy, "
                                "mcts, threads",
                                value);
            i++;
        } else if (strcmp(a, "--") == 0) {
            first_spec = i + 1;
            break;
        } else if (a[0] == '-') {
            return bad_args("unknown option", a);
        } else {
            first_spec = i;
            break;
        }
    }
    if (o.threads == 0)
        o.metrics &= ~(unsigned)M_THREADS;
    const char *const *specs = (const char *const *)argv + first_spec;
    int n = argc - first_spec;
    if (n == 0) {
        specs = default_specs;
        n = (int)(sizeof default_specs / sizeof default_specs[0]);
    }
    /* Check every spec before spending time on any. */
    for (int i = 0; i < n; i++) {
        tg_rules *r = NULL;
        tg_status st = tg_rules_new(specs[i], &r);
        tg_rules_free(r);
        if (st != TG_OK) {
            fprintf(stderr, "tg-bench: bad spec '%s': %s\n", specs[i], tg_status_string(st));
            return EXIT_BAD_ARGS;
        }
    }
    struct result *res = calloc(n > 0 ? (size_t)n : 1, sizeof *res);
    if (res == NULL) {
        fprintf(stderr, "tg-bench: out of memory\n");
        return 1;
    }
    bool progress = isatty(STDERR_FILENO);
    int ok = 1;
    for (int i = 0; i < n; i++) {
        if (progress)
            fprintf(stderr, "tg-bench: %s (%d of %d)...\n", specs[i], i + 1, n);
        ok &= bench(specs[i], &o, &res[i]);
    }
    if (o.json)
        print_json(res, n, &o);
    else
        print_tables(res, n, &o);
    free(res);
    return ok ? 0 : 1;
}

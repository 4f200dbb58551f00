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
 * 1 if a measurement failed.
 *
 * This file reads the options and runs the measurements rule set by rule set; each area's
 * measurement is in tools/bench/ (playouts.c, perft.c, copy.c, mcts.c, threads.c, worst.c),
 * the tables and the JSON in tools/bench/output.c, what they share in tools/bench/bench.h. */
#define _POSIX_C_SOURCE 200809L

#include "bench/bench.h"
#include "clock-random.h"
#include "tool-args.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

uint64_t run_seed(uint64_t seed, int run, uint64_t salt)
{
    uint64_t x = seed ^ salt;
    x += (uint64_t)run * 0xD1B54A32D192ED03ull;
    return tool_splitmix64(&x);
}

#define USAGE_LINE                                                                                 \
    "usage: tg-bench [--seconds X] [--runs N] [--seed N] [--mcts-iterations K]\n"                  \
    "                [--threads T] [--positions P] [--only LIST] [--json] [SPEC...]\n"

/* What --help writes after the usage. */
static const char help_text[] =
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
    "The header comment of tools/tg-bench.c defines every metric exactly.\n";

static const struct tool_cli cli = {"tg-bench", USAGE_LINE, help_text};

/* Unlike the other programs, every message names the argument, quoted even when missing. */
static int bad_args(const char *why, const char *arg)
{
    return tool_bad_args(&cli, why, arg ? arg : "");
}

/* Every per-run value starts as NaN, "not measured". */
static void fill_nan(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = NAN;
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
static int parse_whole(const char *value, uint64_t lo, uint64_t hi, uint64_t *out)
{
    return tool_parse_whole(value, 10, hi, out, NULL) && *out >= lo;
}

int main(int argc, char **argv)
{
    struct options o = {0.5,   5,    1, MCTS_DEFAULT_ITERATIONS, 2, WORST_DEFAULT_POSITIONS,
                        M_ALL, false};
    int first_spec = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t k = 0;
        if (tool_is_help(a)) {
            return tool_help(&cli, stdout);
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
            if (!tool_parse_whole(value, 0, UINT64_MAX, &o.seed, NULL))
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
            return TOOL_EXIT_BAD_ARGS;
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

/* tg-bench: how fast the library plays, game by game.
 *
 *   tg-bench [--seconds X] [--seed N] [--mcts-iterations K] [SPEC...]
 *
 * For each spec (default: every registered game with its default options), on one thread:
 *   - random playouts per second: tg_state_copy() of the initial state into a scratch state,
 *     then tg_state_playout() to the end;
 *   - the mean number of plies of those games, and how they split into decisions and chance
 *     events (counted over a separate sample of games played one move at a time);
 *   - perft nodes per second: tg_perft() from the initial state at the first depth where one
 *     call takes a noticeable time (0.2 s, or a fifth of --seconds if that is shorter);
 *   - MCTS iterations per second: tg_bot_choose() with the bot "mcts:iterations=K" (K from
 *     --mcts-iterations, default 200) at positions from random games of the rule set (every
 *     few plies, at decisions with at least two legal moves), only the calls timed.
 * Each measurement runs for --seconds (default 1). Exit status 2 on bad arguments or specs. */
#define _POSIX_C_SOURCE 199309L

#include <traditional-games.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A rule set without a quiet limit can cycle for ever under random play (rules/README.md):
 * such playouts are cut here and reported. */
enum { EXIT_BAD_ARGS = 2, MAX_PERFT_DEPTH = 64, MAX_PLAYOUT_PLIES = 10000 };
/* The MCTS measurement searches a position every MCTS_SAMPLE_GAP plies or so of its random
 * games; MCTS_MAX_ITERATIONS is the bot's own limit. */
enum { MCTS_SAMPLE_GAP = 5, MCTS_DEFAULT_ITERATIONS = 200 };
#define MCTS_MAX_ITERATIONS 10000000ul

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
    fputs("usage: tg-bench [--seconds X] [--seed N] [--mcts-iterations K] [SPEC...]\n"
          "\n"
          "  --seconds X             duration of each measurement in seconds (default 1)\n"
          "  --seed N                seed of the random playouts (default 1)\n"
          "  --mcts-iterations K     iterations of each MCTS search timed for the mcts it/s\n"
          "                          column, 1 to 10000000 (default 200)\n"
          "  SPEC                    a rule set such as halusa or halusa:quiet=50 (default:\n"
          "                          every registered game with its default options)\n",
          f);
}

static int bad_args(const char *why, const char *arg)
{
    fprintf(stderr, "tg-bench: %s: '%s'\n", why, arg ? arg : "");
    fputs("usage: tg-bench [--seconds X] [--seed N] [--mcts-iterations K] [SPEC...]\n"
          "       (tg-bench --help for more)\n",
          stderr);
    return EXIT_BAD_ARGS;
}

struct result {
    double playouts_per_s;
    double plies_per_game;
    double decisions_per_game, chance_per_game;
    unsigned perft_depth;
    uint64_t perft_nodes; /* leaves of one call at perft_depth */
    uint64_t games, cut;  /* playouts made, and those stopped at MAX_PLAYOUT_PLIES */
    double perft_nodes_per_s;
    double mcts_iterations_per_s;
    uint64_t mcts_searches; /* tg_bot_choose() calls timed */
};

/* Random playouts from the initial state until `seconds` have passed. */
static int bench_playouts(const tg_state *root, double seconds, uint64_t seed, struct result *r)
{
    tg_state *scratch = NULL;
    if (tg_state_clone(root, &scratch) != TG_OK)
        return 0;
    uint64_t rng = seed;
    uint64_t games = 0, plies = 0, cut = 0;
    double start = now(), elapsed = 0.0;
    do {
        for (int i = 0; i < 16; i++) {
            size_t n = 0;
            if (tg_state_copy(scratch, root) != TG_OK ||
                tg_state_playout(scratch, &rng, MAX_PLAYOUT_PLIES, &n) != TG_OK) {
                tg_state_free(scratch);
                return 0;
            }
            games++;
            plies += n;
            cut += !tg_state_is_terminal(scratch);
        }
        elapsed = now() - start;
    } while (elapsed < seconds);
    tg_state_free(scratch);
    r->playouts_per_s = (double)games / elapsed;
    r->plies_per_game = (double)plies / (double)games;
    r->games = games;
    r->cut = cut;
    return 1;
}

/* Decisions and chance events per game, from games played with tg_state_apply_random() so
 * that each ply can be classified (playouts only report the total): a tenth of the time. */
static int count_events(const tg_state *root, double seconds, uint64_t seed, struct result *r)
{
    tg_state *game = NULL;
    if (tg_state_clone(root, &game) != TG_OK)
        return 0;
    uint64_t rng = seed ^ 0x5A5A5A5Au;
    uint64_t games = 0, decisions = 0, chance = 0;
    double start = now();
    do {
        if (tg_state_copy(game, root) != TG_OK) {
            tg_state_free(game);
            return 0;
        }
        for (int ply = 0; ply < MAX_PLAYOUT_PLIES && !tg_state_is_terminal(game); ply++) {
            bool is_chance = tg_state_player(game) == TG_CHANCE;
            if (tg_state_apply_random(game, &rng) != TG_OK) {
                tg_state_free(game);
                return 0;
            }
            chance += is_chance;
            decisions += !is_chance;
        }
        games++;
    } while (now() - start < seconds / 10 || games < 10);
    tg_state_free(game);
    r->decisions_per_game = (double)decisions / (double)games;
    r->chance_per_game = (double)chance / (double)games;
    return 1;
}

/* Perft at the first depth whose call takes `noticeable` seconds, repeated for `seconds`. A
 * deeper call is not started when the growth so far says it would take far too long. */
static void bench_perft(const tg_state *root, double seconds, struct result *r)
{
    double noticeable = seconds / 5 < 0.2 ? seconds / 5 : 0.2;
    double too_long = 20 * seconds + 2;
    double last = 0.0, before_last = 0.0;
    unsigned depth = 1;
    uint64_t nodes = 0;
    for (;;) {
        double t0 = now();
        nodes = tg_perft(root, depth);
        before_last = last;
        last = now() - t0;
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
        double t0 = now();
        nodes = tg_perft(root, depth);
        last = now() - t0;
    }
    /* Repeat at that depth for the measurement (the first call counts too). */
    uint64_t total = nodes;
    double spent = last;
    while (spent < seconds && nodes != 0) {
        double t0 = now();
        total += tg_perft(root, depth);
        spent += now() - t0;
    }
    r->perft_depth = depth;
    r->perft_nodes = nodes;
    r->perft_nodes_per_s = spent > 0 ? (double)total / spent : 0.0;
}

/* MCTS iterations per second: searches of `iterations` iterations at positions taken from
 * random games of the rule set, one every MCTS_SAMPLE_GAP plies or more (the next decision
 * with at least two legal moves: a single legal move is returned without searching). Only
 * the tg_bot_choose() calls are timed; the measurement lasts `seconds`, and at least one
 * search unless the random games never reach such a position. */
static int bench_mcts(const tg_state *root, double seconds, uint64_t seed, unsigned long iterations,
                      struct result *r)
{
    char bot[64];
    snprintf(bot, sizeof bot, "mcts:iterations=%lu", iterations);
    tg_state *game = NULL;
    if (tg_state_clone(root, &game) != TG_OK)
        return 0;
    uint64_t walk = seed ^ 0xC3C3C3C3u, search = seed;
    uint64_t searches = 0, games = 0;
    size_t since = 0; /* plies since the last search */
    double searching = 0.0, start = now();
    for (;;) {
        if (tg_state_is_terminal(game) || tg_state_ply(game) >= MAX_PLAYOUT_PLIES) {
            games++;
            if (now() - start >= seconds && (searches > 0 || games >= 100))
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
            double t0 = now();
            tg_status st = tg_bot_choose(game, bot, &search, &m);
            double t1 = now();
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
    r->mcts_searches = searches;
    r->mcts_iterations_per_s =
        searching > 0 ? (double)searches * (double)iterations / searching : 0.0;
    return 1;
}

static int bench(const char *spec, double seconds, uint64_t seed, unsigned long mcts_iterations)
{
    tg_rules *rules = NULL;
    tg_state *root = NULL;
    tg_status st = tg_rules_new(spec, &rules);
    if (st == TG_OK)
        st = tg_state_new(rules, &root);
    if (st != TG_OK) {
        fprintf(stderr, "tg-bench: %s: %s\n", spec, tg_status_string(st));
        tg_rules_free(rules);
        return 0;
    }
    struct result r;
    memset(&r, 0, sizeof r);
    int ok = bench_playouts(root, seconds, seed, &r) && count_events(root, seconds, seed, &r);
    if (ok)
        bench_perft(root, seconds, &r);
    int mcts_ok = ok && bench_mcts(root, seconds, seed, mcts_iterations, &r);
    if (ok)
        printf("%-40s %12.0f %10.1f %9.1f %9.1f %6u %14" PRIu64 " %14.0f %12.0f\n",
               tg_rules_spec(rules), r.playouts_per_s, r.plies_per_game, r.decisions_per_game,
               r.chance_per_game, r.perft_depth, r.perft_nodes, r.perft_nodes_per_s,
               r.mcts_iterations_per_s);
    else
        fprintf(stderr, "tg-bench: %s: playout failed\n", spec);
    if (ok && !mcts_ok)
        fprintf(stderr, "tg-bench: %s: MCTS search failed\n", spec);
    else if (ok && r.mcts_searches == 0)
        printf("    (no position with two legal moves found for the MCTS measurement)\n");
    ok = ok && mcts_ok;
    if (ok && r.cut != 0)
        printf("    (%" PRIu64 " of %" PRIu64 " playouts stopped unfinished at %d plies)\n", r.cut,
               r.games, MAX_PLAYOUT_PLIES);
    fflush(stdout);
    tg_state_free(root);
    tg_rules_free(rules);
    return ok;
}

int main(int argc, char **argv)
{
    double seconds = 1.0;
    uint64_t seed = 1;
    unsigned long mcts_iterations = MCTS_DEFAULT_ITERATIONS;
    int first_spec = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--seconds") == 0) {
            char *end;
            if (value == NULL)
                return bad_args("--seconds needs a number", NULL);
            errno = 0;
            seconds = strtod(value, &end);
            if (errno != 0 || *end != '\0' || end == value || !(seconds > 0) || seconds > 86400)
                return bad_args("--seconds needs a positive number", value);
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            if (value == NULL || !isdigit((unsigned char)value[0]))
                return bad_args("--seed needs a whole number", value);
            errno = 0;
            seed = (uint64_t)strtoull(value, &end, 0);
            if (errno != 0 || *end != '\0')
                return bad_args("--seed needs a whole number", value);
            i++;
        } else if (strcmp(a, "--mcts-iterations") == 0) {
            char *end;
            if (value == NULL || !isdigit((unsigned char)value[0]))
                return bad_args("--mcts-iterations needs a whole number", value);
            errno = 0;
            unsigned long long k = strtoull(value, &end, 10);
            if (errno != 0 || *end != '\0' || k < 1 || k > MCTS_MAX_ITERATIONS)
                return bad_args("--mcts-iterations needs a whole number from 1 to 10000000", value);
            mcts_iterations = (unsigned long)k;
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
    /* Check every spec before spending time on any. */
    for (int i = first_spec; i < argc; i++) {
        tg_rules *r = NULL;
        tg_status st = tg_rules_new(argv[i], &r);
        tg_rules_free(r);
        if (st != TG_OK) {
            fprintf(stderr, "tg-bench: bad spec '%s': %s\n", argv[i], tg_status_string(st));
            return EXIT_BAD_ARGS;
        }
    }

    printf("libtraditional-games %s, %.3g s per measurement, one thread, "
           "mcts:iterations=%lu\n",
           tg_version_string(), seconds, mcts_iterations);
    printf("%-40s %12s %10s %9s %9s %6s %14s %14s %12s\n", "spec", "playouts/s", "plies/game",
           "decisions", "chance", "depth", "perft leaves", "perft nodes/s", "mcts it/s");
    int ok = 1;
    if (first_spec < argc) {
        for (int i = first_spec; i < argc; i++)
            ok &= bench(argv[i], seconds, seed, mcts_iterations);
    } else {
        for (size_t i = 0; i < tg_game_count(); i++)
            ok &= bench(tg_game_id(i), seconds, seed, mcts_iterations);
    }
    return ok ? 0 : 1;
}

/* Playing strength of the built-in bots, one game per run: `test_strength GAME`, plain TAP.
 *
 * 1. mcts:iterations=1000 against random: 50 games, mcts seated as player g % 2 in game g; it
 *    must win at least 40 (80%).
 * 2. Mancala games only: greedy against random, 50 games seated the same way; greedy must win
 *    more games than random and at least 30.
 * 3. For the documentation only (printed, not asserted): mcts:iterations=1000 against greedy,
 *    20 games (the dearest is Tab, about 30 s in a debugoptimized build).
 *
 * Every move of both sides goes through tg_bot_choose(), chance outcomes (Tab's throws) with
 * the bot of the side whose turn it is. Each game draws from its own generator, seeded from a
 * fixed constant, the match and the game number, so the results are the same on every run.
 * This suite is slow (Tab's searches take about a minute), and scripts/test.sh leaves it out
 * of the sanitizer and valgrind runs. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traditional-games.h>

#define SEED_BASE UINT64_C(0x5157E46700000000)
#define MAX_PLIES 1000000 /* far beyond any game at default options: a guard only */

static unsigned test_number;
static bool failed;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double now_seconds(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bail_out(const char *what, tg_status st)
{
    printf("Bail out! %s: %d (%s)\n", what, (int)st, tg_status_string(st));
    exit(1);
}

struct match {
    unsigned wins, draws, losses, unfinished; /* for bot a */
    unsigned long plies;
    double seconds;
};

/* One game of `a` against `b`, a seated as player a_seat. Returns 1, 0 or -1 for a's win, a
 * draw or a's loss; 0 also for a game cut off at MAX_PLIES (counted apart). */
static int play(const tg_rules *r, const char *a, const char *b, int a_seat, uint64_t seed,
                unsigned long *plies, bool *unfinished)
{
    tg_state *s = NULL;
    tg_status st = tg_state_new(r, &s);
    if (st != TG_OK)
        bail_out("tg_state_new", st);
    uint64_t rng = seed;
    unsigned long n = 0;
    while (!tg_state_is_terminal(s) && n < MAX_PLIES) {
        int side = tg_state_turn(s); /* also at chance states: the side that throws */
        const char *bot = side == a_seat ? a : b;
        tg_move m = 0;
        if ((st = tg_bot_choose(s, bot, &rng, &m)) != TG_OK)
            bail_out("tg_bot_choose", st);
        if ((st = tg_state_apply(s, m)) != TG_OK)
            bail_out("tg_state_apply of a bot's move", st);
        n++;
    }
    *plies += n;
    *unfinished = !tg_state_is_terminal(s);
    int w = tg_state_winner(s);
    tg_state_free(s);
    return w == a_seat ? 1 : (w == 1 - a_seat ? -1 : 0);
}

static struct match run_match(const char *game, const char *a, const char *b, unsigned games,
                              uint64_t salt)
{
    tg_rules *r = NULL;
    tg_status st = tg_rules_new(game, &r);
    if (st != TG_OK)
        bail_out("tg_rules_new", st);
    struct match m = {0, 0, 0, 0, 0, 0.0};
    double start = now_seconds();
    for (unsigned g = 0; g < games; g++) {
        uint64_t seed_state = SEED_BASE ^ (salt << 16) ^ g;
        uint64_t seed = splitmix64(&seed_state);
        bool unfinished = false;
        int result = play(r, a, b, (int)(g % 2), seed, &m.plies, &unfinished);
        if (unfinished)
            m.unfinished++;
        else if (result > 0)
            m.wins++;
        else if (result < 0)
            m.losses++;
        else
            m.draws++;
    }
    m.seconds = now_seconds() - start;
    tg_rules_free(r);
    printf("# %s: %s vs %s, %u games (half as each player): %u wins, %u draws, %u losses"
           "%s, mean %.1f plies, %.1f s\n",
           game, a, b, games, m.wins, m.draws, m.losses, m.unfinished ? " (and unfinished)" : "",
           (double)m.plies / games, m.seconds);
    if (m.unfinished)
        printf("# %u game(s) reached %d plies unfinished\n", m.unfinished, MAX_PLIES);
    return m;
}

static void report(bool ok, const char *description)
{
    printf("%sok %u - %s\n", ok ? "" : "not ", ++test_number, description);
    if (!ok)
        failed = true;
    fflush(stdout);
}

static bool is_mancala(const char *game)
{
    return strcmp(game, "halusa") == 0 || strcmp(game, "hus") == 0 ||
           strcmp(game, "hawalis") == 0 || strcmp(game, "walak-pussa") == 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s GAME\n", argv[0]);
        return 2;
    }
    const char *game = argv[1];
    tg_rules *check = NULL;
    if (tg_rules_new(game, &check) != TG_OK) {
        printf("Bail out! unknown game %s\n", game);
        return 1;
    }
    tg_rules_free(check);
    printf("1..3\n");
    fflush(stdout);
    char line[160];

    struct match m = run_match(game, "mcts:iterations=1000", "random", 50, 1);
    snprintf(line, sizeof line,
             "%s: mcts:iterations=1000 wins %u of 50 against random (needs 40)", game, m.wins);
    report(m.wins >= 40, line);

    if (is_mancala(game)) {
        m = run_match(game, "greedy", "random", 50, 2);
        snprintf(line, sizeof line,
                 "%s: greedy wins %u of 50 against random, random %u (needs 30 and more than "
                 "random)",
                 game, m.wins, m.losses);
        report(m.wins >= 30 && m.wins > m.losses, line);
    } else {
        printf("ok %u - %s: greedy against random # SKIP not a mancala game\n", ++test_number,
               game);
    }

    run_match(game, "mcts:iterations=1000", "greedy", 20, 3);
    snprintf(line, sizeof line, "%s: mcts:iterations=1000 against greedy (printed only)", game);
    report(true, line);
    return failed ? 1 : 0;
}

/* tg-arena's paired openings and its yardstick, plain TAP: the screening's verdict on an
 * opening, the games a screened tournament keeps (both colourings of every kept seed, none of
 * a left-out one), the same games on a second run, the yardstick's spec, and its moves
 * against the library's proofs (where the library proves a win, the yardstick's move wins
 * too). */
#define _POSIX_C_SOURCE 200112L /* clock_gettime in clock-random.h */

#include "tournament.h"
#include "yardstick.h"

#include "clock-random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned test_number;
static int failures;

static void ok(int pass, const char *what)
{
    printf("%s %u - %s\n", pass ? "ok" : "not ok", ++test_number, what);
    if (!pass)
        failures++;
}

static void verdicts(void)
{
    ok(screen_verdict(true, 0, 1) == SCREEN_PROVEN, "a proven opening is left out as proven");
    ok(screen_verdict(false, 0, 0) == SCREEN_SAME_SEAT, "player 0 won both colourings");
    ok(screen_verdict(false, 1, 1) == SCREEN_SAME_SEAT, "player 1 won both colourings");
    ok(screen_verdict(false, 0, 1) == SCREEN_KEPT, "each copy won once: kept");
    ok(screen_verdict(false, TG_DRAW, TG_DRAW) == SCREEN_KEPT, "two draws: kept");
    ok(screen_verdict(false, 0, TG_DRAW) == SCREEN_KEPT, "a win and a draw: kept");
    ok(screen_verdict(false, TG_NO_WINNER_YET, TG_NO_WINNER_YET) == SCREEN_KEPT,
       "two unfinished games: kept");
}

static void spec_parsing(void)
{
    uint64_t n = 7;
    ok(yardstick_parse("yardstick:nodes=5000", &n) == TG_OK && n == 5000, "nodes=5000");
    ok(yardstick_parse("yardstick", &n) == TG_OK && n == 100000, "the default budget");
    ok(yardstick_parse("yardstick:nodes=1000000000", &n) == TG_OK && n == 1000000000,
       "the largest budget");
    n = 7;
    const char *bad[] = {"yardstick:nodes=0",      "yardstick:nodes=",  "yardstick:nodes=12x",
                         "yardstick:nodes=-5",     "yardstick:depth=3", "yardstickx",
                         "yardstick:nodes=1000000001", "search:nodes=5", "yardstick:nodes=012"};
    int refused = 1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused &= yardstick_parse(bad[i], &n) == TG_ERR_BAD_OPTION;
    ok(refused && n == 7, "malformed specs are refused and write nothing");
    ok(yardstick_parse(NULL, &n) == TG_ERR_INVALID_ARGUMENT, "a NULL spec");
    ok(yardstick_named("yardstick:nodes=5") && !yardstick_named("search:nodes=5") &&
           !yardstick_named(NULL),
       "yardstick_named");
}

/* Whether `m` keeps a win for the player to move in `s`, as the judge proves it: 1, 0, or -1
 * on an error. */
static int winning_move(tg_search *judge, tg_state *s, tg_move m)
{
    int player = tg_state_player(s);
    if (tg_state_apply(s, m) != TG_OK)
        return -1;
    int wins;
    if (tg_state_is_terminal(s)) {
        wins = tg_state_winner(s) == player;
    } else {
        uint64_t none = 0;
        double v = 0.0;
        bool proven = false;
        if (tg_search_analyse(judge, s, &none) != TG_OK ||
            tg_search_result(judge, 0, NULL, &v, &proven) != TG_OK)
            wins = -1;
        else
            wins = proven && (tg_state_player(s) == player ? v >= 1.0 : v <= -1.0);
    }
    tg_state_undo(s);
    return wins;
}

/* Whether the program runs under valgrind or emulation: meson's test setups 'valgrind' and
 * 'emulated' set TG_TEST_EMULATED=1 for it as for the library's suites (tests/test_util.h). */
static bool emulated(void)
{
    const char *value = getenv("TG_TEST_EMULATED");
    return value != NULL && strcmp(value, "1") == 0;
}

/* Positions near the end of random Halusa and Walak-pussa games: wherever the library's
 * analysis proves a win for the side to move, the yardstick's move must be proven to win.
 * Natively 8 games of each (45 proven wins, at least 10 required); under valgrind the first
 * 2 of each (7 wins, at least 5 required): each position costs the judge a 2-million-node
 * analysis, and the 16 games were 11 of the test's 12.5 s of CPU natively and most of its
 * 227 s under valgrind (with 4 games the test takes 2 s natively). The gcc and ASan/UBSan
 * runs keep all 16 games; valgrind still sees every path of the yardstick and the judge. */
static void moves_against_proofs(void)
{
    const char *specs[] = {"halusa", "walak-pussa"};
    const uint64_t games = emulated() ? 2 : 8;
    const unsigned least_checked = emulated() ? 5 : 10;
    unsigned checked = 0, wrong = 0, errors = 0;
    tg_search *judge = NULL;
    if (tg_search_new("search:nodes=2000000", &judge) != TG_OK) {
        ok(0, "a judge");
        return;
    }
    for (size_t g = 0; g < sizeof specs / sizeof specs[0]; g++) {
        tg_rules *r = NULL;
        tg_state *s = NULL;
        if (tg_rules_new(specs[g], &r) != TG_OK || tg_state_new(r, &s) != TG_OK) {
            errors++;
            tg_rules_free(r);
            continue;
        }
        for (uint64_t seed = 1; seed <= games; seed++) {
            uint64_t rng = seed * 7919;
            while (tg_state_undo(s) == TG_OK)
                continue;
            while (!tg_state_is_terminal(s))
                tg_state_apply_random(s, &rng);
            /* The last plies of the game where the side to move has a choice: close enough
             * to the end for the yardstick to prove what the library proves. */
            for (int back = 0; back < 9; back++) {
                if (tg_state_undo(s) != TG_OK)
                    break;
                size_t n = 0;
                tg_state_moves(s, NULL, 0, &n);
                if (n < 2)
                    continue;
                uint64_t none = 0;
                tg_move chosen = 0;
                double best = 0.0;
                bool proven = false;
                if (tg_search_analyse(judge, s, &none) != TG_OK ||
                    tg_search_result(judge, 0, NULL, &best, &proven) != TG_OK ||
                    yardstick_choose(s, 1000000, &chosen) != TG_OK) {
                    errors++;
                    continue;
                }
                if (!proven || best < 1.0)
                    continue;
                checked++;
                int wins = winning_move(judge, s, chosen);
                if (wins < 0)
                    errors++;
                wrong += !wins;
            }
        }
        tg_state_free(s);
        tg_rules_free(r);
    }
    tg_search_free(judge);
    printf("# %u proven wins checked, %u not kept by the yardstick\n", checked, wrong);
    ok(errors == 0 && checked >= least_checked && wrong == 0,
       "the yardstick keeps every win the library proves");
}

static void bad_positions(void)
{
    tg_rules *r = NULL;
    tg_state *s = NULL;
    tg_move m = 12345;
    if (tg_rules_new("halusa", &r) != TG_OK || tg_state_new(r, &s) != TG_OK) {
        ok(0, "a state");
        return;
    }
    ok(yardstick_choose(NULL, 10, &m) == TG_ERR_INVALID_ARGUMENT && m == 12345, "a NULL state");
    ok(yardstick_choose(s, 0, &m) == TG_ERR_INVALID_ARGUMENT && m == 12345, "no nodes");
    ok(yardstick_choose(s, 10, NULL) == TG_ERR_INVALID_ARGUMENT, "a NULL move");
    uint64_t rng = 3;
    while (!tg_state_is_terminal(s))
        tg_state_apply_random(s, &rng);
    ok(yardstick_choose(s, 10, &m) == TG_ERR_INVALID_ARGUMENT && m == 12345, "a finished game");
    while (tg_state_undo(s) == TG_OK)
        continue;
    size_t ply = tg_state_ply(s);
    ok(yardstick_choose(s, 50, &m) == TG_OK && tg_state_is_legal(s, m) && tg_state_ply(s) == ply,
       "out of nodes at once: still a legal move, the state unchanged");
    tg_state_free(s);
    tg_rules_free(r);
}

/* At-Tab wa-d-Dukk: throws, and throws that lead to throws; every decision of a game is
 * searched with a budget large enough to go deep. */
static void with_throws(void)
{
    tg_rules *r = NULL;
    tg_state *s = NULL;
    if (tg_rules_new("tab", &r) != TG_OK || tg_state_new(r, &s) != TG_OK) {
        ok(0, "a Tab state");
        tg_rules_free(r);
        return;
    }
    uint64_t rng = 11;
    int legal = 1, searched = 0;
    while (!tg_state_is_terminal(s) && tg_state_ply(s) < 300) {
        tg_move m = 0;
        if (tg_state_player(s) != TG_CHANCE && searched < 60) {
            legal &= yardstick_choose(s, 20000, &m) == TG_OK && tg_state_is_legal(s, m);
            searched++;
            tg_state_apply(s, m);
        } else {
            tg_state_apply_random(s, &rng);
        }
    }
    ok(legal && searched == 60, "Tab: sixty searched decisions, every one legal");
    tg_state_free(s);
    tg_rules_free(r);
}

/* A screened tournament of two cheap bots: what it keeps, and the same on a second run. */
static int play(struct tournament *t, struct pairing *pairs, tg_rules **rules)
{
    static const char *bots[] = {"greedy", "mcts:iterations=30"};
    pairs[0] = (struct pairing){0, 1, 12};
    *t = (struct tournament){.rule_count = 1,
                             .rules = rules,
                             .play_rule_count = 1,
                             .bot_count = 2,
                             .bots = bots,
                             .pairing_count = 1,
                             .pairings = pairs,
                             .seed = 40,
                             .max_plies = 2000,
                             .opening = 2,
                             .jobs = 2,
                             .screen = "mcts:iterations=20",
                             .clockless = true};
    return tournament_schedule(t, 0) && tournament_play(t) == TG_OK;
}

static void screened_tournament(void)
{
    tg_rules *rules = NULL;
    struct tournament a, b;
    struct pairing pa[1], pb[1];
    if (tg_rules_new("hus", &rules) != TG_OK || !play(&a, pa, &rules) || !play(&b, pb, &rules)) {
        ok(0, "two screened tournaments played");
        tg_rules_free(rules);
        return;
    }
    const struct screen_count *c = &a.screened[0];
    unsigned long left = c->proven + c->same_seat;
    printf("# Hus: %lu seeds, %lu proven, %lu won by the same seat twice\n", c->seeds, c->proven,
           c->same_seat);
    ok(c->seeds == 6 && left == a.left_out_count, "every seed screened, every left-out one listed");
    ok(a.play_count == a.game_count && a.game_count == 2 * (c->seeds - left),
       "two games a kept seed, none of a left-out one");
    int paired = 1, none_left_out = 1, timeless = 1;
    for (size_t i = 0; i < a.game_count; i++) {
        const struct game *g = &a.games[i];
        size_t twins = 0;
        for (size_t j = 0; j < a.game_count; j++)
            twins += a.games[j].seed == g->seed && a.games[j].seat[0] == g->seat[1];
        paired &= twins == 1;
        for (size_t k = 0; k < a.left_out_count; k++)
            none_left_out &= a.left_out_seeds[k] != g->seed;
        timeless &= g->seconds == 0.0 && g->winner != TG_NO_WINNER_YET;
        for (int p = 0; p < 2; p++)
            for (unsigned long m = 0; m < g->moves[p]; m++)
                timeless &= g->move_seconds[p][m] == 0.0;
    }
    ok(paired, "every kept seed is played with both colourings");
    ok(none_left_out, "no left-out seed is played");
    ok(timeless, "without the clock every time is 0");
    int same = a.game_count == b.game_count && a.left_out_count == b.left_out_count;
    for (size_t i = 0; same && i < a.game_count; i++)
        same = a.games[i].seed == b.games[i].seed && a.games[i].winner == b.games[i].winner &&
               a.games[i].plies == b.games[i].plies &&
               strcmp(a.games[i].final_position, b.games[i].final_position) == 0;
    ok(same, "a second run plays the same games");
    tournament_free_games(&a);
    tournament_free_games(&b);
    tg_rules_free(rules);
}

int main(void)
{
    verdicts();
    spec_parsing();
    bad_positions();
    moves_against_proofs();
    with_throws();
    screened_tournament();
    printf("1..%u\n", test_number);
    return failures == 0 ? 0 : 1;
}

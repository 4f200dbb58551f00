/* tg-eval-data: self-play positions and their features for the fit of the search's
 * evaluation (tools/arena/fit_evaluation.py; docs/bots.md, "The fitted evaluation").
 *
 *   tg-eval-data --spec SPEC [--games N] [--seed S] [--bot BOT] [--noise K]
 *
 * Plays N games of BOT against itself. Game g draws everything from the seed S + g: an opening
 * of 2 to 9 random plies, then BOT's moves, one in K of them replaced by a random move (so that
 * the games differ; 0: none), and the throws. It writes one line per position where a player
 * decides: the game number, the ply, the player to move, the final score margin and the result
 * (1, 0 or -1) for that player, then the features of the position for that player, computed by
 * the library's own feature code (lib/search_features.c). The first line names the columns.
 *
 * Built from the library's sources (not the shared library), because the features are the
 * engine's internals; the games themselves go through the public API. Exit status 0, 1 on a
 * library error, 2 on bad arguments. */
#include "../../lib/internal.h"
#include "../../lib/search_features.h"
#include "../tool-args.h"

#include <traditional-games.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct tool_cli cli = {
    "tg-eval-data",
    "usage: tg-eval-data --spec SPEC [--games N] [--seed S] [--bot BOT] [--noise K]\n",
    "  --spec SPEC   the rule set, e.g. halusa or hus\n"
    "  --games N     games of self-play (default 100)\n"
    "  --seed S      game g plays with seed S + g (default 1)\n"
    "  --bot BOT     the bot of both seats (default search:nodes=2000)\n"
    "  --noise K     one move in K is random (default 20; 0: none)\n",
};

struct record {
    size_t ply;
    int player;
    int32_t feature[TG__FEATURES_MAX];
};

static uint64_t next_random(uint64_t *rng)
{
    uint64_t z = (*rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Plays game `g` and writes its positions; returns 0 or 1 on a library error. */
static int play_game(const tg_rules *rules, const char *bot, uint64_t seed, uint64_t noise,
                     uint64_t g)
{
    tg_state *s = NULL;
    if (tg_state_new(rules, &s) != TG_OK)
        return 1;
    uint64_t rng = seed + g, draw = next_random(&rng);
    size_t opening = 2 + (size_t)(draw % 8), cap = 0, n = 0, features = 0;
    struct record *seen = NULL;
    int status = 0;
    while (!tg_state_is_terminal(s)) {
        int player = tg_state_player(s);
        bool random_move = player == TG_CHANCE || tg_state_ply(s) < opening ||
                           (noise && next_random(&rng) % noise == 0);
        if (player >= 0 && tg_state_ply(s) >= opening) {
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                struct record *grown = realloc(seen, cap * sizeof *seen);
                if (!grown) {
                    status = 1;
                    break;
                }
                seen = grown;
            }
            seen[n].ply = tg_state_ply(s);
            seen[n].player = player;
            features = tg__eval_features(&s->rules.cfg, &s->pos, player, seen[n].feature);
            n++;
        }
        tg_move m;
        tg_status st =
            random_move ? tg_state_apply_random(s, &rng) : tg_bot_choose(s, bot, &rng, &m);
        if (st == TG_OK && !random_move)
            st = tg_state_apply(s, m);
        if (st != TG_OK) {
            fprintf(stderr, "tg-eval-data: %s\n", tg_status_string(st));
            status = 1;
            break;
        }
    }
    double returns[2] = {0, 0};
    if (status == 0 && tg_state_returns(s, returns) != TG_OK)
        status = 1;
    for (size_t i = 0; status == 0 && i < n; i++) {
        int me = seen[i].player;
        int margin = tg_state_score(s, me) - tg_state_score(s, 1 - me);
        printf("%" PRIu64 ",%zu,%d,%d,%d", g, seen[i].ply, me, margin, (int)returns[me]);
        for (size_t k = 0; k < features; k++)
            printf(",%" PRId32, seen[i].feature[k]);
        putchar('\n');
    }
    free(seen);
    tg_state_free(s);
    return status;
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *bot = "search:nodes=2000";
    uint64_t games = 100, seed = 1, noise = 20;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (tool_is_help(arg))
            return tool_help(&cli, stdout);
        if (!value)
            return tool_bad_args(&cli, "missing value or unknown option", arg);
        i++;
        if (strcmp(arg, "--spec") == 0)
            spec = value;
        else if (strcmp(arg, "--bot") == 0)
            bot = value;
        else if (strcmp(arg, "--games") == 0) {
            if (!tool_parse_whole(value, 10, 1000000, &games, NULL) || games == 0)
                return tool_bad_args(&cli, "--games takes 1 to 1000000", value);
        } else if (strcmp(arg, "--seed") == 0) {
            if (!tool_parse_whole(value, 10, UINT64_MAX / 2, &seed, NULL))
                return tool_bad_args(&cli, "--seed takes a whole number", value);
        } else if (strcmp(arg, "--noise") == 0) {
            if (!tool_parse_whole(value, 10, 1000000, &noise, NULL))
                return tool_bad_args(&cli, "--noise takes 0 to 1000000", value);
        } else
            return tool_bad_args(&cli, "unknown option", arg);
    }
    if (!spec)
        return tool_bad_args(&cli, "--spec is required", NULL);
    tg_rules *rules = NULL;
    if (tg_rules_new(spec, &rules) != TG_OK)
        return tool_bad_args(&cli, "not a rule set", spec);
    if (tg_bot_check(bot) != TG_OK) {
        tg_rules_free(rules);
        return tool_bad_args(&cli, "not a bot spec", bot);
    }
    const struct tg_game *game = rules->cfg.game;
    printf("game,ply,player,margin,result");
    for (size_t k = 0; tg__eval_feature_name(game, k); k++)
        printf(",%s", tg__eval_feature_name(game, k));
    putchar('\n');
    int status = 0;
    for (uint64_t g = 0; g < games && status == 0; g++)
        status = play_game(rules, bot, seed, noise, g);
    tg_rules_free(rules);
    return status;
}

/* tg-arena: tournaments between the library's bots, and their Elo ratings.
 *
 *   tg-arena [--spec SPEC]... [--games N] [--pair I-J[:N]]... [--seed S] [--jobs N]
 *            [--opening N [--balanced B]] [--max-plies N] [--prior X] [--json FILE] [--from
 * FILE]...
 *            [--screen BOT] [--no-clock] [--progress] BOT BOT [BOT...]
 *
 * Every pairing (a round robin of the bots, or the --pair list) plays N games on every rule
 * set: N / 2 seeds, each played twice with the colours swapped. A game's seed gives chance
 * (Tab's throws) a generator of its own and each seat's bot another, so both colourings of a
 * seed see the same throws in the same order. The ratings are the Bradley-Terry maximum
 * likelihood fit (tools/arena/elo.h), anchored at 0 on `random` when it plays (else on the
 * first bot), with 95% intervals from the observed information. --from adds the games of
 * earlier runs (their JSON) to the fit, so that a rating list can be built up run by run.
 *
 * Exit status: 0 when the tournament was played, 1 on a library error, 2 on bad arguments. */
#define _POSIX_C_SOURCE 200112L

#include "arena/elo.h"
#include "arena/load.h"
#include "arena/report.h"
#include "arena/tournament.h"
#include "arena/yardstick.h"
#include "clock-random.h"
#include "tool-args.h"

#include <traditional-games.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_BAD_ARGS = TOOL_EXIT_BAD_ARGS, MAX_JOBS = 64 };

#define USAGE_LINE                                                                                 \
    "usage: tg-arena [--spec SPEC]... [--games N] [--pair I-J[:N]]... [--seed S] [--jobs N]\n"     \
    "                [--opening N [--balanced B]] [--max-plies N] [--prior X] [--json FILE]\n"     \
    "                [--from FILE]... [--screen BOT] [--no-clock] [--progress]\n"             \
    "                BOT BOT [BOT...]\n"

/* What --help writes after the usage. */
static const char help_text[] =
    "  BOT              a bot spec of tg_bot_choose(), e.g. random, greedy,\n"
    "                   mcts:iterations=1000 (at least two, all different), or\n"
    "                   yardstick:nodes=N, the arena's own textbook alpha-beta\n"
    "  --spec SPEC      a rule set to play, e.g. halusa or hus:width=16; repeat it for\n"
    "                   several (default: halusa); each gets its own ratings\n"
    "  --games N        games per pairing and rule set, an even number: N/2 seeds, each\n"
    "                   played with both colourings (default 10)\n"
    "  --pair I-J[:N]   play bot I against bot J (numbered from 0 in the order given),\n"
    "                   N games (default --games); repeat it for a pairing list, which\n"
    "                   must link every bot; without it, every pair plays (round robin)\n"
    "  --seed S         seed index k of every pairing plays with seed S + k (default 1)\n"
    "  --jobs N         games played at once, in threads (default 1)\n"
    "  --opening N      the first N plies of every game are random moves, the same for\n"
    "                   both colourings of a seed, so that deterministic bots do not\n"
    "                   play one game over and over (default 0)\n"
    "  --balanced B     with --opening: draw the opening again (up to 200 times, then\n"
    "                   the most balanced draw) until " BALANCE_SPEC " values its\n"
    "                   position within +-B/1000 for the side to move, unproven, so\n"
    "                   that the opening does not decide the game (1 to 999)\n"
    "  --max-plies N    stop a game after N plies, counted as a draw and reported as\n"
    "                   unfinished (default 100000; 0 for no limit)\n"
    "  --prior X        virtual draws added to every pairing that played, so a perfect\n"
    "                   score still has a finite rating (default 1; 0 for none)\n"
    "  --json FILE      write every game and the fits as JSON to FILE (- for standard\n"
    "                   output, then the tables go to standard error)\n"
    "  --from FILE      add the games of an earlier run (its --json file) to the report\n"
    "                   and the fit; their bots follow the BOTs given (for --pair's\n"
    "                   numbers), their rule sets are played only if no --spec is given;\n"
    "                   with --from, fewer than two BOTs is allowed (then only the\n"
    "                   --pair list, if any, is played); a game may not appear twice\n"
    "  --screen BOT     paired openings: before the match, two copies of BOT play each\n"
    "                   seed's opening with both colourings; a seed whose opening\n"
    "                   " BALANCE_SPEC " proves, or that the same seat wins\n"
    "                   twice, is left out of every pairing and counted apart (needs\n"
    "                   --opening)\n"
    "  --no-clock       read no clock: every time reported is 0, so that with node- or\n"
    "                   iteration-bounded bots the JSON is the same on every run\n"
    "  --progress       a line on standard error for every game as it ends\n"
    "  --help           show this text\n";

static const struct tool_cli cli = {"tg-arena", USAGE_LINE, help_text};

struct options {
    const char *specs[64];
    size_t spec_count;
    const char *bots[64];
    size_t bot_count;
    struct pairing pairs[256];
    size_t pair_count;
    unsigned long games;
    uint64_t seed;
    unsigned jobs;
    unsigned long max_plies;
    unsigned long opening, balanced;
    double prior;
    const char *json;
    const char *from[64];
    size_t from_count;
    size_t cli_bot_count; /* the BOTs of the command line; the files' bots follow */
    int progress;
    const char *screen;
    bool clockless;
};

static int parse_pair(const char *text, struct options *o)
{
    uint64_t a, b, n = 0;
    const char *p;
    if (o->pair_count == sizeof o->pairs / sizeof o->pairs[0])
        return tool_bad_args(&cli, "too many --pair options", text);
    if (!tool_parse_whole(text, 10, 1000, &a, &p) || *p != '-' ||
        !tool_parse_whole(p + 1, 10, 1000, &b, &p))
        return tool_bad_args(&cli, "--pair needs I-J or I-J:N, bot numbers from 0", text);
    if (*p == ':') {
        if (!tool_parse_whole(p + 1, 10, 100000000, &n, NULL) || n == 0 || n % 2 != 0)
            return tool_bad_args(&cli, "--pair I-J:N needs an even number of games from 2", text);
    } else if (*p != '\0') {
        return tool_bad_args(&cli, "--pair needs I-J or I-J:N, bot numbers from 0", text);
    }
    if (a == b)
        return tool_bad_args(&cli, "--pair needs two different bots", text);
    o->pairs[o->pair_count++] = (struct pairing){(size_t)a, (size_t)b, (unsigned long)n};
    return -1;
}

static int takes_value_option(const char *a)
{
    static const char *const with_value[] = {"--spec", "--games",     "--pair",    "--seed",
                                             "--jobs", "--max-plies", "--prior",   "--json",
                                             "--from", "--opening",   "--balanced",
                                             "--screen"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(a, with_value[i]) == 0)
            return 1;
    return 0;
}

/* A spec of the library's bots or of the arena's yardstick; a message if not. */
static bool bot_spec_valid(const char *spec)
{
    uint64_t yardstick_nodes;
    tg_status st =
        yardstick_named(spec) ? yardstick_parse(spec, &yardstick_nodes) : tg_bot_check(spec);
    if (st != TG_OK)
        fprintf(stderr, "tg-arena: bad bot spec '%s': %s\n", spec, tg_status_string(st));
    return st == TG_OK;
}

/* Returns -1 to continue, or an exit status. */
static int parse_args(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->games = 10;
    o->seed = 1;
    o->jobs = 1;
    o->max_plies = 100000;
    o->prior = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        int takes_value = 1;
        if (tool_is_help(a)) {
            return tool_help(&cli, stdout);
        } else if (strcmp(a, "--progress") == 0) {
            o->progress = 1;
            takes_value = 0;
        } else if (strcmp(a, "--no-clock") == 0) {
            o->clockless = true;
            takes_value = 0;
        } else if (takes_value_option(a) && value == NULL) {
            return tool_bad_args(&cli, "missing value", a);
        } else if (strcmp(a, "--spec") == 0) {
            if (o->spec_count == sizeof o->specs / sizeof o->specs[0])
                return tool_bad_args(&cli, "too many --spec options", value);
            o->specs[o->spec_count++] = value;
        } else if (strcmp(a, "--games") == 0) {
            if (!tool_parse_whole(value, 10, 100000000, &n, NULL) || n == 0 || n % 2 != 0)
                return tool_bad_args(&cli, "--games needs an even number from 2", value);
            o->games = (unsigned long)n;
        } else if (strcmp(a, "--pair") == 0) {
            int rc = parse_pair(value, o);
            if (rc >= 0)
                return rc;
        } else if (strcmp(a, "--seed") == 0) {
            if (!tool_parse_whole(value, 10, UINT64_MAX, &o->seed, NULL))
                return tool_bad_args(&cli, "--seed needs a whole number", value);
        } else if (strcmp(a, "--jobs") == 0) {
            if (!tool_parse_whole(value, 10, MAX_JOBS, &n, NULL) || n == 0)
                return tool_bad_args(&cli, "--jobs needs a number from 1 to 64", value);
            o->jobs = (unsigned)n;
        } else if (strcmp(a, "--max-plies") == 0) {
            if (!tool_parse_whole(value, 10, 1000000000, &n, NULL))
                return tool_bad_args(&cli, "--max-plies needs a whole number", value);
            o->max_plies = (unsigned long)n;
        } else if (strcmp(a, "--balanced") == 0) {
            if (!tool_parse_whole(value, 10, 999, &n, NULL) || n == 0)
                return tool_bad_args(&cli, "--balanced needs a bound in thousandths from 1 to 999",
                                     value);
            o->balanced = (unsigned long)n;
        } else if (strcmp(a, "--opening") == 0) {
            if (!tool_parse_whole(value, 10, 1000, &n, NULL))
                return tool_bad_args(&cli, "--opening needs a number of plies from 0 to 1000",
                                     value);
            o->opening = (unsigned long)n;
        } else if (strcmp(a, "--prior") == 0) {
            char *end;
            errno = 0;
            o->prior = strtod(value, &end);
            if (!isdigit((unsigned char)value[0]) || errno != 0 || *end != '\0' ||
                !(o->prior <= 1000.0))
                return tool_bad_args(&cli, "--prior needs a number from 0 to 1000", value);
        } else if (strcmp(a, "--json") == 0) {
            o->json = value;
        } else if (strcmp(a, "--screen") == 0) {
            if (!bot_spec_valid(value))
                return tool_bad_args(&cli, "--screen needs a bot spec", value);
            o->screen = value;
        } else if (strcmp(a, "--from") == 0) {
            if (o->from_count == sizeof o->from / sizeof o->from[0])
                return tool_bad_args(&cli, "too many --from options", value);
            o->from[o->from_count++] = value;
        } else if (a[0] == '-') {
            return tool_bad_args(&cli, "unknown argument", a);
        } else {
            takes_value = 0;
            if (o->bot_count == sizeof o->bots / sizeof o->bots[0])
                return tool_bad_args(&cli, "too many bots", a);
            if (!bot_spec_valid(a))
                return tool_bad_args(&cli, "every BOT must be a spec tg_bot_choose() accepts",
                                     NULL);
            for (size_t b = 0; b < o->bot_count; b++)
                if (strcmp(o->bots[b], a) == 0)
                    return tool_bad_args(&cli, "a bot is named twice", a);
            o->bots[o->bot_count++] = a;
        }
        if (takes_value)
            i++;
    }
    if (o->spec_count == 0 && o->from_count == 0)
        o->specs[o->spec_count++] = "halusa";
    if (o->bot_count < 2 && o->from_count == 0)
        return tool_bad_args(&cli, "a tournament needs at least two bots", NULL);
    if (o->screen != NULL && o->opening == 0)
        return tool_bad_args(&cli, "--screen needs an --opening of at least one ply", NULL);
    if (o->balanced && o->opening == 0)
        return tool_bad_args(&cli, "--balanced needs an --opening of at least one ply", NULL);
    o->cli_bot_count = o->bot_count;
    return -1;
}

/* The pairings to play: the --pair list (each checked and given its number of games), or the
 * round robin of the command line's bots. Returns -1 to continue, or an exit status. */
static int make_pairings(struct options *o)
{
    if (o->pair_count == 0) {
        size_t n = o->cli_bot_count;
        if (n > 1 && n * (n - 1) / 2 > sizeof o->pairs / sizeof o->pairs[0])
            return tool_bad_args(&cli, "too many bots for a round robin: give a --pair list", NULL);
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++)
                o->pairs[o->pair_count++] = (struct pairing){a, b, o->games};
        return -1;
    }
    for (size_t p = 0; p < o->pair_count; p++) {
        struct pairing *q = &o->pairs[p];
        if (q->a >= o->bot_count || q->b >= o->bot_count)
            return tool_bad_args(&cli, "--pair names a bot number past the last bot", NULL);
        for (size_t e = 0; e < p; e++)
            if ((o->pairs[e].a == q->a && o->pairs[e].b == q->b) ||
                (o->pairs[e].a == q->b && o->pairs[e].b == q->a))
                return tool_bad_args(&cli, "a pairing is listed twice", NULL);
        if (q->games == 0)
            q->games = o->games;
    }
    return -1;
}

/* Every bot must be linked to the first by pairings (played or read), or it could not be
 * rated. */
static int check_linked(const struct options *o)
{
    unsigned char linked[64] = {1};
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t p = 0; p < o->pair_count; p++) {
            size_t a = o->pairs[p].a, b = o->pairs[p].b;
            if (linked[a] != linked[b]) {
                linked[a] = linked[b] = 1;
                changed = 1;
            }
        }
    }
    for (size_t b = 0; b < o->bot_count; b++)
        if (!linked[b])
            return tool_bad_args(&cli, "the pairings do not link this bot to the others",
                                 o->bots[b]);
    return -1;
}

static size_t find_bot(const struct options *o, const char *spec)
{
    size_t b = 0;
    while (b < o->bot_count && strcmp(o->bots[b], spec) != 0)
        b++;
    return b;
}

static size_t find_pairing(const struct options *o, size_t a, size_t b)
{
    size_t p = 0;
    while (p < o->pair_count && !((o->pairs[p].a == a && o->pairs[p].b == b) ||
                                  (o->pairs[p].a == b && o->pairs[p].b == a)))
        p++;
    return p;
}

/* The rule sets: the --spec ones (played), then those of the files not among them. */
struct rule_list {
    tg_rules *rules[64];
    size_t count, played;
};

static size_t find_rules(struct rule_list *rl, const char *spec, tg_status *st)
{
    tg_rules *r = NULL;
    *st = tg_rules_new(spec, &r);
    if (*st != TG_OK)
        return rl->count;
    size_t i = 0;
    while (i < rl->count && strcmp(tg_rules_spec(rl->rules[i]), tg_rules_spec(r)) != 0)
        i++;
    if (i < rl->count || rl->count == sizeof rl->rules / sizeof rl->rules[0]) {
        tg_rules_free(r);
        if (i == rl->count)
            *st = TG_ERR_BAD_OPTION;
        return i;
    }
    rl->rules[rl->count++] = r;
    return i;
}

/* Reads the --from files and gives their games bots, rule sets and pairings of this run
 * (adding what is new). Returns -1 to continue, or an exit status. */
static int load_all(struct options *o, struct rule_list *rl, struct loaded_game **games,
                    size_t *count)
{
    char err[512];
    for (size_t f = 0; f < o->from_count; f++)
        if (!load_games(o->from[f], games, count, err, sizeof err)) {
            fprintf(stderr, "tg-arena: --from: %s\n", err);
            return EXIT_BAD_ARGS;
        }
    for (size_t i = 0; i < *count; i++) {
        struct loaded_game *lg = &(*games)[i];
        for (int p = 0; p < 2; p++) {
            size_t b = find_bot(o, lg->bots[p]);
            if (b == o->bot_count) {
                if (b == sizeof o->bots / sizeof o->bots[0])
                    return tool_bad_args(&cli, "too many bots", lg->bots[p]);
                o->bots[o->bot_count++] = lg->bots[p];
            }
            lg->g.seat[p] = b;
        }
        tg_status st;
        lg->g.rules = find_rules(rl, lg->rules, &st);
        if (st != TG_OK) {
            fprintf(stderr, "tg-arena: --from: a game's rule set '%s': %s\n", lg->rules,
                    tg_status_string(st));
            return EXIT_BAD_ARGS;
        }
    }
    return -1;
}

/* The loaded games' pairings (after the ones to play, with no games of their own to play),
 * and no game twice: a game is its rule set, seed and seated bots. */
static int place_loaded(struct options *o, struct loaded_game *games, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        struct game *g = &games[i].g;
        size_t p = find_pairing(o, g->seat[0], g->seat[1]);
        if (p == o->pair_count) {
            if (p == sizeof o->pairs / sizeof o->pairs[0])
                return tool_bad_args(&cli, "too many pairings", NULL);
            o->pairs[o->pair_count++] = (struct pairing){g->seat[0], g->seat[1], 0};
        }
        g->pairing = p;
    }
    return -1;
}

static int same_game(const struct game *x, const struct game *y)
{
    return x->rules == y->rules && x->seed == y->seed && x->opening == y->opening &&
           x->balanced == y->balanced && x->seat[0] == y->seat[0] && x->seat[1] == y->seat[1];
}

static int check_duplicates(const struct tournament *t)
{
    for (size_t i = 0; i < t->game_count; i++)
        for (size_t j = i + 1; j < t->game_count; j++)
            if (same_game(&t->games[i], &t->games[j])) {
                fprintf(stderr,
                        "tg-arena: the game of seed %" PRIu64 ", %s against %s on %s is %s\n",
                        t->games[j].seed, t->bots[t->games[j].seat[0]],
                        t->bots[t->games[j].seat[1]], tg_rules_spec(t->rules[t->games[j].rules]),
                        i < t->play_count ? "already in a --from file (use another --seed)"
                                          : "in the --from files twice");
                return EXIT_BAD_ARGS;
            }
    return -1;
}

static int run(const struct options *o, struct rule_list *rl, struct loaded_game *loaded,
               size_t loaded_count, FILE *json)
{
    struct tournament t = {
        .rule_count = rl->count,
        .rules = rl->rules,
        .play_rule_count = rl->played,
        .bot_count = o->bot_count,
        .bots = (const char **)o->bots,
        .pairing_count = o->pair_count,
        .pairings = o->pairs,
        .seed = o->seed,
        .max_plies = o->max_plies,
        .opening = o->opening,
        .balanced = o->balanced,
        .jobs = o->jobs,
        .progress = o->progress,
        .screen = o->screen,
        .clockless = o->clockless,
    };
    size_t anchor = 0;
    for (size_t b = o->bot_count; b-- > 0;)
        if (strcmp(o->bots[b], "random") == 0)
            anchor = b;
    if (!tournament_schedule(&t, loaded_count)) {
        fputs("tg-arena: out of memory\n", stderr);
        return 1;
    }
    /* The loaded games move into the tournament: their strings stay with `loaded`. */
    for (size_t i = 0; i < loaded_count; i++) {
        t.games[t.game_count++] = loaded[i].g;
        memset(&loaded[i].g, 0, sizeof loaded[i].g);
    }
    int rc = check_duplicates(&t);
    if (rc >= 0) {
        tournament_free_games(&t);
        return rc;
    }
    FILE *tables = json == stdout ? stderr : stdout;
    fprintf(tables,
            "%zu bots, %zu pairings, %zu rule sets: %zu games to play (seeds from %" PRIu64
            ", %u jobs), %zu read from %zu files\n",
            o->bot_count, o->pair_count, rl->count, t.play_count, o->seed, o->jobs, loaded_count,
            o->from_count);
    fflush(tables);
    struct report rep = {0};
    if (!o->clockless)
        report_load(rep.load_before, sizeof rep.load_before);
    double start = o->clockless ? 0.0 : tool_seconds();
    tg_status st = tournament_play(&t);
    rc = 1;
    if (st == TG_OK) {
        if (!report_build(&rep, &t, anchor, o->prior)) {
            fputs("tg-arena: out of memory\n", stderr);
        } else {
            if (!o->clockless) {
                rep.wall_seconds = tool_seconds() - start;
                report_load(rep.load_after, sizeof rep.load_after);
            }
            report_print(&rep, tables);
            if (json != NULL)
                report_json(&rep, json);
            rc = 0;
        }
    }
    report_free(&rep);
    tournament_free_games(&t);
    return rc;
}

static int setup_and_run(struct options *o, struct rule_list *rl, struct loaded_game **loaded,
                         size_t *loaded_count)
{
    for (size_t i = 0; i < o->spec_count; i++) {
        tg_status st;
        size_t before = rl->count;
        find_rules(rl, o->specs[i], &st);
        if (st != TG_OK) {
            fprintf(stderr, "tg-arena: bad spec '%s': %s\n", o->specs[i], tg_status_string(st));
            return EXIT_BAD_ARGS;
        }
        if (rl->count == before)
            return tool_bad_args(&cli, "a rule set is given twice", o->specs[i]);
    }
    rl->played = rl->count;
    int rc = load_all(o, rl, loaded, loaded_count);
    if (rc < 0 && o->spec_count == 0)
        rl->played = rl->count; /* no --spec: play on the files' rule sets */
    if (rc < 0)
        rc = make_pairings(o);
    if (rc < 0)
        rc = place_loaded(o, *loaded, *loaded_count);
    if (rc < 0)
        rc = check_linked(o);
    if (rc >= 0)
        return rc;
    FILE *json = NULL;
    if (o->json != NULL) {
        json = strcmp(o->json, "-") == 0 ? stdout : fopen(o->json, "w");
        if (json == NULL) {
            fprintf(stderr, "tg-arena: cannot write '%s': %s\n", o->json, strerror(errno));
            return EXIT_BAD_ARGS;
        }
    }
    rc = run(o, rl, *loaded, *loaded_count, json);
    if (json != NULL && json != stdout && fclose(json) != 0 && rc == 0) {
        fprintf(stderr, "tg-arena: cannot write '%s'\n", o->json);
        rc = 1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct options o;
    struct rule_list rl = {{NULL}, 0, 0};
    struct loaded_game *loaded = NULL;
    size_t loaded_count = 0;
    int rc = parse_args(argc, argv, &o);
    if (rc < 0)
        rc = setup_and_run(&o, &rl, &loaded, &loaded_count);
    load_free(loaded, loaded_count);
    for (size_t i = 0; i < rl.count; i++)
        tg_rules_free(rl.rules[i]);
    return rc;
}

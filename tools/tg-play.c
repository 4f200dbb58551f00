/* tg-play: play any game of libtraditional-games in a terminal, against any bot.
 *
 *   tg-play [--seed N] [--spec SPEC] [--human 0|1|none] [--bot BOT] [--bot0 BOT] [--bot1 BOT]
 *           [--games N [--alternate]] [--quiet] [--max-plies N] [--save FILE] [--load FILE]
 *
 * A person plays one side against a bot, or two bots play each other (the default when
 * standard input is not a terminal, or with --human none). A bot is a spec of the library's
 * tg_bot_choose(): random (the default), greedy, mcts or mcts:iterations=N,c=X. Every move
 * not typed by the person is chosen by tg_bot_choose() with the bot of that seat, chance
 * states (throws) included: there the bot of the side whose turn it is draws the outcome.
 * Everything goes through the public API only, so the program knows nothing about any
 * particular game: moves are read and written in each game's own notation, and each move
 * printed says what it did from its story (tg_state_story(): "b2: sowed 7, captured 4 from
 * c2 and d2", "e2+3: takes 1 on h3"; tools/play/describe.c).
 *
 * With --games N the two bots play a match of N games, game i (from 0) with seed + i, one
 * line per game and a summary at the end: wins (by seat), draws, unfinished games, and the
 * mean length. --alternate swaps the seats in every odd game, so that bot A (--bot0) and bot
 * B (--bot1) each play both sides.
 *
 * --save FILE writes the game's record (docs/records.md, tg_state_record()) when the game
 * stops, with the tags South and North (the bots' specs, or "person"), Date and Seed.
 * --load FILE reads a record (tg_state_from_record()), lists its moves with what each did,
 * and continues the game from its end with the seats as the options say (a finished game is
 * only shown).
 *
 * Exit status: 0 when the game was played to its end (or the person typed `quit`), or when
 * the match was played; 1 on a library error, end of input or the ply limit of a single
 * game; 2 on bad arguments, a bad game spec, a bad bot spec or a record that cannot be
 * loaded. */
#define _POSIX_C_SOURCE 200112L

#include "play/describe.h"
#include "play/record.h"
#include "tool-args.h"

#include <traditional-games.h>

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Not 0 or 1, and not any tg_state_player() value either (TG_CHANCE is -1). */
enum { HUMAN_NONE = -100, HUMAN_DEFAULT = -101 };
enum { EXIT_BAD_ARGS = TOOL_EXIT_BAD_ARGS };

struct options {
    const char *spec;
    uint64_t seed;
    int seed_given;
    int human;               /* 0, 1, HUMAN_NONE or HUMAN_DEFAULT (decided from isatty) */
    int quiet;               /* no boards, only moves and the result */
    unsigned long max_plies; /* 0: no limit */
    const char *bot[2];      /* the bot of each seat (of the person's seat: only for throws) */
    unsigned long games;     /* 0: a single game; else a match of that many games */
    int alternate;           /* swap the seats in every odd game of a match */
    const char *save;        /* write the game's record there when it stops */
    const char *load;        /* start from the end of this record */
};

#define USAGE_LINE                                                                                 \
    "usage: tg-play [--seed N] [--spec SPEC] [--human 0|1|none] [--bot BOT] [--bot0 BOT]\n"        \
    "               [--bot1 BOT] [--games N [--alternate]] [--quiet] [--max-plies N]\n"            \
    "               [--save FILE] [--load FILE]\n"

/* What --help writes after the usage. */
static const char help_text[] =
    "  --spec SPEC      game and options, e.g. halusa or halusa:remainder=owner,quiet=50\n"
    "                   (default: halusa)\n"
    "  --seed N         seed of the bots and of chance (default: from the clock);\n"
    "                   one seed gives one game\n"
    "  --human P        the side a person plays: 0, 1, or none for two bots\n"
    "                   (default: 0 if standard input is a terminal, else none;\n"
    "                   a match, --games, is for bots only)\n"
    "  --bot BOT        the bot of every side the person does not play (default random):\n"
    "                   random, greedy, mcts, or mcts:iterations=N,c=X (N from 1 to\n"
    "                   10000000, default 1000; X the exploration constant, default 1)\n"
    "  --bot0 BOT       the bot of player 0 (south), whatever --bot says\n"
    "  --bot1 BOT       the bot of player 1 (north), whatever --bot says\n"
    "  --games N        a match of N games between the bots, game i (from 0) with seed\n"
    "                   seed + i: one line per game, then a summary (not with\n"
    "                   --human 0 or 1)\n"
    "  --alternate      in a match, swap the seats in every odd game so that bot A\n"
    "                   (--bot0) and bot B (--bot1) each play both sides\n"
    "  --quiet          print the moves and the result, not the board; in a match,\n"
    "                   only the summary\n"
    "  --max-plies N    stop a game after N plies (default 100000, 0 for no limit); in a\n"
    "                   match the game counts as unfinished\n"
    "  --save FILE      when the game stops, write its record to FILE (not in a match)\n"
    "  --load FILE      read a game record, list its moves and continue the game from\n"
    "                   its end (a finished game is only shown; not with --spec)\n"
    "  --list           list the games and their options, then exit\n"
    "  --help           show this text\n"
    "\n"
    "At your turn type a move in the game's notation (e.g. c1), or:\n"
    "  moves   list the legal moves     undo   take back your last move\n"
    "  board   show the board again     quit   stop the game\n";

static const struct tool_cli cli = {"tg-play", USAGE_LINE, help_text};

/* A bot spec from the command line, checked now rather than at the first move. */
static int check_bot(const char *option, const char *value, const char **out)
{
    tg_status st = value == NULL ? TG_ERR_INVALID_ARGUMENT : tg_bot_check(value);
    if (st == TG_OK) {
        *out = value;
        return -1;
    }
    if (value == NULL)
        fprintf(stderr, "tg-play: %s needs a bot spec\n", option);
    else
        fprintf(stderr, "tg-play: bad bot spec '%s' for %s: %s\n", value, option,
                tg_status_string(st));
    fputs("bots: random, greedy, mcts, or mcts:iterations=N,c=X (N from 1 to 10000000, X\n"
          "from 0 to 100), e.g. --bot mcts:iterations=2000,c=0.7  (tg-play --help for more)\n",
          stderr);
    return EXIT_BAD_ARGS;
}

static void list_games(void)
{
    for (size_t i = 0; i < tg_game_count(); i++) {
        printf("%-12s %s\n", tg_game_id(i), tg_game_name(i));
        for (size_t k = 0; k < tg_game_option_count(i); k++)
            printf("    %s=%s (default %s)\n", tg_game_option_key(i, k),
                   tg_game_option_values(i, k), tg_game_option_default(i, k));
    }
}

/* Returns -1 to continue, or an exit status. */
static int parse_args(int argc, char **argv, struct options *o)
{
    o->spec = "halusa";
    o->seed = 0;
    o->seed_given = 0;
    o->human = HUMAN_DEFAULT;
    o->quiet = 0;
    o->max_plies = 100000;
    o->games = 0;
    o->alternate = 0;
    o->save = NULL;
    o->load = NULL;
    int spec_given = 0;
    const char *bot_all = "random", *bot_seat[2] = {NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (tool_is_help(a)) {
            return tool_help(&cli, stdout);
        } else if (strcmp(a, "--list") == 0) {
            list_games();
            return 0;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "--spec") == 0) {
            if (value == NULL)
                return tool_bad_args(&cli, "--spec needs a value", NULL);
            o->spec = value;
            spec_given = 1;
            i++;
        } else if (strcmp(a, "--save") == 0 || strcmp(a, "--load") == 0) {
            if (value == NULL)
                return tool_bad_args(
                    &cli, a[2] == 's' ? "--save needs a file name" : "--load needs a file name",
                    NULL);
            *(a[2] == 's' ? &o->save : &o->load) = value;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            if (!tool_parse_whole(value, 0, UINT64_MAX, &o->seed, NULL))
                return tool_bad_args(&cli, "--seed needs a whole number", value);
            o->seed_given = 1;
            i++;
        } else if (strcmp(a, "--max-plies") == 0) {
            uint64_t n;
            if (!tool_parse_whole(value, 0, ULONG_MAX, &n, NULL))
                return tool_bad_args(&cli, "--max-plies needs a whole number", value);
            o->max_plies = (unsigned long)n;
            i++;
        } else if (strcmp(a, "--bot") == 0 || strcmp(a, "--bot0") == 0 ||
                   strcmp(a, "--bot1") == 0) {
            const char **slot = a[5] == '\0' ? &bot_all : &bot_seat[a[5] - '0'];
            int rc = check_bot(a, value, slot);
            if (rc >= 0)
                return rc;
            i++;
        } else if (strcmp(a, "--games") == 0) {
            uint64_t n;
            if (!tool_parse_whole(value, 0, ULONG_MAX, &n, NULL) || n == 0)
                return tool_bad_args(&cli, "--games needs a whole number from 1", value);
            o->games = (unsigned long)n;
            i++;
        } else if (strcmp(a, "--alternate") == 0) {
            o->alternate = 1;
        } else if (strcmp(a, "--human") == 0) {
            if (value == NULL)
                return tool_bad_args(&cli, "--human needs 0, 1 or none", NULL);
            if (strcmp(value, "0") == 0)
                o->human = 0;
            else if (strcmp(value, "1") == 0)
                o->human = 1;
            else if (strcmp(value, "none") == 0)
                o->human = HUMAN_NONE;
            else
                return tool_bad_args(&cli, "--human needs 0, 1 or none", value);
            i++;
        } else {
            return tool_bad_args(&cli, "unknown argument", a);
        }
    }
    for (int p = 0; p < 2; p++)
        o->bot[p] = bot_seat[p] != NULL ? bot_seat[p] : bot_all;
    if (o->games != 0) {
        /* A match is between bots only: a person cannot sit in on it. */
        if (o->human == 0 || o->human == 1)
            return tool_bad_args(&cli, "--games plays a match between bots: it needs --human none",
                                 NULL);
        o->human = HUMAN_NONE;
        if (o->save != NULL || o->load != NULL)
            return tool_bad_args(&cli, "--save and --load are for a single game, not a match",
                                 NULL);
    } else if (o->alternate) {
        return tool_bad_args(&cli, "--alternate only applies to a match: it needs --games", NULL);
    }
    if (o->load != NULL && spec_given)
        return tool_bad_args(&cli, "--load takes the rule set from the record: no --spec with it",
                             NULL);
    if (o->human == HUMAN_DEFAULT)
        o->human = isatty(STDIN_FILENO) ? 0 : HUMAN_NONE;
    if (!o->seed_given)
        o->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return -1;
}

/* The library's buffer contract: measure with a NULL buffer, then allocate and write. */
typedef tg_status (*text_fn)(const tg_state *, char *, size_t, size_t *);

static char *text_alloc(const tg_state *s, text_fn fn)
{
    size_t needed = 0;
    if (fn(s, NULL, 0, &needed) != TG_OK)
        return NULL;
    char *buf = malloc(needed + 1);
    if (buf == NULL)
        return NULL;
    if (fn(s, buf, needed + 1, NULL) != TG_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void print_text(const tg_state *s, text_fn fn)
{
    char *text = text_alloc(s, fn);
    if (text == NULL) {
        fputs("(cannot write the position)\n", stdout);
        return;
    }
    size_t n = strlen(text);
    fputs(text, stdout);
    if (n == 0 || text[n - 1] != '\n')
        fputc('\n', stdout);
    free(text);
}

/* A move in notation, written into a small fixed buffer (or "?" if it does not fit). */
static const char *move_name(const tg_state *s, tg_move m, char *buf, size_t cap)
{
    if (tg_move_to_string(s, m, buf, cap, NULL) != TG_OK)
        snprintf(buf, cap, "#%" PRIu32, m);
    return buf;
}

/* ": sowed 7, captured 4 from c2 and d2" for the last move of the history, then the end of
 * the line. */
static void end_move_line(const tg_state *s)
{
    size_t count = 0;
    char what[512];
    if (tg_state_history(s, NULL, 0, &count) == TG_OK && count > 0 &&
        describe_move(s, count - 1, what, sizeof what) && what[0] != '\0')
        printf(": %s", what);
    fputc('\n', stdout);
}

/* text_alloc()'s contract for a list of moves (the legal ones, or the history), for the
 * person's commands. Returns the list (to be freed) with its length in `*count`, or NULL
 * after printing `none` (the list is empty or cannot be measured) or `failed` (it cannot be
 * written). */
typedef tg_status (*list_fn)(const tg_state *, tg_move *, size_t, size_t *);

static tg_move *list_alloc(const tg_state *s, list_fn fn, size_t *count, const char *none,
                           const char *failed)
{
    *count = 0;
    if (fn(s, NULL, 0, count) != TG_OK || *count == 0) {
        puts(none);
        return NULL;
    }
    tg_move *buf = malloc(*count * sizeof *buf);
    if (buf == NULL || fn(s, buf, *count, count) != TG_OK) {
        free(buf);
        puts(failed);
        return NULL;
    }
    return buf;
}

static void print_moves(const tg_state *s)
{
    size_t count;
    tg_move *moves =
        list_alloc(s, tg_state_moves, &count, "no legal moves", "(cannot list the moves)");
    if (moves == NULL)
        return;
    fputs("legal moves:", stdout);
    for (size_t i = 0; i < count; i++) {
        char name[64];
        printf(" %s", move_name(s, moves[i], name, sizeof name));
    }
    fputc('\n', stdout);
    free(moves);
}

/* Takes back moves until it is `human`'s decision again, at least one move. If the history
 * does not reach such a state, nothing is changed. */
static void undo_to_human(tg_state *s, int human)
{
    size_t count;
    tg_move *h = list_alloc(s, tg_state_history, &count, "nothing to undo", "cannot undo");
    if (h == NULL)
        return;
    size_t undone = 0;
    while (undone < count) {
        if (tg_state_undo(s) != TG_OK)
            break;
        undone++;
        if (tg_state_player(s) == human)
            break;
    }
    if (undone == 0 || tg_state_player(s) != human) {
        /* Back to where we were: replay what was taken back. */
        for (size_t i = count - undone; i < count; i++)
            tg_state_apply(s, h[i]);
        puts("nothing of yours to undo");
    } else {
        printf("took back %zu move%s\n", undone, undone == 1 ? "" : "s");
    }
    free(h);
}

static char *trim(char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        line[--n] = '\0';
    return line;
}

enum { TURN_PLAYED, TURN_AGAIN, TURN_QUIT, TURN_EOF };

/* One input line of the person at the keyboard. */
static int human_turn(tg_state *s, tg_state *before, int human, int quiet)
{
    char line[256];
    printf("player %d, your move (or moves, undo, board, quit): ", human);
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL) {
        fputc('\n', stdout);
        return TURN_EOF;
    }
    if (strchr(line, '\n') == NULL && !feof(stdin)) {
        int c;
        while ((c = getchar()) != EOF && c != '\n')
            ;
        puts("line too long");
        return TURN_AGAIN;
    }
    char *cmd = trim(line);
    if (*cmd == '\0')
        return TURN_AGAIN;
    if (strcmp(cmd, "quit") == 0 || strcmp(cmd, "q") == 0)
        return TURN_QUIT;
    if (strcmp(cmd, "moves") == 0 || strcmp(cmd, "?") == 0) {
        print_moves(s);
        return TURN_AGAIN;
    }
    if (strcmp(cmd, "board") == 0) {
        print_text(s, tg_state_render);
        return TURN_AGAIN;
    }
    if (strcmp(cmd, "help") == 0) {
        tool_help(&cli, stdout);
        return TURN_AGAIN;
    }
    if (strcmp(cmd, "undo") == 0) {
        undo_to_human(s, human);
        if (!quiet)
            print_text(s, tg_state_render);
        return TURN_AGAIN;
    }
    tg_move m;
    tg_status st = tg_move_from_string(s, cmd, &m);
    if (st != TG_OK) {
        printf("'%s' is not a move of this game (%s); type moves for the list\n", cmd,
               tg_status_string(st));
        return TURN_AGAIN;
    }
    st = tg_state_copy(before, s);
    if (st == TG_OK)
        st = tg_state_apply(s, m);
    if (st != TG_OK) {
        printf("cannot play %s: %s\n", cmd, tg_status_string(st));
        print_moves(s);
        return TURN_AGAIN;
    }
    char name[64];
    /* Name the move in the library's spelling, in the state it was played in. */
    move_name(before, m, name, sizeof name);
    printf("player %d plays %s", human, name);
    end_move_line(s);
    return TURN_PLAYED;
}

/* The bot of the side to move: of the player deciding, or at a chance state of the player
 * whose turn it is (the bot draws the throw). */
static const char *bot_to_move(const tg_state *s, const char *const bot[2])
{
    int turn = tg_state_turn(s);
    return bot[turn == 1 ? 1 : 0];
}

/* One move chosen by a bot, a decision or a chance outcome, applied to `s`. Printed in
 * notation unless `print` is 0. */
static int bot_turn(tg_state *s, const char *bot, uint64_t *rng, int print)
{
    int player = tg_state_player(s);
    int turn = tg_state_turn(s);
    tg_move m = 0;
    char name[64] = "";
    tg_status st = tg_bot_choose(s, bot, rng, &m);
    if (st == TG_OK && print)
        move_name(s, m, name, sizeof name); /* before the move, in the state it is played in */
    if (st == TG_OK)
        st = tg_state_apply(s, m);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: bot %s failed: %s\n", bot, tg_status_string(st));
        return 0;
    }
    if (!print)
        return 1;
    if (player == TG_CHANCE)
        printf("player %d throws: %s", turn, name);
    else
        printf("player %d (%s) plays %s", player, bot, name);
    end_move_line(s);
    return 1;
}

static void print_result(const tg_state *s)
{
    int w = tg_state_winner(s);
    printf("final position: ");
    print_text(s, tg_state_to_string);
    printf("result: ");
    if (w == TG_DRAW)
        printf("draw");
    else if (w == 0 || w == 1)
        printf("player %d wins", w);
    else
        printf("unfinished");
    printf(", score %d-%d after %zu plies\n", tg_state_score(s, 0), tg_state_score(s, 1),
           tg_state_ply(s));
}

static int play(tg_state *s, tg_state *before, const struct options *o)
{
    uint64_t rng = o->seed;
    int show = !o->quiet;
    while (!tg_state_is_terminal(s)) {
        if (o->max_plies != 0 && tg_state_ply(s) >= o->max_plies) {
            printf("stopped after %zu plies without a result\n", tg_state_ply(s));
            return 1;
        }
        if (show)
            print_text(s, tg_state_render);
        show = !o->quiet;
        int player = tg_state_player(s);
        if (player == o->human) {
            int r = human_turn(s, before, o->human, o->quiet);
            if (r == TURN_QUIT) {
                puts("quit");
                return 0;
            }
            if (r == TURN_EOF) {
                puts("end of input: game not finished");
                return 1;
            }
            if (r == TURN_AGAIN)
                show = 0;
        } else if (!bot_turn(s, bot_to_move(s, o->bot), &rng, 1)) {
            return 1;
        }
    }
    if (!o->quiet)
        print_text(s, tg_state_render);
    print_result(s);
    return 0;
}

/* A match: what each of bot A (--bot0) and bot B (--bot1) did over all its games. */
struct tally {
    unsigned long wins[2];   /* games won as player 0 and as player 1 */
    unsigned long decisions; /* moves chosen at decision states, over all games */
};

/* One game of a match from the initial state `root`, the bots seated as `seat_bot` says. */
static int match_game(tg_state *s, const tg_state *root, const char *const seat_bot[2],
                      uint64_t seed, unsigned long max_plies, unsigned long decisions[2])
{
    uint64_t rng = seed;
    tg_status st = tg_state_copy(s, root);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: cannot start a game: %s\n", tg_status_string(st));
        return 0;
    }
    decisions[0] = decisions[1] = 0;
    while (!tg_state_is_terminal(s) && (max_plies == 0 || tg_state_ply(s) < max_plies)) {
        int player = tg_state_player(s);
        if (player == 0 || player == 1)
            decisions[player]++;
        if (!bot_turn(s, bot_to_move(s, seat_bot), &rng, 0))
            return 0;
    }
    return 1;
}

static double per_game(unsigned long long total, unsigned long games)
{
    return (double)total / (double)games;
}

static int play_match(tg_state *s, const tg_state *root, const struct options *o)
{
    const char *const label = "AB";
    struct tally t[2];
    memset(t, 0, sizeof t);
    unsigned long draws = 0, unfinished = 0;
    unsigned long long plies = 0;
    for (unsigned long i = 0; i < o->games; i++) {
        /* seated[p]: which bot (0 for A, 1 for B) plays as player p. */
        int swap = o->alternate && i % 2 == 1;
        int seated[2] = {swap, !swap};
        const char *seat_bot[2] = {o->bot[seated[0]], o->bot[seated[1]]};
        unsigned long decisions[2];
        uint64_t seed = o->seed + i;
        if (!match_game(s, root, seat_bot, seed, o->max_plies, decisions))
            return 1;
        for (int p = 0; p < 2; p++)
            t[seated[p]].decisions += decisions[p];
        plies += tg_state_ply(s);
        int w = tg_state_winner(s);
        if (w == 0 || w == 1)
            t[seated[w]].wins[w]++;
        else if (w == TG_DRAW)
            draws++;
        else
            unfinished++;
        if (o->quiet)
            continue;
        printf("game %lu (seed %" PRIu64 "): player 0 %c, player 1 %c: ", i + 1, seed,
               label[seated[0]], label[seated[1]]);
        if (w == 0 || w == 1)
            printf("%c wins as player %d", label[seated[w]], w);
        else if (w == TG_DRAW)
            printf("draw");
        else
            printf("unfinished");
        printf(", score %d-%d after %zu plies\n", tg_state_score(s, 0), tg_state_score(s, 1),
               tg_state_ply(s));
        fflush(stdout);
    }
    unsigned long wins[2] = {t[0].wins[0] + t[0].wins[1], t[1].wins[0] + t[1].wins[1]};
    printf("match of %lu game%s: A %lu win%s, B %lu win%s, %lu draw%s, %lu unfinished; "
           "%.1f plies per game\n",
           o->games, o->games == 1 ? "" : "s", wins[0], wins[0] == 1 ? "" : "s", wins[1],
           wins[1] == 1 ? "" : "s", draws, draws == 1 ? "" : "s", unfinished,
           per_game(plies, o->games));
    printf("%-3s %6s %6s %6s %6s %10s %10s %14s  %s\n", "bot", "wins", "as 0", "as 1", "draws",
           "unfinished", "plies/game", "decisions/game", "spec");
    for (int b = 0; b < 2; b++)
        printf("%-3c %6lu %6lu %6lu %6lu %10lu %10.1f %14.1f  %s\n", label[b], wins[b],
               t[b].wins[0], t[b].wins[1], draws, unfinished, per_game(plies, o->games),
               per_game(t[b].decisions, o->games), o->bot[b]);
    return 0;
}

/* --load: the record's moves, then the game goes on from its end (and is saved again with
 * --save). */
static int play_loaded(const struct options *o)
{
    tg_state *s = NULL, *before = NULL;
    if (!record_load(o->load, &s))
        return EXIT_BAD_ARGS;
    printf("%s, loaded from %s, seed %" PRIu64 "\n", tg_rules_spec(tg_state_rules(s)), o->load,
           o->seed);
    int rc = record_print_moves(s) ? 0 : 1;
    if (rc == 0 && tg_state_is_terminal(s)) {
        if (!o->quiet)
            print_text(s, tg_state_render);
        print_result(s);
    } else if (rc == 0) {
        tg_status st = tg_state_new(tg_state_rules(s), &before);
        if (st != TG_OK) {
            fprintf(stderr, "tg-play: cannot make a state: %s\n", tg_status_string(st));
            rc = 1;
        } else {
            rc = play(s, before, o);
        }
    }
    if (o->save != NULL && !record_save(s, o->save, o->bot, o->human, o->seed))
        rc = 1;
    tg_state_free(before);
    tg_state_free(s);
    return rc;
}

/* A single game or a match from the initial state of --spec. */
static int play_new(const struct options *o)
{
    tg_rules *rules = NULL;
    tg_status st = tg_rules_new(o->spec, &rules);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: bad spec '%s': %s\n", o->spec, tg_status_string(st));
        fputs("games:", stderr);
        for (size_t i = 0; i < tg_game_count(); i++)
            fprintf(stderr, " %s", tg_game_id(i));
        fputs(" (tg-play --list shows their options)\n", stderr);
        return EXIT_BAD_ARGS;
    }
    tg_state *s = NULL, *before = NULL;
    st = tg_state_new(rules, &s);
    if (st == TG_OK)
        st = tg_state_new(rules, &before);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: cannot make a state: %s\n", tg_status_string(st));
        tg_state_free(s);
        tg_rules_free(rules);
        return 1;
    }
    int rc;
    if (o->games != 0) {
        /* `before` is still the initial state: each game of the match starts from it. */
        printf("%s, seeds %" PRIu64 " to %" PRIu64 ", a match of %lu game%s, A %s, B %s, %s\n",
               tg_rules_spec(rules), o->seed, o->seed + (o->games - 1), o->games,
               o->games == 1 ? "" : "s", o->bot[0], o->bot[1],
               o->alternate ? "seats alternating (A is player 0 in odd-numbered games)"
                            : "A is player 0");
        fflush(stdout);
        rc = play_match(s, before, o);
    } else {
        printf("%s, seed %" PRIu64 ", ", tg_rules_spec(rules), o->seed);
        if (o->human == HUMAN_NONE)
            printf("player 0 %s, player 1 %s\n", o->bot[0], o->bot[1]);
        else
            printf("you are player %d (%s) against %s\n", o->human,
                   o->human == 0 ? "south" : "north", o->bot[!o->human]);
        rc = play(s, before, o);
        if (o->save != NULL && !record_save(s, o->save, o->bot, o->human, o->seed))
            rc = 1;
    }
    tg_state_free(before);
    tg_state_free(s);
    tg_rules_free(rules);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    return o.load != NULL ? play_loaded(&o) : play_new(&o);
}

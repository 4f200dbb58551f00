/* tg-play: play any game of libtraditional-games in a terminal.
 *
 *   tg-play [--seed N] [--spec SPEC] [--human 0|1|none] [--quiet] [--max-plies N]
 *
 * A person plays one side against a random mover, or two random movers play each other (the
 * default when standard input is not a terminal, or with --human none). Everything goes
 * through the public API only, so the program knows nothing about any particular game: chance
 * states (throws) are resolved at random and printed, moves are read and written in each
 * game's own notation.
 *
 * Exit status: 0 when the game was played to its end (or the person typed `quit`), 1 on a
 * library error, end of input or the ply limit, 2 on bad arguments or a bad spec. */
#define _POSIX_C_SOURCE 200112L

#include <traditional-games.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Not 0 or 1, and not any tg_state_player() value either (TG_CHANCE is -1). */
enum { HUMAN_NONE = -100, HUMAN_DEFAULT = -101 };
enum { EXIT_BAD_ARGS = 2 };

struct options {
    const char *spec;
    uint64_t seed;
    int seed_given;
    int human;           /* 0, 1, HUMAN_NONE or HUMAN_DEFAULT (decided from isatty) */
    int quiet;           /* no boards, only moves and the result */
    unsigned long max_plies; /* 0: no limit */
};

static void usage(FILE *f)
{
    fputs("usage: tg-play [--seed N] [--spec SPEC] [--human 0|1|none] [--quiet] [--max-plies N]\n"
          "\n"
          "  --spec SPEC      game and options, e.g. halusa or halusa:remainder=owner,quiet=50\n"
          "                   (default: halusa)\n"
          "  --seed N         seed of the random mover and of chance (default: from the clock);\n"
          "                   one seed gives one game\n"
          "  --human P        the side a person plays: 0, 1, or none for two random movers\n"
          "                   (default: 0 if standard input is a terminal, else none)\n"
          "  --quiet          print the moves and the result, not the board\n"
          "  --max-plies N    stop after N plies (default 100000, 0 for no limit)\n"
          "  --list           list the games and their options, then exit\n"
          "  --help           show this text\n"
          "\n"
          "At your turn type a move in the game's notation (e.g. c1), or:\n"
          "  moves   list the legal moves     undo   take back your last move\n"
          "  board   show the board again     quit   stop the game\n",
          f);
}

static int parse_u64(const char *text, uint64_t *out)
{
    char *end;
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = (uint64_t)v;
    return 1;
}

static int bad_args(const char *why, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "tg-play: %s: '%s'\n", why, arg);
    else
        fprintf(stderr, "tg-play: %s\n", why);
    fputs("usage: tg-play [--seed N] [--spec SPEC] [--human 0|1|none] [--quiet] [--max-plies N]\n"
          "       (tg-play --help for more)\n",
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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--list") == 0) {
            list_games();
            return 0;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "--spec") == 0) {
            if (value == NULL)
                return bad_args("--spec needs a value", NULL);
            o->spec = value;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            if (!parse_u64(value, &o->seed))
                return bad_args("--seed needs a whole number", value);
            o->seed_given = 1;
            i++;
        } else if (strcmp(a, "--max-plies") == 0) {
            uint64_t n;
            if (!parse_u64(value, &n) || n > (uint64_t)(unsigned long)-1)
                return bad_args("--max-plies needs a whole number", value);
            o->max_plies = (unsigned long)n;
            i++;
        } else if (strcmp(a, "--human") == 0) {
            if (value == NULL)
                return bad_args("--human needs 0, 1 or none", NULL);
            if (strcmp(value, "0") == 0)
                o->human = 0;
            else if (strcmp(value, "1") == 0)
                o->human = 1;
            else if (strcmp(value, "none") == 0)
                o->human = HUMAN_NONE;
            else
                return bad_args("--human needs 0, 1 or none", value);
            i++;
        } else {
            return bad_args("unknown argument", a);
        }
    }
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

static void print_moves(const tg_state *s)
{
    size_t count = 0;
    if (tg_state_moves(s, NULL, 0, &count) != TG_OK || count == 0) {
        puts("no legal moves");
        return;
    }
    tg_move *moves = malloc(count * sizeof *moves);
    if (moves == NULL || tg_state_moves(s, moves, count, &count) != TG_OK) {
        free(moves);
        puts("(cannot list the moves)");
        return;
    }
    fputs("legal moves:", stdout);
    for (size_t i = 0; i < count; i++) {
        char name[64];
        printf(" %s", move_name(s, moves[i], name, sizeof name));
    }
    fputc('\n', stdout);
    free(moves);
}

/* The last move of the history: what tg_state_apply_random just played. */
static int last_move(const tg_state *s, tg_move *out)
{
    size_t count = 0;
    if (tg_state_history(s, NULL, 0, &count) != TG_OK || count == 0)
        return 0;
    tg_move *h = malloc(count * sizeof *h);
    if (h == NULL)
        return 0;
    int ok = tg_state_history(s, h, count, &count) == TG_OK;
    if (ok)
        *out = h[count - 1];
    free(h);
    return ok;
}

/* Takes back moves until it is `human`'s decision again, at least one move. If the history
 * does not reach such a state, nothing is changed. */
static void undo_to_human(tg_state *s, int human)
{
    size_t count = 0;
    if (tg_state_history(s, NULL, 0, &count) != TG_OK || count == 0) {
        puts("nothing to undo");
        return;
    }
    tg_move *h = malloc(count * sizeof *h);
    if (h == NULL || tg_state_history(s, h, count, &count) != TG_OK) {
        free(h);
        puts("cannot undo");
        return;
    }
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
        usage(stdout);
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
    printf("player %d plays %s\n", human, name);
    return TURN_PLAYED;
}

/* A random decision or chance outcome, printed in notation. */
static int random_turn(tg_state *s, tg_state *before, uint64_t *rng)
{
    int player = tg_state_player(s);
    int turn = tg_state_turn(s);
    tg_status st = tg_state_copy(before, s);
    if (st == TG_OK)
        st = tg_state_apply_random(s, rng);
    tg_move m = 0;
    if (st != TG_OK || !last_move(s, &m)) {
        fprintf(stderr, "tg-play: random move failed: %s\n", tg_status_string(st));
        return 0;
    }
    char name[64];
    move_name(before, m, name, sizeof name);
    if (player == TG_CHANCE)
        printf("player %d throws: %s\n", turn, name);
    else
        printf("player %d plays %s\n", player, name);
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
        } else if (!random_turn(s, before, &rng)) {
            return 1;
        }
    }
    if (!o->quiet)
        print_text(s, tg_state_render);
    print_result(s);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;

    tg_rules *rules = NULL;
    tg_status st = tg_rules_new(o.spec, &rules);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: bad spec '%s': %s\n", o.spec, tg_status_string(st));
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
    printf("%s, seed %" PRIu64 ", %s\n", tg_rules_spec(rules), o.seed,
           o.human == HUMAN_NONE ? "two random movers"
                                 : (o.human == 0 ? "you are player 0 (south)"
                                                 : "you are player 1 (north)"));
    rc = play(s, before, &o);
    tg_state_free(before);
    tg_state_free(s);
    tg_rules_free(rules);
    return rc;
}

/* The native side of the determinism test: the same scenarios the JavaScript test plays
 * through WebAssembly, played by the native library, one JSON object per line.
 *
 * Each line of standard input is one scenario (fields separated by single spaces):
 *
 *   playout SPEC SEED                  tg_state_playout() from the start
 *   random SPEC SEED                   tg_state_apply_random() move by move to the end
 *   game SPEC SEED BOT0 BOT1           tg_bot_choose() for each player (chance states: the
 *                                      player whose turn it is throws) and tg_state_apply()
 *   perft SPEC DEPTH                   tg_perft() from the start
 *   told SPEC SEED BOT0 BOT1           `game`, then what the library tells of it: the story
 *                                      of every move of the history (tg_state_story), the
 *                                      end reason (tg_end_reason_name) and the record
 *                                      (tg_state_record, tags White BOT0 and Black BOT1)
 *   analyse SPEC SEED PLIES BOT        PLIES tg_state_apply_random() moves (fewer if the game
 *                                      ends), then tg_search_analyse() with BOT
 *
 * and gets one line back: the final position string, its hash, the generator's state, the ply
 * and the moves made (for `random` and `game`), the leaf count for `perft`, or for `told`
 * `{"stories":[[kind,cell,count,player,...],...],"reason":"...","record":"..."}`, for
 * `analyse` `{"text":"...","rng":"...","results":[{"move":M,"value":V,"proven":B,"line":"..."}]}`
 * (values with 17 significant digits: read back, the same doubles). 64-bit values
 * are written in decimal, as strings, so JavaScript reads them exactly. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traditional-games.h>

static void die(const char *what, tg_status st)
{
    fprintf(stderr, "native-oracle: %s: %s\n", what, tg_status_string(st));
    exit(1);
}

static tg_state *start(const char *spec)
{
    tg_rules *rules = NULL;
    tg_state *state = NULL;
    tg_status st = tg_rules_new(spec, &rules);
    if (st != TG_OK)
        die(spec, st);
    st = tg_state_new(rules, &state);
    tg_rules_free(rules);
    if (st != TG_OK)
        die("tg_state_new", st);
    return state;
}

/* Position strings and specs are ASCII without quotes or backslashes: printed as they are. */
static void print_result(const tg_state *state, uint64_t rng, const tg_move *moves, size_t n)
{
    size_t len = 0;
    tg_state_to_string(state, NULL, 0, &len);
    char *text = malloc(len + 1);
    if (!text)
        die("malloc", TG_ERR_NO_MEMORY);
    tg_state_to_string(state, text, len + 1, NULL);
    printf("{\"text\":\"%s\",\"hash\":\"%" PRIu64 "\",\"rng\":\"%" PRIu64 "\",\"ply\":%zu",
           text, tg_state_hash(state), rng, tg_state_ply(state));
    free(text);
    if (moves) {
        printf(",\"moves\":[");
        for (size_t i = 0; i < n; i++)
            printf("%s%" PRIu32, i ? "," : "", moves[i]);
        printf("]");
    }
    printf("}\n");
}

/* A JSON string: the record holds quotes (tag values) and line breaks. */
static void print_json_string(const char *text)
{
    putchar('"');
    for (const char *p = text; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '\n')
            printf("\\n");
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_told(const tg_state *state, const char *bot0, const char *bot1)
{
    size_t n = 0;
    tg_state_history(state, NULL, 0, &n);
    printf("{\"stories\":[");
    for (size_t i = 0; i < n; i++) {
        size_t count = 0;
        tg_status st = tg_state_story(state, i, NULL, 0, &count);
        if (st != TG_OK)
            die("tg_state_story", st);
        uint32_t *events = malloc((count ? count : 1) * TG_EVENT_FIELDS * sizeof *events);
        if (!events)
            die("malloc", TG_ERR_NO_MEMORY);
        if ((st = tg_state_story(state, i, events, count, &count)) != TG_OK)
            die("tg_state_story", st);
        printf("%s[", i ? "," : "");
        for (size_t k = 0; k < count * TG_EVENT_FIELDS; k++)
            printf("%s%" PRIu32, k ? "," : "", events[k]);
        printf("]");
        free(events);
    }
    printf("],\"reason\":\"%s\",\"record\":", tg_end_reason_name(tg_state_end_reason(state)));
    char tags[512];
    snprintf(tags, sizeof tags, "[White \"%s\"]\n[Black \"%s\"]\n", bot0, bot1);
    size_t len = 0;
    tg_status st = tg_state_record(state, tags, NULL, 0, &len);
    if (st != TG_OK)
        die("tg_state_record", st);
    char *record = malloc(len + 1);
    if (!record)
        die("malloc", TG_ERR_NO_MEMORY);
    if ((st = tg_state_record(state, tags, record, len + 1, NULL)) != TG_OK)
        die("tg_state_record", st);
    print_json_string(record);
    free(record);
    printf("}\n");
}

struct move_log {
    tg_move *moves;
    size_t n, cap;
};

static void log_move(struct move_log *log, tg_move m)
{
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 256;
        log->moves = realloc(log->moves, log->cap * sizeof *log->moves);
        if (!log->moves)
            die("realloc", TG_ERR_NO_MEMORY);
    }
    log->moves[log->n++] = m;
}

static void play(char *kind, char *spec, char *rest)
{
    if (strcmp(kind, "perft") == 0) {
        tg_state *state = start(spec);
        printf("{\"leaves\":\"%" PRIu64 "\"}\n", tg_perft(state, (unsigned)strtoul(rest, NULL, 10)));
        tg_state_free(state);
        return;
    }
    char *bots = NULL;
    uint64_t rng = strtoull(rest, &bots, 10);
    tg_state *state = start(spec);
    struct move_log log = {0};
    tg_status st;
    if (strcmp(kind, "playout") == 0) {
        if ((st = tg_state_playout(state, &rng, SIZE_MAX, NULL)) != TG_OK)
            die("tg_state_playout", st);
        print_result(state, rng, NULL, 0);
    } else if (strcmp(kind, "random") == 0) {
        while (!tg_state_is_terminal(state)) {
            if ((st = tg_state_apply_random(state, &rng)) != TG_OK)
                die("tg_state_apply_random", st);
        }
        /* A state from tg_state_new that was never played out: its history is every move. */
        size_t n = 0;
        tg_state_history(state, NULL, 0, &n);
        log.moves = malloc((n ? n : 1) * sizeof *log.moves);
        if (!log.moves)
            die("malloc", TG_ERR_NO_MEMORY);
        tg_state_history(state, log.moves, n, &log.n);
        print_result(state, rng, log.moves, log.n);
    } else if (strcmp(kind, "analyse") == 0) {
        char *end = NULL;
        unsigned long plies = strtoul(bots, &end, 10);
        const char *bot = end + strspn(end, " ");
        for (unsigned long i = 0; i < plies && !tg_state_is_terminal(state); i++) {
            if ((st = tg_state_apply_random(state, &rng)) != TG_OK)
                die("tg_state_apply_random", st);
        }
        tg_search *search = NULL;
        if ((st = tg_search_new(bot, &search)) != TG_OK)
            die("tg_search_new", st);
        if ((st = tg_search_analyse(search, state, &rng)) != TG_OK)
            die("tg_search_analyse", st);
        char text[4096];
        if ((st = tg_state_to_string(state, text, sizeof text, NULL)) != TG_OK)
            die("tg_state_to_string", st);
        printf("{\"text\":\"%s\",\"rng\":\"%" PRIu64 "\",\"results\":[", text, rng);
        for (size_t i = 0; i < tg_search_result_count(search); i++) {
            tg_move m;
            double value;
            bool proven;
            char line[1024];
            if ((st = tg_search_result(search, i, &m, &value, &proven)) != TG_OK ||
                (st = tg_search_result_line(search, i, line, sizeof line, NULL)) != TG_OK)
                die("tg_search_result", st);
            printf("%s{\"move\":%" PRIu32 ",\"value\":%.17g,\"proven\":%s,\"line\":\"%s\"}",
                   i ? "," : "", m, value, proven ? "true" : "false", line);
        }
        printf("]}\n");
        tg_search_free(search);
    } else if (strcmp(kind, "game") == 0 || strcmp(kind, "told") == 0) {
        char *bot[2];
        bot[0] = strtok(bots, " ");
        bot[1] = strtok(NULL, " ");
        if (!bot[0] || !bot[1])
            die("game needs two bots", TG_ERR_INVALID_ARGUMENT);
        while (!tg_state_is_terminal(state)) {
            tg_move m;
            if ((st = tg_bot_choose(state, bot[tg_state_turn(state)], &rng, &m)) != TG_OK)
                die("tg_bot_choose", st);
            if ((st = tg_state_apply(state, m)) != TG_OK)
                die("tg_state_apply", st);
            log_move(&log, m);
        }
        if (strcmp(kind, "told") == 0)
            print_told(state, bot[0], bot[1]);
        else
            print_result(state, rng, log.moves, log.n);
    } else {
        die(kind, TG_ERR_PARSE);
    }
    free(log.moves);
    tg_state_free(state);
}

int main(void)
{
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *kind = strtok(line, " ");
        char *spec = strtok(NULL, " ");
        char *rest = strtok(NULL, "");
        if (!kind || !spec || !rest)
            die("malformed scenario", TG_ERR_PARSE);
        play(kind, spec, rest);
        fflush(stdout);
    }
    return 0;
}

/* Prints what the library computes for a fixed list of rule sets and seeds, so that builds for
 * different platforms can be compared byte for byte (scripts/test-platforms.sh diffs a cross
 * build's output, run under qemu-user or wine, against the native build's): every game of the
 * catalogue under its defaults and under each listed choice of each option; for each, seeded
 * random games with their final position, record and the story of every move, and the moves
 * `search:nodes=` and `mcts:iterations=` choose along the way; and that a `time=` search runs
 * and stops, the clock being the one platform service the library uses. Public API only.
 *
 *   tg-determinism OUTPUT-FILE
 *
 * The output is written to a file opened in binary mode, never to stdout: Windows' C library
 * would turn each newline of stdout into CR LF. Exit status 0 when every call succeeded. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traditional-games.h>

/* Enough for any game of the battery: a game that reaches the cap is printed as it stands. */
enum { MAX_PLIES = 600, SPEC_MAX = 512, CHOICE_MAX = 64 };

/* Seeds with different bit patterns: small, all high bits, and a 64-bit constant. */
static const uint64_t seeds[] = {1u, 2u, 0xFFFFFFFF00000000u, 0x9E3779B97F4A7C15u};

/* Where, in a game, the bots are asked for a move: the start, early and middle game. */
static const size_t bot_plies[] = {0, 7, 25};

/* Deterministic bots only (fixed budgets, no time limits), with the caller's seed. */
static const char *const bot_specs[] = {"search:nodes=3000", "mcts:iterations=300"};

static FILE *out;

static int fail(const char *what, const char *spec, tg_status st)
{
    fprintf(stderr, "tg-determinism: %s failed for '%s': %s\n", what, spec, tg_status_string(st));
    return 1;
}

/* The text a call following the buffer contract produces, in a buffer the caller frees. */
static char *state_text(const tg_state *s, int kind)
{
    size_t needed = 0;
    tg_status st = kind == 0   ? tg_state_to_string(s, NULL, 0, &needed)
                   : kind == 1 ? tg_state_record(s, NULL, NULL, 0, &needed)
                               : tg_state_render(s, NULL, 0, &needed);
    if (st != TG_OK && st != TG_ERR_BUFFER_TOO_SMALL)
        return NULL;
    char *buf = malloc(needed + 1);
    if (!buf)
        return NULL;
    st = kind == 0   ? tg_state_to_string(s, buf, needed + 1, NULL)
         : kind == 1 ? tg_state_record(s, NULL, buf, needed + 1, NULL)
                     : tg_state_render(s, buf, needed + 1, NULL);
    if (st != TG_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int print_move(const tg_state *s, tg_move m)
{
    char text[64];
    if (tg_move_to_string(s, m, text, sizeof text, NULL) != TG_OK)
        return 1;
    fprintf(out, " %s", text);
    return 0;
}

/* The bots' moves from @p s, each with its own copy of the seed. */
static int print_bots(const tg_state *s, const char *spec, uint64_t seed)
{
    fprintf(out, "bots at ply %" PRIu64 ":", (uint64_t)tg_state_ply(s));
    for (size_t b = 0; b < sizeof bot_specs / sizeof bot_specs[0]; b++) {
        uint64_t rng = seed;
        tg_move m = 0;
        tg_status st = tg_bot_choose(s, bot_specs[b], &rng, &m);
        if (st != TG_OK)
            return fail(bot_specs[b], spec, st);
        fprintf(out, " %s", bot_specs[b]);
        if (print_move(s, m))
            return fail("tg_move_to_string", spec, TG_ERR_INVALID_ARGUMENT);
        fprintf(out, " rng=%016" PRIx64, rng);
    }
    fputc('\n', out);
    return 0;
}

static int print_story(const tg_state *s, const char *spec, size_t index)
{
    size_t count = 0;
    tg_status st = tg_state_story(s, index, NULL, 0, &count);
    if (st != TG_OK)
        return fail("tg_state_story (count)", spec, st);
    uint32_t *events = malloc((count ? count : 1) * TG_EVENT_FIELDS * sizeof *events);
    if (!events)
        return fail("malloc", spec, TG_ERR_NO_MEMORY);
    st = tg_state_story(s, index, events, count, &count);
    if (st != TG_OK) {
        free(events);
        return fail("tg_state_story", spec, st);
    }
    fprintf(out, "story %" PRIu64 ":", (uint64_t)index);
    for (size_t i = 0; i < count * TG_EVENT_FIELDS; i++)
        fprintf(out, "%s%" PRIu32, i % TG_EVENT_FIELDS ? "," : " ", events[i]);
    fputc('\n', out);
    free(events);
    return 0;
}

static int play_one(const tg_rules *r, const char *spec, uint64_t seed)
{
    tg_state *s = NULL;
    tg_status st = tg_state_new(r, &s);
    if (st != TG_OK)
        return fail("tg_state_new", spec, st);
    fprintf(out, "== %s seed=%016" PRIx64 "\n", spec, seed);
    uint64_t rng = seed;
    size_t next_bot = 0;
    int bad = 0;
    while (!bad && !tg_state_is_terminal(s) && tg_state_ply(s) < MAX_PLIES) {
        if (next_bot < sizeof bot_plies / sizeof bot_plies[0] &&
            tg_state_ply(s) == bot_plies[next_bot]) {
            bad = print_bots(s, spec, seed ^ tg_state_ply(s));
            next_bot++;
        }
        if (!bad && (st = tg_state_apply_random(s, &rng)) != TG_OK)
            bad = fail("tg_state_apply_random", spec, st);
    }
    if (!bad) {
        double returns[2] = {0, 0};
        if ((st = tg_state_returns(s, returns)) != TG_OK && tg_state_is_terminal(s))
            bad = fail("tg_state_returns", spec, st);
        /* Returns are -1, 0 or 1 (or 0.5 splits): exact in binary, printed exactly. */
        fprintf(out,
                "ply=%" PRIu64 " terminal=%d winner=%d scores=%d,%d returns=%.17g,%.17g "
                "end=%s hash=%016" PRIx64 " rng=%016" PRIx64 "\n",
                (uint64_t)tg_state_ply(s), tg_state_is_terminal(s) ? 1 : 0, tg_state_winner(s),
                tg_state_score(s, 0), tg_state_score(s, 1), returns[0], returns[1],
                tg_end_reason_name(tg_state_end_reason(s)), tg_state_hash(s), rng);
    }
    for (int kind = 0; !bad && kind < 3; kind++) {
        char *text = state_text(s, kind);
        if (!text)
            bad = fail(kind == 0 ? "tg_state_to_string" : kind == 1 ? "tg_state_record"
                                                                    : "tg_state_render",
                       spec, TG_ERR_INVALID_ARGUMENT);
        else
            fprintf(out, "%s\n", text);
        free(text);
    }
    for (size_t i = 0; !bad && i < tg_state_ply(s); i++)
        bad = print_story(s, spec, i);
    tg_state_free(s);
    return bad;
}

static int play_spec(const char *spec)
{
    tg_rules *r = NULL;
    tg_status st = tg_rules_new(spec, &r);
    if (st != TG_OK)
        return fail("tg_rules_new", spec, st);
    int bad = 0;
    for (size_t i = 0; !bad && i < sizeof seeds / sizeof seeds[0]; i++)
        bad = play_one(r, spec, seeds[i]);
    tg_rules_free(r);
    return bad;
}

/* The game's defaults, then each listed choice of each option on its own (ranges `MIN..MAX`
 * keep their defaults: the rule-set battery of tests/ covers them). */
static int play_game(size_t game)
{
    const char *id = tg_game_id(game);
    int bad = play_spec(id);
    for (size_t k = 0; !bad && k < tg_game_option_count(game); k++) {
        const char *key = tg_game_option_key(game, k);
        const char *values = tg_game_option_values(game, k);
        const char *def = tg_game_option_default(game, k);
        if (!strchr(values, '|'))
            continue;
        for (const char *p = values; !bad && *p;) {
            size_t len = strcspn(p, "|");
            char spec[SPEC_MAX];
            if (len < CHOICE_MAX && !(strlen(def) == len && strncmp(def, p, len) == 0)) {
                snprintf(spec, sizeof spec, "%s:%s=%.*s", id, key, (int)len, p);
                bad = play_spec(spec);
            }
            p += len + (p[len] == '|');
        }
    }
    return bad;
}

/* The one platform service the library uses, the monotonic clock (lib/clock.c), behind a
 * `time=` search: the search must run past its first node (a clock that fails stops it there)
 * and end by itself (a clock that stands still would let it run on). Its node count depends on
 * the machine's speed, so only the outcome is printed. */
static int timed_search(void)
{
    const char *spec = "search:time=100";
    tg_rules *r = NULL;
    tg_state *s = NULL;
    tg_search *h = NULL;
    tg_status st = tg_rules_new("halusa", &r);
    if (st == TG_OK)
        st = tg_state_new(r, &s);
    if (st == TG_OK)
        st = tg_search_new(spec, &h);
    uint64_t rng = 1, nodes = 0;
    uint32_t depth = 0;
    tg_move m = 0;
    if (st == TG_OK)
        st = tg_search_choose(h, s, &rng, &m);
    if (st == TG_OK)
        st = tg_search_stats(h, &nodes, &depth);
    int bad = st != TG_OK ? fail("a timed search", spec, st) : 0;
    if (!bad && (nodes < 2 || !tg_state_is_legal(s, m))) {
        fprintf(stderr, "tg-determinism: '%s' stopped after %" PRIu64 " nodes\n", spec, nodes);
        bad = 1;
    }
    if (!bad)
        fprintf(out, "%s: a legal move, more than one node\n", spec);
    tg_search_free(h);
    tg_state_free(s);
    tg_rules_free(r);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tg-determinism OUTPUT-FILE\n");
        return 2;
    }
    out = fopen(argv[1], "wb");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(out, "library %s\n", tg_version_string());
    int bad = 0;
    for (size_t g = 0; !bad && g < tg_game_count(); g++)
        bad = play_game(g);
    if (!bad)
        bad = timed_search();
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    return bad;
}

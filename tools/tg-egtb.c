/* tg-egtb: builds the endgame databases of a rule set (docs/egtb.md) and probes positions in
 * them. Building prints one line per counter number: positions, running positions, file size
 * and seconds, the figures docs/strength.md reports. */
#include "tool-args.h"

#include <traditional-games.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct tool_cli cli = {
    "tg-egtb",
    "usage: tg-egtb build --dir DIR [--spec SPEC] [--counters N] [--threads N]\n"
    "       tg-egtb probe --dir DIR [--spec SPEC] POSITION...\n"
    "       tg-egtb bench --dir DIR [--spec SPEC] [--probes N]\n",
    "Builds (or probes) the endgame databases of a Halusa or single-game Walak-pussa rule set.\n"
    "  --dir DIR      the directory of the files (it must exist)\n"
    "  --spec SPEC    the rule set (default halusa); its quiet limit must be 1 or more\n"
    "  --counters N   build files for 1 to N counters on the board (default 8)\n"
    "  --threads N    worker threads, 1 to 256 (default 2)\n"
    "A file already in DIR for the same rules is reused, so a build can be extended.\n"
    "probe prints each position's exact value, or why there is none.\n"
    "bench times --probes N (default 100000) probes with the largest counter number of DIR,\n"
    "of random positions and of the positions of random games (as a search meets them),\n"
    "each with tg_egtb_probe() and with a reader: the probe-time figures of docs/strength.md.\n"};

/* A fixed generator, so that every run probes the same positions (splitmix64). */
static uint64_t next_random(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A random position with `n` counters, as text, read by the library into `*out`: TG_ERR_PARSE
 * for one it refuses (the library judges which positions can stand), TG_ERR_NO_MEMORY too. */
static tg_status random_position(const tg_rules *r, int n, uint64_t *rng, tg_state **out)
{
    int cols = tg_rules_cols(r), holes = 2 * cols, cell[32] = {0};
    int total = strcmp(tg_rules_game_id(r), "halusa") == 0 ? 72 : 56;
    for (int i = 0; i < n; i++)
        cell[next_random(rng) % (uint64_t)holes]++;
    const char *q = strstr(tg_rules_spec(r), "quiet=");
    unsigned long quiet = q ? strtoul(q + 6, NULL, 10) : 1;
    char text[512];
    int len = snprintf(text, sizeof text, "%s ", tg_rules_spec(r));
    for (int row = 1; row >= 0; row--)
        for (int c = 0; c < cols; c++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%d%s", cell[row * cols + c],
                            c + 1 < cols ? "," : row ? "/" : "");
    snprintf(text + len, sizeof text - (size_t)len, " %d %d,0 quiet=%llu",
             (int)(next_random(rng) % 2), total - n,
             (unsigned long long)(next_random(rng) % (quiet ? quiet : 1)));
    return tg_state_from_string(r, text, out);
}

/* Draws of random_position() in a row that give no running position before bench gives up:
 * far more than any rule set needs, but a bound, so that a rule set whose random positions
 * never run ends with a message instead of drawing for ever. */
#define MAX_FRUITLESS_DRAWS 1000000

static void free_positions(tg_state **all, uint64_t count)
{
    for (uint64_t i = 0; all && i < count; i++)
        tg_state_free(all[i]);
    free(all);
}

/* `count` running positions: random ones of `n` counters, or (`lines`) the positions of
 * random games from such positions, one after the other, as a search meets them. NULL, having
 * said why, when memory runs out or no running position turns up: every failure but a refused
 * random position ends the filling, since drawing again would only fail again. */
static tg_state **bench_positions(const tg_rules *r, int n, uint64_t count, bool lines)
{
    tg_state **all = calloc((size_t)count, sizeof *all);
    if (!all) {
        fprintf(stderr, "tg-egtb: out of memory for %llu positions\n", (unsigned long long)count);
        return NULL;
    }
    uint64_t rng = 1, made = 0, fruitless = 0;
    tg_status st = TG_OK;
    while (made < count && st == TG_OK) {
        if (fruitless++ == MAX_FRUITLESS_DRAWS) {
            fprintf(stderr, "tg-egtb: no running position of %d counters in %d random draws\n",
                    n, MAX_FRUITLESS_DRAWS);
            free_positions(all, count);
            return NULL;
        }
        tg_state *s = NULL;
        st = random_position(r, n, &rng, &s);
        if (st == TG_ERR_PARSE) {
            st = TG_OK;
            continue;
        }
        while (st == TG_OK && made < count && !tg_state_is_terminal(s)) {
            st = tg_state_clone(s, &all[made]);
            if (st != TG_OK)
                break;
            made++;
            fruitless = 0;
            uint64_t one = next_random(&rng);
            if (!lines)
                break;
            st = tg_state_apply_random(s, &one);
        }
        tg_state_free(s);
    }
    if (st != TG_OK) {
        fprintf(stderr, "tg-egtb: making the positions to probe: %s\n", tg_status_string(st));
        free_positions(all, count);
        return NULL;
    }
    return all;
}

/* Probes every position once, with a reader or with tg_egtb_probe(); seconds spent, or -1. */
static double time_probes(const tg_egtb *db, tg_state **all, uint64_t count, bool use_reader)
{
    tg_egtb_reader *reader = NULL;
    tg_egtb_status st = use_reader ? tg_egtb_reader_new(db, &reader) : TG_EGTB_OK;
    if (st != TG_EGTB_OK) {
        fprintf(stderr, "tg-egtb: reader: %s\n", tg_egtb_status_string(st));
        return -1;
    }
    double start = seconds_now();
    for (uint64_t i = 0; i < count && st == TG_EGTB_OK; i++) {
        tg_egtb_value v;
        st = use_reader ? tg_egtb_reader_probe(reader, all[i], &v) : tg_egtb_probe(db, all[i], &v);
    }
    double spent = seconds_now() - start;
    tg_egtb_reader_free(reader);
    if (st != TG_EGTB_OK)
        fprintf(stderr, "tg-egtb: probe: %s\n", tg_egtb_status_string(st));
    return st == TG_EGTB_OK ? spent : -1;
}

static int bench_probes(const tg_rules *rules, const char *dir, uint64_t probes)
{
    tg_egtb *db = NULL;
    tg_egtb_status st = tg_egtb_open(dir, rules, &db);
    int n = st == TG_EGTB_OK ? tg_egtb_max_counters(db) : 0;
    if (n == 0) {
        fprintf(stderr, "tg-egtb: %s: %s\n", dir,
                st == TG_EGTB_OK ? "no database file" : tg_egtb_status_string(st));
        tg_egtb_close(db);
        return 1;
    }
    int status = 0;
    for (int lines = 0; lines < 2 && status == 0; lines++) {
        tg_state **all = bench_positions(rules, n, probes, lines);
        if (!all)
            status = 1;
        for (int use_reader = 0; use_reader < 2 && status == 0; use_reader++) {
            double spent = time_probes(db, all, probes, use_reader);
            if (spent < 0) {
                status = 1;
                break;
            }
            printf("counters %d  %-13s  %-6s  probes %llu  microseconds/probe %.2f  probes/s %.0f\n",
                   n, lines ? "game-lines" : "random", use_reader ? "reader" : "probe",
                   (unsigned long long)probes, 1e6 * spent / (double)probes,
                   spent > 0 ? (double)probes / spent : 0.0);
        }
        free_positions(all, probes);
    }
    tg_egtb_close(db);
    return status;
}

static void print_tier(void *ctx, const tg_egtb_tier_report *r)
{
    (void)ctx;
    printf("counters %2d  positions %12llu  running %12llu  bytes %12llu  seconds %9.2f"
           "  positions/s %12.0f\n",
           r->counters, (unsigned long long)r->positions, (unsigned long long)r->running,
           (unsigned long long)r->file_bytes, r->seconds,
           r->seconds > 0 ? (double)r->positions / r->seconds : 0.0);
    fflush(stdout);
}

static int probe_positions(const tg_rules *rules, const char *dir, char **positions, int count)
{
    tg_egtb *db = NULL;
    tg_egtb_status st = tg_egtb_open(dir, rules, &db);
    if (st != TG_EGTB_OK) {
        fprintf(stderr, "tg-egtb: %s: %s\n", dir, tg_egtb_status_string(st));
        return 1;
    }
    int failures = 0;
    for (int i = 0; i < count; i++) {
        tg_state *s = NULL;
        tg_status ps = tg_state_from_string(rules, positions[i], &s);
        if (ps != TG_OK) {
            fprintf(stderr, "tg-egtb: %s: '%s'\n", tg_status_string(ps), positions[i]);
            failures++;
            continue;
        }
        tg_egtb_value v;
        st = tg_egtb_probe(db, s, &v);
        if (st != TG_EGTB_OK) {
            printf("%s: %s\n", positions[i], tg_egtb_status_string(st));
            failures++;
        } else if (v.endless) {
            printf("%s: %s by an endless move, exact\n", positions[i],
                   v.outcome > 0 ? "win" : "loss");
        } else {
            const char *word = v.outcome > 0 ? "win" : v.outcome < 0 ? "loss" : "draw";
            int by = v.final_margin < 0 ? -v.final_margin : v.final_margin;
            printf("%s: %s by %d, exact (to go %+d)\n", positions[i], word, by, v.margin_to_go);
        }
        tg_state_free(s);
    }
    tg_egtb_close(db);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || tool_is_help(argv[1]))
        return argc < 2 ? tool_bad_args(&cli, "a command is required", NULL) : tool_help(&cli, stdout);
    int build = strcmp(argv[1], "build") == 0, bench = strcmp(argv[1], "bench") == 0;
    if (!build && !bench && strcmp(argv[1], "probe") != 0)
        return tool_bad_args(&cli, "unknown command", argv[1]);
    const char *dir = NULL, *spec = "halusa";
    uint64_t counters = 8, threads = 2, probes = 100000;
    int i = 2;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (tool_is_help(a))
            return tool_help(&cli, stdout);
        if (a[0] != '-')
            break;
        if (i + 1 >= argc)
            return tool_bad_args(&cli, "a value is missing after", a);
        const char *v = argv[++i];
        if (strcmp(a, "--dir") == 0)
            dir = v;
        else if (strcmp(a, "--spec") == 0)
            spec = v;
        else if (strcmp(a, "--counters") == 0) {
            if (!tool_parse_whole(v, 10, 72, &counters, NULL) || counters < 1)
                return tool_bad_args(&cli, "--counters takes 1 to 72", v);
        } else if (strcmp(a, "--threads") == 0) {
            if (!tool_parse_whole(v, 10, 256, &threads, NULL) || threads < 1)
                return tool_bad_args(&cli, "--threads takes 1 to 256", v);
        } else if (strcmp(a, "--probes") == 0) {
            if (!tool_parse_whole(v, 10, UINT64_C(1000000000), &probes, NULL) || probes < 1)
                return tool_bad_args(&cli, "--probes takes 1 to 1000000000", v);
        } else
            return tool_bad_args(&cli, "unknown option", a);
    }
    if (!dir)
        return tool_bad_args(&cli, "--dir is required", NULL);
    if ((build || bench) && i < argc)
        return tool_bad_args(&cli, "build and bench take no positions", argv[i]);
    tg_rules *rules = NULL;
    tg_status rs = tg_rules_new(spec, &rules);
    if (rs != TG_OK)
        return tool_bad_args(&cli, tg_status_string(rs), spec);
    int status = 0;
    if (build) {
        printf("# %s\n", tg_rules_spec(rules));
        tg_egtb_status st = tg_egtb_build(rules, dir, (int)counters, (unsigned)threads,
                                          print_tier, NULL);
        if (st != TG_EGTB_OK) {
            fprintf(stderr, "tg-egtb: %s: %s\n", dir, tg_egtb_status_string(st));
            status = 1;
        }
    } else if (bench) {
        status = bench_probes(rules, dir, probes);
    } else {
        status = probe_positions(rules, dir, argv + i, argc - i);
    }
    tg_rules_free(rules);
    return status;
}

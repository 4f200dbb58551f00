/* The native side of the endgame database test (test/egtb.test.js): it builds a database with
 * the native library and answers what the JavaScript package, reading the same files through
 * WebAssembly, is compared with.
 *
 *   egtb-oracle build DIR SPEC COUNTERS     tg_egtb_build() with 2 threads; prints nothing
 *   egtb-oracle probe DIR SPEC              each line of standard input a position string:
 *                                           tg_egtb_probe() (the directory's own probe, not a
 *                                           reader), one line back: STATUS OUTCOME ENDLESS
 *                                           MARGIN_TO_GO FINAL_MARGIN
 *   egtb-oracle analyse DIR SPEC BOT        each line a position string: tg_search_analyse()
 *                                           with the database attached (generator seed 1),
 *                                           one line back: EGTB_STATUS then, per result,
 *                                           MOVE:EXACT:OUTCOME:ENDLESS:FINAL_MARGIN
 *
 * Exit status 1 with a message on standard error if anything else fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traditional-games.h>

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "egtb-oracle: %s: %s\n", what, detail);
    exit(1);
}

static tg_state *position(const tg_rules *rules, char *line)
{
    line[strcspn(line, "\r\n")] = '\0';
    tg_state *s = NULL;
    tg_status st = tg_state_from_string(rules, line, &s);
    if (st != TG_OK)
        fail(line, tg_status_string(st));
    return s;
}

static void probe(tg_egtb *db, const tg_rules *rules)
{
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        tg_state *s = position(rules, line);
        tg_egtb_value v = {0, 0, 0, 0};
        tg_egtb_status st = tg_egtb_probe(db, s, &v);
        printf("%d %d %d %d %d\n", (int)st, v.outcome, v.endless, v.margin_to_go, v.final_margin);
        tg_state_free(s);
    }
}

static void analyse(tg_egtb *db, const tg_rules *rules, const char *bot)
{
    tg_search *h = NULL;
    if (tg_search_new(bot, &h) != TG_OK || tg_search_set_egtb(h, db) != TG_OK)
        fail(bot, "not a search with a database");
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        tg_state *s = position(rules, line);
        uint64_t rng = 1;
        tg_status st = tg_search_analyse(h, s, &rng);
        if (st != TG_OK)
            fail("analyse", tg_status_string(st));
        printf("%d", (int)tg_search_egtb_status(h));
        for (size_t i = 0; i < tg_search_result_count(h); i++) {
            tg_move move = 0;
            double value = 0;
            bool proven = false, exact = false;
            tg_egtb_value v = {0, 0, 0, 0};
            if (tg_search_result(h, i, &move, &value, &proven) != TG_OK ||
                tg_search_result_exact(h, i, &v, &exact) != TG_OK)
                fail("analyse", "result");
            printf(" %u:%d:%d:%d:%d", (unsigned)move, exact ? 1 : 0, v.outcome, v.endless,
                   v.final_margin);
        }
        printf("\n");
        tg_state_free(s);
    }
    tg_search_free(h);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        fail("usage", "egtb-oracle build|probe|analyse DIR SPEC [COUNTERS|BOT]");
    tg_rules *rules = NULL;
    if (tg_rules_new(argv[3], &rules) != TG_OK)
        fail(argv[3], "bad rules");
    if (strcmp(argv[1], "build") == 0 && argc == 5) {
        tg_egtb_status st = tg_egtb_build(rules, argv[2], atoi(argv[4]), 2, NULL, NULL);
        if (st != TG_EGTB_OK)
            fail("build", tg_egtb_status_string(st));
    } else if ((strcmp(argv[1], "probe") == 0 && argc == 4) ||
               (strcmp(argv[1], "analyse") == 0 && argc == 5)) {
        tg_egtb *db = NULL;
        tg_egtb_status st = tg_egtb_open(argv[2], rules, &db);
        if (st != TG_EGTB_OK)
            fail("open", tg_egtb_status_string(st));
        if (argv[1][0] == 'p')
            probe(db, rules);
        else
            analyse(db, rules, argv[4]);
        tg_egtb_close(db);
    } else {
        fail("usage", "egtb-oracle build|probe|analyse DIR SPEC [COUNTERS|BOT]");
    }
    tg_rules_free(rules);
    return 0;
}

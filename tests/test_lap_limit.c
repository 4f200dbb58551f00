/* The lap limit (rules/README.md, "Endless moves"): option `laps=N` on the relay games.
 *
 * The spelling of the option and its place in canonical specs; and the bound it puts on the
 * work of one move. The work is read from the library's own count of counters sown (what a
 * game's apply reports), so the library's sources are compiled in, as for test_no_alloc: a
 * move judged under a limit of N laps sows at most N handfuls, each of at most every counter
 * in play. The exact boundary (a move of k laps is finite under laps=k, endless under
 * laps=k-1) is checked against each game's reference model in test_hus, test_hawalis and
 * test_walak_pussa. */
#include "test_util.h"

#include "internal.h"

#include <inttypes.h>

static const char *const relay_games[] = {"hus", "hawalis", "walak-pussa"};

static void test_spelling(void **unused)
{
    (void)unused;
    static const char *const bad[] = {"-1", "01",         "+5", "1e4", "", "1000000001",
                                      "00", "4294967296", "0x10", " 5", "5 ", "10000000000"};
    static const char *const good[] = {"0", "1", "2", "10000", "999999999", "1000000000"};
    char spec[128];
    for (size_t g = 0; g < sizeof relay_games / sizeof relay_games[0]; g++) {
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            snprintf(spec, sizeof spec, "%s:laps=%s", relay_games[g], bad[i]);
            tg_rules *r = NULL;
            TU_STATUS(TG_ERR_BAD_OPTION, tg_rules_new(spec, &r));
            assert_null(r);
        }
        snprintf(spec, sizeof spec, "%s:laps=5,laps=5", relay_games[g]);
        tg_rules *r = NULL;
        TU_STATUS(TG_ERR_BAD_OPTION, tg_rules_new(spec, &r));
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
            snprintf(spec, sizeof spec, "%s:quiet=7,laps=%s", relay_games[g], good[i]);
            r = tu_rules(spec);
            /* Canonical: every option, `laps` just before `quiet`. */
            char want[128];
            snprintf(want, sizeof want, ",laps=%s,quiet=7", good[i]);
            const char *canon = tg_rules_spec(r);
            assert_non_null(strstr(canon, want));
            assert_true(strlen(strstr(canon, want)) == strlen(want));
            /* The canonical spec reads back as itself. */
            tg_rules *again = tu_rules(canon);
            assert_string_equal(tg_rules_spec(again), canon);
            tg_rules_free(again);
            tg_rules_free(r);
        }
        /* An old spelling without `laps` means the default. */
        snprintf(spec, sizeof spec, "%s:quiet=100", relay_games[g]);
        r = tu_rules(spec);
        assert_non_null(strstr(tg_rules_spec(r), ",laps=10000,quiet=100"));
        tg_rules *named = tu_rules(tg_rules_spec(r));
        assert_string_equal(tg_rules_spec(named), tg_rules_spec(r));
        tg_rules_free(named);
        tg_rules_free(r);
    }
    /* The catalogue lists it, with its range and default, on exactly the relay games. */
    for (size_t g = 0; g < tg_game_count(); g++) {
        bool relay = false, listed = false;
        for (size_t k = 0; k < sizeof relay_games / sizeof relay_games[0]; k++)
            relay = relay || strcmp(tg_game_id(g), relay_games[k]) == 0;
        for (size_t k = 0; k < tg_game_option_count(g); k++) {
            if (strcmp(tg_game_option_key(g, k), "laps") != 0)
                continue;
            listed = true;
            assert_string_equal(tg_game_option_values(g, k), "0..1000000000");
            assert_string_equal(tg_game_option_default(g, k), "10000");
            assert_string_equal(tg_game_option_key(g, k + 1), "quiet");
        }
        assert_int_equal(listed, relay);
    }
    /* Halusa (one lap) and Tab (no sowing) have no such option. */
    static const char *const without[] = {"halusa:laps=10000", "halusa:laps=0",
                                          "tab:laps=10000", "tab:width=13,laps=1"};
    for (size_t i = 0; i < sizeof without / sizeof without[0]; i++) {
        tg_rules *r = NULL;
        TU_STATUS(TG_ERR_BAD_OPTION, tg_rules_new(without[i], &r));
        assert_null(r);
    }
    /* A position string names its rule set in any spelling: the old one reads under the
     * default limit, and a different limit is a different rule set. */
    tg_rules *hus = tu_rules("hus");
    tg_state *s = NULL;
    TU_OK(tg_state_from_string(hus,
                               "hus:width=8,quiet=100 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/"
                               "0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0",
                               &s));
    tg_state_free(s);
    s = NULL;
    TU_STATUS(TG_ERR_RULES_MISMATCH,
              tg_state_from_string(hus,
                                   "hus:laps=9999 2,2,2,2,2,2,2,2/2,2,2,2,0,0,0,0/"
                                   "0,0,0,0,2,2,2,2/2,2,2,2,2,2,2,2 0 24,24 quiet=0",
                                   &s));
    assert_null(s);
    tg_rules_free(hus);
}

/* Long endless moves: the longest cycles pinned in the game suites, and the two the lap-limit
 * issue measured (minutes of work each when judged exactly). */
struct long_endless {
    const char *text; /* a position string, its spec spelt without `laps` */
    const char *move; /* NULL: every legal move */
    uint64_t cycle;   /* laps in the cycle, where it was measured (0: not measured) */
};

static const struct long_endless long_endless[] = {
    {"hus:width=8 0,0,1,2,0,0,1,0/0,1,0,1,1,2,0,0/4,2,5,2,3,2,1,3/1,4,1,2,1,3,2,3 0 39,9 "
     "quiet=10",
     "b2", 28067024},
    {"hus:width=8 0,0,0,0,0,1,0,0/0,0,0,0,0,0,0,0/4,3,1,0,3,4,1,4/1,2,3,2,3,5,4,7 0 47,1 quiet=61",
     "d1", 896076},
    {"hawalis:variant=zanzibar 0,3,2,1,2,3,13,1/1,0,1,5,4,0,1,2/0,1,0,1,0,1,0,0/"
     "0,1,2,1,2,0,3,1 1 9,35 quiet=5",
     "d3", 3817760},
    {"hawalis:variant=zanzibar,quiet=100 6,2,1,5,1,0,2,1/6,2,3,1,0,1,0,1/1,3,2,7,2,1,6,1/"
     "0,6,2,1,6,6,3,0 0 16,1 quiet=1",
     "f1", 0},
    {"hus:width=16,quiet=100 4,1,6,1,6,0,6,2,1,4,1,0,1,8,1,6/10,2,1,0,2,1,0,3,0,1,0,3,2,6,7,3/"
     "0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0/0,0,0,0,0,0,0,0,0,2,0,2,1,0,1,0 1 7,89 quiet=3",
     NULL, 0},
};

/* Applies m to a copy of the position with the game's own apply, as tg_state_apply does, and
 * returns its result flags; *sown gets the counters it sowed. */
static uint64_t apply_counting(const tg_state *s, tg_move m, uint64_t *sown)
{
    struct tg_pos pos = s->pos;
    uint64_t result = tg__play(&s->rules.cfg, &pos, m);
    *sown = result >> TG__SOWN_SHIFT;
    return result & ((1u << TG__SOWN_SHIFT) - 1u);
}

static void test_work_bound(void **unused)
{
    (void)unused;
    static const uint32_t limits[] = {10000, 100, 2, 1};
    for (size_t i = 0; i < sizeof long_endless / sizeof long_endless[0]; i++) {
        const struct long_endless *c = &long_endless[i];
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
            /* The same position under the limit: the spec token gains `laps=`. */
            char text[512];
            size_t id_len = strcspn(c->text, " ");
            const char *colon = memchr(c->text, ':', id_len);
            snprintf(text, sizeof text, "%.*s%slaps=%" PRIu32 "%s", (int)id_len, c->text,
                     colon ? "," : ":", limits[l], c->text + id_len);
            tg_state *s = tu_from_text(text);
            const struct tg_config *cfg = &s->rules.cfg;
            assert_int_equal(cfg->lap_limit, limits[l]);
            tg_move moves[64];
            size_t n = c->move ? 1 : tu_moves(s, moves, 64);
            if (c->move)
                moves[0] = tu_move(s, c->move);
            int endless = 0;
            uint64_t most = 0;
            for (size_t k = 0; k < n; k++) {
                uint64_t sown;
                uint64_t result = apply_counting(s, moves[k], &sown);
                /* N laps at most, each a handful of at most every counter in play. */
                assert_true(sown <= (uint64_t)limits[l] * (uint64_t)cfg->total);
                most = sown > most ? sown : most;
                endless += (result & TG__ENDLESS) != 0;
                if (c->move)
                    assert_true(result & TG__ENDLESS);
                /* The public apply agrees: the mover loses, nothing on the board moves. */
                if (result & TG__ENDLESS) {
                    char *before = tu_str(s);
                    struct tg_pos was = s->pos;
                    int mover = tg_state_player(s);
                    TU_OK(tg_state_apply(s, moves[k]));
                    assert_int_equal(tg_state_winner(s), 1 - mover);
                    assert_memory_equal(s->pos.cell, was.cell, sizeof was.cell);
                    assert_memory_equal(s->pos.score, was.score, sizeof was.score);
                    assert_int_equal(s->pos.quiet, was.quiet);
                    TU_OK(tg_state_undo(s));
                    TU_POS(s, before);
                    free(before);
                }
                /* A pinned cycle longer than the limit is cut by the limit: all N laps were
                 * sown, each of one counter or more. */
                if (c->move && c->cycle > limits[l])
                    assert_true(sown >= limits[l]);
            }
            assert_true(endless > 0);
            if (l == 0)
                print_message("# %.40s...: %d of %zu moves endless under laps=%" PRIu32
                              ", at most %" PRIu64 " counters sown%s\n",
                              c->text, endless, n, limits[l], most,
                              c->cycle ? "" : " (cycle length not measured)");
            tg_state_free(s);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spelling),
        cmocka_unit_test(test_work_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

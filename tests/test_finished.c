/* Finished positions in position strings: accepted only when some ending could leave exactly
 * them (rules/README.md): the game's own end (its condition holds on the board and the winner
 * is the one it gives), the quiet end (the count stands at the limit and the winner is the
 * one the page's quiet end gives), or an endless move by the loser (who had a move there, the
 * quiet limit not reached). Each game's accepted and rejected cases, public API only. */
#include "test_util.h"

struct finished_case {
    const char *text;
    tg_status want;
    const char *why;
};

static const struct finished_case cases[] = {
    /* Halusa: its end and its quiet end empty the board and judge by the scores. */
    {"halusa 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=0", TG_OK, "own end"},
    {"halusa 0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=100 winner=draw", TG_OK, "quiet end, a draw"},
    {"halusa 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=1", TG_ERR_PARSE,
     "the winner against the scores, and Halusa has no endless moves"},
    {"halusa 0,0,0,0,0,1/0,0,0,0,0,1 - 40,30 quiet=3 winner=0", TG_ERR_PARSE,
     "counters left on the board"},

    /* Hus: the player to move has no hole of two or more and loses; the quiet end judges by
     * the scores; an endless move loses for the mover. */
    {"hus 0,0,0,0,6,6,6,6/1,1,0,0,0,0,0,6/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 - 16,32 quiet=1 "
     "winner=1",
     TG_OK, "player 0 cannot move"},
    {"hus 0,0,0,0,6,6,6,6/1,1,0,0,0,0,0,6/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 - 16,32 quiet=1 "
     "winner=0",
     TG_OK, "player 1 lost by an endless move (they had moves)"},
    {"hus 0,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1 - 24,24 quiet=1 "
     "winner=draw",
     TG_ERR_PARSE, "whoever cannot move loses: no draw but by the quiet limit"},
    {"hus:width=16,quiet=10 0,2,1,3,1,4,2,1,0,4,1,5,1,2,1,0/1,1,0,0,3,0,0,4,0,5,5,2,5,7,2,0/"
     "0,0,1,2,0,0,0,0,0,0,0,0,1,0,0,0/1,0,2,0,1,0,5,2,5,0,2,3,1,1,5,1 - 33,63 quiet=10 winner=0",
     TG_ERR_PARSE, "both can move: only the quiet end, which gives player 1 the game"},
    {"hus:width=16,quiet=10 0,2,1,3,1,4,2,1,0,4,1,5,1,2,1,0/1,1,0,0,3,0,0,4,0,5,5,2,5,7,2,0/"
     "0,0,1,2,0,0,0,0,0,0,0,0,1,0,0,0/1,0,2,0,1,0,5,2,5,0,2,3,1,1,5,1 - 33,63 quiet=10 winner=1",
     TG_OK, "the quiet end"},
    {"hus:width=16,quiet=10 0,2,1,3,1,4,2,1,0,4,1,5,1,2,1,0/1,1,0,0,3,0,0,4,0,5,5,2,5,7,2,0/"
     "0,0,1,2,0,0,0,0,0,0,0,0,1,0,0,0/1,0,2,0,1,0,5,2,5,0,2,3,1,1,5,1 - 33,63 quiet=9 winner=0",
     TG_OK, "an endless move by player 1 before the limit"},
    {"hus:width=16,quiet=10 0,2,1,3,1,4,2,1,0,4,1,5,1,2,1,0/1,1,0,0,3,0,0,4,0,5,5,2,5,7,2,0/"
     "0,0,1,2,0,0,0,0,0,0,0,0,1,0,0,0/1,0,2,0,1,0,5,2,5,0,2,3,1,1,5,1 - 33,63 quiet=9 "
     "winner=draw",
     TG_ERR_PARSE, "no ending draws there"},

    /* Hawalis: by the scores when the player to move has no move; the quiet end empties the
     * board by sides; an endless move loses for the mover. */
    {"hawalis:variant=oman,quiet=100 4,1,2,1,1,1,0/1,4,0,2,3,3,1/1,2,1,4,3,2,0/0,1,0,5,0,1,4 - "
     "4,4 quiet=6 winner=draw",
     TG_ERR_PARSE, "both can move and the limit is not reached: only an endless move, no draw"},
    {"hawalis:variant=oman,quiet=100 4,1,2,1,1,1,0/1,4,0,2,3,3,1/1,2,1,4,3,2,0/0,1,0,5,0,1,4 - "
     "4,4 quiet=6 winner=1",
     TG_OK, "an endless move by player 0"},
    {"hawalis:variant=oman,quiet=6 4,1,2,1,1,1,0/1,4,0,2,3,3,1/1,2,1,4,3,2,0/0,1,0,5,0,1,4 - "
     "4,4 quiet=6 winner=1",
     TG_ERR_PARSE, "at the quiet limit the board would have been taken"},
    {"hawalis 0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=100 winner=0",
     TG_OK, "the quiet end"},
    {"hawalis 0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=99 winner=0",
     TG_ERR_PARSE, "a move always leaves counters: only the quiet end empties the board"},
    {"hawalis 0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=7 winner=1",
     TG_ERR_PARSE, "blocked on an empty board, but the winner against the scores"},

    /* Walak-pussa: a round ends with the board emptied into the scores; an endless move
     * leaves the board. */
    {"walak-pussa 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=4 winner=0", TG_OK, "own end"},
    {"walak-pussa 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 quiet=4 winner=1", TG_ERR_PARSE,
     "the winner against the scores on an emptied board"},
    {"walak-pussa 1,0,0,0,0,0,0/0,0,0,0,0,0,1 - 30,24 quiet=5 winner=1", TG_OK,
     "an endless move by player 0"},
    {"walak-pussa 1,0,0,0,0,0,0/0,0,0,0,0,0,1 - 30,24 quiet=100 winner=1", TG_ERR_PARSE,
     "counters left at the quiet limit"},
    {"walak-pussa 1,0,0,0,0,0,0/0,0,0,0,0,0,0 - 31,24 quiet=5 winner=1", TG_ERR_PARSE,
     "player 0 had no counter to make the endless move with"},
    {"walak-pussa:rounds=match 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 53,3 round=2 dead=- reserve=0,0 "
     "starter=0 quiet=0 winner=0",
     TG_OK, "a match won: player 1 cannot fill a hole"},
    {"walak-pussa:rounds=match 0,0,0,0,0,0,0/0,0,0,0,0,0,0 - 30,26 round=2 dead=- reserve=0,0 "
     "starter=0 quiet=0 winner=0",
     TG_ERR_PARSE, "both can fill a hole: the match goes on to another round"},
};

static void test_finished_positions(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct finished_case *c = &cases[i];
        char spec[128];
        size_t n = strcspn(c->text, " ");
        memcpy(spec, c->text, n);
        spec[n] = '\0';
        tg_rules *r = tu_rules(spec);
        tg_state *s = NULL;
        tg_status st = tg_state_from_string(r, c->text, &s);
        if (st != c->want)
            TU_FAIL("%s: \"%s\" read as %d (%s), expected %d (%s)", c->why, c->text, (int)st,
                    tg_status_string(st), (int)c->want, tg_status_string(c->want));
        if (st == TG_OK) {
            /* It reads back as itself, spelt canonically. */
            tg_state *again = NULL;
            char *text = tu_str(s);
            TU_OK(tg_state_from_string(r, text, &again));
            assert_true(tg_state_equal(s, again));
            tg_state_free(again);
            free(text);
        } else {
            assert_null(s);
        }
        tg_state_free(s);
        tg_rules_free(r);
    }
}

/* Every finished position that play reaches is accepted: random games of every game end in
 * positions that read back (a check of the rule against all the ways play ends, including
 * endless moves, made frequent by a small lap limit). */
static void test_played_endings_read_back(void **unused)
{
    (void)unused;
    static const char *const specs[] = {
        "halusa",          "halusa:remainder=owner,quiet=20", "hus",
        "hus:laps=2",      "hus:width=12,quiet=15",           "hawalis",
        "hawalis:laps=2",  "hawalis:variant=zanzibar,quiet=10",
        "walak-pussa",     "walak-pussa:laps=2",              "walak-pussa:rounds=match,quiet=20",
        "walak-pussa:rounds=match,laps=1", "tab",             "tab:width=19",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (uint64_t seed = 1; seed <= 60; seed++) {
            tg_state *s = tu_new(specs[i]);
            uint64_t rng = seed;
            size_t plies = 0;
            TU_OK(tg_state_playout(s, &rng, SIZE_MAX, &plies));
            assert_true(tg_state_is_terminal(s));
            char *text = tu_str(s);
            tg_state *again = NULL;
            tg_status st = tg_state_from_string(tg_state_rules(s), text, &again);
            if (st != TG_OK)
                TU_FAIL("%s seed %u: the finished \"%s\" was refused (%s)", specs[i],
                        (unsigned)seed, text, tg_status_string(st));
            assert_true(tg_state_equal(s, again));
            tg_state_free(again);
            free(text);
            tg_state_free(s);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished_positions),
        cmocka_unit_test(test_played_endings_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

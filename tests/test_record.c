/* Game records (docs/records.md): the round trip over random games of every rule set (from the
 * start, from a position string, partly undone, after a playout), the writer's tags and buffer
 * contract, and the reader on hostile input. */
#include "test_util.h"

enum { GAMES = 6, MAX_PLIES = 300 };

static const char *const specs[] = {
    "halusa",
    "halusa:remainder=owner",
    "halusa:quiet=10",
    "walak-pussa",
    "walak-pussa:rounds=match",
    "walak-pussa:rounds=match,quiet=10",
    "walak-pussa:laps=1",
    "walak-pussa:laps=2",
    "hus",
    "hus:width=16",
    "hus:quiet=10",
    "hus:laps=2",
    "hawalis",
    "hawalis:variant=zanzibar",
    "hawalis:quiet=10",
    "hawalis:laps=1",
    "tab",
    "tab:width=19",
    "tab:width=29",
};

static char *record_of(const tg_state *s, const char *tags)
{
    size_t needed = 0;
    TU_OK(tg_state_record(s, tags, NULL, 0, &needed));
    char *buf = malloc(needed + 1);
    assert_non_null(buf);
    size_t again = 0;
    TU_OK(tg_state_record(s, tags, buf, needed + 1, &again));
    assert_int_equal(again, needed);
    assert_int_equal(strlen(buf), needed);
    return buf;
}

static tg_move *history_of(const tg_state *s, size_t *n)
{
    TU_OK(tg_state_history(s, NULL, 0, n));
    tg_move *h = malloc((*n + 1) * sizeof *h);
    assert_non_null(h);
    TU_OK(tg_state_history(s, h, *n, n));
    return h;
}

/* Reading the record of s gives a state equal to s with the same history; lines fit in 80
 * columns. */
static void round_trip(const tg_state *s, const char *tags)
{
    char *text = record_of(s, tags);
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > 80 && line[0] != '[')
            TU_FAIL("a line of %zu columns in\n%s", len, text);
        line += len + (line[len] == '\n');
    }
    tg_state *back = NULL;
    tg_status st = tg_state_from_record(text, &back);
    if (st != TG_OK)
        TU_FAIL("reading back = %s:\n%s", tg_status_string(st), text);
    if (!tg_state_equal(s, back)) {
        char *a = tu_str(s), *b = tu_str(back);
        TU_FAIL("read back as\n  %s\nnot\n  %s\nfrom\n%s", b, a, text);
    }
    size_t n1, n2;
    tg_move *h1 = history_of(s, &n1), *h2 = history_of(back, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(h1, h2, n1 * sizeof *h1);
    assert_int_equal(tg_state_end_reason(s), tg_state_end_reason(back));
    /* Writing the read state gives the same text. */
    char *again = record_of(back, tags);
    assert_string_equal(text, again);
    free(again);
    free(h1);
    free(h2);
    tg_state_free(back);
    free(text);
}

/* A game longer than the history the reader allocates at once (4096 moves). */
static void test_long_game(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa:quiet=0");
    uint64_t rng = 5;
    for (int ply = 0; ply < 6000 && !tg_state_is_terminal(s); ply++)
        TU_OK(tg_state_apply_random(s, &rng));
    assert_true(tg_state_ply(s) > 4096);
    round_trip(s, NULL);
    tg_state_free(s);
}

static void test_round_trip(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        for (uint64_t g = 0; g < GAMES; g++) {
            uint64_t rng = 0xEC0 + 31 * g + i;
            tg_state *s = tu_new(specs[i]);
            round_trip(s, NULL);
            for (int ply = 0; ply < MAX_PLIES && !tg_state_is_terminal(s); ply++)
                TU_OK(tg_state_apply_random(s, &rng));
            round_trip(s, "[White \"bot \\\"one\\\"\"]\n[Site \"C:\\\\games\"]\n");
            /* Partly undone. */
            for (int k = 0; k < 5 && tg_state_undo(s) == TG_OK; k++)
                ;
            round_trip(s, NULL);
            /* From the string of the position reached, then played on. */
            char *text = tu_str(s);
            tg_state *t = tu_from(specs[i], text);
            for (int ply = 0; ply < 40 && !tg_state_is_terminal(t); ply++)
                TU_OK(tg_state_apply_random(t, &rng));
            round_trip(t, "[Event \"from a string\"]");
            /* After a playout: no history, the position as the start. */
            size_t plies;
            TU_OK(tg_state_playout(t, &rng, 50, &plies));
            round_trip(t, NULL);
            tg_state_free(t);
            free(text);
            tg_state_free(s);
        }
    }
}

/* The exact text of a short game. */
static void test_exact_text(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa");
    tu_play_line(s, "b1 b2");
    char *text = record_of(s, "[Date \"2026.12.01\"]");
    assert_string_equal(text, "[Rules \"halusa:remainder=last-mover,quiet=100\"]\n"
                              "[Date \"2026.12.01\"]\n"
                              "[Result \"*\"]\n"
                              "\n"
                              "1. b1 2. b2 *\n");
    free(text);
    tg_state_free(s);
    /* A finished game from a position (rules/walak-pussa.md example 4): Start, Result and
     * Termination. */
    s = tu_from("walak-pussa", "walak-pussa:rounds=single,laps=10000,quiet=100 0,0,0,0,0,3,0/"
                               "2,0,0,0,0,1,0 0 20,30 quiet=9");
    tu_play(s, "f1");
    text = record_of(s, NULL);
    assert_string_equal(text, "[Rules \"walak-pussa:rounds=single,laps=10000,quiet=100\"]\n"
                              "[Start \"walak-pussa:rounds=single,laps=10000,quiet=100 "
                              "0,0,0,0,0,3,0/2,0,0,0,0,1,0 0 20,30 quiet=9\"]\n"
                              "[Result \"0-1\"]\n"
                              "[Termination \"empty-row\"]\n"
                              "\n"
                              "1. f1 0-1\n");
    free(text);
    tg_state_free(s);
    /* A Tab turn groups its throws and decisions under one number. */
    s = tu_new("tab");
    tu_play_line(s, "throw:1 throw:4 throw:2 m1+1");
    text = record_of(s, NULL);
    assert_non_null(strstr(text, "\n\n1. throw:1 throw:4 throw:2 m1+1 *\n"));
    free(text);
    tg_state_free(s);
}

static void test_writer_arguments(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("hus");
    tu_play(s, "a1");
    size_t needed = 0;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_record(NULL, NULL, NULL, 0, &needed));
    char buf[16];
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_record(s, NULL, NULL, 5, &needed));
    static const char *const bad_tags[] = {
        "[Rules \"hus\"]",  "[Start \"x\"]",
        "[Result \"*\"]",   "[Termination \"quiet\"]",
        "White \"a\"",      "[White a]",
        "[White \"a]",      "[White \"a\"",
        "[ \"a\"]",         "[Wh-ite \"a\"]",
        "[White\"a\"]",     "[White \"a\\x\"]",
        "[White \"a\"]x",   "[White \"a\"]\n\n",
        "[White \"a\nb\"]", "\n",
        "[White \"a\"] ",   "[White \"a\"][B \"\"]",
    };
    for (size_t i = 0; i < sizeof bad_tags / sizeof bad_tags[0]; i++) {
        needed = 77;
        if (tg_state_record(s, bad_tags[i], NULL, 0, &needed) != TG_ERR_INVALID_ARGUMENT)
            TU_FAIL("tags \"%s\" accepted", bad_tags[i]);
        assert_int_equal(needed, 77);
    }
    TU_OK(tg_state_record(s, "", NULL, 0, &needed));
    size_t plain = needed;
    TU_OK(tg_state_record(s, NULL, NULL, 0, &needed));
    assert_int_equal(needed, plain);
    TU_OK(tg_state_record(s, "[Round \"\"]\n[X_1 \"\\\\\"]", NULL, 0, &needed));
    memset(buf, 'z', sizeof buf);
    TU_STATUS(TG_ERR_BUFFER_TOO_SMALL, tg_state_record(s, NULL, buf, sizeof buf, &needed));
    assert_int_equal(needed, plain);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 'z');
    TU_OK(tg_state_record(s, NULL, NULL, 0, NULL));
    tg_state_free(s);
}

/* ---- the reader on hostile input ---------------------------------------------------------- */

static void expect_read_fails(tg_status want, const char *text)
{
    tg_state *out = (tg_state *)&out; /* any non-NULL value: it must stay */
    tg_state *sentinel = out;
    tg_status st = tg_state_from_record(text, &out);
    if (st != want)
        TU_FAIL("reading \"%.200s\" = %s, expected %s", text, tg_status_string(st),
                tg_status_string(want));
    assert_ptr_equal(out, sentinel);
}

#define HUS "[Rules \"hus\"]\n\n"

static void test_reader(void **unused)
{
    (void)unused;
    tg_state *s = NULL;
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_from_record(NULL, &s));
    TU_STATUS(TG_ERR_INVALID_ARGUMENT, tg_state_from_record(HUS "*", NULL));
    /* Accepted: comments anywhere between tokens, unknown tags, any white space. */
    TU_OK(tg_state_from_record("{before} [Rules \"hus\"] [Foo \"bar\"]\r\n\t{c}1.{x}a1{y} 2. "
                               "{ multi\nline { not nested } *\n{after}",
                               &s));
    size_t n = 0;
    TU_OK(tg_state_history(s, NULL, 0, &n));
    assert_int_equal(n, 1);
    tg_state_free(s);
    TU_OK(tg_state_from_record("[Rules \"walak-pussa:laps=20\"]\n*", &s));
    assert_string_equal(tg_rules_spec(tg_state_rules(s)), "walak-pussa:rounds=single,laps=20,"
                                                          "quiet=100");
    tg_state_free(s);

    static const char *const unreadable[] = {
        "",
        "*",
        "1. a1 *",                      /* no Rules */
        "[Rules \"hus\"]",              /* no result token */
        HUS "1. a1",                    /* no result token */
        HUS "1. a1 * a2",               /* moves after the result */
        HUS "1. a1 * *",                /* two results */
        HUS "{unterminated *",          /* comment */
        "[Rules \"hus]\n\n*",           /* quote */
        "[Rules \"hus\"\n\n*",          /* bracket */
        "[Rules \"nosuchgame\"]\n\n*",  /* spec */
        "[Rules \"hus:width=9\"]\n\n*", /* option */
        "[Rules \"hus\"]\n[Rules \"hus\"]\n\n*",
        "[Rules \"hus\"]\n[Start \"hus junk\"]\n\n*",
        "[Rules \"hus\"]\n[Start \"halusa:remainder=last-mover,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 "
        "0 0,0 quiet=0\"]\n\n*",
        HUS "01. a1 *", /* move number forms */
        HUS "1 a1 *",
        HUS "1.. a1 *",
        HUS "99999999999999999999999. a1 *",
        HUS "1. zz99 *", /* not a move */
        HUS "1. a1 1-0", /* wrong result */
        HUS "1. a1 1/2-1/2",
        "[Rules \"hus\"]\n[Result \"1-0\"]\n\n1. a1 *", /* tag and moves disagree */
        "[Rules \"hus\"]\n[Termination \"quiet\"]\n\n1. a1 *",
        "[Rules \"hus\"]\n[Result \"" /* unterminated value */,
        "[Rules \"hus\\q\"]\n\n*", /* bad escape */
    };
    for (size_t i = 0; i < sizeof unreadable / sizeof unreadable[0]; i++)
        expect_read_fails(TG_ERR_PARSE, unreadable[i]);
    expect_read_fails(TG_ERR_ILLEGAL_MOVE, HUS "1. a1 2. a1 *"); /* a1 is player 0's */
    expect_read_fails(TG_ERR_ILLEGAL_MOVE, HUS "1. a2 *");       /* empty at the start */
    expect_read_fails(TG_ERR_ILLEGAL_MOVE, "[Rules \"tab\"]\n\n1. a1+1 *");

    /* A move after the end of the game. */
    tg_state *g = tu_new("halusa:quiet=10");
    uint64_t rng = 5;
    while (!tg_state_is_terminal(g))
        TU_OK(tg_state_apply_random(g, &rng));
    char *text = record_of(g, NULL);
    char *extra = malloc(strlen(text) + 16);
    assert_non_null(extra);
    size_t cut = strlen(text) - 1;
    while (cut && text[cut - 1] != ' ' && text[cut - 1] != '\n')
        cut--;
    snprintf(extra, strlen(text) + 16, "%.*sa1 %s", (int)cut, text, text + cut);
    expect_read_fails(TG_ERR_ILLEGAL_MOVE, extra);
    /* Truncated anywhere: never a crash, never a state with the wrong result. */
    for (size_t len = 0; len < strlen(text); len++) {
        char *part = malloc(len + 1);
        assert_non_null(part);
        memcpy(part, text, len);
        part[len] = '\0';
        tg_state *p = NULL;
        if (tg_state_from_record(part, &p) == TG_OK) {
            assert_true(tg_state_equal(p, g) || strstr(part, "*") != NULL);
            tg_state_free(p);
        }
        free(part);
    }
    free(extra);
    free(text);
    tg_state_free(g);

    /* A million moves, the second already illegal: refused without a history for them all. */
    size_t many = 1000000;
    char *bogus = malloc(many * 3 + 64);
    assert_non_null(bogus);
    int at = snprintf(bogus, 64, HUS "1.");
    for (size_t i = 0; i < many; i++)
        memcpy(bogus + at + 3 * i, " a1", 3);
    strcpy(bogus + at + 3 * many, " *");
    expect_read_fails(TG_ERR_ILLEGAL_MOVE, bogus);
    free(bogus);

    /* A 1 MB line: one long comment, then one long unknown tag value. */
    size_t big = 1u << 20;
    char *huge = malloc(big + 64);
    assert_non_null(huge);
    int k = snprintf(huge, 64, HUS "{");
    memset(huge + k, 'x', big);
    strcpy(huge + k + big, "} *");
    TU_OK(tg_state_from_record(huge, &s));
    tg_state_free(s);
    k = snprintf(huge, 64, "[Rules \"hus\"]\n[Note \"");
    memset(huge + k, 'y', big);
    strcpy(huge + k + big, "\"]\n*");
    TU_OK(tg_state_from_record(huge, &s));
    tg_state_free(s);
    /* ... and a 1 MB move token, and a 1 MB Rules value. */
    k = snprintf(huge, 64, HUS);
    memset(huge + k, 'a', big);
    strcpy(huge + k + big, " *");
    expect_read_fails(TG_ERR_PARSE, huge);
    k = snprintf(huge, 64, "[Rules \"");
    memset(huge + k, 'h', big);
    strcpy(huge + k + big, "\"]\n*");
    expect_read_fails(TG_ERR_PARSE, huge);
    free(huge);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_text), cmocka_unit_test(test_writer_arguments),
        cmocka_unit_test(test_reader),     cmocka_unit_test(test_long_game),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Error handling across the whole public API: NULL arguments, out-of-range indices, bad specs,
 * bad position and move strings, illegal moves, buffer contracts. Every failing call must
 * return the documented status and leave its state and out-arguments exactly as they were. */
#include "test_util.h"

#include <limits.h>

#define SPEC "halusa:remainder=last-mover,quiet=100"
#define START SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0"
#define AFTER_B1 SPEC " 6,6,6,6,7,7/6,0,7,7,7,7 1 0,0 quiet=1"
#define FINISHED SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=0"

/* Stand-ins for "a pointer the call must not touch". */
static char sentinel_byte;
#define RULES_SENTINEL ((tg_rules *)(void *)&sentinel_byte)
#define STATE_SENTINEL ((tg_state *)(void *)&sentinel_byte)
#define MOVE_SENTINEL 0xA5A5A5A5u

/* A state with a short history, so that history and ply changes would show. */
static tg_state *played(void)
{
    tg_state *s = tu_new("halusa");
    tu_play(s, "b1");
    tu_play(s, "b2");
    tu_play(s, "c1");
    return s;
}

/* ---- version and status ---------------------------------------------------------------- */

static void test_version(void **unused)
{
    (void)unused;
    assert_int_equal(tg_version(), TG_VERSION_NUMBER);
    assert_int_equal(TG_VERSION_NUMBER,
                     TG_VERSION_MAJOR * 10000 + TG_VERSION_MINOR * 100 + TG_VERSION_PATCH);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", TG_VERSION_MAJOR, TG_VERSION_MINOR, TG_VERSION_PATCH);
    assert_non_null(tg_version_string());
    assert_string_equal(tg_version_string(), want);
}

static void test_status_strings(void **unused)
{
    (void)unused;
    const char *seen[TG_ERR_BUSY + 1];
    for (int code = TG_OK; code <= TG_ERR_BUSY; code++) {
        const char *text = tg_status_string((tg_status)code);
        assert_non_null(text);
        assert_true(strlen(text) > 0);
        if (strcmp(text, "unknown status") == 0)
            TU_FAIL("status %d described as unknown", code);
        for (int k = 0; k < code; k++)
            if (strcmp(seen[k], text) == 0)
                TU_FAIL("statuses %d and %d share the text \"%s\"", k, code, text);
        seen[code] = text;
    }
    const int unknown[] = {TG_ERR_BUSY + 1, 99, 1000, INT_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *text = tg_status_string((tg_status)unknown[i]);
        assert_non_null(text);
        assert_string_equal(text, "unknown status");
    }
}

/* ---- catalogue ------------------------------------------------------------------------- */

static bool is_lower_id(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return false;
    return true;
}

/* Whether value is one of the `|` choices, or a number in the `MIN..MAX` range, of values. */
static bool value_allowed(const char *values, const char *value)
{
    const char *dots = strstr(values, "..");
    if (dots && !strchr(values, '|')) {
        char *end = NULL;
        long lo = strtol(values, &end, 10);
        if (end != dots)
            return false;
        long hi = strtol(dots + 2, &end, 10);
        if (*end)
            return false;
        long v = strtol(value, &end, 10);
        return *end == '\0' && *value != '\0' && v >= lo && v <= hi;
    }
    size_t n = strlen(value);
    for (const char *p = values;;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && memcmp(p, value, n) == 0)
            return true;
        if (!bar)
            return false;
        p = bar + 1;
    }
}

static void test_catalogue(void **unused)
{
    (void)unused;
    size_t count = tg_game_count();
    assert_true(count >= 1);
    bool have_halusa = false;
    for (size_t i = 0; i < count; i++) {
        const char *id = tg_game_id(i);
        const char *name = tg_game_name(i);
        assert_non_null(id);
        assert_non_null(name);
        assert_true(is_lower_id(id));
        assert_true(strlen(name) > 0);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(tg_game_id(j), id);
        if (strcmp(id, "halusa") == 0) {
            have_halusa = true;
            assert_string_equal(name, "Halusa");
        }
        /* Every game's id alone is a valid spec, with the game's own shape. */
        tg_rules *r = tu_rules(id);
        assert_string_equal(tg_rules_game_id(r), id);
        assert_true(tg_rules_rows(r) > 0);
        assert_true(tg_rules_cols(r) > 0);
        assert_true(tg_rules_max_moves(r) > 0);
        tg_rules_free(r);
    }
    assert_true(have_halusa);
    assert_null(tg_game_id(count));
    assert_null(tg_game_name(count));
    assert_null(tg_game_id((size_t)-1));
    assert_null(tg_game_name((size_t)-1));
    assert_int_equal(tg_game_option_count(count), 0);
    assert_int_equal(tg_game_option_count((size_t)-1), 0);
    assert_null(tg_game_option_key(count, 0));
    assert_null(tg_game_option_values(count, 0));
    assert_null(tg_game_option_default(count, 0));
}

static void test_option_enumeration(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < tg_game_count(); i++) {
        const char *id = tg_game_id(i);
        size_t n = tg_game_option_count(i);
        assert_true(n < 16);
        /* The canonical spec of the defaults spells out every option, in enumeration order. */
        tg_rules *r = tu_rules(id);
        char canon[512];
        size_t len = (size_t)snprintf(canon, sizeof canon, "%s", id);
        for (size_t k = 0; k < n; k++) {
            const char *key = tg_game_option_key(i, k);
            const char *values = tg_game_option_values(i, k);
            const char *def = tg_game_option_default(i, k);
            assert_non_null(key);
            assert_non_null(values);
            assert_non_null(def);
            assert_true(is_lower_id(key));
            if (!value_allowed(values, def))
                TU_FAIL("%s: default %s=%s not in \"%s\"", id, key, def, values);
            for (size_t j = 0; j < k; j++)
                assert_string_not_equal(tg_game_option_key(i, j), key);
            len += (size_t)snprintf(canon + len, sizeof canon - len, "%s%s=%s", k ? "," : ":",
                                    key, def);
            assert_true(len < sizeof canon);
        }
        assert_string_equal(tg_rules_spec(r), canon);
        tg_rules_free(r);
        assert_null(tg_game_option_key(i, n));
        assert_null(tg_game_option_values(i, n));
        assert_null(tg_game_option_default(i, n));
        assert_null(tg_game_option_key(i, (size_t)-1));
    }
}

static size_t halusa_index(void)
{
    for (size_t i = 0; i < tg_game_count(); i++)
        if (strcmp(tg_game_id(i), "halusa") == 0)
            return i;
    TU_FAIL("%s", "halusa is not registered");
    return 0;
}

static void test_halusa_options(void **unused)
{
    (void)unused;
    size_t h = halusa_index();
    assert_int_equal(tg_game_option_count(h), 2);
    assert_string_equal(tg_game_option_key(h, 0), "remainder");
    assert_string_equal(tg_game_option_values(h, 0), "last-mover|owner");
    assert_string_equal(tg_game_option_default(h, 0), "last-mover");
    assert_string_equal(tg_game_option_key(h, 1), "quiet");
    assert_string_equal(tg_game_option_values(h, 1), "0..1000");
    assert_string_equal(tg_game_option_default(h, 1), "100");
    assert_null(tg_game_option_key(h, 2));
}

/* ---- rule sets ------------------------------------------------------------------------- */

static void expect_spec_error(const char *spec, tg_status want)
{
    tg_rules *r = RULES_SENTINEL;
    tg_status got = tg_rules_new(spec, &r);
    if (got != want)
        TU_FAIL("tg_rules_new(\"%s\") = %d (%s), expected %d (%s)", spec, (int)got,
                tg_status_string(got), (int)want, tg_status_string(want));
    if (r != RULES_SENTINEL)
        TU_FAIL("tg_rules_new(\"%s\") failed but wrote *out", spec);
}

static void test_rules_null_args(void **unused)
{
    (void)unused;
    tg_rules *r = RULES_SENTINEL;
    assert_int_equal(tg_rules_new(NULL, &r), TG_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(r, RULES_SENTINEL);
    assert_int_equal(tg_rules_new("halusa", NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_rules_new(NULL, NULL), TG_ERR_INVALID_ARGUMENT);
    tg_rules_free(NULL);
    assert_null(tg_rules_spec(NULL));
    assert_null(tg_rules_game_id(NULL));
    assert_int_equal(tg_rules_rows(NULL), -1);
    assert_int_equal(tg_rules_cols(NULL), -1);
    assert_int_equal(tg_rules_max_moves(NULL), 0);
}

static void test_rules_unknown_game(void **unused)
{
    (void)unused;
    const char *specs[] = {"nope", "", "HALUSA", "Halusa", "halus", "halusax", "hal usa",
                           ":quiet=5", "nope:quiet=5", "HALUSA:quiet=5", "halusa-"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        expect_spec_error(specs[i], TG_ERR_UNKNOWN_GAME);
}

static void test_rules_bad_options(void **unused)
{
    (void)unused;
    const char *specs[] = {
        "halusa:",
        "halusa:quiet",
        "halusa:quiet=",
        "halusa:quiet=1001",
        "halusa:quiet=-1",
        "halusa:quiet=01",
        "halusa:quiet=00",
        "halusa:quiet=+5",
        "halusa:quiet=5x",
        "halusa:quiet=0x10",
        "halusa:quiet=1e2",
        "halusa:quiet=99999999999999999999",
        "halusa:quiet=4294967296",
        "halusa:quiet=4294967396", /* 100 modulo 2^32 */
        "halusa:quiet=1,quiet=2",
        "halusa:quiet=100,quiet=100",
        "halusa:remainder=owner,remainder=owner",
        "halusa:foo=1",
        "halusa:quiet=5,foo=1",
        "halusa:remainder=bogus",
        "halusa:remainder=",
        "halusa:remainder=last-mover|owner",
        "halusa:remainder=last",
        "halusa:remainder=owners",
        "halusa:=5",
        "halusa:quiet==5",
        "halusa:quiet=5=5",
        "halusa:quiet=5,",
        "halusa:,quiet=5",
        "halusa:quiet=5,,remainder=owner",
        "halusa::quiet=5",
        "halusa:quiet=5:remainder=owner",
        "halusa:quiet=5;remainder=owner",
        /* whitespace */
        "halusa: quiet=5",
        "halusa:quiet =5",
        "halusa:quiet= 5",
        "halusa:quiet=5 ",
        "halusa:quiet=5, remainder=owner",
        "halusa:quiet=5\n",
        "halusa:quiet=\t5",
        /* upper case */
        "halusa:QUIET=5",
        "halusa:Quiet=5",
        "halusa:remainder=OWNER",
        "halusa:remainder=Owner",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        expect_spec_error(specs[i], TG_ERR_BAD_OPTION);
}

static void test_rules_whitespace_around_id(void **unused)
{
    (void)unused;
    /* Whitespace is never allowed; whether it counts against the id or the options is the
     * library's choice, but it must be one of those two errors and must not write *out. */
    const char *specs[] = {" halusa", "halusa ", "halusa\n", "\thalusa", "halusa :quiet=5"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        tg_rules *r = RULES_SENTINEL;
        tg_status st = tg_rules_new(specs[i], &r);
        if (st != TG_ERR_UNKNOWN_GAME && st != TG_ERR_BAD_OPTION)
            TU_FAIL("tg_rules_new(\"%s\") = %d (%s)", specs[i], (int)st, tg_status_string(st));
        assert_ptr_equal(r, RULES_SENTINEL);
    }
}

static void expect_canonical(const char *spec, const char *canonical)
{
    tg_rules *r = tu_rules(spec);
    if (strcmp(tg_rules_spec(r), canonical) != 0)
        TU_FAIL("spec \"%s\": canonical \"%s\", expected \"%s\"", spec, tg_rules_spec(r),
                canonical);
    /* The canonical text makes an equal rule set. */
    tg_rules *again = tu_rules(tg_rules_spec(r));
    assert_string_equal(tg_rules_spec(again), canonical);
    tg_state *a = NULL, *b = NULL;
    TU_OK(tg_state_new(r, &a));
    TU_OK(tg_state_new(again, &b));
    assert_true(tg_state_equal(a, b));
    TU_OK(tg_state_copy(a, b));
    tg_state_free(a);
    tg_state_free(b);
    tg_rules_free(again);
    tg_rules_free(r);
}

static void test_rules_canonical(void **unused)
{
    (void)unused;
    expect_canonical("halusa", "halusa:remainder=last-mover,quiet=100");
    expect_canonical("halusa:remainder=last-mover,quiet=100", "halusa:remainder=last-mover,quiet=100");
    expect_canonical("halusa:quiet=100,remainder=last-mover", "halusa:remainder=last-mover,quiet=100");
    expect_canonical("halusa:quiet=100", "halusa:remainder=last-mover,quiet=100");
    expect_canonical("halusa:remainder=last-mover", "halusa:remainder=last-mover,quiet=100");
    expect_canonical("halusa:remainder=owner", "halusa:remainder=owner,quiet=100");
    expect_canonical("halusa:quiet=50,remainder=owner", "halusa:remainder=owner,quiet=50");
    expect_canonical("halusa:remainder=owner,quiet=50", "halusa:remainder=owner,quiet=50");
    expect_canonical("halusa:quiet=0", "halusa:remainder=last-mover,quiet=0");
    expect_canonical("halusa:quiet=1000", "halusa:remainder=last-mover,quiet=1000");
    expect_canonical("halusa:quiet=7", "halusa:remainder=last-mover,quiet=7");

    tg_rules *r = tu_rules("halusa:quiet=7");
    assert_string_equal(tg_rules_game_id(r), "halusa");
    assert_int_equal(tg_rules_rows(r), 2);
    assert_int_equal(tg_rules_cols(r), 6);
    assert_true(tg_rules_max_moves(r) >= 6);
    tg_rules_free(r);
}

/* ---- NULL handles and out-pointers on every state function ------------------------------ */

static void test_state_null_args(void **unused)
{
    (void)unused;
    tg_rules *r = tu_rules("halusa");
    tg_state *s = played();
    struct tu_snap snap;
    tu_snap_take(s, &snap);

    tg_state *out = STATE_SENTINEL;
    assert_int_equal(tg_state_new(NULL, &out), TG_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(out, STATE_SENTINEL);
    assert_int_equal(tg_state_new(r, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_clone(NULL, &out), TG_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(out, STATE_SENTINEL);
    assert_int_equal(tg_state_clone(s, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_copy(NULL, s), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_copy(s, NULL), TG_ERR_INVALID_ARGUMENT);
    TU_UNCHANGED(s, &snap, "tg_state_copy(s, NULL)");
    tg_state_free(NULL);
    assert_null(tg_state_rules(NULL));

    assert_int_equal(tg_state_player(NULL), TG_TERMINAL);
    assert_int_equal(tg_state_turn(NULL), TG_TERMINAL);
    assert_true(tg_state_is_terminal(NULL));
    assert_int_equal(tg_state_winner(NULL), TG_NO_WINNER_YET);
    assert_int_equal(tg_state_score(NULL, 0), -1);
    assert_int_equal(tg_state_score(NULL, 1), -1);
    assert_int_equal(tg_state_score(s, -1), -1);
    assert_int_equal(tg_state_score(s, 2), -1);
    assert_int_equal(tg_state_score(s, INT_MIN), -1);
    assert_int_equal(tg_state_score(s, INT_MAX), -1);
    double ret[2] = {42.0, 43.0};
    assert_int_equal(tg_state_returns(NULL, ret), TG_ERR_INVALID_ARGUMENT);
    assert_true(ret[0] == 42.0 && ret[1] == 43.0);
    assert_int_equal(tg_state_returns(s, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_ply(NULL), 0);

    tg_move buf[16];
    double probs[16];
    size_t count = 0;
    assert_int_equal(tg_state_history(NULL, buf, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_history(s, buf, 16, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_history(s, NULL, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_moves(NULL, buf, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_moves(s, buf, 16, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_moves(s, NULL, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_chance(NULL, buf, probs, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_chance(s, buf, probs, 16, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_chance(s, NULL, probs, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_chance(s, buf, NULL, 16, &count), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_chance(s, NULL, NULL, 16, &count), TG_ERR_INVALID_ARGUMENT);

    assert_false(tg_state_is_legal(NULL, 0));
    assert_int_equal(tg_state_apply(NULL, 0), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_undo(NULL), TG_ERR_INVALID_ARGUMENT);
    uint64_t rng = 77;
    assert_int_equal(tg_state_apply_random(NULL, &rng), TG_ERR_INVALID_ARGUMENT);
    assert_true(rng == 77);
    assert_int_equal(tg_state_apply_random(s, NULL), TG_ERR_INVALID_ARGUMENT);
    TU_UNCHANGED(s, &snap, "tg_state_apply_random(s, NULL)");
    size_t plies = 12345;
    assert_int_equal(tg_state_playout(NULL, &rng, 10, &plies), TG_ERR_INVALID_ARGUMENT);
    assert_true(rng == 77);
    assert_int_equal(tg_state_playout(s, NULL, 10, &plies), TG_ERR_INVALID_ARGUMENT);
    TU_UNCHANGED(s, &snap, "tg_state_playout(s, NULL, ...)");
    assert_int_equal(tg_perft(NULL, 0), 0);
    assert_int_equal(tg_perft(NULL, 3), 0);

    assert_int_equal(tg_state_count(NULL, 0, 0), -1);
    assert_int_equal(tg_state_owner(NULL, 0, 0), -1);
    assert_int_equal(tg_state_flags(NULL, 0, 0), 0);

    char text[64];
    size_t needed = 0;
    assert_int_equal(tg_move_to_string(NULL, 0, text, sizeof text, &needed),
                     TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_move_to_string(s, 0, NULL, 8, &needed), TG_ERR_INVALID_ARGUMENT);
    tg_move m = MOVE_SENTINEL;
    assert_int_equal(tg_move_from_string(NULL, "a1", &m), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_move_from_string(s, NULL, &m), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(m, MOVE_SENTINEL);
    assert_int_equal(tg_move_from_string(s, "a1", NULL), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_to_string(NULL, text, sizeof text, &needed),
                     TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_to_string(s, NULL, 8, &needed), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_render(NULL, text, sizeof text, &needed), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_render(s, NULL, 8, &needed), TG_ERR_INVALID_ARGUMENT);
    out = STATE_SENTINEL;
    assert_int_equal(tg_state_from_string(NULL, START, &out), TG_ERR_INVALID_ARGUMENT);
    assert_int_equal(tg_state_from_string(r, NULL, &out), TG_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(out, STATE_SENTINEL);
    assert_int_equal(tg_state_from_string(r, START, NULL), TG_ERR_INVALID_ARGUMENT);
    assert_true(tg_state_hash(NULL) == 0);
    assert_false(tg_state_equal(NULL, s));
    assert_false(tg_state_equal(s, NULL));
    assert_false(tg_state_equal(NULL, NULL));

    TU_UNCHANGED(s, &snap, "the NULL-argument calls");
    tu_snap_free(&snap);
    tg_state_free(s);
    tg_rules_free(r);
}

static void test_board_out_of_range(void **unused)
{
    (void)unused;
    tg_state *s = played();
    const int bad[][2] = {{-1, 0}, {0, -1}, {2, 0}, {0, 6}, {2, 6}, {-1, -1}, {1, 6},
                          {3, 3}, {INT_MAX, 0}, {0, INT_MAX}, {INT_MIN, 0}, {0, INT_MIN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int row = bad[i][0], col = bad[i][1];
        if (tg_state_count(s, row, col) != -1 || tg_state_owner(s, row, col) != -1 ||
            tg_state_flags(s, row, col) != 0)
            TU_FAIL("cell (%d, %d) is off the board but count/owner/flags = %d/%d/%u", row, col,
                    tg_state_count(s, row, col), tg_state_owner(s, row, col),
                    tg_state_flags(s, row, col));
    }
    /* The edges themselves are on the board. */
    tg_state *start = tu_new("halusa");
    for (int row = 0; row < 2; row++)
        for (int col = 0; col < 6; col++) {
            assert_int_equal(tg_state_count(start, row, col), 6);
            assert_int_equal(tg_state_owner(start, row, col), row);
            assert_int_equal(tg_state_flags(start, row, col), 0);
        }
    tg_state_free(start);
    tg_state_free(s);
}

/* ---- moves: notation, legality, game over --------------------------------------------- */

static void test_move_parse_errors(void **unused)
{
    (void)unused;
    tg_state *s = played();
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    const char *bad[] = {"z9",  "a3",  "",   "a",  "1a",  "a0",  "a1x", "A1", " a1",  "a1 ",
                         "g1",  "g2",  "a01", "a-1", "a+1", "aa1", "1",  "b",  "a1a1", "a\n1",
                         "a1\n", "f3", "a4294967297", "a99999999999999999999", "-"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_move m = MOVE_SENTINEL;
        tg_status st = tg_move_from_string(s, bad[i], &m);
        if (st != TG_ERR_PARSE)
            TU_FAIL("tg_move_from_string(\"%s\") = %d (%s), expected TG_ERR_PARSE", bad[i],
                    (int)st, tg_status_string(st));
        if (m != MOVE_SENTINEL)
            TU_FAIL("tg_move_from_string(\"%s\") failed but wrote *out", bad[i]);
    }
    TU_UNCHANGED(s, &snap, "tg_move_from_string");
    tu_snap_free(&snap);
    tg_state_free(s);
}

static void test_move_names(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa");
    const char *names[12] = {"a1", "b1", "c1", "d1", "e1", "f1",
                             "a2", "b2", "c2", "d2", "e2", "f2"};
    for (tg_move m = 0; m < 12; m++) {
        assert_int_equal(tu_move(s, names[m]), m);
        char text[8];
        size_t needed = 0;
        TU_OK(tg_move_to_string(s, m, text, sizeof text, &needed));
        assert_string_equal(text, names[m]);
        assert_int_equal(needed, 2);
    }
    tg_state_free(s);
}

static void test_move_to_string_errors(void **unused)
{
    (void)unused;
    tg_state *s = played();
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    char buf[16];

    /* Measuring only. */
    size_t needed = 99;
    TU_OK(tg_move_to_string(s, 7, NULL, 0, &needed));
    assert_int_equal(needed, 2);
    TU_OK(tg_move_to_string(s, 7, NULL, 0, NULL));
    /* Too small by one (no room for the NUL), and cap 0 with a real buffer. */
    const size_t caps[] = {0, 1, 2};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        memset(buf, 0x5A, sizeof buf);
        needed = 99;
        assert_int_equal(tg_move_to_string(s, 7, buf, caps[i], &needed), TG_ERR_BUFFER_TOO_SMALL);
        assert_int_equal(needed, 2);
        for (size_t k = 0; k < sizeof buf; k++)
            if ((unsigned char)buf[k] != 0x5A)
                TU_FAIL("tg_move_to_string with cap %zu wrote byte %zu", caps[i], k);
    }
    memset(buf, 0x5A, sizeof buf);
    TU_OK(tg_move_to_string(s, 7, buf, 3, NULL));
    assert_string_equal(buf, "b2");

    /* Moves that are no cell of this board. */
    const tg_move inexpressible[] = {12, 13, 100, 0x7FFFFFFFu, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof inexpressible / sizeof inexpressible[0]; i++) {
        memset(buf, 0x5A, sizeof buf);
        tg_status st = tg_move_to_string(s, inexpressible[i], buf, sizeof buf, NULL);
        if (st != TG_ERR_INVALID_ARGUMENT)
            TU_FAIL("tg_move_to_string(%u) = %d (%s), expected TG_ERR_INVALID_ARGUMENT",
                    (unsigned)inexpressible[i], (int)st, tg_status_string(st));
        for (size_t k = 0; k < sizeof buf; k++)
            if ((unsigned char)buf[k] != 0x5A)
                TU_FAIL("failed tg_move_to_string(%u) wrote byte %zu",
                        (unsigned)inexpressible[i], k);
    }
    TU_UNCHANGED(s, &snap, "tg_move_to_string");
    tu_snap_free(&snap);
    tg_state_free(s);
}

static void expect_illegal(tg_state *s, tg_move m, tg_status want)
{
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    if (tg_state_is_legal(s, m))
        TU_FAIL("move %u reported legal in \"%s\"", (unsigned)m, snap.text);
    tg_status st = tg_state_apply(s, m);
    if (st != want)
        TU_FAIL("apply(%u) in \"%s\" = %d (%s), expected %d (%s)", (unsigned)m, snap.text,
                (int)st, tg_status_string(st), (int)want, tg_status_string(want));
    TU_UNCHANGED(s, &snap, "a rejected tg_state_apply");
    tu_snap_free(&snap);
}

static void test_illegal_moves(void **unused)
{
    (void)unused;
    const tg_move junk[] = {12, 13, 100, TG_MOVE_PASS, 0xFFFFFFFFu, 0x80000000u};
    tg_state *s = tu_new("halusa");
    for (tg_move m = 0; m < 6; m++)
        assert_true(tg_state_is_legal(s, m));
    for (tg_move m = 6; m < 12; m++)
        expect_illegal(s, m, TG_ERR_ILLEGAL_MOVE);
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        expect_illegal(s, junk[i], TG_ERR_ILLEGAL_MOVE);

    /* With history: player 1 to move; b1 is now empty and player 0's anyway. */
    tu_play(s, "b1");
    tu_play(s, "b2");
    tu_play(s, "a1");
    /* Player 1 to move: a2 a1..f1 are not theirs; b2 was emptied. */
    TU_POS(s, SPEC " 7,0,6,6,8,8/0,2,9,9,9,8 1 0,0 quiet=3");
    for (tg_move m = 0; m < 6; m++)
        expect_illegal(s, m, TG_ERR_ILLEGAL_MOVE);
    expect_illegal(s, 7, TG_ERR_ILLEGAL_MOVE);
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        expect_illegal(s, junk[i], TG_ERR_ILLEGAL_MOVE);
    assert_true(tg_state_is_legal(s, 6));
    tg_state_free(s);

    /* Must feed: d1 and e1 do not reach player 1's row (rules page, example 4). */
    s = tu_from("halusa", SPEC " 0,0,0,0,0,0/0,0,0,1,1,2 0 34,34 quiet=0");
    expect_illegal(s, 3, TG_ERR_ILLEGAL_MOVE);
    expect_illegal(s, 4, TG_ERR_ILLEGAL_MOVE);
    expect_illegal(s, 0, TG_ERR_ILLEGAL_MOVE);
    assert_true(tg_state_is_legal(s, 5));
    tg_state_free(s);
}

static void test_game_over(void **unused)
{
    (void)unused;
    tg_state *s = tu_from("halusa", FINISHED);
    assert_true(tg_state_is_terminal(s));
    assert_int_equal(tg_state_player(s), TG_TERMINAL);
    assert_int_equal(tg_state_turn(s), TG_TERMINAL);
    assert_int_equal(tg_state_winner(s), 0);
    double ret[2];
    TU_OK(tg_state_returns(s, ret));
    assert_true(ret[0] == 1.0 && ret[1] == -1.0);
    const tg_move any[] = {0, 5, 6, 11, 12, TG_MOVE_PASS, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
        expect_illegal(s, any[i], TG_ERR_GAME_OVER);
    assert_int_equal(tu_moves(s, NULL, 0), 0);

    struct tu_snap snap;
    tu_snap_take(s, &snap);
    uint64_t rng = 12345;
    assert_int_equal(tg_state_apply_random(s, &rng), TG_ERR_GAME_OVER);
    assert_true(rng == 12345);
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    size_t plies = 99;
    TU_OK(tg_state_playout(s, &rng, 1000, &plies));
    assert_int_equal(plies, 0);
    TU_UNCHANGED(s, &snap, "calls on a finished game");
    tu_snap_free(&snap);
    assert_int_equal(tg_perft(s, 0), 1);
    assert_int_equal(tg_perft(s, 1), 0);
    assert_int_equal(tg_perft(s, 4), 0);
    tg_state_free(s);

    /* A game finished by play, with history: the same errors, history intact. */
    s = tu_from("halusa", SPEC " 0,0,0,0,0,0/0,0,0,0,0,2 0 34,36 quiet=5");
    tu_play(s, "f1");
    TU_POS(s, SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=6 winner=draw");
    assert_int_equal(tg_state_winner(s), TG_DRAW);
    TU_OK(tg_state_returns(s, ret));
    assert_true(ret[0] == 0.0 && ret[1] == 0.0);
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
        expect_illegal(s, any[i], TG_ERR_GAME_OVER);
    tu_snap_take(s, &snap);
    assert_int_equal(tg_state_apply_random(s, &rng), TG_ERR_GAME_OVER);
    TU_UNCHANGED(s, &snap, "tg_state_apply_random on a finished game");
    tu_snap_free(&snap);
    TU_OK(tg_state_undo(s));
    TU_POS(s, SPEC " 0,0,0,0,0,0/0,0,0,0,0,2 0 34,36 quiet=5");
    tg_state_free(s);
}

/* ---- position strings ------------------------------------------------------------------ */

static void expect_pos_error(const char *rules_spec, const char *text, tg_status want)
{
    tg_rules *r = tu_rules(rules_spec);
    tg_state *out = STATE_SENTINEL;
    tg_status got = tg_state_from_string(r, text, &out);
    tg_rules_free(r);
    if (got != want)
        TU_FAIL("tg_state_from_string(%s, \"%s\") = %d (%s), expected %d (%s)", rules_spec,
                text, (int)got, tg_status_string(got), (int)want, tg_status_string(want));
    if (out != STATE_SENTINEL)
        TU_FAIL("tg_state_from_string(\"%s\") failed but wrote *out", text);
}

static void test_position_parse_errors(void **unused)
{
    (void)unused;
    const char *bad[] = {
        /* missing pieces, empty text */
        "",
        " ",
        SPEC,
        SPEC " ",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0",
        "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 0 0,0 quiet=0",
        /* separators and trailing text */
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 ",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0\n",
        SPEC "  6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6  0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0  quiet=0",
        " " SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC "\t6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6\t0 0,0 quiet=0",
        SPEC " 6, 6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        /* wrong totals */
        SPEC " 6,6,6,6,6,7/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,5/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 2,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,2 quiet=0",
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 0 0,0 quiet=0",
        /* a running game's scores come from captures of even holes, so they are even */
        SPEC " 6,6,6,6,6,5/6,6,6,6,6,6 0 1,0 quiet=0",
        /* wrong row lengths and row counts */
        SPEC " 6,6,6,6,6/6,6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6,6/6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6,0/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6,0 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6/0,0,0,0,0,0 0 0,0 quiet=0",
        SPEC " 12,12,12,12,12,12 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6,6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6, 0 0,0 quiet=0",
        SPEC " ,6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6//6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6/ 0 0,0 quiet=0",
        SPEC " /6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6;6,6,6,6,6,6 0 0,0 quiet=0",
        /* bad numbers */
        SPEC " -6,6,6,6,6,6/6,6,6,6,6,18 0 0,0 quiet=0",
        SPEC " 06,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " +6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 6a,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " x,6,6,6,6,6/6,6,6,6,6,12 0 0,0 quiet=0",
        SPEC " 6.0,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 0x6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        SPEC " 262,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",        /* 6 modulo 256 */
        SPEC " 65542,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",      /* 6 modulo 2^16 */
        SPEC " 4294967302,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0", /* 6 modulo 2^32 */
        SPEC " 99999999999999999999999,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        /* scores */
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 00,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 -0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0;0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 ,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 65536,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,4294967296 quiet=0",
        SPEC " 8,6,6,6,6,6/6,6,6,6,6,6 0 -2,0 quiet=0",
        /* side to move */
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 2 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 01 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 c0 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 c1 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 -1 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 x 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 - 0,0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 - 0,0 quiet=0 winner=draw",
        /* the quiet field */
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=-1",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=01",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=x",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 QUIET=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet 0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 =0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=101",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=100", /* the limit ends the game */
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=1000",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=65536",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=4294967296",
        /* missing, extra and duplicate fields */
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 quiet=1",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 foo=1",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 foo=1 quiet=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 foo=1",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 winner=0",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 winner=draw",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 winner=",
        SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0 0",
        /* a running side to move without a legal move */
        SPEC " 0,0,0,0,0,0/2,0,0,0,0,0 1 36,34 quiet=0", /* own row empty */
        SPEC " 0,0,0,0,0,0/2,0,0,0,0,0 0 36,34 quiet=0", /* cannot feed */
        SPEC " 2,0,0,0,0,0/0,0,0,0,0,0 0 36,34 quiet=0", /* own row empty */
        SPEC " 0,0,0,0,2,0/0,0,0,0,0,0 1 36,34 quiet=0", /* e2 cannot feed */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 0 36,36 quiet=0",
        /* finished games */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3",             /* no winner field */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=1",    /* wrong winner */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=draw", /* wrong winner */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 36,36 quiet=3 winner=0",    /* wrong winner */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=2",
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=",
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=00",
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 winner=0 quiet=3",    /* field order */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 winner=0",            /* quiet missing */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=3 winner=0 winner=0",
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=101 winner=0",  /* above the limit */
        SPEC " 1,0,0,0,0,0/0,0,0,0,0,0 - 39,32 quiet=3 winner=0",    /* board not empty */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,2 - 38,32 quiet=3 winner=0",    /* board not empty */
        SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 0 40,32 quiet=3 winner=0",    /* running, no move */
        /* malformed specs */
        "halusa: 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:quiet=01 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:quiet=1001 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:foo=1 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:quiet=100,quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:remainder=bogus 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:QUIET=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "HALUSA 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "nope 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_pos_error("halusa", bad[i], TG_ERR_PARSE);

    /* With a lower quiet limit, counts at or above it cannot arise in a running game. */
    expect_pos_error("halusa:quiet=10",
                     "halusa:quiet=10 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=10", TG_ERR_PARSE);
    expect_pos_error("halusa:quiet=10",
                     "halusa:quiet=10 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=50", TG_ERR_PARSE);
    expect_pos_error("halusa:quiet=10",
                     "halusa:quiet=10 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 quiet=11 winner=0",
                     TG_ERR_PARSE);
}

static void test_position_rules_mismatch(void **unused)
{
    (void)unused;
    const char *body = " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0";
    const char *pairs[][2] = {
        {"halusa", "halusa:quiet=50"},
        {"halusa", "halusa:remainder=owner"},
        {"halusa", "halusa:quiet=0"},
        {"halusa", "halusa:remainder=owner,quiet=100"},
        {"halusa:quiet=50", "halusa"},
        {"halusa:quiet=50", "halusa:quiet=51"},
        {"halusa:remainder=owner", "halusa:remainder=last-mover"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char text[160];
        snprintf(text, sizeof text, "%s%s", pairs[i][1], body);
        expect_pos_error(pairs[i][0], text, TG_ERR_RULES_MISMATCH);
    }
}

static void test_position_spellings(void **unused)
{
    (void)unused;
    tg_state *start = tu_new("halusa");
    TU_POS(start, START);
    const char *same[] = {
        START,
        "halusa 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:quiet=100 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:remainder=last-mover 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
        "halusa:quiet=100,remainder=last-mover 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        tg_state *s = tu_from("halusa", same[i]);
        assert_true(tg_state_equal(s, start));
        assert_true(tg_state_hash(s) == tg_state_hash(start));
        TU_POS(s, START);
        assert_int_equal(tg_state_ply(s), 0);
        assert_int_equal(tu_history_len(s), 0);
        tg_state_free(s);
    }
    /* And any spelling of the rules handed in. */
    tg_state *s = tu_from("halusa:quiet=100,remainder=last-mover", "halusa " "6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0");
    assert_true(tg_state_equal(s, start));
    tg_state_free(s);
    s = tu_from("halusa:quiet=50,remainder=owner",
                "halusa:remainder=owner,quiet=50 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0");
    TU_POS(s, "halusa:remainder=owner,quiet=50 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=0");
    assert_false(tg_state_equal(s, start));
    tg_state_free(s);
    /* Valid corner cases: the last quiet count below the limit, a finished game at the limit,
     * a position from the middle of a game. */
    s = tu_from("halusa", SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=99");
    TU_POS(s, SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=99");
    tg_state_free(s);
    s = tu_from("halusa", SPEC " 0,0,0,0,0,0/0,0,0,0,0,0 - 33,39 quiet=100 winner=1");
    assert_int_equal(tg_state_winner(s), 1);
    tg_state_free(s);
    s = tu_from("halusa", AFTER_B1);
    TU_POS(s, AFTER_B1);
    assert_int_equal(tg_state_player(s), 1);
    tg_state_free(s);
    tg_state_free(start);
}

/* ---- buffer contracts ------------------------------------------------------------------ */

typedef tg_status (*text_fn)(const tg_state *, char *, size_t, size_t *);

static void check_text_contract(tg_state *s, text_fn fn, const char *what)
{
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    size_t needed = (size_t)-1;
    TU_OK(fn(s, NULL, 0, &needed));
    assert_true(needed > 0 && needed < 100000);
    TU_OK(fn(s, NULL, 0, NULL));
    size_t size = needed + 16;
    char *buf = malloc(size);
    assert_non_null(buf);
    const size_t caps[] = {0, 1, needed / 2, needed - 1, needed};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        memset(buf, 0x5A, size);
        size_t got = (size_t)-1;
        tg_status st = fn(s, buf, caps[i], &got);
        if (st != TG_ERR_BUFFER_TOO_SMALL || got != needed)
            TU_FAIL("%s with cap %zu of %zu: status %d, needed %zu", what, caps[i], needed + 1,
                    (int)st, got);
        for (size_t k = 0; k < size; k++)
            if ((unsigned char)buf[k] != 0x5A)
                TU_FAIL("%s with cap %zu of %zu wrote byte %zu", what, caps[i], needed + 1, k);
        /* Also without *needed. */
        assert_int_equal(fn(s, buf, caps[i], NULL), TG_ERR_BUFFER_TOO_SMALL);
        for (size_t k = 0; k < size; k++)
            assert_int_equal((unsigned char)buf[k], 0x5A);
    }
    memset(buf, 0x5A, size);
    size_t got = 0;
    TU_OK(fn(s, buf, needed + 1, &got));
    assert_int_equal(got, needed);
    assert_int_equal(strlen(buf), needed);
    for (size_t k = needed + 1; k < size; k++)
        assert_int_equal((unsigned char)buf[k], 0x5A);
    char *again = malloc(size);
    assert_non_null(again);
    TU_OK(fn(s, again, size, NULL));
    assert_string_equal(again, buf);
    free(again);
    free(buf);
    TU_UNCHANGED(s, &snap, what);
    tu_snap_free(&snap);
}

static void test_text_buffers(void **unused)
{
    (void)unused;
    tg_state *s = played();
    check_text_contract(s, tg_state_to_string, "tg_state_to_string");
    check_text_contract(s, tg_state_render, "tg_state_render");
    size_t needed = 0;
    TU_OK(tg_state_to_string(s, NULL, 0, &needed));
    assert_int_equal(needed, strlen(SPEC " 7,1,7,7,8,8/7,1,0,9,9,8 1 0,0 quiet=3"));
    TU_POS(s, SPEC " 7,1,7,7,8,8/7,1,0,9,9,8 1 0,0 quiet=3");
    /* The rendering is several lines for people. */
    char *text = NULL;
    TU_OK(tg_state_render(s, NULL, 0, &needed));
    text = malloc(needed + 1);
    assert_non_null(text);
    TU_OK(tg_state_render(s, text, needed + 1, NULL));
    assert_non_null(strchr(text, '\n'));
    free(text);
    tg_state_free(s);

    s = tu_from("halusa", FINISHED);
    check_text_contract(s, tg_state_to_string, "tg_state_to_string (finished)");
    check_text_contract(s, tg_state_render, "tg_state_render (finished)");
    tg_state_free(s);
}

/* tg_state_render, malloc'd. */
static char *rendered(const tg_state *s)
{
    size_t needed = 0;
    TU_OK(tg_state_render(s, NULL, 0, &needed));
    char *text = malloc(needed + 1);
    assert_non_null(text);
    TU_OK(tg_state_render(s, text, needed + 1, NULL));
    return text;
}

#define RENDER_HAS(s, want)                                                                    \
    do {                                                                                       \
        char *tu_r_ = rendered(s);                                                             \
        if (!strstr(tu_r_, (want)))                                                            \
            TU_FAIL("%s:%d: no \"%s\" in the rendering:\n%s", __FILE__, __LINE__, (want),     \
                    tu_r_);                                                                    \
        free(tu_r_);                                                                           \
    } while (0)

/* The rendering shows every field a player needs, in words: the quiet count against its
 * limit, Tab's throws still to spend, a Walak-pussa match's round, starter, reserves and dead
 * holes. */
static void test_render_fields(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("hus");
    RENDER_HAS(s, "moves without capture: 0 of 100\n");
    tg_state_free(s);
    s = tu_from("halusa", SPEC " 7,1,7,7,8,8/7,1,0,9,9,8 1 0,0 quiet=37");
    RENDER_HAS(s, "moves without capture: 37 of 100\n");
    tg_state_free(s);
    s = tu_new("walak-pussa:quiet=0");
    RENDER_HAS(s, "moves without capture: 0 (no limit)\n");
    tg_state_free(s);

    /* Tab: throw 1 (another throw follows), then 3; spend the 1 and the 3 is still to come. */
    s = tu_new("tab");
    RENDER_HAS(s, "throws to spend: none yet\n");
    tu_play(s, "throw:1");
    RENDER_HAS(s, "throws to spend: 1 (and another throw to come)\n");
    tu_play(s, "throw:3");
    RENDER_HAS(s, "throws to spend: 1,3\n");
    tg_move moves[64];
    size_t n = tu_moves(s, moves, 64);
    assert_true(n > 0);
    TU_OK(tg_state_apply(s, moves[0])); /* at the start only a 1 can move a piece */
    assert_int_equal(tg_state_player(s), 0);
    RENDER_HAS(s, "throws to spend: 3\n");
    char *text = rendered(s);
    assert_null(strstr(text, "moves without capture")); /* Tab has no quiet limit */
    free(text);
    tg_state_free(s);

    /* A Walak-pussa match in its fifth round. */
    s = tu_from("walak-pussa:rounds=match",
                "walak-pussa:rounds=match 3,3,4,3,1,5,3/2,3,0,0,0,0,0 1 0,29 round=5 "
                "dead=d1+e1+f1+g1 reserve=0,12 starter=0 quiet=7");
    RENDER_HAS(s, "round 5, started by player 0; reserves (counters kept off the board) 0 and "
                  "12\ndead holes (#): d1+e1+f1+g1\nmoves without capture: 7 of 100\n");
    tg_state_free(s);
    s = tu_new("walak-pussa");
    text = rendered(s);
    assert_null(strstr(text, "\nround ")); /* a single game has no rounds */
    free(text);
    tg_state_free(s);
}

static void test_list_buffers(void **unused)
{
    (void)unused;
    tg_state *s = played(); /* player 1 to move with 6 moves; 3 moves of history */
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    tg_move buf[16];
    size_t count = 99;

    TU_OK(tg_state_moves(s, NULL, 0, &count));
    assert_int_equal(count, 6);
    for (size_t cap = 0; cap < 6; cap++) {
        for (size_t k = 0; k < 16; k++)
            buf[k] = MOVE_SENTINEL;
        count = 99;
        assert_int_equal(tg_state_moves(s, buf, cap, &count), TG_ERR_BUFFER_TOO_SMALL);
        assert_int_equal(count, 6);
        for (size_t k = 0; k < 16; k++)
            assert_int_equal(buf[k], MOVE_SENTINEL);
    }
    for (size_t k = 0; k < 16; k++)
        buf[k] = MOVE_SENTINEL;
    TU_OK(tg_state_moves(s, buf, 6, &count));
    assert_int_equal(count, 6);
    for (size_t k = 0; k < 6; k++)
        assert_int_equal(buf[k], 6 + k);
    assert_int_equal(buf[6], MOVE_SENTINEL);

    TU_OK(tg_state_history(s, NULL, 0, &count));
    assert_int_equal(count, 3);
    for (size_t cap = 0; cap < 3; cap++) {
        for (size_t k = 0; k < 16; k++)
            buf[k] = MOVE_SENTINEL;
        count = 99;
        assert_int_equal(tg_state_history(s, buf, cap, &count), TG_ERR_BUFFER_TOO_SMALL);
        assert_int_equal(count, 3);
        for (size_t k = 0; k < 16; k++)
            assert_int_equal(buf[k], MOVE_SENTINEL);
    }
    TU_OK(tg_state_history(s, buf, 3, &count));
    assert_int_equal(buf[0], 1);
    assert_int_equal(buf[1], 7);
    assert_int_equal(buf[2], 2);
    assert_int_equal(buf[3], MOVE_SENTINEL);

    /* No chance in Halusa: 0 outcomes, buffers untouched. */
    double probs[4] = {-1.0, -1.0, -1.0, -1.0};
    for (size_t k = 0; k < 16; k++)
        buf[k] = MOVE_SENTINEL;
    count = 99;
    TU_OK(tg_state_chance(s, NULL, NULL, 0, &count));
    assert_int_equal(count, 0);
    count = 99;
    TU_OK(tg_state_chance(s, buf, probs, 4, &count));
    assert_int_equal(count, 0);
    assert_int_equal(buf[0], MOVE_SENTINEL);
    assert_true(probs[0] == -1.0);

    TU_UNCHANGED(s, &snap, "the list calls");
    tu_snap_free(&snap);

    /* Empty lists are fine with any buffer, NULL included. */
    tg_state *fresh = tu_new("halusa");
    TU_OK(tg_state_history(fresh, NULL, 0, &count));
    assert_int_equal(count, 0);
    TU_OK(tg_state_history(fresh, buf, 16, &count));
    assert_int_equal(count, 0);
    tg_state_free(fresh);
    tg_state *over = tu_from("halusa", FINISHED);
    TU_OK(tg_state_moves(over, NULL, 0, &count));
    assert_int_equal(count, 0);
    TU_OK(tg_state_moves(over, buf, 16, &count));
    assert_int_equal(count, 0);
    tg_state_free(over);
    tg_state_free(s);
}

/* ---- undo, copy, clone, rules lifetime ------------------------------------------------- */

/* Hostile text from a caller or a network peer: numbers of any size or sign, megabytes of
 * text, in every game; and a state copied onto itself. Each gets a status and no change. */
static void test_hostile_inputs(void **unused)
{
    (void)unused;
    static const char *const huge[] = {"99999999999999999999999999", "18446744073709551617",
                                       "4294967297", "65536", "-1", "+1", "1e9", "0x10"};
    enum { BIG = 1 << 22 };
    char *big = malloc(BIG);
    assert_non_null(big);
    for (size_t g = 0; g < tg_game_count(); g++) {
        tg_state *s = tu_new(tg_game_id(g));
        const tg_rules *r = tg_state_rules(s);
        char *start = tu_str(s);
        struct tu_snap snap;
        tu_snap_take(s, &snap);
        char text[1024];
        tg_state *t = NULL;
        tg_move m = 0;
        for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
            /* As a score, as the first cell, as an option value and as a move's number. */
            const char *board = strchr(start, ' ') + 1;
            const char *after_board = strchr(board, ' ');
            const char *first_cell_end = board + strcspn(board, ",/");
            snprintf(text, sizeof text, "%.*s%s%s", (int)(board - start), start, huge[i],
                     first_cell_end);
            TU_STATUS(TG_ERR_PARSE, tg_state_from_string(r, text, &t));
            const char *scores = strchr(after_board + 1, ' ') + 1;
            snprintf(text, sizeof text, "%.*s%s,0%s", (int)(scores - start), start, huge[i],
                     scores + strcspn(scores, " "));
            TU_STATUS(TG_ERR_PARSE, tg_state_from_string(r, text, &t));
            assert_null(t);
            for (size_t k = 0; k < tg_game_option_count(g); k++) {
                snprintf(text, sizeof text, "%s:%s=%s", tg_game_id(g), tg_game_option_key(g, k),
                         huge[i]);
                tg_rules *bad = NULL;
                /* A plain number within a wide range (laps=65536) is a good value. */
                unsigned long max = 0;
                const char *values = tg_game_option_values(g, k);
                bool in_range = sscanf(values, "0..%lu", &max) == 1 &&
                                strspn(huge[i], "0123456789") == strlen(huge[i]) &&
                                strlen(huge[i]) < 12 && strtoul(huge[i], NULL, 10) <= max;
                if (in_range) {
                    TU_OK(tg_rules_new(text, &bad));
                    tg_rules_free(bad);
                    continue;
                }
                TU_STATUS(TG_ERR_BAD_OPTION, tg_rules_new(text, &bad));
                assert_null(bad);
            }
            snprintf(text, sizeof text, "a1+%s", huge[i]);
            tg_status st = tg_move_from_string(s, text, &m);
            assert_int_equal(st, TG_ERR_PARSE);
        }
        /* Megabytes of digits, of letters, and a valid position followed by megabytes. */
        static const char fills[] = {'0', '9', 'a', ','};
        for (size_t f = 0; f < sizeof fills; f++) {
            memset(big, fills[f], BIG - 1);
            big[BIG - 1] = '\0';
            TU_STATUS(TG_ERR_PARSE, tg_state_from_string(r, big, &t));
            assert_int_equal(tg_move_from_string(s, big, &m), TG_ERR_PARSE);
            tg_rules *bad = NULL;
            assert_int_not_equal(tg_rules_new(big, &bad), TG_OK);
            assert_null(bad);
        }
        size_t n = strlen(start);
        memcpy(big, start, n);
        memset(big + n, ' ', BIG - 1 - n);
        big[BIG - 1] = '\0';
        TU_STATUS(TG_ERR_PARSE, tg_state_from_string(r, big, &t));
        assert_null(t);
        TU_UNCHANGED(s, &snap, "hostile text");
        tu_snap_free(&snap);

        /* A state copied onto itself keeps its position and loses its history. */
        uint64_t rng = 7;
        for (int i = 0; i < 5; i++)
            TU_OK(tg_state_apply_random(s, &rng));
        char *before = tu_str(s);
        uint64_t hash = tg_state_hash(s);
        TU_OK(tg_state_copy(s, s));
        TU_POS(s, before);
        assert_true(tg_state_hash(s) == hash);
        TU_STATUS(TG_ERR_NO_HISTORY, tg_state_undo(s));
        free(before);
        free(start);
        tg_state_free(s);
    }
    free(big);
}

static void test_undo(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa");
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    TU_UNCHANGED(s, &snap, "undo on a fresh state");
    tu_snap_free(&snap);

    uint64_t start_hash = tg_state_hash(s);
    tu_play(s, "b1");
    uint64_t b1_hash = tg_state_hash(s);
    assert_true(b1_hash != start_hash);
    tu_play(s, "b2");
    assert_int_equal(tg_state_ply(s), 2);
    TU_OK(tg_state_undo(s));
    TU_POS(s, AFTER_B1);
    assert_true(tg_state_hash(s) == b1_hash);
    assert_int_equal(tg_state_ply(s), 1);
    assert_int_equal(tu_history_len(s), 1);
    TU_OK(tg_state_undo(s));
    TU_POS(s, START);
    assert_true(tg_state_hash(s) == start_hash);
    assert_int_equal(tg_state_ply(s), 0);
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    tg_state_free(s);

    s = tu_from("halusa", AFTER_B1);
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    tu_play(s, "b2");
    TU_OK(tg_state_undo(s));
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    TU_POS(s, AFTER_B1);
    tg_state_free(s);

    /* Copy and playout clear the history; copy keeps the ply, playout adds to it. */
    s = played();
    tg_state *dst = tu_new("halusa");
    TU_OK(tg_state_copy(dst, s));
    assert_true(tg_state_equal(dst, s));
    assert_int_equal(tg_state_ply(dst), 3);
    assert_int_equal(tu_history_len(dst), 0);
    assert_int_equal(tg_state_undo(dst), TG_ERR_NO_HISTORY);
    TU_OK(tg_state_copy(s, s));
    assert_true(tg_state_equal(dst, s));
    assert_int_equal(tg_state_ply(s), 3);
    assert_int_equal(tu_history_len(s), 0);
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    tu_play(s, "d2");
    uint64_t rng = 5;
    size_t plies = 99;
    TU_OK(tg_state_playout(s, &rng, 5, &plies));
    assert_int_equal(plies, 5);
    assert_int_equal(tg_state_ply(s), 9);
    assert_int_equal(tu_history_len(s), 0);
    assert_int_equal(tg_state_undo(s), TG_ERR_NO_HISTORY);
    TU_OK(tg_state_playout(s, &rng, 0, &plies));
    assert_int_equal(plies, 0);
    assert_int_equal(tg_state_ply(s), 9);
    TU_OK(tg_state_playout(s, &rng, 100000, NULL));
    assert_true(tg_state_is_terminal(s));
    tg_state_free(dst);
    tg_state_free(s);
}

/* A playout is tg_state_apply_random() repeated, draw for draw, whichever loop plays it (the
 * mancala games have their own): over option sets that reach every ending (quiet limits,
 * endless moves, new rounds, must-feed), and cut short at every length up to 40 plies. */
static void test_playout_is_apply_random(void **unused)
{
    (void)unused;
    static const char *const specs[] = {
        "halusa",
        "halusa:remainder=owner,quiet=6",
        "walak-pussa",
        "walak-pussa:rounds=match,laps=10000,quiet=4",
        "hus",
        "hus:width=12,laps=10000,quiet=3",
        "hus:width=16",
        "hawalis",
        "hawalis:variant=zanzibar,laps=10000,quiet=5",
        "tab",
        "tab:width=29",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        tg_rules *r = NULL;
        TU_OK(tg_rules_new(specs[i], &r));
        for (uint64_t seed = 1; seed <= 30; seed++) {
            for (size_t max = 0; max <= 41; max++) {
                size_t cap = max == 41 ? 1000000 : max;
                tg_state *a = NULL, *b = NULL;
                TU_OK(tg_state_new(r, &a));
                TU_OK(tg_state_new(r, &b));
                uint64_t ra = seed * 0x9E3779B97F4A7C15u, rb = ra;
                size_t plies = 0, applied = 0;
                TU_OK(tg_state_playout(a, &ra, cap, &plies));
                while (applied < cap && !tg_state_is_terminal(b)) {
                    TU_OK(tg_state_apply_random(b, &rb));
                    applied++;
                }
                if (plies != applied || ra != rb || !tg_state_equal(a, b))
                    TU_FAIL("%s seed %llu max %zu: playout %zu plies, apply_random %zu", specs[i],
                            (unsigned long long)seed, cap, plies, applied);
                tg_state_free(a);
                tg_state_free(b);
            }
        }
        tg_rules_free(r);
    }
}

/* tg_state_playout_stats plays exactly tg_state_playout's moves and counts them: checked
 * against the same game played move by move, where decisions, chance outcomes and (Halusa,
 * one lap per move) the counters sown can be counted from outside. */
static void test_playout_stats(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < tg_game_count(); g++) {
        tg_rules *r = NULL;
        TU_OK(tg_rules_new(tg_game_id(g), &r));
        bool single_lap = strcmp(tg_game_id(g), "halusa") == 0;
        bool mancala = strcmp(tg_game_id(g), "tab") != 0;
        for (uint64_t seed = 1; seed <= 20; seed++) {
            tg_state *a = NULL, *b = NULL, *c = NULL;
            TU_OK(tg_state_new(r, &a));
            TU_OK(tg_state_new(r, &b));
            TU_OK(tg_state_new(r, &c));
            uint64_t ra = seed, rb = seed, rc = seed;
            size_t plies = 0;
            uint64_t stats[TG_STAT_COUNT + 2];
            memset(stats, 0xAB, sizeof stats);
            TU_OK(tg_state_playout(a, &ra, 100000, &plies));
            TU_OK(tg_state_playout_stats(b, &rb, 100000, stats, TG_STAT_COUNT + 2));
            assert_true(tg_state_equal(a, b));
            assert_true(ra == rb);
            assert_int_equal(tg_state_ply(b), plies);
            assert_int_equal(tu_history_len(b), 0);
            assert_true(stats[TG_STAT_PLIES] == plies);
            assert_true(stats[TG_STAT_COUNT] == 0 && stats[TG_STAT_COUNT + 1] == 0);
            /* The same game, move by move. */
            uint64_t decisions = 0, chance = 0, sown = 0;
            while (!tg_state_is_terminal(c)) {
                if (tg_state_player(c) == TG_CHANCE) {
                    chance++;
                } else {
                    decisions++;
                    tg_move next;
                    uint64_t peek = rc;
                    TU_OK(tg_bot_choose(c, "random", &peek, &next));
                    sown += (uint64_t)tg_state_count(c, (int)next / tg_rules_cols(r),
                                                     (int)next % tg_rules_cols(r));
                }
                TU_OK(tg_state_apply_random(c, &rc));
            }
            assert_true(tg_state_equal(a, c));
            assert_true(stats[TG_STAT_DECISIONS] == decisions);
            assert_true(stats[TG_STAT_CHANCE] == chance);
            assert_true(stats[TG_STAT_DECISIONS] + stats[TG_STAT_CHANCE] == plies);
            if (single_lap)
                assert_true(stats[TG_STAT_SOWN] == sown);
            else if (mancala) /* relay laps sow at least the counters first lifted */
                assert_true(stats[TG_STAT_SOWN] >= sown);
            else
                assert_true(stats[TG_STAT_SOWN] == 0);
            /* A finished game: nothing happens, all counters 0; count 0 takes NULL. */
            TU_OK(tg_state_playout_stats(b, &rb, 100, stats, TG_STAT_COUNT));
            for (int i = 0; i < TG_STAT_COUNT; i++)
                assert_true(stats[i] == 0);
            TU_OK(tg_state_playout_stats(b, &rb, 100, NULL, 0));
            tg_state_free(a);
            tg_state_free(b);
            tg_state_free(c);
        }
        /* Bad arguments change nothing. */
        tg_state *s = NULL;
        TU_OK(tg_state_new(r, &s));
        struct tu_snap snap;
        tu_snap_take(s, &snap);
        uint64_t rng = 3, stats[TG_STAT_COUNT];
        assert_int_equal(tg_state_playout_stats(NULL, &rng, 10, stats, TG_STAT_COUNT),
                         TG_ERR_INVALID_ARGUMENT);
        assert_int_equal(tg_state_playout_stats(s, NULL, 10, stats, TG_STAT_COUNT),
                         TG_ERR_INVALID_ARGUMENT);
        assert_int_equal(tg_state_playout_stats(s, &rng, 10, NULL, 1), TG_ERR_INVALID_ARGUMENT);
        assert_true(rng == 3);
        TU_UNCHANGED(s, &snap, "tg_state_playout_stats with bad arguments");
        tu_snap_free(&snap);
        tg_state_free(s);
        tg_rules_free(r);
    }
}

static void test_copy_mismatch(void **unused)
{
    (void)unused;
    tg_state *a = played();
    tg_state *b = tu_new("halusa:quiet=50");
    tg_state *c = tu_new("halusa:remainder=owner");
    struct tu_snap sa, sb;
    tu_snap_take(a, &sa);
    tu_snap_take(b, &sb);
    assert_int_equal(tg_state_copy(b, a), TG_ERR_RULES_MISMATCH);
    assert_int_equal(tg_state_copy(a, b), TG_ERR_RULES_MISMATCH);
    assert_int_equal(tg_state_copy(a, c), TG_ERR_RULES_MISMATCH);
    assert_int_equal(tg_state_copy(c, b), TG_ERR_RULES_MISMATCH);
    TU_UNCHANGED(a, &sa, "a failed tg_state_copy");
    TU_UNCHANGED(b, &sb, "a failed tg_state_copy");
    tu_snap_free(&sa);
    tu_snap_free(&sb);
    /* Same board, different rule sets: not equal. */
    tg_state *d = tu_new("halusa");
    assert_false(tg_state_equal(b, d));
    assert_false(tg_state_equal(c, d));
    assert_false(tg_state_equal(b, c));
    /* Same rule set spelled differently: copy works. */
    tg_state *e = tu_new("halusa:quiet=100,remainder=last-mover");
    TU_OK(tg_state_copy(e, a));
    assert_true(tg_state_equal(e, a));
    tg_state_free(a);
    tg_state_free(b);
    tg_state_free(c);
    tg_state_free(d);
    tg_state_free(e);
}

static void test_rules_lifetime(void **unused)
{
    (void)unused;
    tg_rules *r = tu_rules("halusa:quiet=7,remainder=owner");
    tg_state *s = NULL, *p = NULL;
    TU_OK(tg_state_new(r, &s));
    TU_OK(tg_state_from_string(r, "halusa:remainder=owner,quiet=7 6,6,6,6,7,7/6,0,7,7,7,7 1 0,0 quiet=1", &p));
    tg_rules_free(r);

    const tg_rules *own = tg_state_rules(s);
    assert_non_null(own);
    assert_string_equal(tg_rules_spec(own), "halusa:remainder=owner,quiet=7");
    assert_string_equal(tg_rules_game_id(own), "halusa");
    assert_int_equal(tg_rules_rows(own), 2);
    assert_int_equal(tg_rules_cols(own), 6);
    assert_string_equal(tg_rules_spec(tg_state_rules(p)), "halusa:remainder=owner,quiet=7");

    /* The state's rules make new states, parse positions, and outlive their parent. */
    tg_state *t = NULL;
    TU_OK(tg_state_new(own, &t));
    assert_true(tg_state_equal(s, t));
    tu_play(s, "b1");
    assert_true(tg_state_equal(s, p));
    tg_state *clone = NULL;
    TU_OK(tg_state_clone(s, &clone));
    tg_state_free(s);
    assert_string_equal(tg_rules_spec(tg_state_rules(clone)), "halusa:remainder=owner,quiet=7");
    tg_state *q = NULL;
    TU_OK(tg_state_from_string(tg_state_rules(clone),
                               "halusa:remainder=owner,quiet=7 6,6,6,6,7,7/6,0,7,7,7,7 1 0,0 quiet=1",
                               &q));
    assert_true(tg_state_equal(q, clone));
    TU_OK(tg_state_copy(t, clone));
    assert_true(tg_state_equal(t, q));
    tg_state_free(q);
    tg_state_free(t);
    tg_state_free(p);
    tg_state_free(clone);
}

static void test_clone(void **unused)
{
    (void)unused;
    tg_state *s = played();
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    tg_state *c = NULL;
    TU_OK(tg_state_clone(s, &c));
    TU_UNCHANGED(c, &snap, "tg_state_clone (the clone differs)");
    /* Independent: moves on the clone do not touch the original, and its undo works. */
    tu_play(c, "a2");
    TU_UNCHANGED(s, &snap, "a move on a clone");
    TU_OK(tg_state_undo(c));
    TU_OK(tg_state_undo(c));
    TU_OK(tg_state_undo(c));
    TU_OK(tg_state_undo(c));
    TU_POS(c, START);
    assert_int_equal(tg_state_undo(c), TG_ERR_NO_HISTORY);
    TU_UNCHANGED(s, &snap, "undo on a clone");
    tu_snap_free(&snap);
    tg_state_free(c);
    tg_state_free(s);
}

/* ---- results, hashing, equality, perft ------------------------------------------------- */

static void test_running_results(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("halusa");
    assert_int_equal(tg_state_player(s), 0);
    assert_int_equal(tg_state_turn(s), 0);
    assert_false(tg_state_is_terminal(s));
    assert_int_equal(tg_state_winner(s), TG_NO_WINNER_YET);
    assert_int_equal(tg_state_score(s, 0), 0);
    assert_int_equal(tg_state_score(s, 1), 0);
    double ret[2] = {9.0, 9.0};
    TU_OK(tg_state_returns(s, ret));
    assert_true(ret[0] == 0.0 && ret[1] == 0.0);
    tu_play(s, "b1");
    assert_int_equal(tg_state_player(s), 1);
    assert_int_equal(tg_state_turn(s), 1);
    assert_int_equal(tg_perft(s, 0), 1);
    assert_int_equal(tg_perft(s, 1), 6);
    tg_state_free(s);
}

static void test_hash_equal(void **unused)
{
    (void)unused;
    tg_state *a = tu_new("halusa");
    tg_state *b = tu_from("halusa", START);
    assert_true(tg_state_equal(a, b));
    assert_true(tg_state_equal(a, a));
    assert_true(tg_state_hash(a) == tg_state_hash(b));
    tu_play(b, "b1");
    assert_false(tg_state_equal(a, b));
    assert_true(tg_state_hash(a) != tg_state_hash(b));
    tg_state *c = tu_from("halusa", AFTER_B1);
    assert_true(tg_state_equal(b, c));
    assert_true(tg_state_hash(b) == tg_state_hash(c));
    /* Positions that differ only in one field hash apart. */
    tg_state *d = tu_from("halusa", SPEC " 6,6,6,6,7,7/6,0,7,7,7,7 1 0,0 quiet=2");
    assert_false(tg_state_equal(c, d));
    assert_true(tg_state_hash(c) != tg_state_hash(d));
    tg_state *e = tu_from("halusa", SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 0 0,0 quiet=1");
    assert_false(tg_state_equal(a, e));
    assert_true(tg_state_hash(a) != tg_state_hash(e));
    tg_state *f = tu_from("halusa", SPEC " 6,6,6,6,6,6/6,6,6,6,6,6 1 0,0 quiet=0");
    assert_false(tg_state_equal(a, f));
    assert_true(tg_state_hash(a) != tg_state_hash(f));
    tg_state *g = tu_from("halusa", SPEC " 6,6,6,6,6,4/6,6,6,6,6,6 0 2,0 quiet=0");
    tg_state *h = tu_from("halusa", SPEC " 6,6,6,6,6,4/6,6,6,6,6,6 0 0,2 quiet=0");
    assert_false(tg_state_equal(g, h));
    assert_true(tg_state_hash(g) != tg_state_hash(h));
    tg_state_free(a);
    tg_state_free(b);
    tg_state_free(c);
    tg_state_free(d);
    tg_state_free(e);
    tg_state_free(f);
    tg_state_free(g);
    tg_state_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_status_strings),
        cmocka_unit_test(test_catalogue),
        cmocka_unit_test(test_render_fields),
        cmocka_unit_test(test_option_enumeration),
        cmocka_unit_test(test_halusa_options),
        cmocka_unit_test(test_rules_null_args),
        cmocka_unit_test(test_rules_unknown_game),
        cmocka_unit_test(test_rules_bad_options),
        cmocka_unit_test(test_rules_whitespace_around_id),
        cmocka_unit_test(test_rules_canonical),
        cmocka_unit_test(test_state_null_args),
        cmocka_unit_test(test_board_out_of_range),
        cmocka_unit_test(test_move_parse_errors),
        cmocka_unit_test(test_move_names),
        cmocka_unit_test(test_move_to_string_errors),
        cmocka_unit_test(test_illegal_moves),
        cmocka_unit_test(test_game_over),
        cmocka_unit_test(test_position_parse_errors),
        cmocka_unit_test(test_position_rules_mismatch),
        cmocka_unit_test(test_position_spellings),
        cmocka_unit_test(test_text_buffers),
        cmocka_unit_test(test_list_buffers),
        cmocka_unit_test(test_undo),
        cmocka_unit_test(test_copy_mismatch),
        cmocka_unit_test(test_playout_is_apply_random),
        cmocka_unit_test(test_playout_stats),
        cmocka_unit_test(test_rules_lifetime),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_running_results),
        cmocka_unit_test(test_hash_equal),
        cmocka_unit_test(test_hostile_inputs),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}

/* At-Tab wa-d-Dukk (rules/tab.md): the rules page's worked examples, the four tracks, the
 * throwing sticks, a pinned seeded game, the movement rules (unlocking, the home row, kings,
 * captures, the opponent's row), the three ends, move notation, rejected position strings,
 * pinned perft counts, and a differential test against a reference model written here from
 * the rules page alone. */
#include "test_util.h"

#include <inttypes.h>

#define S13 "tab:width=13"
#define E13 ".,.,.,.,.,.,.,.,.,.,.,.,."
#define O13 "O,O,O,O,O,O,O,O,O,O,O,O,O"
#define X13 "X,X,X,X,X,X,X,X,X,X,X,X,X"
#define O11 "O,O,O,O,O,O,O,O,O,O,O,.,."
#define START13 S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=-"

#define TEXT_MAX 4096

static const int widths[4] = {13, 19, 21, 29};

/* ---- cell names, written here (spreadsheet columns, 1-based rows) ---------------------- */

static void col_name(int col, char *out)
{
    char tmp[8];
    int n = 0;
    for (int v = col + 1; v > 0; v = (v - 1) / 26)
        tmp[n++] = (char)('a' + (v - 1) % 26);
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

static void cell_name(int n, int cell, char *out)
{
    col_name(cell % n, out);
    size_t len = strlen(out);
    out[len] = (char)('1' + cell / n);
    out[len + 1] = '\0';
}

/* ---- a reference model, from the rules page ------------------------------------------- */

#define MAXN 29
#define MAXC (4 * MAXN)

enum { R_DECIDE, R_CHANCE, R_OVER };

struct ref {
    int n;
    int8_t own[MAXC];   /* owner of the unit on a cell, -1 if empty; cell = row * n + col */
    uint8_t size[MAXC]; /* pieces in the unit */
    uint8_t locked[MAXC];
    int score[2];
    int side; /* whose turn */
    int phase;
    int winner;
    int stored[7]; /* stored throws of each value */
};

static const int throw_values[5] = {1, 2, 3, 4, 6};
static const double throw_probs[5] = {4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0, 1 / 16.0};

/* Each player's track of 4n positions, row by row as the page lists them. */
struct tracks {
    bool ready;
    int cell[2][MAXC]; /* position -> cell */
    int at[2][MAXC];   /* cell -> position */
};
static struct tracks track_table[MAXN + 1];

static const struct tracks *ref_tracks(int n)
{
    struct tracks *t = &track_table[n];
    if (!t->ready) {
        /* player 0: row 0 east, row 1 west, row 2 east, row 3 west; player 1: row 3 west,
         * row 2 east, row 1 west, row 0 east. */
        static const int rows[2][4] = {{0, 1, 2, 3}, {3, 2, 1, 0}};
        static const bool east[2][4] = {{true, false, true, false}, {false, true, false, true}};
        for (int p = 0; p < 2; p++) {
            int k = 0;
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < n; j++)
                    t->cell[p][k++] = rows[p][i] * n + (east[p][i] ? j : n - 1 - j);
            for (int q = 0; q < 4 * n; q++)
                t->at[p][t->cell[p][q]] = q;
        }
        t->ready = true;
    }
    return t;
}

static int home_row(int p)
{
    return p == 0 ? 0 : 3;
}

static int far_row(int p)
{
    return p == 0 ? 3 : 0;
}

static void ref_empty(struct ref *r, int n)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    memset(r->own, -1, sizeof r->own);
    r->winner = TG_NO_WINNER_YET;
    r->phase = R_CHANCE;
}

static void ref_put(struct ref *r, int cell, int owner, int size, bool locked)
{
    r->own[cell] = (int8_t)owner;
    r->size[cell] = (uint8_t)size;
    r->locked[cell] = locked;
}

static void ref_init(struct ref *r, int n)
{
    ref_empty(r, n);
    for (int col = 0; col < n; col++) {
        ref_put(r, col, 0, 1, true);
        ref_put(r, 3 * n + col, 1, 1, true);
    }
}

static int ref_pieces(const struct ref *r, int p)
{
    int k = 0;
    for (int c = 0; c < 4 * r->n; c++)
        if (r->own[c] == p)
            k += r->size[c];
    return k;
}

/* Whether the unit of `me` on `cell` may move v positions (not counting the opponent's-row
 * order): unlocking, end of track, home-row passing, and joining only in the central rows. */
static bool ref_can(const struct ref *r, int me, int cell, int v)
{
    const struct tracks *t = ref_tracks(r->n);
    int n = r->n, q = t->at[me][cell], to = q + v;
    if (r->locked[cell] && v != 1)
        return false;
    if (to >= 4 * n)
        return false;
    for (int k = q + 1; k < to; k++) {
        int c = t->cell[me][k];
        if (c / n == home_row(me) && r->own[c] == me)
            return false;
    }
    int dest = t->cell[me][to];
    if (r->own[dest] == me)
        return dest / n == 1 || dest / n == 2;
    return true;
}

static int cmp_move(const void *a, const void *b)
{
    tg_move x = *(const tg_move *)a, y = *(const tg_move *)b;
    return x < y ? -1 : x > y;
}

static tg_move mk(int cell, int v, int count)
{
    return (tg_move)cell | (tg_move)v << 8 | (tg_move)count << 16;
}

static tg_move throw_move(int v)
{
    return 0x01000000u | (tg_move)v;
}

/* The legal decisions, ascending. Units outside the opponent's row first; those in it only
 * when none of the others can move with any stored value. */
static int ref_moves(const struct ref *r, tg_move *out)
{
    if (r->phase != R_DECIDE)
        return 0;
    int me = r->side, n = r->n, k = 0;
    for (int in_far = 0; in_far < 2 && k == 0; in_far++)
        for (int cell = 0; cell < 4 * n; cell++) {
            if (r->own[cell] != me || (cell / n == far_row(me)) != (in_far == 1))
                continue;
            for (int i = 0; i < 5; i++) {
                int v = throw_values[i];
                if (!r->stored[v] || !ref_can(r, me, cell, v))
                    continue;
                if (out)
                    out[k] = mk(cell, v, r->size[cell]);
                k++;
                if (v < r->size[cell]) {
                    if (out)
                        out[k] = mk(cell, v, v);
                    k++;
                }
            }
        }
    if (out)
        qsort(out, (size_t)k, sizeof *out, cmp_move);
    return k;
}

static bool ref_ended(const struct ref *r)
{
    int n = r->n;
    bool across = true, stuck = true;
    for (int c = 0; c < 4 * n; c++) {
        int p = r->own[c];
        if (p < 0)
            continue;
        if (c / n != far_row(p))
            across = false;
        for (int i = 0; i < 5 && stuck; i++)
            if (ref_can(r, p, c, throw_values[i]))
                stuck = false;
    }
    return ref_pieces(r, 0) == 0 || ref_pieces(r, 1) == 0 || across || stuck;
}

static void ref_finish(struct ref *r)
{
    r->phase = R_OVER;
    memset(r->stored, 0, sizeof r->stored);
    r->winner = r->score[0] == r->score[1] ? TG_DRAW : r->score[0] > r->score[1] ? 0 : 1;
}

/* After a decision or the last throw: end, go on spending, or hand the turn over. */
static void ref_continue(struct ref *r)
{
    if (ref_ended(r)) {
        ref_finish(r);
        return;
    }
    r->phase = R_DECIDE;
    if (ref_moves(r, NULL) > 0)
        return;
    memset(r->stored, 0, sizeof r->stored);
    r->side = 1 - r->side;
    r->phase = R_CHANCE;
    if (ref_ended(r))
        ref_finish(r);
}

static void ref_apply(struct ref *r, tg_move m)
{
    if (r->phase == R_CHANCE) {
        int v = (int)(m & 0xFF);
        if (r->stored[v] < 255)
            r->stored[v]++;
        if (v == 2 || v == 3)
            ref_continue(r);
        return;
    }
    const struct tracks *t = ref_tracks(r->n);
    int me = r->side, from = (int)(m & 0xFF), v = (int)(m >> 8 & 0xFF), count = (int)(m >> 16);
    int to = t->cell[me][t->at[me][from] + v];
    r->size[from] = (uint8_t)(r->size[from] - count);
    r->locked[from] = 0;
    if (r->size[from] == 0)
        r->own[from] = -1;
    if (r->own[to] == 1 - me) {
        r->score[me] += r->size[to];
        r->own[to] = -1;
        r->size[to] = 0;
    }
    if (r->own[to] == me) {
        r->size[to] = (uint8_t)(r->size[to] + count);
    } else {
        r->own[to] = (int8_t)me;
        r->size[to] = (uint8_t)count;
    }
    r->locked[to] = 0;
    r->stored[v]--;
    ref_continue(r);
}

static int ref_chance(const struct ref *r, tg_move *out, double *probs)
{
    if (r->phase != R_CHANCE)
        return 0;
    for (int i = 0; i < 5; i++) {
        out[i] = throw_move(throw_values[i]);
        probs[i] = throw_probs[i];
    }
    return 5;
}

static void app(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t k = strlen(s);
    assert_true(*len + k < cap);
    memcpy(buf + *len, s, k + 1);
    *len += k;
}

static void app_int(char *buf, size_t cap, size_t *len, int v)
{
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%d", v);
    app(buf, cap, len, tmp);
}

static void ref_string(const struct ref *r, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    app(buf, cap, &len, "tab:width=");
    app_int(buf, cap, &len, r->n);
    app(buf, cap, &len, " ");
    for (int row = 3; row >= 0; row--) {
        for (int col = 0; col < r->n; col++) {
            int c = row * r->n + col;
            if (col)
                app(buf, cap, &len, ",");
            if (r->own[c] < 0) {
                app(buf, cap, &len, ".");
                continue;
            }
            app(buf, cap, &len,
                r->own[c] ? (r->locked[c] ? "O" : "o") : (r->locked[c] ? "X" : "x"));
            if (r->size[c] > 1)
                app_int(buf, cap, &len, r->size[c]);
        }
        if (row)
            app(buf, cap, &len, "/");
    }
    app(buf, cap, &len,
        r->phase == R_OVER     ? " -"
        : r->phase == R_CHANCE ? (r->side ? " c1" : " c0")
                               : (r->side ? " 1" : " 0"));
    app(buf, cap, &len, " ");
    app_int(buf, cap, &len, r->score[0]);
    app(buf, cap, &len, ",");
    app_int(buf, cap, &len, r->score[1]);
    app(buf, cap, &len, " throws=");
    bool any = false;
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < r->stored[throw_values[i]]; k++) {
            if (any)
                app(buf, cap, &len, ",");
            app_int(buf, cap, &len, throw_values[i]);
            any = true;
        }
    if (!any)
        app(buf, cap, &len, "-");
    if (r->phase == R_OVER)
        app(buf, cap, &len,
            r->winner == TG_DRAW ? " winner=draw"
            : r->winner == 0     ? " winner=0"
                                 : " winner=1");
}

static uint64_t ref_perft(const struct ref *r, unsigned depth)
{
    if (depth == 0)
        return 1;
    tg_move moves[4 * MAXC];
    double probs[5];
    int n = r->phase == R_CHANCE ? ref_chance(r, moves, probs) : ref_moves(r, moves);
    if (depth == 1)
        return (uint64_t)n;
    uint64_t leaves = 0;
    for (int i = 0; i < n; i++) {
        struct ref child = *r;
        ref_apply(&child, moves[i]);
        leaves += ref_perft(&child, depth - 1);
    }
    return leaves;
}

/* ---- helpers ---------------------------------------------------------------------------- */

/* A state from a position string, the rule set named by the string's own spec. */
static tg_state *from(const char *text)
{
    char spec[64];
    size_t k = strcspn(text, " ");
    assert_true(k < sizeof spec);
    memcpy(spec, text, k);
    spec[k] = '\0';
    return tu_from(spec, text);
}

static tg_state *ref_state(const struct ref *r, char *text, size_t cap)
{
    ref_string(r, text, cap);
    return from(text);
}

/* The reference model of a library state, read through the board queries. */
static void ref_from_state(const tg_state *s, struct ref *r)
{
    int n = tg_rules_cols(tg_state_rules(s));
    ref_empty(r, n);
    for (int c = 0; c < 4 * n; c++) {
        int owner = tg_state_owner(s, c / n, c % n), count = tg_state_count(s, c / n, c % n);
        assert_true((owner < 0) == (count == 0));
        if (owner >= 0)
            ref_put(r, c, owner, count, (tg_state_flags(s, c / n, c % n) & TG_CELL_LOCKED) != 0);
    }
    r->score[0] = tg_state_score(s, 0);
    r->score[1] = tg_state_score(s, 1);
    int player = tg_state_player(s);
    if (player == TG_TERMINAL) {
        r->phase = R_OVER;
        r->winner = tg_state_winner(s);
    } else {
        r->phase = player == TG_CHANCE ? R_CHANCE : R_DECIDE;
        r->side = tg_state_turn(s);
    }
    char *text = tu_str(s);
    const char *q = strstr(text, " throws=");
    assert_non_null(q);
    q += 8;
    while (*q >= '1' && *q <= '6') {
        r->stored[*q - '0']++;
        q++;
        if (*q == ',')
            q++;
    }
    free(text);
}

static void expect_ref(const tg_state *s, const struct ref *r, const char *what)
{
    char want[TEXT_MAX];
    ref_string(r, want, sizeof want);
    char *got = tu_str(s);
    if (strcmp(got, want) != 0)
        TU_FAIL("%s:\n  library   \"%s\"\n  reference \"%s\"", what, got, want);
    free(got);
}

/* The library's legal decisions and chance outcomes against the reference's. */
static void expect_same_options(const tg_state *s, const struct ref *r, const char *what)
{
    tg_move lib[512], mine[512];
    double lp[16], mp[16];
    size_t n = tu_moves(s, lib, 512);
    int rn = ref_moves(r, mine);
    if (n != (size_t)rn || memcmp(lib, mine, n * sizeof *lib) != 0) {
        char *text = tu_str(s);
        TU_FAIL("%s: \"%s\": library lists %zu decisions, reference %d", what, text, n, rn);
    }
    size_t cn = (size_t)-1;
    TU_OK(tg_state_chance(s, lib, lp, 16, &cn));
    int rc = ref_chance(r, mine, mp);
    assert_int_equal(cn, (size_t)rc);
    assert_memory_equal(lib, mine, cn * sizeof *lib);
    for (size_t i = 0; i < cn; i++)
        assert_true(lp[i] == mp[i]);
}

/* Asserts the exact set of legal decisions, given as move strings. */
static void expect_moves(const tg_state *s, const char *list)
{
    tg_move want[64], got[512];
    int k = 0;
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
        want[k++] = tu_move(s, tok);
    qsort(want, (size_t)k, sizeof *want, cmp_move);
    size_t n = tu_moves(s, got, 512);
    bool same = n == (size_t)k && memcmp(want, got, n * sizeof *got) == 0;
    if (!same) {
        char *text = tu_str(s);
        print_error("position \"%s\"\n  library:", text);
        for (size_t i = 0; i < n; i++) {
            char name[32];
            if (tg_move_to_string(s, got[i], name, sizeof name, NULL) != TG_OK)
                snprintf(name, sizeof name, "?%08x", (unsigned)got[i]);
            print_error(" %s", name);
        }
        free(text);
        TU_FAIL("\n  expected: %s", list);
    }
    for (int i = 0; i < k; i++)
        assert_true(tg_state_is_legal(s, want[i]));
}

static void expect_illegal(tg_state *s, const char *move)
{
    tg_move m = tu_move(s, move);
    assert_false(tg_state_is_legal(s, m));
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, m));
    TU_UNCHANGED(s, &snap, move);
    tu_snap_free(&snap);
}

/* Plays `move` on `before`, checks `after` and the reference model, undoes, checks `before`. */
static void play_check(const char *before, const char *move, const char *after)
{
    tg_state *s = from(before);
    TU_POS(s, before);
    struct ref r;
    ref_from_state(s, &r);
    expect_ref(s, &r, "read back");
    expect_same_options(s, &r, before);
    tg_move m = tu_move(s, move);
    assert_true(tg_state_is_legal(s, m));
    ref_apply(&r, m);
    tu_play(s, move);
    TU_POS(s, after);
    expect_ref(s, &r, before);
    expect_same_options(s, &r, after);
    TU_OK(tg_state_undo(s));
    TU_POS(s, before);
    tg_state_free(s);
    /* The result reads back as an equal state. */
    s = from(before);
    tu_play(s, move);
    tg_state *t = from(after);
    assert_true(tg_state_equal(s, t));
    assert_true(tg_state_hash(s) == tg_state_hash(t));
    tg_state_free(t);
    tg_state_free(s);
}

/* Plays a space-separated list of moves, each checked against the reference model. */
static void play_seq(tg_state *s, struct ref *r, const char *list)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
        expect_same_options(s, r, tok);
        ref_apply(r, tu_move(s, tok));
        tu_play(s, tok);
        expect_ref(s, r, tok);
    }
}

static void expect_over(tg_state *s, int winner)
{
    assert_true(tg_state_is_terminal(s));
    assert_int_equal(tg_state_player(s), TG_TERMINAL);
    assert_int_equal(tg_state_turn(s), TG_TERMINAL);
    assert_int_equal(tg_state_winner(s), winner);
    double ret[2] = {9, 9};
    TU_OK(tg_state_returns(s, ret));
    double want = winner == 0 ? 1.0 : winner == 1 ? -1.0 : 0.0;
    assert_true(ret[0] == want && ret[1] == -want);
    assert_int_equal(tu_moves(s, NULL, 0), 0);
    size_t n = 9;
    TU_OK(tg_state_chance(s, NULL, NULL, 0, &n));
    assert_int_equal(n, 0);
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    TU_STATUS(TG_ERR_GAME_OVER, tg_state_apply(s, throw_move(1)));
    uint64_t rng = 1;
    TU_STATUS(TG_ERR_GAME_OVER, tg_state_apply_random(s, &rng));
    assert_true(rng == 1);
    TU_UNCHANGED(s, &snap, "a move after the end");
    tu_snap_free(&snap);
}

static void start_string(int n, char *buf, size_t cap)
{
    struct ref r;
    ref_init(&r, n);
    ref_string(&r, buf, cap);
}

/* ---- start, options ------------------------------------------------------------------- */

static void test_start(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("tab");
    TU_POS(s, START13);
    tg_state_free(s);
    for (int w = 0; w < 4; w++) {
        int n = widths[w];
        char spec[32], text[TEXT_MAX];
        snprintf(spec, sizeof spec, "tab:width=%d", n);
        tg_rules *rules = tu_rules(spec);
        assert_string_equal(tg_rules_spec(rules), spec);
        assert_string_equal(tg_rules_game_id(rules), "tab");
        assert_int_equal(tg_rules_rows(rules), 4);
        assert_int_equal(tg_rules_cols(rules), n);
        assert_true(tg_rules_max_moves(rules) >= 5);
        tg_rules_free(rules);
        s = tu_new(spec);
        start_string(n, text, sizeof text);
        TU_POS(s, text);
        assert_int_equal(tg_state_player(s), TG_CHANCE);
        assert_int_equal(tg_state_turn(s), 0);
        assert_false(tg_state_is_terminal(s));
        assert_int_equal(tg_state_winner(s), TG_NO_WINNER_YET);
        assert_int_equal(tg_state_score(s, 0), 0);
        assert_int_equal(tg_state_score(s, 1), 0);
        for (int row = 0; row < 4; row++)
            for (int col = 0; col < n; col++) {
                bool home = row == 0 || row == 3;
                assert_int_equal(tg_state_count(s, row, col), home ? 1 : 0);
                assert_int_equal(tg_state_owner(s, row, col), row == 0 ? 0 : row == 3 ? 1 : -1);
                assert_int_equal(tg_state_flags(s, row, col), home ? TG_CELL_LOCKED : 0u);
            }
        assert_int_equal(tg_state_count(s, 0, n), -1);
        assert_int_equal(tg_state_count(s, 4, 0), -1);
        assert_int_equal(tg_state_owner(s, -1, 0), -1);
        assert_int_equal(tg_state_flags(s, 0, n), 0u);
        assert_int_equal(tu_moves(s, NULL, 0), 0);
        struct ref r;
        ref_init(&r, n);
        expect_same_options(s, &r, spec);
        tg_state_free(s);
    }
    /* The catalogue. */
    bool found = false;
    for (size_t i = 0; i < tg_game_count(); i++)
        if (strcmp(tg_game_id(i), "tab") == 0) {
            assert_string_equal(tg_game_name(i), "At-Tab wa-d-Dukk");
            found = true;
        }
    assert_true(found);
}

static void test_options(void **unused)
{
    (void)unused;
    const char *bad[] = {
        "tab:width=14",  "tab:width=12",          "tab:width=",     "tab:width=013", "tab:width=30",
        "tab:width=-13", "tab:width=13,width=13", "tab:colour=red", "tab:quiet=100", "tab:width=0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_rules *r = NULL;
        tg_status st = tg_rules_new(bad[i], &r);
        if (st != TG_ERR_BAD_OPTION)
            TU_FAIL("tg_rules_new(\"%s\") = %d (%s), expected TG_ERR_BAD_OPTION", bad[i], (int)st,
                    tg_status_string(st));
        assert_null(r);
    }
    tg_rules *r = tu_rules("tab");
    assert_string_equal(tg_rules_spec(r), S13);
    tg_rules_free(r);
}

/* ---- the worked examples of rules/tab.md (N = 13) ------------------------------------- */

static void test_example1_lost_throw(void **unused)
{
    (void)unused;
    play_check(START13, "throw:2", S13 " " O13 "/" E13 "/" E13 "/" X13 " c1 0,0 throws=-");
    tg_state *s = tu_new("tab");
    tu_play(s, "throw:2");
    assert_int_equal(tg_state_player(s), TG_CHANCE);
    assert_int_equal(tg_state_turn(s), 1);
    assert_int_equal(tg_state_ply(s), 1);
    tg_state_free(s);
}

#define EX2_DECIDE S13 " " O13 "/" E13 "/" E13 "/" X13 " 0 0,0 throws=1,2,4"
#define EX2_ROW0 "X,X,X,X,X,X,X,X,X,X,X,X,."

static void test_example2_unlock_and_spend(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("tab");
    struct ref r;
    ref_init(&r, 13);
    play_seq(s, &r, "throw:1");
    TU_POS(s, S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=1");
    play_seq(s, &r, "throw:4");
    TU_POS(s, S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=1,4");
    play_seq(s, &r, "throw:2");
    TU_POS(s, EX2_DECIDE);
    expect_moves(s, "m1+1");
    expect_illegal(s, "l1+1");
    play_seq(s, &r, "m1+1");
    TU_POS(s, S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x/" EX2_ROW0 " 0 0,0 throws=2,4");
    assert_int_equal(tg_state_flags(s, 1, 12), 0u);
    assert_int_equal(tg_state_count(s, 1, 12), 1);
    expect_moves(s, "m2+2 m2+4");
    tg_state *other = NULL;
    TU_OK(tg_state_clone(s, &other));
    play_seq(s, &r, "m2+4");
    TU_POS(s, S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,x,.,.,.,./" EX2_ROW0 " 0 0,0 throws=2");
    expect_moves(s, "i2+2");
    play_seq(s, &r, "i2+2");
    const char *end = S13 " " O13 "/" E13 "/.,.,.,.,.,.,x,.,.,.,.,.,./" EX2_ROW0 " c1 0,0 throws=-";
    TU_POS(s, end);
    /* The other order reaches the same cell. */
    struct ref r2;
    ref_from_state(other, &r2);
    play_seq(other, &r2, "m2+2");
    TU_POS(other, S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,x,.,./" EX2_ROW0 " 0 0,0 throws=4");
    play_seq(other, &r2, "k2+4");
    TU_POS(other, end);
    assert_true(tg_state_equal(s, other));
    assert_true(tg_state_hash(s) == tg_state_hash(other));
    tg_state_free(other);
    tg_state_free(s);
    play_check(EX2_DECIDE, "m1+1",
               S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x/" EX2_ROW0 " 0 0,0 throws=2,4");
}

/* Example 3: x on b2 (p = 24), a king o2 on e3 (p = 30) with O on m4; X on a1. */
#define EX3_BEFORE                                                                                 \
    S13 " .,.,.,.,.,.,.,.,.,.,.,.,O/.,.,.,.,o2,.,.,.,.,.,.,.,./.,x,.,.,.,.,.,.,.,.,.,.,./"         \
        "X,.,.,.,.,.,.,.,.,.,.,.,. 0 10,11 throws=6"
#define EX3_AFTER                                                                                  \
    S13 " .,.,.,.,.,.,.,.,.,.,.,.,O/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 "/"                            \
        "X,.,.,.,.,.,.,.,.,.,.,.,. c1 12,11 throws=-"

static void test_example3_capture(void **unused)
{
    (void)unused;
    tg_state *s = from(EX3_BEFORE);
    expect_moves(s, "b2+6");
    assert_int_equal(tg_state_count(s, 2, 4), 2);
    assert_int_equal(tg_state_owner(s, 2, 4), 1);
    tu_play(s, "b2+6");
    assert_int_equal(tg_state_score(s, 0), 10 + 2);
    assert_int_equal(tg_state_count(s, 2, 4), 1);
    assert_int_equal(tg_state_owner(s, 2, 4), 0);
    tg_state_free(s);
    play_check(EX3_BEFORE, "b2+6", EX3_AFTER);
}

#define EX4_BEFORE S13 " " O13 "/.,.,.,x3,.,.,.,.,.,.,.,.,./" E13 "/" E13 " 0 0,10 throws=2"

static void test_example4_king_split(void **unused)
{
    (void)unused;
    tg_state *s = from(EX4_BEFORE);
    expect_moves(s, "d3+2 d3+2x2");
    assert_true(tu_move(s, "d3+2") == mk(29, 2, 3));
    assert_true(tu_move(s, "d3+2x2") == mk(29, 2, 2));
    tg_state_free(s);
    play_check(EX4_BEFORE, "d3+2",
               S13 " " O13 "/.,.,.,.,.,x3,.,.,.,.,.,.,./" E13 "/" E13 " c1 0,10 throws=-");
    play_check(EX4_BEFORE, "d3+2x2",
               S13 " " O13 "/.,.,.,x,.,x2,.,.,.,.,.,.,./" E13 "/" E13 " c1 0,10 throws=-");
}

#define EX5_BEFORE                                                                                 \
    S13 " O,O,x,O,O,O,O,O,O,O,O,O,O/" E13 "/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 " 0 1,11 throws=2"

static void test_example5_opponents_row(void **unused)
{
    (void)unused;
    tg_state *s = from(EX5_BEFORE);
    expect_moves(s, "e2+2");
    expect_illegal(s, "c4+2");
    tg_state_free(s);
    play_check(EX5_BEFORE, "e2+2",
               S13 " O,O,x,O,O,O,O,O,O,O,O,O,O/" E13 "/.,.,x,.,.,.,.,.,.,.,.,.,./" E13
                   " c1 1,11 throws=-");
    /* With only a locked piece outside, which cannot use a 2, c4 moves (and captures a4). */
    const char *locked =
        S13 " O,O,x,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13 "/X,.,.,.,.,.,.,.,.,.,.,.,. 0 1,11 throws=2";
    tg_state *t = from(locked);
    expect_moves(t, "c4+2");
    tg_state_free(t);
    play_check(locked, "c4+2",
               S13 " x,O,.,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13
                   "/X,.,.,.,.,.,.,.,.,.,.,.,. c1 2,11 throws=-");
}

/* Example 6: x on j1, X on l1, k1 empty; x on f2 can use the 4. */
#define EX6_ROW0 "X,X,X,X,X,X,X,X,X,x,.,X,X"
#define EX6_ROW1 ".,.,.,.,.,x,.,.,.,.,.,.,."

static void test_example6_home_row(void **unused)
{
    (void)unused;
    const char *four = S13 " " O13 "/" E13 "/" EX6_ROW1 "/" EX6_ROW0 " 0 0,0 throws=4";
    tg_state *s = from(four);
    expect_moves(s, "f2+4");
    expect_illegal(s, "j1+4");
    tg_state_free(s);
    /* Without a unit that can use the 4 the decision state cannot exist. */
    tu_from_fails(TG_ERR_PARSE, S13, S13 " " O13 "/" E13 "/" E13 "/" EX6_ROW0 " 0 0,1 throws=4");
    /* With a stored 1 as well: j1+1 is legal, j1+4 still is not. */
    const char *both = S13 " " O13 "/" E13 "/" EX6_ROW1 "/" EX6_ROW0 " 0 0,0 throws=1,4";
    s = from(both);
    expect_moves(s, "j1+1 m1+1 f2+1 f2+4");
    assert_false(tg_state_is_legal(s, tu_move(s, "j1+4")));
    assert_false(tg_state_is_legal(s, tu_move(s, "l1+1")));
    tg_state_free(s);
    play_check(both, "j1+1",
               S13 " " O13 "/" E13 "/" EX6_ROW1 "/X,X,X,X,X,X,X,X,X,.,x,X,X 0 0,0 throws=4");
    /* k1 now passes l1 and m1 with the 4: still only f2 can use it. */
    s = from(both);
    tu_play(s, "j1+1");
    expect_moves(s, "f2+4");
    expect_illegal(s, "k1+4");
    tg_state_free(s);
    play_check(four, "f2+4",
               S13 " " O13 "/" E13 "/.,x,.,.,.,.,.,.,.,.,.,.,./" EX6_ROW0 " c1 0,0 throws=-");
}

/* ---- the tracks ------------------------------------------------------------------------- */

static void test_tracks(void **unused)
{
    (void)unused;
    for (int w = 0; w < 4; w++) {
        int n = widths[w];
        const struct tracks *t = ref_tracks(n);
        char last[8];
        col_name(n - 1, last);
        /* The cells either side of each row turn, and the last cell, named. */
        const int at[7] = {n - 1, n, 2 * n - 1, 2 * n, 3 * n - 1, 3 * n, 4 * n - 1};
        char turns[2][7][16];
        snprintf(turns[0][0], 16, "%s1", last);
        snprintf(turns[0][1], 16, "%s2", last);
        snprintf(turns[0][2], 16, "a2");
        snprintf(turns[0][3], 16, "a3");
        snprintf(turns[0][4], 16, "%s3", last);
        snprintf(turns[0][5], 16, "%s4", last);
        snprintf(turns[0][6], 16, "a4");
        snprintf(turns[1][0], 16, "a4");
        snprintf(turns[1][1], 16, "a3");
        snprintf(turns[1][2], 16, "%s3", last);
        snprintf(turns[1][3], 16, "%s2", last);
        snprintf(turns[1][4], 16, "a2");
        snprintf(turns[1][5], 16, "a1");
        snprintf(turns[1][6], 16, "%s1", last);
        for (int p = 0; p < 2; p++) {
            /* The track starts on the first cell of the home row. */
            char name[8];
            cell_name(n, t->cell[p][0], name);
            assert_string_equal(name, p ? (n == 29   ? "ac4"
                                           : n == 21 ? "u4"
                                           : n == 19 ? "s4"
                                                     : "m4")
                                        : "a1");
            for (int k = 0; k < 7; k++) {
                cell_name(n, t->cell[p][at[k]], name);
                assert_string_equal(name, turns[p][k]);
            }
            for (int q = 0; q < 4 * n; q++) {
                int cell = t->cell[p][q];
                struct ref r;
                ref_empty(&r, n);
                ref_put(&r, cell, p, 1, false);
                r.side = p;
                r.phase = R_DECIDE;
                r.stored[1] = 1;
                int avoid[3] = {cell, q + 1 < 4 * n ? t->cell[p][q + 1] : -1,
                                q + 6 < 4 * n ? t->cell[p][q + 6] : -1};
                if (q == 4 * n - 1) {
                    /* Nothing can move from the last cell: a second piece gives the decision. */
                    ref_put(&r, t->cell[p][3 * n], p, 1, false);
                    avoid[1] = t->cell[p][3 * n];
                    avoid[2] = t->cell[p][3 * n + 1];
                } else {
                    r.stored[6] = 1;
                }
                /* The opponent's one piece on a central cell out of the way. */
                for (int c = n; c < 2 * n; c++)
                    if (c != avoid[0] && c != avoid[1] && c != avoid[2]) {
                        ref_put(&r, c, 1 - p, 1, false);
                        break;
                    }
                r.score[p] = n - 1;
                r.score[1 - p] = n - ref_pieces(&r, p);
                char text[TEXT_MAX];
                tg_state *s = ref_state(&r, text, sizeof text);
                TU_POS(s, text);
                expect_same_options(s, &r, text);
                char here[8], mv[16];
                cell_name(n, cell, here);
                snprintf(mv, sizeof mv, "%s+1", here);
                if (q == 4 * n - 1) {
                    /* The end: no move past it. */
                    expect_illegal(s, mv);
                    tg_state_free(s);
                    continue;
                }
                tg_move list[8];
                size_t count = tu_moves(s, list, 8);
                assert_int_equal(count, q + 6 < 4 * n ? 2 : 1);
                char got[16];
                TU_OK(tg_move_to_string(s, list[0], got, sizeof got, NULL));
                assert_string_equal(got, mv);
                if (q + 6 >= 4 * n) {
                    snprintf(mv, sizeof mv, "%s+6", here);
                    expect_illegal(s, mv);
                    snprintf(mv, sizeof mv, "%s+1", here);
                }
                struct ref after = r;
                ref_apply(&after, tu_move(s, mv));
                tu_play(s, mv);
                expect_ref(s, &after, text);
                int next = t->cell[p][q + 1];
                assert_int_equal(tg_state_owner(s, next / n, next % n), p);
                assert_int_equal(tg_state_count(s, next / n, next % n), 1);
                assert_int_equal(tg_state_owner(s, cell / n, cell % n), -1);
                TU_OK(tg_state_undo(s));
                if (q + 6 < 4 * n) {
                    snprintf(mv, sizeof mv, "%s+6", here);
                    after = r;
                    ref_apply(&after, tu_move(s, mv));
                    tu_play(s, mv);
                    expect_ref(s, &after, text);
                    int six = t->cell[p][q + 6];
                    assert_int_equal(tg_state_owner(s, six / n, six % n), p);
                }
                tg_state_free(s);
            }
        }
    }
}

/* ---- the throwing sticks ---------------------------------------------------------------- */

static void expect_throw_outcomes(const tg_state *s)
{
    tg_move out[16];
    double probs[16];
    size_t n = (size_t)-1;
    TU_OK(tg_state_chance(s, out, probs, 16, &n));
    assert_int_equal(n, 5);
    static const tg_move want[5] = {0x01000001u, 0x01000002u, 0x01000003u, 0x01000004u,
                                    0x01000006u};
    double sum = 0;
    for (size_t i = 0; i < 5; i++) {
        assert_true(out[i] == want[i]);
        assert_true(probs[i] == throw_probs[i]);
        sum += probs[i];
    }
    assert_true(sum == 1.0);
    assert_true(probs[0] == 0.25 && probs[1] == 0.375 && probs[3] == 0.0625);
    assert_int_equal(tg_state_player(s), TG_CHANCE);
    assert_int_equal(tu_moves(s, NULL, 0), 0);
}

static void test_chance(void **unused)
{
    (void)unused;
    tg_state *s = tu_new("tab");
    struct ref r;
    ref_init(&r, 13);
    expect_throw_outcomes(s);
    /* 1, 4 and 6 throw again, in ascending order in the string; a 3 ends the throwing. */
    static const char *const seq[] = {"throw:6", "throw:1", "throw:4", "throw:1", "throw:6"};
    static const char *const stored[] = {"6", "1,6", "1,4,6", "1,1,4,6", "1,1,4,6,6"};
    for (int i = 0; i < 5; i++) {
        play_seq(s, &r, seq[i]);
        char want[512];
        snprintf(want, sizeof want, S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=%s",
                 stored[i]);
        TU_POS(s, want);
        expect_throw_outcomes(s);
        assert_int_equal(tg_state_turn(s), 0);
    }
    play_seq(s, &r, "throw:3");
    TU_POS(s, S13 " " O13 "/" E13 "/" E13 "/" X13 " 0 0,0 throws=1,1,3,4,6,6");
    assert_int_equal(tg_state_player(s), 0);
    assert_int_equal(tg_state_turn(s), 0);
    size_t count = 9;
    TU_OK(tg_state_chance(s, NULL, NULL, 0, &count));
    assert_int_equal(count, 0);
    expect_moves(s, "m1+1");
    /* A chance outcome at a decision state, a decision at a chance state: illegal. */
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    for (int i = 0; i < 5; i++) {
        assert_false(tg_state_is_legal(s, throw_move(throw_values[i])));
        TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(s, throw_move(throw_values[i])));
    }
    TU_UNCHANGED(s, &snap, "a throw at a decision state");
    tu_snap_free(&snap);
    tg_state *c = tu_new("tab");
    tu_snap_take(c, &snap);
    const tg_move not_now[] = {mk(12, 1, 1), mk(12, 2, 1), 0x01000005u, 0x01000000u,
                               0x01000007u,  0x02000001u,  0x01000101u, TG_MOVE_PASS};
    for (size_t i = 0; i < sizeof not_now / sizeof not_now[0]; i++) {
        assert_false(tg_state_is_legal(c, not_now[i]));
        TU_STATUS(TG_ERR_ILLEGAL_MOVE, tg_state_apply(c, not_now[i]));
    }
    TU_UNCHANGED(c, &snap, "a decision at a chance state");
    tu_snap_free(&snap);
    tg_state_free(c);
    /* Spending one at a time, in any order: m2 then walks 3 + 4 + 6 to a3; l1 takes the 1. */
    play_seq(s, &r, "m1+1");
    TU_POS(s, S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x/" EX2_ROW0 " 0 0,0 throws=1,3,4,6,6");
    expect_moves(s, "l1+1 m2+1 m2+3 m2+4 m2+6");
    tg_state *b = NULL;
    TU_OK(tg_state_clone(s, &b));
    struct ref rb = r;
    play_seq(s, &r, "m2+3 j2+4 f2+6");
    TU_POS(s, S13 " " O13 "/x,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" EX2_ROW0 " 0 0,0 throws=1,6");
    expect_moves(s, "l1+1 a3+1 a3+6");
    play_seq(s, &r, "l1+1");
    expect_moves(s, "a3+6 m1+6");
    /* a3 + 6 = g3: the last throw is spent and the turn passes. */
    play_seq(s, &r, "a3+6");
    const char *end =
        S13 " " O13 "/.,.,.,.,.,.,x,.,.,.,.,.,./" E13 "/X,X,X,X,X,X,X,X,X,X,X,.,x c1 0,0 throws=-";
    TU_POS(s, end);
    play_seq(b, &rb, "m2+6 l1+1 g2+4 c2+3 a3+6");
    TU_POS(b, end);
    assert_true(tg_state_equal(s, b));
    tg_state_free(b);
    tg_state_free(s);
    /* Throws that can no longer be used are lost, inside the apply that spends the last
     * usable one: c4 + 1 = b4, and the 4 would go past a4. */
    play_check(S13 " .,.,x,.,.,.,.,.,.,.,.,.,./" E13 "/.,.,.,.,o,.,.,.,.,.,.,.,./" E13
                   " 0 12,12 throws=1,4",
               "c4+1",
               S13 " .,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/.,.,.,.,o,.,.,.,.,.,.,.,./" E13
                   " c1 12,12 throws=-");
    /* None usable at all: the locked pieces cannot use a 4, a 6 or a 2. */
    s = tu_new("tab");
    ref_init(&r, 13);
    play_seq(s, &r, "throw:4 throw:6 throw:2");
    TU_POS(s, S13 " " O13 "/" E13 "/" E13 "/" X13 " c1 0,0 throws=-");
    assert_int_equal(tg_state_ply(s), 3);
    assert_int_equal(tg_state_turn(s), 1);
    expect_throw_outcomes(s);
    /* Player 1's turn the same way: a4 is their front piece. */
    play_seq(s, &r, "throw:1 throw:3");
    TU_POS(s, S13 " " O13 "/" E13 "/" E13 "/" X13 " 1 0,0 throws=1,3");
    expect_moves(s, "a4+1");
    play_seq(s, &r, "a4+1");
    TU_POS(s, S13 " .,O,O,O,O,O,O,O,O,O,O,O,O/o,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" X13
                  " 1 0,0 throws=3");
    play_seq(s, &r, "a3+3");
    TU_POS(s, S13 " .,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,o,.,.,.,.,.,.,.,.,./" E13 "/" X13
                  " c0 0,0 throws=-");
    tg_state_free(s);
    /* A store holds at most 255 throws of one value. */
    char text[TEXT_MAX], want[TEXT_MAX];
    size_t len = 0;
    text[0] = '\0';
    app(text, sizeof text, &len, S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=1");
    for (int i = 1; i < 255; i++)
        app(text, sizeof text, &len, ",1");
    s = from(text);
    tu_play(s, "throw:1");
    TU_POS(s, text);
    tu_play(s, "throw:4");
    size_t wlen = 0;
    want[0] = '\0';
    app(want, sizeof want, &wlen, text);
    app(want, sizeof want, &wlen, ",4");
    TU_POS(s, want);
    tg_state_free(s);
    wlen = 0;
    app(want, sizeof want, &wlen, text);
    app(want, sizeof want, &wlen, ",1");
    tu_from_fails(TG_ERR_PARSE, S13, want);
}

/* The documented chance draw: the top 53 bits as a fraction, against the running sum. */
static tg_move pick_outcome(uint64_t *rng, const tg_move *out, const double *probs, int n)
{
    double u = (double)(tu_splitmix64(rng) >> 11) * (1.0 / 9007199254740992.0);
    double sum = 0;
    for (int i = 0; i + 1 < n; i++) {
        sum += probs[i];
        if (u < sum)
            return out[i];
    }
    return out[n - 1];
}

/* ---- a seeded game ---------------------------------------------------------------------- */

#define SEED 20240611u
/* The game tg_state_apply_random plays from the width-13 start with this seed: pinned once
 * from the library, after the reference model (drawing with the documented generator) had
 * replayed it move for move; it ends with player 1 taking player 0's last piece. */
#define SEED_PLIES 393
#define SEED_HASH UINT64_C(0xaa10e0c3b8a994f7)
#define SEED_FINAL                                                                                 \
    S13 " .,.,.,.,.,o,.,.,.,.,.,.,./" E13 "/" E13 "/.,.,.,.,o,.,.,.,o,.,.,.,. - 10,13 throws=- "   \
        "winner=1"

static tg_state *seeded_game(uint64_t seed, const char *spec)
{
    tg_state *s = tu_new(spec);
    uint64_t rng = seed;
    while (!tg_state_is_terminal(s))
        TU_OK(tg_state_apply_random(s, &rng));
    return s;
}

static void test_seeded_game(void **unused)
{
    (void)unused;
    tg_state *a = seeded_game(SEED, "tab");
    tg_state *b = seeded_game(SEED, "tab");
    size_t na = tu_history_len(a), nb = tu_history_len(b);
    assert_int_equal(na, nb);
    assert_int_equal(na, tg_state_ply(a));
    tg_move *ha = malloc(na * sizeof *ha), *hb = malloc(nb * sizeof *hb);
    assert_non_null(ha);
    assert_non_null(hb);
    size_t k = 0;
    TU_OK(tg_state_history(a, ha, na, &k));
    TU_OK(tg_state_history(b, hb, nb, &k));
    assert_memory_equal(ha, hb, na * sizeof *ha);
    char *ta = tu_str(a), *tb = tu_str(b);
    assert_string_equal(ta, tb);
    print_message("# seed %u: %zu plies, hash 0x%016" PRIx64 "\n# %s\n", SEED, na, tg_state_hash(a),
                  ta);
    assert_int_equal(na, SEED_PLIES);
    assert_true(tg_state_hash(a) == SEED_HASH);
    assert_string_equal(ta, SEED_FINAL);
    /* The reference model, drawing with the documented generator, plays the same game. */
    struct ref r;
    ref_init(&r, 13);
    uint64_t mine = SEED;
    for (size_t i = 0; i < na; i++) {
        tg_move list[512];
        double probs[8];
        tg_move mv;
        if (r.phase == R_CHANCE) {
            int cnt = ref_chance(&r, list, probs);
            mv = pick_outcome(&mine, list, probs, cnt);
        } else {
            int cnt = ref_moves(&r, list);
            assert_true(cnt > 0);
            mv = list[tu_uniform_below(&mine, (uint32_t)cnt)];
        }
        assert_true(mv == ha[i]);
        ref_apply(&r, mv);
    }
    assert_int_equal(r.phase, R_OVER);
    expect_ref(a, &r, "seeded game");
    /* Replaying the history by hand gives the same game; a playout with the seed too. */
    tg_state *c = tu_new("tab");
    for (size_t i = 0; i < na; i++)
        TU_OK(tg_state_apply(c, ha[i]));
    assert_true(tg_state_equal(a, c));
    tg_state_free(c);
    c = tu_new("tab");
    uint64_t rng = SEED;
    size_t plies = 0;
    TU_OK(tg_state_playout(c, &rng, 1000000, &plies));
    assert_int_equal(plies, na);
    assert_true(tg_state_equal(a, c));
    tg_state_free(c);
    /* A different seed, a different game. */
    c = seeded_game(SEED + 1, "tab");
    assert_false(tg_state_hash(c) == tg_state_hash(a) && tg_state_ply(c) == na);
    tg_state_free(c);
    free(ta);
    free(tb);
    free(ha);
    free(hb);
    tg_state_free(a);
    tg_state_free(b);
}

/* ---- movement rules --------------------------------------------------------------------- */

static void test_locked(void **unused)
{
    (void)unused;
    /* A locked piece uses only a 1, moves one step, and is unlocked for good. */
    const char *p = S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,x,./"
                        "X,X,X,X,X,X,X,X,X,X,X,.,X 0 0,0 throws=1,3,4,6";
    tg_state *s = from(p);
    expect_moves(s, "k1+1 m1+1 l2+1 l2+3 l2+4 l2+6");
    assert_int_equal(tg_state_flags(s, 0, 12), TG_CELL_LOCKED);
    assert_false(tg_state_is_legal(s, tu_move(s, "m1+3")));
    assert_false(tg_state_is_legal(s, tu_move(s, "m1+4")));
    assert_false(tg_state_is_legal(s, tu_move(s, "m1+6")));
    tu_play(s, "m1+1");
    assert_int_equal(tg_state_flags(s, 1, 12), 0u);
    assert_int_equal(tg_state_owner(s, 1, 12), 0);
    /* Unlocked, it may now use any value (still with the others' restrictions). */
    expect_moves(s, "l2+3 l2+4 l2+6 m2+3 m2+4 m2+6");
    tg_state_free(s);
    play_check(p, "m1+1",
               S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,x,x/"
                   "X,X,X,X,X,X,X,X,X,X,X,.,. 0 0,0 throws=3,4,6");
    /* k1 onto the empty l1: one step, still in the home row, unlocked. */
    play_check(p, "k1+1",
               S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,x,./"
                   "X,X,X,X,X,X,X,X,X,X,.,x,X 0 0,0 throws=3,4,6");
    /* A 2 or 3 is never usable by locked pieces: the throw is lost at once. */
    s = from(S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=1,1,4,6");
    expect_throw_outcomes(s);
    tu_play(s, "throw:3");
    TU_POS(s, S13 " " O13 "/" E13 "/" E13 "/" X13 " 0 0,0 throws=1,1,3,4,6");
    expect_moves(s, "m1+1");
    tg_state_free(s);
    /* Player 1: a4 is unlocked into a3; the locked b4 can then follow onto a4. */
    play_check(S13 " O,O,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 "/" X13 " 1 11,0 throws=1,1,2", "a4+1",
               S13 " .,O,.,.,.,.,.,.,.,.,.,.,./o,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" X13
                   " 1 11,0 throws=1,2");
    s = from(S13 " O,O,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 "/" X13 " 1 11,0 throws=1,1,2");
    expect_moves(s, "a4+1");
    tu_play(s, "a4+1");
    expect_moves(s, "a3+1 a3+2 b4+1");
    tu_play(s, "b4+1");
    TU_POS(s, S13 " o,.,.,.,.,.,.,.,.,.,.,.,./o,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" X13
                  " 1 11,0 throws=2");
    assert_int_equal(tg_state_flags(s, 3, 0), 0u);
    tg_state_free(s);
}

static void test_home_row(void **unused)
{
    (void)unused;
    /* Passing the opponent's pieces in one's home row is allowed: j1 + 4 over o on l1. */
    play_check(S13 " O,O,O,O,O,O,O,O,O,O,O,O,./" E13 "/" E13
                   "/.,.,.,.,.,.,.,.,.,x,.,o,. 0 0,12 throws=4",
               "j1+4",
               S13 " O,O,O,O,O,O,O,O,O,O,O,O,./" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x/"
                   ".,.,.,.,.,.,.,.,.,.,.,o,. c1 0,12 throws=-");
    /* Own pieces outside the home row may be passed: e2 + 3 over d2 and c2. */
    play_check(S13 " " O13 "/" E13 "/.,.,x,x,x,.,.,.,.,.,.,.,./" E13 " 0 0,10 throws=3", "e2+3",
               S13 " " O13 "/" E13 "/.,x,x,x,.,.,.,.,.,.,.,.,./" E13 " c1 0,10 throws=-");
    /* From the home row over own pieces in row 1: l1 + 3 passes m1 (empty) and m2. */
    play_check(S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x/X,.,.,.,.,.,.,.,.,.,.,x,. 0 0,10 "
                   "throws=3",
               "l1+3",
               S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,x,x/X,.,.,.,.,.,.,.,.,.,.,.,. c1 0,10 "
                   "throws=-");
    /* But not over own pieces in the home row, locked or not, nor onto one there. */
    tg_state *s = from(S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,x,./"
                           "X,.,.,.,x,.,x,.,.,.,.,.,. 0 0,9 throws=1,2,4,6");
    expect_moves(s, "a1+1 e1+1 g1+1 g1+2 g1+4 g1+6 l2+1 l2+2 l2+4 l2+6");
    expect_illegal(s, "e1+2");
    expect_illegal(s, "e1+4");
    expect_illegal(s, "e1+6");
    tg_state_free(s);
    /* Player 1's home row the same way: d4 + 4 would pass b4 (locked); d4 + 1 is fine. */
    s = from(S13 " .,O,.,o,.,.,.,.,.,.,.,.,./" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x/" E13
                 " 1 11,12 throws=1,4");
    expect_moves(s, "b4+1 d4+1");
    expect_illegal(s, "d4+4");
    tg_state_free(s);
}

static void test_join(void **unused)
{
    (void)unused;
    /* Two singles make a king; a single and a king grow it; two kings merge. */
    const char *p = S13 " " O13 "/x2,.,.,.,.,.,.,.,.,.,.,.,./.,.,x2,x,x,.,.,.,.,.,.,.,./" E13
                        " 0 0,7 throws=1,1,2";
    tg_state *s = from(p);
    expect_moves(s, "a3+1 a3+1x1 a3+2 c2+1 c2+1x1 c2+2 d2+1 d2+2 e2+1 e2+2");
    assert_true(tu_move(s, "a3+1x1") == mk(26, 1, 1));
    expect_illegal(s, "a3+2x1");
    expect_illegal(s, "c2+2x1");
    tg_state_free(s);
    play_check(p, "e2+1",
               S13 " " O13 "/x2,.,.,.,.,.,.,.,.,.,.,.,./.,.,x2,x2,.,.,.,.,.,.,.,.,./" E13
                   " 0 0,7 throws=1,2");
    play_check(p, "d2+1",
               S13 " " O13 "/x2,.,.,.,.,.,.,.,.,.,.,.,./.,.,x3,.,x,.,.,.,.,.,.,.,./" E13
                   " 0 0,7 throws=1,2");
    s = from(p);
    tu_play(s, "d2+1");
    tu_play(s, "e2+2");
    TU_POS(s, S13 " " O13 "/x2,.,.,.,.,.,.,.,.,.,.,.,./.,.,x4,.,.,.,.,.,.,.,.,.,./" E13
                  " 0 0,7 throws=1");
    assert_int_equal(tg_state_count(s, 1, 2), 4);
    assert_int_equal(tg_state_owner(s, 1, 2), 0);
    tu_play(s, "c2+1x1");
    TU_POS(s, S13 " " O13 "/x2,.,.,.,.,.,.,.,.,.,.,.,./.,x,x3,.,.,.,.,.,.,.,.,.,./" E13
                  " c1 0,7 throws=-");
    tg_state_free(s);
    /* Across the row 1 - row 2 turn (a2 to a3): both central. */
    play_check(S13 " " O13 "/x,.,.,.,.,.,.,.,.,.,.,.,./x,.,.,.,.,.,.,.,.,.,.,.,./" E13
                   " 0 0,11 throws=1",
               "a2+1", S13 " " O13 "/x2,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 " c1 0,11 throws=-");
    /* Not in the opponent's row: d4 + 2 onto b4 is illegal. */
    s = from(S13 " O,x,O,x,O,O,O,O,O,O,O,O,O/" E13 "/" E13 "/" E13 " 0 2,11 throws=1,2");
    expect_moves(s, "b4+1 d4+1");
    expect_illegal(s, "d4+2");
    expect_illegal(s, "b4+2");
    tg_state_free(s);
    /* Player 1 joins in row 1 (b2 + 1 onto a2), not in row 0 (its opponent's row). */
    s = from(S13 " " E13 "/" E13 "/o,o,.,.,.,.,.,.,.,.,.,.,./.,o,.,o,.,.,.,.,.,.,.,.,x 1 9,12 "
                 "throws=1,2");
    expect_moves(s, "a2+1 b2+1 b2+2");
    expect_illegal(s, "a2+2");
    expect_illegal(s, "d1+1");
    tg_state_free(s);
    play_check(S13 " " E13 "/" E13 "/o,o,.,.,.,.,.,.,.,.,.,.,./.,o,.,o,.,.,.,.,.,.,.,.,x 1 9,12 "
                   "throws=1,2",
               "b2+1",
               S13 " " E13 "/" E13 "/o2,.,.,.,.,.,.,.,.,.,.,.,./.,o,.,o,.,.,.,.,.,.,.,.,x 1 9,12 "
                   "throws=2");
    s = from(S13 " " E13 "/" E13 "/" E13 "/.,o,.,o,.,.,.,.,.,.,.,.,x 1 11,12 throws=2");
    expect_moves(s, "d1+2");
    expect_illegal(s, "b1+2");
    tg_state_free(s);
}

static void test_capture(void **unused)
{
    (void)unused;
    /* A single piece: one point. */
    play_check(S13 " O,O,O,O,O,O,O,O,O,O,O,O,./" E13 "/.,.,.,o,.,x,.,.,.,.,.,.,./" E13
                   " 0 0,12 throws=2",
               "f2+2",
               S13 " O,O,O,O,O,O,O,O,O,O,O,O,./" E13 "/.,.,.,x,.,.,.,.,.,.,.,.,./" E13
                   " c1 1,12 throws=-");
    /* A whole king: one point a piece. */
    play_check(S13 " O,O,O,O,O,O,O,O,.,.,.,.,./" E13 "/.,.,.,.,.,.,o5,.,.,.,.,.,x/" E13
                   " 0 0,12 throws=6",
               "m2+6",
               S13 " O,O,O,O,O,O,O,O,.,.,.,.,./" E13 "/.,.,.,.,.,.,x,.,.,.,.,.,./" E13
                   " c1 5,12 throws=-");
    /* A king captures as a whole or with a part: x3 on d3 onto o2 on f3. */
    const char *k = S13 " " O11 "/.,.,.,x3,.,o2,.,.,.,.,.,.,./" E13 "/" E13 " 0 0,10 throws=2";
    tg_state *s = from(k);
    expect_moves(s, "d3+2 d3+2x2");
    tg_state_free(s);
    play_check(k, "d3+2",
               S13 " " O11 "/.,.,.,.,.,x3,.,.,.,.,.,.,./" E13 "/" E13 " c1 2,10 "
                   "throws=-");
    play_check(k, "d3+2x2",
               S13 " " O11 "/.,.,.,x,.,x2,.,.,.,.,.,.,./" E13 "/" E13 " c1 2,10 "
                   "throws=-");
    /* A locked piece in the opponent's home row is captured like any other. */
    play_check(S13 " O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,.,.,.,x/" E13 "/" E13
                   " 0 0,12 throws=1",
               "m3+1", S13 " O,O,O,O,O,O,O,O,O,O,O,O,x/" E13 "/" E13 "/" E13 " c1 1,12 throws=-");
    /* Player 1 captures a locked piece of player 0 on a1, from a2: one point. */
    play_check(S13 " " E13 "/" E13 "/o,.,.,.,.,.,.,.,.,.,.,.,./" X13 " 1 12,0 throws=1", "a2+1",
               S13 " " E13 "/" E13 "/" E13 "/o,X,X,X,X,X,X,X,X,X,X,X,X c0 12,1 throws=-");
}

static void test_kings(void **unused)
{
    (void)unused;
    /* A king of 5 on e2 (p = 21): whole with every value, split with 1, 2 and 4, not 6. */
    const char *p = S13 " " O13 "/" E13 "/.,.,.,.,x5,.,.,.,.,.,.,.,./" E13 " 0 0,8 throws=1,2,4,6";
    tg_state *s = from(p);
    expect_moves(s, "e2+1 e2+1x1 e2+2 e2+2x2 e2+4 e2+4x4 e2+6");
    assert_false(tg_state_is_legal(s, mk(17, 6, 6)));
    assert_false(tg_state_is_legal(s, mk(17, 6, 1)));
    assert_false(tg_state_is_legal(s, mk(17, 2, 1)));
    assert_false(tg_state_is_legal(s, mk(17, 2, 3)));
    tg_state_free(s);
    play_check(p, "e2+6",
               S13 " " O13 "/.,x5,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 " 0 0,8 throws=1,2,4");
    play_check(p, "e2+4x4",
               S13 " " O13 "/" E13 "/x4,.,.,.,x,.,.,.,.,.,.,.,./" E13 " 0 0,8 throws=1,2,6");
    play_check(p, "e2+2x2",
               S13 " " O13 "/" E13 "/.,.,x2,.,x3,.,.,.,.,.,.,.,./" E13 " 0 0,8 throws=1,4,6");
    play_check(p, "e2+1x1",
               S13 " " O13 "/" E13 "/.,.,.,x,x4,.,.,.,.,.,.,.,./" E13 " 0 0,8 throws=2,4,6");
    /* A king of 2: no split with a 2 or more (that would move the whole king). */
    s = from(S13 " " O13 "/" E13 "/.,.,.,.,x2,.,.,.,.,.,.,.,./" E13 " 0 0,11 throws=1,3,4,6");
    expect_moves(s, "e2+1 e2+1x1 e2+3 e2+4 e2+6");
    assert_false(tg_state_is_legal(s, mk(17, 3, 3)));
    assert_false(tg_state_is_legal(s, mk(17, 4, 4)));
    assert_false(tg_state_is_legal(s, mk(17, 6, 6)));
    assert_true(tu_move(s, "e2+3x2") == tu_move(s, "e2+3"));
    tg_state_free(s);
    /* A king walks into the opponent's row whole, and moves on there. */
    play_check(S13 " O,O,O,O,O,O,O,O,O,O,O,O,./.,.,.,.,.,.,.,.,.,.,.,.,x2/" E13 "/" E13
                   " 0 1,11 throws=1",
               "m3+1", S13 " O,O,O,O,O,O,O,O,O,O,O,O,x2/" E13 "/" E13 "/" E13 " c1 1,11 throws=-");
    play_check(S13 " .,.,.,.,.,.,.,.,.,.,.,O,O/.,.,.,.,.,.,.,.,.,.,.,.,x2/" E13 "/" E13
                   " 0 11,11 throws=1",
               "m3+1", S13 " .,.,.,.,.,.,.,.,.,.,.,O,x2/" E13 "/" E13 "/" E13 " c1 12,11 throws=-");
    play_check(S13 " .,.,.,.,.,.,.,.,.,.,x2,O,O/" E13 "/" E13 "/" E13 " 0 11,11 throws=2", "k4+2",
               S13 " .,.,.,.,.,.,.,.,x2,.,.,O,O/" E13 "/" E13 "/" E13 " c1 11,11 throws=-");
    /* Player 1's king of 3 on b2 splits one off with a 1 and two with a 2. */
    const char *q = S13 " " E13 "/" E13 "/.,o3,.,.,.,.,.,.,.,.,.,.,./" X13 " 1 10,0 throws=1,2";
    s = from(q);
    expect_moves(s, "b2+1 b2+1x1 b2+2 b2+2x2");
    tg_state_free(s);
    play_check(q, "b2+2x2",
               S13 " " E13 "/" E13 "/.,o,.,.,.,.,.,.,.,.,.,.,./o2,X,X,X,X,X,X,X,X,X,X,X,X 1 10,1 "
                   "throws=1");
}

static void test_opponents_row(void **unused)
{
    (void)unused;
    /* Any stored value counts: a1 can use the 1, so c4 can use neither. */
    const char *p = S13 " O,O,x,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13
                        "/X,.,.,.,.,.,.,.,.,.,.,.,. 0 1,11 throws=1,2";
    tg_state *s = from(p);
    expect_moves(s, "a1+1");
    expect_illegal(s, "c4+1");
    expect_illegal(s, "c4+2");
    tu_play(s, "a1+1");
    TU_POS(s, S13 " O,O,x,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13
                  "/.,x,.,.,.,.,.,.,.,.,.,.,. 0 1,11 throws=2");
    expect_moves(s, "b1+2");
    expect_illegal(s, "c4+2");
    tu_play(s, "b1+2");
    TU_POS(s, S13 " O,O,x,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13
                  "/.,.,.,x,.,.,.,.,.,.,.,.,. c1 1,11 throws=-");
    tg_state_free(s);
    /* When the units outside cannot move (the locked a1 with a 2, 4 and 6), those inside
     * may, kings included. */
    const char *inside = S13 " O,.,x3,.,x,O,O,O,O,O,O,O,O/" E13 "/" E13
                             "/X,.,.,.,.,.,.,.,.,.,.,.,. 0 4,8 throws=2,4";
    s = from(inside);
    expect_moves(s, "c4+2 c4+2x2 e4+4");
    expect_illegal(s, "e4+2");
    tg_state_free(s);
    play_check(inside, "e4+4",
               S13 " x,.,x3,.,.,O,O,O,O,O,O,O,O/" E13 "/" E13
                   "/X,.,.,.,.,.,.,.,.,.,.,.,. c1 5,8 throws=-");
    play_check(inside, "c4+2x2",
               S13 " x2,.,x,.,x,O,O,O,O,O,O,O,O/" E13 "/" E13
                   "/X,.,.,.,.,.,.,.,.,.,.,.,. c1 5,8 throws=-");
    /* Player 1: units in row 0 wait for the others. */
    s = from(S13 " " E13 "/.,.,.,.,.,.,.,.,.,.,.,.,o/" E13 "/X,X,o,X,X,X,X,X,X,X,X,X,X 1 11,1 "
                 "throws=2");
    expect_moves(s, "m3+2");
    expect_illegal(s, "c1+2");
    tg_state_free(s);
}

static void test_board_queries(void **unused)
{
    (void)unused;
    tg_state *s = from(S13 " O,.,.,.,.,.,.,.,.,.,.,.,./.,o,.,.,.,.,.,.,.,.,.,.,x4/" E13
                           "/X,x,o3,.,.,.,.,.,.,.,.,.,. c1 8,7 throws=-");
    /* a4 locked O, b3 o, m3 x4, a1 X, b1 x, c1 o3. */
    assert_int_equal(tg_state_flags(s, 3, 0), TG_CELL_LOCKED);
    assert_int_equal(tg_state_owner(s, 3, 0), 1);
    assert_int_equal(tg_state_count(s, 3, 0), 1);
    assert_int_equal(tg_state_flags(s, 0, 2), 0u);
    assert_int_equal(tg_state_owner(s, 0, 2), 1);
    assert_int_equal(tg_state_count(s, 0, 2), 3);
    assert_int_equal(tg_state_count(s, 2, 1), 1);
    assert_int_equal(tg_state_owner(s, 2, 12), 0);
    assert_int_equal(tg_state_count(s, 2, 12), 4);
    assert_int_equal(tg_state_flags(s, 2, 12), 0u);
    assert_int_equal(tg_state_flags(s, 0, 0), TG_CELL_LOCKED);
    assert_int_equal(tg_state_owner(s, 0, 0), 0);
    assert_int_equal(tg_state_flags(s, 0, 1), 0u);
    assert_int_equal(tg_state_owner(s, 0, 1), 0);
    assert_int_equal(tg_state_count(s, 1, 5), 0);
    assert_int_equal(tg_state_owner(s, 1, 5), -1);
    assert_int_equal(tg_state_flags(s, 1, 5), 0u);
    assert_int_equal(tg_state_count(s, 0, 13), -1);
    assert_int_equal(tg_state_owner(s, 4, 0), -1);
    assert_int_equal(tg_state_score(s, 0), 8);
    assert_int_equal(tg_state_score(s, 1), 7);
    assert_int_equal(tg_state_player(s), TG_CHANCE);
    assert_int_equal(tg_state_turn(s), 1);
    tg_state_free(s);
}

/* ---- the end ---------------------------------------------------------------------------- */

static void test_end_last_piece(void **unused)
{
    (void)unused;
    /* Player 0 takes player 1's last piece; the stored 1 left over is discarded. */
    const char *before = S13 " " E13 "/.,.,.,.,o,.,.,.,.,.,.,.,./.,x,.,.,.,.,.,.,.,.,.,.,./" E13
                             " 0 12,12 throws=1,6";
    const char *after =
        S13 " " E13 "/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 "/" E13 " - 13,12 throws=- winner=0";
    play_check(before, "b2+6", after);
    tg_state *s = from(before);
    expect_moves(s, "b2+1 b2+6");
    tu_play(s, "b2+6");
    expect_over(s, 0);
    tg_state_free(s);
    /* Player 1 takes player 0's last pieces, a king of 2. */
    before = S13 " .,.,.,.,.,.,.,.,.,.,.,.,O/" E13 "/.,.,x2,.,o,.,.,.,.,.,.,.,./" E13
                 " 1 11,11 throws=2";
    after = S13 " .,.,.,.,.,.,.,.,.,.,.,.,O/" E13 "/.,.,o,.,.,.,.,.,.,.,.,.,./" E13
                " - 11,13 throws=- winner=1";
    play_check(before, "e2+2", after);
    s = from(after);
    expect_over(s, 1);
    tg_state_free(s);
}

static void test_end_all_across(void **unused)
{
    (void)unused;
    /* Player 0's m3 steps into row 3: everyone is across; 11 - 11 is a draw. */
    const char *before = S13 " x,.,.,.,.,.,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,.,.,.,.,x/" E13
                             "/.,.,.,.,.,.,.,.,.,.,.,o,o 0 11,11 throws=1";
    const char *after = S13 " x,.,.,.,.,.,.,.,.,.,.,.,x/" E13 "/" E13
                            "/.,.,.,.,.,.,.,.,.,.,.,o,o - 11,11 throws=- winner=draw";
    play_check(before, "m3+1", after);
    tg_state *s = from(after);
    expect_over(s, TG_DRAW);
    tg_state_free(s);
    /* Player 1's a2 steps into row 0 (its 4 left over is discarded): 10 - 11, player 1. */
    before = S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/o,.,.,.,.,.,.,.,.,.,.,.,./"
                 ".,.,.,.,.,.,.,.,.,.,.,o,o 1 10,11 throws=1,4";
    after = S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
                "/o,.,.,.,.,.,.,.,.,.,.,o,o - 10,11 throws=- winner=1";
    s = from(before);
    expect_moves(s, "a2+1 a2+4");
    tg_state_free(s);
    play_check(before, "a2+1", after);
    /* One side across is not enough. Player 0's h3 + 6 reaches m4 with its last piece while
     * player 1's a2 is still in row 1: the game goes on, and the 1 can still be spent. */
    play_check(S13 " " E13 "/.,.,.,.,.,.,.,x,.,.,.,.,./o,.,.,.,.,.,.,.,.,.,.,.,./" E13
                   " 0 12,12 throws=1,6",
               "h3+6",
               S13 " .,.,.,.,.,.,.,.,.,.,.,.,x/" E13 "/o,.,.,.,.,.,.,.,.,.,.,.,./" E13
                   " 0 12,12 throws=1");
    /* The mirror: player 1's m2 + 1 reaches a1 (all of it in row 0), player 0's b3 is not
     * across. */
    play_check(S13 " " E13 "/.,x,.,.,.,.,.,.,.,.,.,.,./o,.,.,.,.,.,.,.,.,.,.,.,./" E13
                   " 1 12,12 throws=1",
               "a2+1",
               S13 " " E13 "/.,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/o,.,.,.,.,.,.,.,.,.,.,.,. c0 12,12 "
                   "throws=-");
    /* And both across but for one piece of player 1 in row 1: still running. */
    tg_state *run = from(S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/o,.,.,.,.,.,.,.,.,.,.,.,./"
                             ".,.,.,.,.,.,.,.,.,.,.,o,o c1 10,11 throws=-");
    assert_false(tg_state_is_terminal(run));
    tg_state_free(run);
    /* The other value ends it too, anywhere in row 0. */
    play_check(before, "a2+4",
               S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
                   "/.,.,.,o,.,.,.,.,.,.,.,o,o - 10,11 throws=- winner=1");
}

static void test_end_nobody_can_move(void **unused)
{
    (void)unused;
    /* c4 takes b4: player 0 is left with b4 and a4 (b4 + 1 lands on its own a4 in the
     * opponent's row, every other value runs off the track), player 1 with l1 and m1: nobody
     * can move with any value. 11 - 11: a draw. (Stuck pieces are always a closed block at
     * the end of the opponent's row, so everyone is across at the same time.) */
    const char *before =
        S13 " x,O,x,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,o,o 0 10,11 throws=1";
    const char *after = S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
                            "/.,.,.,.,.,.,.,.,.,.,.,o,o - 11,11 throws=- winner=draw";
    play_check(before, "c4+1", after);
    tg_state *s = from(after);
    expect_over(s, TG_DRAW);
    tg_state_free(s);
    /* One player stuck is no end: their throws are lost and the other plays on. */
    const char *stuck = S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/.,.,.,.,o,.,.,.,.,.,.,.,./"
                            ".,.,.,.,.,.,.,.,.,.,.,.,o c0 11,11 throws=-";
    s = from(stuck);
    struct ref r;
    ref_from_state(s, &r);
    play_seq(s, &r, "throw:1 throw:6 throw:2");
    TU_POS(s, S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/.,.,.,.,o,.,.,.,.,.,.,.,./"
                  ".,.,.,.,.,.,.,.,.,.,.,.,o c1 11,11 throws=-");
    play_seq(s, &r, "throw:3 e2+3");
    TU_POS(s, S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/.,o,.,.,.,.,.,.,.,.,.,.,./"
                  ".,.,.,.,.,.,.,.,.,.,.,.,o c0 11,11 throws=-");
    tg_state_free(s);
}

/* ---- notation --------------------------------------------------------------------------- */

static void expect_round_trip(const tg_state *s, const char *text, tg_move want, const char *back)
{
    tg_move m = 0;
    TU_OK(tg_move_from_string(s, text, &m));
    if (m != want)
        TU_FAIL("\"%s\" read as 0x%08x, expected 0x%08x", text, (unsigned)m, (unsigned)want);
    char buf[32];
    size_t needed = 0;
    TU_OK(tg_move_to_string(s, m, buf, sizeof buf, &needed));
    assert_string_equal(buf, back);
    assert_int_equal(needed, strlen(back));
}

static void test_notation(void **unused)
{
    (void)unused;
    tg_state *s = from(S13 " " O13 "/" E13 "/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 " 0 0,12 throws=3");
    expect_round_trip(s, "e2+3", mk(17, 3, 1), "e2+3");
    expect_round_trip(s, "a4+1", mk(39, 1, 1), "a4+1");
    expect_round_trip(s, "m4+6", mk(51, 6, 1), "m4+6");
    static const int values[5] = {1, 2, 3, 4, 6};
    for (int i = 0; i < 5; i++) {
        char text[16];
        snprintf(text, sizeof text, "throw:%d", values[i]);
        expect_round_trip(s, text, 0x01000000u | (tg_move)values[i], text);
    }
    expect_round_trip(s, "throw:4", 0x01000004u, "throw:4");
    tg_state_free(s);
    s = from(S13 " " O13 "/" E13 "/.,.,.,.,x5,.,.,.,.,.,.,.,./" E13 " 0 0,8 throws=3");
    expect_round_trip(s, "e2+3x3", mk(17, 3, 3), "e2+3x3");
    expect_round_trip(s, "e2+3", mk(17, 3, 5), "e2+3");
    expect_round_trip(s, "e2+3x5", mk(17, 3, 5), "e2+3");
    expect_round_trip(s, "e2+1x1", mk(17, 1, 1), "e2+1x1");
    /* Malformed move strings. */
    const char *bad[] = {"e2+5",     "e2+0",     "e2+",       "+3",      "e2+3x0",  "e2+3x",
                         "throw:5",  "throw:",   "z9+1",      "e2+03",   "throw:0", "throw:7",
                         "throw:04", "throw:-1", "throw:1x1", "e2+3x14", "e2+3x03", "e2 +3",
                         "e2+3 ",    "E2+3",     "e2-3",      "",        "e2",      "throw4",
                         "e5+1",     "n1+1",     "e2+3x3x1",  "e2++3",   "e0+1",    "e2+7",
                         "e2+3x-1",  "a+1",      "1+1",       "e2+3X3",  " e2+3",   "e2+6x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tg_move m = 0x5A5A5A5Au;
        tg_status st = tg_move_from_string(s, bad[i], &m);
        if (st != TG_ERR_PARSE)
            TU_FAIL("tg_move_from_string(\"%s\") = %d (%s), expected TG_ERR_PARSE", bad[i], (int)st,
                    tg_status_string(st));
        assert_true(m == 0x5A5A5A5Au);
    }
    /* Values that are no move of this game on this board. */
    const tg_move garbage[] = {
        0x01000005u,   0x01000000u,   0x01000007u,    0x01000104u,
        0x01010004u,   0x02000001u,   0x81000001u,    mk(52, 1, 1),
        mk(200, 1, 1), mk(17, 5, 1),  mk(17, 0, 1),   mk(17, 7, 1),
        mk(17, 1, 0),  mk(17, 1, 14), mk(17, 1, 255), mk(17, 1, 1) | 0x10000000u,
        TG_MOVE_PASS,  0xFFFFFFFFu};
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        char buf[32];
        memset(buf, 0x5A, sizeof buf);
        size_t needed = 777;
        tg_status st = tg_move_to_string(s, garbage[i], buf, sizeof buf, &needed);
        if (st != TG_ERR_INVALID_ARGUMENT)
            TU_FAIL("tg_move_to_string(0x%08x) = %d (%s), expected TG_ERR_INVALID_ARGUMENT",
                    (unsigned)garbage[i], (int)st, tg_status_string(st));
        for (size_t k = 0; k < sizeof buf; k++)
            if ((unsigned char)buf[k] != 0x5A)
                TU_FAIL("failed tg_move_to_string(0x%08x) wrote byte %zu", (unsigned)garbage[i], k);
        assert_false(tg_state_is_legal(s, garbage[i]));
    }
    TU_UNCHANGED(s, &snap, "tg_move_to_string");
    tu_snap_free(&snap);
    tg_state_free(s);
    /* Columns past z on the widest board. */
    s = tu_new("tab:width=29");
    expect_round_trip(s, "ac4+1", mk(115, 1, 1), "ac4+1");
    expect_round_trip(s, "aa2+6x2", mk(29 + 26, 6, 2), "aa2+6x2");
    expect_round_trip(s, "z1+4", mk(25, 4, 1), "z1+4");
    tg_move m;
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "ad1+1", &m));
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "a1+1x30", &m));
    tg_state_free(s);
    s = tu_new("tab:width=19");
    TU_STATUS(TG_ERR_PARSE, tg_move_from_string(s, "t1+1", &m));
    expect_round_trip(s, "s1+1", mk(18, 1, 1), "s1+1");
    tg_state_free(s);
}

/* ---- rejected position strings ---------------------------------------------------------- */

static void test_bad_positions(void **unused)
{
    (void)unused;
    const char *good[] = {
        START13,
        EX2_DECIDE,
        EX3_BEFORE,
        EX4_BEFORE,
        EX5_BEFORE,
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x2/X,X,X,X,X,X,X,X,X,X,X,.,. c0 0,0 "
            "throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x2/X,X,X,X,X,X,X,X,X,X,X,.,. c1 0,0 "
            "throws=1,4,6",
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x2/X,X,X,X,X,X,X,X,X,X,X,.,. 0 0,0 "
            "throws=3",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,.,o,o - 11,11 throws=- winner=draw",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,o,o,o - 10,11 throws=- winner=1",
        S13 " " E13 "/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 "/" E13 " - 13,12 throws=- winner=0",
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x13/" E13 " c0 0,0 throws=-",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tg_state *s = from(good[i]);
        TU_POS(s, good[i]);
        tg_state_free(s);
    }
    const char *bad[] = {
        /* a locked piece off its home row */
        S13 " " O13 "/" E13 "/.,.,.,.,X,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,. c0 0,0 throws=-",
        S13 " .,O,O,O,O,O,O,O,O,O,O,O,O/O,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" X13 " c0 0,0 throws=-",
        S13 " X,O,O,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13 "/.,X,X,X,X,X,X,X,X,X,X,X,X c0 1,0 throws=-",
        S13 " .,O,O,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13 "/O,X,X,X,X,X,X,X,X,X,X,X,X c1 0,1 throws=-",
        /* a king on its owner's home row */
        S13 " " O13 "/" E13 "/" E13 "/X,X,X,X,X,X,X,X,X,X,X,.,x2 c0 0,0 throws=-",
        S13 " o2,.,O,O,O,O,O,O,O,O,O,O,O/" E13 "/" E13 "/" X13 " c0 0,0 throws=-",
        /* malformed cells */
        S13 " " O13 "/" E13 "/.,.,.,.,X2,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,.,. c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,x1,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,. c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,x0,.,.,.,.,.,.,.,./" X13 " c0 0,0 throws=-",
        S13 " " O13 "/" E13
            "/.,.,.,.,x02,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,.,. c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,x14,.,.,.,.,.,.,.,./" E13 " c0 0,0 throws=-",
        S13 " " O11 "/" E13 "/.,.,.,.,O2,.,.,.,.,.,.,.,./" X13 " c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,y,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,. c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,0,.,.,.,.,.,.,.,./" X13 " c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,,.,.,.,.,.,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,. c0 0,0 throws=-",
        /* pieces plus the opponent's score not N */
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 1,0 throws=-",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,1 throws=-",
        S13 " " O13 "/" E13 "/" E13 "/X,X,X,X,X,X,X,X,X,X,X,X,. c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/.,.,.,.,x2,.,.,.,.,.,.,.,./" X13 " c0 0,0 throws=-",
        /* bad throws lists */
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=5",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=4,1",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=1,,4",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=0",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=1,",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=,1",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=01",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=-,1",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=--",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=7",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=- throws=-",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throw=-",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=- winner=0",
        /* a chance state with a 2 or a 3 stored */
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c0 0,0 throws=2",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c1 0,0 throws=1,3",
        /* a decision state with a 2 and a 3, or two of them */
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x2/X,X,X,X,X,X,X,X,X,X,X,.,. 0 0,0 "
            "throws=2,3",
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x2/X,X,X,X,X,X,X,X,X,X,X,.,. 0 0,0 "
            "throws=1,2,3,4",
        S13 " " O13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,.,.,x2/X,X,X,X,X,X,X,X,X,X,X,.,. 0 0,0 "
            "throws=2,2",
        /* a decision state with no legal decision */
        S13 " " O13 "/" E13 "/" E13 "/" X13 " 0 0,0 throws=2",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " 0 0,0 throws=-",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " 1 0,0 throws=4,6",
        /* a running position where the game has ended */
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,.,o,o c0 11,11 throws=-",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,.,o,o c1 11,11 throws=1",
        S13 " " E13 "/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 "/" E13 " c1 13,12 throws=-",
        S13 " " E13 "/x,.,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 " 0 13,12 throws=1",
        /* a finished position with throws left, or a winner the scores contradict */
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,.,o,o - 11,11 throws=1 winner=draw",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,.,o,o - 11,11 throws=- winner=0",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,o,o,o - 10,11 throws=- winner=0",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13
            "/.,.,.,.,.,.,.,.,.,.,o,o,o - 10,11 throws=- winner=draw",
        S13 " x,x,.,.,.,.,.,.,.,.,.,.,./" E13 "/" E13 "/.,.,.,.,.,.,.,.,.,.,o,o,o - 10,11 throws=-",
        S13 " " E13 "/.,.,.,.,x,.,.,.,.,.,.,.,./" E13 "/" E13 " - 13,12 throws=- winner=1",
        /* a finished position where the game has not ended */
        S13 " " O13 "/" E13 "/" E13 "/" X13 " - 0,0 throws=- winner=draw",
        /* the wrong number of rows or columns */
        S13 " " O13 "/" E13 "/" X13 " c0 0,0 throws=-",
        S13 " " O13 ",./" E13 "/" E13 "/" X13 " c0 0,0 throws=-",
        S13 " " O13 "/" E13 "/" E13 "/" X13 "/" E13 " c0 0,0 throws=-",
        /* the side to move */
        S13 " " O13 "/" E13 "/" E13 "/" X13 " c2 0,0 throws=-",
        S13 " " O13 "/" E13 "/" E13 "/" X13 " 2 0,0 throws=-",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tu_from_fails(TG_ERR_PARSE, S13, bad[i]);
    /* Another width's string: another rule set. */
    tg_rules *r13 = tu_rules("tab");
    char text[TEXT_MAX];
    start_string(19, text, sizeof text);
    tg_state *s = NULL;
    TU_STATUS(TG_ERR_RULES_MISMATCH, tg_state_from_string(r13, text, &s));
    assert_null(s);
    TU_STATUS(TG_ERR_RULES_MISMATCH, tg_state_from_string(r13, "hus " E13, &s));
    assert_null(s);
    /* A width-13 board under a width-19 spec is malformed. */
    snprintf(text, sizeof text, "tab:width=19%s", &START13[strlen(S13)]);
    tg_rules *r19 = tu_rules("tab:width=19");
    TU_STATUS(TG_ERR_PARSE, tg_state_from_string(r19, text, &s));
    assert_null(s);
    tg_rules_free(r19);
    /* Any spelling of the same rule set is fine. */
    snprintf(text, sizeof text, "tab%s", &START13[strlen(S13)]);
    TU_OK(tg_state_from_string(r13, text, &s));
    TU_POS(s, START13);
    tg_state_free(s);
    tg_rules_free(r13);
}

/* ---- perft ------------------------------------------------------------------------------ */

/* Pinned after three counts agreed: tg_perft, apply/undo, and the reference model. The tree
 * is the same for every width this shallow; tg_perft of a release build gives 12,023,839
 * at depth 11. */
static const uint64_t perft_start[] = {1, 5, 25, 117, 521, 2265, 9645, 40643, 169555, 704311};
#define PERFT_10 UINT64_C(2911131)

static void test_perft(void **unused)
{
    (void)unused;
    for (int w = 0; w < 4; w++) {
        int n = widths[w];
        char spec[32];
        snprintf(spec, sizeof spec, "tab:width=%d", n);
        tg_state *s = tu_new(spec);
        struct ref r;
        ref_init(&r, n);
        /* All three on two widths (to depth 9 on 13, 8 on 29); tg_perft alone on the others. */
        bool full = n == 13 || n == 29;
        unsigned depths = sizeof perft_start / sizeof perft_start[0] - (n == 29);
        for (unsigned d = 0; d < depths; d++) {
            uint64_t lib = tg_perft(s, d);
            uint64_t mine = full ? tu_perft_apply_undo(s, d) : lib;
            uint64_t ref = full ? ref_perft(&r, d) : lib;
            if (lib != perft_start[d] || mine != perft_start[d] || ref != perft_start[d])
                TU_FAIL("width %d depth %u: tg_perft %" PRIu64 ", apply/undo %" PRIu64
                        ", reference %" PRIu64 ", pinned %" PRIu64,
                        n, d, lib, mine, ref, perft_start[d]);
        }
        if (n == 13) {
            uint64_t lib = tg_perft(s, 10);
            if (lib != PERFT_10)
                TU_FAIL("width 13 depth 10: tg_perft %" PRIu64 ", pinned %" PRIu64, lib, PERFT_10);
        }
        char text[TEXT_MAX];
        start_string(n, text, sizeof text);
        TU_POS(s, text);
        tg_state_free(s);
    }
}

/* Perft from a middle-game position with kings, locked pieces and both rows in play, so
 * that the counts exercise more than the opening. */
#define MID                                                                                        \
    S13 " O,O,O,.,O,O,.,O,x,.,.,O,./o,.,.,x2,.,.,o,.,.,.,.,.,x/"                                   \
        ".,x,.,.,o,.,.,.,x3,.,.,o2,./X,X,.,X,x,.,.,.,.,.,o,.,. c1 0,1 throws=-"

static const uint64_t perft_mid[] = {1, 5, 23, 143, 849, 6173, 40384};

static void test_perft_middle(void **unused)
{
    (void)unused;
    tg_state *s = from(MID);
    struct ref r;
    ref_from_state(s, &r);
    expect_ref(s, &r, MID);
    for (unsigned d = 0; d < sizeof perft_mid / sizeof perft_mid[0]; d++) {
        uint64_t lib = tg_perft(s, d), mine = tu_perft_apply_undo(s, d), ref = ref_perft(&r, d);
        if (lib != perft_mid[d] || mine != perft_mid[d] || ref != perft_mid[d])
            TU_FAIL("middle depth %u: tg_perft %" PRIu64 ", apply/undo %" PRIu64
                    ", reference %" PRIu64 ", pinned %" PRIu64,
                    d, lib, mine, ref, perft_mid[d]);
    }
    TU_POS(s, MID);
    tg_state_free(s);
}

/* ---- random games and positions against the reference ----------------------------------- */

static void test_random_games_vs_reference(void **unused)
{
    (void)unused;
    int ends[3] = {0, 0, 0};
    size_t plies = 0;
    for (int w = 0; w < 4; w++) {
        int n = widths[w];
        char spec[32];
        snprintf(spec, sizeof spec, "tab:width=%d", n);
        for (uint64_t seed = 1; seed <= (uint64_t)tu_battery(50); seed++) {
            struct ref r;
            ref_init(&r, n);
            tg_state *s = tu_new(spec);
            uint64_t rng = seed * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)n;
            enum { MAX_PLIES = 4000 };
            static tg_move played[MAX_PLIES], history[MAX_PLIES];
            int ply = 0;
            for (; ply < MAX_PLIES && r.phase != R_OVER; ply++) {
                char what[96];
                snprintf(what, sizeof what, "width %d seed %" PRIu64 " ply %d", n, seed, ply);
                expect_ref(s, &r, what);
                expect_same_options(s, &r, what);
                assert_int_equal(tg_state_player(s), r.phase == R_CHANCE ? TG_CHANCE : r.side);
                assert_int_equal(tg_state_turn(s), r.side);
                assert_int_equal(tg_state_score(s, 0), r.score[0]);
                assert_int_equal(tg_state_score(s, 1), r.score[1]);
                assert_false(tg_state_is_terminal(s));
                tg_move list[512];
                double probs[8];
                uint64_t mine = rng;
                tg_move mv;
                if (r.phase == R_CHANCE) {
                    int k = ref_chance(&r, list, probs);
                    mv = pick_outcome(&mine, list, probs, k);
                } else {
                    int k = ref_moves(&r, list);
                    mv = list[tu_uniform_below(&mine, (uint32_t)k)];
                }
                TU_OK(tg_state_apply_random(s, &rng));
                assert_true(mine == rng);
                played[ply] = mv;
                ref_apply(&r, mv);
                if (ply % 97 == 0) {
                    /* The string reads back as an equal state with the same hash. */
                    char *text = tu_str(s);
                    tg_state *t = from(text);
                    assert_true(tg_state_equal(s, t));
                    assert_true(tg_state_hash(s) == tg_state_hash(t));
                    tg_state_free(t);
                    free(text);
                    /* Undo and redo. */
                    TU_OK(tg_state_undo(s));
                    TU_OK(tg_state_apply(s, mv));
                }
                plies++;
            }
            assert_true(r.phase == R_OVER);
            expect_ref(s, &r, "random game end");
            /* The library played the reference's moves. */
            size_t hn = 0;
            TU_OK(tg_state_history(s, history, MAX_PLIES, &hn));
            assert_int_equal(hn, (size_t)ply);
            assert_int_equal(tg_state_ply(s), (size_t)ply);
            assert_memory_equal(history, played, hn * sizeof *history);
            expect_over(s, r.winner);
            ends[r.winner == TG_DRAW ? 2 : r.winner]++;
            tg_state_free(s);
        }
    }
    print_message("# %zu plies: player 0 won %d, player 1 won %d, %d draws\n", plies, ends[0],
                  ends[1], ends[2]);
    assert_true(ends[0] > 0 && ends[1] > 0 && ends[2] > 0);
}

/* A random position: units anywhere they may stand, scores to match, a side, a phase and a
 * store of throws (sometimes an impossible one). */
static void random_position(struct ref *r, uint64_t *g, int n)
{
    ref_empty(r, n);
    for (int p = 0; p < 2; p++) {
        int left = 1 + (int)tu_uniform_below(g, (uint32_t)n);
        int kingish = (int)tu_uniform_below(g, 3); /* 0: singles only, 1: some kings, 2: more */
        while (left > 0) {
            int c = (int)tu_uniform_below(g, (uint32_t)(4 * n));
            if (r->own[c] >= 0)
                continue;
            if (c / n == home_row(p)) {
                ref_put(r, c, p, 1, tu_uniform_below(g, 3) != 0);
                left--;
                continue;
            }
            int size = 1;
            if (kingish && tu_uniform_below(g, 4) < (uint32_t)kingish)
                size = 1 + (int)tu_uniform_below(g, (uint32_t)(left < 6 ? left : 6));
            ref_put(r, c, p, size, false);
            left -= size;
        }
    }
    r->score[0] = n - ref_pieces(r, 1);
    r->score[1] = n - ref_pieces(r, 0);
    r->side = (int)tu_uniform_below(g, 2);
    r->phase = tu_uniform_below(g, 4) == 0 ? R_CHANCE : R_DECIDE;
    r->stored[1] = (int)tu_uniform_below(g, 3);
    r->stored[4] = (int)tu_uniform_below(g, 2);
    r->stored[6] = (int)tu_uniform_below(g, 2);
    switch (tu_uniform_below(g, 8)) {
    case 0:
        break;
    case 1:
    case 2:
    case 3:
        r->stored[2] = 1;
        break;
    case 4:
    case 5:
    case 6:
        r->stored[3] = 1;
        break;
    default:
        r->stored[2] = 1;
        r->stored[3] = 1;
        break;
    }
}

/* What the page allows in a running position. */
static bool ref_valid(const struct ref *r)
{
    if (ref_ended(r))
        return false;
    int two_three = r->stored[2] + r->stored[3];
    if (r->phase == R_CHANCE)
        return two_three == 0;
    return two_three <= 1 && ref_moves(r, NULL) > 0;
}

static void test_random_positions_vs_reference(void **unused)
{
    (void)unused;
    uint64_t gen = 20250611;
    int accepted = 0, rejected = 0, moves = 0, splits = 0, captures = 0, far = 0;
    const int trials = tu_battery(3000);
    for (int trial = 0; trial < trials; trial++) {
        int n = widths[trial % 4];
        struct ref r;
        random_position(&r, &gen, n);
        char text[TEXT_MAX];
        ref_string(&r, text, sizeof text);
        char spec[32];
        snprintf(spec, sizeof spec, "tab:width=%d", n);
        tg_rules *rules = tu_rules(spec);
        tg_state *s = NULL;
        tg_status st = tg_state_from_string(rules, text, &s);
        tg_rules_free(rules);
        bool valid = ref_valid(&r);
        if (valid != (st == TG_OK))
            TU_FAIL("\"%s\": reference says %s, library returned %d (%s)", text,
                    valid ? "valid" : "invalid", (int)st, tg_status_string(st));
        if (!valid) {
            assert_int_equal(st, TG_ERR_PARSE);
            assert_null(s);
            rejected++;
            continue;
        }
        accepted++;
        TU_POS(s, text);
        expect_same_options(s, &r, text);
        tg_move list[512];
        double probs[8];
        int k = r.phase == R_CHANCE ? ref_chance(&r, list, probs) : ref_moves(&r, list);
        for (int i = 0; i < k; i++) {
            struct ref c = r;
            ref_apply(&c, list[i]);
            if (r.phase == R_DECIDE) {
                moves++;
                int from_cell = (int)(list[i] & 0xFF);
                splits += (int)(list[i] >> 16) < r.size[from_cell];
                captures += c.score[r.side] > r.score[r.side];
                far += from_cell / n == far_row(r.side);
            }
            TU_OK(tg_state_apply(s, list[i]));
            expect_ref(s, &c, text);
            expect_same_options(s, &c, text);
            TU_OK(tg_state_undo(s));
            TU_POS(s, text);
        }
        tg_state_free(s);
    }
    print_message("# random positions: %d accepted, %d rejected; %d decisions (%d splits, %d "
                  "captures, %d from the opponent's row)\n",
                  accepted, rejected, moves, splits, captures, far);
    assert_true(accepted > trials / 3 && rejected > trials / 30 && splits > 0 && captures > 0 &&
                far > 0);
}

#ifndef TAB_DEV
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_example1_lost_throw),
        cmocka_unit_test(test_example2_unlock_and_spend),
        cmocka_unit_test(test_example3_capture),
        cmocka_unit_test(test_example4_king_split),
        cmocka_unit_test(test_example5_opponents_row),
        cmocka_unit_test(test_example6_home_row),
        cmocka_unit_test(test_tracks),
        cmocka_unit_test(test_chance),
        cmocka_unit_test(test_seeded_game),
        cmocka_unit_test(test_locked),
        cmocka_unit_test(test_home_row),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_capture),
        cmocka_unit_test(test_kings),
        cmocka_unit_test(test_opponents_row),
        cmocka_unit_test(test_board_queries),
        cmocka_unit_test(test_end_last_piece),
        cmocka_unit_test(test_end_all_across),
        cmocka_unit_test(test_end_nobody_can_move),
        cmocka_unit_test(test_notation),
        cmocka_unit_test(test_bad_positions),
        cmocka_unit_test(test_perft),
        cmocka_unit_test(test_perft_middle),
        cmocka_unit_test(test_random_games_vs_reference),
        cmocka_unit_test(test_random_positions_vs_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif

/* Helpers shared by the cmocka suites: making rule sets and states, reading positions back as
 * text, and snapshots that prove a failed call changed nothing. Public API only. */
#ifndef TG_TEST_UTIL_H
#define TG_TEST_UTIL_H

/* cmocka needs these before its own header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The Windows cross build has no cmocka: the same calls run on tests/tap_harness.c. */
#ifdef TG_TAP_HARNESS
#include "tap_harness.h"
#else
#include <cmocka.h>
#endif

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traditional-games.h>

/* fail_msg() of cmocka 1.1 uses `##__VA_ARGS__`, which -Wpedantic rejects in user code. */
#define TU_FAIL(...)                                                                           \
    do {                                                                                       \
        print_error(__VA_ARGS__);                                                              \
        print_error("\n");                                                                     \
        fail();                                                                                \
    } while (0)

/* Asserts a status with both names in the message. */
#define TU_STATUS(expected, call)                                                              \
    do {                                                                                       \
        tg_status tu_got_ = (call);                                                            \
        tg_status tu_want_ = (expected);                                                       \
        if (tu_got_ != tu_want_)                                                               \
            TU_FAIL("%s:%d: %s returned %d (%s), expected %d (%s)", __FILE__, __LINE__, #call, \
                    (int)tu_got_, tg_status_string(tu_got_), (int)tu_want_,                    \
                    tg_status_string(tu_want_));                                               \
    } while (0)

#define TU_OK(call) TU_STATUS(TG_OK, call)

/* How many random games, positions or seeds a battery plays: @p full natively; a tenth (at
 * least 1) when TG_TEST_EMULATED is 1, as meson's test setup 'emulated' sets it for the cross
 * builds' suites that scripts/test-platforms.sh runs under qemu-user or wine (so do the setup
 * 'valgrind', and tests/meson.build for the prover's suite in a sanitizer build). There the
 * suites check that the code is right for the platform's word size, byte order and char signedness,
 * which a tenth of the games shows as well, at 5 to 20 times a native run's cost; the native
 * runs keep every game. */
static inline int tu_battery(int full)
{
    const char *emulated = getenv("TG_TEST_EMULATED");
    if (!emulated || strcmp(emulated, "1") != 0)
        return full;
    return full >= 10 ? full / 10 : 1;
}

static inline tg_rules *tu_rules(const char *spec)
{
    tg_rules *r = NULL;
    tg_status st = tg_rules_new(spec, &r);
    if (st != TG_OK || r == NULL)
        TU_FAIL("tg_rules_new(\"%s\") = %d (%s)", spec, (int)st, tg_status_string(st));
    return r;
}

static inline tg_state *tu_new(const char *spec)
{
    tg_rules *r = tu_rules(spec);
    tg_state *s = NULL;
    tg_status st = tg_state_new(r, &s);
    tg_rules_free(r);
    if (st != TG_OK || s == NULL)
        TU_FAIL("tg_state_new(%s) = %d (%s)", spec, (int)st, tg_status_string(st));
    return s;
}

/* A state from a position string, with its rule set taken from the given spec. */
static inline tg_state *tu_from(const char *spec, const char *text)
{
    tg_rules *r = tu_rules(spec);
    tg_state *s = NULL;
    tg_status st = tg_state_from_string(r, text, &s);
    tg_rules_free(r);
    if (st != TG_OK || s == NULL)
        TU_FAIL("tg_state_from_string(%s, \"%s\") = %d (%s)", spec, text, (int)st,
                tg_status_string(st));
    return s;
}

/* The position string, malloc'd. */
static inline char *tu_str(const tg_state *s)
{
    size_t needed = (size_t)-1;
    tg_status st = tg_state_to_string(s, NULL, 0, &needed);
    if (st != TG_OK || needed == (size_t)-1)
        TU_FAIL("tg_state_to_string measure = %d", (int)st);
    char *buf = malloc(needed + 1);
    assert_non_null(buf);
    size_t again = 0;
    st = tg_state_to_string(s, buf, needed + 1, &again);
    if (st != TG_OK || again != needed || strlen(buf) != needed)
        TU_FAIL("tg_state_to_string = %d, needed %zu then %zu, strlen %zu", (int)st, needed,
                again, strlen(buf));
    return buf;
}

/* The position string `text` (whose spec names `laps=`) with the lap limit set to `laps`. */
static inline void tu_with_laps(const char *text, unsigned long laps, char *out, size_t cap)
{
    const char *space = strchr(text, ' ');
    const char *at = strstr(text, "laps=");
    if (!space || !at || at > space)
        TU_FAIL("no laps= in the spec of \"%s\"", text);
    const char *end = at + 5 + strspn(at + 5, "0123456789");
    int n = snprintf(out, cap, "%.*slaps=%lu%s", (int)(at - text), text, laps, end);
    assert_true(n > 0 && (size_t)n < cap);
}

/* A state from a position string, under the rule set its own spec names. */
static inline tg_state *tu_from_text(const char *text)
{
    char spec[128];
    size_t n = strcspn(text, " ");
    assert_true(n < sizeof spec);
    memcpy(spec, text, n);
    spec[n] = '\0';
    tg_state *s = tu_from(spec, text);
    return s;
}

/* The lap limit's exact boundary (rules/README.md, "Endless moves") for a relay move that
 * sows exactly `laps` laps (>= 2) from the position `text`: under laps=`laps` it ends as it
 * does with no limit (same position, bar the spec); under laps=`laps`-1 it is endless: the
 * mover loses and board, scores, fields and quiet count stay as they were. */
static inline void tu_check_lap_boundary(const char *text, tg_move m, unsigned long laps)
{
    char exact[1024], at_limit[1024], below[1024];
    assert_true(laps >= 2);
    tu_with_laps(text, 0, exact, sizeof exact);
    tu_with_laps(text, laps, at_limit, sizeof at_limit);
    tu_with_laps(text, laps - 1, below, sizeof below);

    tg_state *s = tu_from_text(exact);
    int mover = tg_state_player(s);
    TU_OK(tg_state_apply(s, m));
    char *exact_after = tu_str(s);
    tg_state_free(s);

    s = tu_from_text(at_limit);
    TU_OK(tg_state_apply(s, m));
    char *limit_after = tu_str(s), want[1024];
    tu_with_laps(exact_after, laps, want, sizeof want);
    if (strcmp(limit_after, want) != 0)
        TU_FAIL("%lu laps under laps=%lu:\n  got      \"%s\"\n  expected \"%s\"", laps, laps,
                limit_after, want);
    free(limit_after);
    free(exact_after);
    tg_state_free(s);

    /* One lap short: the position string before the move, with `-` for the side to move and
     * the mover's loss. */
    s = tu_from_text(below);
    TU_OK(tg_state_apply(s, m));
    assert_true(tg_state_is_terminal(s));
    assert_int_equal(tg_state_winner(s), 1 - mover);
    char *got = tu_str(s);
    const char *board = strchr(below, ' ') + 1;
    const char *side = strchr(board, ' ') + 1;
    const char *rest = strchr(side, ' ');
    snprintf(want, sizeof want, "%.*s-%s winner=%d", (int)(side - below), below, rest,
             1 - mover);
    if (strcmp(got, want) != 0)
        TU_FAIL("%lu laps under laps=%lu:\n  got      \"%s\"\n  expected \"%s\"", laps,
                laps - 1, got, want);
    free(got);
    tg_state_free(s);
}

/* An endless move judged with no lap limit (laps=0), where the cycle finder alone must see
 * that it never ends: from `before` (a position string whose spec names `laps=`) the move
 * leaves exactly `after` (the same spelling) but for the spec. */
static inline void tu_check_endless_unlimited(const char *before, const char *after, tg_move m)
{
    char from[1024], want[1024];
    tu_with_laps(before, 0, from, sizeof from);
    tu_with_laps(after, 0, want, sizeof want);
    tg_state *s = tu_from_text(from);
    TU_OK(tg_state_apply(s, m));
    char *got = tu_str(s);
    if (strcmp(got, want) != 0)
        TU_FAIL("laps=0:\n  got      \"%s\"\n  expected \"%s\"", got, want);
    free(got);
    tg_state_free(s);
}

/* Asserts the position string of s. */
#define TU_POS(s, expected)                                                                    \
    do {                                                                                       \
        char *tu_text_ = tu_str(s);                                                            \
        if (strcmp(tu_text_, (expected)) != 0)                                                 \
            TU_FAIL("%s:%d: position\n  got      \"%s\"\n  expected \"%s\"", __FILE__,         \
                    __LINE__, tu_text_, (expected));                                           \
        free(tu_text_);                                                                        \
    } while (0)

/* Checks that reading `text` under `spec` fails with `want` and makes no state. */
static inline void tu_from_fails(tg_status want, const char *spec, const char *text)
{
    tg_rules *r = tu_rules(spec);
    tg_state *s = NULL;
    tg_status st = tg_state_from_string(r, text, &s);
    tg_rules_free(r);
    if (st != want) {
        tg_state_free(s);
        TU_FAIL("tg_state_from_string(\"%s\") = %d (%s), expected %d (%s)", text, (int)st,
                tg_status_string(st), (int)want, tg_status_string(want));
    }
    assert_null(s);
}

static inline tg_move tu_move(const tg_state *s, const char *text)
{
    tg_move m = 0;
    tg_status st = tg_move_from_string(s, text, &m);
    if (st != TG_OK)
        TU_FAIL("tg_move_from_string(\"%s\") = %d (%s)", text, (int)st, tg_status_string(st));
    return m;
}

static inline void tu_play(tg_state *s, const char *text)
{
    tg_move m = tu_move(s, text);
    tg_status st = tg_state_apply(s, m);
    if (st != TG_OK)
        TU_FAIL("tg_state_apply(%s = %u) = %d (%s)", text, (unsigned)m, (int)st,
                tg_status_string(st));
}

/* Plays a line of moves in their text form, separated by spaces ("throw:1 throw:4 m1+1"). */
static inline void tu_play_line(tg_state *s, const char *line)
{
    char text[64];
    for (const char *at = line + strspn(line, " "); *at; at += strspn(at, " ")) {
        size_t n = strcspn(at, " ");
        if (n >= sizeof text)
            TU_FAIL("a move of %zu characters in \"%s\"", n, line);
        memcpy(text, at, n);
        text[n] = '\0';
        tu_play(s, text);
        at += n;
    }
}

/* The legal moves into buf (cap entries); returns the count. */
static inline size_t tu_moves(const tg_state *s, tg_move *buf, size_t cap)
{
    size_t n = (size_t)-1;
    tg_status st = tg_state_moves(s, buf, cap, &n);
    if (st != TG_OK)
        TU_FAIL("tg_state_moves = %d (%s), count %zu, cap %zu", (int)st, tg_status_string(st), n,
                cap);
    return n;
}

/* The options now into m (cap entries): decisions, or at a chance state the outcomes with
 * their probabilities into p. Returns the count. */
static inline size_t tu_options(const tg_state *s, tg_move *m, double *p, size_t cap)
{
    size_t n = 0;
    if (tg_state_player(s) == TG_CHANCE)
        TU_OK(tg_state_chance(s, m, p, cap, &n));
    else
        TU_OK(tg_state_moves(s, m, cap, &n));
    return n;
}

/* A copy of s with m applied; s itself is left as it is. */
static inline tg_state *tu_after(const tg_state *s, tg_move m)
{
    tg_state *t = NULL;
    TU_OK(tg_state_clone(s, &t));
    TU_OK(tg_state_apply(t, m));
    return t;
}

static inline tg_search *tu_search_new(const char *spec)
{
    tg_search *h = NULL;
    tg_status st = tg_search_new(spec, &h);
    if (st != TG_OK || !h)
        TU_FAIL("tg_search_new(%s) = %s", spec, tg_status_string(st));
    return h;
}

/* A position of `rules` with a choice to make, far from the end: two plies of the generator
 * from `seed`, then more until the side to move decides between two moves or more (a search
 * returns a single legal move without searching, and could finish by proving a near end). */
static inline tg_state *tu_midgame(const char *rules, uint64_t seed)
{
    tg_state *s = tu_new(rules);
    for (int i = 0; i < 2; i++)
        TU_OK(tg_state_apply_random(s, &seed));
    size_t n = 0;
    while (tg_state_player(s) == TG_CHANCE || (tg_state_moves(s, NULL, 0, &n) == TG_OK && n < 2))
        TU_OK(tg_state_apply_random(s, &seed));
    return s;
}

/* Leaf count of the tree below s by apply/undo through the public API: an independent check
 * of tg_perft. Decisions and chance outcomes each count as one level, as tg_perft documents. */
static inline uint64_t tu_perft_apply_undo(tg_state *s, unsigned depth)
{
    if (depth == 0)
        return 1;
    tg_move moves[512];
    double probs[512];
    size_t n = (size_t)-1;
    if (tg_state_player(s) == TG_CHANCE)
        TU_OK(tg_state_chance(s, moves, probs, 512, &n));
    else
        n = tu_moves(s, moves, 512);
    if (depth == 1)
        return n;
    uint64_t leaves = 0;
    for (size_t i = 0; i < n; i++) {
        TU_OK(tg_state_apply(s, moves[i]));
        leaves += tu_perft_apply_undo(s, depth - 1);
        TU_OK(tg_state_undo(s));
    }
    return leaves;
}

static inline size_t tu_history_len(const tg_state *s)
{
    size_t n = (size_t)-1;
    TU_OK(tg_state_history(s, NULL, 0, &n));
    return n;
}

/* Everything observable about a state that a failed call must leave alone. */
struct tu_snap {
    char *text;
    uint64_t hash;
    size_t ply;
    size_t history_len;
    tg_move *history;
    int player, turn, winner;
};

static inline void tu_snap_take(const tg_state *s, struct tu_snap *snap)
{
    snap->text = tu_str(s);
    snap->hash = tg_state_hash(s);
    snap->ply = tg_state_ply(s);
    snap->history_len = tu_history_len(s);
    snap->history = malloc((snap->history_len + 1) * sizeof *snap->history);
    assert_non_null(snap->history);
    size_t n = 0;
    TU_OK(tg_state_history(s, snap->history, snap->history_len + 1, &n));
    assert_int_equal(n, snap->history_len);
    snap->player = tg_state_player(s);
    snap->turn = tg_state_turn(s);
    snap->winner = tg_state_winner(s);
}

/* Compares s with an earlier snapshot; returns NULL if identical, else what differs. */
static inline const char *tu_snap_diff(const tg_state *s, const struct tu_snap *snap)
{
    struct tu_snap now;
    const char *why = NULL;
    tu_snap_take(s, &now);
    if (strcmp(now.text, snap->text) != 0)
        why = "position string";
    else if (now.hash != snap->hash)
        why = "hash";
    else if (now.ply != snap->ply)
        why = "ply";
    else if (now.history_len != snap->history_len ||
             memcmp(now.history, snap->history, now.history_len * sizeof *now.history) != 0)
        why = "history";
    else if (now.player != snap->player || now.turn != snap->turn || now.winner != snap->winner)
        why = "player/turn/winner";
    free(now.text);
    free(now.history);
    return why;
}

#define TU_UNCHANGED(s, snap, what)                                                            \
    do {                                                                                       \
        const char *tu_why_ = tu_snap_diff((s), (snap));                                       \
        if (tu_why_)                                                                           \
            TU_FAIL("%s:%d: %s changed the state (%s); before: \"%s\"", __FILE__, __LINE__,     \
                    (what), tu_why_, (snap)->text);                                            \
    } while (0)

static inline void tu_snap_free(struct tu_snap *snap)
{
    free(snap->text);
    free(snap->history);
    snap->text = NULL;
    snap->history = NULL;
}

/* The documented generator (splitmix64), written independently of the library. */
static inline uint64_t tu_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A uniform index below n as tg_state_apply_random() documents it: the high half of
 * (32 high bits of a draw) * n, with Lemire's rejection. */
static inline uint32_t tu_uniform_below(uint64_t *rng, uint32_t n)
{
    for (;;) {
        uint64_t m = (tu_splitmix64(rng) >> 32) * (uint64_t)n;
        uint32_t low = (uint32_t)m;
        if (low >= n || low >= (uint32_t)(0u - n) % n)
            return (uint32_t)(m >> 32);
    }
}

/* tg_state_apply_random() on s, checked against the caller's own model of the position: returns
 * the move the documented draw (tu_uniform_below) picks from `legal`, the model's n legal moves
 * in the library's order, and asserts that the generator advanced by that one draw. The caller
 * applies the move to its model and compares the two. */
static inline tg_move tu_apply_random_as(tg_state *s, uint64_t *rng, const tg_move *legal, size_t n)
{
    uint64_t mine = *rng;
    tg_move m = legal[tu_uniform_below(&mine, (uint32_t)n)];
    TU_OK(tg_state_apply_random(s, rng));
    assert_true(mine == *rng);
    return m;
}

#endif

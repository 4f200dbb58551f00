/* Endgame databases (docs/egtb.md): files built here for small quiet limits and checked on
 * every position against an exhaustive minimax of this file's own, which plays moves through
 * the public API only; damaged, missing and foreign files; bad input to every function. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, unlink, rmdir */

#include "egtb_reference.h"
#include "test_util.h"

#include <unistd.h>

/* ----- building into a temporary directory */

struct tiers_seen {
    uint64_t running[80];
    uint64_t positions[80];
    int calls;
};

static void note_tier(void *ctx, const tg_egtb_tier_report *r)
{
    struct tiers_seen *seen = ctx;
    seen->running[r->counters] = r->running;
    seen->positions[r->counters] = r->positions;
    seen->calls++;
}

/* ----- every position of a database against the reference */

struct walk {
    const tg_rules *rules;
    const tg_egtb *db;
    struct memo *memo;
    int holes, cols, total, counters;
    uint64_t running;
    uint64_t checked;
    uint8_t cell[KEY_BYTES];
};

static void check_board(struct walk *w)
{
    const char *spec = tg_rules_spec(w->rules);
    unsigned quiet = 0;
    const char *q = strstr(spec, "quiet=");
    quiet = (unsigned)atoi(q + 6);
    for (int side = 0; side < 2; side++)
        for (unsigned k = 0; k < quiet; k++) {
            char text[512];
            int len = snprintf(text, sizeof text, "%s ", spec);
            for (int row = 1; row >= 0; row--)
                for (int c = 0; c < w->cols; c++)
                    len += snprintf(text + len, sizeof text - (size_t)len, "%d%s",
                                    w->cell[row * w->cols + c],
                                    c + 1 < w->cols ? "," : row ? "/" : "");
            /* Every captured counter banked by player 0: even in Halusa, as captures are. */
            snprintf(text + len, sizeof text - (size_t)len, " %d %d,0 quiet=%u", side,
                     w->total - w->counters, k);
            tg_state *s = NULL;
            if (tg_state_from_string(w->rules, text, &s) != TG_OK)
                continue; /* the side to move has no move: no running position */
            w->running++;
            int want = reference(w->memo, s, w->holes);
            tg_egtb_value v;
            tg_egtb_status st = tg_egtb_probe(w->db, s, &v);
            if (st != TG_EGTB_OK)
                TU_FAIL("%s: %s", text, tg_egtb_status_string(st));
            if (want == REF_WIN || want == REF_LOSS) {
                if (!v.endless || v.outcome != (want > 0 ? 1 : -1))
                    TU_FAIL("%s: reference %s by an endless move, database %d %d", text,
                            want > 0 ? "win" : "loss", v.endless, v.outcome);
            } else {
                int banked = side == 0 ? w->total - w->counters : -(w->total - w->counters);
                int final = banked + want;
                if (v.endless || v.margin_to_go != want || v.final_margin != final ||
                    v.outcome != (final > 0) - (final < 0))
                    TU_FAIL("%s: reference %+d, database %+d (final %+d, outcome %d)", text,
                            want, v.margin_to_go, v.final_margin, v.outcome);
            }
            w->checked++;
            tg_state_free(s);
        }
}

/* Every way to put `left` counters into holes from `hole` on. */
static void walk_boards(struct walk *w, int hole, int left)
{
    if (hole == w->holes - 1) {
        w->cell[hole] = (uint8_t)left;
        check_board(w);
        return;
    }
    for (int c = left; c >= 0; c--) {
        w->cell[hole] = (uint8_t)c;
        walk_boards(w, hole + 1, left - c);
    }
}

static void check_every_position(const char *spec, int counters, int total)
{
    tg_rules *r = NULL;
    TU_OK(tg_rules_new(spec, &r));
    char dir[64];
    make_dir(dir);
    struct tiers_seen seen;
    memset(&seen, 0, sizeof seen);
    assert_int_equal(tg_egtb_build(r, dir, counters, 2, note_tier, &seen), TG_EGTB_OK);
    tg_egtb *db = NULL;
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    struct memo memo = {NULL, 0, 0};
    memo_grow(&memo);
    struct walk w;
    memset(&w, 0, sizeof w);
    w.rules = r;
    w.db = db;
    w.memo = &memo;
    w.cols = tg_rules_cols(r);
    w.holes = 2 * w.cols;
    w.total = total;
    uint64_t checked = 0;
    for (int n = 1; n <= counters; n++) {
        w.counters = n;
        w.running = 0;
        walk_boards(&w, 0, n);
        /* The builder's count of running positions is the library's own, read from strings. */
        assert_int_equal(w.running, seen.running[n]);
        checked += w.running;
    }
    print_message("# %s: %llu positions up to %d counters agree with the minimax\n", spec,
                  (unsigned long long)checked, counters);
    assert_true(checked > 0);
    free(memo.slot);
    tg_egtb_close(db);
    tg_rules_free(r);
    remove_dir(dir, strchr(spec, ':') ? (strncmp(spec, "halusa", 6) == 0 ? "halusa"
                                                                          : "walak-pussa")
                                      : spec);
}

static void halusa_small_quiet_limit(void **state)
{
    (void)state;
    check_every_position("halusa:remainder=last-mover,quiet=3", 8, 72);
}

static void halusa_owner_takes_own_row(void **state)
{
    (void)state;
    check_every_position("halusa:remainder=owner,quiet=5", 6, 72);
}

static void halusa_default_rules(void **state)
{
    (void)state;
    check_every_position("halusa", 2, 72);
}

static void walak_pussa_small_quiet_limit(void **state)
{
    (void)state;
    check_every_position("walak-pussa:rounds=single,laps=10000,quiet=2", 6, 56);
}

static void walak_pussa_default_rules(void **state)
{
    (void)state;
    check_every_position("walak-pussa", 2, 56);
}

/* ----- damage, missing files, foreign files, bad input */

static tg_egtb_status probe_text(const tg_egtb *db, const tg_rules *r, const char *text,
                                 tg_egtb_value *v)
{
    tg_state *s = NULL;
    TU_OK(tg_state_from_string(r, text, &s));
    tg_egtb_status st = tg_egtb_probe(db, s, v);
    tg_state_free(s);
    return st;
}

#define H4 "halusa:remainder=last-mover,quiet=100 0,0,0,0,0,2/0,0,0,1,1,0 0 68,0 quiet="
#define H6 "halusa:remainder=last-mover,quiet=100 0,0,0,0,2,2/0,0,0,1,1,0 0 66,0 quiet=0"

static void damaged_missing_and_foreign_files(void **state)
{
    (void)state;
    tg_rules *r = NULL, *owner = NULL;
    TU_OK(tg_rules_new("halusa", &r));
    TU_OK(tg_rules_new("halusa:remainder=owner", &owner));
    char dir[64], other[64], path[512], other_path[512];
    make_dir(dir);
    make_dir(other);
    assert_int_equal(tg_egtb_build(r, dir, 8, 2, NULL, NULL), TG_EGTB_OK);
    assert_int_equal(tg_egtb_build(owner, other, 4, 1, NULL, NULL), TG_EGTB_OK);
    tg_egtb_value v;
    tg_egtb *db = NULL;
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    assert_int_equal(tg_egtb_max_counters(db), 8);
    assert_int_equal(probe_text(db, r, H4 "99", &v), TG_EGTB_OK);
    tg_egtb_value before = v;
    tg_egtb_close(db);

    /* A byte flipped in the first block written (quiet count 99 of 4 counters, one block). */
    file_path(path, sizeof path, dir, "halusa", 4);
    flip_byte(path, 20);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    memset(&v, 0x55, sizeof v);
    assert_int_equal(probe_text(db, r, H4 "99", &v), TG_EGTB_DAMAGED);
    assert_int_equal(v.outcome, 0x55555555); /* untouched */
    assert_int_equal(probe_text(db, r, H4 "0", &v), TG_EGTB_OK); /* other blocks still read */
    tg_egtb_close(db);
    flip_byte(path, 20);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    assert_int_equal(probe_text(db, r, H4 "99", &v), TG_EGTB_OK);
    assert_memory_equal(&v, &before, sizeof v);
    tg_egtb_close(db);

    /* A byte flipped in the header frame: the whole file is damaged, the others are fine. */
    flip_byte(path, -20);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    assert_int_equal(probe_text(db, r, H4 "0", &v), TG_EGTB_DAMAGED);
    assert_int_equal(probe_text(db, r, H6, &v), TG_EGTB_OK);
    tg_egtb_close(db);

    /* Missing, then another rule set's file under the same name. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    assert_int_equal(probe_text(db, r, H4 "0", &v), TG_EGTB_MISSING_FILE);
    tg_egtb_close(db);
    file_path(other_path, sizeof other_path, other, "halusa", 4);
    assert_int_equal(rename(other_path, path), 0);
    assert_int_equal(tg_egtb_open(dir, r, &db), TG_EGTB_OK);
    assert_int_equal(probe_text(db, r, H4 "0", &v), TG_EGTB_WRONG_RULES);
    /* A building over it refuses to reuse it. */
    assert_int_equal(tg_egtb_build(r, dir, 4, 1, NULL, NULL), TG_EGTB_WRONG_RULES);

    /* Positions the database cannot answer. */
    assert_int_equal(probe_text(db, r,
                                "halusa:remainder=last-mover,quiet=100 0,0,0,0,2,2/0,0,1,1,2,2 0 62,0 "
                                "quiet=0",
                                &v),
                     TG_EGTB_NOT_IN_DATABASE);
    assert_int_equal(probe_text(db, r,
                                "halusa:remainder=last-mover,quiet=100 0,0,0,0,0,0/0,0,0,0,0,0 - 40,32 "
                                "quiet=3 winner=0",
                                &v),
                     TG_EGTB_NOT_IN_DATABASE);
    tg_state *s = NULL;
    TU_OK(tg_state_from_string(owner, "halusa:remainder=owner,quiet=100 0,0,0,0,2,2/0,0,0,1,1,0 0 66,0 quiet=0", &s));
    assert_int_equal(tg_egtb_probe(db, s, &v), TG_EGTB_WRONG_RULES);

    /* Bad input to every function. */
    assert_int_equal(tg_egtb_probe(NULL, s, &v), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_probe(db, NULL, &v), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_probe(db, s, NULL), TG_EGTB_BAD_ARGUMENT);
    tg_state_free(s);
    tg_egtb_close(db);
    tg_egtb_close(NULL);
    assert_int_equal(tg_egtb_max_counters(NULL), 0);
    assert_int_equal(tg_egtb_open(NULL, r, &db), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_open(dir, NULL, &db), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_open(dir, r, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_open("/nonexistent/tg-egtb", r, &db), TG_EGTB_IO_ERROR);
    assert_int_equal(tg_egtb_build(NULL, dir, 4, 1, NULL, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_build(r, NULL, 4, 1, NULL, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_build(r, dir, 0, 1, NULL, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_build(r, dir, 73, 1, NULL, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_build(r, dir, 4, 0, NULL, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_build(r, dir, 4, 257, NULL, NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_build(r, "/nonexistent/tg-egtb", 2, 1, NULL, NULL),
                     TG_EGTB_IO_ERROR);
    assert_int_equal(tg_egtb_supported(NULL), TG_EGTB_BAD_ARGUMENT);
    assert_int_equal(tg_egtb_supported(r), TG_EGTB_OK);
    const char *unsupported[] = {"hus", "hawalis", "tab", "halusa:quiet=0",
                                 "walak-pussa:rounds=match"};
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
        tg_rules *u = NULL;
        TU_OK(tg_rules_new(unsupported[i], &u));
        assert_int_equal(tg_egtb_supported(u), TG_EGTB_UNSUPPORTED);
        assert_int_equal(tg_egtb_build(u, dir, 2, 1, NULL, NULL), TG_EGTB_UNSUPPORTED);
        assert_int_equal(tg_egtb_open(dir, u, &db), TG_EGTB_UNSUPPORTED);
        tg_rules_free(u);
    }
    assert_string_equal(tg_egtb_status_string(TG_EGTB_DAMAGED), "database file damaged");
    assert_string_equal(tg_egtb_status_string((tg_egtb_status)99), "unknown status");
    remove_dir(dir, "halusa");
    remove_dir(other, "halusa");
    tg_rules_free(r);
    tg_rules_free(owner);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(halusa_small_quiet_limit),
        cmocka_unit_test(halusa_owner_takes_own_row),
        cmocka_unit_test(halusa_default_rules),
        cmocka_unit_test(walak_pussa_small_quiet_limit),
        cmocka_unit_test(walak_pussa_default_rules),
        cmocka_unit_test(damaged_missing_and_foreign_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

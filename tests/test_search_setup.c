/* The search's setup phase honours a stop. The one long step of a search before its first
 * position is the clearing of the transposition table (8 MB by default; pages the previous
 * search never touched fault in there, tens of milliseconds on a virtual machine),  so
 * lib/search.c clears only the pages an earlier search wrote, and looks at the stop before
 * each page (and at the clock every 16).
 *
 * Asserted here is that design, without threads or clocks: the engine (the library's sources
 * compiled in, to drive lib/search.c's tg__engine_run directly) is given a control whose
 * handle life already says STOPPING, with a table an earlier search left full. It must
 * return at once: a legal move, no position visited, no iteration finished, and the table
 * untouched (the stop was seen before the first page). The next search that runs clears the
 * whole table again: it gives exactly what a fresh engine gives. tests/test_search_threads.c
 * stops real searches from another thread in that phase, under ThreadSanitizer too. */
#include "test_util.h"

#include "bot.h"
#include "internal.h"

static tg_status run(struct tg__engine *e, const tg_state *s, atomic_int *life, uint32_t nodes,
                     tg_move *move, uint64_t *visited, uint32_t *depth)
{
    struct tg__bot b;
    TU_OK(tg__bot_parse("search:nodes=20000,tt=1", &b));
    b.nodes = nodes;
    struct tg__control ctl;
    assert_true(tg__control_start(&ctl, life, 0));
    return tg__engine_run(e, &s->rules.cfg, &s->pos, &b, &ctl, move, NULL, visited, depth);
}

static void test_stop_while_clearing(void **unused)
{
    (void)unused;
    static const char *const rule_sets[] = {"halusa", "hus", "hawalis", "walak-pussa", "tab"};
    for (size_t g = 0; g < 5; g++) {
        tg_state *s = tu_midgame(rule_sets[g], 90 + g);
        struct tg__engine e, fresh;
        TU_OK(tg__engine_init(&e, 1));
        TU_OK(tg__engine_init(&fresh, 1));
        atomic_int life;
        atomic_init(&life, TG__RUNNING);
        tg_move first, m;
        uint64_t visited, fresh_visited;
        uint32_t depth;
        /* An earlier search fills the table (1 MB: 256 pages). */
        TU_OK(run(&e, s, &life, 20000, &first, &visited, &depth));
        assert_true(visited > 0);
        size_t bytes = e.tt_entries * 16;
        unsigned char *before = malloc(bytes);
        assert_non_null(before);
        memcpy(before, e.tt, bytes);

        atomic_store(&life, TG__STOPPING);
        m = 0xA5A5A5A5u;
        TU_OK(run(&e, s, &life, 20000, &m, &visited, &depth));
        assert_true(tg_state_is_legal(s, m));
        assert_true(visited == 0);
        assert_int_equal(depth, 0);
        assert_memory_equal(before, e.tt, bytes);

        /* A freed handle's life stops it the same way. */
        atomic_store(&life, TG__FREED);
        TU_OK(run(&e, s, &life, 20000, &m, &visited, &depth));
        assert_true(visited == 0);

        /* Running again: cleared whole, so the same as a fresh engine. */
        atomic_store(&life, TG__RUNNING);
        TU_OK(run(&e, s, &life, 5000, &m, &visited, &depth));
        tg_move fm;
        uint32_t fresh_depth;
        TU_OK(run(&fresh, s, &life, 5000, &fm, &fresh_visited, &fresh_depth));
        assert_int_equal(m, fm);
        assert_true(visited == fresh_visited);
        assert_int_equal(depth, fresh_depth);

        free(before);
        tg__engine_release(&e);
        tg__engine_release(&fresh);
        tg_state_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_while_clearing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

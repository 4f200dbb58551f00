/* Stopping searches from other threads: a stop during a 10-minute search (search and mcts,
 * choose and analyse) returns a legal move or a full analysis; a stop before a search or
 * after one does not reach the next; two stops are one; a stop during the table's clearing
 * is honoured; a second search on a running handle is refused; a free while a search runs in
 * another thread is honoured by that search. What is asserted is what the design guarantees
 * (returns, legal moves, statuses), never a wall-clock bound: the latencies are measured by
 * tools/tg-search-bench. scripts/test.sh runs this under ThreadSanitizer too. */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */

#include "test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define LONG_SEARCH "search:time=600000,tt=1"
#define LONG_MCTS "mcts:time=600000,iterations=10000000"

struct job {
    tg_search *h;
    const tg_state *s;
    bool analyse;
    tg_status status;
    tg_move move;
    atomic_bool done;
};

static void *run_job(void *arg)
{
    struct job *j = arg;
    uint64_t rng = 1;
    j->status = j->analyse ? tg_search_analyse(j->h, j->s, &rng)
                           : tg_search_choose(j->h, j->s, &rng, &j->move);
    atomic_store(&j->done, true);
    return NULL;
}

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Until the job's search is running (its handle refuses readers) or it is done. */
static void wait_running(struct job *j)
{
    while (!atomic_load(&j->done) && tg_search_stats(j->h, NULL, NULL) != TG_ERR_BUSY)
        pause_ms(1);
}

static void start(struct job *j, pthread_t *t, tg_search *h, const tg_state *s, bool analyse)
{
    j->h = h;
    j->s = s;
    j->analyse = analyse;
    j->status = TG_ERR_INVALID_ARGUMENT;
    j->move = 0xA5A5A5A5u;
    atomic_init(&j->done, false);
    assert_int_equal(pthread_create(t, NULL, run_job, j), 0);
    wait_running(j);
}

static bool legal(const tg_state *s, tg_move m)
{
    return tg_state_is_legal(s, m);
}

/* Waits for a job that chooses: whatever stopped it, it returns a legal move of its position. */
static void join_chosen(struct job *j, pthread_t t)
{
    pthread_join(t, NULL);
    TU_OK(j->status);
    assert_true(legal(j->s, j->move));
}

static const char *const rule_sets[] = {"halusa", "hus", "hawalis", "walak-pussa", "tab"};

static void test_stop_running(void **unused)
{
    (void)unused;
    const char *const specs[] = {LONG_SEARCH, LONG_MCTS};
    for (size_t g = 0; g < 5; g++)
        for (size_t k = 0; k < 2; k++)
            for (int analyse = 0; analyse < 2; analyse++) {
                tg_state *s = tu_midgame(rule_sets[g], 10 + g);
                tg_search *h = tu_search_new(specs[k]);
                struct job j;
                pthread_t t;
                start(&j, &t, h, s, analyse);
                /* Running: a second search and the readers are refused. */
                uint64_t rng = 0;
                tg_move m;
                if (atomic_load(&j.done))
                    TU_FAIL("%s %s finished: %s", rule_sets[g], specs[k],
                            tg_status_string(j.status));
                TU_STATUS(TG_ERR_BUSY, tg_search_choose(h, s, &rng, &m));
                TU_STATUS(TG_ERR_BUSY, tg_search_analyse(h, s, &rng));
                TU_STATUS(TG_ERR_BUSY, tg_search_result(h, 0, &m, NULL, NULL));
                TU_STATUS(TG_ERR_BUSY, tg_search_result_line(h, 0, NULL, 0, NULL));
                assert_int_equal(tg_search_result_count(h), 0);
                pause_ms(20);
                TU_OK(tg_search_stop(h));
                TU_OK(tg_search_stop(h)); /* twice is once */
                pthread_join(t, NULL);
                TU_OK(j.status);
                if (analyse) {
                    tg_move all[512];
                    size_t n;
                    TU_OK(tg_state_moves(s, all, 512, &n));
                    assert_int_equal(tg_search_result_count(h), n);
                    for (size_t i = 0; i < n; i++) {
                        double v;
                        TU_OK(tg_search_result(h, i, &m, &v, NULL));
                        assert_true(legal(s, m));
                        assert_true(v >= -1.0 && v <= 1.0);
                    }
                } else {
                    assert_true(legal(s, j.move));
                }
                tg_search_free(h);
                tg_state_free(s);
            }
}

/* A stop with no search running reaches no later search: node-bounded searches after it
 * give what a fresh handle gives. */
static void test_stop_idle(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < 5; g++) {
        tg_state *s = tu_midgame(rule_sets[g], 30 + g);
        tg_search *h = tu_search_new("search:nodes=4000,tt=1");
        tg_search *fresh = tu_search_new("search:nodes=4000,tt=1");
        uint64_t rng = 0, stats_fresh, stats_h;
        tg_move a, b;
        TU_OK(tg_search_choose(fresh, s, &rng, &a));
        TU_OK(tg_search_stats(fresh, &stats_fresh, NULL));
        TU_OK(tg_search_stop(h)); /* before any search */
        TU_OK(tg_search_stop(h));
        TU_OK(tg_search_choose(h, s, &rng, &b));
        TU_OK(tg_search_stats(h, &stats_h, NULL));
        assert_int_equal(a, b);
        assert_true(stats_h == stats_fresh);
        TU_OK(tg_search_stop(h)); /* after a search */
        TU_OK(tg_search_choose(h, s, &rng, &b));
        TU_OK(tg_search_stats(h, &stats_h, NULL));
        assert_int_equal(a, b);
        assert_true(stats_h == stats_fresh);
        tg_search_free(fresh);
        tg_search_free(h);
        tg_state_free(s);
    }
}

/* tg_search_free from this thread while the search runs in another: the search stops and
 * releases the handle itself, still returning a legal move (valgrind and ASan check the
 * memory). */
static void test_free_while_running(void **unused)
{
    (void)unused;
    const char *const specs[] = {LONG_SEARCH, LONG_MCTS};
    for (size_t g = 0; g < 5; g++)
        for (size_t k = 0; k < 2; k++) {
            tg_state *s = tu_midgame(rule_sets[g], 50 + g);
            tg_search *h = tu_search_new(specs[k]);
            struct job j;
            pthread_t t;
            start(&j, &t, h, s, false);
            pause_ms(5);
            tg_search_free(h);
            join_chosen(&j, t);
            tg_state_free(s);
        }
}

/* A stop as soon as the second search on a handle runs: it lands while that search clears
 * the table the first one filled (32 MB here; lib/search.c looks at the stop between chunks
 * of it, tests/test_search_setup.c asserts that without threads) or just after. Either way
 * the search returns at once with a legal move; with no position visited, no iteration is
 * reported finished. */
static void test_stop_while_clearing(void **unused)
{
    (void)unused;
    for (size_t g = 0; g < 5; g++) {
        tg_state *s = tu_midgame(rule_sets[g], 110 + g);
        tg_search *h = tu_search_new("search:time=600000,tt=32");
        for (int k = 0; k < 3; k++) {
            struct job j;
            pthread_t t;
            start(&j, &t, h, s, false);
            if (k == 0)
                pause_ms(20); /* the first fills the table */
            TU_OK(tg_search_stop(h));
            join_chosen(&j, t);
            uint64_t nodes;
            uint32_t depth;
            TU_OK(tg_search_stats(h, &nodes, &depth));
            if (nodes == 0)
                assert_int_equal(depth, 0);
        }
        tg_search_free(h);
        tg_state_free(s);
    }
}

/* Many threads, each with its own handle, and another thread stopping all of them. */
#define SWARM 6
static void test_stop_many(void **unused)
{
    (void)unused;
    tg_state *s[SWARM];
    tg_search *h[SWARM];
    struct job j[SWARM];
    pthread_t t[SWARM];
    for (int i = 0; i < SWARM; i++) {
        s[i] = tu_midgame(rule_sets[i % 5], 70 + (uint64_t)i);
        h[i] = tu_search_new(i % 2 ? LONG_MCTS : LONG_SEARCH);
        start(&j[i], &t[i], h[i], s[i], i % 3 == 0);
    }
    for (int i = 0; i < SWARM; i++)
        TU_OK(tg_search_stop(h[i]));
    for (int i = 0; i < SWARM; i++) {
        pthread_join(t[i], NULL);
        TU_OK(j[i].status);
        if (!j[i].analyse)
            assert_true(legal(s[i], j[i].move));
        else
            assert_true(tg_search_result_count(h[i]) > 0);
        tg_search_free(h[i]);
        tg_state_free(s[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_running),        cmocka_unit_test(test_stop_idle),
        cmocka_unit_test(test_free_while_running),  cmocka_unit_test(test_stop_many),
        cmocka_unit_test(test_stop_while_clearing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Threads: 8 threads share one tg_rules per game (all five games) and each plays many games on
 * its own states: tg_state_new, apply_random, playout, clone, copy, undo, to_string and
 * from_string, perft, and the bots (greedy and a small mcts search). Every thread's work is
 * deterministic given its seed, so the same work done afterwards on one thread must give the
 * same digest: any interference shows.
 * scripts/test.sh runs this under ThreadSanitizer too. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t under -std=c11 */

#include "test_util.h"

#include <pthread.h>

#define THREADS 8
#define GAMES_PER_RULES 20 /* games each thread plays of each rule set */
#define MAX_PLIES 300

static const char *const specs[] = {"halusa", "hus", "hawalis", "walak-pussa", "tab"};
#define SPEC_COUNT (sizeof specs / sizeof specs[0])

static tg_rules *shared[SPEC_COUNT]; /* made before the threads start, read-only after */

struct job {
    unsigned index;
    uint64_t seed;
    pthread_barrier_t *start; /* NULL when run on the main thread */
    uint64_t digest;
    unsigned long steps;
    int error_line; /* 0: no error; else the line of the first failed check */
};

static uint64_t mix(uint64_t digest, uint64_t value)
{
    uint64_t x = digest ^ value;
    return tu_splitmix64(&x);
}

static uint64_t text_hash(const char *text)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (const char *p = text; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3u;
    return h;
}

/* No cmocka in the threads (it is not thread-safe): the first failure is recorded. */
#define CHECK(job, cond)                                                                           \
    do {                                                                                           \
        if (!(cond) && !(job)->error_line)                                                         \
            (job)->error_line = __LINE__;                                                          \
    } while (0)

static void play_one(struct job *job, const tg_rules *r, uint64_t *rng)
{
    char text[4096], again[4096];
    tg_state *s = NULL, *scratch = NULL;
    CHECK(job, tg_state_new(r, &s) == TG_OK);
    CHECK(job, tg_state_new(r, &scratch) == TG_OK);
    if (!s || !scratch) {
        tg_state_free(s);
        tg_state_free(scratch);
        return;
    }
    for (unsigned ply = 0; ply < MAX_PLIES && !tg_state_is_terminal(s); ply++) {
        job->steps++;
        CHECK(job, tg_state_apply_random(s, rng) == TG_OK);
        job->digest = mix(job->digest, tg_state_hash(s));
        uint64_t choice = tu_splitmix64(rng) % 16;
        if (choice == 0) {
            /* Round trip through text, with the shared rules. */
            size_t needed = 0;
            CHECK(job, tg_state_to_string(s, text, sizeof text, &needed) == TG_OK);
            tg_state *t = NULL;
            CHECK(job, tg_state_from_string(r, text, &t) == TG_OK);
            if (t) {
                CHECK(job, tg_state_equal(s, t));
                CHECK(job, tg_state_to_string(t, again, sizeof again, &needed) == TG_OK);
                CHECK(job, strcmp(text, again) == 0);
                tg_state_free(t);
            }
            job->digest = mix(job->digest, text_hash(text));
        } else if (choice == 1) {
            /* A clone plays on by itself; the original must not notice. */
            uint64_t before = tg_state_hash(s);
            tg_state *c = NULL;
            CHECK(job, tg_state_clone(s, &c) == TG_OK);
            if (c) {
                size_t plies = 0;
                CHECK(job, tg_state_playout(c, rng, 1000, &plies) == TG_OK);
                job->digest = mix(job->digest, tg_state_hash(c) + plies);
                tg_state_free(c);
            }
            CHECK(job, tg_state_hash(s) == before);
        } else if (choice == 2) {
            /* Copy into a scratch state, play it out, copy back the original. */
            CHECK(job, tg_state_copy(scratch, s) == TG_OK);
            CHECK(job, tg_state_equal(scratch, s));
            size_t plies = 0;
            CHECK(job, tg_state_playout(scratch, rng, 50, &plies) == TG_OK);
            job->digest = mix(job->digest, tg_state_hash(scratch) ^ plies);
        } else if (choice == 3) {
            /* Undo a few moves and replay them. */
            size_t count = 0;
            tg_move hist[MAX_PLIES + 1];
            CHECK(job, tg_state_history(s, hist, MAX_PLIES + 1, &count) == TG_OK);
            uint64_t before = tg_state_hash(s);
            size_t back = count < 3 ? count : 3;
            for (size_t i = 0; i < back; i++)
                CHECK(job, tg_state_undo(s) == TG_OK);
            job->digest = mix(job->digest, tg_state_hash(s));
            for (size_t i = count - back; i < count; i++)
                CHECK(job, tg_state_apply(s, hist[i]) == TG_OK);
            CHECK(job, tg_state_hash(s) == before);
        } else if (choice == 4 && ply % 4 == 0) {
            job->digest = mix(job->digest, tg_perft(s, 2));
        } else if ((choice == 5 || (choice == 6 && ply % 4 == 0)) && !tg_state_is_terminal(s)) {
            /* A bot reads the state (greedy, or a small search) and must leave it alone. */
            uint64_t before = tg_state_hash(s);
            tg_move m = 0;
            CHECK(job, tg_bot_choose(s, choice == 5 ? "greedy" : "mcts:iterations=16", rng, &m) ==
                           TG_OK);
            CHECK(job, tg_state_is_legal(s, m));
            CHECK(job, tg_state_hash(s) == before);
            job->digest = mix(job->digest, m);
        }
    }
    job->digest = mix(job->digest, tg_state_ply(s));
    job->digest = mix(job->digest, (uint64_t)(int64_t)tg_state_winner(s));
    tg_state_free(scratch);
    tg_state_free(s);
}

static void *work(void *arg)
{
    struct job *job = arg;
    if (job->start)
        pthread_barrier_wait(job->start);
    uint64_t rng = job->seed;
    job->digest = job->seed;
    for (unsigned k = 0; k < GAMES_PER_RULES; k++) {
        /* Each thread goes through the rule sets in its own order, so that different games
         * run side by side on the same shared rules. */
        for (size_t i = 0; i < SPEC_COUNT; i++)
            play_one(job, shared[(i + job->index) % SPEC_COUNT], &rng);
    }
    return NULL;
}

static void test_shared_rules(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < SPEC_COUNT; i++)
        shared[i] = tu_rules(specs[i]);

    struct job jobs[THREADS];
    pthread_t threads[THREADS];
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (unsigned t = 0; t < THREADS; t++) {
        jobs[t] = (struct job){.index = t, .seed = 0x5eed0000u + t * 7919u, .start = &start};
        assert_int_equal(pthread_create(&threads[t], NULL, work, &jobs[t]), 0);
    }
    for (unsigned t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(threads[t], NULL), 0);
    pthread_barrier_destroy(&start);

    /* The same work again, one job at a time on this thread. */
    for (unsigned t = 0; t < THREADS; t++) {
        if (jobs[t].error_line)
            TU_FAIL("thread %u: check at line %d failed", t, jobs[t].error_line);
        struct job alone = {.index = t, .seed = jobs[t].seed, .start = NULL};
        work(&alone);
        assert_int_equal(alone.error_line, 0);
        if (alone.digest != jobs[t].digest || alone.steps != jobs[t].steps)
            TU_FAIL("thread %u: digest %016llx after %lu steps, alone %016llx after %lu", t,
                    (unsigned long long)jobs[t].digest, jobs[t].steps,
                    (unsigned long long)alone.digest, alone.steps);
        printf("# thread %u: %lu moves, digest %016llx\n", t, jobs[t].steps,
               (unsigned long long)jobs[t].digest);
        for (unsigned u = 0; u < t; u++)
            assert_true(jobs[u].digest != jobs[t].digest); /* the seeds really differ */
    }

    for (size_t i = 0; i < SPEC_COUNT; i++) {
        tg_rules_free(shared[i]);
        shared[i] = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

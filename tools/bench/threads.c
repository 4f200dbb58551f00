/* tg-bench [threads]: the playout rate of T threads at once over the rate of one. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "clock-random.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

struct worker {
    pthread_t thread;
    tg_state *root, *scratch; /* the thread's own */
    uint64_t rng;
    double seconds;
    uint64_t games;
    double elapsed, cpu; /* wall-clock and the thread's CPU time */
    int ok;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    double start = tool_seconds(), cpu_start = tool_thread_cpu_seconds();
    do {
        for (int i = 0; i < 16; i++) {
            size_t n = 0;
            if (tg_state_copy(w->scratch, w->root) != TG_OK ||
                tg_state_playout(w->scratch, &w->rng, MAX_PLAYOUT_PLIES, &n) != TG_OK)
                return NULL;
            w->games++;
        }
        w->elapsed = tool_seconds() - start;
    } while (w->elapsed < w->seconds);
    w->cpu = tool_thread_cpu_seconds() - cpu_start;
    w->ok = 1;
    return NULL;
}

/* The summed playout rate of `n` threads running at once; NaN on failure. `*cpu_share`: the
 * threads' CPU time over their wall-clock time, averaged (near 1 when each had a core). */
double threads_rate(const tg_state *root, int n, double seconds, uint64_t seed, double *cpu_share)
{
    struct worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    int made = 0, started = 0, ok = 1;
    for (; made < n; made++) {
        w[made].rng = run_seed(seed, made, 0x7E7E7E7Eu);
        w[made].seconds = seconds;
        if (tg_state_clone(root, &w[made].root) != TG_OK ||
            tg_state_clone(root, &w[made].scratch) != TG_OK) {
            made++;
            ok = 0;
            break;
        }
    }
    if (ok)
        for (; started < n; started++)
            if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0) {
                ok = 0;
                break;
            }
    for (int i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    double rate = 0.0, share = 0.0;
    for (int i = 0; i < made; i++) {
        if (ok && w[i].ok && w[i].elapsed > 0) {
            rate += (double)w[i].games / w[i].elapsed;
            share += w[i].cpu / w[i].elapsed / n;
        } else
            ok = 0;
        tg_state_free(w[i].root);
        tg_state_free(w[i].scratch);
    }
    *cpu_share = ok ? share : NAN;
    return ok ? rate : NAN;
}

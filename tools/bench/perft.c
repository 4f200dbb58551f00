/* tg-bench [perft]: tg_perft() at the first depth that takes a noticeable time. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include "clock-random.h"

#include <math.h>
#include <stdint.h>

/* The first depth whose call takes `noticeable` seconds. A deeper call is not started when the
 * growth so far says it would take far too long; the depth of the last call with leaves. */
void perft_depth(const tg_state *root, double seconds, struct result *r)
{
    double noticeable = seconds / 5 < 0.2 ? seconds / 5 : 0.2;
    double too_long = 20 * seconds + 2;
    double last = 0.0, before_last = 0.0;
    unsigned depth = 1;
    uint64_t nodes = 0;
    for (;;) {
        double t0 = tool_seconds();
        nodes = tg_perft(root, depth);
        before_last = last;
        last = tool_seconds() - t0;
        if (last >= noticeable || nodes == 0 || depth == MAX_PERFT_DEPTH)
            break;
        double growth = before_last > 1e-6 ? last / before_last : 1000.0;
        if (last > 1e-3 && last * growth > too_long)
            break;
        depth++;
    }
    if (nodes == 0 && depth > 1) {
        /* Every line ended above this depth: measure the deepest one that has leaves. */
        depth--;
        nodes = tg_perft(root, depth);
    }
    r->perft_depth = depth;
    r->perft_leaves = nodes;
}

void perft_run(const tg_state *root, double seconds, struct result *r, int run)
{
    uint64_t total = 0;
    double spent = 0.0;
    do {
        double t0 = tool_seconds();
        total += tg_perft(root, r->perft_depth);
        spent += tool_seconds() - t0;
    } while (spent < seconds && r->perft_leaves != 0);
    r->perft_per_s[run] = spent > 0 ? (double)total / spent : NAN;
}

/* The native half of scripts/bench-wasm.sh: GAMES random playouts of SPEC from the start, each
 * tg_state_copy() of the initial position into a scratch state then tg_state_playout() to the
 * end (at most 10000 plies, as tg-bench), the generator seeded with SEED and carried from game
 * to game. bench.js does exactly the same through the JavaScript API, so both play the same
 * games and only the time differs.
 *
 *   native-bench SPEC SEED GAMES      prints {"seconds": T, "plies": P}
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <traditional-games.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: native-bench SPEC SEED GAMES\n");
        return 2;
    }
    uint64_t rng = strtoull(argv[2], NULL, 10);
    unsigned long games = strtoul(argv[3], NULL, 10);
    tg_rules *rules = NULL;
    tg_state *initial = NULL, *scratch = NULL;
    tg_status st = tg_rules_new(argv[1], &rules);
    if (st == TG_OK)
        st = tg_state_new(rules, &initial);
    if (st == TG_OK)
        st = tg_state_new(rules, &scratch);
    if (st != TG_OK) {
        fprintf(stderr, "native-bench: %s: %s\n", argv[1], tg_status_string(st));
        return 1;
    }
    uint64_t total = 0;
    double t0 = now();
    for (unsigned long g = 0; g < games; g++) {
        size_t plies = 0;
        tg_state_copy(scratch, initial);
        tg_state_playout(scratch, &rng, 10000, &plies);
        total += plies;
    }
    double seconds = now() - t0;
    printf("{\"seconds\": %.9f, \"plies\": %" PRIu64 "}\n", seconds, total);
    tg_state_free(scratch);
    tg_state_free(initial);
    tg_rules_free(rules);
    return 0;
}

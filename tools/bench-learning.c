/* The learning interface's speed (docs/learning.md, "Measured"), for scripts/bench-learning.sh:
 * for each rule set named, in one run, random playouts (tg_state_playout, plies per second)
 * and tg_batch_step at batch size N with observations, masks, rewards and done flags written
 * (steps per second; a step is one decision of one game plus the chance outcomes thrown after
 * it), the actions drawn uniformly from the masks the previous step wrote. The time of the
 * draws is measured apart and left out of the steps/s figure, and given as the total too.
 * Prints one JSON object per rule set.
 *
 *   bench-learning SECONDS N SPEC...                                                        */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <traditional-games.h>

#include "clock-random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double playout_rate(const tg_rules *r, double seconds)
{
    tg_state *start, *s;
    if (tg_state_new(r, &start) != TG_OK || tg_state_new(r, &s) != TG_OK)
        exit(1);
    uint64_t rng = 1, plies = 0;
    double t0 = tool_seconds(), t;
    do {
        size_t n = 0;
        for (int k = 0; k < 20; k++) {
            tg_state_copy(s, start);
            tg_state_playout(s, &rng, SIZE_MAX, &n);
            plies += n;
        }
        t = tool_seconds();
    } while (t - t0 < seconds);
    tg_state_free(s);
    tg_state_free(start);
    return (double)plies / (t - t0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SECONDS N SPEC...\n", argv[0]);
        return 2;
    }
    double seconds = atof(argv[1]);
    size_t n = (size_t)atol(argv[2]);
    for (int a = 3; a < argc; a++) {
        tg_rules *r;
        if (tg_rules_new(argv[a], &r) != TG_OK) {
            fprintf(stderr, "bad spec %s\n", argv[a]);
            return 2;
        }
        size_t A = tg_rules_action_count(r), F = tg_rules_observation_size(r);
        float *obs = malloc(n * F * sizeof *obs), *reward = malloc(n * sizeof *reward),
              *rewards = malloc(2 * n * sizeof *rewards);
        uint8_t *masks = malloc(n * A), *done = malloc(n);
        int8_t *players = malloc(n);
        int32_t *status = malloc(n * sizeof *status);
        uint32_t *actions = malloc(n * sizeof *actions), *legal = malloc(A * sizeof *legal);
        tg_batch *b;
        if (!obs || !reward || !rewards || !masks || !done || !players || !status || !actions ||
            !legal || tg_batch_new(r, n, 1, &b) != TG_OK)
            return 1;
        /* Five rounds of each, alternating, so that a change of load on a shared machine
         * falls on both. */
        double plies_per_s = 0;
        tg_batch_reset(b, obs, masks, players);
        uint64_t rng = 7, steps = 0;
        double in_step = 0, in_choice = 0;
        for (int round = 0; round < 5; round++) {
            plies_per_s += playout_rate(r, seconds / 5) / 5;
            double t0 = tool_seconds(), t = t0;
            while (t - t0 < seconds / 5) {
                for (size_t i = 0; i < n; i++) {
                    size_t k = 0;
                    for (size_t x = 0; x < A; x++)
                        if (masks[i * A + x])
                            legal[k++] = (uint32_t)x;
                    actions[i] = legal[(size_t)(tool_splitmix64(&rng) % k)];
                }
                double t1 = tool_seconds();
                if (tg_batch_step(b, actions, TG_BATCH_AUTORESET, obs, masks, players, reward,
                                  rewards, done, status) != TG_OK)
                    return 1;
                double t2 = tool_seconds();
                in_choice += t1 - t;
                in_step += t2 - t1;
                steps += n;
                t = t2;
            }
        }
        printf("{\"spec\": \"%s\", \"playout_plies_per_s\": %.0f, \"batch\": %zu, "
               "\"batch_steps_per_s\": %.0f, \"batch_steps_per_s_with_choice\": %.0f, "
               "\"playout_over_batch\": %.2f, \"observation_floats\": %zu, \"actions\": %zu}\n",
               tg_rules_spec(r), plies_per_s, n, (double)steps / in_step,
               (double)steps / (in_step + in_choice), plies_per_s / ((double)steps / in_step), F,
               A);
        fflush(stdout);
        tg_batch_free(b);
        free(obs), free(reward), free(rewards), free(masks), free(done), free(players);
        free(status), free(actions), free(legal);
        tg_rules_free(r);
    }
    return 0;
}

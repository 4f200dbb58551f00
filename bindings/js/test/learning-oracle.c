/* The native side of test/learning.test.js: batches stepped by the native library, for the
 * WebAssembly build to match. Reads lines `SPEC SEED N STEPS PICK` and, for each, steps a
 * tg_batch of N games seeded with SEED STEPS times with TG_BATCH_AUTORESET, the action of game
 * i being its k-th legal action in the mask, k = splitmix64(PICK stream) mod the number legal,
 * drawn game by game; prints one JSON line: the final positions, the generators, and checksums
 * of every observation, mask, reward and done flag written (exact: the values are integers). */
#include <traditional-games.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static void fail(const char *what)
{
    fprintf(stderr, "learning-oracle: %s\n", what);
    exit(1);
}

int main(void)
{
    char line[1024], spec[512];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t seed, pick;
        size_t n, steps;
        if (sscanf(line, "%511s %" SCNu64 " %zu %zu %" SCNu64, spec, &seed, &n, &steps, &pick) != 5)
            fail("bad scenario");
        tg_rules *r;
        tg_batch *b;
        if (tg_rules_new(spec, &r) != TG_OK || tg_batch_new(r, n, seed, &b) != TG_OK)
            fail("bad spec");
        size_t F = tg_rules_observation_size(r), A = tg_rules_action_count(r);
        float *obs = malloc(n * F * sizeof *obs), *reward = malloc(n * sizeof *reward);
        uint8_t *masks = malloc(n * A), *done = malloc(n);
        int8_t *players = malloc(n);
        uint32_t *actions = malloc(n * sizeof *actions);
        if (!obs || !reward || !masks || !done || !players || !actions)
            fail("out of memory");
        tg_batch_seed(b, seed); /* as VectorEnv.reset(seed) does */
        tg_batch_reset(b, obs, masks, players);
        double obs_sum = 0, mask_sum = 0, reward_sum = 0, players_sum = 0;
        size_t finished = 0;
        for (size_t t = 0; t < steps; t++) {
            for (size_t i = 0; i < n; i++) {
                size_t legal = 0;
                for (size_t a = 0; a < A; a++)
                    legal += masks[i * A + a];
                size_t k = (size_t)(next(&pick) % legal);
                for (size_t a = 0; a < A; a++) {
                    if (masks[i * A + a] && k-- == 0) {
                        actions[i] = (uint32_t)a;
                        break;
                    }
                }
            }
            if (tg_batch_step(b, actions, TG_BATCH_AUTORESET, obs, masks, players, reward, NULL,
                              done, NULL) != TG_OK)
                fail("step refused");
            for (size_t j = 0; j < n * F; j++)
                obs_sum += (double)obs[j] * (double)(j % 7 + 1);
            for (size_t j = 0; j < n * A; j++)
                mask_sum += (double)masks[j] * (double)(j % 5 + 1);
            for (size_t i = 0; i < n; i++) {
                reward_sum += (double)reward[i] * (double)(i + 1);
                players_sum += (double)players[i] * (double)(i + 1);
                finished += done[i];
            }
        }
        tg_state *s;
        if (tg_state_new(r, &s) != TG_OK)
            fail("state");
        printf("{\"texts\":[");
        for (size_t i = 0; i < n; i++) {
            char text[4096];
            uint64_t rng;
            tg_batch_get(b, i, s);
            tg_state_to_string(s, text, sizeof text, NULL);
            tg_batch_rng(b, i, &rng);
            printf("%s\"%s %" PRIu64 "\"", i ? "," : "", text, rng);
        }
        printf("],\"obs\":\"%.0f\",\"masks\":\"%.0f\",\"reward\":\"%.0f\",\"players\":\"%.0f\","
               "\"done\":%zu}\n",
               obs_sum, mask_sum, reward_sum, players_sum, finished);
        tg_state_free(s);
        free(obs), free(reward), free(masks), free(done), free(players), free(actions);
        tg_batch_free(b);
        tg_rules_free(r);
    }
    return 0;
}

/* The library's documented generator (splitmix64) and the fast paths built on it: random
 * moves, playouts and perft. Nothing here allocates. */
#include "internal.h"

uint64_t tg__splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A uniform index below n: Lemire's multiply-shift on the high 32 bits of a draw, with
 * rejection of the few values that would bias it. */
uint32_t tg__uniform_below(uint64_t *rng, uint32_t n)
{
    uint64_t m = (tg__splitmix64(rng) >> 32) * (uint64_t)n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (tg__splitmix64(rng) >> 32) * (uint64_t)n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

tg_move tg__pick(const struct tg_config *cfg, const struct tg_pos *pos, uint64_t *rng,
                 const tg_move *moves, const double *prob, size_t n)
{
    (void)cfg;
    if (pos->phase != TG__CHANCE)
        return moves[tg__uniform_below(rng, (uint32_t)n)];
    /* The top 53 bits as a fraction in [0, 1), against the running sum of probabilities. */
    double u = (double)(tg__splitmix64(rng) >> 11) * (1.0 / 9007199254740992.0);
    double sum = 0.0;
    for (size_t i = 0; i + 1 < n; i++) {
        sum += prob[i];
        if (u < sum)
            return moves[i];
    }
    return moves[n - 1];
}

size_t tg__playout(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng, size_t max_plies,
                   uint64_t *stats)
{
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t plies = 0;
    while (plies < max_plies) {
        size_t n = tg__options_now(cfg, pos, moves, prob);
        if (n == 0)
            break;
        bool chance = pos->phase == TG__CHANCE;
        uint64_t result = tg__play(cfg, pos, tg__pick(cfg, pos, rng, moves, prob, n));
        plies++;
        if (stats) {
            stats[chance ? TG_STAT_CHANCE : TG_STAT_DECISIONS]++;
            stats[TG_STAT_SOWN] += result >> TG__SOWN_SHIFT;
        }
    }
    if (stats)
        stats[TG_STAT_PLIES] += plies;
    return plies;
}

uint64_t tg__perft(const struct tg_config *cfg, const struct tg_pos *pos, unsigned depth)
{
    if (depth == 0)
        return 1;
    tg_move moves[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, pos, moves, NULL);
    if (depth == 1)
        return n;
    uint64_t leaves = 0;
    for (size_t i = 0; i < n; i++) {
        struct tg_pos child = *pos;
        tg__play(cfg, &child, moves[i]);
        leaves += tg__perft(cfg, &child, depth - 1);
    }
    return leaves;
}

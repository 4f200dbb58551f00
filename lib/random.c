/* The library's documented generator (splitmix64) and the fast paths built on it: random
 * moves, playouts and perft. Nothing here allocates. */
#include "internal.h"

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

/* The library's documented generator (splitmix64) and the fast paths built on it: random
 * moves, playouts and perft. Nothing here allocates. */
#include "internal.h"

size_t tg__playout(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng, size_t max_plies,
                   uint64_t *stats)
{
    return cfg->game->playout(cfg, pos, rng, max_plies, stats);
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

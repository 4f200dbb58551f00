/* The random playout loop and its draw, written once as inline templates: each game
 * instantiates one with its own functions (tg_game.playout), which the compiler then inlines
 * into the loop, saving the indirect calls a ply (and, for move sets, the listing). */
#ifndef TG_PLAYOUT_H
#define TG_PLAYOUT_H

#include "game.h"
#include "rng.h"

/* The random choice among listed options (tg_state_apply_random()'s draw): a uniform index
 * for a decision; for a chance outcome, the top 53 bits of a draw as a fraction in [0, 1)
 * against the running sum of probabilities. */
static inline tg_move tg__pick(const struct tg_config *cfg, const struct tg_pos *pos, uint64_t *rng,
                               const tg_move *moves, const double *prob, size_t n)
{
    (void)cfg;
    if (pos->phase != TG__CHANCE)
        return moves[tg__uniform_below(rng, (uint32_t)n)];
    double u = (double)(tg__splitmix64(rng) >> 11) * (1.0 / 9007199254740992.0);
    double sum = 0.0;
    for (size_t i = 0; i + 1 < n; i++) {
        sum += prob[i];
        if (u < sum)
            return moves[i];
    }
    return moves[n - 1];
}

/* For a game's playout function: inline everything it calls, the game's own functions
 * included, into one loop. */
#if defined(__GNUC__)
#define TG__FLATTEN __attribute__((flatten))
#else
#define TG__FLATTEN
#endif

typedef size_t tg__moves_fn(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out);
typedef size_t tg__chance_fn(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out,
                             double *prob);

/* Random plies until the game ends or max_plies, each option listed and one drawn by
 * tg__pick(): tg_state_apply_random() repeated, for any game, with the game's
 * functions as parameters (chance NULL for a game without chance). stats: NULL, or
 * TG_STAT_COUNT counters to add to. */
static inline size_t tg__listed_playout(const struct tg_config *cfg, struct tg_pos *pos,
                                        uint64_t *rng, size_t max_plies, uint64_t *stats,
                                        tg__moves_fn *moves, tg__chance_fn *chance,
                                        tg__apply_fn *apply)
{
    tg_move options[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t plies = 0;
    /* Counted unconditionally: three additions a ply cost less than a branch on `stats`. */
    uint64_t chance_plies = 0, sown = 0;
    while (plies < max_plies) {
        size_t n = 0;
        bool at_chance = pos->phase == TG__CHANCE;
        if (pos->phase == TG__DECIDE)
            n = moves(cfg, pos, options);
        else if (at_chance && chance)
            n = chance(cfg, pos, options, prob);
        if (n == 0)
            break;
        tg_move m = tg__pick(cfg, pos, rng, options, prob, n);
        sown += tg__play_with(cfg, pos, m, apply) >> TG__SOWN_SHIFT;
        plies++;
        chance_plies += at_chance;
    }
    if (stats) {
        stats[TG_STAT_PLIES] += plies;
        stats[TG_STAT_DECISIONS] += plies - chance_plies;
        stats[TG_STAT_CHANCE] += chance_plies;
        stats[TG_STAT_SOWN] += sown;
    }
    return plies;
}

/* tg__listed_playout() for a game without chance whose decisions form a move set, drawn
 * without listing: the k-th set bit is the k-th listed move, so each ply draws exactly what
 * tg_state_apply_random() draws. */
static inline size_t tg__move_set_playout(const struct tg_config *cfg, struct tg_pos *pos,
                                          uint64_t *rng, size_t max_plies, uint64_t *stats,
                                          tg__move_set_fn *move_set, tg__apply_fn *apply)
{
    size_t plies = 0;
    uint64_t sown = 0;
    while (plies < max_plies && pos->phase == TG__DECIDE) {
        unsigned first;
        uint64_t set = move_set(cfg, pos, &first);
        if (!set)
            break;
        tg_move m = tg__move_set_nth(set, first, tg__uniform_below(rng, tg__bit_count(set)));
        sown += tg__play_with(cfg, pos, m, apply) >> TG__SOWN_SHIFT;
        plies++;
    }
    if (stats) {
        stats[TG_STAT_PLIES] += plies;
        stats[TG_STAT_DECISIONS] += plies;
        stats[TG_STAT_SOWN] += sown;
    }
    return plies;
}

#endif

/* The features of a position that the `search` engine's fitted evaluation weighs (per game;
 * docs/bots.md "The fitted evaluation" lists them), and the fitted weights (search_weights.c,
 * written by tools/arena/fit_evaluation.py). Every feature is a lead: the value for player
 * `me` less the same value for the opponent, a whole number, so that the evaluation is integer
 * arithmetic and the search's moves are the same on every machine. */
#ifndef TG_SEARCH_FEATURES_H
#define TG_SEARCH_FEATURES_H

#include "game.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TG__FEATURES_MAX = 8 };

/* A game's fitted evaluation: sum of weight[i] * feature i, in centi-counters (a counter of
 * score lead is 100 when the fit is anchored on it). `chosen`: matches at equal node budgets
 * (docs/strength.md, "Fitted evaluation") made it the game's default evaluation. */
struct tg__fitted_eval {
    const struct tg_game *game;
    bool chosen;
    size_t count;
    int32_t weight[TG__FEATURES_MAX];
};

/* The fitted evaluations, one per game that has one; tg__fitted_eval_count entries. */
extern const struct tg__fitted_eval tg__fitted_evals[];
extern const size_t tg__fitted_eval_count;

/* The features of `pos` for player `me` into `out` (room for TG__FEATURES_MAX); returns how
 * many the game has (0: none). */
size_t tg__eval_features(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                         int32_t *out);

/* The name of feature `i` of `game` (for the fitting tool's output), or NULL past the last. */
const char *tg__eval_feature_name(const struct tg_game *game, size_t i);

#endif

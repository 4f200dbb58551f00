/* The `search` engine's static evaluation of a position, per game, and the translation of an
 * engine value into an analysis value in [-1, 1]. */
#include "search.h"
#include "search_features.h"

/* The classic heuristic (the evaluation of games where the fitted one did not win its
 * matches, and `eval=classic`): the score lead in centi-counters (captured counters in Halusa,
 * Hawalis and Walak-pussa, counters in own rows in Hus, captured pieces in At-Tab wa-d-Dukk); in
 * Halusa 0.3 a counter of the lead on the board (the counters on one's own row: what the quiet
 * limit gives each player, and the material that captures come from); in Walak-pussa 0.6 a
 * counter of the lead on the board (either ending gives each player their own row) less 0.7 for
 * each more empty hole on one's row (an empty hole is where the opponent's sowing stops and
 * captures the hole after it): a least-squares fit to self-play results gave both signs, and
 * matches against mcts chose these weights near it (docs/strength.md); in At-Tab wa-d-Dukk 0.3
 * of a piece for each piece freed from its home row. */
static int classic_evaluate(const struct tg_config *cfg, const struct tg_pos *pos, int me)
{
    long v = 100L * ((long)pos->score[me] - (long)pos->score[1 - me]);
    if (cfg->game == &tg__halusa) {
        long own = 0, all = 0;
        for (int cell = 0; cell < cfg->cells; cell++)
            all += pos->cell[cell];
        for (int cell = me * cfg->cols; cell < (me + 1) * cfg->cols; cell++)
            own += pos->cell[cell];
        v += 30 * (2 * own - all);
    }
    if (cfg->game == &tg__walak_pussa) {
        long row[2] = {0, 0}, empty[2] = {0, 0};
        for (int r = 0; r < 2; r++)
            for (int cell = r * cfg->cols; cell < (r + 1) * cfg->cols; cell++) {
                row[r] += pos->cell[cell];
                empty[r] += pos->cell[cell] == 0;
            }
        v += 60 * (row[me] - row[1 - me]) - 70 * (empty[me] - empty[1 - me]);
    }
    if (cfg->game == &tg__tab) {
        for (int cell = 0; cell < cfg->cells; cell++) {
            int owner = cfg->game->owner(cfg, pos, cell);
            if (owner < 0 || cfg->game->flags(cfg, pos, cell) & TG_CELL_LOCKED)
                continue;
            long pieces = cfg->game->count(cfg, pos, cell);
            v += owner == me ? 30 * pieces : -30 * pieces;
        }
    }
    return v > TG__EVAL_MAX ? TG__EVAL_MAX : v < -TG__EVAL_MAX ? -TG__EVAL_MAX : (int)v;
}

static const struct tg__fitted_eval *fitted_for(const struct tg_game *game)
{
    for (size_t i = 0; i < tg__fitted_eval_count; i++)
        if (tg__fitted_evals[i].game == game)
            return &tg__fitted_evals[i];
    return NULL;
}

/* The fitted evaluation: the weights are hundredths of the search's unit, so that a small
 * weight (Tab's progress, a fraction of a centi-piece a hole) keeps its precision; the sum is
 * divided once, truncating towards 0 so that the value of one side is minus the other's. */
static int fitted_evaluate(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                           const struct tg__fitted_eval *fit)
{
    int32_t f[TG__FEATURES_MAX];
    size_t n = tg__eval_features(cfg, pos, me, f);
    long long v = 0;
    for (size_t i = 0; i < n && i < fit->count; i++)
        v += (long long)fit->weight[i] * f[i];
    v /= 100;
    return v > TG__EVAL_MAX ? TG__EVAL_MAX : v < -TG__EVAL_MAX ? -TG__EVAL_MAX : (int)v;
}

int tg__engine_evaluate_as(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                           enum tg__eval_kind kind)
{
    const struct tg__fitted_eval *fit = fitted_for(cfg->game);
    bool fitted = fit && (kind == TG__EVAL_FITTED || (kind == TG__EVAL_DEFAULT && fit->chosen));
    return fitted ? fitted_evaluate(cfg, pos, me, fit) : classic_evaluate(cfg, pos, me);
}

int tg__engine_evaluate(const struct tg_config *cfg, const struct tg_pos *pos, int me)
{
    return tg__engine_evaluate_as(cfg, pos, me, TG__EVAL_DEFAULT);
}

double tg__engine_value(int v, bool proven, bool averaged)
{
    if (proven && !averaged)
        return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
    if (proven)
        return (double)v / TG__WIN;
    double x = (double)v / ((v < 0 ? -(double)v : (double)v) + 1000.0);
    return x;
}

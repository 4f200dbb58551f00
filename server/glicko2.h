/* Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2022): a player's rating,
 * its deviation (how unsure it is) and its volatility, brought up to date after a rating
 * period. The server's rating period is one game, as lichess's is (docs/server.md, "Ratings"). */
#ifndef TG_SERVER_GLICKO2_H
#define TG_SERVER_GLICKO2_H

#include <stdbool.h>
#include <stddef.h>

/** @brief A new player's rating, deviation and volatility, and the system constant tau. */
#define GLICKO2_START_RATING 1500.0
#define GLICKO2_START_RD 350.0
#define GLICKO2_START_VOLATILITY 0.06
#define GLICKO2_TAU 0.5
/** @brief A rating whose deviation is above this is provisional (shown with a "?"). */
#define GLICKO2_PROVISIONAL_RD 110.0
/** @brief The bounds every updated rating is kept within (lichess's, but for the largest
 * deviation, which is the starting one: a player away for years is as unknown as a new one). */
#define GLICKO2_MIN_RATING 400.0
#define GLICKO2_MAX_RATING 4000.0
#define GLICKO2_MIN_RD 45.0
#define GLICKO2_MAX_RD GLICKO2_START_RD
#define GLICKO2_MAX_VOLATILITY 0.1

/** @brief A rating on the Glicko scale (1500-centred), with its deviation and volatility. */
struct glicko2_rating {
    double rating, rd, volatility;
};

/** @brief One game of a rating period: the opponent's rating and deviation before the period,
 * and the player's score (1 a win, 0.5 a draw, 0 a loss). */
struct glicko2_game {
    double opponent_rating, opponent_rd, score;
};

/**
 * @brief A new player's rating: GLICKO2_START_RATING, GLICKO2_START_RD,
 * GLICKO2_START_VOLATILITY.
 * @return the starting rating.
 */
struct glicko2_rating glicko2_start(void);

/**
 * @brief Brings @p player up to date after a rating period of @p n games (steps 1 to 8 of
 * Glickman's paper, with the volatility found by the Illinois algorithm of step 5). With no
 * game only the deviation grows, by the volatility. Without @p bounded the result is the
 * paper's exactly; with it, the rating, deviation and volatility are then kept within the
 * GLICKO2_MIN_* and GLICKO2_MAX_* bounds.
 * @param player the rating to update, in place.
 * @param games the period's games (may be NULL when @p n is 0).
 * @param n how many games.
 * @param tau the system constant (GLICKO2_TAU), from 0.2 to 1.2 in Glickman's advice; any
 *        finite positive value is taken.
 * @param bounded whether to keep the result within the bounds.
 * @return false, leaving @p player unchanged, if any input is not finite, a deviation or the
 *         volatility is not positive, a score is outside [0, 1], or @p tau is not positive.
 */
bool glicko2_update(struct glicko2_rating *player, const struct glicko2_game *games, size_t n,
                    double tau, bool bounded);

/**
 * @brief Whether a rating is provisional: its deviation is above GLICKO2_PROVISIONAL_RD.
 * @param r the rating.
 * @return true if provisional.
 */
bool glicko2_is_provisional(const struct glicko2_rating *r);

#endif

/* The learning interface's internals (docs/learning.md): the layout of a rule set's observation
 * and its fixed action space, shared by the single-state calls (learning.c) and the batch
 * (batch.c), and the small table a game fills in when it needs more than the mancala default. */
#ifndef TG_LEARNING_H
#define TG_LEARNING_H

#include "game.h"

/* How decisions become action indices. Both count cells in the observer's frame (the board
 * turned half round for player 1), so that a policy sees every position from the same side. */
enum tg__action_scheme {
    TG__ACTIONS_OWN_HOLES = 0, /* mancala: the hole emptied, among the mover's own half */
    TG__ACTIONS_UNIT_STEPS = 1 /* Tab: (cell, throw value, whole unit or split) */
};

/* A game's part of the learning interface (tg_game.learning); NULL means the mancala default:
 * own-hole actions, no flag planes, no fields of its own. */
struct tg_learning {
    enum tg__action_scheme actions;
    /* The TG_CELL_* flags that can occur under these options, each given a plane. */
    unsigned (*flag_planes)(const struct tg_config *cfg);
    /* The game's own position fields as numbers seen by `player`, written to out unless it is
     * NULL (pos may then be NULL too); returns how many. */
    size_t (*fields)(const struct tg_config *cfg, const struct tg_pos *pos, int player, float *out);
    /* NULL, or the board planes written straight from the game's cells, exactly what the
     * generic reading through count, owner and flags gives (a batch writes them every step). */
    void (*planes)(const struct tg_config *cfg, const struct tg_pos *pos, int player, float *out);
};

/* The scalars every observation has after its planes (docs/learning.md, "Layout"). */
enum {
    TG__OBS_SCORE_MINE,
    TG__OBS_SCORE_THEIRS,
    TG__OBS_MY_TURN,
    TG__OBS_CHANCE,
    TG__OBS_OVER,
    TG__OBS_I_WON,
    TG__OBS_THEY_WON,
    TG__OBS_QUIET,
    TG__OBS_COMMON
};

struct tg__layout {
    enum tg__action_scheme scheme;
    unsigned flags; /* TG_CELL_* bits with planes of their own */
    size_t planes;  /* board planes of cfg->cells floats each */
    size_t fields;  /* game fields after the common scalars */
    size_t size;    /* floats in all */
    size_t actions; /* the fixed action space */
};

void tg__layout_of(const struct tg_config *cfg, struct tg__layout *l);
/* The observation of pos by `player` (0 or 1): l->size floats. */
void tg__observe(const struct tg_config *cfg, const struct tg__layout *l, const struct tg_pos *pos,
                 int player, float *out);
/* The legal decisions at pos as a mask of l->actions bytes (all 0 unless deciding); returns
 * how many are legal. */
size_t tg__action_mask(const struct tg_config *cfg, const struct tg__layout *l,
                       const struct tg_pos *pos, uint8_t *mask);
/* The move an action in range stands for at a decision position, legal or not; false if it
 * stands for none (a unit that is not there, a split of a unit too small to split). */
bool tg__action_move(const struct tg_config *cfg, const struct tg__layout *l,
                     const struct tg_pos *pos, uint32_t action, tg_move *m);

#endif

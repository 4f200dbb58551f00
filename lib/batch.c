/* tg_batch: many states of one rule set stepped by one call, for training loops
 * (docs/learning.md). Each state has its own generator, its mask of legal actions kept from
 * the last step (so that an action is checked without listing the moves again), its ply and
 * whose view its last observation was. Everything is allocated by tg_batch_new(); a step
 * allocates nothing and touches nothing outside the batch and the caller's buffers, so one
 * batch per thread runs without locks. */
#include "learning.h"

#include "internal.h"

#include <string.h>

struct tg_batch {
    struct tg_rules rules;
    struct tg__layout layout;
    size_t n;
    struct tg_pos *pos;
    uint64_t *rng;
    size_t *ply;
    uint8_t *mask;  /* n x layout.actions: the legal actions of each state now */
    int8_t *viewer; /* the player each state is seen by: to move, or the last mover */
};

/* Chance outcomes drawn as tg_state_apply_random() draws them, until a decision or the end. */
static void throw_chance(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng,
                         size_t *ply)
{
    while (pos->phase == TG__CHANCE) {
        tg_move outcomes[TG__MAX_MOVES];
        double prob[TG__MAX_MOVES];
        size_t n = cfg->game->chance(cfg, pos, outcomes, prob);
        tg__play(cfg, pos, tg__pick(cfg, pos, rng, outcomes, prob, n));
        ++*ply;
    }
}

static void start_game(tg_batch *b, size_t i)
{
    const struct tg_config *cfg = &b->rules.cfg;
    struct tg_pos *pos = &b->pos[i];
    memset(pos, 0, sizeof *pos);
    pos->winner = TG_NO_WINNER_YET;
    cfg->game->init(cfg, pos);
    b->ply[i] = 0;
    throw_chance(cfg, pos, &b->rng[i], &b->ply[i]);
}

/* The state's mask and view after it changed, and what the caller asked to see of them. */
static void settle(tg_batch *b, size_t i, int viewer)
{
    const struct tg_config *cfg = &b->rules.cfg;
    const struct tg_pos *pos = &b->pos[i];
    if (pos->phase != TG__OVER)
        viewer = pos->side;
    b->viewer[i] = (int8_t)viewer;
    tg__action_mask(cfg, &b->layout, pos, b->mask + i * b->layout.actions);
}

static void report(const tg_batch *b, size_t i, float *obs, uint8_t *masks, int8_t *players)
{
    const struct tg__layout *l = &b->layout;
    if (obs)
        tg__observe(&b->rules.cfg, l, &b->pos[i], b->viewer[i], obs + i * l->size);
    if (masks)
        memcpy(masks + i * l->actions, b->mask + i * l->actions, l->actions);
    if (players)
        players[i] = b->viewer[i];
}

/* The i-th output of splitmix64 seeded with `seed` (i from 0): state i's generator. */
static uint64_t seed_of(uint64_t seed, size_t i)
{
    uint64_t s = seed + 0x9E3779B97F4A7C15u * (uint64_t)i;
    return tg__splitmix64(&s);
}

tg_status tg_batch_new(const tg_rules *r, size_t n, uint64_t seed, tg_batch **out)
{
    if (!r || !out || n == 0)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__layout l;
    tg__layout_of(&r->cfg, &l);
    /* Every array's size must be representable. */
    if (n > SIZE_MAX / sizeof(struct tg_pos) || n > SIZE_MAX / (l.actions ? l.actions : 1))
        return TG_ERR_NO_MEMORY;
    tg_batch *b = tg__realloc(NULL, sizeof *b);
    if (!b)
        return TG_ERR_NO_MEMORY;
    memset(b, 0, sizeof *b);
    b->rules = *r;
    b->layout = l;
    b->n = n;
    b->pos = tg__realloc(NULL, n * sizeof *b->pos);
    b->rng = tg__realloc(NULL, n * sizeof *b->rng);
    b->ply = tg__realloc(NULL, n * sizeof *b->ply);
    b->mask = tg__realloc(NULL, n * l.actions);
    b->viewer = tg__realloc(NULL, n * sizeof *b->viewer);
    if (!b->pos || !b->rng || !b->ply || !b->mask || !b->viewer) {
        tg_batch_free(b);
        return TG_ERR_NO_MEMORY;
    }
    tg_batch_seed(b, seed);
    tg_batch_reset(b, NULL, NULL, NULL);
    *out = b;
    return TG_OK;
}

void tg_batch_free(tg_batch *b)
{
    if (!b)
        return;
    tg__realloc(b->pos, 0);
    tg__realloc(b->rng, 0);
    tg__realloc(b->ply, 0);
    tg__realloc(b->mask, 0);
    tg__realloc(b->viewer, 0);
    tg__realloc(b, 0);
}

size_t tg_batch_size(const tg_batch *b)
{
    return b ? b->n : 0;
}

const tg_rules *tg_batch_rules(const tg_batch *b)
{
    return b ? &b->rules : NULL;
}

tg_status tg_batch_seed(tg_batch *b, uint64_t seed)
{
    if (!b)
        return TG_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < b->n; i++)
        b->rng[i] = seed_of(seed, i);
    return TG_OK;
}

tg_status tg_batch_reset(tg_batch *b, float *obs, uint8_t *masks, int8_t *players)
{
    if (!b)
        return TG_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < b->n; i++) {
        start_game(b, i);
        settle(b, i, 0);
        report(b, i, obs, masks, players);
    }
    return TG_OK;
}

/* One state's step; the status says whether the action was taken. */
static tg_status step_one(tg_batch *b, size_t i, uint32_t action, bool autoreset, float *reward,
                          float *rewards, uint8_t *done)
{
    const struct tg_config *cfg = &b->rules.cfg;
    const struct tg__layout *l = &b->layout;
    struct tg_pos *pos = &b->pos[i];
    tg_move m;
    tg_status st = TG_OK;
    if (action >= l->actions)
        st = TG_ERR_INVALID_ARGUMENT;
    else if (pos->phase == TG__OVER)
        st = TG_ERR_GAME_OVER;
    else if (!b->mask[i * l->actions + action])
        st = TG_ERR_ILLEGAL_MOVE;
    else if (l->scheme == TG__ACTIONS_OWN_HOLES)
        /* The mask said legal, so the action is a hole of the mover (tg__action_move()). */
        m = (tg_move)(pos->side ? cfg->cells - 1 - (int)action : (int)action);
    else if (!tg__action_move(cfg, l, pos, action, &m))
        st = TG_ERR_ILLEGAL_MOVE;
    float r[2] = {0.0f, 0.0f};
    int mover = pos->side;
    if (st == TG_OK) {
        tg__play(cfg, pos, m);
        b->ply[i]++;
        if (pos->phase == TG__CHANCE)
            throw_chance(cfg, pos, &b->rng[i], &b->ply[i]);
    }
    bool over = pos->phase == TG__OVER;
    if (st == TG_OK && over) {
        r[0] = pos->winner == 0 ? 1.0f : pos->winner == 1 ? -1.0f : 0.0f;
        r[1] = -r[0];
    }
    if (reward)
        reward[i] = st == TG_OK ? r[mover] : 0.0f;
    if (rewards) {
        rewards[2 * i] = r[0];
        rewards[2 * i + 1] = r[1];
    }
    if (done)
        done[i] = over;
    if (st != TG_OK)
        return st;
    if (over && autoreset)
        start_game(b, i);
    settle(b, i, mover);
    return TG_OK;
}

tg_status tg_batch_step(tg_batch *b, const uint32_t *actions, uint32_t flags, float *obs,
                        uint8_t *masks, int8_t *players, float *reward, float *rewards,
                        uint8_t *done, int32_t *status)
{
    if (!b || !actions || (flags & ~(uint32_t)TG_BATCH_AUTORESET))
        return TG_ERR_INVALID_ARGUMENT;
    tg_status first = TG_OK;
    bool autoreset = flags & TG_BATCH_AUTORESET;
    for (size_t i = 0; i < b->n; i++) {
        tg_status st = step_one(b, i, actions[i], autoreset, reward, rewards, done);
        if (status)
            status[i] = (int32_t)st;
        if (first == TG_OK)
            first = st;
        report(b, i, obs, masks, players);
    }
    return first;
}

tg_status tg_batch_restart(tg_batch *b, const uint8_t *games, float *obs, uint8_t *masks,
                           int8_t *players)
{
    if (!b || !games)
        return TG_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < b->n; i++) {
        if (!games[i])
            continue;
        /* What TG_BATCH_AUTORESET does to a game that ended, so that a caller who steps
           without it (to read the final observation first) gets the same games. */
        start_game(b, i);
        settle(b, i, 0);
        report(b, i, obs, masks, players);
    }
    return TG_OK;
}

tg_status tg_batch_get(const tg_batch *b, size_t i, tg_state *dst)
{
    if (!b || !dst || i >= b->n)
        return TG_ERR_INVALID_ARGUMENT;
    if (!tg__rules_same(&b->rules, &dst->rules))
        return TG_ERR_RULES_MISMATCH;
    dst->pos = b->pos[i];
    dst->ply = b->ply[i];
    dst->history_len = 0;
    return TG_OK;
}

tg_status tg_batch_set(tg_batch *b, size_t i, const tg_state *src)
{
    if (!b || !src || i >= b->n)
        return TG_ERR_INVALID_ARGUMENT;
    if (!tg__rules_same(&b->rules, &src->rules))
        return TG_ERR_RULES_MISMATCH;
    if (src->pos.phase == TG__CHANCE)
        return TG_ERR_INVALID_ARGUMENT;
    b->pos[i] = src->pos;
    b->ply[i] = src->ply;
    settle(b, i, src->pos.side);
    return TG_OK;
}

tg_status tg_batch_rng(const tg_batch *b, size_t i, uint64_t *out)
{
    if (!b || !out || i >= b->n)
        return TG_ERR_INVALID_ARGUMENT;
    *out = b->rng[i];
    return TG_OK;
}

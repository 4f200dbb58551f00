/* The boundary: every public entry point checks its arguments here, maps failures to a
 * tg_status and makes sure a failed call changes nothing. Nothing game-specific lives here. */
#include "internal.h"

#include <string.h>

#define STATUS_LIST(X)                                                                             \
    X(TG_OK, "success")                                                                            \
    X(TG_ERR_INVALID_ARGUMENT, "invalid argument (NULL pointer or index out of range)")            \
    X(TG_ERR_NO_MEMORY, "out of memory")                                                           \
    X(TG_ERR_UNKNOWN_GAME, "unknown game")                                                         \
    X(TG_ERR_BAD_OPTION, "unknown, repeated or out-of-range option")                               \
    X(TG_ERR_ILLEGAL_MOVE, "illegal move")                                                         \
    X(TG_ERR_PARSE, "malformed notation or impossible position")                                   \
    X(TG_ERR_BUFFER_TOO_SMALL, "buffer too small")                                                 \
    X(TG_ERR_NO_HISTORY, "no move to undo")                                                        \
    X(TG_ERR_GAME_OVER, "the game is over")                                                        \
    X(TG_ERR_RULES_MISMATCH, "different rule sets")                                               \
    X(TG_ERR_BUSY, "a search is running on this handle")

const char *tg_status_string(tg_status s)
{
    switch (s) {
#define STATUS_CASE(code, text)                                                                    \
    case code:                                                                                     \
        return text;
        STATUS_LIST(STATUS_CASE)
#undef STATUS_CASE
    }
    return "unknown status";
}

#define TG__STR2(x) #x
#define TG__STR(x) TG__STR2(x)

unsigned tg_version(void)
{
    return TG_VERSION_NUMBER;
}

const char *tg_version_string(void)
{
    return TG__STR(TG_VERSION_MAJOR) "." TG__STR(TG_VERSION_MINOR) "." TG__STR(TG_VERSION_PATCH);
}

/* ---- catalogue ------------------------------------------------------------------------- */

size_t tg_game_count(void)
{
    return tg__game_count();
}

const char *tg_game_id(size_t i)
{
    const struct tg_game *g = tg__game_at(i);
    return g ? g->id : NULL;
}

const char *tg_game_name(size_t i)
{
    const struct tg_game *g = tg__game_at(i);
    return g ? g->name : NULL;
}

size_t tg_game_option_count(size_t i)
{
    const struct tg_game *g = tg__game_at(i);
    return g ? g->option_count : 0;
}

static const struct tg_option_def *option_at(size_t i, size_t k)
{
    const struct tg_game *g = tg__game_at(i);
    return g && k < g->option_count ? &g->options[k] : NULL;
}

const char *tg_game_option_key(size_t i, size_t k)
{
    const struct tg_option_def *d = option_at(i, k);
    return d ? d->key : NULL;
}

const char *tg_game_option_values(size_t i, size_t k)
{
    const struct tg_option_def *d = option_at(i, k);
    return d ? d->values : NULL;
}

const char *tg_game_option_default(size_t i, size_t k)
{
    const struct tg_option_def *d = option_at(i, k);
    return d ? d->def : NULL;
}

/* ---- rule sets ------------------------------------------------------------------------- */

tg_status tg_rules_new(const char *spec, tg_rules **out)
{
    if (!spec || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_rules parsed;
    tg_status st = tg__rules_parse(spec, strlen(spec), &parsed);
    if (st != TG_OK)
        return st;
    tg_rules *r = tg__realloc(NULL, sizeof *r);
    if (!r)
        return TG_ERR_NO_MEMORY;
    *r = parsed;
    *out = r;
    return TG_OK;
}

void tg_rules_free(tg_rules *r)
{
    tg__realloc(r, 0);
}

const char *tg_rules_spec(const tg_rules *r)
{
    return r ? r->spec : NULL;
}

const char *tg_rules_game_id(const tg_rules *r)
{
    return r ? r->cfg.game->id : NULL;
}

int tg_rules_rows(const tg_rules *r)
{
    return r ? r->cfg.rows : -1;
}

int tg_rules_cols(const tg_rules *r)
{
    return r ? r->cfg.cols : -1;
}

size_t tg_rules_max_moves(const tg_rules *r)
{
    return r ? r->cfg.max_moves : 0;
}

/* ---- states ---------------------------------------------------------------------------- */

tg_status tg_state_new(const tg_rules *r, tg_state **out)
{
    if (!r || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_pos pos;
    memset(&pos, 0, sizeof pos);
    pos.winner = TG_NO_WINNER_YET;
    r->cfg.game->init(&r->cfg, &pos);
    return tg__state_make(r, &pos, 0, out);
}

tg_status tg_state_clone(const tg_state *s, tg_state **out)
{
    if (!s || !out)
        return TG_ERR_INVALID_ARGUMENT;
    tg_state *c;
    tg_status st = tg__state_make(&s->rules, &s->pos, s->history_len, &c);
    if (st != TG_OK)
        return st;
    if (s->history_len)
        memcpy(c->history, s->history, s->history_len * sizeof *s->history);
    c->history_len = s->history_len;
    c->ply = s->ply;
    *out = c;
    return TG_OK;
}

tg_status tg_state_copy(tg_state *dst, const tg_state *src)
{
    if (!dst || !src)
        return TG_ERR_INVALID_ARGUMENT;
    if (!tg__rules_same(&dst->rules, &src->rules))
        return TG_ERR_RULES_MISMATCH;
    dst->pos = src->pos;
    dst->ply = src->ply;
    dst->history_len = 0;
    return TG_OK;
}

void tg_state_free(tg_state *s)
{
    if (!s)
        return;
    tg__realloc(s->history, 0);
    tg__realloc(s, 0);
}

const tg_rules *tg_state_rules(const tg_state *s)
{
    return s ? &s->rules : NULL;
}

int tg_state_player(const tg_state *s)
{
    if (!s || s->pos.phase == TG__OVER)
        return TG_TERMINAL;
    return s->pos.phase == TG__CHANCE ? TG_CHANCE : s->pos.side;
}

int tg_state_turn(const tg_state *s)
{
    if (!s || s->pos.phase == TG__OVER)
        return TG_TERMINAL;
    return s->pos.side;
}

bool tg_state_is_terminal(const tg_state *s)
{
    return !s || s->pos.phase == TG__OVER;
}

int tg_state_winner(const tg_state *s)
{
    return s ? s->pos.winner : TG_NO_WINNER_YET;
}

int tg_state_score(const tg_state *s, int player)
{
    if (!s || (player != 0 && player != 1))
        return -1;
    return s->pos.score[player];
}

tg_status tg_state_returns(const tg_state *s, double out[2])
{
    if (!s || !out)
        return TG_ERR_INVALID_ARGUMENT;
    int w = s->pos.phase == TG__OVER ? s->pos.winner : TG_NO_WINNER_YET;
    out[0] = w == 0 ? 1.0 : w == 1 ? -1.0 : 0.0;
    out[1] = -out[0];
    return TG_OK;
}

size_t tg_state_ply(const tg_state *s)
{
    return s ? s->ply : 0;
}

/* The buffer contract of the list functions: count always, write all or nothing. */
static tg_status check_list(const void *buf, size_t cap, size_t *count)
{
    if (!count || (!buf && cap))
        return TG_ERR_INVALID_ARGUMENT;
    return TG_OK;
}

tg_status tg_state_history(const tg_state *s, tg_move *buf, size_t cap, size_t *count)
{
    if (!s || check_list(buf, cap, count) != TG_OK)
        return TG_ERR_INVALID_ARGUMENT;
    *count = s->history_len;
    if (!buf && cap == 0)
        return TG_OK;
    if (cap < s->history_len)
        return TG_ERR_BUFFER_TOO_SMALL;
    for (size_t i = 0; i < s->history_len; i++)
        buf[i] = s->history[i].move;
    return TG_OK;
}

/* ---- moves ----------------------------------------------------------------------------- */

tg_status tg_state_moves(const tg_state *s, tg_move *buf, size_t cap, size_t *count)
{
    if (!s || check_list(buf, cap, count) != TG_OK)
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg_config *cfg = &s->rules.cfg;
    if (s->pos.phase != TG__DECIDE) {
        *count = 0;
        return TG_OK;
    }
    tg_move moves[TG__MAX_MOVES];
    size_t n = cfg->game->moves(cfg, &s->pos, moves);
    *count = n;
    if (!buf && cap == 0)
        return TG_OK;
    if (cap < n)
        return TG_ERR_BUFFER_TOO_SMALL;
    memcpy(buf, moves, n * sizeof *moves);
    return TG_OK;
}

tg_status tg_state_chance(const tg_state *s, tg_move *outcomes, double *probs, size_t cap,
                          size_t *count)
{
    if (!s || !count || (cap && (!outcomes || !probs)))
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg_config *cfg = &s->rules.cfg;
    if (s->pos.phase != TG__CHANCE) {
        *count = 0;
        return TG_OK;
    }
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, &s->pos, moves, prob);
    *count = n;
    if (cap == 0 && !outcomes && !probs)
        return TG_OK;
    if (cap < n)
        return TG_ERR_BUFFER_TOO_SMALL;
    memcpy(outcomes, moves, n * sizeof *moves);
    memcpy(probs, prob, n * sizeof *prob);
    return TG_OK;
}

static bool legal_now(const tg_state *s, tg_move m)
{
    tg_move moves[TG__MAX_MOVES];
    size_t n = tg__options_now(&s->rules.cfg, &s->pos, moves, NULL);
    for (size_t i = 0; i < n; i++) {
        if (moves[i] == m)
            return true;
    }
    return false;
}

bool tg_state_is_legal(const tg_state *s, tg_move m)
{
    return s && legal_now(s, m);
}

/* Records, then plays: the history grows before the position changes, so a failed
 * allocation leaves the state as it was. */
static tg_status apply_checked(tg_state *s, tg_move m)
{
    tg_status st = tg__state_push(s, m);
    if (st != TG_OK)
        return st;
    tg__play(&s->rules.cfg, &s->pos, m);
    s->ply++;
    return TG_OK;
}

tg_status tg_state_apply(tg_state *s, tg_move m)
{
    if (!s)
        return TG_ERR_INVALID_ARGUMENT;
    if (s->pos.phase == TG__OVER)
        return TG_ERR_GAME_OVER;
    if (!legal_now(s, m))
        return TG_ERR_ILLEGAL_MOVE;
    return apply_checked(s, m);
}

tg_status tg_state_undo(tg_state *s)
{
    if (!s)
        return TG_ERR_INVALID_ARGUMENT;
    if (s->history_len == 0)
        return TG_ERR_NO_HISTORY;
    s->history_len--;
    s->pos = s->history[s->history_len].before;
    s->ply--;
    return TG_OK;
}

tg_status tg_state_apply_random(tg_state *s, uint64_t *rng)
{
    if (!s || !rng)
        return TG_ERR_INVALID_ARGUMENT;
    if (s->pos.phase == TG__OVER)
        return TG_ERR_GAME_OVER;
    const struct tg_config *cfg = &s->rules.cfg;
    tg_move moves[TG__MAX_MOVES];
    double prob[TG__MAX_MOVES];
    size_t n = tg__options_now(cfg, &s->pos, moves, prob);
    if (n == 0)
        return TG_ERR_GAME_OVER;
    uint64_t next = *rng;
    tg_move m = tg__pick(cfg, &s->pos, &next, moves, prob, n);
    tg_status st = apply_checked(s, m);
    if (st == TG_OK)
        *rng = next;
    return st;
}

/* ---- board ----------------------------------------------------------------------------- */

static int cell_index(const tg_state *s, int row, int col)
{
    if (!s || row < 0 || col < 0 || row >= s->rules.cfg.rows || col >= s->rules.cfg.cols)
        return -1;
    return row * s->rules.cfg.cols + col;
}

int tg_state_count(const tg_state *s, int row, int col)
{
    int c = cell_index(s, row, col);
    return c < 0 ? -1 : s->rules.cfg.game->count(&s->rules.cfg, &s->pos, c);
}

int tg_state_owner(const tg_state *s, int row, int col)
{
    int c = cell_index(s, row, col);
    return c < 0 ? -1 : s->rules.cfg.game->owner(&s->rules.cfg, &s->pos, c);
}

unsigned tg_state_flags(const tg_state *s, int row, int col)
{
    int c = cell_index(s, row, col);
    return c < 0 ? 0u : s->rules.cfg.game->flags(&s->rules.cfg, &s->pos, c);
}

/* ---- notation -------------------------------------------------------------------------- */

/* Text output under the buffer contract: measure, then write only if it all fits. */
static tg_status deliver(struct tg_out *measured, char *buf, size_t cap, size_t *needed)
{
    if (needed)
        *needed = measured->len;
    if (!buf && cap == 0)
        return TG_OK;
    if (measured->len >= cap)
        return TG_ERR_BUFFER_TOO_SMALL;
    return TG_OK;
}

tg_status tg_move_to_string(const tg_state *s, tg_move m, char *buf, size_t cap, size_t *needed)
{
    if (!s || (!buf && cap))
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg_config *cfg = &s->rules.cfg;
    struct tg_out o = {NULL, 0, 0};
    if (!cfg->game->move_to_string(cfg, &s->pos, m, &o))
        return TG_ERR_INVALID_ARGUMENT;
    tg_status st = deliver(&o, buf, cap, needed);
    if (st == TG_OK && buf) {
        struct tg_out w = {buf, cap, 0};
        cfg->game->move_to_string(cfg, &s->pos, m, &w);
    }
    return st;
}

tg_status tg_move_from_string(const tg_state *s, const char *text, tg_move *out)
{
    if (!s || !text || !out)
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg_config *cfg = &s->rules.cfg;
    tg_move m;
    if (!cfg->game->move_from_string(cfg, &s->pos, text, strlen(text), &m))
        return TG_ERR_PARSE;
    *out = m;
    return TG_OK;
}

tg_status tg_state_to_string(const tg_state *s, char *buf, size_t cap, size_t *needed)
{
    if (!s || (!buf && cap))
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_out o = {NULL, 0, 0};
    tg__pos_write(&s->rules, &s->pos, &o);
    tg_status st = deliver(&o, buf, cap, needed);
    if (st == TG_OK && buf) {
        struct tg_out w = {buf, cap, 0};
        tg__pos_write(&s->rules, &s->pos, &w);
    }
    return st;
}

tg_status tg_state_from_string(const tg_rules *r, const char *text, tg_state **out)
{
    if (!r || !text || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_pos pos;
    tg_status st = tg__pos_parse(r, text, &pos);
    if (st != TG_OK)
        return st;
    return tg__state_make(r, &pos, 0, out);
}

tg_status tg_state_render(const tg_state *s, char *buf, size_t cap, size_t *needed)
{
    if (!s || (!buf && cap))
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_out o = {NULL, 0, 0};
    tg__pos_render(&s->rules, &s->pos, s->ply, &o);
    tg_status st = deliver(&o, buf, cap, needed);
    if (st == TG_OK && buf) {
        struct tg_out w = {buf, cap, 0};
        tg__pos_render(&s->rules, &s->pos, s->ply, &w);
    }
    return st;
}

uint64_t tg_state_hash(const tg_state *s)
{
    return s ? tg__pos_hash(&s->rules.cfg, &s->pos) : 0;
}

bool tg_state_equal(const tg_state *a, const tg_state *b)
{
    return a && b && tg__rules_same(&a->rules, &b->rules) &&
           memcmp(&a->pos, &b->pos, sizeof a->pos) == 0;
}

/* ---- fast paths ------------------------------------------------------------------------ */

tg_status tg_state_playout(tg_state *s, uint64_t *rng, size_t max_plies, size_t *plies)
{
    if (!s || !rng)
        return TG_ERR_INVALID_ARGUMENT;
    size_t n = tg__playout(&s->rules.cfg, &s->pos, rng, max_plies, NULL);
    s->history_len = 0;
    s->ply += n;
    if (plies)
        *plies = n;
    return TG_OK;
}

tg_status tg_state_playout_stats(tg_state *s, uint64_t *rng, size_t max_plies, uint64_t *stats,
                                 size_t count)
{
    if (!s || !rng || (!stats && count))
        return TG_ERR_INVALID_ARGUMENT;
    uint64_t all[TG_STAT_COUNT] = {0};
    size_t n = tg__playout(&s->rules.cfg, &s->pos, rng, max_plies, all);
    s->history_len = 0;
    s->ply += n;
    for (size_t i = 0; i < count; i++)
        stats[i] = i < TG_STAT_COUNT ? all[i] : 0;
    return TG_OK;
}

uint64_t tg_perft(const tg_state *s, unsigned depth)
{
    return s ? tg__perft(&s->rules.cfg, &s->pos, depth) : 0;
}

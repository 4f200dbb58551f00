/* The learning interface for one state (docs/learning.md): observations seen from either
 * player's side, a fixed action space per rule set, the legal-action mask and the mapping
 * between actions and moves. Everything is read through the game table (count, owner, flags
 * and the game's tg_learning); nothing here allocates. */
#include "learning.h"

#include "internal.h"
#include "mancala/board.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Tab's throw values (rules/tab.md) in the order of their action index. */
enum { THROW_KINDS = 5, UNIT_ACTIONS_PER_CELL = 2 * THROW_KINDS };
static const uint8_t throw_values[THROW_KINDS] = {1, 2, 3, 4, 6};

static int throw_kind(unsigned v)
{
    return v >= 1 && v <= 4 ? (int)v - 1 : v == 6 ? 4 : -1;
}

static const struct tg_learning mancala_default = {TG__ACTIONS_OWN_HOLES, NULL, NULL, NULL};

static const struct tg_learning *learning_of(const struct tg_config *cfg)
{
    return cfg->game->learning ? cfg->game->learning : &mancala_default;
}

/* The board turned half round for player 1: observed cell o is this cell. The turn maps each
 * player's rows, ring or track onto player 0's, which the games' symmetry makes exact. */
static inline int frame_cell(const struct tg_config *cfg, int player, int o)
{
    return player ? cfg->cells - 1 - o : o;
}

void tg__layout_of(const struct tg_config *cfg, struct tg__layout *l)
{
    const struct tg_learning *g = learning_of(cfg);
    size_t cells = (size_t)cfg->cells;
    l->scheme = g->actions;
    l->flags = g->flag_planes ? g->flag_planes(cfg) : 0u;
    /* Holes: one plane of counts (ownership is fixed by the frame); units: counts of the
     * observer's and of the opponent's pieces. Each flag adds a plane, or one per side. */
    size_t per_flag = g->actions == TG__ACTIONS_UNIT_STEPS ? 2 : 1;
    l->planes = per_flag * (1 + tg__bit_count(l->flags));
    l->fields = g->fields ? g->fields(cfg, NULL, 0, NULL) : 0;
    l->size = l->planes * cells + TG__OBS_COMMON + l->fields;
    l->actions = g->actions == TG__ACTIONS_UNIT_STEPS ? cells * UNIT_ACTIONS_PER_CELL : cells / 2;
}

static void observe_holes(const struct tg_config *cfg, const struct tg_pos *pos, int player,
                          float *out)
{
    int cells = cfg->cells;
    if (cfg->game->count == tg__mancala_count) {
        /* The counts are the cells themselves: read them straight, the batch's hot loop. */
#if defined(__SSE2__)
        if (cells % 4 == 0) {
            /* Four counts widened to floats at once (turned round for player 1), written in
             * place: no branch per cell. */
            const __m128i zero = _mm_setzero_si128();
            for (int o = 0; o < cells; o += 4) {
                uint32_t four;
                memcpy(&four, pos->cell + (player ? cells - 4 - o : o), sizeof four);
                __m128i x =
                    _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)four), zero), zero);
                __m128 f = _mm_cvtepi32_ps(x);
                if (player)
                    f = _mm_shuffle_ps(f, f, _MM_SHUFFLE(0, 1, 2, 3));
                _mm_storeu_ps(out + o, f);
            }
            return;
        }
#endif
        if (player == 0) {
            for (int o = 0; o < cells; o++)
                out[o] = (float)pos->cell[o];
        } else {
            for (int o = 0; o < cells; o++)
                out[o] = (float)pos->cell[cells - 1 - o];
        }
        return;
    }
    for (int o = 0; o < cells; o++)
        out[o] = (float)cfg->game->count(cfg, pos, frame_cell(cfg, player, o));
}

static void observe_units(const struct tg_config *cfg, const struct tg_pos *pos, int player,
                          float *mine, float *theirs)
{
    for (int o = 0; o < cfg->cells; o++) {
        int cell = frame_cell(cfg, player, o);
        float n = (float)cfg->game->count(cfg, pos, cell);
        int owner = cfg->game->owner(cfg, pos, cell);
        mine[o] = owner == player ? n : 0.0f;
        theirs[o] = owner == 1 - player ? n : 0.0f;
    }
}

static void observe_flag(const struct tg_config *cfg, const struct tg__layout *l,
                         const struct tg_pos *pos, int player, unsigned flag, float *out)
{
    int cells = cfg->cells;
    for (int o = 0; o < cells; o++) {
        int cell = frame_cell(cfg, player, o);
        float set = cfg->game->flags(cfg, pos, cell) & flag ? 1.0f : 0.0f;
        if (l->scheme == TG__ACTIONS_UNIT_STEPS) {
            int owner = cfg->game->owner(cfg, pos, cell);
            out[o] = owner == player ? set : 0.0f;
            out[cells + o] = owner == 1 - player ? set : 0.0f;
        } else {
            out[o] = set;
        }
    }
}

void tg__observe(const struct tg_config *cfg, const struct tg__layout *l, const struct tg_pos *pos,
                 int player, float *out)
{
    size_t cells = (size_t)cfg->cells;
    const struct tg_learning *g = learning_of(cfg);
    float *p = out;
    if (g == &mancala_default) {
        /* The mancala default: one plane of counts, nothing else (a batch's every step). */
        observe_holes(cfg, pos, player, p);
        p += cells;
    } else if (g->planes) {
        g->planes(cfg, pos, player, p);
        p += l->planes * cells;
    } else if (l->scheme == TG__ACTIONS_UNIT_STEPS) {
        observe_units(cfg, pos, player, p, p + cells);
        p += 2 * cells;
    } else {
        observe_holes(cfg, pos, player, p);
        p += cells;
    }
    for (unsigned flags = g->planes || g == &mancala_default ? 0u : l->flags; flags;
         flags &= flags - 1) {
        observe_flag(cfg, l, pos, player, flags & (0u - flags), p);
        p += l->scheme == TG__ACTIONS_UNIT_STEPS ? 2 * cells : cells;
    }
    bool over = pos->phase == TG__OVER;
    p[TG__OBS_SCORE_MINE] = (float)pos->score[player];
    p[TG__OBS_SCORE_THEIRS] = (float)pos->score[1 - player];
    p[TG__OBS_MY_TURN] = !over && pos->side == player ? 1.0f : 0.0f;
    p[TG__OBS_CHANCE] = pos->phase == TG__CHANCE ? 1.0f : 0.0f;
    p[TG__OBS_OVER] = over ? 1.0f : 0.0f;
    p[TG__OBS_I_WON] = over && pos->winner == player ? 1.0f : 0.0f;
    p[TG__OBS_THEY_WON] = over && pos->winner == 1 - player ? 1.0f : 0.0f;
    p[TG__OBS_QUIET] = (float)pos->quiet;
    if (g->fields)
        g->fields(cfg, pos, player, p + TG__OBS_COMMON);
}

/* The action of a decision of the player to move; false for anything that is not one of the
 * forms the scheme covers (a chance outcome, a pass). */
static bool move_action(const struct tg_config *cfg, const struct tg__layout *l,
                        const struct tg_pos *pos, tg_move m, uint32_t *action)
{
    int me = pos->side;
    if (l->scheme == TG__ACTIONS_OWN_HOLES) {
        if (m >= (tg_move)cfg->cells)
            return false;
        int o = frame_cell(cfg, me, (int)m);
        if ((size_t)o >= l->actions)
            return false;
        *action = (uint32_t)o;
        return true;
    }
    unsigned from = m & 0xFF, v = (m >> 8) & 0xFF, count = (m >> 16) & 0xFF;
    int kind = throw_kind(v);
    if ((m >> 24) != 0 || from >= (unsigned)cfg->cells || kind < 0 || count == 0)
        return false;
    bool split = count != (unsigned)cfg->game->count(cfg, pos, (int)from);
    unsigned o = (unsigned)frame_cell(cfg, me, (int)from);
    *action = (uint32_t)((o * THROW_KINDS + (unsigned)kind) * 2 + split);
    return true;
}

bool tg__action_move(const struct tg_config *cfg, const struct tg__layout *l,
                     const struct tg_pos *pos, uint32_t action, tg_move *m)
{
    int me = pos->side;
    if (l->scheme == TG__ACTIONS_OWN_HOLES) {
        *m = (tg_move)frame_cell(cfg, me, (int)action);
        return true;
    }
    int from = frame_cell(cfg, me, (int)(action / UNIT_ACTIONS_PER_CELL));
    unsigned v = throw_values[action / 2 % THROW_KINDS];
    bool split = action % 2;
    int size = cfg->game->count(cfg, pos, from);
    if (size == 0 || cfg->game->owner(cfg, pos, from) != me || (split && (unsigned)size <= v))
        return false;
    /* A split moves v pieces of a bigger unit (rules/tab.md); a 1 splits off one piece. */
    unsigned count = split ? v : (unsigned)size;
    *m = (tg_move)((unsigned)from | v << 8 | count << 16);
    return true;
}

size_t tg__action_mask(const struct tg_config *cfg, const struct tg__layout *l,
                       const struct tg_pos *pos, uint8_t *mask)
{
    if (pos->phase != TG__DECIDE) {
        memset(mask, 0, l->actions);
        return 0;
    }
    if (l->scheme == TG__ACTIONS_OWN_HOLES && cfg->game->move_set) {
        /* The move set itself, a byte per action (a batch's every step): move first + i is
         * action first + i for player 0, cells - 1 - first - i for player 1 (frame_cell()). */
        unsigned first;
        uint64_t set = cfg->game->move_set(cfg, pos, &first), acts = 0;
        size_t n = 0;
        for (; set; set &= set - 1, n++) {
            unsigned m = first + tg__lowest_bit(set);
            acts |= UINT64_C(1) << (pos->side ? (unsigned)cfg->cells - 1 - m : m);
        }
        for (unsigned a = 0; a < l->actions; a++)
            mask[a] = (uint8_t)(acts >> a & 1u);
        return n;
    }
    memset(mask, 0, l->actions);
    tg_move moves[TG__MAX_MOVES];
    size_t n = cfg->game->moves(cfg, pos, moves);
    if (l->scheme == TG__ACTIONS_OWN_HOLES) {
        /* A mancala move is one of the mover's own holes: its action is the hole turned into
         * the mover's frame (move_action() without the checks, a batch's every step). */
        tg_move last = (tg_move)cfg->cells - 1;
        for (size_t i = 0; i < n; i++) {
            tg_move m = moves[i];
            if (m <= last)
                mask[pos->side ? last - m : m] = 1;
        }
        return n;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t a;
        if (move_action(cfg, l, pos, moves[i], &a))
            mask[a] = 1;
    }
    return n;
}

/* ---- public calls ---------------------------------------------------------------------- */

size_t tg_rules_observation_size(const tg_rules *r)
{
    if (!r)
        return 0;
    struct tg__layout l;
    tg__layout_of(&r->cfg, &l);
    return l.size;
}

tg_status tg_rules_observation_layout(const tg_rules *r, size_t *planes, size_t *scalars)
{
    if (!r || !planes || !scalars)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__layout l;
    tg__layout_of(&r->cfg, &l);
    *planes = l.planes;
    *scalars = TG__OBS_COMMON + l.fields;
    return TG_OK;
}

size_t tg_rules_action_count(const tg_rules *r)
{
    if (!r)
        return 0;
    struct tg__layout l;
    tg__layout_of(&r->cfg, &l);
    return l.actions;
}

tg_status tg_state_observation(const tg_state *s, int player, float *out, size_t cap)
{
    if (!s || !out || (player != 0 && player != 1))
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__layout l;
    tg__layout_of(&s->rules.cfg, &l);
    if (cap < l.size)
        return TG_ERR_BUFFER_TOO_SMALL;
    tg__observe(&s->rules.cfg, &l, &s->pos, player, out);
    return TG_OK;
}

tg_status tg_state_action_mask(const tg_state *s, uint8_t *mask, size_t cap)
{
    if (!s || !mask)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__layout l;
    tg__layout_of(&s->rules.cfg, &l);
    if (cap < l.actions)
        return TG_ERR_BUFFER_TOO_SMALL;
    tg__action_mask(&s->rules.cfg, &l, &s->pos, mask);
    return TG_OK;
}

static bool is_decision_now(const tg_state *s, tg_move m)
{
    if (s->pos.phase != TG__DECIDE)
        return false;
    tg_move moves[TG__MAX_MOVES];
    size_t n = s->rules.cfg.game->moves(&s->rules.cfg, &s->pos, moves);
    for (size_t i = 0; i < n; i++) {
        if (moves[i] == m)
            return true;
    }
    return false;
}

/* The legal decision an action stands for now, with the status the public calls give. */
static tg_status legal_move_of(const tg_state *s, const struct tg__layout *l, uint32_t action,
                               tg_move *m)
{
    if (action >= l->actions)
        return TG_ERR_INVALID_ARGUMENT;
    if (s->pos.phase == TG__OVER)
        return TG_ERR_GAME_OVER;
    tg_move found;
    if (s->pos.phase != TG__DECIDE || !tg__action_move(&s->rules.cfg, l, &s->pos, action, &found) ||
        !is_decision_now(s, found))
        return TG_ERR_ILLEGAL_MOVE;
    *m = found;
    return TG_OK;
}

tg_status tg_state_action_to_move(const tg_state *s, uint32_t action, tg_move *out)
{
    if (!s || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__layout l;
    tg__layout_of(&s->rules.cfg, &l);
    return legal_move_of(s, &l, action, out);
}

tg_status tg_state_move_to_action(const tg_state *s, tg_move m, uint32_t *out)
{
    if (!s || !out)
        return TG_ERR_INVALID_ARGUMENT;
    if (s->pos.phase == TG__OVER)
        return TG_ERR_GAME_OVER;
    struct tg__layout l;
    tg__layout_of(&s->rules.cfg, &l);
    uint32_t a;
    if (!is_decision_now(s, m) || !move_action(&s->rules.cfg, &l, &s->pos, m, &a))
        return TG_ERR_ILLEGAL_MOVE;
    *out = a;
    return TG_OK;
}

tg_status tg_state_apply_action(tg_state *s, uint32_t action)
{
    if (!s)
        return TG_ERR_INVALID_ARGUMENT;
    struct tg__layout l;
    tg__layout_of(&s->rules.cfg, &l);
    tg_move m;
    tg_status st = legal_move_of(s, &l, action, &m);
    return st == TG_OK ? tg_state_apply(s, m) : st;
}

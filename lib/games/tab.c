/* At-Tab wa-d-Dukk: Hyde 1694, "Tab al-Qasab", as summarised by the Digital Ludeme Project;
 * rules/tab.md resolves the rest (following Ludii's At-Tab wa-d-Dukk.lud where the source is
 * silent). A race-and-capture game on four rows: each player walks a serpentine track through
 * all four rows, throws four sticks, stores the throws and then spends them one by one. */
#include "../game.h"
#include "../learning.h"
#include "../playout.h"
#include "../story.h"
#include "tab_cells.h"
#include "tab_notation.h"
#include "tab_throws.h"

#include <string.h>

enum { OPT_WIDTH = 0 };

static const char *const width_choices[] = {"13", "19", "21", "29", NULL};
static const int widths[] = {13, 19, 21, 29};

static const struct tg_option_def tab_options[] = {
    {"width", "13|19|21|29", width_choices, 0, 0, "13"},
};

static const char *const tab_fields[] = {"throws"};

/* ---- rules of a single step ------------------------------------------------------------- */

/* Whether the unit of player `me` at track position `p` could move `v` positions, judged by
 * the unlocking, home-row, end-of-track and own-piece rules (not the opponent's-row order). */
static bool can_step(const struct tg_config *cfg, const struct tg_pos *pos, int me, unsigned p,
                     uint8_t unit, unsigned v)
{
    const struct tg_track *track = &cfg->track[me];
    unsigned n = (unsigned)width_of(cfg);
    if ((unit & LOCKED_BIT) && v != 1)
        return false;
    unsigned to = p + v;
    if (to >= track->len)
        return false;
    /* Hyde: no passing over one's own pieces in one's own home row (the first n positions). */
    for (unsigned q = p + 1; q < to && q < n; q++) {
        if (is_mine(pos->cell[track->cell[q]], me))
            return false;
    }
    uint8_t there = pos->cell[track->cell[to]];
    if (!is_mine(there, me))
        return true;
    /* Joining one's own pieces (making or growing a king) only in the central rows. */
    return to >= n && to < 3 * n;
}

/* ---- decisions -------------------------------------------------------------------------- */

/* The rows of player `me`'s track in walking order (tab_setup): r = 0 is the home row, 1 and 2
 * the central rows, 3 the opponent's row. Player 0 walks the home and second central rows
 * eastwards and the others westwards, player 1 the other way round. */
static inline unsigned track_row(int me, unsigned r)
{
    return me ? 3 - r : r;
}

/* The mover's units by board row (bit c of own[row] for column c), so that each rule of a step
 * judges all of them at once by shifting a mask, instead of unit by unit. */
struct mover_rows {
    uint32_t own[4];
    uint32_t locked; /* in the mover's home row, the only row where a piece can be locked */
};

static inline void read_mover_rows(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                                   struct mover_rows *rows)
{
    unsigned n = (unsigned)width_of(cfg);
    /* Written out: the compiler then keeps the masks in registers. */
    rows->own[0] = row_units(pos->cell, n, me);
    rows->own[1] = row_units(pos->cell + n, n, me);
    rows->own[2] = row_units(pos->cell + 2 * n, n, me);
    rows->own[3] = row_units(pos->cell + 3 * n, n, me);
    rows->locked = row_locked(pos->cell + track_row(me, 0) * n, n);
}

/* The low eight bits of x in reverse order (the multiplications place each bit apart). */
static inline uint32_t reverse8(uint32_t x)
{
    uint64_t spread = ((x & 0xFF) * UINT64_C(0x80200802)) & UINT64_C(0x0884422110);
    return (uint32_t)((spread * UINT64_C(0x0101010101)) >> 32) & 0xFF;
}

/* The columns of the second central row from which a step of 8 would land on one of the
 * mover's units in the opponent's row. The track turns between the two rows, so walking on
 * along it walks back along the columns: the first eight positions of the opponent's row
 * mirrored. */
static inline uint32_t landing8(const struct mover_rows *rows, unsigned n, int me)
{
    if (me)
        return reverse8(rows->own[0]);
    return reverse8(rows->own[3] >> (n - 8)) << (n - 8);
}

/* The home-row units with one of their own ahead within v positions, which bars their step;
 * `*reach` is the v of `barred` so far (the values come in ascending order, so each widens
 * the last). Ahead is east for player 0, west for player 1. */
static inline uint32_t barred_at_home(const struct mover_rows *rows, int me, unsigned v,
                                      unsigned *reach, uint32_t barred)
{
    uint32_t at_home = rows->own[track_row(me, 0)];
    for (; *reach < v; ++*reach)
        barred |= me ? at_home << (*reach + 1) : at_home >> (*reach + 1);
    return barred;
}

/* can_step() for every unit of the mover's home and central rows at once: movable[row] marks
 * the columns of the units in that board row that could move v (the opponent's row is left
 * alone); returns them all together, nonzero if any can. `barred` is barred_at_home() and
 * `landing` landing8(). */
static inline uint32_t movable_near(const struct mover_rows *rows, int me, unsigned v,
                                    uint32_t barred, uint32_t landing, uint32_t movable[4])
{
    unsigned home = track_row(me, 0), central = track_row(me, 1), last = track_row(me, 2);
    /* Hyde: no passing over one's own pieces in one's own home row (nor joining them there);
     * a locked piece moves only with a 1. */
    movable[home] = rows->own[home] & ~barred & (v == 1 ? ~UINT32_C(0) : ~rows->locked);
    /* Every step from the first central row ends in the central rows, where anything goes. */
    movable[central] = rows->own[central];
    /* From the second, a step past its end lands in the opponent's row, where one's own pieces
     * may not be joined: a step of v lands there from 8 - v columns further on than one of 8
     * (east for player 0, west for player 1). */
    movable[last] = rows->own[last] & ~(me ? landing >> (8 - v) : landing << (8 - v));
    return movable[home] | movable[central] | movable[last];
}

/* can_step() for every one of the mover's units in the opponent's row at once: not onto one's
 * own pieces, nor past the end of the track (the westernmost column for player 0, walking
 * westwards, the easternmost for player 1). */
static inline uint32_t movable_far(const struct mover_rows *rows, unsigned n, int me, unsigned v)
{
    if (me)
        return rows->own[0] & ~(rows->own[0] >> v) & ((UINT32_C(1) << (n - v)) - 1);
    return rows->own[3] & ~(rows->own[3] << v) & ~((UINT32_C(1) << v) - 1);
}

/* The kinds of throw stored, bit k for throw_value[k] (so the values ascend with the bits). */
static inline uint32_t stored_kinds(const struct tg_pos *pos)
{
#ifdef TAB_CHUNK
    return chunk_nonzero(&STORED(pos, 0)) & ((UINT32_C(1) << THROW_KINDS) - 1);
#else
    uint32_t kinds = 0;
    for (int k = 0; k < THROW_KINDS; k++)
        kinds |= (uint32_t)(STORED(pos, k) != 0) << k;
    return kinds;
#endif
}

/* player_can_decide() and player_decisions() are written for either player and inlined into a
 * copy for each (can_decide_0() ... below), so that each has its directions fixed. Left to
 * itself, clang merged the two calls with a constant `me` into one with a variable `me` (gcc
 * made the copies, clang and the WebAssembly build did not). */
#if defined(__GNUC__)
#define TAB_NOINLINE __attribute__((noinline))
#else
#define TAB_NOINLINE
#endif

static TG__ALWAYS_INLINE bool player_can_decide(const struct tg_config *cfg,
                                                const struct tg_pos *pos, int me, uint32_t kinds)
{
    unsigned n = (unsigned)width_of(cfg);
    /* Most often a unit is in the first central row, from where any value will do. */
    if (row_units(pos->cell + track_row(me, 1) * n, n, me))
        return true;
    struct mover_rows rows;
    read_mover_rows(cfg, pos, me, &rows);
    uint32_t landing = landing8(&rows, n, me), barred = 0, movable[4];
    unsigned reach = 0;
    for (; kinds; kinds &= kinds - 1) {
        unsigned v = throw_value[tg__lowest_bit(kinds)];
        barred = barred_at_home(&rows, me, v, &reach, barred);
        if (movable_near(&rows, me, v, barred, landing, movable) || movable_far(&rows, n, me, v))
            return true;
    }
    return false;
}

/* A listing of decisions in the making. A decision's count is its most significant part, then
 * its value, then its cell; so every count of 1 comes first, listed value by value in cell
 * order, and the kings' other decisions (counts from 2), which are few, are kept apart and
 * sorted in after them. */
struct listing {
    tg_move *out;
    size_t count, king_count;
    tg_move king_moves[TG__MAX_MOVES];
};

/* Adds the decisions with value v of the units marked in `movable`, a mask of the columns of
 * the board row starting at `first_cell`. */
static TG__ALWAYS_INLINE void add_decisions(struct listing *list, const struct tg_pos *pos,
                                            unsigned first_cell, unsigned v, uint32_t movable)
{
    for (; movable; movable &= movable - 1) {
        int cell = (int)(first_cell + tg__lowest_bit(movable));
        unsigned size = unit_size(pos->cell[cell]);
        if (size == 1 || v == 1)
            list->out[list->count++] = decision(cell, v, 1);
        if (size > 1) {
            list->king_moves[list->king_count++] = decision(cell, v, size);
            /* Hyde: a king is "uncoupled" by a throw that removes that number of pieces. */
            if (v > 1 && size > v)
                list->king_moves[list->king_count++] = decision(cell, v, v);
        }
    }
}

/* Units in the opponent's row (the last n track positions) may move only when no other unit
 * can. */
static TG__ALWAYS_INLINE size_t player_decisions(const struct tg_config *cfg,
                                                 const struct tg_pos *pos, int me, tg_move *out)
{
    unsigned n = (unsigned)width_of(cfg);
    uint32_t kinds = stored_kinds(pos);
    struct mover_rows rows;
    read_mover_rows(cfg, pos, me, &rows);
    uint32_t landing = landing8(&rows, n, me), barred = 0;
    unsigned reach = 0;
    struct listing list;
    list.out = out;
    list.count = list.king_count = 0;
    for (uint32_t left = kinds; left; left &= left - 1) {
        unsigned v = throw_value[tg__lowest_bit(left)];
        barred = barred_at_home(&rows, me, v, &reach, barred);
        uint32_t movable[4];
        if (movable_near(&rows, me, v, barred, landing, movable)) {
            /* The home and central rows are board rows me .. me + 2, in cell order. */
            unsigned first = (unsigned)me;
            add_decisions(&list, pos, first * n, v, movable[first]);
            add_decisions(&list, pos, (first + 1) * n, v, movable[first + 1]);
            add_decisions(&list, pos, (first + 2) * n, v, movable[first + 2]);
        }
    }
    /* Each unit that can move yields a decision, so none yet means none outside the opponent's
     * row can move. */
    if (list.count + list.king_count == 0) {
        unsigned far = track_row(me, 3);
        for (uint32_t left = kinds; left; left &= left - 1) {
            unsigned v = throw_value[tg__lowest_bit(left)];
            add_decisions(&list, pos, far * n, v, movable_far(&rows, n, me, v));
        }
    }
    for (size_t i = 0; i < list.king_count; i++) {
        tg_move m = list.king_moves[i];
        size_t j = list.count++;
        for (; j > 0 && out[j - 1] > m; j--)
            out[j] = out[j - 1];
        out[j] = m;
    }
    return list.count;
}

static TAB_NOINLINE size_t decisions_0(const struct tg_config *cfg, const struct tg_pos *pos,
                                       tg_move *out)
{
    return player_decisions(cfg, pos, 0, out);
}

static TAB_NOINLINE size_t decisions_1(const struct tg_config *cfg, const struct tg_pos *pos,
                                       tg_move *out)
{
    return player_decisions(cfg, pos, 1, out);
}

/* Whether the player to move has a decision. */
static inline bool can_decide(const struct tg_config *cfg, const struct tg_pos *pos)
{
    uint32_t kinds = stored_kinds(pos);
    if (!kinds)
        return false;
    return pos->side ? player_can_decide(cfg, pos, 1, kinds)
                     : player_can_decide(cfg, pos, 0, kinds);
}

/* All decisions, ascending. */
static size_t tab_moves(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out)
{
    if (!out) /* only whether there is any */
        return can_decide(cfg, pos);
    return pos->side ? decisions_1(cfg, pos, out) : decisions_0(cfg, pos, out);
}

/* ---- the end ---------------------------------------------------------------------------- */

/* Every piece of player 0 on row 3 and every piece of player 1 on row 0: no capture can
 * happen any more (Ludii's end rule). */
static bool all_across(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned n = (unsigned)width_of(cfg);
    for (unsigned row = 0; row < 3; row++) {
        if (row_units(pos->cell + row * n, n, 0) || row_units(pos->cell + (row + 1) * n, n, 1))
            return false;
    }
    return true;
}

static bool anyone_can_step(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned n = (unsigned)width_of(cfg);
    for (int owner = 0; owner < 2; owner++) {
        for (unsigned row = 0; row < 4; row++) {
            uint32_t units = row_units(pos->cell + row * n, n, owner);
            for (; units; units &= units - 1) {
                unsigned cell = row * n + tg__lowest_bit(units);
                unsigned p = cfg->track[owner].at[cell];
                for (int k = 0; k < THROW_KINDS; k++)
                    if (can_step(cfg, pos, owner, p, pos->cell[cell], throw_value[k]))
                        return true;
            }
        }
    }
    return false;
}

/* The first two end conditions: all of a player's pieces captured, or every piece across. */
static bool captured_or_across(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned n = (unsigned)width_of(cfg);
    return pos->score[0] == n || pos->score[1] == n || all_across(cfg, pos);
}

/* All three end conditions, as the rules page states them (used to validate positions). */
static bool game_has_ended(const struct tg_config *cfg, const struct tg_pos *pos)
{
    return captured_or_across(cfg, pos) || !anyone_can_step(cfg, pos);
}

/* The end test after a move. The third condition (nobody can move) never holds without the
 * second, so play checks only the first two. Why: take a player none of whose units can
 * move with any value. A unit in the home row cannot be the front one there (the front one
 * always steps 1: onto an empty cell, a capture, or out into the central rows, where joining
 * is allowed). A central unit can only be stuck at the last central position with the six
 * cells after it all its own, in the opponent's row. A unit in the opponent's row is stuck
 * only if the cell after it is its own too, or the track ends. So the player's units fill
 * the opponent's row from its end without a gap, and a stuck central unit would need the
 * whole row (n units) plus itself: more units than the n pieces. Hence a stuck player has
 * every unit in the opponent's row, and if both are stuck, every piece is across: the second
 * condition. tests/test_tab.c's reference model checks all three at every ply. */
static bool play_has_ended(const struct tg_config *cfg, const struct tg_pos *pos)
{
    return captured_or_across(cfg, pos);
}

/* Which of the first two end conditions ended the game, for its story: the first in the
 * rules page's order. */
static int end_reason(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned n = (unsigned)width_of(cfg);
    return pos->score[0] == n || pos->score[1] == n ? TG_END_ALL_CAPTURED : TG_END_ALL_ACROSS;
}

/* The board changed, or the turn is about to: end the game if it is over, otherwise carry on
 * with the same player while a stored throw can be spent, else hand the turn over (unused
 * throws are lost). */
static TG__ALWAYS_INLINE void settle(const struct tg_config *cfg, struct tg_pos *pos,
                                     bool board_changed, struct tg__story *story)
{
    if (board_changed && play_has_ended(cfg, pos)) {
        clear_throws(pos);
        if (story)
            tg__story_finish(story, pos, tg__winner_by_score(pos), end_reason(cfg, pos));
        else
            tg__finish(pos, tg__winner_by_score(pos));
        return;
    }
    if (can_decide(cfg, pos)) {
        pos->phase = TG__DECIDE;
        return;
    }
    if (story && stored_total(pos))
        tg__story_event(story, TG_EVENT_THROWS_LOST, TG__NA, stored_total(pos), pos->side);
    clear_throws(pos);
    pos->side = (uint8_t)(1 - pos->side);
    pos->phase = TG__CHANCE;
}

/* ---- the game table --------------------------------------------------------------------- */

static void tab_setup(struct tg_config *cfg)
{
    int n = widths[cfg->opt[OPT_WIDTH]];
    cfg->rows = 4;
    cfg->cols = n;
    cfg->cells = 4 * n;
    cfg->total = n;
    /* At most n units, each with two decisions (whole or split) per stored value. */
    cfg->max_moves = (size_t)(2 * THROW_KINDS * n);
    cfg->fields = tab_fields;
    cfg->field_count = sizeof tab_fields / sizeof tab_fields[0];
    /* Both tracks cross row 1 east to west and row 2 west to east. */
    tg__track_serpentine(&cfg->track[0], 4, n, 0, 1, true);
    tg__track_serpentine(&cfg->track[1], 4, n, 3, -1, false);
}

static void tab_init(const struct tg_config *cfg, struct tg_pos *pos)
{
    int n = width_of(cfg);
    for (int col = 0; col < n; col++) {
        pos->cell[col] = make_unit(0, 1, true);
        pos->cell[3 * n + col] = make_unit(1, 1, true);
    }
    pos->phase = TG__CHANCE;
    pos->side = 0;
}

static size_t tab_chance(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out,
                         double *prob)
{
    (void)cfg;
    (void)pos;
    for (int k = 0; k < THROW_KINDS; k++) {
        if (out)
            out[k] = (tg_move)(THROW_OUTCOME | throw_value[k]);
        prob[k] = throw_prob[k];
    }
    return THROW_KINDS;
}

static TG__ALWAYS_INLINE unsigned apply_throw(const struct tg_config *cfg, struct tg_pos *pos,
                                              unsigned v, struct tg__story *story)
{
    if (story)
        tg__story_event(story, TG_EVENT_THROW, TG__NA, v, pos->side);
    unsigned k = kind_of_value[v];
    if (STORED(pos, k) < STORE_MAX)
        STORED(pos, k)++;
    /* A 1, 4 or 6 earns another throw; a 2 or 3 ends the throwing. */
    if (v == 2 || v == 3)
        settle(cfg, pos, false, story);
    return 0;
}

/* A decision's events up to the arrival (the split, the unlocking, the departure and each cell
 * passed), then the taking of a unit on the arrival cell. */
static void tell_departure(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
                           struct tg__story *story)
{
    int me = pos->side, from = (int)(m & 0xFF);
    unsigned v = (m >> 8) & 0xFF, count = (m >> 16) & 0xFF;
    const struct tg_track *track = &cfg->track[me];
    uint8_t unit = pos->cell[from];
    if (count < unit_size(unit))
        tg__story_event(story, TG_EVENT_SPLIT, (uint32_t)from, count, (uint32_t)me);
    if (unit & LOCKED_BIT)
        tg__story_event(story, TG_EVENT_UNLOCK, (uint32_t)from, 1, (uint32_t)me);
    tg__story_event(story, TG_EVENT_MOVE_FROM, (uint32_t)from, count, (uint32_t)me);
    unsigned p = track->at[from];
    for (unsigned q = p + 1; q < p + v; q++)
        tg__story_event(story, TG_EVENT_STEP, track->cell[q], TG__NA, TG__NA);
    uint8_t there = pos->cell[track->cell[p + v]];
    if (there && !is_mine(there, me))
        tg__story_event(story, TG_EVENT_TAKE, track->cell[p + v], unit_size(there), (uint32_t)me);
}

static TG__ALWAYS_INLINE unsigned apply_decision(const struct tg_config *cfg, struct tg_pos *pos,
                                                 tg_move m, struct tg__story *story)
{
    if (story)
        tell_departure(cfg, pos, m, story);
    int me = pos->side;
    int from = (int)(m & 0xFF);
    unsigned v = (m >> 8) & 0xFF, count = (m >> 16) & 0xFF;
    const struct tg_track *track = &cfg->track[me];
    int to = track->cell[track->at[from] + v];
    unsigned left = unit_size(pos->cell[from]) - count;
    pos->cell[from] = left ? make_unit(me, left, false) : 0;
    uint8_t there = pos->cell[to];
    unsigned result = 0;
    if (there && !is_mine(there, me)) {
        /* The whole unit is captured, one point a piece. */
        pos->score[me] = (uint16_t)(pos->score[me] + unit_size(there));
        there = 0;
        result = TG__CAPTURED;
    }
    pos->cell[to] = make_unit(me, unit_size(there) + count, false);
    if (story) {
        tg__story_event(story, TG_EVENT_MOVE_TO, (uint32_t)to, count, (uint32_t)me);
        if (there)
            tg__story_event(story, TG_EVENT_KING, (uint32_t)to, unit_size(pos->cell[to]),
                            (uint32_t)me);
    }
    STORED(pos, kind_of_value[v])--;
    settle(cfg, pos, true, story);
    return result;
}

static TG__ALWAYS_INLINE uint64_t tab_play(const struct tg_config *cfg, struct tg_pos *pos,
                                           tg_move m, struct tg__story *story)
{
    if (pos->phase == TG__CHANCE)
        return apply_throw(cfg, pos, m & 0xFF, story);
    return apply_decision(cfg, pos, m, story);
}

TG__APPLY_FUNCTIONS(tab_apply, tab_apply_story, tab_play)

static int tab_count(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)cfg;
    return (int)unit_size(pos->cell[cell]);
}

static int tab_owner(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)cfg;
    return pos->cell[cell] ? unit_owner(pos->cell[cell]) : -1;
}

static unsigned tab_flags(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)cfg;
    return pos->cell[cell] & LOCKED_BIT ? TG_CELL_LOCKED : 0u;
}

static bool tab_valid(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned n = (unsigned)width_of(cfg), pieces[2] = {0, 0};
    for (int cell = 0; cell < cfg->cells; cell++) {
        uint8_t c = pos->cell[cell];
        if (!c)
            continue;
        int owner = unit_owner(c);
        bool home = cfg->track[owner].at[cell] < n;
        /* Locked pieces never left home; kings form in the central rows and only go on. */
        if ((c & LOCKED_BIT) && !home)
            return false;
        if (unit_size(c) > 1 && home)
            return false;
        pieces[owner] += unit_size(c);
    }
    if (pieces[0] + pos->score[1] != n || pieces[1] + pos->score[0] != n)
        return false;
    unsigned two_or_three = STORED(pos, kind_of_value[2]) + STORED(pos, kind_of_value[3]);
    switch (pos->phase) {
    case TG__CHANCE:
        /* Mid-throwing: only the throws that earn another throw are stored so far. */
        return two_or_three == 0 && !game_has_ended(cfg, pos);
    case TG__DECIDE:
        /* The throwing ended with a single 2 or 3; every other stored value is a 1, 4 or 6. */
        return two_or_three <= 1 && !game_has_ended(cfg, pos);
    default:
        return true;
    }
}

/* The game ends, its throws all spent, when one of its end conditions holds; by the scores.
 * Play names the first condition that holds (settle()), in the order of the rules page. */
static unsigned tab_endings(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (stored_total(pos) != 0 || pos->winner != tg__winner_by_score(pos))
        return 0;
    if (captured_or_across(cfg, pos))
        return 1u << end_reason(cfg, pos);
    return anyone_can_step(cfg, pos) ? 0u : 1u << TG_END_BLOCKED;
}

/* The shared playout loop with this game's functions inlined into it. */
TG__FLATTEN static size_t tab_playout(const struct tg_config *cfg, struct tg_pos *pos,
                                      uint64_t *rng, size_t max_plies, uint64_t *stats)
{
    return tg__listed_playout(cfg, pos, rng, max_plies, stats, tab_moves, tab_chance, tab_apply);
}

/* The learning interface (docs/learning.md): locked pieces get planes, and the stored throws
 * are counted by value, 1, 2, 3, 4 and 6 (the same for either observer). */
static unsigned tab_flag_planes(const struct tg_config *cfg)
{
    (void)cfg;
    return TG_CELL_LOCKED;
}

static size_t tab_observe_fields(const struct tg_config *cfg, const struct tg_pos *pos, int player,
                                 float *out)
{
    (void)cfg;
    (void)player;
    for (int k = 0; out && k < THROW_KINDS; k++)
        out[k] = (float)STORED(pos, k);
    return THROW_KINDS;
}

/* The four planes (the observer's pieces, the opponent's, then their locked pieces) from the
 * cell bytes in one pass, the board turned half round for player 1. */
static void tab_observe_planes(const struct tg_config *cfg, const struct tg_pos *pos, int player,
                               float *out)
{
    int cells = cfg->cells;
    for (int o = 0; o < cells; o++) {
        uint8_t c = pos->cell[player ? cells - 1 - o : o];
        float size = (float)unit_size(c), locked = c & LOCKED_BIT ? 1.0f : 0.0f;
        bool mine = c && unit_owner(c) == player, theirs = c && !mine;
        out[o] = mine ? size : 0.0f;
        out[cells + o] = theirs ? size : 0.0f;
        out[2 * cells + o] = mine ? locked : 0.0f;
        out[3 * cells + o] = theirs ? locked : 0.0f;
    }
}

static const struct tg_learning tab_learning = {TG__ACTIONS_UNIT_STEPS, tab_flag_planes,
                                                tab_observe_fields, tab_observe_planes};

const struct tg_game tg__tab = {
    .id = "tab",
    .name = "At-Tab wa-d-Dukk",
    .options = tab_options,
    .option_count = sizeof tab_options / sizeof tab_options[0],
    .quiet_option = -1,
    .laps_option = -1,
    .setup = tab_setup,
    .init = tab_init,
    .moves = tab_moves,
    .chance = tab_chance,
    .apply = tab_apply,
    .apply_story = tab_apply_story,
    .playout = tab_playout,
    .quiet_end = NULL,
    .count = tab_count,
    .owner = tab_owner,
    .flags = tab_flags,
    .write_cell = tg__tab_write_cell,
    .read_cell = tg__tab_read_cell,
    .write_field = tg__tab_write_field,
    .read_field = tg__tab_read_field,
    .valid = tab_valid,
    .endings = tab_endings,
    .describe = tg__tab_describe,
    .move_to_string = tg__tab_move_to_string,
    .move_from_string = tg__tab_move_from_string,
    .learning = &tab_learning,
};

/* At-Tab wa-d-Dukk: Hyde 1694, "Tab al-Qasab", as summarised by the Digital Ludeme Project;
 * rules/tab.md resolves the rest (following Ludii's At-Tab wa-d-Dukk.lud where the source is
 * silent). A race-and-capture game on four rows: each player walks a serpentine track through
 * all four rows, throws four sticks, stores the throws and then spends them one by one. */
#include "../game.h"

#include <string.h>

enum { OPT_WIDTH = 0 };

static const char *const width_choices[] = {"13", "19", "21", "29", NULL};
static const int widths[] = {13, 19, 21, 29};

static const struct tg_option_def tab_options[] = {
    {"width", "13|19|21|29", width_choices, 0, 0, "13"},
};

static const char *const tab_fields[] = {"throws"};

/* ---- cells: one byte holds a whole unit ------------------------------------------------- */

/* The size of the unit (1 .. 29 pieces) in the low bits, then the locked flag and the owner:
 * a cell is 0 when empty. */
enum { SIZE_MASK = 0x3F, LOCKED_BIT = 0x40, OWNER_SHIFT = 7 };

static inline unsigned unit_size(uint8_t c)
{
    return c & SIZE_MASK;
}

static inline int unit_owner(uint8_t c)
{
    return c >> OWNER_SHIFT;
}

static inline bool is_mine(uint8_t c, int me)
{
    return c != 0 && unit_owner(c) == me;
}

static inline uint8_t make_unit(int owner, unsigned size, bool locked)
{
    return (uint8_t)((unsigned)owner << OWNER_SHIFT | (locked ? LOCKED_BIT : 0u) | size);
}

/* Move generation and the end checks visit only the cells that hold a player's units, found a
 * word at a time, not the whole board (4 x 29 cells at most). */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TAB_WORD_SCAN 1
static inline uint64_t load_word(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* Bit 8i+7 set for each byte i of x that holds a unit of `player` (little-endian lanes). */
static inline uint64_t units_of(uint64_t x, int player)
{
    const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F), high = UINT64_C(0x8080808080808080);
    if (player)
        return x & high;
    uint64_t nonzero = (((x & low7) + low7) | x) & high;
    return nonzero & ~x;
}

#endif

/* The first cell in [from, to) holding a unit of `player`, or `to` if there is none. */
static unsigned next_unit(const struct tg_pos *pos, int player, unsigned from, unsigned to)
{
#ifdef TAB_WORD_SCAN
    for (unsigned base = from; base < to; base += 8) {
        uint64_t hits = units_of(load_word(pos->cell + base), player);
        if (to - base < 8)
            hits &= (UINT64_C(1) << (8 * (to - base))) - 1;
        if (hits)
            return base + (unsigned)__builtin_ctzll(hits) / 8;
    }
#else
    for (unsigned cell = from; cell < to; cell++)
        if (is_mine(pos->cell[cell], player))
            return cell;
#endif
    return to;
}

/* Lists, in cell order, the cells in [from, to) that hold a unit of `player`; returns how
 * many (a player has at most one unit per piece, n <= 29). */
static unsigned unit_cells(const struct tg_pos *pos, int player, unsigned from, unsigned to,
                           uint8_t *out)
{
    unsigned k = 0;
#ifdef TAB_WORD_SCAN
    for (unsigned base = from; base < to; base += 8) {
        uint64_t hits = units_of(load_word(pos->cell + base), player);
        if (to - base < 8)
            hits &= (UINT64_C(1) << (8 * (to - base))) - 1;
        for (; hits; hits &= hits - 1)
            out[k++] = (uint8_t)(base + (unsigned)__builtin_ctzll(hits) / 8);
    }
#else
    for (unsigned cell = from; cell < to; cell++)
        if (is_mine(pos->cell[cell], player))
            out[k++] = (uint8_t)cell;
#endif
    return k;
}

#define FOR_EACH_UNIT_CELL(cell, pos, player, from, to)                                            \
    for (unsigned cell = next_unit(pos, player, from, to); cell < (to);                            \
         cell = next_unit(pos, player, cell + 1, to))

/* ---- throws: four sticks, white on one side --------------------------------------------- */

enum { THROW_KINDS = 5, STORE_MAX = 255, THROW_OUTCOME = 0x01000000 };

/* A throw is the number of white sides up, or 6 when none is: 1 in 16 ways, 4, 6, 4, 1. */
static const unsigned throw_value[THROW_KINDS] = {1, 2, 3, 4, 6};
static const double throw_prob[THROW_KINDS] = {4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0, 1 / 16.0};

/* The stored throws are counts per kind in the position's field bytes. */
#define STORED(pos, kind) ((pos)->field[kind])

/* The store index of each throw value (values that no throw gives map to NOT_A_THROW). */
enum { NOT_A_THROW = 0xFF };
static const uint8_t kind_of_value[7] = {NOT_A_THROW, 0, 1, 2, 3, NOT_A_THROW, 4};

static int throw_kind(unsigned long v)
{
    return v < 7 && kind_of_value[v] != NOT_A_THROW ? kind_of_value[v] : -1;
}

static unsigned stored_total(const struct tg_pos *pos)
{
    unsigned n = 0;
    for (int k = 0; k < THROW_KINDS; k++)
        n += STORED(pos, k);
    return n;
}

static void clear_throws(struct tg_pos *pos)
{
    for (int k = 0; k < THROW_KINDS; k++)
        STORED(pos, k) = 0;
}

/* ---- rules of a single step ------------------------------------------------------------- */

static inline int width_of(const struct tg_config *cfg)
{
    return cfg->cols;
}

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

static inline tg_move decision(int cell, unsigned v, unsigned count)
{
    return (tg_move)((unsigned)cell | v << 8 | count << 16);
}

/* Appends the decisions of the unit on `cell`; stops early (returning nonzero) when `out` is
 * NULL and one is found, for callers that only ask whether any exists. */
static inline size_t unit_decisions(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                                    int cell, const unsigned *values, int value_count, tg_move *out)
{
    const struct tg_track *track = &cfg->track[me];
    unsigned n = (unsigned)width_of(cfg);
    uint8_t unit = pos->cell[cell];
    unsigned size = unit_size(unit), p = track->at[cell];
    size_t k = 0;
    /* can_step() for every value at once: the values ascend, and in the home row the first
     * own piece ahead bars every step that reaches or passes it. */
    unsigned barrier = track->len;
    if (unit & LOCKED_BIT) {
        /* A locked piece moves only with a 1 (the smallest value, if stored), and a single
         * step passes over nothing: only where it lands matters. */
        if (value_count == 0 || values[0] != 1)
            return 0;
        value_count = 1;
    } else {
        for (unsigned q = p + 1; q < n; q++)
            if (is_mine(pos->cell[track->cell[q]], me)) {
                barrier = q;
                break;
            }
    }
    for (int i = 0; i < value_count; i++) {
        unsigned v = values[i], to = p + v;
        if (to >= barrier)
            break;
        uint8_t there = pos->cell[track->cell[to]];
        if (is_mine(there, me) && (to < n || to >= 3 * n))
            continue; /* joining one's own pieces only in the central rows */
        if (!out)
            return 1;
        out[k++] = decision(cell, v, size);
        /* Hyde: a king is "uncoupled" by a throw that removes that number of pieces. */
        if (size > v)
            out[k++] = decision(cell, v, v);
    }
    return k;
}

/* All decisions of the player to move with the given values, unsorted. Units in the
 * opponent's row (the last n track positions) may move only when no other unit can. */
static size_t collect(const struct tg_config *cfg, const struct tg_pos *pos, const unsigned *values,
                      int value_count, tg_move *out)
{
    int me = pos->side;
    unsigned n = (unsigned)width_of(cfg);
    /* The opponent's row is row 3 for player 0 and row 0 for player 1. */
    unsigned far_from = me == 0 ? 3 * n : 0, far_to = far_from + n;
    unsigned near_from = me == 0 ? 0 : n, near_to = near_from + 3 * n;
    if (!out) { /* only whether any decision exists: stop at the first */
        FOR_EACH_UNIT_CELL (cell, pos, me, near_from, near_to) {
            if (unit_decisions(cfg, pos, me, (int)cell, values, value_count, NULL))
                return 1;
        }
        FOR_EACH_UNIT_CELL (cell, pos, me, far_from, far_to) {
            if (unit_decisions(cfg, pos, me, (int)cell, values, value_count, NULL))
                return 1;
        }
        return 0;
    }
    uint8_t cells[TG__MAX_CELLS];
    size_t k = 0;
    for (int pass = 0; pass < 2 && k == 0; pass++) {
        unsigned count = pass ? unit_cells(pos, me, far_from, far_to, cells)
                              : unit_cells(pos, me, near_from, near_to, cells);
        for (unsigned i = 0; i < count; i++) {
            k += unit_decisions(cfg, pos, me, cells[i], values, value_count, out + k);
        }
    }
    return k;
}

static int stored_values(const struct tg_pos *pos, unsigned *values)
{
    int n = 0;
    for (int k = 0; k < THROW_KINDS; k++) {
        if (STORED(pos, k))
            values[n++] = throw_value[k];
    }
    return n;
}

static size_t tab_moves(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out)
{
    unsigned values[THROW_KINDS];
    int value_count = stored_values(pos, values);
    size_t n = collect(cfg, pos, values, value_count, out);
    if (!out)
        return n;
    for (size_t i = 1; i < n; i++) {
        tg_move m = out[i];
        size_t j = i;
        for (; j > 0 && out[j - 1] > m; j--)
            out[j] = out[j - 1];
        out[j] = m;
    }
    return n;
}

static bool can_decide(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned values[THROW_KINDS];
    int value_count = stored_values(pos, values);
    return value_count > 0 && collect(cfg, pos, values, value_count, NULL) > 0;
}

/* ---- the end ---------------------------------------------------------------------------- */

/* Every piece of player 0 on row 3 and every piece of player 1 on row 0: no capture can
 * happen any more (Ludii's end rule). */
static bool all_across(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned n = (unsigned)width_of(cfg);
    return next_unit(pos, 0, 0, 3 * n) == 3 * n && next_unit(pos, 1, n, 4 * n) == 4 * n;
}

static bool anyone_can_step(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned cells = (unsigned)cfg->cells;
    for (int owner = 0; owner < 2; owner++) {
        FOR_EACH_UNIT_CELL (cell, pos, owner, 0, cells) {
            uint8_t c = pos->cell[cell];
            unsigned p = cfg->track[owner].at[cell];
            for (int k = 0; k < THROW_KINDS; k++)
                if (can_step(cfg, pos, owner, p, c, throw_value[k]))
                    return true;
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

/* The board changed, or the turn is about to: end the game if it is over, otherwise carry on
 * with the same player while a stored throw can be spent, else hand the turn over (unused
 * throws are lost). */
static void settle(const struct tg_config *cfg, struct tg_pos *pos, bool board_changed)
{
    if (board_changed && play_has_ended(cfg, pos)) {
        clear_throws(pos);
        tg__finish(pos, tg__winner_by_score(pos));
        return;
    }
    if (can_decide(cfg, pos)) {
        pos->phase = TG__DECIDE;
        return;
    }
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

static unsigned apply_throw(const struct tg_config *cfg, struct tg_pos *pos, unsigned v)
{
    unsigned k = kind_of_value[v];
    if (STORED(pos, k) < STORE_MAX)
        STORED(pos, k)++;
    /* A 1, 4 or 6 earns another throw; a 2 or 3 ends the throwing. */
    if (v == 2 || v == 3)
        settle(cfg, pos, false);
    return 0;
}

static unsigned apply_decision(const struct tg_config *cfg, struct tg_pos *pos, tg_move m)
{
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
    STORED(pos, kind_of_value[v])--;
    settle(cfg, pos, true);
    return result;
}

static uint64_t tab_apply(const struct tg_config *cfg, struct tg_pos *pos, tg_move m)
{
    if (pos->phase == TG__CHANCE)
        return apply_throw(cfg, pos, m & 0xFF);
    return apply_decision(cfg, pos, m);
}

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

/* ---- notation --------------------------------------------------------------------------- */

static void tab_write_cell(const struct tg_config *cfg, const struct tg_pos *pos, int cell,
                           struct tg_out *o)
{
    (void)cfg;
    uint8_t c = pos->cell[cell];
    if (!c) {
        tg__out_str(o, ".");
        return;
    }
    bool locked = c & LOCKED_BIT;
    tg__out_str(o, unit_owner(c) ? (locked ? "O" : "o") : (locked ? "X" : "x"));
    if (unit_size(c) > 1)
        tg__out_uint(o, unit_size(c));
}

static bool tab_read_cell(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos,
                          int cell)
{
    if (n == 1 && s[0] == '.') {
        pos->cell[cell] = 0;
        return true;
    }
    if (n == 0)
        return false;
    int owner;
    bool locked;
    switch (s[0]) {
    case 'X':
    case 'x':
        owner = 0;
        break;
    case 'O':
    case 'o':
        owner = 1;
        break;
    default:
        return false;
    }
    locked = s[0] == 'X' || s[0] == 'O';
    unsigned long size = 1;
    if (n > 1) {
        /* A locked piece is always alone; a unit's size is written only from 2 up. */
        if (locked || !tg__parse_uint(s + 1, n - 1, (unsigned long)width_of(cfg), &size) ||
            size < 2)
            return false;
    }
    pos->cell[cell] = make_unit(owner, (unsigned)size, locked);
    return true;
}

static void tab_write_field(const struct tg_config *cfg, const struct tg_pos *pos, size_t field,
                            struct tg_out *o)
{
    (void)cfg;
    (void)field;
    bool first = true;
    for (int k = 0; k < THROW_KINDS; k++) {
        for (unsigned i = 0; i < STORED(pos, k); i++) {
            if (!first)
                tg__out_str(o, ",");
            tg__out_uint(o, throw_value[k]);
            first = false;
        }
    }
    if (first)
        tg__out_str(o, "-");
}

/* `-`, or the stored values in ascending order, comma-separated. */
static bool tab_read_field(const struct tg_config *cfg, size_t field, const char *s, size_t n,
                           struct tg_pos *pos)
{
    (void)cfg;
    (void)field;
    clear_throws(pos);
    if (n == 1 && s[0] == '-')
        return true;
    const char *end = s + n;
    int previous = 0;
    for (;;) {
        const char *stop = s;
        while (stop < end && *stop != ',')
            stop++;
        unsigned long v;
        if (!tg__parse_uint(s, (size_t)(stop - s), 6, &v))
            return false;
        int k = throw_kind(v);
        if (k < 0 || k < previous || STORED(pos, k) == STORE_MAX)
            return false;
        STORED(pos, k)++;
        previous = k;
        if (stop == end)
            return true;
        s = stop + 1;
    }
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
        return stored_total(pos) == 0 && game_has_ended(cfg, pos) &&
               pos->winner == tg__winner_by_score(pos);
    }
}

static bool tab_move_to_string(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
                               struct tg_out *o)
{
    unsigned v = (m >> 8) & 0xFF, count = (m >> 16) & 0xFF;
    if ((m & 0xFF000000u) == THROW_OUTCOME) {
        if ((m & 0x00FFFF00u) != 0 || throw_kind(m & 0xFF) < 0)
            return false;
        tg__out_str(o, "throw:");
        tg__out_uint(o, m & 0xFF);
        return true;
    }
    int from = (int)(m & 0xFF);
    if ((m >> 24) != 0 || from >= cfg->cells || throw_kind(v) < 0 || count == 0 ||
        count > (unsigned)width_of(cfg))
        return false;
    tg__out_cell_name(o, cfg, from);
    tg__out_str(o, "+");
    tg__out_uint(o, v);
    if (count != unit_size(pos->cell[from])) {
        tg__out_str(o, "x");
        tg__out_uint(o, count);
    }
    return true;
}

/* `throw:V`, `CELL+V` (the whole unit on CELL) or `CELL+VxC` (C of its pieces). */
static bool tab_move_from_string(const struct tg_config *cfg, const struct tg_pos *pos,
                                 const char *s, size_t n, tg_move *m)
{
    unsigned long v, count;
    if (n > 6 && memcmp(s, "throw:", 6) == 0) {
        if (!tg__parse_uint(s + 6, n - 6, 6, &v) || throw_kind(v) < 0)
            return false;
        *m = (tg_move)(THROW_OUTCOME | v);
        return true;
    }
    const char *plus = memchr(s, '+', n);
    if (!plus)
        return false;
    int from = tg__parse_cell_name(cfg, s, (size_t)(plus - s));
    if (from < 0)
        return false;
    const char *value = plus + 1, *end = s + n;
    const char *x = memchr(value, 'x', (size_t)(end - value));
    const char *value_end = x ? x : end;
    if (!tg__parse_uint(value, (size_t)(value_end - value), 6, &v) || throw_kind(v) < 0)
        return false;
    if (x) {
        if (!tg__parse_uint(x + 1, (size_t)(end - x - 1), (unsigned long)width_of(cfg), &count) ||
            count == 0)
            return false;
    } else {
        /* The whole unit: its size on this board (a lone piece where there is none, which is
         * then simply not a legal move). */
        count = unit_size(pos->cell[from]);
        if (count == 0)
            count = 1;
    }
    *m = decision(from, (unsigned)v, (unsigned)count);
    return true;
}

const struct tg_game tg__tab = {
    .id = "tab",
    .name = "At-Tab wa-d-Dukk",
    .options = tab_options,
    .option_count = sizeof tab_options / sizeof tab_options[0],
    .quiet_option = -1,
    .setup = tab_setup,
    .init = tab_init,
    .moves = tab_moves,
    .chance = tab_chance,
    .apply = tab_apply,
    .quiet_end = NULL,
    .count = tab_count,
    .owner = tab_owner,
    .flags = tab_flags,
    .write_cell = tab_write_cell,
    .read_cell = tab_read_cell,
    .write_field = tab_write_field,
    .read_field = tab_read_field,
    .valid = tab_valid,
    .move_to_string = tab_move_to_string,
    .move_from_string = tab_move_from_string,
};

/* Walak-pussa: Parker 1909, Ancient Ceylon pp. 597-598, via Mancala World; rules/walak-pussa.md
 * resolves the rest. A shared anticlockwise ring, Indian-style relay (the hole after the last
 * counter is lifted next), the pussa kanawa capture across an empty hole and its chain, and an
 * optional match of several rounds in which short stores leave holes dead. */
#include "../learning.h"
#include "../mancala/board.h"
#include "../playout.h"

#include <string.h>

enum { WP_COLS = 7, WP_HOLES = 14, WP_START = 4, WP_TOTAL = WP_HOLES * WP_START };
enum { OPT_ROUNDS = 0, OPT_LAPS = 1, OPT_QUIET = 2 };
enum { ROUNDS_SINGLE = 0, ROUNDS_MATCH = 1 };
enum { FIELD_ROUND, FIELD_DEAD, FIELD_RESERVE, FIELD_STARTER };

static const char *const rounds_choices[] = {"single", "match", NULL};

static const struct tg_option_def wp_options[] = {
    {"rounds", "single|match", rounds_choices, 0, 0, "single"},
    TG__LAPS_OPTION,
    TG__QUIET_OPTION,
};

static const char *const match_fields[] = {"round", "dead", "reserve", "starter"};

/* Match state in the position's field bytes: round (2 bytes), dead-hole mask (2 bytes, bit =
 * cell index), each player's reserve, the player who started the round. */
static unsigned get_round(const struct tg_pos *pos)
{
    return (unsigned)pos->field[0] | (unsigned)pos->field[1] << 8;
}

static void set_round(struct tg_pos *pos, unsigned round)
{
    pos->field[0] = (uint8_t)round;
    pos->field[1] = (uint8_t)(round >> 8);
}

static unsigned get_dead(const struct tg_pos *pos)
{
    return (unsigned)pos->field[2] | (unsigned)pos->field[3] << 8;
}

static void set_dead(struct tg_pos *pos, unsigned mask)
{
    pos->field[2] = (uint8_t)mask;
    pos->field[3] = (uint8_t)(mask >> 8);
}

#define RESERVE(pos, p) ((pos)->field[4 + (p)])
#define STARTER(pos) ((pos)->field[6])

static bool is_match(const struct tg_config *cfg)
{
    return cfg->opt[OPT_ROUNDS] == ROUNDS_MATCH;
}

static void wp_setup(struct tg_config *cfg)
{
    static const uint8_t order[WP_HOLES] = {0, 1, 2, 3, 4, 5, 6, 13, 12, 11, 10, 9, 8, 7};
    cfg->rows = 2;
    cfg->cols = WP_COLS;
    cfg->cells = WP_HOLES;
    cfg->total = WP_TOTAL;
    cfg->max_moves = WP_COLS;
    if (is_match(cfg)) {
        cfg->fields = match_fields;
        cfg->field_count = sizeof match_fields / sizeof match_fields[0];
    }
    tg__ring_init(&cfg->ring[0], order, WP_HOLES);
    cfg->ring[1] = cfg->ring[0];
}

static void wp_init(const struct tg_config *cfg, struct tg_pos *pos)
{
    memset(pos->cell, WP_START, (size_t)cfg->cells);
    if (is_match(cfg))
        set_round(pos, 1);
}

/* The ring of the live holes: dead holes are skipped by sowing, relay and capture alike. */
static void live_ring(const struct tg_config *cfg, const struct tg_pos *pos, struct tg_ring *out)
{
    unsigned dead = get_dead(pos);
    uint8_t order[WP_HOLES];
    unsigned n = 0;
    for (unsigned i = 0; i < WP_HOLES; i++) {
        uint8_t cell = cfg->ring[0].hole[i];
        if (!(dead >> cell & 1u))
            order[n++] = cell;
    }
    tg__ring_init(out, order, n);
}

static TG__ALWAYS_INLINE uint64_t wp_move_set(const struct tg_config *cfg, const struct tg_pos *pos,
                                              unsigned *first)
{
    (void)cfg;
    *first = pos->side * WP_COLS;
    return tg__cells_set(pos->cell, *first, WP_COLS, 0xFF);
}

static size_t wp_moves(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out)
{
    return tg__moves_of_set(wp_move_set, cfg, pos, out);
}

/* Indian-style relay: when the hole after the last counter is occupied, its counters are
 * lifted and sown from the hole after it. */
static TG__ALWAYS_INLINE bool relay_next_hole(void *ctx, const struct tg_ring *ring, uint8_t *cell,
                                              unsigned last, struct tg_lap *next,
                                              struct tg__story *story)
{
    (void)ctx;
    unsigned n1 = tg__ring_next(ring, last);
    if (cell[ring->hole[n1]] == 0)
        return false;
    return tg__mancala_lift_on(cell, ring->hole[n1], n1, next, story);
}

/* Pussa kanawa: across the empty hole after the last lap, the occupied hole beyond is taken;
 * then, while an empty hole is followed by an occupied one, that one too. Read literally the
 * chain may run round the ring; it ends because every capture empties a hole. */
static TG__ALWAYS_INLINE unsigned capture_chain(const struct tg_ring *ring, uint8_t *cell,
                                                unsigned last, int me, struct tg__story *story)
{
    unsigned taken = 0;
    unsigned empty = tg__ring_next(ring, last);
    for (;;) {
        unsigned h = tg__ring_next(ring, empty);
        if (cell[ring->hole[empty]] != 0 || cell[ring->hole[h]] == 0)
            return taken;
        if (story)
            tg__story_event(story, TG_EVENT_CAPTURE, ring->hole[h], cell[ring->hole[h]],
                            (uint32_t)me);
        taken += cell[ring->hole[h]];
        cell[ring->hole[h]] = 0;
        empty = tg__ring_next(ring, h);
    }
}

/* Fills a new round from each store (4 a hole, in ring order from a1 and from g2, at most 7
 * holes), or ends the match when a store cannot fill one hole. */
static unsigned next_round(struct tg_pos *pos, struct tg__story *story)
{
    for (int p = 0; p < 2; p++) {
        if (pos->score[p] < WP_START) {
            tg__end(story, pos, 1 - p, TG_END_STORE_SHORT);
            return 0;
        }
    }
    unsigned starter;
    if (pos->score[0] != pos->score[1])
        starter = pos->score[0] < pos->score[1] ? 0u : 1u;
    else
        starter = 1u - STARTER(pos);
    if (story)
        tg__story_event(story, TG_EVENT_ROUND_START, TG__NA, get_round(pos) + 1, starter);
    unsigned dead = 0;
    for (int p = 0; p < 2; p++) {
        unsigned filled = pos->score[p] / WP_START;
        if (filled > WP_COLS)
            filled = WP_COLS;
        for (unsigned i = 0; i < WP_COLS; i++) {
            /* Player 0 fills a1, b1, ...; player 1 fills g2, f2, ...: each in ring order. */
            int cell = p == 0 ? (int)i : WP_HOLES - 1 - (int)i;
            if (i < filled) {
                if (story)
                    tg__story_event(story, TG_EVENT_FILL, (uint32_t)cell, WP_START, (uint32_t)p);
                pos->cell[cell] = WP_START;
            } else {
                if (story)
                    tg__story_event(story, TG_EVENT_DEAD, (uint32_t)cell, TG__NA, TG__NA);
                dead |= 1u << cell;
            }
        }
        pos->score[p] = (uint16_t)(pos->score[p] - filled * WP_START);
        RESERVE(pos, p) = (uint8_t)pos->score[p];
    }
    set_dead(pos, dead);
    set_round(pos, get_round(pos) + 1);
    STARTER(pos) = (uint8_t)starter;
    pos->side = (uint8_t)starter;
    return TG__NEW_ROUND;
}

/* A round is over and the board has been taken: a single game ends by score (for `reason`), a
 * match goes on. */
static unsigned round_over(const struct tg_config *cfg, struct tg_pos *pos, int reason,
                           struct tg__story *story)
{
    if (!is_match(cfg)) {
        if (reason != TG_END_QUIET)
            tg__end(story, pos, tg__winner_by_score(pos), reason);
        else
            tg__finish(pos, tg__winner_by_score(pos)); /* the core tells the quiet end */
        return 0;
    }
    if (story) {
        int w = tg__winner_by_score(pos);
        tg__story_event(story, TG_EVENT_ROUND_END, TG__NA, get_round(pos),
                        w == TG_DRAW ? TG__NA : (uint32_t)w);
    }
    return next_round(pos, story);
}

/* The move, with its story when `story` is not NULL. */
static TG__ALWAYS_INLINE uint64_t wp_play(const struct tg_config *cfg, struct tg_pos *pos,
                                          tg_move m, struct tg__story *story)
{
    struct tg_ring ring;
    const struct tg_ring *r = &cfg->ring[0];
    if (get_dead(pos)) {
        live_ring(cfg, pos, &ring);
        r = &ring;
    }
    int me = pos->side;
    unsigned last;
    uint64_t sown;
    if (!tg__mancala_relay_move(cfg, pos, r, m, WP_HOLES, relay_next_hole, NULL, &last, &sown,
                                story))
        return TG__ENDLESS | TG__SOWN(sown); /* the mover lost, nothing moved */
    unsigned taken = capture_chain(r, pos->cell, last, me, story);
    pos->score[me] = (uint16_t)(pos->score[me] + taken);
    pos->side = (uint8_t)(1 - me);
    unsigned result = taken ? TG__CAPTURED : 0u;
    if (!tg__cells_any(pos->cell + pos->side * WP_COLS, WP_COLS, 0xFF)) {
        /* The player to move has an empty row: the mover takes every counter left. */
        tg__mancala_take_all(cfg, pos, me, story);
        result |= round_over(cfg, pos, TG_END_EMPTY_ROW, story);
    }
    return result | TG__SOWN(sown);
}

TG__APPLY_FUNCTIONS(wp_apply, wp_apply_story, wp_play)

static void wp_quiet_end(const struct tg_config *cfg, struct tg_pos *pos, struct tg__story *story)
{
    tg__mancala_take_own_sides(cfg, pos, story);
    /* A finished game keeps the count that ended it; a new round starts from 0. */
    if (round_over(cfg, pos, TG_END_QUIET, story) & TG__NEW_ROUND)
        pos->quiet = 0;
}

static unsigned wp_flags(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)cfg;
    return get_dead(pos) >> cell & 1u ? TG_CELL_DEAD : 0u;
}

static void wp_write_field(const struct tg_config *cfg, const struct tg_pos *pos, size_t field,
                           struct tg_out *o)
{
    switch (field) {
    case FIELD_ROUND:
        tg__out_uint(o, get_round(pos));
        break;
    case FIELD_DEAD: {
        unsigned dead = get_dead(pos);
        if (!dead)
            tg__out_str(o, "-");
        for (int cell = 0, first = 1; cell < WP_HOLES; cell++) {
            if (!(dead >> cell & 1u))
                continue;
            if (!first)
                tg__out_str(o, "+");
            tg__out_cell_name(o, cfg, cell);
            first = 0;
        }
        break;
    }
    case FIELD_RESERVE:
        tg__out_uint(o, RESERVE(pos, 0));
        tg__out_str(o, ",");
        tg__out_uint(o, RESERVE(pos, 1));
        break;
    default:
        tg__out_uint(o, STARTER(pos));
        break;
    }
}

/* A match's fields in words; a single game has none to show. */
static void wp_describe(const struct tg_config *cfg, const struct tg_pos *pos, struct tg_out *o)
{
    if (!is_match(cfg))
        return;
    tg__out_str(o, "round ");
    tg__out_uint(o, get_round(pos));
    tg__out_str(o, ", started by player ");
    tg__out_uint(o, STARTER(pos));
    tg__out_str(o, "; reserves (counters kept off the board) ");
    tg__out_uint(o, RESERVE(pos, 0));
    tg__out_str(o, " and ");
    tg__out_uint(o, RESERVE(pos, 1));
    tg__out_str(o, "\ndead holes (#): ");
    wp_write_field(cfg, pos, FIELD_DEAD, o);
    tg__out_str(o, "\n");
}

static bool read_dead(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos)
{
    if (n == 1 && s[0] == '-')
        return true;
    unsigned dead = 0;
    int previous = -1;
    const char *end = s + n;
    while (s <= end) {
        const char *plus = memchr(s, '+', (size_t)(end - s));
        const char *stop = plus ? plus : end;
        int cell = tg__parse_cell_name(cfg, s, (size_t)(stop - s));
        if (cell <= previous)
            return false; /* malformed, off the board, or not in ascending order */
        dead |= 1u << cell;
        previous = cell;
        if (!plus)
            break;
        s = plus + 1;
    }
    set_dead(pos, dead);
    return true;
}

static bool wp_read_field(const struct tg_config *cfg, size_t field, const char *s, size_t n,
                          struct tg_pos *pos)
{
    unsigned long a, b;
    switch (field) {
    case FIELD_ROUND:
        if (!tg__parse_uint(s, n, 65535, &a) || a == 0)
            return false;
        set_round(pos, (unsigned)a);
        return true;
    case FIELD_DEAD:
        return read_dead(cfg, s, n, pos);
    case FIELD_RESERVE: {
        const char *comma = memchr(s, ',', n);
        if (!comma || !tg__parse_uint(s, (size_t)(comma - s), WP_TOTAL, &a) ||
            !tg__parse_uint(comma + 1, (size_t)(s + n - comma - 1), WP_TOTAL, &b))
            return false;
        RESERVE(pos, 0) = (uint8_t)a;
        RESERVE(pos, 1) = (uint8_t)b;
        return true;
    }
    default:
        if (!tg__parse_uint(s, n, 1, &a))
            return false;
        STARTER(pos) = (uint8_t)a;
        return true;
    }
}

/* Dead holes of a player are the tail of their fill order (g1 backwards for player 0, a2
 * onwards for player 1), only one side can have them, and a short side kept under 4 back. */
static bool valid_match_fields(const struct tg_pos *pos)
{
    unsigned dead = get_dead(pos);
    if (get_round(pos) == 1)
        return dead == 0 && RESERVE(pos, 0) == 0 && RESERVE(pos, 1) == 0 && STARTER(pos) == 0;
    unsigned live[2] = {0, 0};
    for (int p = 0; p < 2; p++) {
        for (unsigned i = 0; i < WP_COLS; i++) {
            int cell = p == 0 ? (int)i : WP_HOLES - 1 - (int)i;
            bool is_dead = dead >> cell & 1u;
            if (is_dead && pos->cell[cell])
                return false;
            if (!is_dead) {
                if (live[p] != i)
                    return false; /* a live hole after a dead one in fill order */
                live[p]++;
            }
        }
        if (live[p] == 0 || (live[p] < WP_COLS && RESERVE(pos, p) >= WP_START) ||
            RESERVE(pos, p) > pos->score[p])
            return false;
    }
    return live[0] == WP_COLS || live[1] == WP_COLS;
}

static bool wp_valid(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (!tg__mancala_counters_conserved(cfg, pos))
        return false;
    return !is_match(cfg) || valid_match_fields(pos);
}

/* A round ends with the board emptied into the scores (by the rules or the quiet limit). A
 * single game is then won on the scores; a match only once a player cannot fill a hole. */
static unsigned wp_endings(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (tg__mancala_board_total(cfg, pos))
        return 0;
    if (is_match(cfg))
        return pos->winner >= 0 && pos->score[1 - pos->winner] < WP_START ? 1u << TG_END_STORE_SHORT
                                                                          : 0u;
    if (pos->winner != tg__winner_by_score(pos))
        return 0;
    return 1u << TG_END_EMPTY_ROW | (tg__quiet_end_reached(cfg, pos) ? 1u << TG_END_QUIET : 0u);
}

TG__FLATTEN static size_t wp_playout(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng,
                                     size_t max_plies, uint64_t *stats)
{
    return tg__move_set_playout(cfg, pos, rng, max_plies, stats, wp_move_set, wp_apply);
}

/* The learning interface (docs/learning.md): in a match, dead holes get a plane, and the
 * fields are the round, the observer's and the opponent's reserves and whether the observer
 * started the round. */
static unsigned wp_flag_planes(const struct tg_config *cfg)
{
    return is_match(cfg) ? TG_CELL_DEAD : 0u;
}

static size_t wp_observe_fields(const struct tg_config *cfg, const struct tg_pos *pos, int player,
                                float *out)
{
    if (!is_match(cfg))
        return 0;
    if (out) {
        out[0] = (float)get_round(pos);
        out[1] = (float)RESERVE(pos, player);
        out[2] = (float)RESERVE(pos, 1 - player);
        out[3] = STARTER(pos) == player ? 1.0f : 0.0f;
    }
    return 4;
}

static const struct tg_learning wp_learning = {TG__ACTIONS_OWN_HOLES, wp_flag_planes,
                                               wp_observe_fields, NULL};

const struct tg_game tg__walak_pussa = {
    .id = "walak-pussa",
    .name = "Walak-pussa",
    .options = wp_options,
    .option_count = sizeof wp_options / sizeof wp_options[0],
    .quiet_option = OPT_QUIET,
    .laps_option = OPT_LAPS,
    .setup = wp_setup,
    .init = wp_init,
    .moves = wp_moves,
    .move_set = wp_move_set,
    .chance = NULL,
    .apply = wp_apply,
    .apply_story = wp_apply_story,
    .playout = wp_playout,
    .quiet_end = wp_quiet_end,
    .count = tg__mancala_count,
    .owner = tg__mancala_owner,
    .flags = wp_flags,
    .write_cell = tg__mancala_write_cell,
    .read_cell = tg__mancala_read_cell,
    .write_field = wp_write_field,
    .read_field = wp_read_field,
    .valid = wp_valid,
    .endings = wp_endings,
    .describe = wp_describe,
    .move_to_string = tg__mancala_move_to_string,
    .move_from_string = tg__mancala_move_from_string,
    .learning = &wp_learning,
};

/* Halusa: Hyde 1694, De Ludis Orientalibus pp. 226-230; rules/halusa.md resolves the rest.
 * One shared anticlockwise ring, a single lap per move, even-count captures chained backwards
 * through the mover's own holes, and the must-feed rule. */
#include "../mancala/board.h"
#include "../playout.h"

#include <string.h>

enum { HALUSA_COLS = 6, HALUSA_HOLES = 12, HALUSA_START = 6 };
enum { OPT_REMAINDER = 0, OPT_QUIET = 1 };
enum { REMAINDER_LAST_MOVER = 0, REMAINDER_OWNER = 1 };

static const char *const remainder_choices[] = {"last-mover", "owner", NULL};

static const struct tg_option_def halusa_options[] = {
    {"remainder", "last-mover|owner", remainder_choices, 0, 0, "last-mover"},
    TG__QUIET_OPTION,
};

static void halusa_setup(struct tg_config *cfg)
{
    /* a1 .. f1, then f2 .. a2: anticlockwise seen from above with player 0 south. */
    static const uint8_t order[HALUSA_HOLES] = {0, 1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 6};
    cfg->rows = 2;
    cfg->cols = HALUSA_COLS;
    cfg->cells = HALUSA_HOLES;
    cfg->total = HALUSA_HOLES * HALUSA_START;
    cfg->max_moves = HALUSA_COLS;
    tg__ring_init(&cfg->ring[0], order, HALUSA_HOLES);
    cfg->ring[1] = cfg->ring[0];
}

static void halusa_init(const struct tg_config *cfg, struct tg_pos *pos)
{
    memset(pos->cell, HALUSA_START, (size_t)cfg->cells);
}

/* Each player's holes are six consecutive ring positions starting at 6 * player; a move
 * reaches the opponent's row iff it sows past the last of them. */
static bool feeds_opponent(const struct tg_config *cfg, int player, int cell, unsigned n)
{
    unsigned rel = cfg->ring[0].at[cell] - (unsigned)(HALUSA_COLS * player);
    return n >= HALUSA_COLS - rel;
}

static TG__ALWAYS_INLINE uint64_t halusa_move_set(const struct tg_config *cfg,
                                                  const struct tg_pos *pos, unsigned *first)
{
    int me = pos->side;
    *first = (unsigned)(me * HALUSA_COLS);
    uint64_t own = tg__cells_set(pos->cell, *first, HALUSA_COLS, 0xFF);
    /* Sowing only adds to the opponent's row and captures only take from one's own, so
     * must-feed only restricts a player whose opponent's row is already empty. */
    if (!own || tg__cells_any(pos->cell + (1 - me) * HALUSA_COLS, HALUSA_COLS, 0xFF))
        return own;
    uint64_t feeding = 0;
    for (uint64_t rest = own; rest; rest &= rest - 1) {
        unsigned i = tg__lowest_bit(rest);
        int cell = (int)(*first + i);
        if (feeds_opponent(cfg, me, cell, pos->cell[cell]))
            feeding |= UINT64_C(1) << i;
    }
    return feeding;
}

static size_t halusa_moves(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out)
{
    return tg__moves_of_set(halusa_move_set, cfg, pos, out);
}

/* halusa_move_set() != 0, mostly without building it: the player to move has a counter, and
 * if the row opposite is empty, a hole that reaches it. The end test after every move. */
static bool halusa_has_move(const struct tg_config *cfg, const struct tg_pos *pos)
{
    int me = pos->side;
    if (!tg__cells_any(pos->cell + me * HALUSA_COLS, HALUSA_COLS, 0xFF))
        return false;
    unsigned first;
    return tg__cells_any(pos->cell + (1 - me) * HALUSA_COLS, HALUSA_COLS, 0xFF) ||
           halusa_move_set(cfg, pos, &first) != 0;
}

static TG__ALWAYS_INLINE void halusa_end(const struct tg_config *cfg, struct tg_pos *pos,
                                         int last_mover, struct tg__story *story)
{
    if (cfg->opt[OPT_REMAINDER] == REMAINDER_OWNER)
        tg__mancala_take_own_sides(cfg, pos, story);
    else
        tg__mancala_take_all(cfg, pos, last_mover, story);
    tg__end(story, pos, tg__winner_by_score(pos), TG_END_NO_MOVE);
}

/* The move, with its story when `story` is not NULL. */
static TG__ALWAYS_INLINE uint64_t halusa_play(const struct tg_config *cfg, struct tg_pos *pos,
                                              tg_move m, struct tg__story *story)
{
    const struct tg_ring *ring = &cfg->ring[0];
    int me = pos->side;
    unsigned n = pos->cell[m];
    if (story)
        tg__story_lift(story, m, n);
    pos->cell[m] = 0;
    unsigned at = tg__ring_sow(ring, pos->cell, ring->at[m], n, story);

    /* Hyde: the last counter making one's own hole even captures it, and the holes before it
     * go too while they stay even; an odd, empty or foreign hole stops the chain. */
    unsigned taken = 0, own_from = (unsigned)(me * HALUSA_COLS);
    for (;;) {
        int cell = ring->hole[at];
        unsigned c = pos->cell[cell];
        /* One's own holes are the ring positions own_from .. own_from + 5. */
        if (at - own_from >= HALUSA_COLS || c == 0 || c % 2 != 0)
            break;
        if (story)
            tg__story_event(story, TG_EVENT_CAPTURE, (uint32_t)cell, c, (uint32_t)me);
        taken += c;
        pos->cell[cell] = 0;
        at = tg__ring_prev(ring, at);
    }
    pos->score[me] = (uint16_t)(pos->score[me] + taken);
    pos->side = (uint8_t)(1 - me);

    if (!halusa_has_move(cfg, pos))
        halusa_end(cfg, pos, me, story);
    return (taken ? TG__CAPTURED : 0u) | TG__SOWN(n);
}

TG__APPLY_FUNCTIONS(halusa_apply, halusa_apply_story, halusa_play)

static bool halusa_valid(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (!tg__mancala_counters_conserved(cfg, pos))
        return false;
    if (pos->phase == TG__OVER)
        return true;
    /* While the game runs, scores only grow by captures, and every capture is even. */
    return pos->score[0] % 2 == 0 && pos->score[1] % 2 == 0;
}

/* Halusa's end and its quiet end both empty the board into the scores and judge by them: the
 * own end fits any such position, the quiet end one whose count stands at the limit. */
static unsigned halusa_endings(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (!tg__mancala_emptied_by_score(cfg, pos))
        return 0;
    return 1u << TG_END_NO_MOVE | (tg__quiet_end_reached(cfg, pos) ? 1u << TG_END_QUIET : 0u);
}

TG__FLATTEN static size_t halusa_playout(const struct tg_config *cfg, struct tg_pos *pos,
                                         uint64_t *rng, size_t max_plies, uint64_t *stats)
{
    return tg__move_set_playout(cfg, pos, rng, max_plies, stats, halusa_move_set, halusa_apply);
}

const struct tg_game tg__halusa = {
    .id = "halusa",
    .name = "Halusa",
    .options = halusa_options,
    .option_count = sizeof halusa_options / sizeof halusa_options[0],
    .quiet_option = OPT_QUIET,
    .laps_option = -1,
    .setup = halusa_setup,
    .init = halusa_init,
    .moves = halusa_moves,
    .move_set = halusa_move_set,
    .chance = NULL,
    .apply = halusa_apply,
    .apply_story = halusa_apply_story,
    .playout = halusa_playout,
    .quiet_end = tg__mancala_quiet_end_own_sides,
    .count = tg__mancala_count,
    .owner = tg__mancala_owner,
    .flags = tg__mancala_no_flags,
    .write_cell = tg__mancala_write_cell,
    .read_cell = tg__mancala_read_cell,
    .write_field = NULL,
    .read_field = NULL,
    .valid = halusa_valid,
    .endings = halusa_endings,
    .describe = NULL,
    .move_to_string = tg__mancala_move_to_string,
    .move_from_string = tg__mancala_move_from_string,
};

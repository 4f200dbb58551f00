/* Hawalis: the Omani game after de Voogt 2003 and Russian Wikipedia's "Hawalis", with the
 * Zanzibar variant after Ingrams; rules/hawalis.md resolves the rest. Each player relays round
 * their own two rows; a move ending in an empty hole of one's inner row captures the facing
 * enemy holes, and the catch leaves the board for the captor's score. */
#include "../mancala/board.h"
#include "../playout.h"

enum { OPT_VARIANT = 0, OPT_LAPS = 1, OPT_QUIET = 2 };
enum { VARIANT_OMAN = 0, VARIANT_ZANZIBAR = 1 };

static const char *const variant_choices[] = {"oman", "zanzibar", NULL};

static const struct tg_option_def hawalis_options[] = {
    {"variant", "oman|zanzibar", variant_choices, 0, 0, "oman"},
    TG__LAPS_OPTION,
    TG__QUIET_OPTION,
};

/* Board width, counters per hole and sowing direction of each variant. */
static const struct {
    int cols, start;
    bool clockwise;
} variants[] = {
    [VARIANT_OMAN] = {7, 2, false},
    [VARIANT_ZANZIBAR] = {8, 3, true},
};

static void hawalis_setup(struct tg_config *cfg)
{
    int v = cfg->opt[OPT_VARIANT];
    tg__mancala_four_row_rings(cfg, variants[v].cols, variants[v].clockwise);
    cfg->total = cfg->cells * variants[v].start;
    cfg->max_moves = (size_t)(cfg->cells / 2);
}

static void hawalis_init(const struct tg_config *cfg, struct tg_pos *pos)
{
    for (int c = 0; c < cfg->cells; c++)
        pos->cell[c] = (uint8_t)variants[cfg->opt[OPT_VARIANT]].start;
}

/* A move starts from a hole of 2 or more if the mover has one; otherwise from a single counter
 * whose next hole round the ring is empty (de Voogt: a single counter is never sown into an
 * occupied hole). */
/* A hole of one counter may be played only into an empty next hole round the ring. */
static inline bool singleton_playable(const struct tg_ring *ring, const struct tg_pos *pos,
                                      int cell)
{
    return pos->cell[cell] == 1 && !pos->cell[ring->hole[tg__ring_next(ring, ring->at[cell])]];
}

static TG__ALWAYS_INLINE uint64_t hawalis_move_set(const struct tg_config *cfg,
                                                   const struct tg_pos *pos, unsigned *first)
{
    int me = pos->side, half = cfg->cells / 2;
    const struct tg_ring *ring = &cfg->ring[me];
    *first = (unsigned)(me * half);
    uint64_t set = tg__cells_set(pos->cell, *first, (unsigned)half, 0xFE);
    if (set)
        return set;
    for (uint64_t ones = tg__cells_set(pos->cell, *first, (unsigned)half, 0xFF); ones;
         ones &= ones - 1) {
        unsigned i = tg__lowest_bit(ones);
        if (singleton_playable(ring, pos, (int)(*first + i)))
            set |= UINT64_C(1) << i;
    }
    return set;
}

static size_t hawalis_moves(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out)
{
    return tg__moves_of_set(hawalis_move_set, cfg, pos, out);
}

/* hawalis_move_set() != 0, stopping at the first move found: the end test after every move. */
static bool hawalis_has_move(const struct tg_config *cfg, const struct tg_pos *pos)
{
    int me = pos->side, half = cfg->cells / 2;
    if (tg__cells_any(pos->cell + me * half, (unsigned)half, 0xFE))
        return true;
    const struct tg_ring *ring = &cfg->ring[me];
    for (int cell = me * half; cell < (me + 1) * half; cell++)
        if (singleton_playable(ring, pos, cell))
            return true;
    return false;
}

/* Sowing ends in an empty hole; an occupied landing hole is lifted and sown on. */
static TG__ALWAYS_INLINE bool hawalis_next_lap(void *ctx, const struct tg_ring *ring, uint8_t *cell,
                                               unsigned last, struct tg_lap *next,
                                               struct tg__story *story)
{
    (void)ctx;
    int hole = ring->hole[last];
    if (cell[hole] == 1)
        return false;
    return tg__mancala_lift_on(cell, (unsigned)hole, last, next, story);
}

/* The capture of a move whose last counter fell into the empty hole `hole` of player `me`:
 * only a landing in the mover's inner row captures. Oman takes the facing inner hole and the
 * outer hole behind it, but only when the inner one is occupied; Zanzibar takes each of the
 * two that is occupied. */
static TG__ALWAYS_INLINE unsigned capture(const struct tg_config *cfg, uint8_t *cell, int me,
                                          int hole, struct tg__story *story)
{
    /* The inner row is row 1 (south) or 2 (north), the facing hole one row over and the one
     * behind it two: offsets, not a division for the row and column. */
    int w = cfg->cols, inner = me == 0 ? w : 2 * w, step = me == 0 ? w : -w;
    if ((unsigned)(hole - inner) >= (unsigned)w)
        return 0;
    int facing = hole + step, behind = hole + 2 * step;
    if (cfg->opt[OPT_VARIANT] == VARIANT_OMAN && cell[facing] == 0)
        return 0;
    if (story) {
        if (cell[facing])
            tg__story_event(story, TG_EVENT_CAPTURE, (uint32_t)facing, cell[facing], (uint32_t)me);
        if (cell[behind])
            tg__story_event(story, TG_EVENT_CAPTURE, (uint32_t)behind, cell[behind], (uint32_t)me);
    }
    unsigned taken = (unsigned)cell[facing] + cell[behind];
    cell[facing] = 0;
    cell[behind] = 0;
    return taken;
}

/* The move, with its story when `story` is not NULL. */
static TG__ALWAYS_INLINE uint64_t hawalis_play(const struct tg_config *cfg, struct tg_pos *pos,
                                               tg_move m, struct tg__story *story)
{
    int me = pos->side;
    const struct tg_ring *ring = &cfg->ring[me];
    unsigned last;
    uint64_t sown;
    if (!tg__mancala_relay_move(cfg, pos, ring, m, TG__SOWN_BOARD_MAX, hawalis_next_lap, NULL,
                                &last, &sown, story))
        return TG__ENDLESS | TG__SOWN(sown);
    unsigned taken = capture(cfg, pos->cell, me, ring->hole[last], story);
    pos->score[me] = (uint16_t)(pos->score[me] + taken);
    pos->side = (uint8_t)(1 - me);
    if (!hawalis_has_move(cfg, pos))
        tg__end(story, pos, tg__winner_by_score(pos), TG_END_NO_MOVE);
    return (taken > 0 ? TG__CAPTURED : 0u) | TG__SOWN(sown);
}

TG__APPLY_FUNCTIONS(hawalis_apply, hawalis_apply_story, hawalis_play)

static bool hawalis_valid(const struct tg_config *cfg, const struct tg_pos *pos)
{
    return tg__mancala_counters_conserved(cfg, pos);
}

/* Hawalis ends by the scores when the player to move has no move, the board left as it is
 * (never empty: a move leaves the counters it sowed); the quiet limit gives each side its own
 * counters, then judges by the scores. */
static unsigned hawalis_endings(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned fit = 0;
    if (tg__mancala_board_total(cfg, pos) && pos->winner == tg__winner_by_score(pos)) {
        for (int p = 0; p < 2; p++) {
            struct tg_pos to_move = *pos;
            to_move.side = (uint8_t)p;
            if (!hawalis_has_move(cfg, &to_move))
                fit |= 1u << TG_END_NO_MOVE;
        }
    }
    if (tg__quiet_end_reached(cfg, pos) && tg__mancala_emptied_by_score(cfg, pos))
        fit |= 1u << TG_END_QUIET;
    return fit;
}

TG__FLATTEN static size_t hawalis_playout(const struct tg_config *cfg, struct tg_pos *pos,
                                          uint64_t *rng, size_t max_plies, uint64_t *stats)
{
    return tg__move_set_playout(cfg, pos, rng, max_plies, stats, hawalis_move_set, hawalis_apply);
}

const struct tg_game tg__hawalis = {
    .id = "hawalis",
    .name = "Hawalis",
    .options = hawalis_options,
    .option_count = sizeof hawalis_options / sizeof hawalis_options[0],
    .quiet_option = OPT_QUIET,
    .laps_option = OPT_LAPS,
    .setup = hawalis_setup,
    .init = hawalis_init,
    .moves = hawalis_moves,
    .move_set = hawalis_move_set,
    .chance = NULL,
    .apply = hawalis_apply,
    .apply_story = hawalis_apply_story,
    .playout = hawalis_playout,
    .quiet_end = tg__mancala_quiet_end_own_sides,
    .count = tg__mancala_count,
    .owner = tg__mancala_owner,
    .flags = tg__mancala_no_flags,
    .write_cell = tg__mancala_write_cell,
    .read_cell = tg__mancala_read_cell,
    .write_field = NULL,
    .read_field = NULL,
    .valid = hawalis_valid,
    .endings = hawalis_endings,
    .describe = NULL,
    .move_to_string = tg__mancala_move_to_string,
    .move_from_string = tg__mancala_move_from_string,
};

/* Hus: Mancala World, "Hus" (Namibia; Kroenlein 1855); rules/hus.md resolves the rest. Each
 * player sows anticlockwise round their own two rows, relaying from the landing hole; landing
 * in an occupied inner hole opposite an occupied enemy inner hole captures it (and the outer
 * hole behind it), and the captured counters are sown on as the next lap. */
#include "../mancala/board.h"
#include "../playout.h"

#include <string.h>

enum { OPT_WIDTH = 0, OPT_LAPS = 1, OPT_QUIET = 2 };

static const char *const width_choices[] = {"8", "10", "12", "14", "16", NULL};

static const struct tg_option_def hus_options[] = {
    {"width", "8|10|12|14|16", width_choices, 0, 0, "8"},
    TG__LAPS_OPTION,
    TG__QUIET_OPTION,
};

static void hus_setup(struct tg_config *cfg)
{
    int w = 8 + 2 * cfg->opt[OPT_WIDTH];
    tg__mancala_four_row_rings(cfg, w, false);
    cfg->total = 6 * w;
    cfg->max_moves = (size_t)(2 * w);
}

static void update_scores(const struct tg_config *cfg, struct tg_pos *pos)
{
    for (int p = 0; p < 2; p++)
        pos->score[p] = (uint16_t)tg__mancala_side_total(cfg, pos, p);
}

static void hus_init(const struct tg_config *cfg, struct tg_pos *pos)
{
    int w = cfg->cols;
    /* Outer rows full; each inner row on its owner's right-hand half. */
    for (int c = 0; c < w; c++) {
        pos->cell[c] = 2;
        pos->cell[3 * w + c] = 2;
        pos->cell[w + c] = c >= w / 2 ? 2 : 0;
        pos->cell[2 * w + c] = c < w / 2 ? 2 : 0;
    }
    update_scores(cfg, pos);
}

/* A move starts from any of one's own holes with two or more counters. */
static TG__ALWAYS_INLINE uint64_t hus_move_set(const struct tg_config *cfg,
                                               const struct tg_pos *pos, unsigned *first)
{
    unsigned half = (unsigned)cfg->cells / 2;
    *first = pos->side * half;
    return tg__cells_set(pos->cell, *first, half, 0xFE);
}

static size_t hus_moves(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out)
{
    return tg__moves_of_set(hus_move_set, cfg, pos, out);
}

struct hus_turn {
    int me;
    /* The mover's inner row starts at cell `inner`; the facing enemy hole is `step` cells from
     * a hole of it, the one behind that 2 * step: offsets, where row and column were a division
     * a lap. */
    int inner, width, step;
    bool captured;
};

/* What follows a lap: an empty landing hole ends the move; an inner hole facing an occupied
 * enemy inner hole captures and sows the catch on from the next hole; any other occupied hole
 * is lifted and sown on. */
static TG__ALWAYS_INLINE bool hus_next_lap(void *ctx, const struct tg_ring *ring, uint8_t *cell,
                                           unsigned last, struct tg_lap *next,
                                           struct tg__story *story)
{
    struct hus_turn *turn = ctx;
    int hole = ring->hole[last];
    if (cell[hole] == 1)
        return false;
    if ((unsigned)(hole - turn->inner) < (unsigned)turn->width) {
        int facing = hole + turn->step, behind = hole + 2 * turn->step;
        if (cell[facing]) {
            if (story) {
                tg__story_event(story, TG_EVENT_RESOW, (uint32_t)facing, cell[facing],
                                (uint32_t)turn->me);
                if (cell[behind])
                    tg__story_event(story, TG_EVENT_RESOW, (uint32_t)behind, cell[behind],
                                    (uint32_t)turn->me);
            }
            next->at = last;
            next->hand = (unsigned)cell[facing] + cell[behind];
            cell[facing] = 0;
            cell[behind] = 0;
            turn->captured = true;
            return true;
        }
    }
    return tg__mancala_lift_on(cell, (unsigned)hole, last, next, story);
}

/* The move, with its story when `story` is not NULL. */
static TG__ALWAYS_INLINE uint64_t hus_play(const struct tg_config *cfg, struct tg_pos *pos,
                                           tg_move m, struct tg__story *story)
{
    int me = pos->side;
    const struct tg_ring *ring = &cfg->ring[me];
    int w = cfg->cols;
    struct hus_turn turn = {me, me == 0 ? w : 2 * w, w, me == 0 ? w : -w, false};
    unsigned last;
    uint64_t sown;
    if (!tg__mancala_relay_move(cfg, pos, ring, m, TG__SOWN_BOARD_MAX, hus_next_lap, &turn, &last,
                                &sown, story))
        return TG__ENDLESS | TG__SOWN(sown);
    uint16_t old_score[2] = {pos->score[0], pos->score[1]};
    update_scores(cfg, pos);
    if (story)
        for (int p = 0; p < 2; p++)
            if (pos->score[p] != old_score[p])
                tg__story_event(story, TG_EVENT_SCORE, TG__NA, pos->score[p], (uint32_t)p);
    pos->side = (uint8_t)(1 - me);
    /* A player who cannot move (no hole of two or more) loses. */
    unsigned half = (unsigned)cfg->cells / 2;
    if (!tg__cells_any(pos->cell + pos->side * half, half, 0xFE))
        tg__end(story, pos, me, TG_END_NO_MOVE);
    return (turn.captured ? TG__CAPTURED : 0u) | TG__SOWN(sown);
}

TG__APPLY_FUNCTIONS(hus_apply, hus_apply_story, hus_play)

static void hus_quiet_end(const struct tg_config *cfg, struct tg_pos *pos, struct tg__story *story)
{
    (void)cfg;
    (void)story; /* nothing moves: the core tells the quiet end */
    tg__finish(pos, tg__winner_by_score(pos));
}

static bool hus_valid(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (tg__mancala_board_total(cfg, pos) != (unsigned)cfg->total)
        return false;
    for (int p = 0; p < 2; p++) {
        if (pos->score[p] != tg__mancala_side_total(cfg, pos, p))
            return false;
    }
    return true;
}

/* Hus ends when the player to move has no hole of two or more (the mover wins, whatever the
 * scores), and at the quiet limit by the scores, which are the sides' totals. */
static unsigned hus_endings(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned half = (unsigned)cfg->cells / 2, fit = 0;
    for (int p = 0; p < 2; p++)
        if (!tg__cells_any(pos->cell + (unsigned)p * half, half, 0xFE) && pos->winner == 1 - p)
            fit |= 1u << TG_END_NO_MOVE;
    if (tg__quiet_end_reached(cfg, pos) && pos->winner == tg__winner_by_score(pos))
        fit |= 1u << TG_END_QUIET;
    return fit;
}

TG__FLATTEN static size_t hus_playout(const struct tg_config *cfg, struct tg_pos *pos,
                                      uint64_t *rng, size_t max_plies, uint64_t *stats)
{
    return tg__move_set_playout(cfg, pos, rng, max_plies, stats, hus_move_set, hus_apply);
}

const struct tg_game tg__hus = {
    .id = "hus",
    .name = "Hus",
    .options = hus_options,
    .option_count = sizeof hus_options / sizeof hus_options[0],
    .quiet_option = OPT_QUIET,
    .laps_option = OPT_LAPS,
    .setup = hus_setup,
    .init = hus_init,
    .moves = hus_moves,
    .move_set = hus_move_set,
    .chance = NULL,
    .apply = hus_apply,
    .apply_story = hus_apply_story,
    .playout = hus_playout,
    .quiet_end = hus_quiet_end,
    .count = tg__mancala_count,
    .owner = tg__mancala_owner,
    .flags = tg__mancala_no_flags,
    .write_cell = tg__mancala_write_cell,
    .read_cell = tg__mancala_read_cell,
    .write_field = NULL,
    .read_field = NULL,
    .valid = hus_valid,
    .endings = hus_endings,
    .describe = NULL,
    .move_to_string = tg__mancala_move_to_string,
    .move_from_string = tg__mancala_move_from_string,
};

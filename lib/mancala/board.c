#include "board.h"

#include <string.h>

int tg__mancala_count(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)cfg;
    return pos->cell[cell];
}

int tg__mancala_owner(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)pos;
    return cell / cfg->cols < cfg->rows / 2 ? 0 : 1;
}

unsigned tg__mancala_no_flags(const struct tg_config *cfg, const struct tg_pos *pos, int cell)
{
    (void)cfg;
    (void)pos;
    (void)cell;
    return 0;
}

void tg__mancala_write_cell(const struct tg_config *cfg, const struct tg_pos *pos, int cell,
                            struct tg_out *o)
{
    (void)cfg;
    tg__out_uint(o, pos->cell[cell]);
}

bool tg__mancala_read_cell(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos,
                           int cell)
{
    unsigned long v;
    if (!tg__parse_uint(s, n, (unsigned long)cfg->total, &v))
        return false;
    pos->cell[cell] = (uint8_t)v;
    return true;
}

bool tg__mancala_move_to_string(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
                                struct tg_out *o)
{
    (void)pos;
    if (m == TG_MOVE_PASS) {
        tg__out_str(o, "pass");
        return true;
    }
    if (m >= (tg_move)cfg->cells)
        return false;
    tg__out_cell_name(o, cfg, (int)m);
    return true;
}

bool tg__mancala_move_from_string(const struct tg_config *cfg, const struct tg_pos *pos,
                                  const char *s, size_t n, tg_move *m)
{
    (void)pos;
    if (n == 4 && memcmp(s, "pass", 4) == 0) {
        *m = TG_MOVE_PASS;
        return true;
    }
    int cell = tg__parse_cell_name(cfg, s, n);
    if (cell < 0)
        return false;
    *m = (tg_move)cell;
    return true;
}

void tg__mancala_four_row_rings(struct tg_config *cfg, int cols, bool clockwise)
{
    uint8_t order[2][TG__RING_MAX];
    /* Options keep cols in range (the board must fit TG__SOWN_BOARD_MAX); the bound also
     * tells the optimiser so (gcc -O3 otherwise warns of writes past `order`). */
    int w = cols < 1 ? 1 : cols > TG__SOWN_BOARD_MAX / 4 ? TG__SOWN_BOARD_MAX / 4 : cols;
    for (int i = 0; i < w; i++) {
        int east = w - 1 - i; /* column i counted from the east */
        if (!clockwise) {
            order[0][i] = (uint8_t)i;
            order[0][w + i] = (uint8_t)(w + east);
            order[1][i] = (uint8_t)(3 * w + east);
            order[1][w + i] = (uint8_t)(2 * w + i);
        } else {
            order[0][i] = (uint8_t)east;
            order[0][w + i] = (uint8_t)(w + i);
            order[1][i] = (uint8_t)(3 * w + i);
            order[1][w + i] = (uint8_t)(2 * w + east);
        }
    }
    cfg->rows = 4;
    cfg->cols = w;
    cfg->cells = 4 * w;
    tg__ring_init(&cfg->ring[0], order[0], (unsigned)(2 * w));
    tg__ring_init(&cfg->ring[1], order[1], (unsigned)(2 * w));
}

static void gather_events(const struct tg_config *cfg, const struct tg_pos *pos, int player,
                          struct tg__story *story)
{
    for (int c = 0; c < cfg->cells; c++)
        if (pos->cell[c])
            tg__story_event(story, TG_EVENT_GATHER, (uint32_t)c, pos->cell[c],
                            (uint32_t)(player >= 0 ? player : tg__mancala_owner(cfg, pos, c)));
}

void tg__mancala_take_own_sides(const struct tg_config *cfg, struct tg_pos *pos,
                                struct tg__story *story)
{
    if (story)
        gather_events(cfg, pos, -1, story);
    for (int p = 0; p < 2; p++)
        pos->score[p] = (uint16_t)(pos->score[p] + tg__mancala_side_total(cfg, pos, p));
    memset(pos->cell, 0, (size_t)cfg->cells);
}

void tg__mancala_take_all(const struct tg_config *cfg, struct tg_pos *pos, int player,
                          struct tg__story *story)
{
    if (story)
        gather_events(cfg, pos, player, story);
    pos->score[player] = (uint16_t)(pos->score[player] + tg__mancala_board_total(cfg, pos));
    memset(pos->cell, 0, (size_t)cfg->cells);
}

void tg__mancala_quiet_end_own_sides(const struct tg_config *cfg, struct tg_pos *pos,
                                     struct tg__story *story)
{
    tg__mancala_take_own_sides(cfg, pos, story);
    /* The core tells the quiet end itself (tg__play_story()). */
    tg__finish(pos, tg__winner_by_score(pos));
}

bool tg__mancala_counters_conserved(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned counters = tg__mancala_board_total(cfg, pos) + pos->score[0] + pos->score[1];
    return counters == (unsigned)cfg->total;
}

bool tg__quiet_end_reached(const struct tg_config *cfg, const struct tg_pos *pos)
{
    return cfg->quiet_limit && pos->quiet == cfg->quiet_limit;
}

bool tg__mancala_emptied_by_score(const struct tg_config *cfg, const struct tg_pos *pos)
{
    return tg__mancala_board_total(cfg, pos) == 0 && pos->winner == tg__winner_by_score(pos);
}

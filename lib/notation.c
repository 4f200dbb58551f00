/* Position and move strings, cell names and the ASCII board: the parts shared by every game.
 * Games supply only the text of a cell, of their own fields and of their moves. */
#include "internal.h"

#include <string.h>

void tg__out_mem(struct tg_out *o, const char *s, size_t n)
{
    /* Text that does not fit is only counted; callers measure first, so it never is cut. */
    if (o->buf && o->len + n < o->cap)
        memcpy(o->buf + o->len, s, n);
    o->len += n;
    if (o->buf && o->len < o->cap)
        o->buf[o->len] = '\0';
}

void tg__out_str(struct tg_out *o, const char *s)
{
    tg__out_mem(o, s, strlen(s));
}

void tg__out_uint(struct tg_out *o, unsigned long v)
{
    char digits[24];
    size_t n = sizeof digits;
    do {
        digits[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tg__out_mem(o, digits + n, sizeof digits - n);
}

/* Columns are named like spreadsheet columns: a .. z, then aa, ab, ... */
static void out_column(struct tg_out *o, int col)
{
    char letters[8];
    size_t n = sizeof letters;
    unsigned v = (unsigned)col + 1;
    while (v) {
        v--;
        letters[--n] = (char)('a' + v % 26);
        v /= 26;
    }
    tg__out_mem(o, letters + n, sizeof letters - n);
}

void tg__out_cell_name(struct tg_out *o, const struct tg_config *cfg, int cell)
{
    out_column(o, cell % cfg->cols);
    tg__out_uint(o, (unsigned long)(cell / cfg->cols + 1));
}

bool tg__parse_uint(const char *s, size_t n, unsigned long max, unsigned long *out)
{
    /* Ten digits reach the largest bound (the lap limit, 10^9); 64-bit sums cannot overflow
     * there even where long is 32 bits (wasm32). */
    if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = (unsigned long)v;
    return true;
}

int tg__parse_cell_name(const struct tg_config *cfg, const char *s, size_t n)
{
    size_t i = 0;
    unsigned long col = 0;
    while (i < n && i < 3 && s[i] >= 'a' && s[i] <= 'z') {
        col = col * 26 + (unsigned long)(s[i] - 'a' + 1);
        i++;
    }
    unsigned long row;
    if (i == 0 || !tg__parse_uint(s + i, n - i, (unsigned long)cfg->rows, &row) || row == 0 ||
        col > (unsigned long)cfg->cols)
        return -1;
    return (int)((row - 1) * (unsigned long)cfg->cols + (col - 1));
}

/* ---- position strings ---------------------------------------------------------------- */

static void out_field_name(struct tg_out *o, const char *name)
{
    tg__out_str(o, " ");
    tg__out_str(o, name);
    tg__out_str(o, "=");
}

void tg__pos_write(const struct tg_rules *rules, const struct tg_pos *pos, struct tg_out *o)
{
    const struct tg_config *cfg = &rules->cfg;
    const struct tg_game *g = cfg->game;
    tg__out_str(o, rules->spec);
    tg__out_str(o, " ");
    for (int row = cfg->rows - 1; row >= 0; row--) {
        for (int col = 0; col < cfg->cols; col++) {
            if (col)
                tg__out_str(o, ",");
            g->write_cell(cfg, pos, row * cfg->cols + col, o);
        }
        if (row)
            tg__out_str(o, "/");
    }
    if (pos->phase == TG__OVER)
        tg__out_str(o, " -");
    else
        tg__out_str(o, pos->phase == TG__CHANCE ? (pos->side ? " c1" : " c0")
                                                : (pos->side ? " 1" : " 0"));
    tg__out_str(o, " ");
    tg__out_uint(o, pos->score[0]);
    tg__out_str(o, ",");
    tg__out_uint(o, pos->score[1]);
    for (size_t f = 0; f < cfg->field_count; f++) {
        out_field_name(o, cfg->fields[f]);
        g->write_field(cfg, pos, f, o);
    }
    if (g->quiet_option >= 0) {
        out_field_name(o, "quiet");
        tg__out_uint(o, pos->quiet);
    }
    if (pos->phase == TG__OVER) {
        out_field_name(o, "winner");
        if (pos->winner == TG_DRAW)
            tg__out_str(o, "draw");
        else
            tg__out_uint(o, (unsigned long)pos->winner);
    }
}

/* A cursor over the space-separated tokens of a position string. */
struct tokens {
    const char *p;
    const char *end;
};

static bool next_token(struct tokens *t, const char **s, size_t *n)
{
    if (t->p >= t->end)
        return false;
    const char *space = memchr(t->p, ' ', (size_t)(t->end - t->p));
    const char *stop = space ? space : t->end;
    *s = t->p;
    *n = (size_t)(stop - t->p);
    t->p = space ? space + 1 : t->end;
    /* A space at the very end would leave an empty last token: malformed, like two spaces. */
    if (space && t->p == t->end)
        return false;
    return *n > 0;
}

/* Reads `NAME=VALUE`, checking the name; the value is returned in (v, vn). */
static bool read_field(struct tokens *t, const char *name, const char **v, size_t *vn)
{
    const char *s;
    size_t n, len = strlen(name);
    if (!next_token(t, &s, &n) || n <= len || memcmp(s, name, len) != 0 || s[len] != '=')
        return false;
    *v = s + len + 1;
    *vn = n - len - 1;
    return true;
}

static bool parse_board(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos)
{
    const char *end = s + n;
    for (int row = cfg->rows - 1; row >= 0; row--) {
        for (int col = 0; col < cfg->cols; col++) {
            const char *stop = s;
            while (stop < end && *stop != ',' && *stop != '/')
                stop++;
            bool last_in_row = col == cfg->cols - 1;
            char want = last_in_row ? (row ? '/' : '\0') : ',';
            char got = stop < end ? *stop : '\0';
            if (got != want ||
                !cfg->game->read_cell(cfg, s, (size_t)(stop - s), pos, row * cfg->cols + col))
                return false;
            s = stop + (stop < end);
        }
    }
    return s == end;
}

static bool parse_to_move(const char *s, size_t n, struct tg_pos *pos)
{
    if (n == 1 && (s[0] == '0' || s[0] == '1')) {
        pos->phase = TG__DECIDE;
        pos->side = (uint8_t)(s[0] - '0');
    } else if (n == 2 && s[0] == 'c' && (s[1] == '0' || s[1] == '1')) {
        pos->phase = TG__CHANCE;
        pos->side = (uint8_t)(s[1] - '0');
    } else if (n == 1 && s[0] == '-') {
        pos->phase = TG__OVER;
        pos->side = 0;
    } else {
        return false;
    }
    return true;
}

static bool parse_scores(const char *s, size_t n, struct tg_pos *pos)
{
    const char *comma = memchr(s, ',', n);
    unsigned long a, b;
    if (!comma || !tg__parse_uint(s, (size_t)(comma - s), 65535, &a) ||
        !tg__parse_uint(comma + 1, (size_t)(s + n - comma - 1), 65535, &b))
        return false;
    pos->score[0] = (uint16_t)a;
    pos->score[1] = (uint16_t)b;
    return true;
}

static bool parse_winner(const char *s, size_t n, struct tg_pos *pos)
{
    if (n == 4 && memcmp(s, "draw", 4) == 0)
        pos->winner = TG_DRAW;
    else if (n == 1 && (s[0] == '0' || s[0] == '1'))
        pos->winner = (int8_t)(s[0] - '0');
    else
        return false;
    return true;
}

/* Whether an endless move could have left this finished position (rules/README.md): it
 * leaves the board, scores and quiet count as they were, so the position with the loser to
 * move must be one where the loser had a move and the quiet limit had not been reached. */
static bool endless_could_leave(const struct tg_config *cfg, const struct tg_pos *pos)
{
    if (cfg->game->laps_option < 0 || (pos->winner != 0 && pos->winner != 1))
        return false;
    if (cfg->quiet_limit && pos->quiet >= cfg->quiet_limit)
        return false;
    struct tg_pos before = *pos;
    before.phase = TG__DECIDE;
    before.side = (uint8_t)(1 - pos->winner);
    before.winner = TG_NO_WINNER_YET;
    return cfg->game->valid(cfg, &before) && cfg->game->moves(cfg, &before, NULL) > 0;
}

unsigned tg__endings(const struct tg_config *cfg, const struct tg_pos *pos)
{
    unsigned fit = cfg->game->endings(cfg, pos);
    if (endless_could_leave(cfg, pos))
        fit |= 1u << TG_END_ENDLESS;
    return fit;
}

/* Whether a parsed position could arise in play, beyond the game's own invariants. */
static bool reachable(const struct tg_config *cfg, const struct tg_pos *pos)
{
    const struct tg_game *g = cfg->game;
    if (pos->phase == TG__CHANCE && !g->chance)
        return false;
    if (cfg->quiet_limit && pos->quiet > cfg->quiet_limit)
        return false;
    if (pos->phase != TG__OVER) {
        /* Play never leaves a running game where nobody can act: it would have ended. */
        if (cfg->quiet_limit && pos->quiet >= cfg->quiet_limit)
            return false;
        if (tg__options_now(cfg, pos, NULL, NULL) == 0)
            return false;
    } else if (!tg__endings(cfg, pos)) {
        /* A finished position some ending could leave: the game's own, the quiet limit's, or
         * an endless move by the loser. */
        return false;
    }
    return g->valid(cfg, pos);
}

tg_status tg__pos_parse(const struct tg_rules *rules, const char *text, struct tg_pos *out)
{
    const struct tg_config *cfg = &rules->cfg;
    const struct tg_game *g = cfg->game;
    struct tokens t = {text, text + strlen(text)};
    const char *s;
    size_t n;

    if (!next_token(&t, &s, &n))
        return TG_ERR_PARSE;
    struct tg_rules named;
    if (tg__rules_parse(s, n, &named) != TG_OK)
        return TG_ERR_PARSE;
    if (!tg__rules_same(&named, rules))
        return TG_ERR_RULES_MISMATCH;

    struct tg_pos pos;
    memset(&pos, 0, sizeof pos);
    pos.winner = TG_NO_WINNER_YET;
    if (!next_token(&t, &s, &n) || !parse_board(cfg, s, n, &pos))
        return TG_ERR_PARSE;
    if (!next_token(&t, &s, &n) || !parse_to_move(s, n, &pos))
        return TG_ERR_PARSE;
    if (!next_token(&t, &s, &n) || !parse_scores(s, n, &pos))
        return TG_ERR_PARSE;
    for (size_t f = 0; f < cfg->field_count; f++) {
        if (!read_field(&t, cfg->fields[f], &s, &n) || !g->read_field(cfg, f, s, n, &pos))
            return TG_ERR_PARSE;
    }
    if (g->quiet_option >= 0) {
        unsigned long quiet;
        if (!read_field(&t, "quiet", &s, &n) || !tg__parse_uint(s, n, 65535, &quiet))
            return TG_ERR_PARSE;
        pos.quiet = (uint16_t)quiet;
    }
    if (pos.phase == TG__OVER && (!read_field(&t, "winner", &s, &n) || !parse_winner(s, n, &pos)))
        return TG_ERR_PARSE;
    if (t.p != t.end || !reachable(cfg, &pos))
        return TG_ERR_PARSE;
    *out = pos;
    return TG_OK;
}

/* ---- the board for people ------------------------------------------------------------- */

static void out_padded(struct tg_out *o, const char *s, size_t n, size_t width)
{
    for (size_t i = n; i < width; i++)
        tg__out_str(o, " ");
    tg__out_mem(o, s, n);
}

void tg__pos_render(const struct tg_rules *rules, const struct tg_pos *pos, size_t ply,
                    struct tg_out *o)
{
    const struct tg_config *cfg = &rules->cfg;
    const size_t width = 4;
    char cell[16];

    tg__out_str(o, rules->spec);
    tg__out_str(o, "  ply ");
    tg__out_uint(o, (unsigned long)ply);
    tg__out_str(o, "\n    ");
    for (int col = 0; col < cfg->cols; col++) {
        struct tg_out c = {cell, sizeof cell, 0};
        out_column(&c, col);
        out_padded(o, cell, c.len, width);
    }
    tg__out_str(o, "\n");
    for (int row = cfg->rows - 1; row >= 0; row--) {
        struct tg_out r = {cell, sizeof cell, 0};
        tg__out_uint(&r, (unsigned long)row + 1);
        out_padded(o, cell, r.len, 3);
        tg__out_str(o, " ");
        for (int col = 0; col < cfg->cols; col++) {
            struct tg_out c = {cell, sizeof cell, 0};
            int index = row * cfg->cols + col;
            if (cfg->game->flags(cfg, pos, index) & TG_CELL_DEAD)
                tg__out_str(&c, "#");
            else
                cfg->game->write_cell(cfg, pos, index, &c);
            out_padded(o, cell, c.len < sizeof cell ? c.len : sizeof cell - 1, width);
        }
        tg__out_str(o, "\n");
    }
    tg__out_str(o, "score  player 0: ");
    tg__out_uint(o, pos->score[0]);
    tg__out_str(o, "  player 1: ");
    tg__out_uint(o, pos->score[1]);
    tg__out_str(o, "\n");
    if (cfg->game->describe)
        cfg->game->describe(cfg, pos, o);
    if (cfg->game->quiet_option >= 0) {
        /* How close the quiet limit is: the count a player watches, as chess players watch
         * the fifty-move count. */
        tg__out_str(o, "moves without capture: ");
        tg__out_uint(o, pos->quiet);
        if (cfg->quiet_limit) {
            tg__out_str(o, " of ");
            tg__out_uint(o, cfg->quiet_limit);
        } else {
            tg__out_str(o, " (no limit)");
        }
        tg__out_str(o, "\n");
    }
    if (pos->phase == TG__OVER) {
        if (pos->winner == TG_DRAW) {
            tg__out_str(o, "game over: draw\n");
        } else {
            tg__out_str(o, "game over: player ");
            tg__out_uint(o, (unsigned long)pos->winner);
            tg__out_str(o, " wins\n");
        }
    } else {
        tg__out_str(o, pos->phase == TG__CHANCE ? "to throw: player " : "to move: player ");
        tg__out_uint(o, pos->side);
        tg__out_str(o, "\n");
    }
}

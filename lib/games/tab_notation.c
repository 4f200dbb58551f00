/* At-Tab wa-d-Dukk's notation (rules/tab.md, "Notation"): cells, the stored throws field, the
 * description of a position's throws and moves, written and read. The rules are in games/tab.c. */
#include "tab_notation.h"

#include "tab_cells.h"
#include "tab_throws.h"

#include <string.h>

void tg__tab_write_cell(const struct tg_config *cfg, const struct tg_pos *pos, int cell,
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

bool tg__tab_read_cell(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos,
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

void tg__tab_write_field(const struct tg_config *cfg, const struct tg_pos *pos, size_t field,
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

/* The throws stored and not yet spent: while deciding, what the player still has to move
 * with; while throwing, what the throws so far have earned. */
void tg__tab_describe(const struct tg_config *cfg, const struct tg_pos *pos, struct tg_out *o)
{
    if (pos->phase == TG__OVER)
        return;
    tg__out_str(o, "throws to spend: ");
    if (stored_total(pos) == 0)
        tg__out_str(o, "none yet");
    else
        tg__tab_write_field(cfg, pos, 0, o);
    if (pos->phase == TG__CHANCE && stored_total(pos))
        tg__out_str(o, " (and another throw to come)");
    tg__out_str(o, "\n");
}

/* `-`, or the stored values in ascending order, comma-separated. */
bool tg__tab_read_field(const struct tg_config *cfg, size_t field, const char *s, size_t n,
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

bool tg__tab_move_to_string(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
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
bool tg__tab_move_from_string(const struct tg_config *cfg, const struct tg_pos *pos, const char *s,
                              size_t n, tg_move *m)
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

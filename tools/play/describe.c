/* tg-play's words for a move, from its story: a mancala move's sowing (counters sown, laps)
 * and captures, Hus's captures sown on, what a game's or round's end gathered, an endless
 * move; a Tab move's take, unlock, king or split and lost throws; the game's end. The
 * events' order is described at tg_event_kind in the header. */
#include "describe.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void describe_cell(const tg_state *s, uint32_t cell, char *buf, size_t cap)
{
    int cols = tg_rules_cols(tg_state_rules(s));
    if (cols <= 0) {
        snprintf(buf, cap, "#%" PRIu32, cell);
        return;
    }
    uint32_t row = cell / (uint32_t)cols, col = cell % (uint32_t)cols;
    char letters[8];
    size_t n = 0;
    /* Spreadsheet columns: a .. z, aa, ab, ... (bijective base 26). */
    for (uint32_t c = col + 1; c > 0 && n < sizeof letters; c = (c - 1) / 26)
        letters[n++] = (char)('a' + (c - 1) % 26);
    size_t k = 0;
    while (n > 0 && k + 1 < cap)
        buf[k++] = letters[--n];
    if (cap > 0)
        snprintf(buf + k, cap - k, "%" PRIu32, row + 1);
}

/* A line being written, cut short rather than overflowing. */
struct line {
    char *buf;
    size_t cap, len;
};

/* Lets the compilers check the format strings given to the helpers below. */
#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

PRINTF_LIKE(2, 0) static void vadd(struct line *l, const char *fmt, va_list ap)
{
    if (l->len + 1 >= l->cap)
        return;
    int n = vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
    if (n > 0)
        l->len = l->len + (size_t)n < l->cap ? l->len + (size_t)n : l->cap - 1;
}

PRINTF_LIKE(2, 3) static void add(struct line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(l, fmt, ap);
    va_end(ap);
}

/* One part of the description, after a comma if it is not the first. */
PRINTF_LIKE(2, 3) static void add_part(struct line *l, const char *fmt, ...)
{
    if (l->len > 0)
        add(l, ", ");
    va_list ap;
    va_start(ap, fmt);
    vadd(l, fmt, ap);
    va_end(ap);
}

/* "c2", "c2 and d2", "c2, d2 and e2": the cells of the events of `kind` (and `player`, unless
 * UINT32_MAX) among `ev`, with their counts summed into `*total`. */
static size_t cells_of(const tg_state *s, const uint32_t *ev, size_t n, uint32_t kind,
                       uint32_t player, char *buf, size_t cap, unsigned long long *total)
{
    size_t found = 0, shown = 0;
    *total = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[4 * i] == kind && (player == UINT32_MAX || ev[4 * i + 3] == player))
            found++;
    struct line l = {buf, cap, 0};
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const uint32_t *e = &ev[4 * i];
        if (e[0] != kind || (player != UINT32_MAX && e[3] != player))
            continue;
        char name[16];
        describe_cell(s, e[1], name, sizeof name);
        shown++;
        add(&l, "%s%s", shown == 1 ? "" : shown == found ? " and " : ", ", name);
        *total += e[2];
    }
    return found;
}

static void describe_events(const tg_state *s, const uint32_t *ev, size_t n, struct line *l)
{
    unsigned long long sown = 0, laps = 0, total;
    uint32_t mover = UINT32_MAX;
    int endless = 0;
    char cells[160];
    for (size_t i = 0; i < n; i++) {
        const uint32_t *e = &ev[4 * i];
        switch (e[0]) {
        case TG_EVENT_LIFT:
            if (mover == UINT32_MAX)
                mover = e[3];
            laps++;
            break;
        case TG_EVENT_RESOW:
            laps++;
            break;
        case TG_EVENT_DROP:
        case TG_EVENT_ELIDED_SOWN:
            sown += e[2];
            break;
        case TG_EVENT_ELISION:
            laps += e[2];
            break;
        case TG_EVENT_ENDLESS:
            endless = 1;
            laps = e[2];
            break;
        default:
            break;
        }
    }
    if (endless)
        add_part(l, "endless: still sowing after %llu laps, so the mover loses", laps);
    else if (sown > 0 && laps > 1)
        add_part(l, "sowed %llu in %llu laps", sown, laps);
    else if (sown > 0)
        add_part(l, "sowed %llu", sown);
    for (uint32_t p = 0; p < 2; p++) {
        if (cells_of(s, ev, n, TG_EVENT_CAPTURE, p, cells, sizeof cells, &total) == 0)
            continue;
        if (p == mover)
            add_part(l, "captured %llu from %s", total, cells);
        else
            add_part(l, "player %" PRIu32 " captures %llu from %s", p, total, cells);
    }
    if (cells_of(s, ev, n, TG_EVENT_RESOW, UINT32_MAX, cells, sizeof cells, &total) > 0)
        add_part(l, "captured %llu from %s and sowed them on", total, cells);
    for (uint32_t p = 0; p < 2; p++)
        if (cells_of(s, ev, n, TG_EVENT_GATHER, p, cells, sizeof cells, &total) > 0)
            add_part(l, "%llu left on the board go%s to player %" PRIu32, total,
                     total == 1 ? "es" : "", p);
    for (size_t i = 0; i < n; i++) {
        const uint32_t *e = &ev[4 * i];
        char name[16];
        describe_cell(s, e[1], name, sizeof name);
        switch (e[0]) {
        case TG_EVENT_TAKE:
            add_part(l, "takes %" PRIu32 " on %s", e[2], name);
            break;
        case TG_EVENT_UNLOCK:
            add_part(l, "unlocks the piece on %s", name);
            break;
        case TG_EVENT_KING:
            add_part(l, "a king of %" PRIu32 " on %s", e[2], name);
            break;
        case TG_EVENT_SPLIT:
            add_part(l, "splits %" PRIu32 " off the king on %s", e[2], name);
            break;
        case TG_EVENT_THROWS_LOST:
            add_part(l, "%" PRIu32 " throw%s lost", e[2], e[2] == 1 ? "" : "s");
            break;
        case TG_EVENT_ROUND_END:
            if (e[3] == UINT32_MAX)
                add_part(l, "round %" PRIu32 " ends level", e[2]);
            else
                add_part(l, "round %" PRIu32 " ends, won by player %" PRIu32, e[2], e[3]);
            break;
        case TG_EVENT_ROUND_START:
            add_part(l, "round %" PRIu32 " starts, player %" PRIu32 " first", e[2], e[3]);
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (ev[4 * i] == TG_EVENT_GAME_END)
            add_part(l, "game over (%s)", tg_end_reason_name((tg_end_reason)ev[4 * i + 2]));
}

int describe_move(const tg_state *s, size_t index, char *buf, size_t cap)
{
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    size_t n = 0;
    if (tg_state_story(s, index, NULL, 0, &n) != TG_OK)
        return 0;
    uint32_t *ev = malloc((n == 0 ? 1 : n) * TG_EVENT_FIELDS * sizeof *ev);
    if (ev == NULL)
        return 0;
    int ok = tg_state_story(s, index, ev, n, &n) == TG_OK;
    if (ok) {
        struct line l = {buf, cap, 0};
        describe_events(s, ev, n, &l);
    }
    free(ev);
    return ok;
}

/* Events pushed to the connections that watch a match, and the catch-up of `watch ID PLY`. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- events pushed to watchers ------------------------------------------------------- */

bool watches(const struct client *c, uint64_t id)
{
    for (size_t i = 0; i < c->watch_count; i++)
        if (c->watching[i] == id)
            return true;
    return false;
}

/* Sends one line to every connection watching the match. */
void push_event(struct server *sv, const struct match *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void push_event(struct server *sv, const struct match *m, const char *fmt, ...)
{
    if (!m->watchers)
        return;
    struct buf line = {0};
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(&line, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(line.data, (size_t)n + 1, fmt, ap);
    va_end(ap);
    line.len = (size_t)n;
    for (size_t i = 0; i < sv->client_count; i++) {
        struct client *c = sv->clients[i];
        if (c->dead || !watches(c, m->id))
            continue;
        /* A watcher that stopped reading is let go rather than buffered for without end. */
        size_t before = c->out.len;
        if (!record_flush(sv, c) || output_over_budget(sv, c) ||
            !buf_printf(&c->out, "event %" PRIu64 " %s\n", m->id, line.data)) {
            c->dead = true;
            sv->dropped_watchers++;
            continue;
        }
        sv->out_total += c->out.len - before;
    }
    free(line.data);
}

const char *abort_reason(const struct match *m)
{
    return m->invite_seat >= 0 ? "no-join" : m->clock.kept.on ? "no-first-move" : "abandoned";
}

const char *end_reason(const struct match *m)
{
    return m->resigned >= 0             ? "resignation"
           : m->agreed                  ? "agreement"
           : m->clock.kept.flagged >= 0 ? "time"
           : m->aborted                 ? abort_reason(m)
                                        : "rules";
}

/* The event lines that bring a watcher from having seen `from` plies to the match as it is. */
void catch_up(struct server *sv, struct client *c, const struct match *m, size_t from)
{
    (void)sv;
    if (from > m->ply_count) {
        buf_printf(&c->out, "event %" PRIu64 " undone %zu\n", m->id, m->ply_count);
        from = m->ply_count;
    }
    if (from < m->ply_count) {
        size_t start = from ? m->plies[from - 1].end : 0;
        buf_printf(&c->out, "event %" PRIu64 " moves %zu ", m->id, from);
        buf_append(&c->out, m->names.data + start, m->names.len - start - 1);
        buf_append(&c->out, "\n", 1);
    }
    if (m->clock.kept.on) {
        int running = clock_running(m);
        buf_printf(&c->out, "event %" PRIu64 " clock %" PRId64 " %" PRId64 " %s\n", m->id,
                   clock_left(m, 0, sv->now), clock_left(m, 1, sv->now),
                   running < 0 ? "-"
                   : running   ? "1"
                               : "0");
    }
    if (m->undo_requested_by >= 0)
        buf_printf(&c->out, "event %" PRIu64 " undo-requested %d\n", m->id, m->undo_requested_by);
    draw_catch_up(c, m);
    if (match_over(m))
        buf_printf(&c->out, "event %" PRIu64 " result %s by=%s\n", m->id, result_word(m),
                   end_reason(m));
    rematch_catch_up(sv, c, m);
}

void push_clock(struct server *sv, const struct match *m)
{
    if (!m->clock.kept.on)
        return;
    int running = clock_running(m);
    push_event(sv, m, "clock %" PRId64 " %" PRId64 " %s", clock_left(m, 0, sv->now),
               clock_left(m, 1, sv->now),
               running < 0 ? "-"
               : running   ? "1"
                           : "0");
}

const char *result_word(const struct match *m)
{
    if (m->resigned >= 0)
        return m->resigned == 0 ? "1" : "0";
    if (m->agreed)
        return "draw";
    if (m->clock.kept.flagged >= 0)
        return m->clock.kept.flagged == 0 ? "1" : "0";
    if (m->aborted)
        return "aborted";
    switch (tg_state_winner(m->state)) {
    case 0:
        return "0";
    case 1:
        return "1";
    case TG_DRAW:
        return "draw";
    default:
        return "running";
    }
}

/* Chess-style clocks kept by the server: time left, the charge of a change, the time control's
 * syntax, and the flag falls the loop looks for. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The seat whose clock runs now, or -1. */
int clock_running(const struct match *m)
{
    if (!m->clock.kept.on || !m->clock.kept.started || !m->state || match_over(m))
        return -1;
    /* Correspondence runs from the start, but only once both seats are taken (until then the
     * join timeout decides). */
    if (m->clock.kept.days && m->invite_seat >= 0)
        return -1;
    int p = tg_state_player(m->state);
    return p == 0 || p == 1 ? p : -1;
}

/* A seat's time left at `now`, in milliseconds (negative once its flag has fallen). */
int64_t clock_left(const struct match *m, int seat, double now)
{
    int64_t left = m->clock.kept.left_ms[seat];
    if (clock_running(m) == seat)
        left -= (int64_t)((now - m->clock.turn_began) * 1000.0);
    return left;
}

/* The clocks after a change at `now`: the running seat is charged its turn; a decision by
 * `decider` adds its increment and starts the clocks if they were not yet running. */
/* The clocks after a change made at `now` whose command came at `charged` (no later than
 * now): the running seat is charged up to `charged`, and the next turn begins `now`, when the
 * change is made known; the time between is nobody's. */
struct match_clock clock_after(const struct match *m, double now, double charged, int decider)
{
    struct match_clock c = m->clock;
    int running = clock_running(m);
    if (running >= 0) {
        c.kept.left_ms[running] = clock_left(m, running, charged);
        /* A move that reached the server before its flag was seen to fall counts. */
        if (c.kept.left_ms[running] < 0)
            c.kept.left_ms[running] = 0;
    }
    if (decider >= 0 && c.kept.on) {
        if (c.kept.started)
            c.kept.left_ms[decider] += c.kept.increment_ms;
        c.kept.started = true;
    }
    /* Correspondence: every decision gives the seat then to move its whole allowance again
     * (lichess's days per move); nothing is banked. */
    if (c.kept.days && decider >= 0)
        c.kept.left_ms[0] = c.kept.left_ms[1] = c.kept.base_ms;
    c.turn_began = now;
    return c;
}

bool track_clock(struct server *sv, struct match *m)
{
    if (!m->clock.kept.on || match_over(m))
        return true;
    for (size_t i = 0; i < sv->clocked_count; i++)
        if (sv->clocked[i] == m)
            return true;
    struct match **grown =
        array_reserve(sv->clocked, &sv->clocked_cap, sv->clocked_count + 1, sizeof *grown, 64);
    if (!grown)
        return false;
    sv->clocked = grown;
    sv->clocked[sv->clocked_count++] = m;
    return true;
}

/* clock=M+S: M minutes (a fraction allowed: 0.5 is 30 s) for each seat, plus S seconds after
 * each of its decisions. */
static bool parse_clock(const char *text, struct stored_clock *out)
{
    if (strncmp(text, "clock=", 6) != 0 || !isdigit((unsigned char)text[6]))
        return false;
    char *end;
    errno = 0;
    double minutes = strtod(text + 6, &end);
    if (errno || *end != '+' || !isdigit((unsigned char)end[1]) || !(minutes > 0) || minutes > 1440)
        return false;
    double seconds = strtod(end + 1, &end);
    if (errno || *end || !(seconds >= 0) || seconds > 3600)
        return false;
    *out = (struct stored_clock){.on = true,
                                 .base_ms = (int64_t)(minutes * 60000.0 + 0.5),
                                 .increment_ms = (int64_t)(seconds * 1000.0 + 0.5),
                                 .flagged = -1};
    out->left_ms[0] = out->left_ms[1] = out->base_ms;
    return out->base_ms > 0;
}

/* days=N, N days per move: lichess's correspondence choices. The clock runs from the start
 * (a correspondence game has no first-move grace: the first mover has its days too). */
static bool parse_days(const char *text, double day_seconds, struct stored_clock *out)
{
    static const char *const allowed[] = {"1", "2", "3", "5", "7", "14"};
    if (strncmp(text, "days=", 5) != 0)
        return false;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(text + 5, allowed[i]) == 0) {
            int days = atoi(allowed[i]);
            *out = (struct stored_clock){.on = true,
                                         .base_ms = (int64_t)(days * day_seconds * 1000.0),
                                         .started = true,
                                         .flagged = -1,
                                         .days = days};
            out->left_ms[0] = out->left_ms[1] = out->base_ms;
            return true;
        }
    return false;
}

bool parse_time_control(const char *text, double day_seconds, struct stored_clock *out)
{
    return parse_clock(text, out) || parse_days(text, day_seconds, out);
}

bool is_time_control(const char *word)
{
    return strncmp(word, "clock=", 6) == 0 || strncmp(word, "days=", 5) == 0;
}

/* A clock that has run out ends its match: staged like any change, so that the flag fall is
 * stored before anyone hears of it. */
/* A seat whose time ran out between two looks of the loop: its flag falls now, before its move
 * is taken (the move's own time decides, not when the loop next looks). */
bool flag_fell(struct server *sv, struct match *m)
{
    int running = clock_running(m);
    if (running < 0 || m->busy || clock_left(m, running, sv->now) > 0)
        return false;
    struct change *ch = change_new(sv, CH_FLAG, m, 0);
    if (!ch)
        return true; /* out of memory: the loop's next look stages it */
    ch->seat = running;
    m->busy = true;
    m->flag_staged = true;
    stage(sv, ch);
    return true;
}

void check_flags(struct server *sv)
{
    for (size_t i = 0; i < sv->clocked_count;) {
        struct match *m = sv->clocked[i];
        if (m->loading || m->busy) {
            i++;
            continue;
        }
        if (match_over(m)) {
            sv->clocked[i] = sv->clocked[--sv->clocked_count];
            continue;
        }
        i++;
        enum change_kind kind = CH_FLAG;
        int running = clock_running(m);
        /* A match whose first decision does not come is aborted rather than kept loaded
         * (and its seats waiting) for ever. */
        if (!m->clock.kept.started && sv->now - m->clock.turn_began > sv->opt.first_move_timeout)
            kind = CH_ABORT;
        else if (running < 0 || clock_left(m, running, sv->now) > 0)
            continue;
        struct change *ch = change_new(sv, kind, m, 0);
        if (!ch)
            return; /* out of memory: looked at again next time */
        ch->seat = running;
        m->busy = true;
        m->flag_staged = kind == CH_FLAG;
        stage(sv, ch);
    }
}

/* Correspondence matches are not kept loaded for their days: the deadlines passed are found
 * in the store, by any server, and each such match loaded (on a move worker, as a client's
 * command would) so that check_flags ends it through a round like any flag fall; on a shared
 * database the round's claim makes that happen once. On a shared database the scan runs on a
 * database thread (db-pool.c), one at a time: a slow database or a locked table then holds
 * that thread, never the loop, which only starts the loads of the ids found. */
#define OVERDUE_PER_PASS 16
_Static_assert(OVERDUE_PER_PASS <= DB_PASS_IDS_MAX, "a scan's ids fit in its job");

static void load_overdue_ids(struct server *sv, const uint64_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!loaded_match(sv, ids[i]) && !find_set_aside(sv, ids[i]))
            (void)start_load(sv, NULL, ids[i]);
}

static void scan_overdue_on_db_thread(struct job *j, struct store *st)
{
    if (!store_overdue_matches(st, j->pass_ids, OVERDUE_PER_PASS, &j->pass_id_count))
        j->pass_id_count = 0; /* the next pass asks again */
}

static void overdue_scanned(struct server *sv, struct job *j)
{
    sv->overdue_scan_running = false;
    if (!sv->halted)
        load_overdue_ids(sv, j->pass_ids, j->pass_id_count);
}

void load_overdue_matches(struct server *sv)
{
    if (sv->halted)
        return;
    if (sv->db_pool) {
        if (sv->overdue_scan_running) /* the last pass's scan is still waiting on the database */
            return;
        struct job *j = calloc(1, sizeof *j);
        if (!j)
            return;
        j->db_work = scan_overdue_on_db_thread;
        j->db_done = overdue_scanned;
        if (!db_submit(sv, NULL, j)) {
            job_free(j);
            return;
        }
        sv->overdue_scan_running = true;
        return;
    }
    uint64_t ids[OVERDUE_PER_PASS];
    size_t n;
    if (store_in_transaction(sv->store) ||
        !store_overdue_matches(sv->store, ids, OVERDUE_PER_PASS, &n))
        return;
    load_overdue_ids(sv, ids, n);
}

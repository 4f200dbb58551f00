/* rematch ID TOKEN: the same rules and clock again once a match is over, seats swapped. The
 * first seat to ask creates the new match and takes its swapped seat; the other seat's invite
 * is that seat's token of the finished match, which only it holds, so the event that tells the
 * watchers of the old match about the new one carries no secret. The other seat then answers
 * with `rematch` too (or `join NEW TOKEN`), and is joined to its swapped seat. On a shared
 * database the rematch is one site-wide: a server that loses the race to store it joins the
 * winner's: its client is told which match that is, and takes its seat there by asking again
 * (docs/server.md, "What is site-wide"). */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>

/* The clock of a fresh match with the old one's time control. */
static struct stored_clock fresh_clock(const struct stored_clock *old)
{
    struct stored_clock c = {.flagged = -1};
    if (!old->on)
        return c;
    c.on = true;
    c.base_ms = old->base_ms;
    c.increment_ms = old->increment_ms;
    c.left_ms[0] = c.left_ms[1] = old->base_ms;
    /* A correspondence game's rematch is one too: its days run from the start (clock.c). */
    c.days = old->days;
    c.started = old->days != 0;
    return c;
}

/* Creates the rematch: the old match is busy until it is stored or refused (rematch_release),
 * so that the other seat asking meanwhile is told to wait, and no news of the old match is
 * read over it. The client is answered once it is stored (new_match_reply). */
static void create_rematch(struct server *sv, struct client *c, struct match *old, int seat)
{
    if (!admit_new_match(sv, c))
        return;
    tg_status st;
    struct rules_entry *rules = rules_acquire(sv, tg_rules_spec(old->rules->rules), &st);
    if (!rules) {
        reply_status(c, st);
        return;
    }
    int theirs = seat; /* swapped */
    struct stored_clock clock = fresh_clock(&old->clock.kept);
    struct change *ch = new_match_change(sv, c, rules, &clock, theirs, old->tokens[1 - seat]);
    if (!ch)
        return;
    ch->rematch_of = old->id;
    old->busy = true;
    old->rematch_staged = true;
    c->awaiting = true;
    stage(sv, ch);
}

void rematch_release(struct server *sv, uint64_t of)
{
    struct match *old = loaded_match(sv, of);
    if (old && old->rematch_staged) {
        old->rematch_staged = false;
        old->busy = false;
    }
}

bool rematch_lost(struct server *sv, struct change *ch, struct client *c)
{
    const struct staged_rows *r = &ch->rows;
    if (ch->kind != CH_NEW || !ch->rematch_of || !(r->conflict || r->lock_wait))
        return false;
    uint64_t of = ch->rematch_of, winner = r->rematch_winner;
    change_discard(sv, ch);
    struct match *old = loaded_match(sv, of);
    if (!winner) {
        reply_error(c, "busy",
                    "the rematch of match %" PRIu64 " is being made through another server; try "
                    "again",
                    of);
        return true;
    }
    if (old && old->rematch != winner) {
        old->rematch = winner;
        push_event(sv, old, "rematch %" PRIu64, winner);
    }
    reply_error(c, "busy",
                "the rematch of match %" PRIu64 " was made through another server as match "
                "%" PRIu64 "; ask again to take your seat in it",
                of, winner);
    return true;
}

enum run_result cmd_rematch(struct server *sv, struct client *c, struct match *old, char **w)
{
    int seat = seat_of(old, w[2]);
    if (seat < 0) {
        reply_error(c, "bad-token", "that token is not a seat of match %" PRIu64, old->id);
        return RUN_DONE;
    }
    if (old->invite_seat >= 0) {
        reply_error(c, "not-joined", "seat %d of match %" PRIu64 " never joined", old->invite_seat,
                    old->id);
        return RUN_DONE;
    }
    if (old->rematch_staged) {
        reply_error(c, "busy", "the rematch of match %" PRIu64 " is being stored; try again",
                    old->id);
        return RUN_DONE;
    }
    if (old->busy || !match_over(old)) {
        reply_error(c, old->busy ? "busy" : "not-over",
                    "match %" PRIu64 " is still being played: a rematch follows its end", old->id);
        return RUN_DONE;
    }
    if (!old->rematch) {
        create_rematch(sv, c, old, seat);
        return RUN_DONE;
    }
    char id_text[24];
    snprintf(id_text, sizeof id_text, "%" PRIu64, old->rematch);
    struct match *m;
    if (find_match(sv, c, id_text, &m) == RUN_WAIT)
        return RUN_WAIT;
    if (!m)
        return RUN_DONE;
    /* The seat that asked holds the new match's other seat; the one that did not is invited. */
    if (m->invite_seat < 0 || m->invite_seat != 1 - seat) {
        reply_error(c, m->invite_seat < 0 ? "already-joined" : "rematch-offered",
                    "match %" PRIu64 " is the rematch of match %" PRIu64 "%s", m->id, old->id,
                    m->invite_seat < 0 ? "; both its seats are taken"
                                       : "; it waits for the other seat");
        return RUN_DONE;
    }
    cmd_join(sv, c, m, w[2]);
    /* The join's reply names its seat and token; a rematch's names the match too, as the first
     * seat's did. */
    struct change *ch = sv->round_thread   ? round_thread_last(sv)
                        : sv->change_count ? &sv->changes[sv->change_count - 1]
                                           : NULL;
    if (ch && ch->kind == CH_JOIN && ch->match == m && ch->client_serial == c->serial) {
        ch->reply.len = 0;
        buf_printf(&ch->reply, "ok %" PRIu64 " %d %s\n", m->id, ch->seat, m->tokens[ch->seat]);
    }
    return RUN_DONE;
}

void rematch_settle(struct server *sv, const struct change *ch, bool stored)
{
    if (ch->kind != CH_NEW || !ch->rematch_of)
        return;
    rematch_release(sv, ch->rematch_of);
    struct match *old = loaded_match(sv, ch->rematch_of);
    if (!old || !stored || old->rematch == ch->match->id)
        return;
    old->rematch = ch->match->id;
    if (store_is_shared(sv->store))
        old->version++; /* as store_mark_rematch counted it: not read again on its own news */
    push_event(sv, old, "rematch %" PRIu64, ch->match->id);
}

void rematch_catch_up(const struct server *sv, struct client *c, const struct match *m)
{
    (void)sv;
    if (m->rematch)
        buf_printf(&c->out, "event %" PRIu64 " rematch %" PRIu64 "\n", m->id, m->rematch);
}

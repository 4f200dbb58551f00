/* Draw offers (docs/server.md, "Draw offers"): a seat offers a draw, the other seat accepts or
 * declines it, the seat that offered may withdraw it; it lapses with the other seat's next
 * decision, an accepted undo, or the end of the match. A seat offers once until the other seat
 * has decided again, so that an offer declined cannot be repeated at every moment.
 *
 * The offer is stored (draw_offers): each change that makes, answers or lapses it writes the
 * row inside its own savepoint, and the match's end deletes it, so that a restart, or another
 * server of a shared database that loads or takes over the match, reads it back. Each writes
 * a change of the row (an offer by a seat, an end, the seats that decided) rather than the
 * offer as this server knows it: on a shared database another server's news may not have
 * come yet, and the row stays right all the same. An offer is claimed like any change, so that
 * it is made at the version of the match its seat saw; the other servers that hold the match
 * loaded are told what it was on the lobby's channel at the commit (the events their
 * watchers get say which seat declined or withdrew, which the row does not). An accepted
 * offer ends the match: its result row has no
 * winner and the reason 'resignation' (both seats gave the game up), a pair no other ending
 * writes, since the schema's reasons predate agreements and its first page has no room for a
 * new one. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NEWS_WAIT 2.0 /* seconds an offer's change through another server waits for its news */

static const char *const talk_words[] = {
    [DRAW_OFFERED] = "draw-offered",
    [DRAW_DECLINED] = "draw-declined",
    [DRAW_WITHDRAWN] = "draw-withdrawn",
};

static struct draw_offer after_talk(struct draw_offer d, int seat, enum draw_talk what)
{
    if (what == DRAW_OFFERED) {
        d.by = seat;
        d.spent[seat] = true;
    } else {
        d.by = -1;
    }
    return d;
}

static void forget_offer(struct match *m)
{
    m->draw = (struct draw_offer){.by = -1};
}

/* The decisions among plies from `from` on: each lets its seat's opponent offer again, and ends
 * that opponent's open offer. */
static void note_decisions(struct server *sv, struct match *m, size_t from)
{
    for (size_t i = from; i < m->ply_count; i++) {
        int seat = m->plies[i].seat;
        if (seat < 0)
            continue;
        m->draw.spent[1 - seat] = false;
        if (m->draw.by == 1 - seat) {
            push_event(sv, m, "draw-lapsed %d", m->draw.by);
            m->draw.by = -1;
        }
    }
}

static void lapse(struct server *sv, struct match *m)
{
    if (m->draw.by >= 0)
        push_event(sv, m, "draw-lapsed %d", m->draw.by);
    m->draw.by = -1;
}

void draw_rows(const struct server *sv, const struct change *ch, bool ends,
               struct staged_rows *rows)
{
    const struct match *m = ch->match;
    rows->draw_row = DRAW_ROW_SAME;
    if (ch->kind == CH_NEW)
        return;
    if (ends) {
        rows->draw_row = DRAW_ROW_FORGET;
        return;
    }
    if (ch->kind == CH_DRAW_TALK && ch->draw_talk == DRAW_OFFERED) {
        rows->draw_row = DRAW_ROW_OFFER;
        rows->draw_seat = ch->seat;
        return;
    }
    rows->draw_ended = ch->kind == CH_DRAW_TALK || ch->kind == CH_UNDO;
    rows->draw_decided[0] = rows->draw_decided[1] = false;
    if (ch->kind == CH_MOVES || ch->kind == CH_JOIN)
        for (size_t i = 0; i < ch->made.count; i++)
            if (ch->made.items[i].seat == 0 || ch->made.items[i].seat == 1)
                rows->draw_decided[ch->made.items[i].seat] = true;
    /* On SQLite this server's memory is the row: a match with no offer and nothing spent has
     * nothing to change, and most moves write no draw statement. On a shared database another
     * server's offer may not be known here yet. */
    bool may_hold =
        store_is_shared(sv->store) || m->draw.by >= 0 || m->draw.spent[0] || m->draw.spent[1];
    if (may_hold && (rows->draw_ended || rows->draw_decided[0] || rows->draw_decided[1]))
        rows->draw_row = DRAW_ROW_DECIDED;
}

bool draw_stage_rows(struct store *st, uint64_t id, const struct staged_rows *rows)
{
    switch (rows->draw_row) {
    case DRAW_ROW_OFFER:
        return store_offer_draw(st, id, rows->draw_seat);
    case DRAW_ROW_DECIDED:
        return store_draw_decided(st, id, rows->draw_ended, rows->draw_decided);
    case DRAW_ROW_FORGET:
        return store_forget_draw(st, id);
    case DRAW_ROW_SAME:
        break;
    }
    return true;
}

static struct draw_offer offer_of(const struct stored_draw *stored)
{
    return (struct draw_offer){.by = stored->by, .spent = {stored->spent[0], stored->spent[1]}};
}

void draw_read(struct match *m, const struct stored_draw *stored)
{
    m->draw_row = offer_of(stored);
    m->draw_row_version = m->version;
}

void draw_loaded(struct match *m, const struct stored_draw *stored)
{
    forget_offer(m);
    if (!match_over(m))
        m->draw = offer_of(stored);
    /* What the rows say is what this server knows of the offer as of this version: no news
     * of another server's is awaited for it. */
    m->draw_version = m->version;
}

static void stage_talk(struct server *sv, struct client *c, struct match *m, int seat,
                       enum draw_talk what)
{
    struct change *ch = change_new(sv, CH_DRAW_TALK, m, c->serial);
    if (!ch) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    ch->seat = seat;
    ch->draw_talk = what;
    /* The offer as it will be at the match's next version, for the other servers. */
    if (store_is_shared(sv->store)) {
        struct draw_offer d = after_talk(m->draw, seat, what);
        snprintf(ch->draw_news, sizeof ch->draw_news,
                 "%s draw %" PRIu64 " %" PRIu64 " %zu %d %d %d %s %d", store_owner(sv->store),
                 m->id, m->version + 1, m->ply_count, d.by, d.spent[0], d.spent[1],
                 talk_words[what], seat);
    }
    buf_printf(&ch->reply, "ok\n");
    m->busy = true;
    c->awaiting = true;
    stage(sv, ch);
}

static void stage_agreed(struct server *sv, struct client *c, struct match *m, int seat)
{
    struct change *ch = change_new(sv, CH_DRAW, m, c->serial);
    if (!ch) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    ch->seat = seat;
    buf_printf(&ch->reply, "ok\n");
    m->busy = true;
    c->awaiting = true;
    stage(sv, ch);
}

void cmd_draw(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, w[2], w[3]);
    if (seat < 0)
        return;
    if (tg_state_is_terminal(m->state)) {
        reply_status(c, TG_ERR_GAME_OVER);
        return;
    }
    if (flag_fell(sv, m)) {
        reply_error(c, "game-over", "the match ended on time");
        return;
    }
    /* Another server changed the offer and its news is on the way (it comes with the commit,
     * on another connection): what this server knows may be stale. Not for ever: a news lost
     * with a connection leaves the offer as its row was read at that version (the news says
     * which seat did what, for the watchers' events; the row says only where it stands). */
    if (m->draw_unsure_version > m->draw_version) {
        if (sv->now - m->draw_unsure_at < NEWS_WAIT) {
            reply_error(c, "busy",
                        "the draw offer of match %" PRIu64 " changed through another "
                        "server a moment ago; try again",
                        m->id);
            return;
        }
        int before = m->draw.by;
        if (m->draw_row_version == m->version && !match_over(m)) {
            m->draw = m->draw_row;
            m->draw_version = m->version;
        }
        if (m->draw.by != before && before >= 0)
            push_event(sv, m, "draw-lapsed %d", before);
        if (m->draw.by != before && m->draw.by >= 0)
            push_event(sv, m, "draw-offered %d", m->draw.by);
    }
    const struct draw_offer *d = &m->draw;
    const char *cmd = w[0];
    if (strcmp(cmd, "offer-draw") == 0) {
        if (d->by >= 0)
            reply_error(c, "draw-pending", "%s",
                        d->by == seat ? "your draw offer stands"
                                      : "the other seat offers a draw: accept-draw or "
                                        "decline-draw");
        else if (d->spent[seat])
            reply_error(c, "draw-too-soon",
                        "a seat offers a draw once until the other seat has moved");
        else
            stage_talk(sv, c, m, seat, DRAW_OFFERED);
        return;
    }
    if (strcmp(cmd, "withdraw-draw") == 0) {
        if (d->by != seat)
            reply_error(c, "no-draw-offer", "this seat has no draw offer to withdraw");
        else
            stage_talk(sv, c, m, seat, DRAW_WITHDRAWN);
        return;
    }
    if (d->by < 0) {
        reply_error(c, "no-draw-offer", "nobody offers a draw in match %" PRIu64, m->id);
        return;
    }
    if (d->by == seat) {
        reply_error(c, "own-offer", "the other seat answers a draw offer");
        return;
    }
    if (strcmp(cmd, "accept-draw") == 0)
        stage_agreed(sv, c, m, seat);
    else
        stage_talk(sv, c, m, seat, DRAW_DECLINED);
}

void draw_committed(struct server *sv, const struct change *ch, size_t plies_before)
{
    struct match *m = ch->match;
    switch (ch->kind) {
    case CH_DRAW_TALK:
        m->draw = after_talk(m->draw, ch->seat, ch->draw_talk);
        m->draw_version = m->version;
        push_event(sv, m, "%s %d", talk_words[ch->draw_talk], ch->seat);
        break;
    case CH_UNDO:
        lapse(sv, m);
        break;
    case CH_MOVES:
    case CH_JOIN:
        if (!match_over(m))
            note_decisions(sv, m, plies_before);
        break;
    default:
        break;
    }
    if (match_over(m))
        forget_offer(m); /* the result's event says why */
}

/* Another server's news, once this server has read the match at least up to its version. */
static void take_news(struct server *sv, struct match *m)
{
    uint64_t version = m->draw_news_version;
    m->draw_news_version = 0;
    /* Older than what this server knows of the offer, or about plies since taken back. */
    if (version <= m->draw_version || m->draw_news_ply > m->ply_count || match_over(m))
        return;
    m->draw = m->draw_news;
    m->draw_version = version;
    push_event(sv, m, "%s %d", m->draw_news_what, m->draw_news_seat);
    note_decisions(sv, m, m->draw_news_ply); /* decided there after the news was sent */
}

void draw_followed(struct server *sv, struct match *m, size_t from, bool undone, bool unseen)
{
    if (undone)
        lapse(sv, m);
    if (unseen) {
        m->draw_unsure_version = m->version;
        m->draw_unsure_at = sv->now;
    }
    note_decisions(sv, m, from);
    if (m->draw_news_version && m->draw_news_version <= m->version)
        take_news(sv, m);
    if (match_over(m))
        forget_offer(m);
}

void draw_news(struct server *sv, const char *rest)
{
    uint64_t id, version;
    size_t ply;
    int by, spent0, spent1, seat, used = 0;
    char what[16];
    if (sscanf(rest, "%" SCNu64 " %" SCNu64 " %zu %d %d %d %15s %d%n", &id, &version, &ply, &by,
               &spent0, &spent1, what, &seat, &used) != 8 ||
        rest[used] != '\0' || by < -1 || by > 1 || spent0 < 0 || spent0 > 1 || spent1 < 0 ||
        spent1 > 1 || seat < 0 || seat > 1 || !version)
        return;
    bool known = false;
    for (size_t i = 0; i < sizeof talk_words / sizeof *talk_words; i++)
        known = known || strcmp(what, talk_words[i]) == 0;
    struct match *m = loaded_match(sv, id);
    /* Not loaded here: nobody here watches it, and the offer is the other server's to keep. */
    if (!known || !m || m->loading || !m->state)
        return;
    m->draw_news = (struct draw_offer){.by = by, .spent = {spent0 != 0, spent1 != 0}};
    m->draw_news_version = version;
    m->draw_news_ply = ply;
    m->draw_news_seat = seat;
    snprintf(m->draw_news_what, sizeof m->draw_news_what, "%s", what);
    if (version <= m->version)
        take_news(sv, m);
}

void draw_catch_up(struct client *c, const struct match *m)
{
    if (m->draw.by >= 0 && !match_over(m))
        buf_printf(&c->out, "event %" PRIu64 " draw-offered %d\n", m->id, m->draw.by);
}

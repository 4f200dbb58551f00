/* History (docs/server.md, "History"): `player-page NAME [PAGE]` and `match-page ID`, what the
 * web board's player and match pages show, each answered as `ok` and one line of JSON (the
 * web port hands it on as GET /players/NAME.json and /matches/ID.json). Read-only, and
 * bounded: at most RATINGS_MAX ratings, POINTS_MAX points of rating history and GAMES_PER_PAGE
 * games a reply; the record itself is `record ID` (GET /matches/ID.tgr), not repeated here. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "glicko2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATINGS_MAX 64    /* (game, category) pairs, as `player` */
#define POINTS_MAX 300    /* the latest points of rating history, all games together */
#define GAMES_PER_PAGE 20 /* finished games a page */
#define PAGE_MAX 100000   /* further back than any player plays: refused, never scanned */
#define CORRESPONDENCE_MAX 50 /* running correspondence matches listed, nearest deadline first */

/* A JSON string of text; what the store holds is ASCII (names, specs, words), but nothing
 * relies on it. */
static void json_string(struct buf *b, const char *text)
{
    buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            buf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            buf_printf(b, "\\u%04x", *p);
        else
            buf_append(b, (const char *)p, 1);
    }
    buf_append(b, "\"", 1);
}

static void json_ms(struct buf *b, const char *key, int64_t ms)
{
    if (ms < 0)
        buf_printf(b, ",\"%s\":null", key);
    else
        buf_printf(b, ",\"%s\":%" PRId64, key, ms);
}

/* ---- player-page ------------------------------------------------------------------------ */

struct page_lists {
    struct buf *out;
    size_t count;
    struct rating_point *points; /* newest first, as read */
};

static void rating_json(const struct stored_rating *r, void *ctx)
{
    struct page_lists *l = ctx;
    struct glicko2_rating g = {r->rating, r->rd, r->volatility};
    buf_printf(l->out, "%s{\"game\":", l->count++ ? "," : "");
    json_string(l->out, r->game);
    buf_printf(l->out, ",\"category\":");
    json_string(l->out, r->category);
    buf_printf(l->out,
               ",\"rating\":%.2f,\"rd\":%.2f,\"volatility\":%.6f,\"games\":%" PRIu64
               ",\"provisional\":%s}",
               r->rating, r->rd, r->volatility, r->games,
               glicko2_is_provisional(&g) ? "true" : "false");
}

static void keep_point(const struct rating_point *p, void *ctx)
{
    struct page_lists *l = ctx;
    if (l->count < POINTS_MAX)
        l->points[l->count++] = *p;
}

static void game_json(const struct played_game *g, void *ctx)
{
    struct page_lists *l = ctx;
    if (l->count++ == GAMES_PER_PAGE)
        return; /* the one read past the page: there are more */
    const char *outcome = g->winner < 0 ? "draw" : g->winner == g->seat ? "win" : "loss";
    buf_printf(l->out, "%s{\"match\":%" PRIu64 ",\"spec\":", l->count > 1 ? "," : "", g->match_id);
    json_string(l->out, g->spec);
    buf_printf(l->out, ",\"seat\":%d,\"opponent\":", g->seat);
    if (g->opponent[0])
        json_string(l->out, g->opponent);
    else
        buf_printf(l->out, "null");
    buf_printf(l->out, ",\"opponent_deleted\":%s,\"result\":\"%s\",\"outcome\":\"%s\",\"by\":",
               g->opponent_deleted ? "true" : "false",
               g->winner < 0    ? "draw"
               : g->winner == 0 ? "0"
                                : "1",
               outcome);
    json_string(l->out, g->reason);
    buf_printf(l->out, ",\"rated\":%s", g->rated ? "true" : "false");
    if (g->rated) {
        buf_printf(l->out, ",\"game\":");
        json_string(l->out, g->game);
        buf_printf(l->out, ",\"category\":");
        json_string(l->out, g->category);
    }
    buf_printf(l->out, ",\"plies\":%" PRIu64, g->plies);
    json_ms(l->out, "created_at", g->created_ms);
    json_ms(l->out, "ended_at", g->ended_ms);
    buf_printf(l->out, "}");
}

static void correspondence_json(const struct correspondence_game *g, void *ctx)
{
    struct page_lists *l = ctx;
    buf_printf(l->out, "%s{\"match\":%" PRIu64 ",\"spec\":", l->count++ ? "," : "", g->match_id);
    json_string(l->out, g->spec);
    buf_printf(l->out, ",\"seat\":%d,\"opponent\":", g->seat);
    if (g->opponent[0])
        json_string(l->out, g->opponent);
    else
        buf_printf(l->out, "null");
    buf_printf(l->out, ",\"days\":%d,\"your_turn\":%s", g->days,
               g->to_move == g->seat ? "true" : "false");
    json_ms(l->out, "deadline", g->deadline_ms);
    buf_printf(l->out, "}");
}

static bool player_json(struct server *sv, const struct stored_account *a, uint64_t page,
                        struct buf *out)
{
    struct page_lists l = {.out = out};
    buf_printf(out, "{\"name\":");
    json_string(out, a->name);
    buf_printf(out, ",\"ratings\":[");
    if (!store_each_rating(sv->store, a->id, RATINGS_MAX, rating_json, &l))
        return false;
    /* The points oldest first, as a graph draws them. */
    if (!(l.points = malloc(POINTS_MAX * sizeof *l.points)))
        return false;
    l.count = 0;
    bool read = store_each_rating_point(sv->store, a->id, POINTS_MAX, keep_point, &l);
    buf_printf(out, "],\"points\":[");
    for (size_t i = l.count; read && i-- > 0;) {
        const struct rating_point *p = &l.points[i];
        buf_printf(out, "%s{\"game\":", i + 1 < l.count ? "," : "");
        json_string(out, p->game);
        buf_printf(out, ",\"category\":");
        json_string(out, p->category);
        buf_printf(out, ",\"rating\":%.2f,\"rd\":%.2f,\"match\":%" PRIu64, p->rating, p->rd,
                   p->match_id);
        json_ms(out, "at", p->at_ms);
        buf_printf(out, "}");
    }
    free(l.points);
    if (!read)
        return false;
    buf_printf(out, "],\"games\":[");
    l.count = 0;
    if (!store_each_played_game(sv->store, a->id, page * GAMES_PER_PAGE, GAMES_PER_PAGE + 1,
                                game_json, &l))
        return false;
    bool more = l.count > GAMES_PER_PAGE;
    buf_printf(out, "],\"correspondence\":[");
    l.count = 0;
    if (!store_each_correspondence(sv->store, a->id, CORRESPONDENCE_MAX, correspondence_json, &l))
        return false;
    buf_printf(out, "],\"page\":%" PRIu64 ",\"more\":%s}", page, more ? "true" : "false");
    return true;
}

/* The reply, whole, or `err overloaded` if the output waiting for clients would pass
 * --max-buffered with it. */
static void send_json(struct server *sv, struct client *c, struct buf *json)
{
    if (sv->out_total + json->len + 4 > sv->opt.max_buffered) {
        reply_error(c, "overloaded", "too much output waits for clients; try again");
        return;
    }
    size_t before = c->out.len;
    buf_append(&c->out, "ok ", 3);
    buf_append(&c->out, json->data, json->len);
    buf_append(&c->out, "\n", 1);
    sv->out_total += c->out.len - before;
}

void cmd_player_page(struct server *sv, struct client *c, const char *name, const char *page_text)
{
    char folded[ACCOUNT_NAME_MAX + 1]; /* a bad name is told before a bad page */
    uint64_t page = 0;
    if (!account_name_fold(name, folded)) {
        reply_error(c, "bad-name", "a name is 3 to 20 letters (a-z, A-Z), digits, '_' or '-'");
        return;
    }
    if (page_text && (!parse_u64(page_text, &page) || page > PAGE_MAX)) {
        reply_error(c, "bad-page", "a page is a number from 0 to %d", PAGE_MAX);
        return;
    }
    struct stored_account a;
    if (!find_player(sv, c, name, &a))
        return;
    struct buf json = {0};
    if (player_json(sv, &a, page, &json))
        send_json(sv, c, &json);
    else
        reply_error(c, "io", "the player's history could not be read (%s)", store_error(sv->store));
    free(json.data);
}

/* ---- match-page ------------------------------------------------------------------------- */

static void seat_json(struct buf *out, int seat, const struct summary_seat *s)
{
    buf_printf(out, "%s{\"seat\":%d,\"name\":", seat ? "," : "", seat);
    if (s->has_account && s->name[0])
        json_string(out, s->name);
    else
        buf_printf(out, "null");
    buf_printf(out, ",\"account\":%s,\"deleted\":%s", s->has_account ? "true" : "false",
               s->deleted ? "true" : "false");
    if (s->has_rating) {
        /* No point before: the account's first rated game in this game and category. */
        double before = s->has_before ? s->rating_before : glicko2_start().rating;
        buf_printf(out, ",\"rating_before\":%.2f,\"rating_after\":%.2f", before, s->rating_after);
    }
    buf_printf(out, "}");
}

static void match_json(uint64_t id, const struct match_summary *m, struct buf *out)
{
    buf_printf(out, "{\"match\":%" PRIu64 ",\"spec\":", id);
    json_string(out, m->spec);
    buf_printf(out, ",\"rated\":%s", m->rated ? "true" : "false");
    if (m->rated) {
        buf_printf(out, ",\"game\":");
        json_string(out, m->game);
        buf_printf(out, ",\"category\":");
        json_string(out, m->category);
    }
    buf_printf(out, ",\"plies\":%" PRIu64 ",\"result\":", m->plies);
    json_string(out, m->result);
    buf_printf(out, ",\"by\":");
    if (m->reason[0])
        json_string(out, m->reason);
    else
        buf_printf(out, "null");
    if (m->has_scores)
        buf_printf(out, ",\"scores\":[%d,%d]", m->scores[0], m->scores[1]);
    json_ms(out, "created_at", m->created_ms);
    json_ms(out, "ended_at", m->ended_ms);
    buf_printf(out, ",\"players\":[");
    for (int seat = 0; seat < 2; seat++)
        seat_json(out, seat, &m->seats[seat]);
    buf_printf(out, "],\"record\":\"/matches/%" PRIu64 ".tgr\"}", id);
}

void cmd_match_page(struct server *sv, struct client *c, const char *id_text)
{
    uint64_t id = 0;
    /* As `show` reads an id: digits only, no sign, within 63 bits. */
    if (!parse_u64(id_text, &id) || id == 0) {
        reply_error(c, "no-such-match", "no match has that id");
        return;
    }
    struct match_summary m;
    switch (store_match_summary(sv->store, id, &m)) {
    case RATED_YES:
        break;
    case RATED_NO:
        reply_error(c, "no-such-match", "no match has that id");
        return;
    default:
        reply_error(c, "io", "the match could not be read (%s)", store_error(sv->store));
        return;
    }
    struct buf json = {0};
    match_json(id, &m, &json);
    send_json(sv, c, &json);
    free(json.data);
}

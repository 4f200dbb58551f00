/* The lobby's list of live matches (docs/server.md, "Lobby"): the matches its seeks started,
 * listed to `lobby` and pushed as they start and end, here and, on a shared database, told to
 * the other servers and by them (lobby-site.c follows the site's news). Each is stored with its
 * match (lobby_matches), and a server reads the list when its lobby is first used; on a shared
 * database a server started later is also told the running servers' lists, which holds the
 * matches started before the table existed. */
#define _POSIX_C_SOURCE 200809L

#include "lobby-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_SHOWN_MAX 1000 /* live matches the lobby keeps listing */

void tell_owner(struct server *sv, uint64_t serial, uint64_t seek_id, uint64_t match_id, int seat,
                const char *token)
{
    struct client *owner = client_by_serial(sv, serial);
    if (!owner)
        return;
    char told[128];
    int len = snprintf(told, sizeof told, "lobby matched %" PRIu64 " %" PRIu64 " %d %s\n", seek_id,
                       match_id, seat, token);
    push_to(sv, owner, told, (size_t)len);
}

/* The live match's line (without "lobby live "), listed and pushed to the lobby, once. */
void live_add(struct server *sv, uint64_t id, const char *rest)
{
    struct lobby *l = lobby_of(sv);
    for (size_t i = 0; l && i < l->live_count; i++)
        if (l->live[i].id == id)
            return;
    struct buf line = {0};
    buf_printf(&line, "lobby live %s", rest);
    struct live_match *grown =
        l && l->live_count < LIVE_SHOWN_MAX
            ? array_reserve(l->live, &l->live_cap, l->live_count + 1, sizeof *grown, 16)
            : NULL;
    if (grown)
        l->live = grown;
    if (line.data && grown && buf_printf(&line, "\n")) {
        push_all(sv, line.data, line.len);
        line.data[--line.len] = '\0'; /* kept without its newline, for `lobby` */
        l->live[l->live_count++] = (struct live_match){id, line.data};
    } else {
        free(line.data);
    }
}

bool live_end(struct server *sv, uint64_t id, const char *result)
{
    struct lobby *l = sv->lobby;
    for (size_t i = 0; l && i < l->live_count; i++)
        if (l->live[i].id == id) {
            char line[96];
            int len = snprintf(line, sizeof line, "lobby ended %" PRIu64 " %s\n", id, result);
            free(l->live[i].line);
            l->live[i] = l->live[--l->live_count];
            push_all(sv, line, (size_t)len);
            return true;
        }
    return false;
}

bool live_line_of(struct change *ch, const struct client *taker)
{
    const struct match *m = ch->match;
    const struct stored_clock *clock = &ch->clock.kept;
    int seat = ch->seek_owner_seat;
    const char *names[2];
    names[seat] = ch->seek_owner_name;
    names[1 - seat] = taker->account_id ? taker->account_name : "guest";
    char control[64];
    if (clock->days)
        snprintf(control, sizeof control, "days=%d", clock->days);
    else
        snprintf(control, sizeof control, "clock=%g+%g", (double)clock->base_ms / 60000.0,
                 (double)clock->increment_ms / 1000.0);
    int len = snprintf(ch->live_line, sizeof ch->live_line, "%s %s %s %s %s",
                       tg_rules_spec(m->rules->rules), control, ch->rated ? "rated" : "casual",
                       names[0], names[1]);
    return len > 0 && (size_t)len < sizeof ch->live_line;
}

/* The lobby's live matches as stored, read when the lobby is first used (at start-up on a
 * shared database): a restart, of one server or of every server of a site, lists them again. */
static void stored_live(uint64_t id, const char *line, void *ctx)
{
    struct server *sv = ctx;
    struct buf rest = {0};
    if (buf_printf(&rest, "%" PRIu64 " %s", id, line))
        live_add(sv, id, rest.data);
    free(rest.data);
}

void live_read_stored(struct server *sv)
{
    if (!store_each_lobby_match(sv->store, LIVE_SHOWN_MAX, stored_live, sv))
        fprintf(stderr, "tg-server: the lobby's live matches could not be read (%s)\n",
                store_error(sv->store));
}

static void match_started(struct server *sv, const struct change *ch)
{
    const struct match *m = ch->match;
    struct lobby *l = lobby_of(sv);
    int seat = ch->seek_owner_seat;
    if (strcmp(ch->seek_owner_instance, store_owner(sv->store)) == 0)
        tell_owner(sv, ch->seek_owner_serial, ch->seek_id, m->id, seat, m->tokens[seat]);
    struct buf rest = {0};
    buf_printf(&rest, "%" PRIu64 " %s", m->id, ch->live_line);
    if (!rest.data)
        return;
    live_add(sv, m->id, rest.data);
    if (l && l->feed) {
        struct buf notice = {0};
        if (buf_printf(&notice, "%s live %s", store_owner(sv->store), rest.data))
            lobby_feed_notify(l->feed, notice.data);
        free(notice.data);
    }
    free(rest.data);
}

void lobby_committed(struct server *sv, const struct change *ch)
{
    if (ch->kind == CH_NEW && ch->seek_id) {
        lobby_seek_settled(sv, ch, true);
        match_started(sv, ch);
    }
    if (!match_over(ch->match) || !live_end(sv, ch->match->id, result_word(ch->match)))
        return;
    struct lobby *l = sv->lobby;
    if (l->feed) {
        char notice[128];
        snprintf(notice, sizeof notice, "%s ended %" PRIu64 " %s", store_owner(sv->store),
                 ch->match->id, result_word(ch->match));
        lobby_feed_notify(l->feed, notice);
    }
}

/* ---- the other servers' lists (a shared database) -------------------------------------------- */

/* A server started: it is told this server's list of live matches, as "lives" notices of as
 * many lines as a notification holds (PostgreSQL's payloads are under 8000 bytes). */
#define LIVES_NOTICE_MAX 7000

void site_lives(struct server *sv)
{
    struct lobby *l = sv->lobby;
    struct buf notice = {0};
    const size_t skip = strlen("lobby live ");
    for (size_t i = 0; i <= l->live_count; i++) {
        bool last = i == l->live_count;
        size_t len = last ? 0 : strlen(l->live[i].line) - skip;
        if (notice.len && (last || notice.len + 1 + len > LIVES_NOTICE_MAX)) {
            lobby_feed_notify(l->feed, notice.data);
            notice.len = 0;
        }
        if (last)
            break;
        if (!notice.len)
            buf_printf(&notice, "%s lives", store_owner(sv->store));
        buf_printf(&notice, "\n%s", l->live[i].line + skip);
    }
    free(notice.data);
}

/* A "lives" notice: one live match a line, after the first. */
void take_lives(struct server *sv, const char *rest)
{
    for (const char *line = strchr(rest, '\n'); line; line = strchr(line, '\n')) {
        line++;
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char one[LIVES_NOTICE_MAX + 1];
        uint64_t id;
        if (len > LIVES_NOTICE_MAX)
            return;
        memcpy(one, line, len);
        one[len] = '\0';
        if (sscanf(one, "%" SCNu64, &id) == 1)
            live_add(sv, id, one);
    }
}

/* The lobby (docs/server.md, "Lobby"): seeks (a game, a clock, rated or casual, a rating
 * range), direct challenges (a seek only one named player may take), their acceptance, which
 * makes the match with both seats assigned, and the lobby's feed: the seeks and the live
 * matches it started, then every change of them pushed to the connections that asked with
 * `lobby`. Seeks go with their owner's connection, after --seek-lifetime, or when taken. On
 * SQLite they are this server's memory; on PostgreSQL the site's (store-pg-lobby.c): each
 * server mirrors the seeks table, told of every change on the lobby's channel, and taking a
 * seek deletes its row in the match's own change, so that one seek makes one match
 * site-wide. This file holds the lobby itself: this server's list of seeks and the feed;
 * lobby-seek.c the commands, lobby-write.c the writes of a shared database (the database
 * threads') and the sweeps, lobby-site.c what the other servers did, lobby-live.c the live
 * matches. */
#define _POSIX_C_SOURCE 200809L

#include "lobby-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lobby *lobby_of(struct server *sv)
{
    if (sv->lobby)
        return sv->lobby;
    struct lobby *l = sv->lobby = calloc(1, sizeof *sv->lobby);
    if (l && store_is_shared(sv->store)) {
        char err[512];
        /* Listening before reading the table: a seek made meanwhile is heard, not lost. */
        l->feed = lobby_feed_open(sv->opt.db_path, err, sizeof err);
        if (!l->feed || !lobby_feed_each_seek(l->feed, mirror_seek, sv))
            fprintf(stderr, "tg-server: the lobby shows this server's seeks only (%s)\n",
                    l->feed ? "the site's seeks could not be read" : err);
        /* The servers running tell their lists too (site_lives): that holds the matches
         * started before the database kept the lobby's (PostgreSQL's schema 9). */
        char wanted[TOKEN_HEX_LEN + 16];
        snprintf(wanted, sizeof wanted, "%s live-wanted", store_owner(sv->store));
        if (l->feed && !lobby_feed_notify(l->feed, wanted))
            fprintf(stderr, "tg-server: the lobby lists the matches started from now on only\n");
    }
    /* After listening: a match that starts or ends meanwhile is heard, not lost. */
    if (l)
        live_read_stored(sv);
    return l;
}

void lobby_free(struct server *sv)
{
    struct lobby *l = sv->lobby;
    if (!l)
        return;
    lobby_feed_close(l->feed);
    for (size_t i = 0; i < l->live_count; i++)
        free(l->live[i].line);
    free(l->seeks);
    free(l->live);
    free(l);
    sv->lobby = NULL;
}

/* ---- the feed ------------------------------------------------------------------------------ */

bool owns(const struct client *c, const struct seek *k)
{
    return (k->local && k->s.owner_serial == c->serial) ||
           (c->account_id && c->account_id == k->s.owner_account);
}

bool sees(const struct client *c, const struct seek *k)
{
    return !k->s.target_account || owns(c, k) || (c->account_id == k->s.target_account);
}

/* A seek's time control as the protocol writes it: clock_text holds M+S for a clock (as
 * servers before correspondence stored it in the site's seeks) and days=N whole. */
void time_control_word(const char *clock_text, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s", strncmp(clock_text, "days=", 5) == 0 ? "" : "clock=", clock_text);
}

static void seek_line(struct buf *b, const struct seek *k)
{
    const struct stored_seek *s = &k->s;
    buf_printf(b, "lobby seek %" PRIu64 " %s ", s->id, s->owner_name);
    if (s->owner_account)
        buf_printf(b, "%.0f%s", s->rating, s->provisional ? "?" : "");
    else
        buf_printf(b, "-");
    char control[sizeof s->clock_text + 8];
    time_control_word(s->clock_text, control, sizeof control);
    buf_printf(b, " %s %s %s %s", s->spec, control, clock_category(&k->clock),
               s->rated ? "rated" : "casual");
    if (s->max)
        buf_printf(b, " range=%d-%d", s->min, s->max);
    if (s->target_account)
        buf_printf(b, " to=%s", s->target_name);
    buf_printf(b, "\n");
}

/* One line to a client, which is let go if it stopped reading (as a watcher is). */
void push_to(struct server *sv, struct client *c, const char *text, size_t len)
{
    size_t before = c->out.len;
    if (c->dead)
        return;
    if (!record_flush(sv, c) || output_over_budget(sv, c) || !buf_append(&c->out, text, len)) {
        c->dead = true;
        sv->dropped_watchers++;
        return;
    }
    sv->out_total += c->out.len - before;
}

/* Whether c is told of seek s: a lobby subscriber who may see it, or a challenge's target
 * wherever it is signed in on this server. */
static bool told_of(const struct client *c, const struct seek *s)
{
    bool target = s->s.target_account && c->account_id == s->s.target_account;
    return (c->in_lobby && sees(c, s)) || target;
}

/* The seek's line to those told of it. */
void push_seek(struct server *sv, const struct seek *s)
{
    struct buf line = {0};
    seek_line(&line, s);
    for (size_t i = 0; line.data && i < sv->client_count; i++)
        if (told_of(sv->clients[i], s))
            push_to(sv, sv->clients[i], line.data, line.len);
    free(line.data);
}

/* A seek gone: to those who saw it, and to its owner (a challenge declined, say), but for the
 * connection whose command took it away, which has its reply instead. */
static void push_gone(struct server *sv, const struct seek *s, const char *why,
                      const struct client *actor)
{
    char line[96];
    int len = snprintf(line, sizeof line, "lobby unseek %" PRIu64 " %s\n", s->s.id, why);
    for (size_t i = 0; i < sv->client_count; i++) {
        struct client *c = sv->clients[i];
        bool owner = s->local && c->serial == s->s.owner_serial;
        if (c != actor && (told_of(c, s) || owner))
            push_to(sv, c, line, (size_t)len);
    }
}

void push_all(struct server *sv, const char *line, size_t len)
{
    for (size_t i = 0; i < sv->client_count; i++)
        if (sv->clients[i]->in_lobby)
            push_to(sv, sv->clients[i], line, len);
}

/* Takes seek i out of this server's list, telling those who saw it; on a shared database its
 * row is already gone (withdraw_seeks, or another server's notice). */
void seek_remove(struct server *sv, size_t i, const char *why, const struct client *actor)
{
    struct lobby *l = sv->lobby;
    struct seek gone = l->seeks[i];
    l->seeks[i] = l->seeks[--l->seek_count];
    push_gone(sv, &gone, why, actor);
}

/* A seek of the site (one being stored has no id yet, and is nobody's to see). */
struct seek *seek_by_id(struct lobby *l, uint64_t id, size_t *index)
{
    for (size_t i = 0; l && i < l->seek_count; i++)
        if (l->seeks[i].s.id == id && !l->seeks[i].storing) {
            *index = i;
            return &l->seeks[i];
        }
    return NULL;
}

/* A seek into this server's list (its id given); false if memory runs out. */
bool seek_add(struct server *sv, const struct seek *k)
{
    struct lobby *l = lobby_of(sv);
    struct seek *grown =
        l ? array_reserve(l->seeks, &l->seek_cap, l->seek_count + 1, sizeof *grown, 16) : NULL;
    if (!grown)
        return false;
    l->seeks = grown;
    l->seeks[l->seek_count++] = *k;
    return true;
}

void cmd_subscribe(struct server *sv, struct client *c)
{
    struct lobby *l = lobby_of(sv);
    struct buf lines = {0};
    size_t seeks = 0;
    for (size_t i = 0; l && i < l->seek_count; i++)
        if (!l->seeks[i].storing && sees(c, &l->seeks[i])) {
            seek_line(&lines, &l->seeks[i]);
            seeks++;
        }
    for (size_t i = 0; l && i < l->live_count; i++)
        buf_printf(&lines, "%s\n", l->live[i].line);
    buf_printf(&c->out, "ok %zu %zu\n", seeks, l ? l->live_count : 0);
    if (lines.len && !buf_append(&c->out, lines.data, lines.len))
        c->dead = true;
    free(lines.data);
    c->in_lobby = true;
}

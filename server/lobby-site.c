/* The site's seeks on a shared database, as this server follows them: a seek read from the
 * seeks table mirrored into this server's list, and the news the other servers send on the
 * lobby's channel (seeks made, withdrawn and taken, matches started and ended, draw offers)
 * applied here. */
#define _POSIX_C_SOURCE 200809L

#include "lobby-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A seek of the site, as read from the database: mirrored here. */
void mirror_seek(const struct stored_seek *stored, void *ctx)
{
    struct server *sv = ctx;
    size_t index;
    struct seek k = {.s = *stored, .created = sv->now};
    char clock_word[sizeof stored->clock_text + 8];
    time_control_word(stored->clock_text, clock_word, sizeof clock_word);
    if (seek_by_id(sv->lobby, stored->id, &index) ||
        !parse_time_control(clock_word, sv->opt.day_seconds, &k.clock))
        return;
    /* A seek of this server's own name is one it made before a restart: its connection is
     * gone, and the site's sweep takes it away. */
    k.local = false;
    if (seek_add(sv, &k))
        push_seek(sv, &sv->lobby->seeks[sv->lobby->seek_count - 1]);
}

/* ---- what the other servers did (a shared database) ------------------------------------------ */

static void on_site_news(const char *payload, void *ctx)
{
    struct server *sv = ctx;
    char from[TOKEN_HEX_LEN + 2], kind[16];
    int used = 0;
    if (sscanf(payload, "%33s %15s %n", from, kind, &used) != 2 || used <= 0)
        return;
    if (strcmp(from, store_owner(sv->store)) == 0)
        return; /* this server's own news: already done here */
    const char *rest = payload + used;
    uint64_t id, match_id, serial;
    int seat;
    char token[TOKEN_HEX_LEN + 2], instance[TOKEN_HEX_LEN + 2], word[32];
    size_t index;
    struct lobby *l = sv->lobby;
    if (strcmp(kind, "seek") == 0 && sscanf(rest, "%" SCNu64, &id) == 1) {
        struct stored_seek s;
        bool failed;
        if (lobby_feed_get_seek(l->feed, id, &s, &failed))
            mirror_seek(&s, sv);
    } else if (strcmp(kind, "unseek") == 0 && sscanf(rest, "%" SCNu64 " %31s", &id, word) == 2) {
        if (seek_by_id(l, id, &index))
            seek_remove(sv, index, word, NULL);
    } else if (strcmp(kind, "taken") == 0 &&
               sscanf(rest, "%" SCNu64 " %" SCNu64 " %d %33s %33s %" SCNu64, &id, &match_id, &seat,
                      token, instance, &serial) == 6) {
        if (seek_by_id(l, id, &index))
            seek_remove(sv, index, "taken", NULL);
        if (strcmp(instance, store_owner(sv->store)) == 0)
            tell_owner(sv, serial, id, match_id, seat, token);
    } else if (strcmp(kind, "live") == 0 && sscanf(rest, "%" SCNu64, &match_id) == 1) {
        live_add(sv, match_id, rest);
    } else if (strcmp(kind, "live-wanted") == 0) {
        site_lives(sv);
    } else if (strcmp(kind, "lives") == 0) {
        take_lives(sv, payload + strlen(from) + 1);
    } else if (strcmp(kind, "draw") == 0) {
        draw_news(sv, rest);
    } else if (strcmp(kind, "ended") == 0 &&
               sscanf(rest, "%" SCNu64 " %31s", &match_id, word) == 2) {
        live_end(sv, match_id, word);
    }
}

void lobby_follow(struct server *sv)
{
    struct lobby *l = lobby_of(sv);
    if (l && l->feed)
        lobby_feed_take(l->feed, on_site_news, sv);
}

/* The lobby (docs/server.md, "Lobby"): seeks (a game, a clock, rated or casual, a rating
 * range), direct challenges (a seek only one named player may take), their acceptance, which
 * makes the match with both seats assigned, and the lobby's feed: the seeks and the live
 * matches it started, then every change of them pushed to the connections that asked with
 * `lobby`. Seeks go with their owner's connection, after --seek-lifetime, or when taken. On
 * SQLite they are this server's memory; on PostgreSQL the site's (store-pg-lobby.c): each
 * server mirrors the seeks table, told of every change on the lobby's channel, and taking a
 * seek deletes its row in the match's own change, so that one seek makes one match
 * site-wide. */
#define _POSIX_C_SOURCE 200809L

#include "lobby-private.h"
#include "glicko2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEKS_PER_OWNER 3        /* open seeks and challenges per connection, and per account */
#define SEEKS_PER_ADDRESS 10     /* and per address (a browser's: its relayed address) */
#define SEEKS_MAX 1000           /* on this server, all together */
#define RANGE_MAX 9999           /* the largest rating a range may name */
#define SITE_SWEEP_SECONDS 10.0  /* a shared database: how often the site's old seeks are swept */
#define SERVER_GONE_SECONDS 30.0 /* a server not seen this long has lost its connections */

static void mirror_seek(const struct stored_seek *stored, void *ctx);

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

static bool owns(const struct client *c, const struct seek *k)
{
    return (k->local && k->s.owner_serial == c->serial) ||
           (c->account_id && c->account_id == k->s.owner_account);
}

static bool sees(const struct client *c, const struct seek *k)
{
    return !k->s.target_account || owns(c, k) || (c->account_id == k->s.target_account);
}

/* A seek's time control as the protocol writes it: clock_text holds M+S for a clock (as
 * servers before correspondence stored it in the site's seeks) and days=N whole. */
static void time_control_word(const char *clock_text, char *out, size_t cap)
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

/* The seek's line to every lobby subscriber who may see it, and a challenge to its target
 * wherever it is signed in on this server. */
static void push_seek(struct server *sv, const struct seek *s)
{
    struct buf line = {0};
    seek_line(&line, s);
    for (size_t i = 0; line.data && i < sv->client_count; i++) {
        struct client *c = sv->clients[i];
        bool target = s->s.target_account && c->account_id == s->s.target_account;
        if ((c->in_lobby && sees(c, s)) || target)
            push_to(sv, c, line.data, line.len);
    }
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
        bool target = s->s.target_account && c->account_id == s->s.target_account;
        bool owner = s->local && c->serial == s->s.owner_serial;
        if (c != actor && ((c->in_lobby && sees(c, s)) || target || owner))
            push_to(sv, c, line, (size_t)len);
    }
}

void push_all(struct server *sv, const char *line, size_t len)
{
    for (size_t i = 0; i < sv->client_count; i++)
        if (sv->clients[i]->in_lobby)
            push_to(sv, sv->clients[i], line, len);
}

/* Takes seek i away, here and (tell_site) for the whole site. */
static void seek_remove(struct server *sv, size_t i, const char *why, const struct client *actor,
                        bool tell_site)
{
    struct lobby *l = sv->lobby;
    struct seek gone = l->seeks[i];
    l->seeks[i] = l->seeks[--l->seek_count];
    if (tell_site && l->feed)
        lobby_feed_remove_seek(l->feed, store_owner(sv->store), gone.s.id, why);
    push_gone(sv, &gone, why, actor);
}

static struct seek *seek_by_id(struct lobby *l, uint64_t id, size_t *index)
{
    for (size_t i = 0; l && i < l->seek_count; i++)
        if (l->seeks[i].s.id == id) {
            *index = i;
            return &l->seeks[i];
        }
    return NULL;
}

void lobby_sweep(struct server *sv)
{
    struct lobby *l = sv->lobby;
    for (size_t i = 0; l && i < l->seek_count;) {
        const struct seek *s = &l->seeks[i];
        if (s->taking) /* its match is being stored: settled with it (lobby_seek_settled) */
            i++;
        else if (s->local && !client_by_serial(sv, s->s.owner_serial))
            seek_remove(sv, i, "owner-gone", NULL, true);
        else if (s->local && sv->now - s->created >= sv->opt.seek_lifetime)
            seek_remove(sv, i, "expired", NULL, true);
        else
            i++;
    }
    /* The seeks of servers that died, and any past its time: every server sweeps the site's,
     * and is told of what it swept like the others ("-" is nobody's name). */
    if (l && l->feed && sv->now >= l->next_site_sweep) {
        lobby_feed_sweep(l->feed, "-", sv->opt.seek_lifetime, SERVER_GONE_SECONDS);
        l->next_site_sweep = sv->now + SITE_SWEEP_SECONDS;
    }
}

/* ---- seek and challenge ---------------------------------------------------------------------- */

/* range=MIN-MAX: two ratings from 0 to RANGE_MAX, the first not above the second. */
static bool parse_range(const char *text, int *min, int *max)
{
    if (strncmp(text, "range=", 6) != 0)
        return false;
    const char *p = text + 6;
    int v[2];
    for (int k = 0; k < 2; k++) {
        size_t digits = 0;
        v[k] = 0;
        while (p[digits] >= '0' && p[digits] <= '9' && digits < 5)
            v[k] = v[k] * 10 + (p[digits++] - '0');
        if (!digits || v[k] > RANGE_MAX)
            return false;
        p += digits;
        if (k == 0 && *p++ != '-')
            return false;
    }
    if (*p)
        return false;
    *min = v[0];
    *max = v[1];
    return v[0] <= v[1];
}

/* The account's rating in the game and category (the starting one if it has none). */
static bool rating_of(struct server *sv, uint64_t account_id, const char *game,
                      const char *category, struct stored_rating *out)
{
    struct glicko2_rating start = glicko2_start();
    *out = (struct stored_rating){
        .rating = start.rating, .rd = start.rd, .volatility = start.volatility};
    snprintf(out->game, sizeof out->game, "%s", game);
    snprintf(out->category, sizeof out->category, "%s", category);
    return store_get_rating(sv->store, account_id, out) != RATED_FAILED;
}

static bool owns_too_many(struct server *sv, struct client *c)
{
    struct lobby *l = sv->lobby;
    size_t mine = 0, address = 0;
    for (size_t i = 0; i < l->seek_count; i++) {
        const struct seek *k = &l->seeks[i];
        if (owns(c, k))
            mine++;
        if (k->local && c->address && k->address == c->address)
            address++;
    }
    if (l->seek_count >= SEEKS_MAX) {
        reply_error(c, "lobby-full", "the lobby holds its %d seeks; try again later", SEEKS_MAX);
        return true;
    }
    if (mine >= SEEKS_PER_OWNER || address >= SEEKS_PER_ADDRESS) {
        reply_error(c, "too-many-seeks",
                    "%d open seeks per player (%d per address): unseek one first", SEEKS_PER_OWNER,
                    SEEKS_PER_ADDRESS);
        return true;
    }
    return false;
}

/* A seek into this server's list (its id given); false if memory runs out. */
static bool seek_add(struct server *sv, const struct seek *k)
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

/* A seek of the site, as read from the database: mirrored here. */
static void mirror_seek(const struct stored_seek *stored, void *ctx)
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

/* seek SPEC clock=M+S rated|casual [range=MIN-MAX], and challenge NAME SPEC clock=M+S
 * rated|casual: w points at SPEC, n words from there. */
static void cmd_seek(struct server *sv, struct client *c, char **w, size_t n,
                     const struct stored_account *target)
{
    struct seek k = {.local = true, .created = sv->now, .address = c->address};
    struct stored_seek *s = &k.s;
    const char *usage = target ? "challenge NAME SPEC clock=M+S|days=N rated|casual"
                               : "seek SPEC clock=M+S|days=N rated|casual [range=MIN-MAX]";
    if (n < 3 || n > (target ? 3u : 4u)) {
        reply_error(c, "usage", "%s", usage);
        return;
    }
    /* What clock_text keeps: M+S of a clock, days=N whole (time_control_word). */
    const char *control_text = strncmp(w[1], "days=", 5) == 0 ? w[1] : w[1] + 6;
    if (!parse_time_control(w[1], sv->opt.day_seconds, &k.clock) ||
        strlen(control_text) >= sizeof s->clock_text) {
        reply_error(c, "bad-option", "a seek's " TIME_CONTROL_HELP);
        return;
    }
    if (strcmp(w[2], "rated") != 0 && strcmp(w[2], "casual") != 0) {
        reply_error(c, "bad-option", "a seek is rated or casual: %s", usage);
        return;
    }
    s->rated = strcmp(w[2], "rated") == 0;
    if (n == 4 && !parse_range(w[3], &s->min, &s->max)) {
        reply_error(c, "bad-option",
                    "a rating range is range=MIN-MAX, from 0 to %d, MIN not above MAX", RANGE_MAX);
        return;
    }
    if (n == 4 && !s->rated) {
        reply_error(c, "bad-option", "a rating range is for rated seeks");
        return;
    }
    s->owner_account = signed_in_account(sv, c);
    if ((s->rated || target) && !s->owner_account) {
        reply_error(c, "not-signed-in",
                    "rated seeks and challenges are for signed-in players (guests may seek "
                    "casual games)");
        return;
    }
    if (target && target->id == s->owner_account) {
        reply_error(c, "own-seek", "a challenge is to another player");
        return;
    }
    struct rules_entry *rules = rules_for_new_match(sv, c, w[0]);
    if (!rules)
        return;
    const char *spec = tg_rules_spec(rules->rules), *game = tg_rules_game_id(rules->rules);
    char game_copy[RATED_GAME_MAX];
    bool spec_fits = strlen(spec) < sizeof s->spec;
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    snprintf(game_copy, sizeof game_copy, "%s", game ? game : "");
    rules_release(sv, rules);
    if (!spec_fits) {
        reply_error(c, "bad-option", "a seek's rule spec is at most %d bytes", SEEK_SPEC_MAX - 1);
        return;
    }
    struct lobby *l = lobby_of(sv);
    if (!l) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    if (owns_too_many(sv, c))
        return;
    snprintf(s->clock_text, sizeof s->clock_text, "%s", control_text);
    snprintf(s->owner_name, sizeof s->owner_name, "%s",
             s->owner_account ? c->account_name : "guest");
    snprintf(s->instance, sizeof s->instance, "%s", store_owner(sv->store));
    s->owner_serial = c->serial;
    if (target) {
        s->target_account = target->id;
        snprintf(s->target_name, sizeof s->target_name, "%s", target->name);
    }
    if (s->owner_account) {
        struct stored_rating r;
        if (!rating_of(sv, s->owner_account, game_copy, clock_category(&k.clock), &r)) {
            reply_error(c, "io", "the ratings could not be read (%s)", store_error(sv->store));
            return;
        }
        struct glicko2_rating g = {r.rating, r.rd, r.volatility};
        s->rating = r.rating;
        s->provisional = glicko2_is_provisional(&g);
    }
    if (l->feed ? !lobby_feed_add_seek(l->feed, s) : ((s->id = ++l->next_id), false)) {
        reply_error(c, "io", "the seek could not be stored; nothing changed");
        return;
    }
    if (!seek_add(sv, &k)) {
        if (l->feed)
            lobby_feed_remove_seek(l->feed, s->instance, s->id, "withdrawn");
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    buf_printf(&c->out, "ok %" PRIu64 "\n", s->id);
    push_seek(sv, &k);
}

static void cmd_challenge(struct server *sv, struct client *c, char **w, size_t n)
{
    struct stored_account target;
    if (!find_player(sv, c, n < 2 ? "" : w[1], &target))
        return;
    cmd_seek(sv, c, w + 2, n - 2, &target);
}

/* ---- taking a seek ------------------------------------------------------------------------- */

static struct seek *find_seek(struct server *sv, struct client *c, const char *id_text,
                              size_t *index)
{
    uint64_t id;
    if (!parse_u64(id_text, &id)) {
        reply_error(c, "usage", "a seek's id is a number");
        return NULL;
    }
    struct lobby *l = lobby_of(sv);
    struct seek *k = seek_by_id(l, id, index);
    struct stored_seek stored;
    bool failed;
    /* Made through another server a moment ago, and not yet heard of here: read. */
    if (!k && l && l->feed && lobby_feed_get_seek(l->feed, id, &stored, &failed)) {
        mirror_seek(&stored, sv);
        k = seek_by_id(l, id, index);
    }
    if (k && k->taking && sees(c, k)) {
        reply_error(c, "busy", "seek %s is being taken; if that fails it stays open: try again",
                    id_text);
        return NULL;
    }
    if (k && sees(c, k) && (!k->local || client_by_serial(sv, k->s.owner_serial)))
        return k;
    reply_error(c, "no-such-seek", "no seek %s: it was taken, withdrawn, or never was", id_text);
    return NULL;
}

static void cmd_accept_seek(struct server *sv, struct client *c, const char *id_text)
{
    size_t index;
    uint64_t taker = signed_in_account(sv, c);
    struct seek *k = find_seek(sv, c, id_text, &index);
    if (!k)
        return;
    const struct stored_seek *s = &k->s;
    if (owns(c, k)) {
        reply_error(c, "own-seek", "a seek is taken by another player");
        return;
    }
    if (s->target_account && taker != s->target_account) {
        reply_error(c, "not-yours", "that challenge is to %s", s->target_name);
        return;
    }
    if (s->rated && !taker) {
        reply_error(c, "not-signed-in", "a rated seek is taken by a signed-in player");
        return;
    }
    if (!admit_new_match(sv, c))
        return;
    struct rules_entry *rules = rules_for_new_match(sv, c, s->spec);
    if (!rules)
        return;
    if (s->rated && s->max) {
        struct stored_rating r;
        if (!rating_of(sv, taker, tg_rules_game_id(rules->rules), clock_category(&k->clock), &r)) {
            rules_release(sv, rules);
            reply_error(c, "io", "the ratings could not be read (%s)", store_error(sv->store));
            return;
        }
        if (r.rating < s->min || r.rating > s->max) {
            rules_release(sv, rules);
            reply_error(c, "out-of-range", "your rating %.0f is outside the seek's %d-%d", r.rating,
                        s->min, s->max);
            return;
        }
    }
    unsigned char coin;
    if (!os_random(&coin, 1)) {
        rules_release(sv, rules);
        reply_status(c, TG_ERR_INVALID_ARGUMENT);
        return;
    }
    struct change *ch = new_match_change(sv, c, rules, &k->clock, -1, NULL);
    if (!ch)
        return;
    int owner_seat = coin & 1;
    ch->asker_seat = 1 - owner_seat; /* answered once stored: ok ID SEAT TOKEN */
    ch->account_id = 0; /* both seats' accounts are lobby_stage_new's */
    ch->seat_accounts[owner_seat] = s->owner_account;
    ch->seat_accounts[1 - owner_seat] = taker;
    ch->rated = s->rated;
    ch->seek_id = s->id;
    ch->seek_owner_serial = s->owner_serial;
    ch->seek_owner_seat = owner_seat;
    snprintf(ch->seek_owner_instance, sizeof ch->seek_owner_instance, "%s", s->instance);
    snprintf(ch->seek_owner_name, sizeof ch->seek_owner_name, "%s", s->owner_name);
    if (!live_line_of(ch, c)) {
        change_discard(sv, ch);
        reply_error(c, "invalid-argument", "the seek's rule spec is too long for the lobby");
        return;
    }
    /* Held here at once, so that a second taker through this server is told to wait; the
     * site's row goes in the match's own change (lobby_stage_new), and the seek leaves this
     * lobby once that change is committed (lobby_seek_settled): a change refused (the row
     * locked by another server, the database away) leaves the seek open here as on the site. */
    k->taking = true;
    c->awaiting = true;
    stage(sv, ch);
}

void lobby_seek_settled(struct server *sv, const struct change *ch, bool taken)
{
    size_t index;
    struct seek *k = ch->seek_id ? seek_by_id(sv->lobby, ch->seek_id, &index) : NULL;
    if (!k)
        return; /* withdrawn, swept, or taken through another server meanwhile */
    k->taking = false;
    if (taken)
        seek_remove(sv, index, "taken", client_by_serial(sv, ch->client_serial), false);
}

bool lobby_stage_new(struct store *st, const struct change *ch)
{
    const struct match *m = ch->match;
    if (ch->seek_id) {
        /* The site hears that the seek was taken, and the owner's server tells its owner. */
        char notice[256];
        int seat = ch->seek_owner_seat;
        snprintf(notice, sizeof notice, "%s taken %" PRIu64 " %" PRIu64 " %d %s %s %" PRIu64,
                 store_owner(st), ch->seek_id, m->id, seat, m->tokens[seat],
                 ch->seek_owner_instance, ch->seek_owner_serial);
        bool taken;
        if (!store_take_seek(st, ch->seek_id, notice, &taken) ||
            !store_put_lobby_match(st, m->id, ch->live_line))
            return false;
    }
    return ratings_stage_new(st, ch);
}

static void cmd_decline_seek(struct server *sv, struct client *c, const char *id_text)
{
    size_t index;
    struct seek *k = find_seek(sv, c, id_text, &index);
    if (!k)
        return;
    if (!k->s.target_account || c->account_id != k->s.target_account) {
        reply_error(c, "not-yours", "only the player challenged declines a challenge");
        return;
    }
    buf_printf(&c->out, "ok\n");
    seek_remove(sv, index, "declined", c, true);
}

static void cmd_unseek(struct server *sv, struct client *c, char **w, size_t n)
{
    struct lobby *l = sv->lobby;
    uint64_t id = 0;
    if (n == 2 && !parse_u64(w[1], &id)) {
        reply_error(c, "usage", "unseek [ID]");
        return;
    }
    /* A seek being taken is not withdrawn: its match is being stored (lobby_seek_settled). */
    size_t mine = 0, taking = 0;
    for (size_t i = 0; l && i < l->seek_count; i++) {
        const struct seek *k = &l->seeks[i];
        bool named = k->local && k->s.owner_serial == c->serial && (!id || k->s.id == id);
        mine += named && !k->taking;
        taking += named && k->taking;
    }
    if (id && taking) {
        reply_error(c, "busy", "seek %" PRIu64 " is being taken; if that fails it stays open", id);
        return;
    }
    if (id && !mine) {
        reply_error(c, "no-such-seek", "no seek %" PRIu64 " of this connection", id);
        return;
    }
    buf_printf(&c->out, "ok %zu\n", mine);
    for (size_t i = 0; l && i < l->seek_count;) {
        const struct seek *k = &l->seeks[i];
        if (k->local && k->s.owner_serial == c->serial && (!id || k->s.id == id) && !k->taking)
            seek_remove(sv, i, "withdrawn", c, true);
        else
            i++;
    }
}

static void cmd_subscribe(struct server *sv, struct client *c)
{
    struct lobby *l = lobby_of(sv);
    struct buf lines = {0};
    size_t seeks = 0;
    for (size_t i = 0; l && i < l->seek_count; i++)
        if (sees(c, &l->seeks[i])) {
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

void cmd_lobby(struct server *sv, struct client *c, char **w, size_t n)
{
    const char *cmd = w[0];
    if (strcmp(cmd, "seek") == 0)
        cmd_seek(sv, c, w + 1, n - 1, NULL);
    else if (strcmp(cmd, "challenge") == 0)
        cmd_challenge(sv, c, w, n);
    else if (strcmp(cmd, "unseek") == 0)
        cmd_unseek(sv, c, w, n);
    else if (strcmp(cmd, "accept-seek") == 0)
        cmd_accept_seek(sv, c, w[1]);
    else if (strcmp(cmd, "decline-seek") == 0)
        cmd_decline_seek(sv, c, w[1]);
    else
        cmd_subscribe(sv, c);
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
            seek_remove(sv, index, word, NULL, false);
    } else if (strcmp(kind, "taken") == 0 &&
               sscanf(rest, "%" SCNu64 " %" SCNu64 " %d %33s %33s %" SCNu64, &id, &match_id, &seat,
                      token, instance, &serial) == 6) {
        if (seek_by_id(l, id, &index))
            seek_remove(sv, index, "taken", NULL, false);
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

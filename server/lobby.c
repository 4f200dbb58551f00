/* The lobby (docs/server.md, "Lobby"): seeks (a game, a clock, rated or casual, a rating
 * range), direct challenges (a seek only one named player may take), their acceptance, which
 * makes the match with both seats assigned, and the lobby's feed: the seeks and the live
 * matches it started, then every change of them pushed to the connections that asked with
 * `lobby`. Seeks are this server's memory: they go with their owner's connection, after
 * SEEK_LIFETIME, or when taken. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "glicko2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEK_LIFETIME 1800.0   /* seconds a seek waits for a taker before it goes */
#define SEEKS_PER_OWNER 3      /* open seeks and challenges per connection, and per account */
#define SEEKS_PER_ADDRESS 10   /* and per address (a browser's: its relayed address) */
#define SEEKS_MAX 1000         /* on this server, all together */
#define LIVE_SHOWN_MAX 1000    /* live matches the lobby keeps listing */
#define RANGE_MAX 9999         /* the largest rating a range may name */

struct seek {
    uint64_t id;
    uint64_t owner_serial, owner_account; /* owner_account 0: a guest */
    char owner_name[ACCOUNT_NAME_MAX + 1];
    uint64_t target_account; /* a challenge: the only account that may take it; else 0 */
    char target_name[ACCOUNT_NAME_MAX + 1];
    char *spec; /* the rule set's canonical spec */
    char clock_text[32];
    struct stored_clock clock;
    bool rated;
    int min, max; /* the taker's rating must be within (rated seeks); 0, 0: anyone */
    double rating; /* the owner's rating in the seek's game and category, as seeked */
    bool provisional;
    double created;
    const struct address *address;
};

struct live_match {
    uint64_t id;
    char *line; /* its `lobby live` line, without the newline */
};

struct lobby {
    struct seek *seeks;
    size_t seek_count, seek_cap;
    uint64_t next_id;
    struct live_match *live;
    size_t live_count, live_cap;
};

static struct lobby *lobby_of(struct server *sv)
{
    if (!sv->lobby)
        sv->lobby = calloc(1, sizeof *sv->lobby);
    return sv->lobby;
}

void lobby_free(struct server *sv)
{
    struct lobby *l = sv->lobby;
    if (!l)
        return;
    for (size_t i = 0; i < l->seek_count; i++)
        free(l->seeks[i].spec);
    for (size_t i = 0; i < l->live_count; i++)
        free(l->live[i].line);
    free(l->seeks);
    free(l->live);
    free(l);
    sv->lobby = NULL;
}

/* ---- the feed ------------------------------------------------------------------------------ */

static bool sees(const struct client *c, const struct seek *s)
{
    return !s->target_account || c->serial == s->owner_serial ||
           (c->account_id && (c->account_id == s->target_account ||
                              c->account_id == s->owner_account));
}

static void seek_line(struct buf *b, const struct seek *s)
{
    buf_printf(b, "lobby seek %" PRIu64 " %s ", s->id, s->owner_name);
    if (s->owner_account)
        buf_printf(b, "%.0f%s", s->rating, s->provisional ? "?" : "");
    else
        buf_printf(b, "-");
    buf_printf(b, " %s clock=%s %s %s", s->spec, s->clock_text, clock_category(&s->clock),
               s->rated ? "rated" : "casual");
    if (s->max)
        buf_printf(b, " range=%d-%d", s->min, s->max);
    if (s->target_account)
        buf_printf(b, " to=%s", s->target_name);
    buf_printf(b, "\n");
}

/* One line to a client, which is let go if it stopped reading (as a watcher is). */
static void push_to(struct server *sv, struct client *c, const char *text, size_t len)
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
        bool target = s->target_account && c->account_id == s->target_account;
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
    int len = snprintf(line, sizeof line, "lobby unseek %" PRIu64 " %s\n", s->id, why);
    for (size_t i = 0; i < sv->client_count; i++) {
        struct client *c = sv->clients[i];
        bool target = s->target_account && c->account_id == s->target_account;
        if (c != actor && ((c->in_lobby && sees(c, s)) || target || c->serial == s->owner_serial))
            push_to(sv, c, line, (size_t)len);
    }
}

static void push_all(struct server *sv, const char *line, size_t len)
{
    for (size_t i = 0; i < sv->client_count; i++)
        if (sv->clients[i]->in_lobby)
            push_to(sv, sv->clients[i], line, len);
}

static void seek_remove(struct server *sv, size_t i, const char *why, const struct client *actor)
{
    struct lobby *l = sv->lobby;
    struct seek gone = l->seeks[i];
    l->seeks[i] = l->seeks[--l->seek_count];
    push_gone(sv, &gone, why, actor);
    free(gone.spec);
}

void lobby_sweep(struct server *sv)
{
    struct lobby *l = sv->lobby;
    for (size_t i = 0; l && i < l->seek_count;) {
        const struct seek *s = &l->seeks[i];
        if (!client_by_serial(sv, s->owner_serial))
            seek_remove(sv, i, "owner-gone", NULL);
        else if (sv->now - s->created >= SEEK_LIFETIME)
            seek_remove(sv, i, "expired", NULL);
        else
            i++;
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
    *out = (struct stored_rating){.rating = start.rating, .rd = start.rd,
                                  .volatility = start.volatility};
    snprintf(out->game, sizeof out->game, "%s", game);
    snprintf(out->category, sizeof out->category, "%s", category);
    return store_get_rating(sv->store, account_id, out) != RATED_FAILED;
}

static bool owns_too_many(struct server *sv, struct client *c)
{
    struct lobby *l = sv->lobby;
    size_t mine = 0, address = 0;
    for (size_t i = 0; i < l->seek_count; i++) {
        const struct seek *s = &l->seeks[i];
        if (s->owner_serial == c->serial || (c->account_id && s->owner_account == c->account_id))
            mine++;
        if (c->address && s->address == c->address)
            address++;
    }
    if (l->seek_count >= SEEKS_MAX) {
        reply_error(c, "lobby-full", "the lobby holds its %d seeks; try again later", SEEKS_MAX);
        return true;
    }
    if (mine >= SEEKS_PER_OWNER || address >= SEEKS_PER_ADDRESS) {
        reply_error(c, "too-many-seeks",
                    "%d open seeks per player (%d per address): unseek one first",
                    SEEKS_PER_OWNER, SEEKS_PER_ADDRESS);
        return true;
    }
    return false;
}

/* seek SPEC clock=M+S rated|casual [range=MIN-MAX], and challenge NAME SPEC clock=M+S
 * rated|casual: w points at SPEC, n words from there. */
static void cmd_seek(struct server *sv, struct client *c, char **w, size_t n,
                     const struct stored_account *target)
{
    struct seek s = {.owner_serial = c->serial, .created = sv->now, .address = c->address};
    const char *usage = target ? "challenge NAME SPEC clock=M+S rated|casual"
                               : "seek SPEC clock=M+S rated|casual [range=MIN-MAX]";
    if (n < 3 || n > (target ? 3u : 4u)) {
        reply_error(c, "usage", "%s", usage);
        return;
    }
    if (!parse_clock(w[1], &s.clock)) {
        reply_error(c, "bad-option",
                    "a seek's time control is clock=M+S: minutes (up to 1440) and an increment "
                    "in seconds (up to 3600), e.g. clock=5+3");
        return;
    }
    if (strcmp(w[2], "rated") != 0 && strcmp(w[2], "casual") != 0) {
        reply_error(c, "bad-option", "a seek is rated or casual: %s", usage);
        return;
    }
    s.rated = strcmp(w[2], "rated") == 0;
    if (n == 4 && !parse_range(w[3], &s.min, &s.max)) {
        reply_error(c, "bad-option",
                    "a rating range is range=MIN-MAX, from 0 to %d, MIN not above MAX",
                    RANGE_MAX);
        return;
    }
    if (n == 4 && !s.rated) {
        reply_error(c, "bad-option", "a rating range is for rated seeks");
        return;
    }
    s.owner_account = signed_in_account(sv, c);
    if ((s.rated || target) && !s.owner_account) {
        reply_error(c, "not-signed-in",
                    "rated seeks and challenges are for signed-in players (guests may seek "
                    "casual games)");
        return;
    }
    if (target && target->id == s.owner_account) {
        reply_error(c, "own-seek", "a challenge is to another player");
        return;
    }
    struct rules_entry *rules = rules_for_new_match(sv, c, w[0]);
    if (!rules)
        return;
    s.spec = strdup(tg_rules_spec(rules->rules));
    const char *game = tg_rules_game_id(rules->rules);
    char game_copy[RATED_GAME_MAX];
    snprintf(game_copy, sizeof game_copy, "%s", game ? game : "");
    rules_release(sv, rules);
    struct lobby *l = lobby_of(sv);
    struct seek *grown = l ? array_reserve(l->seeks, &l->seek_cap, l->seek_count + 1,
                                           sizeof *grown, 16)
                           : NULL;
    if (!s.spec || !grown) {
        free(s.spec);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    l->seeks = grown;
    if (owns_too_many(sv, c)) {
        free(s.spec);
        return;
    }
    snprintf(s.clock_text, sizeof s.clock_text, "%s", w[1] + 6);
    snprintf(s.owner_name, sizeof s.owner_name, "%s", s.owner_account ? c->account_name : "guest");
    if (target) {
        s.target_account = target->id;
        snprintf(s.target_name, sizeof s.target_name, "%s", target->name);
    }
    if (s.owner_account) {
        struct stored_rating r;
        if (!rating_of(sv, s.owner_account, game_copy, clock_category(&s.clock), &r)) {
            free(s.spec);
            reply_error(c, "io", "the ratings could not be read (%s)", store_error(sv->store));
            return;
        }
        struct glicko2_rating g = {r.rating, r.rd, r.volatility};
        s.rating = r.rating;
        s.provisional = glicko2_is_provisional(&g);
    }
    s.id = ++l->next_id;
    l->seeks[l->seek_count++] = s;
    buf_printf(&c->out, "ok %" PRIu64 "\n", s.id);
    push_seek(sv, &s);
}

static void cmd_challenge(struct server *sv, struct client *c, char **w, size_t n)
{
    char folded[ACCOUNT_NAME_MAX + 1];
    struct stored_account target;
    if (n < 2 || !account_name_fold(w[1], folded)) {
        reply_error(c, "bad-name", "a name is 3 to 20 letters (a-z, A-Z), digits, '_' or '-'");
        return;
    }
    switch (store_find_account(sv->store, folded, &target)) {
    case ACCOUNT_OK:
        break;
    case ACCOUNT_NOT_FOUND:
        reply_error(c, "no-such-player", "nobody has that name");
        return;
    default:
        reply_error(c, "io", "the accounts could not be read (%s)", store_error(sv->store));
        return;
    }
    cmd_seek(sv, c, w + 2, n - 2, &target);
}

/* ---- taking a seek ------------------------------------------------------------------------- */

static struct seek *find_seek(struct server *sv, struct client *c, const char *id_text,
                              size_t *index)
{
    uint64_t id;
    struct lobby *l = sv->lobby;
    if (!parse_u64(id_text, &id)) {
        reply_error(c, "usage", "a seek's id is a number");
        return NULL;
    }
    for (size_t i = 0; l && i < l->seek_count; i++)
        if (l->seeks[i].id == id && sees(c, &l->seeks[i]) &&
            client_by_serial(sv, l->seeks[i].owner_serial)) {
            *index = i;
            return &l->seeks[i];
        }
    reply_error(c, "no-such-seek", "no seek %s: it was taken, withdrawn, or never was", id_text);
    return NULL;
}

static bool own_seek(const struct client *c, const struct seek *s)
{
    return s->owner_serial == c->serial || (c->account_id && c->account_id == s->owner_account);
}

static void cmd_accept_seek(struct server *sv, struct client *c, const char *id_text)
{
    size_t index;
    uint64_t taker = signed_in_account(sv, c);
    struct seek *s = find_seek(sv, c, id_text, &index);
    if (!s)
        return;
    if (own_seek(c, s)) {
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
        if (!rating_of(sv, taker, tg_rules_game_id(rules->rules), clock_category(&s->clock),
                       &r)) {
            rules_release(sv, rules);
            reply_error(c, "io", "the ratings could not be read (%s)", store_error(sv->store));
            return;
        }
        if (r.rating < s->min || r.rating > s->max) {
            rules_release(sv, rules);
            reply_error(c, "out-of-range", "your rating %.0f is outside the seek's %d-%d",
                        r.rating, s->min, s->max);
            return;
        }
    }
    unsigned char coin;
    if (!os_random(&coin, 1)) {
        rules_release(sv, rules);
        reply_status(c, TG_ERR_INVALID_ARGUMENT);
        return;
    }
    struct change *ch = new_match_change(sv, c, rules, &s->clock, -1, NULL);
    if (!ch)
        return;
    struct match *m = ch->match;
    int owner_seat = coin & 1;
    ch->account_id = 0; /* both seats' accounts are ratings_stage_new's */
    ch->seat_accounts[owner_seat] = s->owner_account;
    ch->seat_accounts[1 - owner_seat] = taker;
    ch->rated = s->rated;
    ch->seek_id = s->id;
    ch->seek_owner_serial = s->owner_serial;
    ch->seek_owner_seat = owner_seat;
    /* Taken here, before the match is stored: a second taker finds it gone. */
    seek_remove(sv, index, "taken", c);
    c->awaiting = true;
    stage(sv, ch);
    if (sv->change_count && &sv->changes[sv->change_count - 1] == ch)
        buf_printf(&ch->reply, "ok %" PRIu64 " %d %s\n", m->id, 1 - owner_seat,
                   m->tokens[1 - owner_seat]);
}

static void cmd_decline_seek(struct server *sv, struct client *c, const char *id_text)
{
    size_t index;
    struct seek *s = find_seek(sv, c, id_text, &index);
    if (!s)
        return;
    if (!s->target_account || c->account_id != s->target_account) {
        reply_error(c, "not-yours", "only the player challenged declines a challenge");
        return;
    }
    seek_remove(sv, index, "declined", c);
    buf_printf(&c->out, "ok\n");
}

static void cmd_unseek(struct server *sv, struct client *c, char **w, size_t n)
{
    struct lobby *l = sv->lobby;
    uint64_t id = 0;
    if (n == 2 && !parse_u64(w[1], &id)) {
        reply_error(c, "usage", "unseek [ID]");
        return;
    }
    size_t removed = 0;
    for (size_t i = 0; l && i < l->seek_count;) {
        const struct seek *s = &l->seeks[i];
        if (s->owner_serial == c->serial && (!id || s->id == id)) {
            seek_remove(sv, i, "withdrawn", c);
            removed++;
        } else {
            i++;
        }
    }
    if (id && !removed)
        reply_error(c, "no-such-seek", "no seek %" PRIu64 " of this connection", id);
    else
        buf_printf(&c->out, "ok %zu\n", removed);
}

static void cmd_subscribe(struct server *sv, struct client *c)
{
    struct lobby *l = sv->lobby;
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

/* ---- matches started and ended --------------------------------------------------------------- */

static void name_of(struct server *sv, uint64_t account_id, char out[ACCOUNT_NAME_MAX + 1])
{
    snprintf(out, ACCOUNT_NAME_MAX + 1, "guest");
    for (size_t i = 0; account_id && i < sv->client_count; i++)
        if (sv->clients[i]->account_id == account_id) {
            snprintf(out, ACCOUNT_NAME_MAX + 1, "%s", sv->clients[i]->account_name);
            return;
        }
}

static void match_started(struct server *sv, const struct change *ch)
{
    const struct match *m = ch->match;
    struct client *owner = client_by_serial(sv, ch->seek_owner_serial);
    int seat = ch->seek_owner_seat;
    if (owner) {
        char told[128];
        int len = snprintf(told, sizeof told, "lobby matched %" PRIu64 " %" PRIu64 " %d %s\n",
                           ch->seek_id, m->id, seat, m->tokens[seat]);
        push_to(sv, owner, told, (size_t)len);
    }
    struct lobby *l = sv->lobby;
    char names[2][ACCOUNT_NAME_MAX + 1];
    name_of(sv, ch->seat_accounts[0], names[0]);
    name_of(sv, ch->seat_accounts[1], names[1]);
    struct buf line = {0};
    buf_printf(&line, "lobby live %" PRIu64 " %s clock=%g+%g %s %s %s", m->id,
               tg_rules_spec(m->rules->rules), (double)m->clock.kept.base_ms / 60000.0,
               (double)m->clock.kept.increment_ms / 1000.0, ch->rated ? "rated" : "casual",
               names[0], names[1]);
    struct live_match *grown =
        l && l->live_count < LIVE_SHOWN_MAX
            ? array_reserve(l->live, &l->live_cap, l->live_count + 1, sizeof *grown, 16)
            : NULL;
    if (grown)
        l->live = grown;
    if (line.data && grown && buf_printf(&line, "\n")) {
        push_all(sv, line.data, line.len);
        line.data[--line.len] = '\0'; /* kept without its newline, for `lobby` */
        l->live[l->live_count++] = (struct live_match){m->id, line.data};
    } else {
        free(line.data);
    }
}

void lobby_committed(struct server *sv, const struct change *ch)
{
    struct lobby *l = sv->lobby;
    if (ch->kind == CH_NEW && ch->seek_id)
        match_started(sv, ch);
    if (!l || !match_over(ch->match))
        return;
    for (size_t i = 0; i < l->live_count; i++)
        if (l->live[i].id == ch->match->id) {
            char line[96];
            int len = snprintf(line, sizeof line, "lobby ended %" PRIu64 " %s\n", ch->match->id,
                               result_word(ch->match));
            free(l->live[i].line);
            l->live[i] = l->live[--l->live_count];
            push_all(sv, line, (size_t)len);
            return;
        }
}

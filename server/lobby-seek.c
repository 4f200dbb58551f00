/* The lobby's commands (docs/server.md, "Lobby"): seek and challenge, which make a seek,
 * accept-seek, which makes its match with both seats assigned, decline-seek and unseek, which
 * withdraw seeks, and `lobby`, which subscribes to the feed (lobby.c); on a shared database
 * a seek's writes are the database threads' (lobby-write.c). */
#define _POSIX_C_SOURCE 200809L

#include "lobby-private.h"
#include "glicko2.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SEEKS_PER_OWNER 3    /* open seeks and challenges per connection, and per account */
#define SEEKS_PER_ADDRESS 10 /* and per address (a browser's: its relayed address) */
#define SEEKS_MAX 1000       /* on this server, all together */
#define RANGE_MAX 9999       /* the largest rating a range may name */

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
    if (!l->feed)
        s->id = ++l->next_id;
    /* On a shared database the seek is held here, counted against the budgets, while a
     * database thread stores it (seek_stored). */
    k.storing = l->feed != NULL;
    if (!seek_add(sv, &k)) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    if (!l->feed) {
        buf_printf(&c->out, "ok %" PRIu64 "\n", s->id);
        push_seek(sv, &k);
        return;
    }
    write_seek_to_site(sv, c, s);
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
    /* Being withdrawn or taken: held until that is done, and open again if it fails. */
    const char *held = k && k->withdrawing ? "withdrawn" : k && k->taking ? "taken" : NULL;
    if (held && sees(c, k)) {
        reply_error(c, "busy", "seek %s is being %s; if that fails it stays open: try again",
                    id_text, held);
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
        seek_remove(sv, index, "taken", client_by_serial(sv, ch->client_serial));
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
    withdraw_seeks(sv, c, LOBBY_DECLINE, &k->s.id, 1, k->s.id, "declined");
}

static void cmd_unseek(struct server *sv, struct client *c, char **w, size_t n)
{
    struct lobby *l = sv->lobby;
    uint64_t id = 0;
    if (n == 2 && !parse_u64(w[1], &id)) {
        reply_error(c, "usage", "unseek [ID]");
        return;
    }
    /* A seek being taken is not withdrawn: its match is being stored (lobby_seek_settled);
     * nor is one the sweep is withdrawing already. */
    uint64_t mine[DB_PASS_IDS_MAX];
    size_t count = 0, taking = 0, withdrawing = 0;
    for (size_t i = 0; l && i < l->seek_count; i++) {
        const struct seek *k = &l->seeks[i];
        bool named =
            k->local && !k->storing && k->s.owner_serial == c->serial && (!id || k->s.id == id);
        taking += named && k->taking;
        withdrawing += named && k->withdrawing;
        if (named && !k->taking && !k->withdrawing && count < DB_PASS_IDS_MAX)
            mine[count++] = k->s.id;
    }
    if (id && taking) {
        reply_error(c, "busy", "seek %" PRIu64 " is being taken; if that fails it stays open", id);
        return;
    }
    if (id && withdrawing) {
        reply_error(c, "busy", "seek %" PRIu64 " is being withdrawn; try again", id);
        return;
    }
    if (id && !count) {
        reply_error(c, "no-such-seek", "no seek %" PRIu64 " of this connection", id);
        return;
    }
    if (!count) {
        buf_printf(&c->out, "ok 0\n");
        return;
    }
    withdraw_seeks(sv, c, LOBBY_UNSEEK, mine, count, id, "withdrawn");
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

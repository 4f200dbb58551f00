/* The lobby (docs/server.md, "Lobby"): seeks (a game, a clock, rated or casual, a rating
 * range), direct challenges (a seek only one named player may take), their acceptance, which
 * makes the match with both seats assigned, and the lobby's feed: the seeks and the live
 * matches it started, then every change of them pushed to the connections that asked with
 * `lobby`. Seeks go with their owner's connection, after --seek-lifetime, or when taken. On
 * SQLite they are this server's memory; on PostgreSQL the site's (store-pg-lobby.c): each
 * server mirrors the seeks table, told of every change on the lobby's channel, and taking a
 * seek deletes its row in the match's own change, so that one seek makes one match
 * site-wide. There the lobby's writes are the database threads' (below, "the site's writes"). */
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

/* Takes seek i out of this server's list, telling those who saw it; on a shared database its
 * row is already gone (withdraw_seeks, or another server's notice). */
static void seek_remove(struct server *sv, size_t i, const char *why, const struct client *actor)
{
    struct lobby *l = sv->lobby;
    struct seek gone = l->seeks[i];
    l->seeks[i] = l->seeks[--l->seek_count];
    push_gone(sv, &gone, why, actor);
}

/* A seek of the site (one being stored has no id yet, and is nobody's to see). */
static struct seek *seek_by_id(struct lobby *l, uint64_t id, size_t *index)
{
    for (size_t i = 0; l && i < l->seek_count; i++)
        if (l->seeks[i].s.id == id && !l->seeks[i].storing) {
            *index = i;
            return &l->seeks[i];
        }
    return NULL;
}

/* ---- the site's writes, on the database threads ---------------------------------------------- */

/* On a shared database every write of the lobby (a seek stored, seeks withdrawn, the sweeps)
 * is a job of the database threads (db-pool.c), never the loop's: a row held by another
 * session, or a slow database, then holds that job and its client, not everyone. A client's
 * command is answered once its write is done, as the account writes are. */
enum lobby_op { LOBBY_ADD, LOBBY_UNSEEK, LOBBY_DECLINE, LOBBY_SWEEP, LOBBY_SITE_SWEEP };

struct lobby_task {
    enum lobby_op op;
    bool done;               /* the statement ran */
    bool lock_wait;          /* it did not: a lock held past lock_timeout (a table's, whole) */
    struct stored_seek seek; /* LOBBY_ADD: the seek to store, its id given */
    char instance[TOKEN_HEX_LEN + 1];
    char why[16];   /* the word the site is told: withdrawn, declined, owner-gone, expired */
    uint64_t named; /* LOBBY_UNSEEK: the seek named (0: all of the connection's) */
    uint64_t ids[DB_PASS_IDS_MAX];
    size_t count;
    enum seek_removal outcome[DB_PASS_IDS_MAX];
    double lifetime; /* LOBBY_SITE_SWEEP: --seek-lifetime */
};

static void lobby_on_db_thread(struct job *j, struct store *st)
{
    struct lobby_task *t = j->seek_task;
    switch (t->op) {
    case LOBBY_ADD:
        t->done = store_add_seek(st, &t->seek);
        break;
    case LOBBY_SITE_SWEEP:
        /* The seeks of servers that died, and any past its time: every server sweeps the
         * site's, and is told of what it swept like the others ("-" is nobody's name). */
        t->done = store_sweep_seeks(st, "-", t->lifetime, SERVER_GONE_SECONDS);
        break;
    default:
        t->done = store_remove_seeks(st, t->instance, t->ids, t->count, t->why, t->outcome);
    }
    t->lock_wait = !t->done && store_last_was_lock_wait(st);
}

/* A write refused: held by another session's lock (a row's is skipped, so a table's: a
 * migration, an operator's LOCK TABLE), which goes, or the database failing. */
static void reply_not_written(struct client *c, const struct lobby_task *t, const char *what)
{
    if (t->lock_wait)
        reply_error(c, "busy",
                    "the site's seeks are locked by another session; nothing changed: try again");
    else
        reply_error(c, "io", "%s; nothing changed", what);
}

/* Hands t to a database thread, for c (NULL: the server's own pass); the job owns t from
 * here, and false (t freed) if it could not be queued (c told why). */
static bool submit_lobby_task(struct server *sv, struct client *c, struct lobby_task *t,
                              void (*done)(struct server *, struct job *))
{
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        free(t);
        if (c)
            reply_status(c, TG_ERR_NO_MEMORY);
        return false;
    }
    j->client_serial = c ? c->serial : 0;
    j->seek_task = t;
    j->db_work = lobby_on_db_thread;
    j->db_done = done;
    if (!db_submit(sv, c, j)) {
        job_free(j);
        return false;
    }
    if (c)
        c->awaiting = true;
    return true;
}

/* The client's command answered once its seeks' rows are deleted (or found held). */
static void answer_withdrawal(struct client *c, const struct lobby_task *t, size_t removed,
                              size_t held)
{
    c->awaiting = false;
    uint64_t id = t->count ? t->ids[0] : 0;
    if (!t->done)
        reply_not_written(c, t, "the site's seeks could not be written");
    else if ((t->op == LOBBY_DECLINE || t->named) && held)
        reply_error(c, "busy",
                    "seek %" PRIu64 " is being taken through another server; if that fails it "
                    "stays open: try again",
                    id);
    else if (t->op == LOBBY_DECLINE && !removed)
        reply_error(c, "no-such-seek", "no seek %" PRIu64 ": it was taken, withdrawn, or never was",
                    id);
    else if (t->named && !removed)
        reply_error(c, "no-such-seek", "no seek %" PRIu64 " of this connection", id);
    else if (t->op == LOBBY_DECLINE)
        buf_printf(&c->out, "ok\n");
    else
        buf_printf(&c->out, "ok %zu\n", removed);
}

/* Back on the loop: the seeks whose rows went leave this server's list; a held one stays (the
 * server taking it settles it); one found gone was taken or swept through another server,
 * whose notice takes it away here, but for the sweep's, which no notice may follow. */
static void seeks_withdrawn(struct server *sv, struct job *j)
{
    const struct lobby_task *t = j->seek_task;
    struct client *c = t->op == LOBBY_SWEEP ? NULL : client_by_serial(sv, j->client_serial);
    size_t removed = 0, held = 0;
    for (size_t i = 0; sv->lobby && i < t->count; i++) {
        size_t index;
        struct seek *k = seek_by_id(sv->lobby, t->ids[i], &index);
        if (k)
            k->withdrawing = false;
        if (!t->done)
            continue;
        removed += t->outcome[i] == SEEK_REMOVED;
        held += t->outcome[i] == SEEK_HELD;
        if (k && (t->outcome[i] == SEEK_REMOVED ||
                  (t->outcome[i] == SEEK_ABSENT && t->op == LOBBY_SWEEP)))
            seek_remove(sv, index, t->why, c);
    }
    if (c)
        answer_withdrawal(c, t, removed, held);
}

/* Withdraws the seeks ids[0..count) (at most DB_PASS_IDS_MAX) of this server's list: on a
 * shared database their rows are deleted on a database thread and c answered then; else at
 * once. false if the job could not be queued (c told why). */
static bool withdraw_seeks(struct server *sv, struct client *c, enum lobby_op op,
                           const uint64_t *ids, size_t count, uint64_t named, const char *why)
{
    struct lobby *l = sv->lobby;
    if (!l->feed) {
        size_t removed = 0;
        for (size_t i = 0, index; i < count; i++)
            if (seek_by_id(l, ids[i], &index)) {
                seek_remove(sv, index, why, c);
                removed++;
            }
        if (c) {
            struct lobby_task answer = {.op = op, .done = true, .named = named, .count = count};
            memcpy(answer.ids, ids, count * sizeof *ids);
            answer_withdrawal(c, &answer, removed, 0);
        }
        return true;
    }
    struct lobby_task *t = calloc(1, sizeof *t);
    if (!t) {
        if (c)
            reply_status(c, TG_ERR_NO_MEMORY);
        return false;
    }
    t->op = op;
    t->named = named;
    t->count = count;
    memcpy(t->ids, ids, count * sizeof *ids);
    snprintf(t->why, sizeof t->why, "%s", why);
    snprintf(t->instance, sizeof t->instance, "%s", store_owner(sv->store));
    if (!submit_lobby_task(sv, c, t, seeks_withdrawn))
        return false;
    for (size_t i = 0, index; i < count; i++)
        if (seek_by_id(l, ids[i], &index))
            l->seeks[index].withdrawing = true;
    return true;
}

static void site_swept(struct server *sv, struct job *j)
{
    (void)j;
    if (sv->lobby)
        sv->lobby->site_sweeping = false;
}

/* The local seeks whose owner went, or whose time is up, as many as one job takes. */
static void sweep_local(struct server *sv, bool owner_gone)
{
    struct lobby *l = sv->lobby;
    uint64_t ids[DB_PASS_IDS_MAX];
    size_t count = 0;
    for (size_t i = 0; i < l->seek_count && count < DB_PASS_IDS_MAX; i++) {
        const struct seek *s = &l->seeks[i];
        /* A seek being taken is settled with its match (lobby_seek_settled); one being stored
         * or withdrawn, when its job is done. */
        if (!s->local || s->taking || s->storing || s->withdrawing)
            continue;
        bool gone = !client_by_serial(sv, s->s.owner_serial);
        if (owner_gone ? gone : (!gone && sv->now - s->created >= sv->opt.seek_lifetime))
            ids[count++] = s->s.id;
    }
    if (count)
        withdraw_seeks(sv, NULL, LOBBY_SWEEP, ids, count, 0, owner_gone ? "owner-gone" : "expired");
}

void lobby_sweep(struct server *sv)
{
    struct lobby *l = sv->lobby;
    if (!l)
        return;
    sweep_local(sv, true);
    sweep_local(sv, false);
    if (l->feed && !l->site_sweeping && sv->now >= l->next_site_sweep) {
        struct lobby_task *t = calloc(1, sizeof *t);
        if (!t)
            return;
        t->op = LOBBY_SITE_SWEEP;
        t->lifetime = sv->opt.seek_lifetime;
        l->site_sweeping = submit_lobby_task(sv, NULL, t, site_swept);
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

/* The seek of connection serial being stored, its index, or false. */
static bool seek_being_stored(struct lobby *l, uint64_t serial, size_t *index)
{
    for (size_t i = 0; i < l->seek_count; i++)
        if (l->seeks[i].storing && l->seeks[i].s.owner_serial == serial) {
            *index = i;
            return true;
        }
    return false;
}

static void forget_stored_seek(struct lobby *l, uint64_t serial)
{
    size_t index;
    if (seek_being_stored(l, serial, &index))
        l->seeks[index] = l->seeks[--l->seek_count];
}

/* Back on the loop from storing a seek: its owner is answered with its id and the lobby shown
 * it; if the owner went meanwhile, it is kept, and the sweep withdraws it (owner-gone). */
static void seek_stored(struct server *sv, struct job *j)
{
    struct lobby *l = sv->lobby;
    const struct lobby_task *t = j->seek_task;
    struct client *c = client_by_serial(sv, j->client_serial);
    size_t index, copy_index;
    if (c)
        c->awaiting = false;
    if (!l || !seek_being_stored(l, j->client_serial, &index))
        return;
    if (!t->done) {
        l->seeks[index] = l->seeks[--l->seek_count];
        if (c)
            reply_not_written(c, t, "the seek could not be stored");
        return;
    }
    /* A taker here may have read the stored row meanwhile (find_seek), which made it a
     * mirrored copy already shown to the lobby: the copy gives way to the owner's own. */
    struct seek *copy = seek_by_id(l, t->seek.id, &copy_index);
    bool shown = copy != NULL, taking = copy && copy->taking;
    if (copy) {
        l->seeks[copy_index] = l->seeks[--l->seek_count];
        seek_being_stored(l, j->client_serial, &index);
    }
    struct seek *k = &l->seeks[index];
    k->s.id = t->seek.id;
    k->storing = false;
    k->taking = taking;
    if (c)
        buf_printf(&c->out, "ok %" PRIu64 "\n", k->s.id);
    if (!shown)
        push_seek(sv, k);
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
    struct lobby_task *t = calloc(1, sizeof *t);
    if (t) {
        t->op = LOBBY_ADD;
        t->seek = *s;
    } else {
        reply_status(c, TG_ERR_NO_MEMORY);
    }
    if (!t || !submit_lobby_task(sv, c, t, seek_stored))
        forget_stored_seek(l, c->serial);
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
    if (k && k->withdrawing && sees(c, k)) {
        reply_error(c, "busy", "seek %s is being withdrawn; if that fails it stays open: try again",
                    id_text);
        return NULL;
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

static void cmd_subscribe(struct server *sv, struct client *c)
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

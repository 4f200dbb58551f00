/* Loaded matches: the shared rule sets, the table by id, the plies' names, seats, what may be
 * unloaded, and the set-aside (damaged) matches. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shared rule set of a spec, made on first use; NULL and *st set on a bad spec. */
struct rules_entry *rules_acquire(struct server *sv, const char *spec, tg_status *st)
{
    tg_rules *r = NULL;
    *st = tg_rules_new(spec, &r);
    if (*st != TG_OK)
        return NULL;
    for (size_t i = 0; i < sv->rules_count; i++)
        if (strcmp(tg_rules_spec(sv->rules[i]->rules), tg_rules_spec(r)) == 0) {
            tg_rules_free(r);
            sv->rules[i]->users++;
            return sv->rules[i];
        }
    struct rules_entry *e = malloc(sizeof *e);
    struct rules_entry **grown =
        e ? realloc(sv->rules, (sv->rules_count + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(e);
        tg_rules_free(r);
        *st = TG_ERR_NO_MEMORY;
        return NULL;
    }
    sv->rules = grown;
    e->rules = r;
    e->users = 1;
    sv->rules[sv->rules_count++] = e;
    return e;
}

void rules_release(struct server *sv, struct rules_entry *e)
{
    if (!e || --e->users > 0)
        return;
    for (size_t i = 0; i < sv->rules_count; i++)
        if (sv->rules[i] == e) {
            sv->rules[i] = sv->rules[--sv->rules_count];
            break;
        }
    tg_rules_free(e->rules);
    free(e);
}

/* ---- loaded matches: a hash table by id ---------------------------------------------- */

static size_t bucket_of(const struct server *sv, uint64_t id)
{
    return (size_t)((id * 0x9E3779B97F4A7C15u) >> 20) & (sv->bucket_count - 1);
}

struct match *loaded_match(struct server *sv, uint64_t id)
{
    if (!sv->bucket_count)
        return NULL;
    for (struct match *m = sv->buckets[bucket_of(sv, id)]; m; m = m->next_in_bucket)
        if (m->id == id)
            return m;
    return NULL;
}

bool table_insert(struct server *sv, struct match *m)
{
    if (sv->loaded_count + 1 > sv->bucket_count) {
        size_t count = sv->bucket_count ? sv->bucket_count * 2 : 256;
        struct match **fresh = calloc(count, sizeof *fresh);
        if (!fresh)
            return false;
        struct match **old = sv->buckets;
        size_t old_count = sv->bucket_count;
        sv->buckets = fresh;
        sv->bucket_count = count;
        for (size_t i = 0; i < old_count; i++)
            for (struct match *e = old[i], *next; e; e = next) {
                next = e->next_in_bucket;
                size_t b = bucket_of(sv, e->id);
                e->next_in_bucket = fresh[b];
                fresh[b] = e;
            }
        free(old);
    }
    size_t b = bucket_of(sv, m->id);
    m->next_in_bucket = sv->buckets[b];
    sv->buckets[b] = m;
    sv->loaded_count++;
    match_touch(sv, m);
    return true;
}

void table_remove(struct server *sv, struct match *m)
{
    for (struct match **p = &sv->buckets[bucket_of(sv, m->id)]; *p; p = &(*p)->next_in_bucket)
        if (*p == m) {
            *p = m->next_in_bucket;
            sv->loaded_count--;
            lru_unlink(sv, m);
            return;
        }
}

/* ---- which loaded matches may be unloaded --------------------------------------------- */

void lru_unlink(struct server *sv, struct match *m)
{
    struct match **head = m->pinned ? &sv->pinned_head : &sv->lru_head;
    if (m->lru_prev)
        m->lru_prev->lru_next = m->lru_next;
    else if (*head == m)
        *head = m->lru_next;
    else
        return; /* on neither list */
    if (m->lru_next)
        m->lru_next->lru_prev = m->lru_prev;
    else if (!m->pinned)
        sv->lru_tail = m->lru_prev;
    m->lru_prev = m->lru_next = NULL;
}

/* Files the match on the list its state calls for: unloadable ones at the recent end of the
 * LRU list, the others (loading, busy, watched, clock running, undo asked) as pinned. */
static void lru_place(struct server *sv, struct match *m)
{
    lru_unlink(sv, m);
    m->pinned = !evictable(m);
    if (m->pinned) {
        m->lru_next = sv->pinned_head;
        if (sv->pinned_head)
            sv->pinned_head->lru_prev = m;
        sv->pinned_head = m;
        return;
    }
    m->lru_prev = sv->lru_tail;
    if (sv->lru_tail)
        sv->lru_tail->lru_next = m;
    else
        sv->lru_head = m;
    sv->lru_tail = m;
}

void match_touch(struct server *sv, struct match *m)
{
    m->last_used = sv->now;
    lru_place(sv, m);
}

/* Unloads the idle matches unused for --unload-after, oldest first, lets unanswered undo
 * requests lapse, and moves the pinned matches that were let go back to the LRU list. Once a
 * second: the pinned sweep is the only walk over many matches, and it never runs on a client's
 * request. */
#define EXPIRY_IDS_PER_PASS 1000 /* ids looked at a second: a bounded query, however many */
#define EXPIRY_MAX_PER_PASS 64

_Static_assert(EXPIRY_MAX_PER_PASS <= DB_PASS_IDS_MAX, "a pass's ids fit in its job");

/* Ends one expired match that is not loaded, in the store: false if the store failed. */
static bool end_unloaded(struct server *sv, struct store *st, uint64_t id)
{
    bool ended;
    if (!store_expire_match(st, id, sv->opt.join_timeout, sv->opt.abandon_after, &ended))
        return false;
    if (ended && sv->live_count)
        sv->live_count--;
    return true;
}

/* On a shared database the ends of the unloaded ones are written on a database thread: a
 * statement that meets another session's lock (up to lock_timeout each) or a slow database
 * holds that thread, never the loop. The options read there are set once at start-up. */
static void end_unloaded_on_db_thread(struct job *j, struct store *st)
{
    for (size_t i = 0; i < j->pass_id_count; i++) {
        bool ended;
        if (!store_expire_match(st, j->pass_ids[i], j->expire_join_timeout,
                                j->expire_abandon_after, &ended))
            return; /* the rest are looked at again by a later pass */
        if (ended)
            j->pass_ended++;
    }
}

static void unloaded_ended(struct server *sv, struct job *j)
{
    sv->expiry_running = false;
    sv->live_count = sv->live_count > j->pass_ended ? sv->live_count - j->pass_ended : 0;
}

static void submit_unloaded(struct server *sv, struct job *j)
{
    j->db_work = end_unloaded_on_db_thread;
    j->db_done = unloaded_ended;
    j->expire_join_timeout = sv->opt.join_timeout;
    j->expire_abandon_after = sv->opt.abandon_after;
    if (!db_submit(sv, NULL, j)) {
        job_free(j); /* the queue is full: a later pass looks again */
        return;
    }
    sv->expiry_running = true;
}

void expire_unplayed_matches(struct server *sv)
{
    uint64_t ids[EXPIRY_MAX_PER_PASS];
    size_t n;
    bool more;
    lobby_sweep(sv); /* the loop's once-a-second pass: the lobby's old seeks go with it */
    load_overdue_matches(sv);
    /* While the last pass's ends are still on a database thread, this one waits: it would
     * find the same matches. */
    if (sv->halted || sv->expiry_running || store_in_transaction(sv->store) ||
        !store_expired_matches(sv->store, sv->expiry_cursor, EXPIRY_IDS_PER_PASS,
                               sv->opt.join_timeout, sv->opt.abandon_after, ids,
                               EXPIRY_MAX_PER_PASS, &n, &more))
        return;
    struct job *unloaded = NULL;
    if (sv->db_pool && !(unloaded = calloc(1, sizeof *unloaded)))
        return;
    /* Past the last id, the next pass starts again from the first. */
    sv->expiry_cursor =
        n == EXPIRY_MAX_PER_PASS ? ids[n - 1] : more ? sv->expiry_cursor + EXPIRY_IDS_PER_PASS : 0;
    for (size_t i = 0; i < n; i++) {
        struct match *m = loaded_match(sv, ids[i]);
        if (m) {
            /* Loaded: ended through the round like any change, told to its watchers. */
            if (m->loading || m->busy || match_over(m))
                continue;
            struct change *ch = change_new(sv, CH_ABORT, m, 0);
            if (!ch) {
                job_free(unloaded);
                return;
            }
            ch->seat = -1;
            m->busy = true;
            stage(sv, ch);
            continue;
        }
        if (find_set_aside(sv, ids[i]))
            continue;
        if (unloaded)
            unloaded->pass_ids[unloaded->pass_id_count++] = ids[i];
        else if (!end_unloaded(sv, sv->store, ids[i]))
            return;
    }
    if (unloaded && unloaded->pass_id_count)
        submit_unloaded(sv, unloaded);
    else
        job_free(unloaded);
}

void unload_idle_matches(struct server *sv)
{
    for (struct match *m = sv->pinned_head, *next; m; m = next) {
        next = m->lru_next;
        /* Unanswered: the request lapses, as if the other seat had declined it (stored). */
        if (m->undo_requested_by >= 0 && sv->now - m->undo_requested_at > sv->opt.undo_timeout)
            undo_lapse(sv, m);
        if (evictable(m))
            lru_place(sv, m);
    }
    while (sv->lru_head && sv->now - sv->lru_head->last_used > sv->opt.unload_after) {
        struct match *m = sv->lru_head;
        if (!evictable(m)) {
            lru_place(sv, m);
            continue;
        }
        table_remove(sv, m);
        match_free(sv, m);
    }
}

void match_free(struct server *sv, struct match *m)
{
    if (!m)
        return;
    if (m->id)
        store_release(sv->store, m->id); /* another server may play it now */
    for (size_t i = 0; i < sv->clocked_count; i++)
        if (sv->clocked[i] == m) {
            sv->clocked[i] = sv->clocked[--sv->clocked_count];
            break;
        }
    lru_unlink(sv, m);
    tg_state_free(m->state);
    free(m->names.data);
    free(m->plies);
    free(m->kept_throws);
    rules_release(sv, m->rules);
    free(m);
}

bool match_over(const struct match *m)
{
    return m->resigned >= 0 || m->agreed || m->clock.kept.flagged >= 0 || m->aborted ||
           tg_state_is_terminal(m->state);
}

/* Each change of a match's plies gives it a new plies_version, never given before in this
 * process: a record made of one version (records.c) is never taken for another's. Only the
 * loop changes plies. */
static uint64_t plies_versions;

/* Appends plies to the match's names; false (and nothing appended) when memory runs out. */
bool note_plies(struct match *m, const struct stored_move *moves, size_t n)
{
    struct ply_note *grown =
        array_reserve(m->plies, &m->ply_cap, m->ply_count + n, sizeof *grown, 32);
    if (!grown)
        return false;
    m->plies = grown;
    size_t len = m->names.len;
    for (size_t i = 0; i < n; i++) {
        if (!buf_printf(&m->names, "%s ", moves[i].notation)) {
            m->names.len = len;
            return false;
        }
        m->plies[m->ply_count + i] = (struct ply_note){m->names.len, moves[i].seat};
    }
    m->ply_count += n;
    m->plies_version = ++plies_versions;
    return true;
}

void forget_plies(struct match *m, size_t keep)
{
    m->ply_count = keep;
    m->plies_version = ++plies_versions;
    m->names.len = keep ? m->plies[keep - 1].end : 0;
    if (m->names.data)
        m->names.data[m->names.len] = '\0';
}

/* The seat whose token this is, or -1. Every byte is compared, so the time taken does not
 * tell a guesser how much of a token was right. */
int seat_of(const struct match *m, const char *token)
{
    int seat = -1;
    size_t n = strlen(token);
    for (int s = 0; s < 2; s++) {
        unsigned char diff = n != TOKEN_HEX_LEN;
        for (size_t i = 0; i < TOKEN_HEX_LEN; i++)
            diff |= (unsigned char)(m->tokens[s][i] ^ (i < n ? token[i] : 0));
        if (!diff)
            seat = s;
    }
    return seat;
}

bool evictable(const struct match *m)
{
    /* A running clock is watched by the loop, and a watched match pushes its events; a
     * correspondence match lasts days, and its flag is found from the store (clock.c). */
    return !m->loading && !m->busy && m->undo_requested_by < 0 && !m->watchers &&
           !(m->clock.kept.on && !m->clock.kept.days && !match_over(m));
}

/* Makes room for one more loaded match, besides `coming` ones not in the table yet (new
 * matches being stored), by unloading the least recently used idle ones: a client reading
 * through every stored match must not bring them all into memory. The LRU list holds only
 * unloadable matches, so a refusal (all pinned) costs nothing. */
static bool room_besides(struct server *sv, uint64_t coming)
{
    while (sv->loaded_count + coming >= sv->opt.max_loaded) {
        struct match *m = sv->lru_head;
        if (!m)
            return false;
        if (!evictable(m)) { /* pinned since it was filed */
            lru_place(sv, m);
            continue;
        }
        table_remove(sv, m);
        match_free(sv, m);
    }
    return true;
}

bool room_to_load(struct server *sv)
{
    return room_besides(sv, 0);
}

bool room_to_load_besides(struct server *sv, uint64_t coming)
{
    return room_besides(sv, coming);
}

/* The three ways a match is created (new, rematch, an accepted seek) pass the same gate: the
 * match limit and room to load one more, each counting those staged but not yet stored (on
 * PostgreSQL they may wait on a round thread for a while, and a burst of them must not pass
 * either bound meanwhile). */
bool admit_new_match(struct server *sv, struct client *c)
{
    uint64_t staged = round_thread_news(sv);
    for (size_t i = 0; i < sv->change_count; i++)
        staged += sv->changes[i].kind == CH_NEW;
    if (!store_is_shared(sv->store) && sv->live_count + staged >= sv->opt.max_matches) {
        reply_error(c, "match-limit",
                    "this server has its limit of %" PRIu64 " matches being "
                    "played; one must end first",
                    sv->opt.max_matches);
        return false;
    }
    /* A shared database counts the site's live matches under its admission lock, on a round
     * thread (stage_rows). The ones this server is still making are not in that count until
     * they are stored: if they alone fill the limit, one more is refused here, at once. */
    if (store_is_shared(sv->store) && staged >= sv->opt.max_matches) {
        reply_error(c, "match-limit",
                    "the site has its limit of %" PRIu64 " matches being played or being "
                    "made; one must end first",
                    sv->opt.max_matches);
        return false;
    }
    if (!room_besides(sv, staged)) {
        reply_error(c, "overloaded", "every loaded match is in use; try again");
        return false;
    }
    return true;
}

struct change *new_match_change(struct server *sv, struct client *c, struct rules_entry *rules,
                                const struct stored_clock *clock, int invite_seat,
                                const char *invite)
{
    struct match *m = calloc(1, sizeof *m);
    struct change *ch = m ? change_new(sv, CH_NEW, m, c->serial) : NULL;
    if (!ch) {
        free(m);
        rules_release(sv, rules);
        reply_status(c, TG_ERR_NO_MEMORY);
        return NULL;
    }
    m->rules = rules;
    m->resigned = -1;
    m->undo_requested_by = -1;
    m->draw.by = -1;
    m->busy = true;
    m->clock.kept = *clock;
    m->clock.turn_began = sv->now;
    ch->clock = m->clock;
    m->invite_seat = invite_seat;
    ch->asker_seat = invite_seat < 0 ? 0 : 1 - invite_seat;
    ch->reply_with_invite = invite_seat >= 0 && !invite;
    m->creator_serial = c->serial;
    ch->account_id = signed_in_account(sv, c); /* its seat records the account */
    if (invite)
        memcpy(m->invite, invite, sizeof m->invite);
    tg_status st = tg_state_new(rules->rules, &ch->state);
    if (st != TG_OK || !new_token(m->tokens[0]) || !new_token(m->tokens[1]) ||
        (!invite && !new_token(m->invite))) {
        tg_state_free(ch->state);
        move_list_free(&ch->made);
        match_free(sv, m);
        reply_status(c, st != TG_OK ? st : TG_ERR_INVALID_ARGUMENT);
        return NULL;
    }
    return ch;
}

bool new_match_reply(struct change *ch)
{
    const struct match *m = ch->match;
    int seat = ch->asker_seat;
    ch->reply.len = 0;
    if (ch->reply_with_invite)
        return buf_printf(&ch->reply, "ok %" PRIu64 " %s %s\n", m->id, m->tokens[seat], m->invite);
    return buf_printf(&ch->reply, "ok %" PRIu64 " %d %s\n", m->id, seat, m->tokens[seat]);
}

/* ---- set-aside matches ------------------------------------------------------------- */

const struct set_aside_entry *find_set_aside(const struct server *sv, uint64_t id)
{
    for (size_t i = 0; i < sv->set_aside_count; i++)
        if (sv->set_aside[i].id == id)
            return &sv->set_aside[i];
    return NULL;
}

void remember_set_aside(struct server *sv, uint64_t id, const char *reason, bool written)
{
    if (find_set_aside(sv, id))
        return;
    struct set_aside_entry *grown = array_reserve(sv->set_aside, &sv->set_aside_cap,
                                                  sv->set_aside_count + 1, sizeof *grown, 16);
    if (!grown)
        return; /* the database row (if written) still keeps it from being served */
    sv->set_aside = grown;
    char *copy = strdup(reason);
    if (!copy)
        return;
    sv->set_aside[sv->set_aside_count++] = (struct set_aside_entry){id, copy, written};
    fprintf(stderr, "tg-server: match %" PRIu64 " set aside: %s\n", id, reason);
}

bool remember_set_aside_range(struct server *sv, uint64_t from, uint64_t to, const char *reason)
{
    for (uint64_t id = from; id <= to; id++) {
        struct set_aside_entry *grown = array_reserve(sv->set_aside, &sv->set_aside_cap,
                                                      sv->set_aside_count + 1, sizeof *grown, 16);
        char *copy = grown ? strdup(reason) : NULL;
        if (!copy)
            return false;
        sv->set_aside = grown;
        /* Not written: the start finds the damaged page again each time. */
        sv->set_aside[sv->set_aside_count++] = (struct set_aside_entry){id, copy, true};
    }
    return true;
}

void on_stored_set_aside(uint64_t id, const char *reason, void *ctx)
{
    struct server *sv = ctx;
    if (find_set_aside(sv, id))
        return;
    remember_set_aside(sv, id, reason, true);
}

/* Set-aside marks are written between rounds, each in its own transaction: a damaged page
 * that refuses the write must not sink the other clients' changes. */
void write_set_aside_marks(struct server *sv)
{
    for (size_t i = 0; i < sv->set_aside_count; i++) {
        struct set_aside_entry *e = &sv->set_aside[i];
        if (e->written)
            continue;
        /* One attempt only: a page that refused the write would refuse it every round, and
         * the mark in memory already keeps the match from being served. */
        store_set_aside(sv->store, e->id, e->reason);
        e->written = true;
    }
}

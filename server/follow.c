/* Several servers on one PostgreSQL database (docs/server.md, "Several servers"): following
 * the changes the others make (their NOTIFYs, and a poll of the versions so that a lost
 * notification loses nothing), renewing this server's leases, and taking over the matches
 * whose server stopped renewing its own. Nothing here runs on SQLite. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERSIONS_PER_QUERY 100
#define TAKE_OVER_PER_TICK 16
#define VERSION_POLL_SECONDS 1.0
/* How often a server writes its row of `instances` and reads the site's counts; a server whose
 * row is older than SITE_ALIVE_POLLS of these is not counted. */
#define SITE_POLL_SECONDS 2.0
#define SITE_ALIVE_POLLS 3

int follow_fd(const struct server *sv)
{
    return store_notify_fd(sv->store);
}

/* Whether ply i of the match is named `name`. */
static bool ply_named(const struct match *m, size_t i, const char *name)
{
    size_t start = i ? m->plies[i - 1].end : 0, len = m->plies[i].end - 1 - start;
    return strlen(name) == len && memcmp(m->names.data + start, name, len) == 0;
}

/* Replays the stored rows (j->stored) on the loop thread, as a load on a worker would. */
static bool replay(struct match *m, struct job *j, char *why, size_t why_cap)
{
    if (strcmp(j->stored.spec, tg_rules_spec(m->rules->rules)) != 0) {
        snprintf(why, why_cap, "its rule spec changed in the database");
        return false;
    }
    j->match = m;
    work_load(&j->base);
    return load_consistent(j, why, why_cap);
}

/* Makes the match what its replayed rows say, and tells its watchers what changed: the same
 * events its own server sent its watchers. False: out of memory, the match was dropped. */
static bool take_rows(struct server *sv, struct match *m, struct job *j)
{
    const struct stored_match *s = &j->stored;
    size_t old_count = m->ply_count, common = 0;
    while (common < old_count && common < s->move_count &&
           ply_named(m, common, s->moves[common].notation))
        common++;
    bool was_over = m->state && match_over(m);
    int invite_before = m->invite_seat;
    forget_plies(m, common);
    /* A match with no moves yet has no rows (moves NULL): no offset from it. */
    if (!note_plies(m, s->moves ? s->moves + common : NULL, s->move_count - common)) {
        table_remove(sv, m);
        match_free(sv, m);
        return false;
    }
    tg_state_free(m->state);
    m->state = j->state;
    j->state = NULL;
    m->resigned = s->by_resignation && s->winner >= 0 ? 1 - s->winner : -1;
    m->agreed = s->by_resignation && s->winner < 0;
    m->aborted = s->aborted;
    m->invite_seat = s->invite_seat;
    memcpy(m->invite, s->invite, sizeof m->invite);
    free(m->kept_throws);
    m->kept_throws = j->stored.kept_throws;
    j->stored.kept_throws = NULL;
    m->clock.kept = s->clock;
    m->clock.turn_began = sv->now - (double)s->clock.used_ms / 1000.0;
    uint64_t version_before = m->version;
    m->version = s->version;
    bool rematch_news = s->rematch && s->rematch != m->rematch;
    if (s->rematch)
        m->rematch = s->rematch;
    int undo_before = m->undo_requested_by;
    m->undo_requested_by = -1;
    if (s->undo.state == UNDO_OPEN)
        undo_take(sv, m, &s->undo);
    if (!track_clock(sv, m)) {
        table_remove(sv, m);
        match_free(sv, m);
        return false;
    }
    match_touch(sv, m);
    sv->refreshed++;
    if (invite_before >= 0 && m->invite_seat < 0)
        push_event(sv, m, "joined %d", invite_before);
    if (common < old_count)
        push_event(sv, m, "undone %zu", common);
    if (m->ply_count > common) {
        size_t start = common ? m->plies[common - 1].end : 0;
        push_event(sv, m, "moves %zu %.*s", common, (int)(m->names.len - start - 1),
                   m->names.data + start);
    }
    push_clock(sv, m);
    /* The request as the rows have it: opened there, or answered there at this same ply (a
     * change of the plies ended it, and its events said so). */
    if (m->undo_requested_by >= 0 && m->undo_requested_by != undo_before)
        push_event(sv, m, "undo-requested %d", m->undo_requested_by);
    else if (undo_before >= 0 && m->undo_requested_by < 0 && common == old_count &&
             m->ply_count == old_count &&
             (s->undo.state == UNDO_DECLINED || s->undo.state == UNDO_LAPSED))
        push_event(sv, m, "undo-declined %d%s", 1 - undo_before,
                   s->undo.state == UNDO_LAPSED ? " by=timeout" : "");
    /* A new version that changed no row this server reads: a draw offer's change, whose news
     * comes on the lobby's channel (draws.c). */
    bool unseen = m->version > version_before && common == old_count &&
                  m->ply_count == old_count && m->undo_requested_by == undo_before &&
                  match_over(m) == was_over;
    draw_read(m, &s->draw);
    draw_followed(sv, m, common, common < old_count, unseen);
    if (match_over(m) && !was_over)
        push_event(sv, m, "result %s by=%s", result_word(m), end_reason(m));
    if (rematch_news) /* made through another server */
        push_event(sv, m, "rematch %" PRIu64, m->rematch);
    return true;
}

/* Reads a loaded match again from the database (another server changed it). False: it was
 * dropped (set aside, gone, or out of memory); a database that does not answer leaves it as
 * it is, to be read again later. */
bool follow_refresh(struct server *sv, struct match *m)
{
    if (m->loading || m->busy)
        return true;
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return true;
    char why[256] = "";
    enum load_result found = store_load_match(sv->store, m->id, &j->stored, why, sizeof why);
    bool ok = found == LOAD_FOUND && replay(m, j, why, sizeof why);
    if (found == LOAD_UNAVAILABLE || (found == LOAD_FOUND && j->status == TG_ERR_NO_MEMORY)) {
        job_free(j);
        return true;
    }
    if (!ok) {
        if (found != LOAD_NOT_FOUND)
            remember_set_aside(sv, m->id, why, found == LOAD_SET_ASIDE);
        table_remove(sv, m);
        match_free(sv, m);
        job_free(j);
        return false;
    }
    ok = take_rows(sv, m, j);
    job_free(j);
    return ok;
}

/* ---- whether this server's copy of a match is the match ---------------------------------- */

void follow_claimed(struct server *sv, struct match *m)
{
    m->claimed = true;
    m->claim_epoch = sv->lease_epoch;
}

/* Whether this server plays the match: its lease claimed since the leases last may have run
 * out. Then nobody else can have changed it. */
static bool holds_lease(const struct server *sv, const struct match *m)
{
    return m->claimed && m->claim_epoch == sv->lease_epoch;
}

/* The match as it is in the database before a command reads it: a copy that another server
 * may have changed (this one does not hold its lease) is checked, one round trip, and read
 * again if it is behind, so that a client that moved to this server reads what it was told.
 * NULL: the match was dropped (set aside). */
struct match *follow_fresh(struct server *sv, struct match *m)
{
    if (!store_is_shared(sv->store) || m->busy || holds_lease(sv, m))
        return m;
    uint64_t version;
    if (!store_versions(sv->store, &m->id, 1, &version) || version == UINT64_MAX ||
        version <= m->version)
        return m;
    uint64_t id = m->id;
    return follow_refresh(sv, m) ? loaded_match(sv, id) : NULL;
}

/* ---- other servers' changes ------------------------------------------------------------- */

struct note {
    uint64_t id, version;
};

/* The changes heard of, refreshed once the notifications are all read. */
struct seen {
    struct note *notes;
    size_t count, cap;
    struct server *sv;
};

/* Another server's client wants a match this server plays: given up unless a change of it is
 * under way here (then the other client's retry asks again). */
static bool on_wanted(uint64_t id, void *ctx)
{
    const struct seen *s = ctx;
    struct match *m = loaded_match(s->sv, id);
    if (!m || m->busy || m->loading)
        return false;
    m->claimed = false;
    return true;
}

static void on_notification(uint64_t id, uint64_t version, void *ctx)
{
    struct seen *s = ctx;
    struct note *grown = array_reserve(s->notes, &s->cap, s->count + 1, sizeof *grown, 16);
    if (!grown)
        return; /* the poll of the versions catches it */
    s->notes = grown;
    s->notes[s->count++] = (struct note){id, version};
}

static void refresh_if_behind(struct server *sv, uint64_t id, uint64_t version)
{
    struct match *m = loaded_match(sv, id);
    if (m && !m->loading && version != UINT64_MAX && version > m->version)
        follow_refresh(sv, m);
}

/* Asks the database for the versions of loaded matches (the watched ones, or all after a lost
 * connection) and reads again those another server changed. */
static void poll_versions(struct server *sv, bool all)
{
    uint64_t ids[VERSIONS_PER_QUERY], versions[VERSIONS_PER_QUERY];
    size_t n = 0;
    struct seen behind = {.sv = sv};
    for (size_t b = 0; b < sv->bucket_count; b++)
        for (struct match *m = sv->buckets[b]; m; m = m->next_in_bucket) {
            if (m->loading || (!all && !m->watchers))
                continue;
            ids[n++] = m->id;
            if (n < VERSIONS_PER_QUERY)
                continue;
            if (store_versions(sv->store, ids, n, versions))
                for (size_t i = 0; i < n; i++)
                    on_notification(ids[i], versions[i], &behind);
            n = 0;
        }
    if (n && store_versions(sv->store, ids, n, versions))
        for (size_t i = 0; i < n; i++)
            on_notification(ids[i], versions[i], &behind);
    /* Refreshed after the walk: a refresh may drop a match from the table. */
    for (size_t i = 0; i < behind.count; i++)
        refresh_if_behind(sv, behind.notes[i].id, behind.notes[i].version);
    free(behind.notes);
}

/* ---- leases: this server's, and the ones that ran out ----------------------------------- */

/* The take-over claim, on a database thread: the lease of a match whose server stopped
 * renewing it, in a transaction of its own. Its statements may wait for a lock another session
 * holds (a frozen server's, up to lock_timeout) or a slow database; the loop does not. */
static void claim_on_db_thread(struct job *j, struct store *st)
{
    j->claimed = CLAIM_FAILED;
    if (!store_begin_round(st))
        return;
    enum claim_result r = store_claim(st, j->claim_id, j->claim_version, false);
    j->claimed = store_commit_round(st) ? r : CLAIM_FAILED;
}

/* Loads a match no server plays any more, so that its clocks keep running here. */
static struct match *adopt(struct server *sv, uint64_t id)
{
    if (find_set_aside(sv, id) || !room_to_load(sv))
        return NULL;
    struct job *j = calloc(1, sizeof *j);
    char why[256] = "";
    if (!j)
        return NULL;
    enum load_result found = store_load_match(sv->store, id, &j->stored, why, sizeof why);
    tg_status st;
    struct rules_entry *rules = found == LOAD_FOUND ? rules_acquire(sv, j->stored.spec, &st) : NULL;
    struct match *m = rules ? calloc(1, sizeof *m) : NULL;
    if (!m) {
        if (found == LOAD_DAMAGED || found == LOAD_SET_ASIDE)
            remember_set_aside(sv, id, why, found == LOAD_SET_ASIDE);
        rules_release(sv, rules);
        job_free(j);
        return NULL;
    }
    m->id = id;
    m->rules = rules;
    m->resigned = m->undo_requested_by = m->invite_seat = m->draw.by = -1;
    memcpy(m->tokens, j->stored.tokens, sizeof m->tokens);
    if (!replay(m, j, why, sizeof why)) {
        if (j->status != TG_ERR_NO_MEMORY)
            remember_set_aside(sv, id, why, false);
        match_free(sv, m);
        job_free(j);
        return NULL;
    }
    if (!table_insert(sv, m)) {
        match_free(sv, m);
        job_free(j);
        return NULL;
    }
    bool ok = take_rows(sv, m, j);
    if (ok) /* after take_rows, whose replay of the plies would lapse the stored offer */
        draw_loaded(m, &j->stored.draw);
    job_free(j);
    return ok ? m : NULL;
}

/* A take-over claim done (on the loop): the match is this server's, read again, or, if another
 * server was quicker and nobody here watches it, let go. */
static void take_over_done(struct server *sv, struct job *j)
{
    struct match *m = j->match; /* busy while the claim ran: nothing freed it */
    m->busy = false;
    if (j->claimed == CLAIM_OK) {
        follow_claimed(sv, m);
        sv->taken_over++;
        fprintf(stderr, "tg-server: match %" PRIu64 " taken over (its lease ran out)\n", m->id);
    } else if (j->claimed == CLAIM_STALE) {
        follow_refresh(sv, m); /* its clocks and flag from what it now is */
    } else if (j->adopted && !m->watchers) {
        table_remove(sv, m); /* another server was quicker, or the database did not answer */
        match_free(sv, m);
    }
}

static void take_over_expired(struct server *sv)
{
    uint64_t ids[TAKE_OVER_PER_TICK];
    size_t n;
    if (!store_expired_leases(sv->store, ids, TAKE_OVER_PER_TICK, &n))
        return;
    for (size_t i = 0; i < n; i++) {
        struct match *m = loaded_match(sv, ids[i]);
        bool adopted = !m;
        if (!m && !(m = adopt(sv, ids[i])))
            continue;
        if (m->loading || m->busy) /* a claim under way (a change's, or the last tick's) */
            continue;
        struct job *j = calloc(1, sizeof *j);
        if (!j)
            return;
        j->db_work = claim_on_db_thread;
        j->db_done = take_over_done;
        j->match = m;
        j->adopted = adopted;
        j->claim_id = m->id;
        j->claim_version = m->version;
        j->claimed = CLAIM_FAILED;
        store_keep_lease(sv->store, m->id); /* claimed on the database thread's connection */
        if (!db_submit(sv, NULL, j)) {
            job_free(j);
            if (adopted && !m->watchers) {
                table_remove(sv, m);
                match_free(sv, m);
            }
            return;
        }
        /* Busy until the claim is done, as for a change: nothing else changes, reloads or
         * unloads it meanwhile. */
        m->busy = true;
    }
}

bool follow_site(struct server *sv, double max_age)
{
    if (!store_is_shared(sv->store))
        return false;
    if (sv->site_at > 0 && sv->now - sv->site_at <= max_age)
        return true;
    struct site_counts got;
    if (store_in_transaction(sv->store) ||
        !store_site_poll(sv->store, sv->client_count, sv->loaded_count,
                         (unsigned)(SITE_POLL_SECONDS * SITE_ALIVE_POLLS * 1000), &got))
        return sv->site_at > 0;
    sv->site = got;
    sv->site_at = sv->now;
    return true;
}

void follow_round(struct server *sv)
{
    if (!store_is_shared(sv->store) || store_in_transaction(sv->store))
        return;
    struct seen seen = {.sv = sv};
    bool missed = false;
    lobby_follow(sv); /* the lobby hears the site on a connection of its own */
    store_take_notifications(sv->store, on_notification, on_wanted, &seen, &missed);
    for (size_t i = 0; i < seen.count; i++)
        refresh_if_behind(sv, seen.notes[i].id, seen.notes[i].version);
    free(seen.notes);
    if (missed || sv->now >= sv->next_version_poll) {
        poll_versions(sv, missed);
        sv->next_version_poll = sv->now + VERSION_POLL_SECONDS;
    }
    if (sv->now >= sv->next_site_poll) {
        follow_site(sv, 0);
        sv->next_site_poll = sv->now + SITE_POLL_SECONDS;
    }
    if (sv->now >= sv->next_lease_tick) {
        /* Three renewals a lease: one late round trip does not lose it. A renewal later than
         * that (a stalled process, a database that did not answer) may have come after
         * another server took a lease: every claim of this server is doubted from then on. */
        double lease = (double)sv->opt.lease_ms / 1000.0;
        if (sv->now - sv->leases_renewed_at > 0.8 * lease)
            sv->lease_epoch++;
        if (store_leases_tick(sv->store))
            sv->leases_renewed_at = sv->now;
        take_over_expired(sv);
        sv->next_lease_tick = sv->now + (double)sv->opt.lease_ms / 3000.0;
    }
}

/* The lobby's writes on a shared database (a seek stored, seeks withdrawn, the sweeps), handed
 * to the database threads, and their answers back on the loop; on SQLite a withdrawal is done
 * at once. The once-a-second sweeps of the seeks whose owner went or whose time is up, this
 * server's and, on a shared database, the site's, are here too: they write the same way. */
#define _POSIX_C_SOURCE 200809L

#include "lobby-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SITE_SWEEP_SECONDS 10.0  /* a shared database: how often the site's old seeks are swept */
#define SERVER_GONE_SECONDS 30.0 /* a server not seen this long has lost its connections */

/* ---- the site's writes, on the database threads ---------------------------------------------- */

/* On a shared database every write of the lobby (a seek stored, seeks withdrawn, the sweeps)
 * is a job of the database threads (db-pool.c), never the loop's: a row held by another
 * session, or a slow database, then holds that job and its client, not everyone. A client's
 * command is answered once its write is done, as the account writes are. */
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
bool withdraw_seeks(struct server *sv, struct client *c, enum lobby_op op, const uint64_t *ids,
                    size_t count, uint64_t named, const char *why)
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

void write_seek_to_site(struct server *sv, struct client *c, const struct stored_seek *s)
{
    struct lobby_task *t = calloc(1, sizeof *t);
    if (t) {
        t->op = LOBBY_ADD;
        t->seek = *s;
    } else {
        reply_status(c, TG_ERR_NO_MEMORY);
    }
    if (!t || !submit_lobby_task(sv, c, t, seek_stored))
        forget_stored_seek(sv->lobby, c->serial);
}

/* A stored match's rows read on a database thread, on a shared database (docs/server.md,
 * "Concurrency: nothing blocks the loop"): a 100,000-ply match is 100,000 rows, and a table
 * another session holds locked makes the read wait up to lock_timeout, neither of which the
 * loop may wait for. The command that asked waits (RUN_WAIT), as it does for the replay after;
 * a command naming the same match meanwhile waits for the same read. Once the rows are in, the
 * replay goes to the move workers as on SQLite (replay_stored, jobs.c), or, if the read gave no
 * match, its answer is kept for the rest of the loop's pass, in which every waiting command
 * runs again and is told it. A client that goes away while the read runs leaves it to finish:
 * the match is loaded (and unloaded later like any idle one). */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct load_read *find_read(struct server *sv, uint64_t id)
{
    for (size_t i = 0; i < sv->load_read_count; i++)
        if (sv->load_reads[i].id == id)
            return &sv->load_reads[i];
    return NULL;
}

static void forget_read(struct server *sv, struct load_read *r)
{
    *r = sv->load_reads[--sv->load_read_count];
}

size_t load_reads_in_flight(const struct server *sv)
{
    size_t n = 0;
    for (size_t i = 0; i < sv->load_read_count; i++)
        n += !sv->load_reads[i].finished;
    return n;
}

static void read_on_db_thread(struct job *j, struct store *st)
{
    j->load_found = store_load_match(st, j->load_id, &j->stored, j->why, sizeof j->why);
}

/* On the loop: the rows read become a replay on a move worker, or the waiting commands'
 * answer. */
static void read_done(struct server *sv, struct job *j)
{
    struct load_read *r = find_read(sv, j->load_id);
    if (!r)
        return;
    /* Loaded meanwhile by the take-over (follow.c reads on the loop), or set aside: the
     * waiting commands find it so, and these rows are not needed. */
    if (loaded_match(sv, j->load_id) || find_set_aside(sv, j->load_id)) {
        forget_read(sv, r);
        return;
    }
    r->finished = true;
    if (j->load_found == LOAD_FOUND && !room_to_load(sv)) {
        load_refuse(&r->refusal, "overloaded", "every loaded match is in use; try again");
        return;
    }
    struct job *replay = calloc(1, sizeof *replay);
    if (!replay) {
        load_refuse(&r->refusal, "no-memory", "%s", tg_status_string(TG_ERR_NO_MEMORY));
        return;
    }
    replay->stored = j->stored;
    memset(&j->stored, 0, sizeof j->stored);
    if (replay_stored(sv, j->load_address, j->load_id, replay, j->load_found, j->why,
                      &r->refusal) == RUN_WAIT)
        forget_read(sv, r); /* the match is in the table now, loading */
}

enum run_result start_load_read(struct server *sv, struct client *c, uint64_t id)
{
    struct load_read *r = find_read(sv, id);
    if (r && !r->finished)
        return RUN_WAIT;
    if (r) { /* done this pass, and it gave no match */
        reply_error(c, r->refusal.code, "%s", r->refusal.text);
        return RUN_DONE;
    }
    /* The reads in flight count as loaded: each becomes a loaded match once read. */
    if (!room_to_load_besides(sv, load_reads_in_flight(sv))) {
        reply_error(c, "overloaded", "every loaded match is in use; try again");
        return RUN_DONE;
    }
    struct load_read *grown = array_reserve(sv->load_reads, &sv->load_read_cap,
                                            sv->load_read_count + 1, sizeof *grown, 8);
    struct job *j = grown ? calloc(1, sizeof *j) : NULL;
    if (!j) {
        if (grown)
            sv->load_reads = grown;
        reply_status(c, TG_ERR_NO_MEMORY);
        return RUN_DONE;
    }
    sv->load_reads = grown;
    j->db_work = read_on_db_thread;
    j->db_done = read_done;
    j->load_id = id;
    if (c && c->address)
        snprintf(j->load_address, sizeof j->load_address, "%s", c->address->name);
    if (!db_submit(sv, c, j)) { /* c told why (the database threads' queue is full) */
        job_free(j);
        return RUN_DONE;
    }
    sv->load_reads[sv->load_read_count++] = (struct load_read){.id = id};
    return RUN_WAIT;
}

void load_reads_settle(struct server *sv)
{
    for (size_t i = 0; i < sv->load_read_count;)
        if (sv->load_reads[i].finished)
            forget_read(sv, &sv->load_reads[i]);
        else
            i++;
}

/* Jobs that replay a match's notation on a worker (docs/server.md, "Concurrency"): an
 * accepted undo, and `record ID`. The loop keeps no match's history in its state (so that a
 * move costs the same at ply 10 and at ply 300,000: a worker gets the position alone), so
 * both rebuild the match from the notation of its plies, which the loop hands them as a copy;
 * neither holds the match while it runs. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tg_status state_copy_short(const tg_state *s, tg_state **out)
{
    tg_state *t = NULL;
    tg_status st = tg_state_new(tg_state_rules(s), &t);
    if (st == TG_OK)
        st = tg_state_copy(t, s);
    if (st != TG_OK) {
        tg_state_free(t);
        return st;
    }
    *out = t;
    return TG_OK;
}

/* The match from its start through the space-separated names, with its history. */
static tg_status replay_names(const tg_rules *r, const char *names, size_t len, tg_state **out)
{
    tg_state *s = NULL;
    tg_status st = tg_state_new(r, &s);
    for (size_t at = 0; st == TG_OK && at < len;) {
        size_t n = 0;
        while (at + n < len && names[at + n] != ' ')
            n++;
        char name[NOTATION_MAX];
        tg_move mv;
        if (n == 0 || n >= sizeof name) {
            st = TG_ERR_PARSE;
            break;
        }
        memcpy(name, names + at, n);
        name[n] = '\0';
        st = tg_move_from_string(s, name, &mv);
        if (st == TG_OK)
            st = tg_state_apply(s, mv);
        at += n + 1;
    }
    if (st != TG_OK) {
        tg_state_free(s);
        return st;
    }
    *out = s;
    return TG_OK;
}

static void work_undo(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    tg_state *full = NULL;
    j->status = replay_names(j->rules->rules, j->names, j->names_len, &full);
    if (j->status == TG_OK)
        j->status = state_copy_short(full, &j->state);
    tg_state_free(full);
}

static void work_record(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    tg_state *full = NULL;
    size_t need = 0;
    j->status = replay_names(j->rules->rules, j->names, j->names_len, &full);
    if (j->status == TG_OK)
        j->status = tg_state_record(full, j->tags, NULL, 0, &need);
    if (j->status == TG_OK && !(j->text = malloc(need + 2)))
        j->status = TG_ERR_NO_MEMORY;
    if (j->status == TG_OK)
        j->status = tg_state_record(full, j->tags, j->text, need + 1, &need);
    if (j->status == TG_OK) {
        if (need == 0 || j->text[need - 1] != '\n')
            j->text[need++] = '\n';
        j->text_len = need;
    }
    tg_state_free(full);
}

/* A job holding a copy of the names of the match's first `plies` plies and its rule set. */
static struct job *replay_job(struct client *c, struct match *m, size_t plies, enum job_kind kind)
{
    struct job *j = calloc(1, sizeof *j);
    size_t len = plies ? m->plies[plies - 1].end : 0;
    if (j && len && (j->names = malloc(len)))
        memcpy(j->names, m->names.data, len);
    if (!j || (len && !j->names)) {
        job_free(j);
        reply_status(c, TG_ERR_NO_MEMORY);
        return NULL;
    }
    j->names_len = len ? len - 1 : 0; /* without the last space */
    j->kind = kind;
    j->base.work = kind == JOB_UNDO ? work_undo : work_record;
    j->client_serial = c->serial;
    j->rules = m->rules;
    m->rules->users++; /* the match may be unloaded before the job is done */
    return j;
}

/* An undo is a change to the match and goes with the moves; a record is made on the record
 * workers, each address's in turn, so that neither moves nor searches wait behind records. */
static bool submit(struct server *sv, struct client *c, struct job *j)
{
    bool record = j->kind == JOB_RECORD;
    if (!job_submit(record ? sv->record_pool : sv->move_pool, c, j,
                    record ? RECORD_JOBS_PER_ADDRESS : 0)) {
        rules_release(sv, j->rules);
        j->rules = NULL;
        job_free(j);
        return false;
    }
    sv->record_bytes += j->reserved;
    c->awaiting = true;
    return true;
}

bool submit_undo(struct server *sv, struct client *c, struct match *m, size_t keep,
                 char *kept_after)
{
    struct job *j = replay_job(c, m, keep, JOB_UNDO);
    if (!j) {
        free(kept_after);
        return false;
    }
    j->match = m;
    j->keep = keep;
    j->kept_after = kept_after;
    if (!submit(sv, c, j))
        return false;
    m->busy = true;
    return true;
}

/* What a record job may hold at once, reserved as it is queued: the copy of the names, and
 * the record made from them (each ply's name, its move number and spacing, RECORD_PLY_EXTRA
 * bytes at most: tg_state_record writes "12. a1 b2" a pair of plies to a line), and its tags.
 * The library's history of the replay, on a worker, is not counted: at most RECORD_THREADS
 * of them exist at once. */
#define RECORD_PLY_EXTRA 8

static size_t record_reserve(const struct match *m)
{
    return 2 * m->names.len + RECORD_PLY_EXTRA * m->ply_count + 256;
}

/* The tag pairs the server adds: its own endings, which the rules' state cannot know. */
static void record_tags(const struct match *m, char *tags, size_t cap)
{
    int n = snprintf(tags, cap, "[Site \"tg-server\"]\n[Match \"%" PRIu64 "\"]\n", m->id);
    const char *how = end_reason(m);
    if (match_over(m) && strcmp(how, "rules") != 0 && n > 0 && (size_t)n < cap)
        snprintf(tags + n, cap - (size_t)n, "[ServerResult \"%s\"]\n[ServerEnd \"%s\"]\n",
                 m->aborted                          ? "*"
                 : strcmp(result_word(m), "draw") == 0 ? "1/2-1/2"
                 : result_word(m)[0] == '0'          ? "1-0"
                                            : "0-1",
                 how);
}

void cmd_record(struct server *sv, struct client *c, struct match *m)
{
    char tags[sizeof((struct job *)NULL)->tags];
    record_tags(m, tags, sizeof tags);
    /* The same record asked again while it is held (being made, or sent to someone): shared,
     * so that many downloads of one long match cost one record. */
    struct record *r = record_find(sv, m, tags);
    if (r) {
        record_attach(sv, c, r);
        return;
    }
    /* The records being made and held count against --max-buffered with the output waiting
     * for clients, so that records asked and not read cannot take memory without bound. */
    size_t reserve = record_reserve(m);
    if (sv->out_total + sv->record_bytes + reserve > sv->opt.max_buffered) {
        reply_error(c, "overloaded", "too much output waits for clients; try again");
        return;
    }
    struct job *j = replay_job(c, m, m->ply_count, JOB_RECORD);
    if (!j)
        return;
    if (!(r = record_new(sv, c, m, tags))) {
        rules_release(sv, j->rules);
        j->rules = NULL;
        job_free(j);
        return;
    }
    j->reserved = reserve;
    j->record = r;
    memcpy(j->tags, tags, sizeof tags);
    if (!submit(sv, c, j)) {
        record_made(sv, r, TG_ERR_NO_MEMORY, NULL, 0); /* nobody waits for it: let go */
        return;
    }
    record_attach(sv, c, r);
}

void replay_done(struct server *sv, struct job *j)
{
    struct client *c = client_by_serial(sv, j->client_serial);
    rules_release(sv, j->rules);
    j->rules = NULL;
    sv->record_bytes -= j->reserved;
    if (j->kind == JOB_RECORD) {
        record_made(sv, j->record, j->status, j->text, j->text_len);
        j->text = NULL; /* the record's now */
        return;
    }
    struct match *m = j->match;
    struct change *ch = j->status == TG_OK ? change_new(sv, CH_UNDO, m, j->client_serial) : NULL;
    if (!ch) {
        m->busy = false;
        if (c)
            c->awaiting = false;
        reply_status(c, j->status == TG_OK ? TG_ERR_NO_MEMORY : j->status);
        return;
    }
    ch->state = j->state;
    j->state = NULL;
    ch->keep_plies = j->keep;
    ch->kept_changed = j->kept_after != NULL;
    ch->kept_after = j->kept_after;
    j->kept_after = NULL;
    buf_printf(&ch->reply, "ok %zu\n", j->keep);
    stage(sv, ch);
}

/* Work on the worker threads: replaying a stored match (a load) and making a move or a bot's
 * move, and what the loop does with each finished job. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- worker jobs ---------------------------------------------------------------------- */

void job_free(struct job *j)
{
    if (!j)
        return;
    tg_state_free(j->state);
    stored_match_free(&j->stored);
    move_list_free(&j->made);
    free(j->kept);
    free(j->names);
    free(j->kept_after);
    free(j->text);
    account_task_free(j->account);
    free(j->seek_task);
    free(j);
}

bool job_submit(struct pool *pool, struct client *c, struct job *j, size_t address_max)
{
    /* A connection whose address could not be recorded shares the budget-less owner "". */
    const char *address = c && c->address ? c->address->name : "";
    switch (pool_submit(pool, &j->base, address, address_max)) {
    case POOL_QUEUED:
        return true;
    case POOL_OWNER_FULL:
        reply_error(c, "rate-limited",
                    "this address already has %zu %s queued or running; ask again once one "
                    "is answered",
                    address_max,
                    j->kind == JOB_RECORD    ? "records"
                    : j->kind == JOB_ACCOUNT ? "sign-ins"
                                             : "searches");
        break;
    case POOL_FULL:
        reply_error(c, "overloaded", "the server's workers have too much queued; try again");
        break;
    }
    return false;
}

/* Replays the stored rows on a fresh state and checks that each one is what was recorded:
 * the move legal, played by the seat recorded, named as recorded, and leaving the recorded
 * hash. */
void work_load(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    j->status = tg_state_new(j->match->rules->rules, &j->state);
    if (j->status != TG_OK) {
        snprintf(j->why, sizeof j->why, "cannot make a state: %s", tg_status_string(j->status));
        return;
    }
    for (size_t i = 0; i < j->stored.move_count; i++) {
        const struct stored_move *m = &j->stored.moves[i];
        int player = tg_state_player(j->state);
        int expected_seat = player == TG_CHANCE ? -1 : player;
        char name[NOTATION_MAX];
        if (player == TG_TERMINAL) {
            snprintf(j->why, sizeof j->why, "ply %zu is recorded after the game ended", i);
        } else if (m->seat != expected_seat) {
            snprintf(j->why, sizeof j->why, "ply %zu is recorded for the wrong seat", i);
        } else if (!tg_state_is_legal(j->state, m->move)) {
            snprintf(j->why, sizeof j->why, "ply %zu: move %" PRIu32 " is not legal", i, m->move);
        } else if (tg_move_to_string(j->state, m->move, name, sizeof name, NULL) != TG_OK ||
                   strcmp(name, m->notation) != 0) {
            snprintf(j->why, sizeof j->why, "ply %zu: notation '%s' is not the move's ('%s')", i,
                     m->notation, name);
        } else if ((j->status = tg_state_apply(j->state, m->move)) != TG_OK) {
            snprintf(j->why, sizeof j->why, "ply %zu: %s", i, tg_status_string(j->status));
            if (j->status == TG_ERR_NO_MEMORY)
                return;
        } else if (tg_state_hash(j->state) != m->hash_after) {
            snprintf(j->why, sizeof j->why,
                     "ply %zu: the position's hash differs from the "
                     "recorded one",
                     i);
        } else {
            continue;
        }
        j->status = TG_ERR_ILLEGAL_MOVE;
        return;
    }
    /* The loop keeps the position only: a move's worker copies that, not the history. */
    tg_state *position = NULL;
    j->status = state_copy_short(j->state, &position);
    if (j->status == TG_OK) {
        tg_state_free(j->state);
        j->state = position;
    }
}

void work_play(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    j->status = record_move(j->state, j->move, j->seat, &j->made);
    /* The throws an accepted undo took back come again, in order, while they fit. */
    while (j->status == TG_OK && j->kept && j->kept[j->kept_used] &&
           tg_state_player(j->state) == TG_CHANCE) {
        const char *at = j->kept + j->kept_used;
        size_t len = strcspn(at, " ");
        char name[NOTATION_MAX];
        tg_move thrown;
        if (len >= sizeof name)
            break;
        memcpy(name, at, len);
        name[len] = '\0';
        if (tg_move_from_string(j->state, name, &thrown) != TG_OK ||
            !tg_state_is_legal(j->state, thrown))
            break;
        j->status = record_move(j->state, thrown, -1, &j->made);
        j->kept_used += len + (at[len] == ' ');
    }
    if (j->status == TG_OK)
        j->status = throw_while_chance(j->state, &j->made);
}

void work_bot(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    uint64_t rng;
    if (!os_random(&rng, sizeof rng)) {
        j->status = TG_ERR_INVALID_ARGUMENT;
        return;
    }
    /* The time is fixed as the search starts: a wait in the queue is the seat's too. */
    char spec[sizeof j->bot + 32];
    long ms = bot_time_ms(j->bot, j->max_bot_ms, monotonic_seconds(), j->deadline);
    j->status = bot_spec_with_time(j->bot, ms, spec, sizeof spec)
                    ? tg_bot_choose(j->state, spec, &rng, &j->move)
                    : TG_ERR_BAD_OPTION;
    j->finished = monotonic_seconds();
    if (j->status == TG_OK)
        work_play(pj);
}

static bool staged_new_id(const struct server *sv, uint64_t id)
{
    for (size_t i = 0; i < sv->change_count; i++)
        if (sv->changes[i].kind == CH_NEW && sv->changes[i].match->id == id)
            return true;
    return false;
}

/* Finds the match a command names, loading it if needed. RUN_WAIT: it is being loaded and the
 * command runs again once it is; RUN_DONE with *out NULL: the client has its error. */
enum run_result find_match(struct server *sv, struct client *c, const char *id_text,
                           struct match **out)
{
    *out = NULL;
    uint64_t id;
    if (!parse_u64(id_text, &id) || id == 0) {
        reply_error(c, "no-such-match", "no match has that id");
        return RUN_DONE;
    }
    struct match *m = loaded_match(sv, id);
    if (m && !m->loading)
        m = follow_fresh(sv, m); /* a shared database: another server may have changed it */
    if (m) {
        if (m->loading)
            return RUN_WAIT;
        match_touch(sv, m);
        *out = m;
        return RUN_DONE;
    }
    const struct set_aside_entry *aside = find_set_aside(sv, id);
    if (aside) {
        reply_set_aside(c, id, aside->reason);
        return RUN_DONE;
    }
    if (staged_new_id(sv, id)) { /* created this round, not yet committed or answered */
        reply_error(c, "no-such-match", "no match has that id");
        return RUN_DONE;
    }
    return start_load(sv, c, id);
}

void load_refuse(struct load_refusal *r, const char *code, const char *fmt, ...)
{
    snprintf(r->code, sizeof r->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
}

enum run_result replay_stored(struct server *sv, const char *address, uint64_t id, struct job *j,
                              enum load_result found, const char *why_read,
                              struct load_refusal *refusal)
{
    if (found != LOAD_FOUND) {
        job_free(j);
        if (found == LOAD_NOT_FOUND)
            load_refuse(refusal, "no-such-match", "no match has that id");
        else if (found == LOAD_UNAVAILABLE)
            load_refuse(refusal, "io", "the match could not be read (%s); try again", why_read);
        else {
            remember_set_aside(sv, id, why_read, found == LOAD_SET_ASIDE);
            refuse_set_aside(refusal, id, why_read);
        }
        return RUN_DONE;
    }
    tg_status st;
    struct rules_entry *rules = rules_acquire(sv, j->stored.spec, &st);
    struct match *m = rules ? calloc(1, sizeof *m) : NULL;
    if (!m) {
        if (rules) {
            rules_release(sv, rules);
            load_refuse(refusal, "no-memory", "%s", tg_status_string(TG_ERR_NO_MEMORY));
        } else {
            char why[256];
            snprintf(why, sizeof why, "its rule spec '%.100s' is not valid: %s", j->stored.spec,
                     tg_status_string(st));
            remember_set_aside(sv, id, why, false);
            refuse_set_aside(refusal, id, why);
        }
        job_free(j);
        return RUN_DONE;
    }
    m->id = id;
    m->rules = rules;
    m->resigned = -1;
    m->undo_requested_by = -1;
    m->draw.by = -1;
    m->invite_seat = -1;
    m->loading = true;
    match_touch(sv, m);
    memcpy(m->tokens, j->stored.tokens, sizeof m->tokens);
    j->base.work = work_load;
    j->kind = JOB_LOAD;
    j->match = m;
    if (!table_insert(sv, m)) {
        match_free(sv, m);
        job_free(j);
        load_refuse(refusal, "overloaded", "the server has too much work queued; try again");
        return RUN_DONE;
    }
    /* The replay takes its turn with the other jobs of the address that asked. */
    if (pool_submit(sv->move_pool, &j->base, address, 0) != POOL_QUEUED) {
        table_remove(sv, m);
        match_free(sv, m);
        job_free(j);
        load_refuse(refusal, "overloaded", "the server's workers have too much queued; try again");
        return RUN_DONE;
    }
    return RUN_WAIT;
}

enum run_result start_load(struct server *sv, struct client *c, uint64_t id)
{
    if (sv->db_pool) /* a shared database: the rows are read on a database thread */
        return start_load_read(sv, c, id);
    /* SQLite: the server's own file, read on the loop (docs/server.md says how long). */
    if (!room_to_load(sv)) {
        reply_error(c, "overloaded", "every loaded match is in use; try again");
        return RUN_DONE;
    }
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return RUN_DONE;
    }
    char why[256] = "";
    enum load_result found = store_load_match(sv->store, id, &j->stored, why, sizeof why);
    struct load_refusal refusal;
    const char *address = c && c->address ? c->address->name : "";
    if (replay_stored(sv, address, id, j, found, why, &refusal) == RUN_WAIT)
        return RUN_WAIT;
    reply_error(c, refusal.code, "%s", refusal.text);
    return RUN_DONE;
}

/* A load is accepted only if the result row agrees with the replayed game too. */
bool result_consistent(const struct job *j, char *why, size_t why_cap)
{
    const struct stored_match *s = &j->stored;
    const tg_state *st = j->state;
    /* A match nobody has joined yet waits for its opening throws. */
    if (tg_state_player(st) == TG_CHANCE && s->invite_seat < 0) {
        snprintf(why, why_cap, "the record stops at a throw that was never made");
        return false;
    }
    if (!s->has_result) {
        if (tg_state_is_terminal(st))
            snprintf(why, why_cap, "the game is over but no result is recorded");
        return !tg_state_is_terminal(st);
    }
    if (s->result_ply != s->move_count) {
        snprintf(why, why_cap, "the result is recorded at ply %" PRIu64 ", the game has %zu",
                 s->result_ply, s->move_count);
        return false;
    }
    int w = tg_state_winner(st);
    bool ok = s->by_resignation
                  ? !tg_state_is_terminal(st) /* no winner: a draw agreed (draws.c) */
                  : tg_state_is_terminal(st) && s->winner == (w == 0 || w == 1 ? w : -1);
    if (!ok)
        snprintf(why, why_cap, "the recorded result is not the game's");
    return ok;
}

/* Whether a replayed load (work_load) is the match its rows say: its result, its seats, its
 * abort and its flag fall agree with the game. */
bool load_consistent(const struct job *j, char *why, size_t why_cap)
{
    snprintf(why, why_cap, "%s", j->why);
    bool ok = j->status == TG_OK && result_consistent(j, why, why_cap);
    if (ok && j->stored.invite_seat >= 0 && j->stored.move_count) {
        snprintf(why, why_cap, "moves are recorded before its second seat joined");
        ok = false;
    }
    /* Aborted: before its second seat joined, before a clocked first decision, or (no clock)
     * once nobody moved for --abandon-after. */
    if (ok && j->stored.aborted &&
        ((j->stored.clock.on && j->stored.clock.started && j->stored.invite_seat < 0) ||
         j->stored.clock.flagged >= 0 || j->stored.has_result || tg_state_is_terminal(j->state))) {
        snprintf(why, why_cap, "an abort is recorded for a match that had begun or ended");
        ok = false;
    }
    if (ok && j->stored.clock.flagged >= 0 &&
        (j->stored.has_result || tg_state_is_terminal(j->state))) {
        snprintf(why, why_cap, "a flag fall is recorded for a match that ended otherwise");
        ok = false;
    }
    return ok;
}

static void load_done(struct server *sv, struct job *j)
{
    struct match *m = j->match;
    char why[256];
    bool ok = load_consistent(j, why, sizeof why);
    if (ok && note_plies(m, j->stored.moves, j->stored.move_count)) {
        m->state = j->state;
        j->state = NULL;
        m->loading = false;
        if (j->stored.by_resignation && j->stored.winner >= 0)
            m->resigned = 1 - j->stored.winner;
        m->agreed = j->stored.by_resignation && j->stored.winner < 0;
        m->aborted = j->stored.aborted;
        m->invite_seat = j->stored.invite_seat;
        m->kept_throws = j->stored.kept_throws;
        j->stored.kept_throws = NULL;
        memcpy(m->invite, j->stored.invite, sizeof m->invite);
        m->clock.kept = j->stored.clock;
        /* The turn's time so far, as stored (PostgreSQL): a restart or another server does
         * not give it back. */
        m->clock.turn_began = sv->now - (double)j->stored.clock.used_ms / 1000.0;
        m->version = j->stored.version;
        if (j->stored.undo.state == UNDO_OPEN) /* asked before a restart, or on another server */
            undo_take(sv, m, &j->stored.undo);
        draw_loaded(m, &j->stored.draw); /* offered before a restart, or on another server */
        m->rematch = j->stored.rematch;   /* made before a restart, or on another server */
        match_touch(sv, m);
        if (track_clock(sv, m))
            return;
        m->loading = true; /* out of memory: dropped below, and the waiting clients retry */
        ok = true;
    }
    table_remove(sv, m);
    if (ok || j->status == TG_ERR_NO_MEMORY) {
        /* Out of memory, not damage: the clients waiting retry and load it again. */
        match_free(sv, m);
        return;
    }
    remember_set_aside(sv, m->id, why, false);
    match_free(sv, m);
}

/* A finished play or bot job becomes a change of this round. */
static void move_done(struct server *sv, struct job *j)
{
    struct match *m = j->match;
    struct client *c = client_by_serial(sv, j->client_serial);
    if (j->status != TG_OK) {
        m->busy = false;
        if (c)
            c->awaiting = false;
        reply_status(c, j->status);
        return;
    }
    int seat = clock_running(m);
    if (j->kind == JOB_BOT && seat == j->seat && clock_left(m, seat, j->finished) <= 0) {
        /* The search ended after the seat's flag: its move does not count. */
        struct change *flag = change_new(sv, CH_FLAG, m, j->client_serial);
        if (flag) {
            flag->seat = seat;
            m->flag_staged = true;
            buf_printf(&flag->reply, "err game-over the seat's time ran out during the search\n");
            stage(sv, flag);
            return;
        }
    }
    struct change *ch = change_new(sv, CH_MOVES, m, j->client_serial);
    if (!ch) {
        m->busy = false;
        if (c)
            c->awaiting = false;
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    ch->state = j->state;
    j->state = NULL;
    ch->made = j->made;
    memset(&j->made, 0, sizeof j->made);
    /* A move is charged up to when it came; a bot's search is its seat's thinking, up to
     * when it ended. */
    ch->at = j->kind == JOB_PLAY ? j->arrived : j->finished;
    if (j->kept_used) {
        ch->kept_changed = true;
        const char *rest = j->kept + j->kept_used;
        ch->kept_after = *rest ? strdup(rest) : NULL;
    }
    buf_append(&ch->reply, "ok", 2);
    for (size_t i = 0; i < ch->made.count; i++)
        buf_printf(&ch->reply, " %s", ch->made.items[i].notation);
    buf_append(&ch->reply, "\n", 1);
    stage(sv, ch);
}

void take_finished_jobs(struct server *sv)
{
    char drain[256];
    while (read(sv->wake_read, drain, sizeof drain) > 0)
        ;
    struct pool *pools[5] = {sv->move_pool, sv->bot_pool, sv->record_pool, sv->account_pool,
                             db_pool_workers(sv)};
    for (int p = 0; p < 5; p++)
        for (struct pool_job *pj = pools[p] ? pool_take_done(pools[p]) : NULL, *next; pj;
             pj = next) {
            next = pj->next;
            struct job *j = (struct job *)pj;
            if (j->kind == JOB_DB)
                j->db_done(sv, j);
            else if (j->kind == JOB_LOAD)
                load_done(sv, j);
            else if (j->kind == JOB_ACCOUNT)
                account_job_done(sv, j);
            else if (j->kind == JOB_UNDO || j->kind == JOB_RECORD)
                replay_done(sv, j);
            else
                move_done(sv, j);
            job_free(j);
        }
}

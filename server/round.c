/* The round's transaction: every change of one round of the loop is staged in a savepoint,
 * committed (and synced) once, then applied to memory and answered. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the round's transaction ---------------------------------------------------------- */

struct change *change_new(struct server *sv, enum change_kind kind, struct match *m,
                          uint64_t serial)
{
    struct change *grown =
        array_reserve(sv->changes, &sv->change_cap, sv->change_count + 1, sizeof *grown, 32);
    if (!grown)
        return NULL;
    sv->changes = grown;
    struct change *ch = &sv->changes[sv->change_count];
    *ch = (struct change){.kind = kind, .match = m, .client_serial = serial};
    return ch;
}

void change_discard(struct server *sv, struct change *ch)
{
    tg_state_free(ch->state);
    move_list_free(&ch->made);
    free(ch->reply.data);
    free(ch->kept_after);
    if (ch->kind == CH_NEW)
        match_free(sv, ch->match);
    else
        ch->match->busy = false;
    if (ch->kind == CH_NEW && ch->rematch_of)
        rematch_release(sv, ch->rematch_of);
    if (ch->kind == CH_NEW && ch->seek_id)
        lobby_seek_settled(sv, ch, false); /* not taken: open here again */
    if (ch->kind == CH_FLAG)
        ch->match->flag_staged = false;
}

/* The result row a state calls for, if it ended by the rules. */
static bool write_result_if_over(struct store *st, uint64_t id, const tg_state *s)
{
    if (!tg_state_is_terminal(s))
        return true;
    int w = tg_state_winner(s);
    return store_set_result(st, id, w == 0 || w == 1 ? w : -1, false, tg_state_ply(s),
                            tg_state_score(s, 0), tg_state_score(s, 1));
}

/* A request and its answer: they leave the clocks, and an open undo request, as they are. */
static bool undo_talk(const struct change *ch)
{
    return ch->kind == CH_UNDO_ASK || ch->kind == CH_UNDO_END || ch->kind == CH_DRAW_TALK;
}

void stage_rows(struct store *st, struct change *ch, uint64_t max_matches, bool first_of_round)
{
    struct staged_rows *r = &ch->rows;
    /* A new match is the change's own until it is applied: nothing else reads it meanwhile. */
    struct match *fresh = ch->kind == CH_NEW ? ch->match : NULL;
    uint64_t id = r->id;
    bool ok = store_change_begin(st);
    /* A shared database: only the server holding the match's lease changes it, and only if
     * nobody else did since this server read it. */
    r->claim = CLAIM_OK;
    if (ok && !fresh) {
        r->claim = store_claim(st, id, r->version, true);
        ok = r->claim == CLAIM_OK;
    }
    /* Any other change ends an open undo request, in the database as in memory. */
    if (r->undo_open)
        ok = ok && store_end_undo_request(st, id, UNDO_NONE);
    /* A shared database: the site's --max-matches, counted there under its admission lock. */
    r->admit = ADMIT_OK;
    switch (ch->kind) {
    case CH_NEW:
        if (ok && store_is_shared(st)) {
            r->admit = store_admit_match(st, max_matches, first_of_round);
            ok = r->admit == ADMIT_OK;
        }
        ok = ok &&
             store_insert_match(st, 0, tg_rules_spec(fresh->rules->rules),
                                (const char(*)[TOKEN_HEX_LEN + 1]) fresh->tokens, &fresh->id) &&
             store_add_moves(st, fresh->id, 0, ch->made.items, ch->made.count, ch->made.count) &&
             write_result_if_over(st, fresh->id, ch->state) &&
             (!ch->clock.kept.on || store_put_clock(st, fresh->id, &ch->clock.kept)) &&
             store_put_invite(st, fresh->id, fresh->invite_seat, fresh->invite) &&
             lobby_stage_new(st, ch) &&
             (!ch->rematch_of || store_mark_rematch(st, fresh->id, ch->rematch_of)) &&
             (!ch->account_id || fresh->invite_seat < 0 ||
              store_set_seat_account(st, fresh->id, 1 - fresh->invite_seat, ch->account_id));
        break;
    case CH_JOIN:
        ok = ok && store_delete_invite(st, id) &&
             (!ch->account_id || store_set_seat_account(st, id, ch->seat, ch->account_id)) &&
             store_add_moves(st, id, 0, ch->made.items, ch->made.count, ch->made.count) &&
             write_result_if_over(st, id, ch->state);
        break;
    case CH_MOVES:
        ok = ok &&
             store_add_moves(st, id, r->ply, ch->made.items, ch->made.count,
                             tg_state_ply(ch->state)) &&
             write_result_if_over(st, id, ch->state) &&
             (!ch->kept_changed || store_put_kept_throws(st, id, ch->kept_after));
        break;
    case CH_UNDO:
        ok = ok && store_delete_moves_from(st, id, ch->keep_plies) &&
             store_set_plies(st, id, ch->keep_plies) && store_clear_result(st, id) &&
             (!ch->kept_changed || store_put_kept_throws(st, id, ch->kept_after));
        break;
    case CH_RESIGN:
        ok = ok && store_set_result(st, id, 1 - ch->seat, true, r->ply, r->score[0], r->score[1]);
        break;
    case CH_FLAG:
        break;
    case CH_ABORT:
        ok = ok && store_set_aborted(st, id);
        break;
    case CH_UNDO_ASK:
        ok = ok && store_put_undo_request(st, id, ch->seat, r->ply);
        break;
    case CH_UNDO_END:
        ok = ok && store_end_undo_request(st, id, ch->undo_end);
        break;
    case CH_DRAW_TALK: /* nothing stored: the other servers are told at the commit */
        ok = ok && (!ch->draw_news[0] || store_tell_site(st, ch->draw_news));
        break;
    case CH_DRAW: /* no winner, "resignation": both seats gave the game up (draws.c) */
        ok = ok && store_set_result(st, id, -1, true, r->ply, r->score[0], r->score[1]);
        break;
    }
    if (!fresh && !undo_talk(ch))
        ok = ok && (!ch->clock.kept.on || store_put_clock(st, id, &ch->clock.kept));
    if (!fresh)
        ok = ok && draw_stage_rows(st, id, r) && (!r->ends || store_forget_lobby_match(st, id));
    /* In the same savepoint as the result's rows. */
    ok = ok && ratings_stage_result(st, ch, fresh ? fresh->id : id);
    r->damage = !ok && store_last_was_damage(st);
    r->conflict = !ok && store_last_was_conflict(st);
    r->lock_wait = !ok && store_last_was_lock_wait(st);
    snprintf(r->why, sizeof r->why, "%s", store_error(st));
    r->outcome = store_change_end(st, ok);
    /* A rematch another server stored first: which match it is, for the client to join (0:
     * not known, the client is told to try again). */
    r->rematch_winner = 0;
    if (r->conflict && ch->kind == CH_NEW && ch->rematch_of && r->outcome == CHANGE_DROPPED)
        (void)store_find_rematch(st, ch->rematch_of, &r->rematch_winner);
}

/* The seat to move in a position (the one after the change when it has one), or -1. */
static int seat_to_move(const tg_state *s)
{
    int p = s ? tg_state_player(s) : -1;
    return p == 0 || p == 1 ? p : -1;
}

/* Whether the match is over after the change (or was already). */
static bool change_ends(const struct change *ch)
{
    const struct match *m = ch->match;
    const tg_state *after = ch->state ? ch->state : m->state;
    return ch->kind == CH_RESIGN || ch->kind == CH_FLAG || ch->kind == CH_ABORT ||
           ch->kind == CH_DRAW || (after && tg_state_is_terminal(after)) ||
           (ch->kind != CH_NEW && match_over(m));
}

/* What a correspondence row says after the change: the seat to move, and whether a deadline
 * runs (not once the match is over, nor while a seat waits to be taken). */
static void correspondence_after(const struct change *ch, struct stored_clock *c)
{
    const struct match *m = ch->match;
    const tg_state *after = ch->state ? ch->state : m->state;
    bool waiting = m->invite_seat >= 0 && ch->kind != CH_JOIN;
    c->to_move = seat_to_move(after);
    c->no_deadline = ch->rows.ends || waiting;
}

/* What the rows are written from and the clocks after the change, on the loop as it is staged
 * (the match is busy from now until the change is applied or refused). */
static void prepare_rows(struct server *sv, struct change *ch)
{
    struct match *m = ch->match;
    struct staged_rows *r = &ch->rows;
    *r = (struct staged_rows){.id = m->id, .version = m->version, .ends = change_ends(ch)};
    draw_rows(sv, ch, r->ends, r);
    /* A correspondence row names the seat to move, for the player pages' "your turn". */
    if (ch->kind == CH_NEW) {
        correspondence_after(ch, &ch->clock.kept);
        return;
    }
    r->ply = tg_state_ply(m->state);
    r->score[0] = tg_state_score(m->state, 0);
    r->score[1] = tg_state_score(m->state, 1);
    r->undo_open = !undo_talk(ch) && m->undo_requested_by >= 0;
    if (undo_talk(ch)) {
        ch->clock = m->clock; /* a request and its answer leave the clocks as they are */
        return;
    }
    ch->clock = clock_after(m, sv->now, ch->at > 0 && ch->at < sv->now ? ch->at : sv->now,
                            ch->kind == CH_MOVES ? ch->made.items[0].seat : -1);
    if (ch->kind == CH_FLAG) {
        ch->clock.kept.flagged = ch->seat;
        ch->clock.kept.left_ms[ch->seat] = 0;
    }
    correspondence_after(ch, &ch->clock.kept);
}

/* Writes the change's rows inside a savepoint of the round's transaction (on a shared
 * database, on the round's thread). On success the change waits for the commit; on failure
 * nothing of it stays and its client hears why. */
void stage(struct server *sv, struct change *ch)
{
    if (sv->halted) {
        struct client *c = client_by_serial(sv, ch->client_serial);
        if (c)
            c->awaiting = false;
        change_discard(sv, ch);
        reply_error(c, "halted",
                    "a write to the server's disk failed and what it holds is not known yet; "
                    "no change is taken until it is (reads still work)");
        return;
    }
    prepare_rows(sv, ch);
    if (sv->round_thread) {
        if (ch->kind != CH_NEW)
            store_keep_lease(sv->store, ch->rows.id); /* claimed on the round's connection */
        if (round_thread_take(sv, ch))
            return;
        ch->rows.outcome = CHANGE_DROPPED;
        snprintf(ch->rows.why, sizeof ch->rows.why, "out of memory");
        stage_settle(sv, ch);
        return;
    }
    stage_rows(sv->store, ch, sv->opt.max_matches, !store_in_transaction(sv->store));
    if (ch->rows.outcome == CHANGE_ROUND_LOST)
        for (size_t i = 0; i < sv->change_count; i++)
            sv->changes[i].failed = true;
    if (stage_settle(sv, ch))
        sv->change_count++;
}

bool stage_settle(struct server *sv, struct change *ch)
{
    const struct staged_rows *r = &ch->rows;
    if (r->outcome == CHANGE_KEPT)
        return true;
    struct match *m = ch->match;
    struct client *c = client_by_serial(sv, ch->client_serial);
    if (c)
        c->awaiting = false;
    if (r->outcome == CHANGE_DROPPED && r->admit == ADMIT_OK && rematch_lost(sv, ch, c))
        return false;
    if (r->claim == CLAIM_LEASED || r->claim == CLAIM_STALE) {
        uint64_t id = m->id;
        m->claimed = false;
        change_discard(sv, ch);
        sv->refused_leased++;
        if (r->claim == CLAIM_LEASED && c)
            store_want(sv->store, id); /* a client waits: its server is asked to let go */
        if (r->claim == CLAIM_LEASED)
            reply_error(c, "leased",
                        "match %" PRIu64 " is being played through another server; try again "
                        "in a moment",
                        id);
        else if (follow_refresh(sv, m))
            reply_error(c, "stale",
                        "match %" PRIu64 " was changed through another server; it has been "
                        "read again, try again",
                        id);
        else
            reply_error(c, "stale", "match %" PRIu64 " was changed through another server", id);
        return false;
    }
    if (r->admit == ADMIT_FULL || r->admit == ADMIT_BUSY) {
        change_discard(sv, ch);
        if (r->admit == ADMIT_FULL)
            reply_error(c, "match-limit",
                        "the site has its limit of %" PRIu64 " matches being played; one must "
                        "end first",
                        sv->opt.max_matches);
        else
            reply_error(c, "busy", "another server is admitting a new match; try again");
        return false;
    }
    if (r->lock_wait && ch->kind == CH_NEW && ch->seek_id) {
        uint64_t seek_id = ch->seek_id;
        change_discard(sv, ch);
        reply_error(c, "busy",
                    "seek %" PRIu64 " is being taken through another server; it stays open "
                    "if that fails: try again",
                    seek_id);
        return false;
    }
    if (r->damage && ch->kind != CH_NEW) {
        /* The rows of this match sit on a damaged page: set it aside, keep serving others. */
        remember_set_aside(sv, m->id, r->why, false);
        reply_set_aside(c, m->id, r->why);
        change_discard(sv, ch);
        table_remove(sv, m);
        match_free(sv, m);
        return false;
    }
    change_discard(sv, ch);
    reply_error(c, "io", "the change could not be stored (%s); nothing changed", r->why);
    return false;
}

void settle_after_failure(struct server *sv)
{
    char err[512];
    bool was = sv->halted;
    sv->halted = !store_settle(sv->store, err, sizeof err);
    if (sv->halted && !was)
        fprintf(stderr,
                "tg-server: a commit failed and the refused changes cannot be kept out of the "
                "log for certain (%s): taking no changes until they can\n",
                err);
    else if (!sv->halted && was)
        fprintf(stderr, "tg-server: the refused changes are out of the log: taking changes "
                        "again\n");
}

void apply_change(struct server *sv, struct change *ch, bool committed, const char *why)
{
    struct match *m = ch->match;
    struct client *c = client_by_serial(sv, ch->client_serial);
    if (c)
        c->awaiting = false;
    rematch_settle(sv, ch, committed && !ch->failed);
    if (!committed && sv->halted) {
        reply_error(c, "io",
                    "the change could not be stored (%s); whether the disk kept it is "
                    "not known, and no change is taken until it is",
                    why);
        change_discard(sv, ch);
        return;
    }
    if (!committed || ch->failed) {
        reply_error(c, "io", "the change could not be stored (%s); nothing changed",
                    committed ? "the round's transaction was lost" : why);
        change_discard(sv, ch);
        return;
    }
    bool kept = true;
    size_t plies_before = m->ply_count;
    bool live_before = ch->kind != CH_NEW && !match_over(m);
    if (ch->kind == CH_NEW || ch->kind == CH_MOVES || ch->kind == CH_JOIN)
        kept = note_plies(m, ch->made.items, ch->made.count);
    if (ch->kind == CH_JOIN)
        m->invite_seat = -1;
    else if (ch->kind == CH_UNDO)
        forget_plies(m, ch->keep_plies);
    if (ch->kept_changed) {
        free(m->kept_throws);
        m->kept_throws = ch->kept_after;
        ch->kept_after = NULL;
    } else if (ch->kind == CH_RESIGN)
        m->resigned = ch->seat;
    else if (ch->kind == CH_DRAW)
        m->agreed = true;
    else if (ch->kind == CH_ABORT)
        m->aborted = true;
    m->clock = ch->clock;
    m->flag_staged = false;
    if (ch->state) {
        tg_state_free(m->state);
        m->state = ch->state;
        ch->state = NULL;
    }
    m->busy = false;
    if (ch->kind == CH_UNDO_ASK) {
        m->undo_requested_by = ch->seat;
        m->undo_request_ply = tg_state_ply(m->state);
        m->undo_requested_at = sv->now;
    } else if (ch->kind != CH_DRAW_TALK) {
        m->undo_requested_by = -1;
    }
    if (ch->kind != CH_NEW)
        m->version++; /* as store_claim made it */
    follow_claimed(sv, m);
    if (!match_over(m))
        sv->live_count++;
    if (live_before && sv->live_count) /* a shared database: copies end here too */
        sv->live_count--;
    match_touch(sv, m);
    if (ch->kind == CH_NEW) {
        sv->match_count++;
        kept = kept && table_insert(sv, m);
    } else if (!kept) {
        table_remove(sv, m);
    }
    if (kept) {
        kept = track_clock(sv, m);
        if (!kept)
            table_remove(sv, m);
    }
    if (kept && ch->kind == CH_JOIN)
        push_event(sv, m, "joined %d", ch->seat);
    if (kept && (ch->kind == CH_MOVES || (ch->kind == CH_JOIN && ch->made.count))) {
        size_t start = plies_before ? m->plies[plies_before - 1].end : 0;
        push_event(sv, m, "moves %zu %.*s", plies_before, (int)(m->names.len - start - 1),
                   m->names.data + start);
    } else if (kept && ch->kind == CH_UNDO) {
        push_event(sv, m, "undone %zu", ch->keep_plies);
    } else if (kept && ch->kind == CH_UNDO_ASK) {
        push_event(sv, m, "undo-requested %d", ch->seat);
    } else if (kept && ch->kind == CH_UNDO_END) {
        push_event(sv, m, "undo-declined %d%s", ch->seat,
                   ch->undo_end == UNDO_LAPSED ? " by=timeout" : "");
    }
    if (kept)
        draw_committed(sv, ch, plies_before);
    if (kept && ch->kind != CH_NEW && !undo_talk(ch)) {
        push_clock(sv, m);
        if (match_over(m))
            push_event(sv, m, "result %s by=%s", result_word(m), end_reason(m));
    }
    if (kept)
        lobby_committed(sv, ch);
    else if (ch->kind == CH_NEW && ch->seek_id) /* stored: the seek is gone all the same */
        lobby_seek_settled(sv, ch, true);
    /* A new match's reply names the id its insert gave it, known only now on PostgreSQL; a
     * client that cannot be told its tokens is let go. */
    bool told = ch->kind != CH_NEW || new_match_reply(ch);
    if (!kept) /* out of memory for the notation only: stored, so it reloads when used */
        match_free(sv, m);
    if (c && (!told || !buf_append(&c->out, ch->reply.data, ch->reply.len)))
        c->dead = true;
    move_list_free(&ch->made);
    free(ch->reply.data);
}

/* Commits the round, then applies its changes to memory and queues their replies. On a shared
 * database no change is staged on the loop's connection: they go to the round threads
 * (round_thread_turn hands them over and answers them). */
void finish_round(struct server *sv)
{
    double t0 = monotonic_seconds();
    bool committed = store_commit_round(sv->store);
    if (sv->change_count)
        metrics_commit(sv, monotonic_seconds() - t0);
    char why[300] = "";
    if (!committed) {
        /* A failed sync may still have written the round's commit: out of the log with it
         * before anyone is told that nothing changed. */
        snprintf(why, sizeof why, "%s", store_error(sv->store));
        fprintf(stderr, "tg-server: a commit failed: %s\n", why);
        settle_after_failure(sv);
    }
    for (size_t i = 0; i < sv->change_count; i++)
        apply_change(sv, &sv->changes[i], committed, why);
    sv->change_count = 0;
    write_set_aside_marks(sv);
    if (sv->round_thread)
        round_thread_turn(sv);
}

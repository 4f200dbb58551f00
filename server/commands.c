/* The commands that change a match: new, play, bot, undo, accept, decline, resign; and watch. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lap limit (option `laps` of the relay games) bounds the work of every move; a rule set
 * that lifts it (laps=0) or sets it far above the default would let one move hold a worker
 * for minutes. Read from the canonical spec, which names every option of the game. */
static bool laps_within(const tg_rules *r, unsigned long max_laps)
{
    const char *spec = tg_rules_spec(r), *at = spec;
    while ((at = strstr(at, "laps=")) != NULL) {
        if (at > spec && (at[-1] == ':' || at[-1] == ',')) {
            unsigned long laps = strtoul(at + 5, NULL, 10);
            return laps > 0 && laps <= max_laps;
        }
        at += 5;
    }
    return true; /* a game whose moves always end */
}

/* The quiet limit (option `quiet` of the mancala games) is what makes every game end: with it
 * each game is bounded (every capture takes counters off the board for good, and at most
 * `quiet` moves pass between two); without it (quiet=0) two players can cycle for ever and
 * the match grow without end. */
static bool quiet_on(const tg_rules *r)
{
    const char *spec = tg_rules_spec(r), *at = spec;
    while ((at = strstr(at, "quiet=")) != NULL) {
        if (at > spec && (at[-1] == ':' || at[-1] == ','))
            return strtoul(at + 6, NULL, 10) > 0;
        at += 6;
    }
    return true; /* Tab: every decision moves a piece forward */
}

/* new SPEC [clock=M+S] [seat=0|1]: the creator takes one seat (0 unless it says) and gets an
 * invite for the other; nothing is thrown until both seats are taken, so the creator cannot
 * look at the opening throws before handing a seat out. */
struct rules_entry *rules_for_new_match(struct server *sv, struct client *c, const char *spec)
{
    tg_status st;
    struct rules_entry *rules = rules_acquire(sv, spec, &st);
    if (!rules) {
        reply_status(c, st);
        return NULL;
    }
    if (!laps_within(rules->rules, sv->opt.max_laps)) {
        rules_release(sv, rules);
        reply_error(c, "bad-option",
                    "this server plays the relay games with a lap limit from "
                    "1 to %lu (laps=N)",
                    sv->opt.max_laps);
        return NULL;
    }
    if (!quiet_on(rules->rules)) {
        rules_release(sv, rules);
        reply_error(c, "bad-option",
                    "this server plays the mancala games with a quiet limit, so that every "
                    "match ends (quiet=N, 1 to 1000)");
        return NULL;
    }
    return rules;
}

void cmd_new(struct server *sv, struct client *c, char **w, size_t n)
{
    const char *spec = w[1];
    struct stored_clock clock = {.flagged = -1};
    int creator = 0;
    bool clock_seen = false, seat_seen = false;
    for (size_t i = 2; i < n; i++) {
        if (!clock_seen && is_time_control(w[i])) {
            clock_seen = true;
            if (!parse_time_control(w[i], sv->opt.day_seconds, &clock)) {
                reply_error(c, "bad-option", TIME_CONTROL_HELP);
                return;
            }
        } else if (!seat_seen && (strcmp(w[i], "seat=0") == 0 || strcmp(w[i], "seat=1") == 0)) {
            seat_seen = true;
            creator = w[i][5] - '0';
        } else {
            reply_error(c, "bad-option", "new SPEC [clock=M+S|days=N] [seat=0|1]");
            return;
        }
    }
    if (!admit_new_match(sv, c))
        return;
    struct rules_entry *rules = rules_for_new_match(sv, c, spec);
    if (!rules)
        return;
    struct change *ch = new_match_change(sv, c, rules, &clock, 1 - creator, NULL);
    if (!ch)
        return;
    c->awaiting = true;
    stage(sv, ch); /* answered once stored (new_match_reply): ok ID TOKEN INVITE */
}

/* join ID INVITE: the other seat's token, to whoever shows the invite first; then the opening
 * throws, if the game has them, are made. */
void cmd_join(struct server *sv, struct client *c, struct match *m, const char *invite)
{
    if (m->invite_seat < 0) {
        reply_error(c, "already-joined", "both seats of match %" PRIu64 " are taken", m->id);
        return;
    }
    unsigned char diff = strlen(invite) != TOKEN_HEX_LEN;
    for (size_t i = 0; !diff && i < TOKEN_HEX_LEN; i++)
        diff |= (unsigned char)(invite[i] ^ m->invite[i]);
    if (diff) {
        reply_error(c, "bad-token", "that is not the invite of match %" PRIu64, m->id);
        return;
    }
    if (m->busy || match_over(m)) {
        reply_error(c, m->busy ? "busy" : "game-over", "match %" PRIu64 " cannot be joined now",
                    m->id);
        return;
    }
    /* The opening throws are made at the join: the creator's own connection taking the other
     * seat would see them before handing that seat out. */
    if (c->serial == m->creator_serial) {
        reply_error(c, "own-match",
                    "this connection made match %" PRIu64 "; the invite is for the other player",
                    m->id);
        return;
    }
    struct change *ch = change_new(sv, CH_JOIN, m, c->serial);
    if (ch)
        ch->account_id = signed_in_account(sv, c); /* its seat records the account */
    tg_status st = !ch ? TG_ERR_NO_MEMORY : state_copy_short(m->state, &ch->state);
    /* A game that opens with a throw gets it now, from the server, like every later one. */
    if (st == TG_OK)
        st = throw_while_chance(ch->state, &ch->made);
    if (st != TG_OK) {
        if (ch) {
            tg_state_free(ch->state);
            move_list_free(&ch->made);
        }
        reply_status(c, st);
        return;
    }
    ch->seat = m->invite_seat;
    buf_printf(&ch->reply, "ok %d %s\n", m->invite_seat, m->tokens[m->invite_seat]);
    m->busy = true;
    c->awaiting = true;
    stage(sv, ch);
}

/* The checks every command that changes a match makes: the token names a seat, nothing else
 * is changing the match, the game is still on, and (for PLY) the client saw the current
 * position. Returns the acting seat, or -1 after replying with the error. */
int acting_seat(struct client *c, struct match *m, const char *ply_text, const char *token)
{
    int seat = seat_of(m, token);
    if (seat < 0) {
        reply_error(c, "bad-token", "that token is not a seat of match %" PRIu64, m->id);
        return -1;
    }
    if (m->clock.kept.flagged >= 0 || m->flag_staged) {
        reply_error(c, "game-over", "the match ended on time");
        return -1;
    }
    if (m->busy) {
        reply_error(c, "busy", "a change to match %" PRIu64 " is being made; try again", m->id);
        return -1;
    }
    if (m->resigned >= 0 || m->agreed) {
        reply_error(c, "game-over", "the match ended by %s",
                    m->agreed ? "agreement (a draw)" : "resignation");
        return -1;
    }
    if (m->aborted) {
        reply_error(c, "game-over", "the match was aborted (%s)", abort_reason(m));
        return -1;
    }
    if (m->invite_seat >= 0) {
        reply_error(c, "not-joined", "seat %d of match %" PRIu64 " has not joined yet",
                    m->invite_seat, m->id);
        return -1;
    }
    uint64_t ply;
    if (ply_text) {
        if (!parse_u64(ply_text, &ply)) {
            reply_error(c, "usage", "PLY is the ply the move is made at, a number (see show)");
            return -1;
        }
        if (ply != tg_state_ply(m->state)) {
            reply_error(c, "stale-ply", "match %" PRIu64 " is at ply %zu, not %" PRIu64, m->id,
                        tg_state_ply(m->state), ply);
            return -1;
        }
    }
    return seat;
}

static bool to_move_check(struct client *c, struct match *m, int seat)
{
    if (tg_state_is_terminal(m->state)) {
        reply_status(c, TG_ERR_GAME_OVER);
        return false;
    }
    if (tg_state_player(m->state) != seat) {
        reply_error(c, "not-your-turn", "seat %d is to move, not seat %d",
                    tg_state_player(m->state), seat);
        return false;
    }
    return true;
}

static void submit_move_job(struct server *sv, struct client *c, struct match *m,
                            enum job_kind kind, int seat, tg_move move, const char *bot,
                            double deadline)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j || state_copy_short(m->state, &j->state) != TG_OK) {
        job_free(j);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    j->kind = kind;
    j->base.work = kind == JOB_BOT ? work_bot : work_play;
    j->client_serial = c->serial;
    j->match = m;
    j->seat = seat;
    j->move = move;
    j->arrived = sv->now;
    j->deadline = deadline;
    j->max_bot_ms = sv->opt.max_bot_ms;
    if (m->kept_throws && !(j->kept = strdup(m->kept_throws))) {
        job_free(j);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    if (bot)
        snprintf(j->bot, sizeof j->bot, "%s", bot);
    /* A search waits its address's turn on the bot workers; a bot that barely searches is a
     * move's work and never waits behind searches. */
    bool searching = kind == JOB_BOT && !bot_is_cheap(bot, sv->opt.max_bot_ms, sv->now, deadline);
    if (!job_submit(searching ? sv->bot_pool : sv->move_pool, c, j,
                    searching ? BOT_JOBS_PER_ADDRESS : 0)) {
        job_free(j);
        return;
    }
    m->busy = true;
    c->awaiting = true;
}

/* The seat a play or bot command acts for, if it is that seat's turn and its time has not
 * run out (the same checks for a move chosen by the client or by a bot); -1: the client has
 * its error. */
static int seat_to_move(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, w[2], w[4]);
    if (seat < 0 || !to_move_check(c, m, seat))
        return -1;
    if (flag_fell(sv, m)) {
        reply_error(c, "game-over", "the match ended on time");
        return -1;
    }
    return seat;
}

void cmd_play(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = seat_to_move(sv, c, m, w);
    if (seat < 0)
        return;
    if (strncmp(w[3], "throw", 5) == 0) {
        reply_error(c, "server-throws", "chance outcomes are thrown by the server, never chosen");
        return;
    }
    tg_move mv;
    tg_status st = tg_move_from_string(m->state, w[3], &mv);
    if (st == TG_OK && !tg_state_is_legal(m->state, mv))
        st = TG_ERR_ILLEGAL_MOVE;
    if (st != TG_OK) {
        reply_status(c, st);
        return;
    }
    submit_move_job(sv, c, m, JOB_PLAY, seat, mv, NULL, 0);
}

/* Whether the match is casual; if rated (or not known), the client is told why not. */
static bool unrated(struct server *sv, struct client *c, const struct match *m, const char *word,
                    const char *why)
{
    switch (match_rated(sv, m)) {
    case RATED_NO:
        return true;
    case RATED_YES:
        reply_error(c, word, "%s", why);
        return false;
    default:
        reply_error(c, "io", "whether the match is rated could not be read (%s)",
                    store_error(sv->store));
        return false;
    }
}

void cmd_bot(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = seat_to_move(sv, c, m, w);
    if (seat < 0)
        return;
    /* A rated match's seats play for themselves: a server for rated play refuses bots. */
    if (sv->opt.no_bots_on_clock && m->clock.kept.on) {
        reply_error(c, "bots-forbidden", "this server plays matches with a clock without bots");
        return;
    }
    if (!unrated(sv, c, m, "bots-forbidden", "a rated match's seats play for themselves: no bot"))
        return;
    const char *spec = bot_level_spec(tg_rules_game_id(m->rules->rules), w[3]);
    tg_status st = tg_bot_check(spec);
    if (st != TG_OK) {
        reply_status(c, st);
        return;
    }
    char why[128];
    const char *word = bot_over_limit(spec, &sv->opt, why, sizeof why);
    if (word) {
        reply_error(c, word, "%s", why);
        return;
    }
    /* On a running clock the search gets a share of the seat's time (a tenth, and half its
     * increment), and never all of it: the flag still falls on the move's own time. */
    double deadline = 0;
    if (clock_running(m) == seat) {
        int64_t left = clock_left(m, seat, sv->now);
        int64_t share = left / 10 + m->clock.kept.increment_ms / 2;
        if (share > left - BOT_CLOCK_MARGIN_MS)
            share = left - BOT_CLOCK_MARGIN_MS;
        deadline = sv->now + (double)(share > 1 ? share : 1) / 1000.0;
    }
    submit_move_job(sv, c, m, JOB_BOT, seat, 0, spec, deadline);
}

/* The last decision and the throws after it, which an accepted undo takes back; the throw
 * that decision answered stays, so an undo never re-throws the sticks. */
static bool undo_target(const struct match *m, size_t *keep)
{
    for (size_t i = m->ply_count; i-- > 0;)
        if (m->plies[i].seat >= 0) {
            *keep = i;
            return true;
        }
    return false;
}

void cmd_undo(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, w[2], w[3]);
    size_t keep;
    if (seat < 0)
        return;
    if (!undo_target(m, &keep)) {
        reply_status(c, TG_ERR_NO_HISTORY);
        return;
    }
    /* A rated result is final once stored (its ratings moved with it): nothing is taken back. */
    if (!unrated(sv, c, m, "rated", "a rated match takes no move back"))
        return;
    if (m->undo_requested_by >= 0) {
        reply_error(c, "undo-pending",
                    "seat %d already asked; the other seat answers with "
                    "accept or decline",
                    m->undo_requested_by);
        return;
    }
    struct change *ch = change_new(sv, CH_UNDO_ASK, m, c->serial);
    if (!ch) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    /* Stored like a move (any server answers it, and it outlives this one); its event goes
     * out with the commit, before the reply. */
    ch->seat = seat;
    buf_printf(&ch->reply, "ok requested\n");
    m->busy = true;
    c->awaiting = true;
    stage(sv, ch);
}

/* Stages the end of the match's open request: declined by seat, or lapsed (no client). */
static void stage_undo_end(struct server *sv, struct client *c, struct match *m, int seat,
                           enum undo_state how)
{
    struct change *ch = change_new(sv, CH_UNDO_END, m, c ? c->serial : 0);
    if (!ch) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    ch->seat = seat;
    ch->undo_end = how;
    if (c) {
        buf_printf(&ch->reply, "ok declined\n");
        c->awaiting = true;
    }
    m->busy = true;
    stage(sv, ch);
}

void undo_take(struct server *sv, struct match *m, const struct stored_undo *u)
{
    m->undo_requested_by = u->seat;
    m->undo_request_ply = tg_state_ply(m->state);
    m->undo_requested_at = sv->now - (double)u->age_ms / 1000.0;
}

void undo_lapse(struct server *sv, struct match *m)
{
    /* On a shared database the server playing the match lapses it; another one only once
     * that server has had a lease's time more to do so (it stopped, or died). */
    double late = sv->now - m->undo_requested_at - sv->opt.undo_timeout;
    if (m->busy || m->loading || m->undo_requested_by < 0 || late <= 0 ||
        (store_is_shared(sv->store) && !m->claimed && late < (double)sv->opt.lease_ms / 1000.0))
        return;
    stage_undo_end(sv, NULL, m, 1 - m->undo_requested_by, UNDO_LAPSED);
}

void cmd_answer_undo(struct server *sv, struct client *c, struct match *m, char **w, bool accept)
{
    int seat = acting_seat(c, m, w[2], w[3]);
    if (seat < 0)
        return;
    /* Past its time a request is over, whether or not its lapse is stored yet. */
    if (m->undo_requested_by < 0 || m->undo_request_ply != tg_state_ply(m->state) ||
        sv->now - m->undo_requested_at > sv->opt.undo_timeout) {
        reply_error(c, "no-undo-request", "nobody asked to take back a move at this ply");
        return;
    }
    if (m->undo_requested_by == seat) {
        reply_error(c, "not-your-turn", "the other seat answers an undo request");
        return;
    }
    if (!accept) {
        stage_undo_end(sv, c, m, seat, UNDO_DECLINED);
        return;
    }
    size_t keep;
    if (!undo_target(m, &keep)) {
        reply_status(c, TG_ERR_NO_HISTORY);
        return;
    }
    /* The throws that followed the decision are kept for the next decisions (before any kept
     * earlier), so that taking a move back never throws the sticks again. */
    char *kept = NULL;
    size_t from = m->plies[keep].end, to = m->names.len;
    if (to > from) {
        size_t old = m->kept_throws ? strlen(m->kept_throws) + 1 : 0;
        if (!(kept = malloc(to - from + old + 1))) {
            reply_status(c, TG_ERR_NO_MEMORY);
            return;
        }
        memcpy(kept, m->names.data + from, to - from - 1); /* without the last space */
        kept[to - from - 1] = '\0';
        if (old) {
            strcat(kept, " ");
            strcat(kept, m->kept_throws);
        }
    }
    submit_undo(sv, c, m, keep, kept);
}

void cmd_resign(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, NULL, w[2]);
    if (seat < 0)
        return;
    if (tg_state_is_terminal(m->state)) {
        reply_status(c, TG_ERR_GAME_OVER);
        return;
    }
    struct change *ch = change_new(sv, CH_RESIGN, m, c->serial);
    if (!ch) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    ch->seat = seat;
    buf_printf(&ch->reply, "ok\n");
    m->busy = true;
    c->awaiting = true;
    stage(sv, ch);
}

/* Subscribes the connection to the match's events, after the lines that bring it from ply
 * `ply_text` (0 if absent) to the present. */
void cmd_watch(struct server *sv, struct client *c, struct match *m, const char *ply_text)
{
    uint64_t from = 0;
    if (ply_text && !parse_u64(ply_text, &from)) {
        reply_error(c, "usage", "watch ID [PLY]: PLY is the ply the client last saw");
        return;
    }
    /* The catch-up is one copy of the notation from that ply on: within --max-buffered with
     * every other client's output, like `history`. */
    size_t catch_up_bytes = m->names.len - (from && from <= m->ply_count ? m->plies[from - 1].end
                                            : from                       ? m->names.len
                                                                         : 0);
    if (sv->out_total + catch_up_bytes > sv->opt.max_buffered) {
        reply_error(c, "overloaded", "too much output waits for clients; try again");
        return;
    }
    sv->out_total += catch_up_bytes;
    if (!watches(c, m->id)) {
        if (c->watch_count == WATCH_MAX) {
            reply_error(c, "usage", "a connection watches at most %d matches", WATCH_MAX);
            return;
        }
        c->watching[c->watch_count++] = m->id;
        m->watchers++;
    }
    buf_printf(&c->out, "ok watching ply=%zu spec=%s", m->ply_count,
               tg_rules_spec(m->rules->rules));
    if (m->clock.kept.on)
        buf_printf(&c->out, " clock=%" PRId64 "+%" PRId64 "ms", m->clock.kept.base_ms,
                   m->clock.kept.increment_ms);
    if (m->clock.kept.days)
        buf_printf(&c->out, " days=%d", m->clock.kept.days);
    buf_append(&c->out, "\n", 1);
    catch_up(sv, c, m, from > m->ply_count + 1 ? m->ply_count + 1 : (size_t)from);
}

void cmd_unwatch(struct client *c, struct match *m)
{
    for (size_t i = 0; i < c->watch_count; i++)
        if (c->watching[i] == m->id) {
            c->watching[i] = c->watching[--c->watch_count];
            if (m->watchers)
                m->watchers--;
            break;
        }
    buf_append(&c->out, "ok\n", 3);
}

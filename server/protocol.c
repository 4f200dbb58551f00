/* The line protocol: replies and errors, the dispatch of one command line, and the commands
 * that only read. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- replies ------------------------------------------------------------------------ */

struct client *client_by_serial(struct server *sv, uint64_t serial)
{
    for (size_t i = 0; i < sv->client_count; i++)
        if (sv->clients[i]->serial == serial)
            return sv->clients[i];
    return NULL;
}

void reply_error(struct client *c, const char *word, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void reply_error(struct client *c, const char *word, const char *fmt, ...)
{
    if (!c)
        return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* The text may quote damaged rows or a client's bytes: a reply stays one line. */
    for (char *p = text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    if (!buf_printf(&c->out, "err %s %s\n", word, text))
        c->dead = true;
}

static const char *status_word(tg_status st)
{
    switch (st) {
    case TG_ERR_INVALID_ARGUMENT:
        return "invalid-argument";
    case TG_ERR_NO_MEMORY:
        return "no-memory";
    case TG_ERR_UNKNOWN_GAME:
        return "unknown-game";
    case TG_ERR_BAD_OPTION:
        return "bad-option";
    case TG_ERR_ILLEGAL_MOVE:
        return "illegal-move";
    case TG_ERR_PARSE:
        return "parse";
    case TG_ERR_BUFFER_TOO_SMALL:
        return "buffer-too-small";
    case TG_ERR_NO_HISTORY:
        return "no-history";
    case TG_ERR_GAME_OVER:
        return "game-over";
    case TG_ERR_RULES_MISMATCH:
        return "rules-mismatch";
    default:
        return "error";
    }
}

void reply_status(struct client *c, tg_status st)
{
    reply_error(c, status_word(st), "%s", tg_status_string(st));
}

void refuse_set_aside(struct load_refusal *r, uint64_t id, const char *reason)
{
    load_refuse(r, "set-aside",
                "match %" PRIu64 " was set aside (its stored record is damaged): %s", id, reason);
}

void reply_set_aside(struct client *c, uint64_t id, const char *reason)
{
    struct load_refusal r;
    refuse_set_aside(&r, id, reason);
    reply_error(c, r.code, "%s", r.text);
}

bool parse_u64(const char *text, uint64_t *out)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v > INT64_MAX)
        return false;
    *out = v;
    return true;
}

/* ---- the protocol ------------------------------------------------------------------- */

static void cmd_moves(struct client *c, struct match *m)
{
    size_t cap = tg_rules_max_moves(tg_state_rules(m->state)), n = 0;
    tg_move *moves = malloc((cap ? cap : 1) * sizeof *moves);
    if (!moves) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    if (!match_over(m))
        tg_state_moves(m->state, moves, cap, &n);
    buf_append(&c->out, "ok", 2);
    for (size_t i = 0; i < n; i++) {
        char name[NOTATION_MAX];
        if (tg_move_to_string(m->state, moves[i], name, sizeof name, NULL) == TG_OK)
            buf_printf(&c->out, " %s", name);
    }
    buf_append(&c->out, "\n", 1);
    free(moves);
}

static void cmd_show(struct server *sv, struct client *c, struct match *m)
{
    size_t needed = 0;
    struct buf text = {0};
    if (tg_state_to_string(m->state, NULL, 0, &needed) != TG_OK || !buf_reserve(&text, needed) ||
        tg_state_to_string(m->state, text.data, needed + 1, NULL) != TG_OK) {
        free(text.data);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    int player = tg_state_player(m->state);
    const char *to_move = match_over(m) ? "-" : player == TG_CHANCE ? "chance" : player ? "1" : "0";
    char undo[64] = "", clock[80] = "", by[24] = "";
    if (m->undo_requested_by >= 0)
        snprintf(undo, sizeof undo, " undo-requested-by=%d", m->undo_requested_by);
    if (m->draw.by >= 0 && !match_over(m))
        snprintf(undo + strlen(undo), sizeof undo - strlen(undo), " draw-offered-by=%d",
                 m->draw.by);
    if (m->clock.kept.on)
        snprintf(clock, sizeof clock, " clock=%" PRId64 ",%" PRId64, clock_left(m, 0, sv->now),
                 clock_left(m, 1, sv->now));
    if (m->resigned >= 0 || m->agreed || m->clock.kept.flagged >= 0 || m->aborted)
        snprintf(by, sizeof by, " by=%s", end_reason(m));
    if (m->invite_seat >= 0 && !match_over(m))
        snprintf(undo, sizeof undo, " waiting-for=%d", m->invite_seat);
    buf_printf(&c->out, "ok ply=%zu turn=%s result=%s%s%s%s position=%s\n", tg_state_ply(m->state),
               to_move, result_word(m), by, undo, clock, text.data);
    free(text.data);
}

static void cmd_history(struct server *sv, struct client *c, struct match *m)
{
    /* One copy of the notation the match keeps, sent as the socket takes it; the output of
     * every client together stays within --max-buffered. */
    if (sv->out_total + m->names.len > sv->opt.max_buffered) {
        reply_error(c, "overloaded", "too much output waits for clients; try again");
        return;
    }
    sv->out_total += m->names.len;
    buf_append(&c->out, "ok", 2);
    if (m->names.len) {
        buf_append(&c->out, " ", 1);
        buf_append(&c->out, m->names.data, m->names.len - 1); /* without the last space */
    }
    buf_append(&c->out, "\n", 1);
}

static void cmd_list(struct server *sv, struct client *c, const char *after_text)
{
    uint64_t after = 0, ids[LIST_MAX];
    size_t n = 0;
    bool more = false;
    if (after_text && !parse_u64(after_text, &after)) {
        reply_error(c, "usage", "list [AFTER-ID]");
        return;
    }
    /* Past a damaged page of matches found at start-up: a seek above the page's last id lands
     * on the page itself, so the first id past it is looked up on its own. */
    for (uint64_t from = after;;) {
        size_t got = 0;
        bool listed = store_list_ids(sv->store, from, ids + n, LIST_MAX - n, &got, &more);
        n += got;
        if (listed)
            break;
        uint64_t last = n ? ids[n - 1] : from;
        const struct id_gap *gap = NULL;
        for (size_t i = 0; i < sv->gap_count && !gap; i++)
            if (sv->gaps[i].from <= last + 1 && last < sv->gaps[i].to)
                gap = &sv->gaps[i];
        if (!gap && n == 0) {
            reply_error(c, "io", "the match list could not be read (%s)", store_error(sv->store));
            return;
        }
        more = false;
        if (!gap || gap->to == UINT64_MAX)
            break;
        from = gap->to + 1;
        bool exists = false;
        if (store_match_exists(sv->store, from, &exists) && exists)
            ids[n++] = from;
        if (n == LIST_MAX) {
            more = true;
            break;
        }
    }
    buf_append(&c->out, "ok", 2);
    for (size_t i = 0; i < n; i++)
        buf_printf(&c->out, " %" PRIu64, ids[i]);
    if (more)
        buf_append(&c->out, " more", 5);
    buf_append(&c->out, "\n", 1);
}

/* On a shared database matches= and live= are the site's, counted there (at most half a
 * second old, so that a client asking again and again costs the database two reads a second),
 * and servers= and site-clients= follow; the rest is this server's own. */
static void cmd_status(struct server *sv, struct client *c)
{
    bool site = follow_site(sv, 0.5);
    buf_printf(&c->out,
               "ok matches=%" PRIu64 " loaded=%zu clients=%zu move-jobs=%zu bot-jobs=%zu "
               "live=%" PRIu64 " buffered=%zu rate-limited=%" PRIu64 " refused-full=%" PRIu64
               " dropped-watchers=%" PRIu64 " set-aside=%zu",
               site ? sv->site.matches : sv->match_count, sv->loaded_count, sv->client_count,
               pool_in_flight(sv->move_pool), pool_in_flight(sv->bot_pool),
               site ? sv->site.live : sv->live_count, sv->out_total, sv->refused_rate,
               sv->refused_full, sv->dropped_watchers, sv->set_aside_count);
    for (size_t i = 0; i < sv->set_aside_count && i < STATUS_IDS_MAX; i++)
        buf_printf(&c->out, "%c%" PRIu64, i ? ',' : ':', sv->set_aside[i].id);
    if (site)
        buf_printf(&c->out, " servers=%" PRIu64 " site-clients=%" PRIu64, sv->site.servers,
                   sv->site.clients);
    buf_append(&c->out, "\n", 1);
}

/* Splits `line` into at most `max` space-separated words; returns how many, or max + 1 if
 * there are more. */
static size_t split_words(char *line, char **words, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            return n;
        if (n == max)
            return max + 1;
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = '\0';
    }
}

static const char help_text[] =
    "ok commands: new SPEC [clock=M+S|days=N] [seat=0|1]; join ID INVITE; show ID; moves ID; "
    "history ID; record ID; watch ID [PLY]; "
    "unwatch ID; list [AFTER]; status; "
    "play ID PLY MOVE TOKEN; bot ID PLY BOT TOKEN; undo ID PLY TOKEN; accept ID PLY TOKEN; "
    "decline ID PLY TOKEN; offer-draw ID PLY TOKEN; accept-draw ID PLY TOKEN; "
    "decline-draw ID PLY TOKEN; withdraw-draw ID PLY TOKEN; resign ID TOKEN; rematch ID TOKEN; register NAME PASSWORD; "
    "login NAME PASSWORD; session TOKEN; logout; logout-all; delete-account PASSWORD; whoami; "
    "seek SPEC clock=M+S|days=N rated|casual [range=MIN-MAX]; challenge NAME SPEC "
    "clock=M+S|days=N "
    "rated|casual; unseek [ID]; accept-seek ID; decline-seek ID; lobby; player NAME; "
    "player-page NAME [PAGE]; match-page ID; help; quit\n";

/* The last entries of handle_line's table, handed to accounts.c. */
#define ACCOUNT_COMMANDS 7
/* The entries before them (but `player`), handed to lobby-seek.c. */
#define LOBBY_COMMANDS 7

enum run_result handle_line(struct server *sv, struct client *c, char *line)
{
    char *w[6];
    size_t n = split_words(line, w, 5);
    if (n == 0)
        return RUN_DONE; /* blank lines are ignored */
    if (client_greet(sv, c, w, n))
        return RUN_DONE;
    static const struct {
        const char *name;
        size_t min_words, max_words;
        bool acts; /* needs a seat token, its last word */
    } commands[] = {
        {"quit", 1, 1, false},
        {"help", 1, 1, false},
        {"status", 1, 1, false},
        {"list", 1, 2, false},
        {"new", 2, 4, false},
        {"show", 2, 2, false},
        {"watch", 2, 3, false},
        {"unwatch", 2, 2, false},
        {"moves", 2, 2, false},
        {"history", 2, 2, false},
        {"play", 5, 5, true},
        {"bot", 5, 5, true},
        {"undo", 4, 4, true},
        {"accept", 4, 4, true},
        {"decline", 4, 4, true},
        {"resign", 3, 3, true},
        {"offer-draw", 4, 4, true},
        {"accept-draw", 4, 4, true},
        {"decline-draw", 4, 4, true},
        {"withdraw-draw", 4, 4, true},
        {"join", 3, 3, false},
        {"record", 2, 2, false},
        {"rematch", 3, 3, true},
        {"player-page", 2, 3, false},
        {"match-page", 2, 2, false},
        {"seek", 4, 5, false},
        {"challenge", 5, 5, false},
        {"unseek", 1, 2, false},
        {"accept-seek", 2, 2, false},
        {"decline-seek", 2, 2, false},
        {"lobby", 1, 1, false},
        {"player", 2, 2, false},
        {"register", 3, 3, false},
        {"login", 3, 3, false},
        {"session", 2, 2, false},
        {"logout", 1, 1, false},
        {"logout-all", 1, 1, false},
        {"delete-account", 2, 2, false},
        {"whoami", 1, 1, false},
    };
    size_t k = 0;
    while (k < sizeof commands / sizeof *commands && strcmp(w[0], commands[k].name) != 0)
        k++;
    if (k == sizeof commands / sizeof *commands) {
        reply_error(c, "unknown-command", "try help");
        return RUN_DONE;
    }
    if (commands[k].acts && n + 1 == commands[k].min_words) {
        reply_error(c, "token-required", "%s changes a match: its last word is your seat token",
                    w[0]);
        return RUN_DONE;
    }
    if (n < commands[k].min_words || n > commands[k].max_words) {
        reply_error(c, "usage", "wrong number of arguments (help lists the commands)");
        return RUN_DONE;
    }
    const char *cmd = w[0];
    /* A command waiting for its match to load runs again: it is charged once. */
    if (!c->charged && !spend_budget(sv, c, cmd))
        return RUN_DONE;
    c->charged = true;
    if (strcmp(cmd, "quit") == 0) {
        buf_append(&c->out, "ok bye\n", 7);
        c->closing = true;
        return RUN_DONE;
    }
    if (strcmp(cmd, "help") == 0) {
        buf_append(&c->out, help_text, sizeof help_text - 1);
        return RUN_DONE;
    }
    if (strcmp(cmd, "status") == 0) {
        cmd_status(sv, c);
        return RUN_DONE;
    }
    if (strcmp(cmd, "list") == 0) {
        cmd_list(sv, c, n == 2 ? w[1] : NULL);
        return RUN_DONE;
    }
    if (strcmp(cmd, "new") == 0) {
        cmd_new(sv, c, w, n);
        return RUN_DONE;
    }
    if (strcmp(cmd, "player") == 0) {
        cmd_player(sv, c, w[1]);
        return RUN_DONE;
    }
    if (strcmp(cmd, "player-page") == 0) {
        cmd_player_page(sv, c, w[1], n == 3 ? w[2] : NULL);
        return RUN_DONE;
    }
    if (strcmp(cmd, "match-page") == 0) {
        cmd_match_page(sv, c, w[1]);
        return RUN_DONE;
    }
    if (k >= sizeof commands / sizeof *commands - ACCOUNT_COMMANDS - LOBBY_COMMANDS &&
        k < sizeof commands / sizeof *commands - ACCOUNT_COMMANDS) {
        cmd_lobby(sv, c, w, n);
        return RUN_DONE;
    }
    if (k >= sizeof commands / sizeof *commands - ACCOUNT_COMMANDS) {
        cmd_account(sv, c, w, n);
        return RUN_DONE;
    }
    struct match *m;
    if (find_match(sv, c, w[1], &m) == RUN_WAIT)
        return RUN_WAIT;
    if (!m)
        return RUN_DONE;
    if (strcmp(cmd, "moves") == 0)
        cmd_moves(c, m);
    else if (strcmp(cmd, "show") == 0)
        cmd_show(sv, c, m);
    else if (strcmp(cmd, "history") == 0)
        cmd_history(sv, c, m);
    else if (strcmp(cmd, "record") == 0)
        cmd_record(sv, c, m);
    else if (strcmp(cmd, "watch") == 0)
        cmd_watch(sv, c, m, n == 3 ? w[2] : NULL);
    else if (strcmp(cmd, "join") == 0)
        cmd_join(sv, c, m, w[2]);
    else if (strcmp(cmd, "rematch") == 0)
        return cmd_rematch(sv, c, m, w);
    else if (strcmp(cmd, "unwatch") == 0)
        cmd_unwatch(c, m);
    else if (strcmp(cmd, "play") == 0)
        cmd_play(sv, c, m, w);
    else if (strcmp(cmd, "bot") == 0)
        cmd_bot(sv, c, m, w);
    else if (strcmp(cmd, "undo") == 0)
        cmd_undo(sv, c, m, w);
    else if (strcmp(cmd, "accept") == 0)
        cmd_answer_undo(sv, c, m, w, true);
    else if (strcmp(cmd, "decline") == 0)
        cmd_answer_undo(sv, c, m, w, false);
    else if (strstr(cmd, "-draw"))
        cmd_draw(sv, c, m, w);
    else
        cmd_resign(sv, c, m, w);
    return RUN_DONE;
}

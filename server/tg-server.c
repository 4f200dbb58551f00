/* tg-server: a match server for libtraditional-games, the starting point for a game server.
 *
 *   tg-server [--port N] [--db PATH] [--port-file PATH] [--max-clients N] [--max-matches N]
 *             [--max-loaded N] [--idle-timeout S] [--bot-threads N] [--move-threads N]
 *             [--max-bot-iterations N] [--max-laps N] [--unload-after S] [--check]
 *             [--web-port N] [--web DIR] [--web-port-file PATH]
 *   tg-server --db PATH --migrate-logs DIR
 *
 * Listens on 127.0.0.1 and hosts matches of any game through a line-based text protocol
 * (docs/server.md). One thread serves every client from a poll() loop; anything that may take
 * long (a bot's search, a move, replaying a stored match) runs on a small pool of worker
 * threads, so no command holds up the other clients.
 *
 * Storage is one SQLite database in WAL mode (server/store.c): every change of one round of
 * the loop goes into one transaction, committed (and synced) before any reply of that round
 * is sent. Matches are loaded from the database when first used and unloaded when idle, so
 * start-up costs nothing per stored match. A stored match that does not replay exactly as
 * recorded (moves, notation, hashes, result) is set aside and reported, never served.
 *
 * Browsers (server/web.c): with --web-port, the same protocol over WebSocket, relayed to the
 * line port so that a browser is one more client of the loop, and the web app's files over
 * HTTP on that port. A connection that watches a match is pushed every change to it as an
 * `event` line. A match may have clocks (`new SPEC clock=M+S`), kept by the loop and stored
 * with every change; a flag fall ends the match.
 *
 * Seats: `new` answers two secret tokens from the OS's random source; changing a match needs
 * the token of the seat that acts, reading it needs nothing. Chance outcomes are thrown by the
 * server from the OS's random source.
 *
 * Exit status: 0 after SIGINT or SIGTERM (and after a migration with nothing skipped), 1 on a
 * fatal error (cannot listen, cannot open the database) or a migration that skipped logs, 2 on
 * bad arguments. */
#define _POSIX_C_SOURCE 200809L

#include "common.h"
#include "migrate.h"
#include "pool.h"
#include "store.h"
#include "web.h"

#include <traditional-games.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_FATAL = 1, EXIT_BAD_ARGS = 2 };

#define LINE_MAX_BYTES 1024          /* a command, without its newline */
#define OUT_HIGH_WATER (64u * 1024u) /* stop reading a client whose replies pile up */
#define IN_HIGH_WATER (64u * 1024u)  /* and one whose commands pile up unprocessed */
#define LINES_PER_ROUND 16           /* per client, so that one busy client cannot starve others */
#define LIST_MAX 100                 /* ids per `list` reply: every reply stays small */
#define STATUS_IDS_MAX 20            /* set-aside ids named by `status` */
#define TICK_MS 250                  /* the loop wakes at least this often for timeouts */
#define STOP_WAIT_SECONDS 2.0        /* how long a stop waits for running searches */
#define SPARE_DESCRIPTORS 32         /* the database, its log, the pipe, the listener, ... */
#define WATCH_MAX 16                 /* matches one connection may watch at once */
#define WATCHER_OUT_MAX (1024u * 1024u) /* a watcher this far behind on its events is dropped */
#define FLAG_CHECK_SECONDS 0.05      /* how often running clocks are looked at */

struct options {
    unsigned port;
    const char *db_path;
    const char *port_file;
    const char *migrate_dir;
    long web_port; /* -1: no WebSocket and HTTP listener */
    const char *web_dir;
    const char *web_port_file;
    size_t max_clients;
    uint64_t max_matches;
    size_t max_loaded;
    double idle_timeout;
    double unload_after;
    unsigned bot_threads, move_threads;
    unsigned long max_bot_iterations;
    unsigned long max_laps;
    bool check;
};

/* ---- rule sets, matches, clients ----------------------------------------------------- */

struct rules_entry {
    tg_rules *rules;
    size_t users; /* loaded matches of this rule set; freed at 0 */
};

struct ply_note {
    size_t end; /* where this ply's name ends in match.names */
    int seat;   /* who chose it: 0, 1, or -1 for a throw */
};

/* A time control kept by the server: each seat's time left at the start of its turn, and when
 * the turn began. A restart gives the seat to move its turn's time back (turn_began is not
 * stored): the server's downtime is never charged to a player. */
struct match_clock {
    struct stored_clock kept; /* as stored: on, base, increment, left at turn start, flagged */
    double turn_began;        /* monotonic seconds */
};

struct match {
    uint64_t id;
    struct match *next_in_bucket;
    struct rules_entry *rules;
    tg_state *state; /* NULL while loading */
    char tokens[2][TOKEN_HEX_LEN + 1];
    int resigned; /* -1, or the seat that resigned */
    bool loading; /* a worker replays it from the database */
    bool busy;    /* a change is being computed or committed: other changes wait */
    int undo_requested_by; /* -1, or the seat asking to take back the last decision */
    size_t undo_request_ply;
    struct buf names; /* the notation of every ply, each followed by one space */
    struct ply_note *plies;
    size_t ply_count, ply_cap;
    double last_used;
    struct match_clock clock;
    size_t watchers;  /* connections receiving its events: it stays loaded while watched */
    bool flag_staged; /* its flag fall is in this round's transaction */
};

struct client {
    uint64_t serial;
    int fd;
    struct buf in, out;
    size_t partial;  /* bytes of the unfinished line at the end of `in` */
    bool discarding; /* inside an overlong line: dropping bytes up to its newline */
    bool eof;        /* the peer closed its side: finish what is buffered, then close */
    bool closing;    /* close once the replies are sent */
    bool dead;
    bool awaiting;   /* a worker or the round's commit owes this client a reply */
    bool blocked;    /* its next command waits for a match being loaded */
    double last_active;
    uint64_t watching[WATCH_MAX];
    size_t watch_count;
};

enum job_kind { JOB_LOAD, JOB_PLAY, JOB_BOT };

struct job {
    struct pool_job base; /* first: the pool hands back this pointer */
    enum job_kind kind;
    uint64_t client_serial;
    struct match *match;
    tg_state *state; /* the worker's own state: a clone, or a replay from the database */
    int seat;
    tg_move move;
    char bot[LINE_MAX_BYTES + 1];
    struct stored_match stored; /* JOB_LOAD: the rows to replay */
    struct move_list made;      /* the moves the job made, throws included */
    tg_status status;
    char why[256]; /* JOB_LOAD: why the stored match does not replay */
};

enum change_kind { CH_NEW, CH_MOVES, CH_UNDO, CH_RESIGN, CH_FLAG };

/* A change made in this round's transaction; applied to memory and answered once committed. */
struct change {
    enum change_kind kind;
    struct match *match;
    uint64_t client_serial;
    tg_state *state; /* the match's state after the change */
    struct move_list made;
    size_t keep_plies; /* CH_UNDO */
    int seat;          /* CH_RESIGN, CH_FLAG */
    struct match_clock clock; /* the match's clocks after the change */
    struct buf reply;
    bool failed;
};

struct set_aside_entry {
    uint64_t id;
    char *reason;
    bool written; /* recorded in the database (a damaged page may refuse the write) */
};

struct server {
    struct options opt;
    struct store *store;
    struct pool *bot_pool, *move_pool;
    int wake_read, wake_write;
    struct rules_entry **rules;
    size_t rules_count;
    struct match **buckets;
    size_t bucket_count, loaded_count;
    uint64_t match_count;
    struct client **clients;
    size_t client_count;
    uint64_t next_serial;
    struct change *changes;
    size_t change_count, change_cap;
    struct set_aside_entry *set_aside;
    size_t set_aside_count, set_aside_cap;
    struct match **clocked; /* loaded matches whose clocks may still run */
    size_t clocked_count, clocked_cap;
    double now;
};

static double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tg-server: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_FATAL);
}

/* The shared rule set of a spec, made on first use; NULL and *st set on a bad spec. */
static struct rules_entry *rules_acquire(struct server *sv, const char *spec, tg_status *st)
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
    struct rules_entry **grown = e ? realloc(sv->rules, (sv->rules_count + 1) * sizeof *grown)
                                   : NULL;
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

static void rules_release(struct server *sv, struct rules_entry *e)
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

static struct match *loaded_match(struct server *sv, uint64_t id)
{
    if (!sv->bucket_count)
        return NULL;
    for (struct match *m = sv->buckets[bucket_of(sv, id)]; m; m = m->next_in_bucket)
        if (m->id == id)
            return m;
    return NULL;
}

static bool table_insert(struct server *sv, struct match *m)
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
    return true;
}

static void table_remove(struct server *sv, struct match *m)
{
    for (struct match **p = &sv->buckets[bucket_of(sv, m->id)]; *p; p = &(*p)->next_in_bucket)
        if (*p == m) {
            *p = m->next_in_bucket;
            sv->loaded_count--;
            return;
        }
}

static void match_free(struct server *sv, struct match *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < sv->clocked_count; i++)
        if (sv->clocked[i] == m) {
            sv->clocked[i] = sv->clocked[--sv->clocked_count];
            break;
        }
    tg_state_free(m->state);
    free(m->names.data);
    free(m->plies);
    rules_release(sv, m->rules);
    free(m);
}

static bool match_over(const struct match *m)
{
    return m->resigned >= 0 || m->clock.kept.flagged >= 0 || tg_state_is_terminal(m->state);
}

/* The seat whose clock runs now, or -1. */
static int clock_running(const struct match *m)
{
    if (!m->clock.kept.on || !m->clock.kept.started || !m->state || match_over(m))
        return -1;
    int p = tg_state_player(m->state);
    return p == 0 || p == 1 ? p : -1;
}

/* A seat's time left at `now`, in milliseconds (negative once its flag has fallen). */
static int64_t clock_left(const struct match *m, int seat, double now)
{
    int64_t left = m->clock.kept.left_ms[seat];
    if (clock_running(m) == seat)
        left -= (int64_t)((now - m->clock.turn_began) * 1000.0);
    return left;
}

/* The clocks after a change at `now`: the running seat is charged its turn; a decision by
 * `decider` adds its increment and starts the clocks if they were not yet running. */
static struct match_clock clock_after(const struct match *m, double now, int decider)
{
    struct match_clock c = m->clock;
    int running = clock_running(m);
    if (running >= 0) {
        c.kept.left_ms[running] = clock_left(m, running, now);
        /* A move that reached the server before its flag was seen to fall counts. */
        if (c.kept.left_ms[running] < 0)
            c.kept.left_ms[running] = 0;
    }
    if (decider >= 0 && c.kept.on) {
        if (c.kept.started)
            c.kept.left_ms[decider] += c.kept.increment_ms;
        c.kept.started = true;
    }
    c.turn_began = now;
    return c;
}

static bool track_clock(struct server *sv, struct match *m)
{
    if (!m->clock.kept.on || match_over(m))
        return true;
    for (size_t i = 0; i < sv->clocked_count; i++)
        if (sv->clocked[i] == m)
            return true;
    struct match **grown =
        array_reserve(sv->clocked, &sv->clocked_cap, sv->clocked_count + 1, sizeof *grown, 64);
    if (!grown)
        return false;
    sv->clocked = grown;
    sv->clocked[sv->clocked_count++] = m;
    return true;
}

/* Appends plies to the match's names; false (and nothing appended) when memory runs out. */
static bool note_plies(struct match *m, const struct stored_move *moves, size_t n)
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
    return true;
}

static void forget_plies(struct match *m, size_t keep)
{
    m->ply_count = keep;
    m->names.len = keep ? m->plies[keep - 1].end : 0;
    if (m->names.data)
        m->names.data[m->names.len] = '\0';
}

/* The seat whose token this is, or -1. Every byte is compared, so the time taken does not
 * tell a guesser how much of a token was right. */
static int seat_of(const struct match *m, const char *token)
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

static bool evictable(const struct match *m)
{
    /* A running clock is watched by the loop, and a watched match pushes its events. */
    return !m->loading && !m->busy && m->undo_requested_by < 0 && !m->watchers &&
           !(m->clock.kept.on && !match_over(m));
}

/* Makes room for one more loaded match by unloading the least recently used idle one: a
 * client reading through every stored match must not bring them all into memory. */
static bool room_to_load(struct server *sv)
{
    if (sv->loaded_count < sv->opt.max_loaded)
        return true;
    struct match *oldest = NULL;
    for (size_t b = 0; b < sv->bucket_count; b++)
        for (struct match *m = sv->buckets[b]; m; m = m->next_in_bucket)
            if (evictable(m) && (!oldest || m->last_used < oldest->last_used))
                oldest = m;
    if (!oldest)
        return false;
    table_remove(sv, oldest);
    match_free(sv, oldest);
    return true;
}

/* ---- set-aside matches ------------------------------------------------------------- */

static const struct set_aside_entry *find_set_aside(const struct server *sv, uint64_t id)
{
    for (size_t i = 0; i < sv->set_aside_count; i++)
        if (sv->set_aside[i].id == id)
            return &sv->set_aside[i];
    return NULL;
}

static void remember_set_aside(struct server *sv, uint64_t id, const char *reason, bool written)
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

static void on_stored_set_aside(uint64_t id, const char *reason, void *ctx)
{
    struct server *sv = ctx;
    if (find_set_aside(sv, id))
        return;
    remember_set_aside(sv, id, reason, true);
}

/* Set-aside marks are written between rounds, each in its own transaction: a damaged page
 * that refuses the write must not sink the other clients' changes. */
static void write_set_aside_marks(struct server *sv)
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

/* ---- replies ------------------------------------------------------------------------ */

static struct client *client_by_serial(struct server *sv, uint64_t serial)
{
    for (size_t i = 0; i < sv->client_count; i++)
        if (sv->clients[i]->serial == serial)
            return sv->clients[i];
    return NULL;
}

static void reply_error(struct client *c, const char *word, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void reply_error(struct client *c, const char *word, const char *fmt, ...)
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
    case TG_ERR_INVALID_ARGUMENT: return "invalid-argument";
    case TG_ERR_NO_MEMORY: return "no-memory";
    case TG_ERR_UNKNOWN_GAME: return "unknown-game";
    case TG_ERR_BAD_OPTION: return "bad-option";
    case TG_ERR_ILLEGAL_MOVE: return "illegal-move";
    case TG_ERR_PARSE: return "parse";
    case TG_ERR_BUFFER_TOO_SMALL: return "buffer-too-small";
    case TG_ERR_NO_HISTORY: return "no-history";
    case TG_ERR_GAME_OVER: return "game-over";
    case TG_ERR_RULES_MISMATCH: return "rules-mismatch";
    default: return "error";
    }
}

static void reply_status(struct client *c, tg_status st)
{
    reply_error(c, status_word(st), "%s", tg_status_string(st));
}

static void reply_set_aside(struct client *c, uint64_t id, const char *reason)
{
    reply_error(c, "set-aside",
                "match %" PRIu64 " was set aside (its stored record is damaged): %s", id, reason);
}

/* ---- events pushed to watchers ------------------------------------------------------- */

static bool watches(const struct client *c, uint64_t id)
{
    for (size_t i = 0; i < c->watch_count; i++)
        if (c->watching[i] == id)
            return true;
    return false;
}

/* Sends one line to every connection watching the match. */
static void push_event(struct server *sv, const struct match *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void push_event(struct server *sv, const struct match *m, const char *fmt, ...)
{
    if (!m->watchers)
        return;
    struct buf line = {0};
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(&line, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(line.data, (size_t)n + 1, fmt, ap);
    va_end(ap);
    line.len = (size_t)n;
    for (size_t i = 0; i < sv->client_count; i++) {
        struct client *c = sv->clients[i];
        if (c->dead || !watches(c, m->id))
            continue;
        /* A watcher that stopped reading is let go rather than buffered for without end. */
        if (c->out.len > WATCHER_OUT_MAX || !buf_printf(&c->out, "event %" PRIu64 " %s\n", m->id,
                                                        line.data))
            c->dead = true;
    }
    free(line.data);
}

static const char *result_word(const struct match *m);

static const char *end_reason(const struct match *m)
{
    return m->resigned >= 0 ? "resignation" : m->clock.kept.flagged >= 0 ? "time" : "rules";
}

/* The event lines that bring a watcher from having seen `from` plies to the match as it is. */
static void catch_up(struct server *sv, struct client *c, const struct match *m, size_t from)
{
    (void)sv;
    if (from > m->ply_count) {
        buf_printf(&c->out, "event %" PRIu64 " undone %zu\n", m->id, m->ply_count);
        from = m->ply_count;
    }
    if (from < m->ply_count) {
        size_t start = from ? m->plies[from - 1].end : 0;
        buf_printf(&c->out, "event %" PRIu64 " moves %zu ", m->id, from);
        buf_append(&c->out, m->names.data + start, m->names.len - start - 1);
        buf_append(&c->out, "\n", 1);
    }
    if (m->clock.kept.on) {
        int running = clock_running(m);
        buf_printf(&c->out, "event %" PRIu64 " clock %" PRId64 " %" PRId64 " %s\n", m->id,
                   clock_left(m, 0, sv->now), clock_left(m, 1, sv->now),
                   running < 0 ? "-" : running ? "1" : "0");
    }
    if (m->undo_requested_by >= 0)
        buf_printf(&c->out, "event %" PRIu64 " undo-requested %d\n", m->id,
                   m->undo_requested_by);
    if (match_over(m))
        buf_printf(&c->out, "event %" PRIu64 " result %s by=%s\n", m->id, result_word(m),
                   end_reason(m));
}

static void push_clock(struct server *sv, const struct match *m)
{
    if (!m->clock.kept.on)
        return;
    int running = clock_running(m);
    push_event(sv, m, "clock %" PRId64 " %" PRId64 " %s", clock_left(m, 0, sv->now),
               clock_left(m, 1, sv->now), running < 0 ? "-" : running ? "1" : "0");
}

/* ---- worker jobs ---------------------------------------------------------------------- */

static void job_free(struct job *j)
{
    if (!j)
        return;
    tg_state_free(j->state);
    stored_match_free(&j->stored);
    move_list_free(&j->made);
    free(j);
}

/* Replays the stored rows on a fresh state and checks that each one is what was recorded:
 * the move legal, played by the seat recorded, named as recorded, and leaving the recorded
 * hash. */
static void work_load(struct pool_job *pj)
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
            snprintf(j->why, sizeof j->why, "ply %zu: move %" PRIu32 " is not legal", i,
                     m->move);
        } else if (tg_move_to_string(j->state, m->move, name, sizeof name, NULL) != TG_OK ||
                   strcmp(name, m->notation) != 0) {
            snprintf(j->why, sizeof j->why, "ply %zu: notation '%s' is not the move's ('%s')",
                     i, m->notation, name);
        } else if ((j->status = tg_state_apply(j->state, m->move)) != TG_OK) {
            snprintf(j->why, sizeof j->why, "ply %zu: %s", i, tg_status_string(j->status));
            if (j->status == TG_ERR_NO_MEMORY)
                return;
        } else if (tg_state_hash(j->state) != m->hash_after) {
            snprintf(j->why, sizeof j->why, "ply %zu: the position's hash differs from the "
                     "recorded one", i);
        } else {
            continue;
        }
        j->status = TG_ERR_ILLEGAL_MOVE;
        return;
    }
    j->status = TG_OK;
}

static void work_play(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    j->status = record_move(j->state, j->move, j->seat, &j->made);
    if (j->status == TG_OK)
        j->status = throw_while_chance(j->state, &j->made);
}

static void work_bot(struct pool_job *pj)
{
    struct job *j = (struct job *)pj;
    uint64_t rng;
    if (!os_random(&rng, sizeof rng)) {
        j->status = TG_ERR_INVALID_ARGUMENT;
        return;
    }
    j->status = tg_bot_choose(j->state, j->bot, &rng, &j->move);
    if (j->status == TG_OK)
        work_play(pj);
}

/* ---- the round's transaction ---------------------------------------------------------- */

static struct change *change_new(struct server *sv, enum change_kind kind, struct match *m,
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

static void change_discard(struct server *sv, struct change *ch)
{
    tg_state_free(ch->state);
    move_list_free(&ch->made);
    free(ch->reply.data);
    if (ch->kind == CH_NEW)
        match_free(sv, ch->match);
    else
        ch->match->busy = false;
    if (ch->kind == CH_FLAG)
        ch->match->flag_staged = false;
}

/* The result row a state calls for, if it ended by the rules. */
static bool write_result_if_over(struct server *sv, uint64_t id, const tg_state *s)
{
    if (!tg_state_is_terminal(s))
        return true;
    int w = tg_state_winner(s);
    return store_set_result(sv->store, id, w == 0 || w == 1 ? w : -1, false, tg_state_ply(s),
                            tg_state_score(s, 0), tg_state_score(s, 1));
}

static bool write_moves(struct server *sv, uint64_t id, size_t first_ply,
                        const struct move_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        if (!store_insert_move(sv->store, id, first_ply + i, &l->items[i]))
            return false;
    return true;
}

/* Writes the change's rows inside a savepoint of the round's transaction. On success the
 * change waits for the commit; on failure nothing of it stays and its client hears why. */
static void stage(struct server *sv, struct change *ch)
{
    struct match *m = ch->match;
    bool ok = store_change_begin(sv->store);
    switch (ch->kind) {
    case CH_NEW:
        ok = ok && store_insert_match(sv->store, 0, tg_rules_spec(m->rules->rules),
                                      (const char(*)[TOKEN_HEX_LEN + 1])m->tokens, &m->id) &&
             write_moves(sv, m->id, 0, &ch->made) &&
             store_set_plies(sv->store, m->id, ch->made.count) &&
             write_result_if_over(sv, m->id, ch->state) &&
             (!ch->clock.kept.on || store_put_clock(sv->store, m->id, &ch->clock.kept));
        break;
    case CH_MOVES:
        ok = ok && write_moves(sv, m->id, tg_state_ply(m->state), &ch->made) &&
             store_set_plies(sv->store, m->id, tg_state_ply(ch->state)) &&
             write_result_if_over(sv, m->id, ch->state);
        break;
    case CH_UNDO:
        ok = ok && store_delete_moves_from(sv->store, m->id, ch->keep_plies) &&
             store_set_plies(sv->store, m->id, ch->keep_plies) &&
             store_clear_result(sv->store, m->id);
        break;
    case CH_RESIGN:
        ok = ok && store_set_result(sv->store, m->id, 1 - ch->seat, true, tg_state_ply(m->state),
                                    tg_state_score(m->state, 0), tg_state_score(m->state, 1));
        break;
    case CH_FLAG:
        break;
    }
    if (ch->kind != CH_NEW) {
        ch->clock = clock_after(m, sv->now, ch->kind == CH_MOVES ? ch->made.items[0].seat : -1);
        if (ch->kind == CH_FLAG) {
            ch->clock.kept.flagged = ch->seat;
            ch->clock.kept.left_ms[ch->seat] = 0;
        }
        ok = ok && (!ch->clock.kept.on || store_put_clock(sv->store, m->id, &ch->clock.kept));
    }
    bool damage = !ok && store_last_was_damage(sv->store);
    char why[300];
    snprintf(why, sizeof why, "%s", store_error(sv->store));
    enum change_outcome outcome = store_change_end(sv->store, ok);
    if (outcome == CHANGE_ROUND_LOST)
        for (size_t i = 0; i < sv->change_count; i++)
            sv->changes[i].failed = true;
    if (outcome == CHANGE_KEPT) {
        sv->change_count++;
        return;
    }
    struct client *c = client_by_serial(sv, ch->client_serial);
    if (c)
        c->awaiting = false;
    if (damage && ch->kind != CH_NEW) {
        /* The rows of this match sit on a damaged page: set it aside, keep serving others. */
        remember_set_aside(sv, m->id, why, false);
        reply_set_aside(c, m->id, why);
        change_discard(sv, ch);
        table_remove(sv, m);
        match_free(sv, m);
        return;
    }
    change_discard(sv, ch);
    reply_error(c, "io", "the change could not be stored (%s); nothing changed", why);
}

/* Commits the round, then applies its changes to memory and queues their replies. */
static void finish_round(struct server *sv)
{
    bool committed = store_commit_round(sv->store);
    const char *why = committed ? "" : store_error(sv->store);
    for (size_t i = 0; i < sv->change_count; i++) {
        struct change *ch = &sv->changes[i];
        struct match *m = ch->match;
        struct client *c = client_by_serial(sv, ch->client_serial);
        if (c)
            c->awaiting = false;
        if (!committed || ch->failed) {
            reply_error(c, "io", "the change could not be stored (%s); nothing changed",
                        committed ? "the round's transaction was lost" : why);
            change_discard(sv, ch);
            continue;
        }
        bool kept = true;
        size_t plies_before = m->ply_count;
        if (ch->kind == CH_NEW || ch->kind == CH_MOVES)
            kept = note_plies(m, ch->made.items, ch->made.count);
        else if (ch->kind == CH_UNDO)
            forget_plies(m, ch->keep_plies);
        else if (ch->kind == CH_RESIGN)
            m->resigned = ch->seat;
        m->clock = ch->clock;
        m->flag_staged = false;
        if (ch->state) {
            tg_state_free(m->state);
            m->state = ch->state;
            ch->state = NULL;
        }
        m->busy = false;
        m->undo_requested_by = -1;
        m->last_used = sv->now;
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
        if (kept && ch->kind == CH_MOVES) {
            size_t start = plies_before ? m->plies[plies_before - 1].end : 0;
            push_event(sv, m, "moves %zu %.*s", plies_before,
                       (int)(m->names.len - start - 1), m->names.data + start);
        } else if (kept && ch->kind == CH_UNDO) {
            push_event(sv, m, "undone %zu", ch->keep_plies);
        }
        if (kept && ch->kind != CH_NEW) {
            push_clock(sv, m);
            if (match_over(m))
                push_event(sv, m, "result %s by=%s", result_word(m), end_reason(m));
        }
        if (!kept) /* out of memory for the notation only: stored, so it reloads when used */
            match_free(sv, m);
        if (c && !buf_append(&c->out, ch->reply.data, ch->reply.len))
            c->dead = true;
        move_list_free(&ch->made);
        free(ch->reply.data);
    }
    sv->change_count = 0;
    write_set_aside_marks(sv);
}

/* ---- loading a stored match ---------------------------------------------------------- */

enum run_result { RUN_DONE, RUN_WAIT };

static bool parse_u64(const char *text, uint64_t *out)
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

static bool staged_new_id(const struct server *sv, uint64_t id)
{
    for (size_t i = 0; i < sv->change_count; i++)
        if (sv->changes[i].kind == CH_NEW && sv->changes[i].match->id == id)
            return true;
    return false;
}

/* Finds the match a command names, loading it if needed. RUN_WAIT: it is being loaded and the
 * command runs again once it is; RUN_DONE with *out NULL: the client has its error. */
static enum run_result find_match(struct server *sv, struct client *c, const char *id_text,
                                  struct match **out)
{
    *out = NULL;
    uint64_t id;
    if (!parse_u64(id_text, &id) || id == 0) {
        reply_error(c, "no-such-match", "no match has that id");
        return RUN_DONE;
    }
    struct match *m = loaded_match(sv, id);
    if (m) {
        if (m->loading)
            return RUN_WAIT;
        m->last_used = sv->now;
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
    char why[256];
    if (!room_to_load(sv)) {
        reply_error(c, "overloaded", "every loaded match is in use; try again");
        return RUN_DONE;
    }
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return RUN_DONE;
    }
    enum load_result found = store_load_match(sv->store, id, &j->stored, why, sizeof why);
    if (found != LOAD_FOUND) {
        job_free(j);
        if (found == LOAD_NOT_FOUND)
            reply_error(c, "no-such-match", "no match has that id");
        else {
            remember_set_aside(sv, id, why, found == LOAD_SET_ASIDE);
            reply_set_aside(c, id, why);
        }
        return RUN_DONE;
    }
    tg_status st;
    struct rules_entry *rules = rules_acquire(sv, j->stored.spec, &st);
    m = rules ? calloc(1, sizeof *m) : NULL;
    if (!m) {
        if (rules) {
            rules_release(sv, rules);
            reply_status(c, TG_ERR_NO_MEMORY);
        } else {
            snprintf(why, sizeof why, "its rule spec '%.100s' is not valid: %s", j->stored.spec,
                     tg_status_string(st));
            remember_set_aside(sv, id, why, false);
            reply_set_aside(c, id, why);
        }
        job_free(j);
        return RUN_DONE;
    }
    m->id = id;
    m->rules = rules;
    m->resigned = -1;
    m->undo_requested_by = -1;
    m->loading = true;
    m->last_used = sv->now;
    memcpy(m->tokens, j->stored.tokens, sizeof m->tokens);
    j->base.work = work_load;
    j->kind = JOB_LOAD;
    j->match = m;
    if (!table_insert(sv, m) || !pool_submit(sv->move_pool, &j->base)) {
        if (loaded_match(sv, id) == m)
            table_remove(sv, m);
        match_free(sv, m);
        job_free(j);
        reply_error(c, "overloaded", "the server has too much work queued; try again");
        return RUN_DONE;
    }
    return RUN_WAIT;
}

/* A load is accepted only if the result row agrees with the replayed game too. */
static bool result_consistent(const struct job *j, char *why, size_t why_cap)
{
    const struct stored_match *s = &j->stored;
    const tg_state *st = j->state;
    if (tg_state_player(st) == TG_CHANCE) {
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
    bool ok = s->by_resignation ? !tg_state_is_terminal(st) && s->winner >= 0
                                : tg_state_is_terminal(st) &&
                                      s->winner == (w == 0 || w == 1 ? w : -1);
    if (!ok)
        snprintf(why, why_cap, "the recorded result is not the game's");
    return ok;
}

static void load_done(struct server *sv, struct job *j)
{
    struct match *m = j->match;
    char why[256];
    snprintf(why, sizeof why, "%s", j->why);
    bool ok = j->status == TG_OK && result_consistent(j, why, sizeof why);
    if (ok && j->stored.clock.flagged >= 0 && (j->stored.has_result || tg_state_is_terminal(j->state))) {
        snprintf(why, sizeof why, "a flag fall is recorded for a match that ended otherwise");
        ok = false;
    }
    if (ok && note_plies(m, j->stored.moves, j->stored.move_count)) {
        m->state = j->state;
        j->state = NULL;
        m->loading = false;
        if (j->stored.by_resignation)
            m->resigned = 1 - j->stored.winner;
        m->clock.kept = j->stored.clock;
        m->clock.turn_began = sv->now;
        m->last_used = sv->now;
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
    buf_append(&ch->reply, "ok", 2);
    for (size_t i = 0; i < ch->made.count; i++)
        buf_printf(&ch->reply, " %s", ch->made.items[i].notation);
    buf_append(&ch->reply, "\n", 1);
    stage(sv, ch);
}

static void take_finished_jobs(struct server *sv)
{
    char drain[256];
    while (read(sv->wake_read, drain, sizeof drain) > 0)
        ;
    struct pool *pools[2] = {sv->move_pool, sv->bot_pool};
    for (int p = 0; p < 2; p++)
        for (struct pool_job *pj = pool_take_done(pools[p]), *next; pj; pj = next) {
            next = pj->next;
            struct job *j = (struct job *)pj;
            if (j->kind == JOB_LOAD)
                load_done(sv, j);
            else
                move_done(sv, j);
            job_free(j);
        }
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

static const char *result_word(const struct match *m)
{
    if (m->resigned >= 0)
        return m->resigned == 0 ? "1" : "0";
    if (m->clock.kept.flagged >= 0)
        return m->clock.kept.flagged == 0 ? "1" : "0";
    switch (tg_state_winner(m->state)) {
    case 0: return "0";
    case 1: return "1";
    case TG_DRAW: return "draw";
    default: return "running";
    }
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
    char undo[32] = "", clock[80] = "", by[24] = "";
    if (m->undo_requested_by >= 0)
        snprintf(undo, sizeof undo, " undo-requested-by=%d", m->undo_requested_by);
    if (m->clock.kept.on)
        snprintf(clock, sizeof clock, " clock=%" PRId64 ",%" PRId64, clock_left(m, 0, sv->now),
                 clock_left(m, 1, sv->now));
    if (m->resigned >= 0 || m->clock.kept.flagged >= 0)
        snprintf(by, sizeof by, " by=%s", end_reason(m));
    buf_printf(&c->out, "ok ply=%zu turn=%s result=%s%s%s%s position=%s\n",
               tg_state_ply(m->state), to_move, result_word(m), by, undo, clock, text.data);
    free(text.data);
}

static void cmd_history(struct client *c, struct match *m)
{
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
    if (!store_list_ids(sv->store, after, ids, LIST_MAX, &n, &more)) {
        reply_error(c, "io", "the match list could not be read (%s)", store_error(sv->store));
        return;
    }
    buf_append(&c->out, "ok", 2);
    for (size_t i = 0; i < n; i++)
        buf_printf(&c->out, " %" PRIu64, ids[i]);
    if (more)
        buf_append(&c->out, " more", 5);
    buf_append(&c->out, "\n", 1);
}

static void cmd_status(struct server *sv, struct client *c)
{
    buf_printf(&c->out,
               "ok matches=%" PRIu64 " loaded=%zu clients=%zu move-jobs=%zu bot-jobs=%zu "
               "set-aside=%zu",
               sv->match_count, sv->loaded_count, sv->client_count,
               pool_in_flight(sv->move_pool), pool_in_flight(sv->bot_pool),
               sv->set_aside_count);
    for (size_t i = 0; i < sv->set_aside_count && i < STATUS_IDS_MAX; i++)
        buf_printf(&c->out, "%c%" PRIu64, i ? ',' : ':', sv->set_aside[i].id);
    buf_append(&c->out, "\n", 1);
}

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

/* clock=M+S: M minutes (a fraction allowed: 0.5 is 30 s) for each seat, plus S seconds after
 * each of its decisions. */
static bool parse_clock(const char *text, struct stored_clock *out)
{
    if (strncmp(text, "clock=", 6) != 0 || !isdigit((unsigned char)text[6]))
        return false;
    char *end;
    errno = 0;
    double minutes = strtod(text + 6, &end);
    if (errno || *end != '+' || !isdigit((unsigned char)end[1]) || !(minutes > 0) ||
        minutes > 1440)
        return false;
    double seconds = strtod(end + 1, &end);
    if (errno || *end || !(seconds >= 0) || seconds > 3600)
        return false;
    *out = (struct stored_clock){.on = true,
                                 .base_ms = (int64_t)(minutes * 60000.0 + 0.5),
                                 .increment_ms = (int64_t)(seconds * 1000.0 + 0.5),
                                 .flagged = -1};
    out->left_ms[0] = out->left_ms[1] = out->base_ms;
    return out->base_ms > 0;
}

static void cmd_new(struct server *sv, struct client *c, const char *spec, const char *clock_text)
{
    struct stored_clock clock = {.flagged = -1};
    if (clock_text && !parse_clock(clock_text, &clock)) {
        reply_error(c, "bad-option", "a time control is clock=M+S: minutes (up to 1440) and an "
                    "increment in seconds (up to 3600), e.g. clock=5+3");
        return;
    }
    size_t staged = 0;
    for (size_t i = 0; i < sv->change_count; i++)
        staged += sv->changes[i].kind == CH_NEW;
    if (sv->match_count + staged >= sv->opt.max_matches) {
        reply_error(c, "match-limit", "this server holds its limit of %" PRIu64 " matches",
                    sv->opt.max_matches);
        return;
    }
    if (!room_to_load(sv)) {
        reply_error(c, "overloaded", "every loaded match is in use; try again");
        return;
    }
    tg_status st;
    struct rules_entry *rules = rules_acquire(sv, spec, &st);
    if (!rules) {
        reply_status(c, st);
        return;
    }
    if (!laps_within(rules->rules, sv->opt.max_laps)) {
        rules_release(sv, rules);
        reply_error(c, "bad-option", "this server plays the relay games with a lap limit from "
                    "1 to %lu (laps=N)", sv->opt.max_laps);
        return;
    }
    struct match *m = calloc(1, sizeof *m);
    struct change *ch = m ? change_new(sv, CH_NEW, m, c->serial) : NULL;
    if (!ch) {
        free(m);
        rules_release(sv, rules);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    m->rules = rules;
    m->resigned = -1;
    m->undo_requested_by = -1;
    m->busy = true;
    m->clock.kept = clock;
    m->clock.turn_began = sv->now;
    ch->clock = m->clock;
    st = tg_state_new(rules->rules, &ch->state);
    /* A game that opens with a throw gets it now, from the server, like every later one. */
    if (st == TG_OK)
        st = throw_while_chance(ch->state, &ch->made);
    if (st != TG_OK || !new_token(m->tokens[0]) || !new_token(m->tokens[1])) {
        tg_state_free(ch->state);
        move_list_free(&ch->made);
        match_free(sv, m);
        reply_status(c, st != TG_OK ? st : TG_ERR_INVALID_ARGUMENT);
        return;
    }
    c->awaiting = true;
    stage(sv, ch);
    if (sv->change_count && &sv->changes[sv->change_count - 1] == ch)
        buf_printf(&ch->reply, "ok %" PRIu64 " %s %s\n", m->id, m->tokens[0], m->tokens[1]);
}

/* The checks every command that changes a match makes: the token names a seat, nothing else
 * is changing the match, the game is still on, and (for PLY) the client saw the current
 * position. Returns the acting seat, or -1 after replying with the error. */
static int acting_seat(struct client *c, struct match *m, const char *ply_text, const char *token)
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
        reply_error(c, "busy", "a change to match %" PRIu64 " is being made; try again",
                    m->id);
        return -1;
    }
    if (m->resigned >= 0) {
        reply_error(c, "game-over", "the match ended by resignation");
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

/* mcts searches run on the bot workers; the cap keeps one request from holding a worker for
 * minutes. */
static bool bot_within_limit(const char *spec, unsigned long max_iterations)
{
    if (strncmp(spec, "mcts", 4) != 0)
        return true;
    const char *it = strstr(spec, "iterations=");
    unsigned long n = it ? strtoul(it + 11, NULL, 10) : 1000;
    return n <= max_iterations;
}

static void submit_move_job(struct server *sv, struct client *c, struct match *m,
                            enum job_kind kind, int seat, tg_move move, const char *bot)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j || tg_state_clone(m->state, &j->state) != TG_OK) {
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
    if (bot)
        snprintf(j->bot, sizeof j->bot, "%s", bot);
    if (!pool_submit(kind == JOB_BOT ? sv->bot_pool : sv->move_pool, &j->base)) {
        job_free(j);
        reply_error(c, "overloaded", "the server's %s workers have too much queued; try again",
                    kind == JOB_BOT ? "bot" : "move");
        return;
    }
    m->busy = true;
    c->awaiting = true;
}

static void cmd_play(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, w[2], w[4]);
    if (seat < 0 || !to_move_check(c, m, seat))
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
    submit_move_job(sv, c, m, JOB_PLAY, seat, mv, NULL);
}

static void cmd_bot(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, w[2], w[4]);
    if (seat < 0 || !to_move_check(c, m, seat))
        return;
    tg_status st = tg_bot_check(w[3]);
    if (st != TG_OK) {
        reply_status(c, st);
        return;
    }
    if (!bot_within_limit(w[3], sv->opt.max_bot_iterations)) {
        reply_error(c, "bot-too-slow", "more mcts iterations than this server allows (%lu)",
                    sv->opt.max_bot_iterations);
        return;
    }
    submit_move_job(sv, c, m, JOB_BOT, seat, 0, w[3]);
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

static void cmd_undo(struct server *sv, struct client *c, struct match *m, char **w)
{
    int seat = acting_seat(c, m, w[2], w[3]);
    size_t keep;
    if (seat < 0)
        return;
    if (!undo_target(m, &keep)) {
        reply_status(c, TG_ERR_NO_HISTORY);
        return;
    }
    if (m->undo_requested_by >= 0) {
        reply_error(c, "undo-pending", "seat %d already asked; the other seat answers with "
                    "accept or decline", m->undo_requested_by);
        return;
    }
    m->undo_requested_by = seat;
    m->undo_request_ply = tg_state_ply(m->state);
    /* Events go out before the reply, as they do for every change. */
    push_event(sv, m, "undo-requested %d", seat);
    buf_printf(&c->out, "ok requested\n");
}

static void cmd_answer_undo(struct server *sv, struct client *c, struct match *m, char **w,
                            bool accept)
{
    int seat = acting_seat(c, m, w[2], w[3]);
    if (seat < 0)
        return;
    if (m->undo_requested_by < 0 || m->undo_request_ply != tg_state_ply(m->state)) {
        reply_error(c, "no-undo-request", "nobody asked to take back a move at this ply");
        return;
    }
    if (m->undo_requested_by == seat) {
        reply_error(c, "not-your-turn", "the other seat answers an undo request");
        return;
    }
    if (!accept) {
        m->undo_requested_by = -1;
        push_event(sv, m, "undo-declined %d", seat);
        buf_printf(&c->out, "ok declined\n");
        return;
    }
    size_t keep;
    struct change *ch = undo_target(m, &keep) ? change_new(sv, CH_UNDO, m, c->serial) : NULL;
    if (!ch || tg_state_clone(m->state, &ch->state) != TG_OK) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    while (tg_state_ply(ch->state) > keep && tg_state_undo(ch->state) == TG_OK)
        ;
    ch->keep_plies = keep;
    buf_printf(&ch->reply, "ok %zu\n", keep);
    m->busy = true;
    c->awaiting = true;
    stage(sv, ch);
}

static void cmd_resign(struct server *sv, struct client *c, struct match *m, char **w)
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
static void cmd_watch(struct server *sv, struct client *c, struct match *m, const char *ply_text)
{
    uint64_t from = 0;
    if (ply_text && !parse_u64(ply_text, &from)) {
        reply_error(c, "usage", "watch ID [PLY]: PLY is the ply the client last saw");
        return;
    }
    if (!watches(c, m->id)) {
        if (c->watch_count == WATCH_MAX) {
            reply_error(c, "usage", "a connection watches at most %d matches", WATCH_MAX);
            return;
        }
        c->watching[c->watch_count++] = m->id;
        m->watchers++;
    }
    buf_printf(&c->out, "ok watching ply=%zu spec=%s", m->ply_count, tg_rules_spec(m->rules->rules));
    if (m->clock.kept.on)
        buf_printf(&c->out, " clock=%" PRId64 "+%" PRId64 "ms", m->clock.kept.base_ms,
                   m->clock.kept.increment_ms);
    buf_append(&c->out, "\n", 1);
    catch_up(sv, c, m, from > m->ply_count + 1 ? m->ply_count + 1 : (size_t)from);
}

static void cmd_unwatch(struct client *c, struct match *m)
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
    "ok commands: new SPEC [clock=M+S]; show ID; moves ID; history ID; watch ID [PLY]; "
    "unwatch ID; list [AFTER]; status; "
    "play ID PLY MOVE TOKEN; bot ID PLY BOT TOKEN; undo ID PLY TOKEN; accept ID PLY TOKEN; "
    "decline ID PLY TOKEN; resign ID TOKEN; help; quit\n";

static enum run_result handle_line(struct server *sv, struct client *c, char *line)
{
    char *w[6];
    size_t n = split_words(line, w, 5);
    if (n == 0)
        return RUN_DONE; /* blank lines are ignored */
    static const struct {
        const char *name;
        size_t min_words, max_words;
        bool acts; /* needs a seat token, its last word */
    } commands[] = {
        {"quit", 1, 1, false},   {"help", 1, 1, false},    {"status", 1, 1, false},
        {"list", 1, 2, false},   {"new", 2, 3, false},     {"show", 2, 2, false},
        {"watch", 2, 3, false},  {"unwatch", 2, 2, false},
        {"moves", 2, 2, false},  {"history", 2, 2, false}, {"play", 5, 5, true},
        {"bot", 5, 5, true},     {"undo", 4, 4, true},     {"accept", 4, 4, true},
        {"decline", 4, 4, true}, {"resign", 3, 3, true},
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
        cmd_new(sv, c, w[1], n == 3 ? w[2] : NULL);
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
        cmd_history(c, m);
    else if (strcmp(cmd, "watch") == 0)
        cmd_watch(sv, c, m, n == 3 ? w[2] : NULL);
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
    else
        cmd_resign(sv, c, m, w);
    return RUN_DONE;
}

/* ---- the loop ----------------------------------------------------------------------- */

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static bool set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, FD_CLOEXEC) == 0;
}

static int listen_loopback(unsigned port, unsigned *bound)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (!set_nonblocking(fd)) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 512) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    *bound = ntohs(a.sin_port);
    return fd;
}

/* Reads what the socket has, while the unprocessed input stays under its limit. An
 * overlong line is dropped up to its newline and answered with one error. */
static void client_read(struct client *c)
{
    char chunk[4096];
    while (c->in.len < IN_HIGH_WATER && !c->eof && !c->dead) {
        ssize_t r = recv(c->fd, chunk, sizeof chunk, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r <= 0) {
            c->eof = true;
            return;
        }
        size_t from = 0;
        for (size_t i = 0; i < (size_t)r; i++) {
            if (c->discarding) {
                c->discarding = chunk[i] != '\n';
                from = i + 1;
            } else if (chunk[i] == '\n') {
                c->partial = 0;
            } else if (++c->partial > LINE_MAX_BYTES) {
                /* Keep what came before this line, drop the line itself. */
                if (!buf_append(&c->in, chunk + from, i - from))
                    c->dead = true;
                c->in.len -= c->partial - 1;
                c->in.data[c->in.len] = '\0';
                c->partial = 0;
                c->discarding = true;
                reply_error(c, "line-too-long", "a command line is at most 1024 bytes");
                from = i + 1;
            }
        }
        if (!c->discarding && !buf_append(&c->in, chunk + from, (size_t)r - from))
            c->dead = true;
    }
}

/* Runs up to LINES_PER_ROUND buffered commands; returns true if it could run more now. A
 * command waiting for a worker or for the round's commit holds back the ones after it, so
 * that replies come in the order of the commands. */
static bool client_run(struct server *sv, struct client *c)
{
    c->blocked = false;
    for (int k = 0; k < LINES_PER_ROUND; k++) {
        if (c->closing || c->dead || c->awaiting || c->out.len > OUT_HIGH_WATER)
            return false;
        char *nl = c->in.len ? memchr(c->in.data, '\n', c->in.len) : NULL;
        if (!nl)
            return false;
        size_t used = (size_t)(nl - c->in.data) + 1, len = used - 1;
        if (len > 0 && c->in.data[len - 1] == '\r')
            len--;
        /* A copy: a command that waits for its match to load stays in `in` and runs again. */
        char line[LINE_MAX_BYTES + 1];
        if (len > LINE_MAX_BYTES)
            len = LINE_MAX_BYTES;
        memcpy(line, c->in.data, len);
        line[len] = '\0';
        c->last_active = sv->now;
        if (handle_line(sv, c, line) == RUN_WAIT) {
            c->blocked = true;
            return false;
        }
        buf_consume(&c->in, used);
    }
    return !c->awaiting && c->in.len && memchr(c->in.data, '\n', c->in.len) != NULL;
}

static void client_write(struct server *sv, struct client *c)
{
    while (c->out.len) {
        ssize_t w = send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (w <= 0) {
            c->dead = true;
            return;
        }
        c->last_active = sv->now;
        buf_consume(&c->out, (size_t)w);
    }
}

static void client_free(struct client *c)
{
    close(c->fd);
    free(c->in.data);
    free(c->out.data);
    free(c);
}

static void accept_clients(struct server *sv, int listen_fd, double *accept_paused_until)
{
    for (int k = 0; k < 64; k++) {
        int fd = accept(listen_fd, NULL, NULL);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                *accept_paused_until = sv->now + 0.1; /* out of descriptors: do not spin */
            return;
        }
        if (!set_nonblocking(fd)) {
            close(fd);
            continue;
        }
        if (sv->client_count >= sv->opt.max_clients) {
            /* Told at once rather than left hanging in the listen queue. */
            static const char full[] = "err too-many-clients the server has its limit of "
                                       "connections; try again later\n";
            ssize_t ignored = send(fd, full, sizeof full - 1, MSG_NOSIGNAL);
            (void)ignored;
            close(fd);
            continue;
        }
        struct client *c = calloc(1, sizeof *c);
        struct client **grown =
            c ? realloc(sv->clients, (sv->client_count + 1) * sizeof *grown) : NULL;
        if (!grown) {
            free(c);
            close(fd);
            return;
        }
        sv->clients = grown;
        c->fd = fd;
        c->serial = ++sv->next_serial;
        c->last_active = sv->now;
        sv->clients[sv->client_count++] = c;
    }
}

/* Unloads matches nobody has used for a while: memory goes to the matches being played. */
static void unload_idle_matches(struct server *sv)
{
    for (size_t b = 0; b < sv->bucket_count; b++)
        for (struct match **p = &sv->buckets[b]; *p;) {
            struct match *m = *p;
            if (evictable(m) && sv->now - m->last_used > sv->opt.unload_after) {
                *p = m->next_in_bucket;
                sv->loaded_count--;
                match_free(sv, m);
                continue;
            }
            p = &m->next_in_bucket;
        }
}

/* A clock that has run out ends its match: staged like any change, so that the flag fall is
 * stored before anyone hears of it. */
static void check_flags(struct server *sv)
{
    for (size_t i = 0; i < sv->clocked_count;) {
        struct match *m = sv->clocked[i];
        if (m->loading || m->busy) {
            i++;
            continue;
        }
        if (match_over(m)) {
            sv->clocked[i] = sv->clocked[--sv->clocked_count];
            continue;
        }
        i++;
        int running = clock_running(m);
        if (running < 0 || clock_left(m, running, sv->now) > 0)
            continue;
        struct change *ch = change_new(sv, CH_FLAG, m, 0);
        if (!ch)
            return; /* out of memory: looked at again next time */
        ch->seat = running;
        m->busy = true;
        m->flag_staged = true;
        stage(sv, ch);
    }
}

static void serve(struct server *sv, int listen_fd)
{
    struct pollfd *pfd = NULL;
    bool pending = false;
    double next_housekeeping = 0, accept_paused_until = 0, next_flag_check = 0;
    while (!stop_requested) {
        struct pollfd *grown = realloc(pfd, (sv->client_count + 2) * sizeof *pfd);
        if (!grown)
            fatal("out of memory");
        pfd = grown;
        pfd[0] = (struct pollfd){listen_fd, sv->now >= accept_paused_until ? POLLIN : 0, 0};
        pfd[1] = (struct pollfd){sv->wake_read, POLLIN, 0};
        for (size_t i = 0; i < sv->client_count; i++) {
            struct client *c = sv->clients[i];
            short ev = 0;
            if (!c->eof && !c->closing && c->out.len <= OUT_HIGH_WATER && c->in.len < IN_HIGH_WATER)
                ev |= POLLIN;
            if (c->out.len)
                ev |= POLLOUT;
            pfd[i + 2] = (struct pollfd){c->fd, ev, 0};
        }
        int wait_ms = pending ? 0 : sv->clocked_count ? (int)(FLAG_CHECK_SECONDS * 1000) : TICK_MS;
        if (poll(pfd, sv->client_count + 2, wait_ms) < 0 && errno != EINTR)
            fatal("poll: %s", strerror(errno));
        sv->now = monotonic_seconds();
        size_t polled = sv->client_count;
        if (pfd[0].revents & POLLIN)
            accept_clients(sv, listen_fd, &accept_paused_until);
        take_finished_jobs(sv);
        if (sv->now >= next_flag_check) {
            check_flags(sv);
            next_flag_check = sv->now + FLAG_CHECK_SECONDS;
        }
        /* Read, run commands (changes go into this round's transaction), commit, and only
         * then answer the changes. */
        pending = false;
        for (size_t i = 0; i < sv->client_count; i++) {
            struct client *c = sv->clients[i];
            if (i >= polled || (pfd[i + 2].events & POLLIN &&
                                pfd[i + 2].revents & (POLLIN | POLLHUP | POLLERR)))
                client_read(c);
            pending |= client_run(sv, c);
        }
        /* What is queued now answers reads and refusals only (a client whose change waits for
         * the commit runs nothing after it), so it goes out before the commit's sync. */
        for (size_t i = 0; i < sv->client_count; i++)
            if (sv->clients[i]->out.len && !sv->clients[i]->dead)
                client_write(sv, sv->clients[i]);
        finish_round(sv);
        for (size_t i = 0; i < sv->client_count;) {
            struct client *c = sv->clients[i];
            if (!c->dead)
                client_write(sv, c);
            bool waiting = c->awaiting || c->blocked;
            bool has_line = c->in.len && memchr(c->in.data, '\n', c->in.len);
            pending |= has_line && !waiting && c->out.len <= OUT_HIGH_WATER;
            if (!c->dead && !c->closing && !waiting &&
                sv->now - c->last_active > sv->opt.idle_timeout) {
                reply_error(c, "idle-timeout", "no command for %.0f s; closing",
                            sv->opt.idle_timeout);
                c->closing = true;
                client_write(sv, c);
                c->dead = c->dead || c->out.len > 0; /* a peer that does not read: just go */
            }
            if (c->dead || (!waiting && c->out.len == 0 && (c->closing || (c->eof && !has_line)))) {
                for (size_t k = 0; k < c->watch_count; k++) {
                    struct match *watched = loaded_match(sv, c->watching[k]);
                    if (watched && watched->watchers)
                        watched->watchers--;
                }
                client_free(c);
                sv->clients[i] = sv->clients[--sv->client_count];
                continue;
            }
            i++;
        }
        if (sv->now >= next_housekeeping) {
            unload_idle_matches(sv);
            next_housekeeping = sv->now + 1.0;
        }
    }
    free(pfd);
}

/* ---- start-up and shut-down ---------------------------------------------------------- */

static const char usage_text[] =
    "usage: tg-server [--port N] [--db PATH] [--port-file PATH] [--max-clients N]\n"
    "                 [--max-matches N] [--max-loaded N] [--idle-timeout S] [--bot-threads N]\n"
    "                 [--move-threads N] [--max-bot-iterations N] [--max-laps N]\n"
    "                 [--unload-after S] [--check] [--web-port N] [--web DIR]\n"
    "                 [--web-port-file PATH]\n"
    "       tg-server --db PATH --migrate-logs DIR\n";

static void usage(FILE *f)
{
    fputs(usage_text, f);
    fputs("\n"
          "  --port N                 TCP port on 127.0.0.1 (default 7878; 0 picks a free one)\n"
          "  --db PATH                the SQLite database (default tg-server.db); created if\n"
          "                           missing\n"
          "  --port-file PATH         write the port there once the server accepts clients\n"
          "  --max-clients N          concurrent connections (default 1000); more are told\n"
          "                           err too-many-clients\n"
          "  --max-matches N          matches stored in all (default 10000000)\n"
          "  --max-loaded N           matches held in memory at once (default 100000); the\n"
          "                           least recently used idle one is unloaded for another\n"
          "  --idle-timeout S         close a connection silent for S seconds (default 300)\n"
          "  --bot-threads N          worker threads for bot searches (default 2)\n"
          "  --move-threads N         worker threads for moves and loading matches (default 2)\n"
          "  --max-bot-iterations N   the most mcts iterations a bot request may ask (default\n"
          "                           100000)\n"
          "  --max-laps N             the largest lap limit (laps=N) a new match may set\n"
          "                           (default 10000); laps=0, no limit, is refused\n"
          "  --unload-after S         unload a match unused for S seconds (default 60)\n"
          "  --check                  before serving, run PRAGMA integrity_check and replay\n"
          "                           every stored match, setting aside any that fails\n"
          "  --web-port N             WebSocket (the same protocol) and HTTP on 127.0.0.1:N\n"
          "                           (0 picks a free one); off unless given\n"
          "  --web DIR                serve the web app's files from DIR over HTTP on the\n"
          "                           web port (implies --web-port 8080 unless given)\n"
          "  --web-port-file PATH     write the web port there once it accepts clients\n"
          "  --migrate-logs DIR       import the match logs (match-ID.log) of the file-log\n"
          "                           tg-server into the database, print each match's seat\n"
          "                           tokens, and exit\n"
          "\n"
          "The protocol is described in docs/server.md; try: new halusa, show 1, moves 1,\n"
          "play 1 0 c1 TOKEN, history 1, status, help, quit.\n",
          f);
}

static int bad_args(const char *why, const char *arg)
{
    fprintf(stderr, "tg-server: %s%s%s%s\n", why, arg ? ": '" : "", arg ? arg : "", arg ? "'" : "");
    fputs(usage_text, stderr);
    fputs("(tg-server --help for more)\n", stderr);
    return EXIT_BAD_ARGS;
}

static bool parse_number(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    if (!text || !isdigit((unsigned char)text[0]))
        return false;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){.port = 7878,
                          .db_path = "tg-server.db",
                          .max_clients = 1000,
                          .max_matches = 10000000,
                          .max_loaded = 100000,
                          .idle_timeout = 300,
                          .unload_after = 60,
                          .bot_threads = 2,
                          .move_threads = 2,
                          .max_bot_iterations = 100000,
                          .max_laps = 10000,
                          .web_port = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--check") == 0) {
            o->check = true;
            continue;
        }
        i++; /* every other option takes a value */
        if (strcmp(a, "--port") == 0) {
            if (!parse_number(v, 65535, &n))
                return bad_args("--port needs a number from 0 to 65535", v);
            o->port = (unsigned)n;
        } else if (strcmp(a, "--db") == 0) {
            if (!v || !*v)
                return bad_args("--db needs a path", NULL);
            o->db_path = v;
        } else if (strcmp(a, "--port-file") == 0) {
            if (!v || !*v)
                return bad_args("--port-file needs a path", NULL);
            o->port_file = v;
        } else if (strcmp(a, "--web-port") == 0) {
            if (!parse_number(v, 65535, &n))
                return bad_args("--web-port needs a number from 0 to 65535", v);
            o->web_port = (long)n;
        } else if (strcmp(a, "--web") == 0) {
            if (!v || !*v)
                return bad_args("--web needs a directory", NULL);
            o->web_dir = v;
        } else if (strcmp(a, "--web-port-file") == 0) {
            if (!v || !*v)
                return bad_args("--web-port-file needs a path", NULL);
            o->web_port_file = v;
        } else if (strcmp(a, "--migrate-logs") == 0) {
            if (!v || !*v)
                return bad_args("--migrate-logs needs a directory", NULL);
            o->migrate_dir = v;
        } else if (strcmp(a, "--max-clients") == 0) {
            if (!parse_number(v, 100000, &n) || n == 0)
                return bad_args("--max-clients needs a number from 1 to 100000", v);
            o->max_clients = n;
        } else if (strcmp(a, "--max-matches") == 0) {
            if (!parse_number(v, 1000000000, &n) || n == 0)
                return bad_args("--max-matches needs a number from 1 to 1000000000", v);
            o->max_matches = n;
        } else if (strcmp(a, "--max-loaded") == 0) {
            if (!parse_number(v, 10000000, &n) || n == 0)
                return bad_args("--max-loaded needs a number from 1 to 10000000", v);
            o->max_loaded = n;
        } else if (strcmp(a, "--idle-timeout") == 0) {
            if (!parse_number(v, 86400, &n) || n == 0)
                return bad_args("--idle-timeout needs seconds, from 1 to 86400", v);
            o->idle_timeout = (double)n;
        } else if (strcmp(a, "--unload-after") == 0) {
            if (!parse_number(v, 86400, &n))
                return bad_args("--unload-after needs seconds, from 0 to 86400", v);
            o->unload_after = (double)n;
        } else if (strcmp(a, "--bot-threads") == 0) {
            if (!parse_number(v, 64, &n) || n == 0)
                return bad_args("--bot-threads needs a number from 1 to 64", v);
            o->bot_threads = (unsigned)n;
        } else if (strcmp(a, "--move-threads") == 0) {
            if (!parse_number(v, 64, &n) || n == 0)
                return bad_args("--move-threads needs a number from 1 to 64", v);
            o->move_threads = (unsigned)n;
        } else if (strcmp(a, "--max-laps") == 0) {
            if (!parse_number(v, 1000000000, &n) || n == 0)
                return bad_args("--max-laps needs a number from 1 to 1000000000", v);
            o->max_laps = n;
        } else if (strcmp(a, "--max-bot-iterations") == 0) {
            if (!parse_number(v, 10000000, &n) || n == 0)
                return bad_args("--max-bot-iterations needs a number from 1 to 10000000", v);
            o->max_bot_iterations = n;
        } else {
            return bad_args("unknown argument", a);
        }
    }
    return -1;
}

/* Written whole under a temporary name, then renamed: a reader never sees half. */
static void write_port_file(const char *path, unsigned port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        fatal("cannot write %s", path);
}

/* --check: the whole file through SQLite's own check, then every match replayed here. */
static void check_everything(struct server *sv)
{
    char first[256];
    bool ran = store_check(sv->store, true, first, sizeof first);
    fprintf(stderr, "tg-server: integrity_check: %s\n", first);
    (void)ran;
    uint64_t after = 0, ids[LIST_MAX];
    size_t n;
    bool more = true;
    while (more && store_list_ids(sv->store, after, ids, LIST_MAX, &n, &more) && n > 0) {
        for (size_t i = 0; i < n; i++) {
            struct job *j = calloc(1, sizeof *j);
            struct match *m = j ? calloc(1, sizeof *m) : NULL;
            char why[256] = "";
            tg_status st;
            if (!m)
                fatal("out of memory");
            enum load_result r = store_load_match(sv->store, ids[i], &j->stored, why, sizeof why);
            if (r == LOAD_FOUND && !(m->rules = rules_acquire(sv, j->stored.spec, &st)))
                snprintf(why, sizeof why, "its rule spec is not valid: %s", tg_status_string(st));
            if (r == LOAD_FOUND && m->rules) {
                j->match = m;
                work_load(&j->base);
                if (j->status == TG_OK)
                    result_consistent(j, why, sizeof why);
                else
                    snprintf(why, sizeof why, "%s", j->why);
            }
            if (why[0])
                remember_set_aside(sv, ids[i], why, r == LOAD_SET_ASIDE);
            job_free(j);
            match_free(sv, m);
        }
        after = ids[n - 1];
    }
    write_set_aside_marks(sv);
}

/* Every client must be able to have its descriptor: otherwise accept() fails before the
 * client can even be told the server is full. */
static void fit_clients_to_descriptor_limit(struct options *o)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return;
    rlim_t wanted = (rlim_t)o->max_clients + SPARE_DESCRIPTORS;
    if (lim.rlim_cur < wanted) {
        lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= wanted ? wanted
                                                                              : lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
        getrlimit(RLIMIT_NOFILE, &lim);
    }
    if (lim.rlim_cur < wanted) {
        size_t fit = lim.rlim_cur > SPARE_DESCRIPTORS ? (size_t)lim.rlim_cur - SPARE_DESCRIPTORS
                                                      : 1;
        fprintf(stderr, "tg-server: --max-clients lowered from %zu to %zu to fit the limit of "
                "%llu descriptors\n", o->max_clients, fit, (unsigned long long)lim.rlim_cur);
        o->max_clients = fit;
    }
}

static void free_jobs(struct pool_job *list)
{
    for (struct pool_job *next; list; list = next) {
        next = list->next;
        job_free((struct job *)list);
    }
}

int main(int argc, char **argv)
{
    struct server sv = {0};
    int rc = parse_args(argc, argv, &sv.opt);
    if (rc >= 0)
        return rc;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct stat web_dir_info;
    if (sv.opt.web_dir && (stat(sv.opt.web_dir, &web_dir_info) != 0 || !S_ISDIR(web_dir_info.st_mode)))
        fatal("--web %s is not a directory", sv.opt.web_dir);

    double t0 = monotonic_seconds();
    char err[512];
    sv.store = store_open(sv.opt.db_path, err, sizeof err);
    if (!sv.store)
        fatal("cannot open the database %s", err);
    if (sv.opt.migrate_dir) {
        int status = migrate_logs(sv.store, sv.opt.migrate_dir, stdout);
        store_close(sv.store);
        return status;
    }
    fit_clients_to_descriptor_limit(&sv.opt);
    if (sv.opt.check)
        check_everything(&sv);
    if (!store_count_matches(sv.store, &sv.match_count) ||
        !store_each_set_aside(sv.store, on_stored_set_aside, &sv))
        fatal("cannot read the database %s: %s", sv.opt.db_path, store_error(sv.store));
    double open_s = monotonic_seconds() - t0;

    int wake[2];
    if (pipe(wake) != 0 || !set_nonblocking(wake[0]) || !set_nonblocking(wake[1]))
        fatal("pipe: %s", strerror(errno));
    sv.wake_read = wake[0];
    sv.wake_write = wake[1];
    sv.move_pool = pool_new(sv.opt.move_threads, 4096, sv.wake_write);
    sv.bot_pool = pool_new(sv.opt.bot_threads, 64u * sv.opt.bot_threads, sv.wake_write);
    if (!sv.move_pool || !sv.bot_pool)
        fatal("cannot start the worker threads");

    unsigned port = 0;
    int listen_fd = listen_loopback(sv.opt.port, &port);
    if (listen_fd < 0)
        fatal("cannot listen on 127.0.0.1:%u: %s", sv.opt.port, strerror(errno));
    printf("tg-server: listening on 127.0.0.1:%u; %" PRIu64 " matches in %s, %zu set aside",
           port, sv.match_count, sv.opt.db_path, sv.set_aside_count);
    for (size_t i = 0; i < sv.set_aside_count && i < STATUS_IDS_MAX; i++)
        printf("%s%" PRIu64, i ? "," : " (", sv.set_aside[i].id);
    printf("%s; opened in %.1f ms\n", sv.set_aside_count ? ")" : "", open_s * 1000.0);
    fflush(stdout);
    struct web *web = NULL;
    if (sv.opt.web_port >= 0 || sv.opt.web_dir) {
        unsigned web_port = 0;
        web = web_start(sv.opt.web_port >= 0 ? (unsigned)sv.opt.web_port : 8080, sv.opt.web_dir,
                        port, &web_port, err, sizeof err);
        if (!web)
            fatal("%s", err);
        printf("tg-server: WebSocket%s on 127.0.0.1:%u\n", sv.opt.web_dir ? " and web app" : "",
               web_port);
        fflush(stdout);
        if (sv.opt.web_port_file)
            write_port_file(sv.opt.web_port_file, web_port);
    }
    if (sv.opt.port_file)
        write_port_file(sv.opt.port_file, port);

    serve(&sv, listen_fd);

    web_stop(web);

    close(listen_fd);
    for (size_t i = 0; i < sv.client_count; i++)
        client_free(sv.clients[i]);
    free(sv.clients);
    /* Searches cannot be interrupted: a stop waits a little for them, and if one is still
     * running its move is abandoned (never acknowledged) and the process just ends. */
    struct pool_job *left_moves = NULL, *left_bots = NULL;
    bool moves_stopped = pool_stop(sv.move_pool, STOP_WAIT_SECONDS, &left_moves);
    bool bots_stopped = pool_stop(sv.bot_pool, STOP_WAIT_SECONDS, &left_bots);
    store_close(sv.store);
    if (!moves_stopped || !bots_stopped) {
        printf("tg-server: stopped (a worker was still inside a move or search; abandoned)\n");
        fflush(stdout);
        _exit(0);
    }
    free_jobs(left_moves);
    free_jobs(left_bots);
    for (size_t b = 0; b < sv.bucket_count; b++)
        for (struct match *m = sv.buckets[b], *next; m; m = next) {
            next = m->next_in_bucket;
            match_free(&sv, m);
        }
    free(sv.buckets);
    for (size_t i = 0; i < sv.change_count; i++)
        change_discard(&sv, &sv.changes[i]);
    free(sv.changes);
    for (size_t i = 0; i < sv.set_aside_count; i++)
        free(sv.set_aside[i].reason);
    free(sv.set_aside);
    free(sv.clocked);
    for (size_t i = 0; i < sv.rules_count; i++) {
        tg_rules_free(sv.rules[i]->rules);
        free(sv.rules[i]);
    }
    free(sv.rules);
    close(sv.wake_read);
    close(sv.wake_write);
    printf("tg-server: stopped\n");
    return 0;
}

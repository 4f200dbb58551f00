/* tg-server: a match server for libtraditional-games, the starting point for a game server.
 *
 *   tg-server [--port N] [--dir PATH] [--port-file PATH] [--max-clients N]
 *             [--max-bot-iterations N]
 *
 * Listens on 127.0.0.1 and hosts any number of matches of any game through a line-based text
 * protocol (docs/server.md). Each match is one tg_state; matches of one rule set share one
 * tg_rules. One thread serves every client from a poll() loop with non-blocking sockets, so a
 * client that is slow to read or write, or that disappears, holds up nobody: its replies wait
 * in its own buffer, and while that buffer is full the server stops reading its commands.
 *
 * Durability: every change to a match (creation, move, undo, resignation) is appended to the
 * match's own log, DIR/match-ID.log, and the log is fsync'd before the reply is sent. The
 * commits of one round of the loop are grouped: all commands that arrived together are
 * logged, every log they touched is synced once, and only then do their replies go out. On
 * start the server replays every log, so after a crash (even SIGKILL) it resumes with every
 * acknowledged change. If an fsync fails the server exits at once without acknowledging
 * anything more, since it can no longer promise durability.
 *
 * Exit status: 0 after SIGINT or SIGTERM, 1 on a fatal error (cannot listen, a corrupt log,
 * a failed fsync), 2 on bad arguments. */
#define _POSIX_C_SOURCE 200809L

#include <traditional-games.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_FATAL = 1, EXIT_BAD_ARGS = 2 };

#define LINE_MAX_BYTES 1024           /* a command, without its newline */
#define OUT_HIGH_WATER (64u * 1024u)  /* stop reading a client whose replies pile up */
#define IN_HIGH_WATER (64u * 1024u)   /* and one whose commands pile up unprocessed */
#define LINES_PER_ROUND 16            /* per client, so that one busy client cannot starve others */
#define LOG_MAGIC "tg-match 1"

struct options {
    unsigned port;
    const char *dir;
    const char *port_file;
    size_t max_clients;
    unsigned long max_bot_iterations;
};

/* ---- growable text buffer -------------------------------------------------------------- */

struct buf {
    char *data;
    size_t len, cap;
};

static bool buf_reserve(struct buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown)
        return false;
    b->data = grown;
    b->cap = cap;
    return true;
}

static bool buf_append(struct buf *b, const char *text, size_t n)
{
    if (!buf_reserve(b, n))
        return false;
    memcpy(b->data + b->len, text, n);
    b->len += n;
    b->data[b->len] = '\0';
    return true;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n))
        return false;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

static void buf_consume(struct buf *b, size_t n)
{
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
    if (b->data)
        b->data[b->len] = '\0';
}

/* ---- matches and their logs ---------------------------------------------------------- */

struct match {
    uint64_t id;
    tg_state *state;
    int resigned; /* -1, or the player who resigned */
    int log_fd;   /* open while the match has unsynced changes or is running; else -1 */
    bool dirty;   /* appended to since the last fsync */
};

struct server {
    struct options opt;
    int dir_fd;
    bool dir_dirty; /* a log file was created since the directory was last synced */
    tg_rules **rules; /* one per canonical spec, shared by its matches */
    size_t rules_count;
    struct match **matches; /* indexed by id; NULL where no match has that id */
    size_t matches_cap;
    uint64_t next_id;
    size_t match_count;
    uint64_t moves_restored;
};

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

/* The shared rule set for `spec`, made on first use; NULL and *st set on a bad spec. */
static const tg_rules *shared_rules(struct server *sv, const char *spec, tg_status *st)
{
    tg_rules *r = NULL;
    *st = tg_rules_new(spec, &r);
    if (*st != TG_OK)
        return NULL;
    for (size_t i = 0; i < sv->rules_count; i++)
        if (strcmp(tg_rules_spec(sv->rules[i]), tg_rules_spec(r)) == 0) {
            tg_rules_free(r);
            return sv->rules[i];
        }
    tg_rules **grown = realloc(sv->rules, (sv->rules_count + 1) * sizeof *grown);
    if (!grown) {
        tg_rules_free(r);
        *st = TG_ERR_NO_MEMORY;
        return NULL;
    }
    sv->rules = grown;
    sv->rules[sv->rules_count++] = r;
    return r;
}

static struct match *find_match(struct server *sv, const char *id_text)
{
    char *end;
    if (!isdigit((unsigned char)id_text[0]))
        return NULL;
    errno = 0;
    unsigned long long id = strtoull(id_text, &end, 10);
    if (errno || *end || id >= sv->matches_cap)
        return NULL;
    return sv->matches[id];
}

static bool store_match(struct server *sv, struct match *m)
{
    if (m->id >= sv->matches_cap) {
        size_t cap = sv->matches_cap ? sv->matches_cap : 64;
        while (cap <= m->id)
            cap *= 2;
        struct match **grown = realloc(sv->matches, cap * sizeof *grown);
        if (!grown)
            return false;
        memset(grown + sv->matches_cap, 0, (cap - sv->matches_cap) * sizeof *grown);
        sv->matches = grown;
        sv->matches_cap = cap;
    }
    sv->matches[m->id] = m;
    sv->match_count++;
    if (m->id >= sv->next_id)
        sv->next_id = m->id + 1;
    return true;
}

static bool match_over(const struct match *m)
{
    return m->resigned >= 0 || tg_state_is_terminal(m->state);
}

static void log_name(char *out, size_t cap, uint64_t id)
{
    snprintf(out, cap, "match-%" PRIu64 ".log", id);
}

/* Appends one whole record to the match's log, reopening it if it was closed. A short write
 * is cut back off, so that the log never holds half a record followed by more. */
static bool log_append(struct server *sv, struct match *m, const char *record)
{
    if (m->log_fd < 0) {
        char name[64];
        log_name(name, sizeof name, m->id);
        m->log_fd = openat(sv->dir_fd, name, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (m->log_fd < 0)
            return false;
    }
    size_t n = strlen(record);
    off_t start = lseek(m->log_fd, 0, SEEK_END);
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(m->log_fd, record + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (start >= 0 && ftruncate(m->log_fd, start) != 0)
                fatal("match %" PRIu64 ": cannot repair a short log write: %s", m->id,
                      strerror(errno));
            return false;
        }
        done += (size_t)w;
    }
    m->dirty = true;
    return true;
}

/* Makes every change of this round durable: the logs written to, then the directory if a
 * log was created. Only after this may the round's replies be sent. */
static void commit(struct server *sv)
{
    for (size_t i = 0; i < sv->matches_cap; i++) {
        struct match *m = sv->matches[i];
        if (!m || !m->dirty)
            continue;
        if (fdatasync(m->log_fd) != 0)
            fatal("match %" PRIu64 ": fsync of its log failed (%s); stopping before any "
                  "further acknowledgement", m->id, strerror(errno));
        m->dirty = false;
        if (match_over(m)) { /* a finished match needs its log open only to undo */
            close(m->log_fd);
            m->log_fd = -1;
        }
    }
    if (sv->dir_dirty) {
        if (fsync(sv->dir_fd) != 0)
            fatal("fsync of the data directory failed: %s", strerror(errno));
        sv->dir_dirty = false;
    }
}

/* ---- restoring from the logs -------------------------------------------------------- */

static void restore_one(struct server *sv, uint64_t id, const char *name)
{
    int fd = openat(sv->dir_fd, name, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        fatal("%s: %s", name, strerror(errno));
    struct buf text = {0};
    char chunk[65536];
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            fatal("%s: %s", name, strerror(errno));
        if (r == 0)
            break;
        if (!buf_append(&text, chunk, (size_t)r))
            fatal("%s: out of memory", name);
    }
    /* A record is durable only with its newline; a torn last record was never acknowledged,
     * so it is cut off. */
    size_t whole = text.len;
    while (whole > 0 && text.data[whole - 1] != '\n')
        whole--;
    if (whole < text.len) {
        if (ftruncate(fd, (off_t)whole) != 0 || fdatasync(fd) != 0)
            fatal("%s: cannot cut off a torn record: %s", name, strerror(errno));
        text.len = whole;
    }
    struct match *m = calloc(1, sizeof *m);
    if (!m)
        fatal("out of memory");
    m->id = id;
    m->resigned = -1;
    m->log_fd = -1;
    size_t line_no = 0;
    char *save = NULL;
    for (char *line = text.len ? strtok_r(text.data, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        if (line_no == 1) {
            size_t k = strlen(LOG_MAGIC);
            tg_status st;
            const tg_rules *r = strncmp(line, LOG_MAGIC " ", k + 1) == 0
                                    ? shared_rules(sv, line + k + 1, &st)
                                    : NULL;
            if (!r || tg_state_new(r, &m->state) != TG_OK) /* tg_state_new fails only on memory */
                fatal("%s:1: not a match log header", name);
            continue;
        }
        unsigned long v;
        char *end;
        tg_status st = TG_ERR_PARSE;
        if (line[0] == 'm' && line[1] == ' ' && isdigit((unsigned char)line[2])) {
            v = strtoul(line + 2, &end, 10);
            if ((*end == ' ' || *end == '\0') && v <= UINT32_MAX && m->resigned < 0)
                st = tg_state_apply(m->state, (tg_move)v);
        } else if (strcmp(line, "u") == 0 && m->resigned < 0) {
            st = tg_state_undo(m->state);
        } else if ((strcmp(line, "r 0") == 0 || strcmp(line, "r 1") == 0) && !match_over(m)) {
            m->resigned = line[2] - '0';
            st = TG_OK;
        }
        if (st != TG_OK)
            fatal("%s:%zu: a record that does not replay ('%s': %s)", name, line_no, line,
                  tg_status_string(st));
        sv->moves_restored++;
    }
    free(text.data);
    close(fd);
    if (!m->state) {
        /* No whole header: the creation was cut short and never acknowledged. */
        if (unlinkat(sv->dir_fd, name, 0) != 0 || fsync(sv->dir_fd) != 0)
            fatal("%s: cannot remove an unfinished log: %s", name, strerror(errno));
        free(m);
        return;
    }
    if (!store_match(sv, m))
        fatal("out of memory");
}

static void restore_all(struct server *sv)
{
    int dup_fd = dup(sv->dir_fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d)
        fatal("%s: %s", sv->opt.dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        uint64_t id;
        int used = 0;
        if (sscanf(e->d_name, "match-%" SCNu64 ".log%n", &id, &used) == 1 &&
            e->d_name[used] == '\0' && id > 0)
            restore_one(sv, id, e->d_name);
    }
    closedir(d);
}

/* ---- the protocol ------------------------------------------------------------------- */

struct client {
    int fd;
    struct buf in, out;
    size_t partial;  /* bytes of the unfinished line at the end of `in` */
    bool discarding; /* inside an overlong line: dropping bytes up to its newline */
    bool eof;        /* the peer closed its side: finish what is buffered, then close */
    bool closing;    /* close once the replies are sent */
    bool dead;
};

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

static void reply_error(struct client *c, const char *word, const char *text)
{
    if (!buf_printf(&c->out, "err %s %s\n", word, text))
        c->dead = true;
}

static void reply_status(struct client *c, tg_status st)
{
    reply_error(c, status_word(st), tg_status_string(st));
}

static bool move_text(const tg_state *s, tg_move m, char *buf, size_t cap)
{
    return tg_move_to_string(s, m, buf, cap, NULL) == TG_OK;
}

/* ok followed by every legal decision (or chance outcome) in notation. */
static void cmd_moves(struct client *c, struct match *m)
{
    tg_move moves[1024];
    double probs[1024];
    size_t n = 0;
    if (!match_over(m)) {
        tg_status st = tg_state_player(m->state) == TG_CHANCE
                           ? tg_state_chance(m->state, moves, probs, 1024, &n)
                           : tg_state_moves(m->state, moves, 1024, &n);
        if (st != TG_OK) {
            reply_status(c, st);
            return;
        }
    }
    buf_append(&c->out, "ok", 2);
    for (size_t i = 0; i < n; i++) {
        char name[64];
        if (move_text(m->state, moves[i], name, sizeof name))
            buf_printf(&c->out, " %s", name);
    }
    buf_append(&c->out, "\n", 1);
}

/* The result field of `show`. */
static const char *result_word(const struct match *m)
{
    if (m->resigned >= 0)
        return m->resigned == 0 ? "1" : "0";
    switch (tg_state_winner(m->state)) {
    case 0: return "0";
    case 1: return "1";
    case TG_DRAW: return "draw";
    default: return "running";
    }
}

static void cmd_show(struct client *c, struct match *m)
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
    buf_printf(&c->out, "ok ply=%zu turn=%s result=%s%s position=%s\n", tg_state_ply(m->state),
               to_move, result_word(m), m->resigned >= 0 ? " by=resignation" : "", text.data);
    free(text.data);
}

/* Every move since the match began, in notation: replayed on a scratch state, since a move
 * is named in the position it was played in. */
static void cmd_history(struct client *c, struct match *m)
{
    size_t n = 0;
    tg_state *scratch = NULL;
    tg_move *h = NULL;
    if (tg_state_history(m->state, NULL, 0, &n) != TG_OK || (n && !(h = malloc(n * sizeof *h))) ||
        tg_state_history(m->state, h, n, &n) != TG_OK ||
        tg_state_new(tg_state_rules(m->state), &scratch) != TG_OK) {
        free(h);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    buf_append(&c->out, "ok", 2);
    for (size_t i = 0; i < n; i++) {
        char name[64];
        if (move_text(scratch, h[i], name, sizeof name))
            buf_printf(&c->out, " %s", name);
        tg_state_apply(scratch, h[i]);
    }
    buf_append(&c->out, "\n", 1);
    tg_state_free(scratch);
    free(h);
}

/* Logs a move, then applies it: a move that cannot be logged is not made. */
static void play_logged(struct server *sv, struct client *c, struct match *m, tg_move mv)
{
    if (!tg_state_is_legal(m->state, mv)) {
        reply_status(c, tg_state_is_terminal(m->state) ? TG_ERR_GAME_OVER : TG_ERR_ILLEGAL_MOVE);
        return;
    }
    char name[64], record[96];
    if (!move_text(m->state, mv, name, sizeof name))
        snprintf(name, sizeof name, "#%" PRIu32, mv);
    snprintf(record, sizeof record, "m %" PRIu32 " %s\n", mv, name);
    if (!log_append(sv, m, record)) {
        reply_error(c, "io", "the move could not be logged; nothing changed");
        return;
    }
    if (tg_state_apply(m->state, mv) != TG_OK) /* legal, so only memory can fail */
        fatal("match %" PRIu64 ": a logged move could not be applied", m->id);
    buf_printf(&c->out, "ok %s\n", name);
}

static void cmd_new(struct server *sv, struct client *c, const char *spec)
{
    tg_status st;
    const tg_rules *r = shared_rules(sv, spec, &st);
    struct match *m = r ? calloc(1, sizeof *m) : NULL;
    if (!r || !m || tg_state_new(r, &m->state) != TG_OK) {
        free(m);
        reply_status(c, r ? TG_ERR_NO_MEMORY : st);
        return;
    }
    m->id = sv->next_id;
    m->resigned = -1;
    char name[64];
    log_name(name, sizeof name, m->id);
    m->log_fd = openat(sv->dir_fd, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    struct buf header = {0};
    bool ok = m->log_fd >= 0 && buf_printf(&header, LOG_MAGIC " %s\n", tg_rules_spec(r)) &&
              log_append(sv, m, header.data) && store_match(sv, m);
    free(header.data);
    if (!ok) {
        if (m->log_fd >= 0) {
            close(m->log_fd);
            unlinkat(sv->dir_fd, name, 0);
        }
        tg_state_free(m->state);
        free(m);
        reply_error(c, "io", "the match could not be created");
        return;
    }
    sv->dir_dirty = true;
    buf_printf(&c->out, "ok %" PRIu64 "\n", m->id);
}

/* mcts bots run inside the loop: their search is capped so that one request cannot hold up
 * the other clients for long. */
static bool bot_within_limit(const char *spec, unsigned long max_iterations)
{
    if (strncmp(spec, "mcts", 4) != 0)
        return true;
    const char *it = strstr(spec, "iterations=");
    unsigned long n = it ? strtoul(it + 11, NULL, 10) : 1000;
    return n <= max_iterations;
}

static void cmd_bot(struct server *sv, struct client *c, struct match *m, const char *spec)
{
    tg_status st = tg_bot_check(spec);
    if (st != TG_OK) {
        reply_status(c, st);
        return;
    }
    if (!bot_within_limit(spec, sv->opt.max_bot_iterations)) {
        reply_error(c, "bot-too-slow", "more mcts iterations than this server allows");
        return;
    }
    /* A generator derived from the match and its ply: the same request in the same position
     * gets the same move, with no generator state to persist. */
    uint64_t rng = m->id * 0x9E3779B97F4A7C15u ^ (uint64_t)tg_state_ply(m->state) * 0xD1B54A32D192ED03u;
    tg_move mv;
    st = tg_bot_choose(m->state, spec, &rng, &mv);
    if (st != TG_OK) {
        reply_status(c, st);
        return;
    }
    play_logged(sv, c, m, mv);
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

static void handle_line(struct server *sv, struct client *c, char *line)
{
    char *w[4];
    size_t n = split_words(line, w, 3);
    if (n == 0)
        return; /* blank lines are ignored */
    const char *cmd = w[0];
    static const struct {
        const char *name;
        size_t words;
    } arity[] = {{"quit", 1}, {"help", 1},  {"list", 1},    {"new", 2},  {"moves", 2},
                 {"show", 2}, {"undo", 2},  {"history", 2}, {"play", 3}, {"bot", 3},
                 {"resign", 3}};
    size_t k = 0;
    while (k < sizeof arity / sizeof *arity && strcmp(cmd, arity[k].name) != 0)
        k++;
    if (k == sizeof arity / sizeof *arity) {
        reply_error(c, "unknown-command", "commands: new moves play bot undo show history "
                                          "resign list quit help");
        return;
    }
    if (n != arity[k].words) {
        reply_error(c, "usage", "wrong number of arguments (help lists the commands)");
        return;
    }
    if (strcmp(cmd, "quit") == 0) {
        buf_append(&c->out, "ok bye\n", 7);
        c->closing = true;
        return;
    }
    if (strcmp(cmd, "help") == 0) {
        buf_printf(&c->out, "ok commands: new SPEC, moves ID, play ID MOVE, bot ID BOT, undo ID, "
                            "show ID, history ID, resign ID PLAYER, list, quit\n");
        return;
    }
    if (strcmp(cmd, "list") == 0) {
        buf_append(&c->out, "ok", 2);
        for (size_t i = 0; i < sv->matches_cap; i++)
            if (sv->matches[i])
                buf_printf(&c->out, " %zu", i);
        buf_append(&c->out, "\n", 1);
        return;
    }
    if (strcmp(cmd, "new") == 0) {
        cmd_new(sv, c, w[1]);
        return;
    }
    struct match *m = find_match(sv, w[1]);
    if (!m) {
        reply_error(c, "no-such-match", "no match has that id");
        return;
    }
    if (strcmp(cmd, "moves") == 0) {
        cmd_moves(c, m);
    } else if (strcmp(cmd, "show") == 0) {
        cmd_show(c, m);
    } else if (strcmp(cmd, "history") == 0) {
        cmd_history(c, m);
    } else if (m->resigned >= 0) {
        reply_error(c, "game-over", "the match ended by resignation");
    } else if (strcmp(cmd, "undo") == 0) {
        size_t done = 0;
        tg_state_history(m->state, NULL, 0, &done);
        if (done == 0)
            reply_status(c, TG_ERR_NO_HISTORY);
        else if (!log_append(sv, m, "u\n"))
            reply_error(c, "io", "the undo could not be logged; nothing changed");
        else if (tg_state_undo(m->state) != TG_OK)
            fatal("match %" PRIu64 ": a logged undo could not be made", m->id);
        else
            buf_printf(&c->out, "ok %zu\n", tg_state_ply(m->state));
    } else if (strcmp(cmd, "play") == 0) {
        tg_move mv;
        tg_status st = tg_move_from_string(m->state, w[2], &mv);
        if (st != TG_OK)
            reply_status(c, st);
        else
            play_logged(sv, c, m, mv);
    } else if (strcmp(cmd, "bot") == 0) {
        cmd_bot(sv, c, m, w[2]);
    } else { /* resign */
        if (strcmp(w[2], "0") != 0 && strcmp(w[2], "1") != 0)
            reply_error(c, "usage", "resign ID PLAYER: the player is 0 or 1");
        else if (tg_state_is_terminal(m->state))
            reply_status(c, TG_ERR_GAME_OVER);
        else if (!log_append(sv, m, w[2][0] == '0' ? "r 0\n" : "r 1\n"))
            reply_error(c, "io", "the resignation could not be logged; nothing changed");
        else {
            m->resigned = w[2][0] - '0';
            buf_append(&c->out, "ok\n", 3);
        }
    }
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
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0 ||
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

/* Runs up to LINES_PER_ROUND buffered commands; returns true if complete lines remain. */
static bool client_run(struct server *sv, struct client *c)
{
    for (int k = 0; k < LINES_PER_ROUND; k++) {
        if (c->closing || c->dead || c->out.len > OUT_HIGH_WATER)
            return false;
        char *nl = c->in.len ? memchr(c->in.data, '\n', c->in.len) : NULL;
        if (!nl)
            return false;
        *nl = '\0';
        size_t used = (size_t)(nl - c->in.data) + 1;
        if (nl > c->in.data && nl[-1] == '\r')
            nl[-1] = '\0';
        handle_line(sv, c, c->in.data);
        buf_consume(&c->in, used);
    }
    return c->in.len && memchr(c->in.data, '\n', c->in.len) != NULL;
}

static void client_write(struct client *c)
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
        buf_consume(&c->out, (size_t)w);
    }
}

static void serve(struct server *sv, int listen_fd)
{
    struct client **clients = NULL;
    size_t count = 0;
    struct pollfd *pfd = NULL;
    bool pending = false;
    while (!stop_requested) {
        pfd = realloc(pfd, (count + 1) * sizeof *pfd);
        if (!pfd)
            fatal("out of memory");
        pfd[0] = (struct pollfd){listen_fd, count < sv->opt.max_clients ? POLLIN : 0, 0};
        for (size_t i = 0; i < count; i++) {
            struct client *c = clients[i];
            short ev = 0;
            if (!c->eof && !c->closing && c->out.len <= OUT_HIGH_WATER && c->in.len < IN_HIGH_WATER)
                ev |= POLLIN;
            if (c->out.len)
                ev |= POLLOUT;
            pfd[i + 1] = (struct pollfd){c->fd, ev, 0};
        }
        if (poll(pfd, count + 1, pending ? 0 : -1) < 0) {
            if (errno == EINTR)
                continue;
            fatal("poll: %s", strerror(errno));
        }
        size_t polled = count;
        if (pfd[0].revents & POLLIN) {
            for (;;) {
                int fd = accept(listen_fd, NULL, NULL);
                if (fd < 0)
                    break;
                if (!set_nonblocking(fd)) {
                    close(fd);
                    continue;
                }
                struct client *c = calloc(1, sizeof *c);
                struct client **grown = c ? realloc(clients, (count + 1) * sizeof *grown) : NULL;
                if (!grown) {
                    free(c);
                    close(fd);
                    break;
                }
                clients = grown;
                c->fd = fd;
                clients[count++] = c;
                if (count >= sv->opt.max_clients)
                    break;
            }
        }
        /* Read, run commands, make their changes durable, and only then reply. */
        pending = false;
        for (size_t i = 0; i < count; i++) {
            /* New clients have not been polled: a non-blocking read is as good. */
            if (i >= polled || (pfd[i + 1].events & POLLIN &&
                                pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                client_read(clients[i]);
            pending |= client_run(sv, clients[i]);
        }
        commit(sv);
        for (size_t i = 0; i < count;) {
            struct client *c = clients[i];
            if (!c->dead)
                client_write(c);
            bool idle = !c->in.len || !memchr(c->in.data, '\n', c->in.len);
            if (c->dead || (c->out.len == 0 && (c->closing || (c->eof && idle)))) {
                close(c->fd);
                free(c->in.data);
                free(c->out.data);
                free(c);
                clients[i] = clients[--count];
                continue;
            }
            i++;
        }
    }
    for (size_t i = 0; i < count; i++) {
        close(clients[i]->fd);
        free(clients[i]->in.data);
        free(clients[i]->out.data);
        free(clients[i]);
    }
    free(clients);
    free(pfd);
}

/* ---- start-up ----------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fputs("usage: tg-server [--port N] [--dir PATH] [--port-file PATH] [--max-clients N]\n"
          "                 [--max-bot-iterations N]\n"
          "\n"
          "  --port N                 TCP port on 127.0.0.1 (default 7878; 0 picks a free one)\n"
          "  --dir PATH               where the match logs live (default tg-server-data);\n"
          "                           created if missing, replayed on start\n"
          "  --port-file PATH         write the port there once the server accepts clients\n"
          "  --max-clients N          concurrent connections (default 1000)\n"
          "  --max-bot-iterations N   the most mcts iterations a bot request may ask (default\n"
          "                           5000): bots run inside the server's loop\n"
          "\n"
          "The protocol is described in docs/server.md; try: new halusa, moves 1, play 1 c1,\n"
          "bot 1 greedy, show 1, history 1, undo 1, resign 1 0, list, quit.\n",
          f);
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

static int bad_args(const char *why, const char *arg)
{
    fprintf(stderr, "tg-server: %s%s%s%s\n", why, arg ? ": '" : "", arg ? arg : "", arg ? "'" : "");
    fputs("usage: tg-server [--port N] [--dir PATH] [--port-file PATH] [--max-clients N]\n"
          "                 [--max-bot-iterations N]   (tg-server --help for more)\n",
          stderr);
    return EXIT_BAD_ARGS;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    o->port = 7878;
    o->dir = "tg-server-data";
    o->port_file = NULL;
    o->max_clients = 1000;
    o->max_bot_iterations = 5000;
    /* Every option but --help takes a value: arguments go in pairs. */
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--port") == 0) {
            if (!parse_number(v, 65535, &n))
                return bad_args("--port needs a number from 0 to 65535", v);
            o->port = (unsigned)n;
        } else if (strcmp(a, "--dir") == 0) {
            if (!v || !*v)
                return bad_args("--dir needs a path", NULL);
            o->dir = v;
        } else if (strcmp(a, "--port-file") == 0) {
            if (!v || !*v)
                return bad_args("--port-file needs a path", NULL);
            o->port_file = v;
        } else if (strcmp(a, "--max-clients") == 0) {
            if (!parse_number(v, 100000, &n) || n == 0)
                return bad_args("--max-clients needs a number from 1 to 100000", v);
            o->max_clients = n;
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

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
    struct server sv = {0};
    int rc = parse_args(argc, argv, &sv.opt);
    if (rc >= 0)
        return rc;
    sv.next_id = 1;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (mkdir(sv.opt.dir, 0755) != 0 && errno != EEXIST)
        fatal("cannot create %s: %s", sv.opt.dir, strerror(errno));
    sv.dir_fd = open(sv.opt.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sv.dir_fd < 0)
        fatal("cannot open %s: %s", sv.opt.dir, strerror(errno));
    restore_all(&sv);
    double restore_s = seconds_since(&t0);

    unsigned port = 0;
    int listen_fd = listen_loopback(sv.opt.port, &port);
    if (listen_fd < 0)
        fatal("cannot listen on 127.0.0.1:%u: %s", sv.opt.port, strerror(errno));
    printf("tg-server: listening on 127.0.0.1:%u; %zu matches (%" PRIu64
           " records) restored from %s in %.1f ms\n",
           port, sv.match_count, sv.moves_restored, sv.opt.dir, restore_s * 1000.0);
    fflush(stdout);
    if (sv.opt.port_file) {
        /* Written whole under a temporary name, then renamed: a reader never sees half. */
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", sv.opt.port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, sv.opt.port_file) != 0)
            fatal("cannot write %s", sv.opt.port_file);
    }

    serve(&sv, listen_fd);

    close(listen_fd);
    for (size_t i = 0; i < sv.matches_cap; i++) {
        struct match *m = sv.matches[i];
        if (!m)
            continue;
        if (m->log_fd >= 0)
            close(m->log_fd);
        tg_state_free(m->state);
        free(m);
    }
    free(sv.matches);
    for (size_t i = 0; i < sv.rules_count; i++)
        tg_rules_free(sv.rules[i]);
    free(sv.rules);
    close(sv.dir_fd);
    printf("tg-server: stopped\n");
    return 0;
}

/* The loop: one thread polls the listener, the workers' wake-up pipe and every client;
 * reads commands, runs them, commits the round, then answers (docs/server.md). */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tg-server: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_FATAL);
}

static volatile sig_atomic_t stop_requested;

void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

bool set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, FD_CLOEXEC) == 0;
}

int listen_loopback(unsigned port, unsigned *bound)
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
        /* A record being sent holds the replies after it, as a full output does. */
        if (c->closing || c->dead || c->awaiting || c->out.len > OUT_HIGH_WATER || c->record)
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
        if (memchr(line, '\0', len)) {
            /* C strings would end at it: "login alice secret\0x" must not sign in as
             * "secret". The whole line is refused. */
            reply_error(c, "nul-byte", "a command line may not hold a NUL byte");
            buf_consume(&c->in, used);
            continue;
        }
        if (handle_line(sv, c, line) == RUN_WAIT) {
            c->blocked = true;
            return false;
        }
        c->charged = false;
        buf_consume(&c->in, used);
    }
    return !c->awaiting && c->in.len && memchr(c->in.data, '\n', c->in.len) != NULL;
}

/* Output does not count as activity: the idle timer counts the client's own commands, so a
 * watcher that only receives events is closed like any silent client. */
static void client_write(struct server *sv, struct client *c)
{
    record_feed(sv, c);
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
        record_feed(sv, c);
    }
}

void client_free(struct server *sv, struct client *c)
{
    record_detach(sv, c);
    address_detach(sv, c);
    close(c->fd);
    free(c->in.data);
    free(c->out.data);
    free(c);
}

static const char too_many_clients[] = "err too-many-clients the server has its limit of "
                                       "connections; try again later\n";

static void refuse_client(struct server *sv, int fd, const char *line)
{
    /* Told at once rather than left hanging in the listen queue. */
    ssize_t ignored = send(fd, line, strlen(line), MSG_NOSIGNAL);
    (void)ignored;
    close(fd);
    sv->refused_full++;
}

/* Out of descriptors: the one held in reserve is let go to accept the client, tell it, and
 * close it, so that no client waits untold in the listen queue. */
static bool refuse_with_reserve(struct server *sv, int listen_fd)
{
    if (sv->reserve_fd < 0)
        return false;
    close(sv->reserve_fd);
    int fd = accept(listen_fd, NULL, NULL);
    if (fd >= 0)
        refuse_client(sv, fd, too_many_clients);
    sv->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return fd >= 0;
}

static void accept_clients(struct server *sv, int listen_fd, double *accept_paused_until)
{
    for (int k = 0; k < 64; k++) {
        struct sockaddr_storage peer;
        socklen_t peer_len = sizeof peer;
        int fd = accept(listen_fd, (struct sockaddr *)&peer, &peer_len);
        if (fd < 0) {
            if ((errno == EMFILE || errno == ENFILE) && refuse_with_reserve(sv, listen_fd))
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                *accept_paused_until = sv->now + 0.1; /* out of descriptors: do not spin */
            return;
        }
        if (!set_nonblocking(fd)) {
            close(fd);
            continue;
        }
        if (sv->client_count >= sv->opt.max_clients) {
            refuse_client(sv, fd, too_many_clients);
            continue;
        }
        char name[INET6_ADDRSTRLEN] = "?";
        if (peer.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&peer)->sin_addr, name, sizeof name);
        else if (peer.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&peer)->sin6_addr, name, sizeof name);
        if (!address_has_room(sv, name)) {
            refuse_client(sv, fd,
                          "err too-many-connections this address has too many connections "
                          "opening at once; try again later\n");
            continue;
        }
        /* The kernel's buffer for a client that does not read is bounded too (the loop's own
         * is, by --max-buffered): loopback to a local proxy needs no more. */
        int sndbuf = SOCKET_SEND_BUFFER;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
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
        c->last_active = c->connected_at = sv->now;
        address_attach(sv, c, name);
        sv->clients[sv->client_count++] = c;
    }
}

void serve(struct server *sv, int listen_fd)
{
    struct pollfd *pfd = NULL;
    bool pending = false;
    double next_housekeeping = 0, accept_paused_until = 0, next_flag_check = 0;
    while (!stop_requested) {
        struct pollfd *grown = realloc(pfd, (sv->client_count + 3) * sizeof *pfd);
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
        /* Last: other servers' changes (a shared database), -1 (ignored by poll) if none. */
        pfd[sv->client_count + 2] = (struct pollfd){follow_fd(sv), POLLIN, 0};
        int wait_ms = pending ? 0 : sv->clocked_count ? (int)(FLAG_CHECK_SECONDS * 1000) : TICK_MS;
        if (poll(pfd, sv->client_count + 3, wait_ms) < 0 && errno != EINTR)
            fatal("poll: %s", strerror(errno));
        sv->now = monotonic_seconds();
        size_t polled = sv->client_count;
        if (pfd[0].revents & POLLIN)
            accept_clients(sv, listen_fd, &accept_paused_until);
        take_finished_jobs(sv);
        count_output(sv);
        if (sv->now >= next_flag_check) {
            check_flags(sv);
            next_flag_check = sv->now + FLAG_CHECK_SECONDS;
        }
        /* Read, run commands (changes go into this round's transaction), commit, and only
         * then answer the changes. */
        pending = false;
        for (size_t i = 0; i < sv->client_count; i++) {
            struct client *c = sv->clients[i];
            if (i >= polled ||
                (pfd[i + 2].events & POLLIN && pfd[i + 2].revents & (POLLIN | POLLHUP | POLLERR)))
                client_read(c);
            pending |= client_run(sv, c);
        }
        load_reads_settle(sv); /* every command waiting for a finished read has its answer */
        /* What is queued now answers reads and refusals only (a client whose change waits for
         * the commit runs nothing after it), so it goes out before the commit's sync. */
        for (size_t i = 0; i < sv->client_count; i++)
            if (sv->clients[i]->out.len && !sv->clients[i]->dead)
                client_write(sv, sv->clients[i]);
        finish_round(sv);
        accounts_settle(sv); /* the account writes, between rounds */
        follow_round(sv);
        for (size_t i = 0; i < sv->client_count;) {
            struct client *c = sv->clients[i];
            if (!c->dead)
                client_write(sv, c);
            bool waiting = c->awaiting || c->blocked;
            bool has_line = c->in.len && memchr(c->in.data, '\n', c->in.len);
            if (!c->counted && !c->dead && !c->closing && !has_line &&
                sv->now - c->connected_at >= GREETING_SECONDS && !client_settle(sv, c))
                client_write(sv, c);
            pending |= has_line && !waiting && c->out.len <= OUT_HIGH_WATER && !c->record;
            if (!c->dead && !c->closing && !waiting && c->record &&
                sv->now - c->last_active > sv->opt.idle_timeout) {
                /* Not reading its record: told nothing, since a line now would be taken for
                 * one of the record's (the relay then ends the download cut short). */
                record_detach(sv, c);
                c->dead = true;
            }
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
                client_free(sv, c);
                sv->clients[i] = sv->clients[--sv->client_count];
                continue;
            }
            i++;
        }
        if (sv->now >= next_housekeeping) {
            /* Before this second's passes hand their jobs to the database threads: the page
             * shows what is still queued or running a second later, not what was just handed
             * over (an idle server's page says 0). */
            metrics_publish(sv, sv->web);
            unload_idle_matches(sv);
            expire_unplayed_matches(sv);
            /* lapsed undo requests: stored now */
            if (store_in_transaction(sv->store) || round_thread_waiting(sv))
                finish_round(sv);
            addresses_sweep(sv);
            if (sv->halted)
                settle_after_failure(sv);
            next_housekeeping = sv->now + 1.0;
        }
        metrics_round(sv, monotonic_seconds() - sv->now);
    }
    free(pfd);
}

/* The smallest match server: how to put the library behind a socket. One thread, one poll()
 * loop, matches in memory only, no seats, no storage (server/ is the real server built on the
 * same calls: docs/server.md).
 *
 *   cc tiny-server.c $(pkg-config --cflags --libs traditional-games) -o tiny-server
 *   ./tiny-server [PORT]        (0, the default, picks a free port; it is printed)
 *
 * A line protocol on 127.0.0.1, one reply line per command:
 *   new SPEC        -> ok ID             a match of the rule set SPEC (halusa, hus:width=12, ...)
 *   play ID MOVE    -> ok MOVE [THROW..] the move in the game's notation; the server then throws
 *                                        the sticks (At-Tab wa-d-Dukk) itself
 *   show ID         -> ok POSITION       the position string (docs/notation.md)
 *   quit            -> ok bye
 * Errors are `err TEXT`. SIGINT or SIGTERM stops it. */
#define _POSIX_C_SOURCE 200809L

#include <traditional-games.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 64
#define MAX_MATCHES 1024
#define LINE_MAX_BYTES 512

struct client {
    int fd;
    char in[LINE_MAX_BYTES + 1];
    size_t len;
};

static tg_state *matches[MAX_MATCHES];
static size_t match_count;
static uint64_t rng; /* for the throws; a public server draws them from the OS (server/) */
static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
    (void)sig;
    stopping = 1;
}

static void say(int fd, const char *text)
{
    size_t n = strlen(text);
    /* Replies are short and the loop is an example: a full socket buffer drops the client. */
    if (send(fd, text, n, MSG_NOSIGNAL) != (ssize_t)n)
        shutdown(fd, SHUT_RDWR);
}

static tg_state *match_named(const char *id)
{
    char *end;
    unsigned long n = id ? strtoul(id, &end, 10) : 0;
    return id && *end == '\0' && n >= 1 && n <= match_count ? matches[n - 1] : NULL;
}

/* The server throws the sticks (a client only ever decides): an outcome drawn with the
 * library's probabilities, until a seat is to decide again. The names go into out. */
static void throw_while_chance(tg_state *s, char *out, size_t cap)
{
    tg_move outcomes[64];
    double probs[64];
    size_t n = 0;
    while (tg_state_player(s) == TG_CHANCE &&
           tg_state_chance(s, outcomes, probs, 64, &n) == TG_OK && n > 0) {
        rng = rng * 6364136223846793005u + 1442695040888963407u;
        double u = (double)(rng >> 11) * 0x1p-53, sum = 0;
        size_t pick = n - 1;
        for (size_t i = 0; i < n; i++)
            if (u < (sum += probs[i])) {
                pick = i;
                break;
            }
        char name[64];
        size_t len = strlen(out);
        if (tg_move_to_string(s, outcomes[pick], name, sizeof name, NULL) != TG_OK ||
            tg_state_apply(s, outcomes[pick]) != TG_OK)
            return;
        snprintf(out + len, cap - len, " %s", name);
    }
}

static void run(int fd, char *line)
{
    char reply[1024], *save = NULL;
    const char *cmd = strtok_r(line, " \t\r", &save);
    const char *a = strtok_r(NULL, " \t\r", &save), *b = strtok_r(NULL, " \t\r", &save);
    if (!cmd)
        return;
    if (strcmp(cmd, "quit") == 0) {
        say(fd, "ok bye\n");
        shutdown(fd, SHUT_RDWR);
    } else if (strcmp(cmd, "new") == 0 && a && !b) {
        tg_rules *r = NULL;
        tg_state *s = NULL;
        tg_status st = match_count < MAX_MATCHES ? tg_rules_new(a, &r) : TG_ERR_NO_MEMORY;
        if (st == TG_OK)
            st = tg_state_new(r, &s);
        tg_rules_free(r);
        if (st != TG_OK) {
            snprintf(reply, sizeof reply, "err %s\n", tg_status_string(st));
        } else {
            char throws[512] = "";
            throw_while_chance(s, throws, sizeof throws);
            matches[match_count++] = s;
            snprintf(reply, sizeof reply, "ok %zu%s\n", match_count, throws);
        }
        say(fd, reply);
    } else if (strcmp(cmd, "play") == 0 && b) {
        tg_state *s = match_named(a);
        tg_move m;
        char name[64], throws[512] = "";
        tg_status st = !s                                ? TG_ERR_INVALID_ARGUMENT
                       : tg_state_player(s) == TG_CHANCE ? TG_ERR_ILLEGAL_MOVE
                                                         : tg_move_from_string(s, b, &m);
        if (st == TG_OK)
            st = tg_move_to_string(s, m, name, sizeof name, NULL);
        if (st == TG_OK)
            st = tg_state_apply(s, m); /* checks legality itself and changes nothing if not */
        if (st == TG_OK) {
            throw_while_chance(s, throws, sizeof throws);
            snprintf(reply, sizeof reply, "ok %s%s\n", name, throws);
        } else {
            snprintf(reply, sizeof reply, "err %s\n", s ? tg_status_string(st) : "no such match");
        }
        say(fd, reply);
    } else if (strcmp(cmd, "show") == 0 && a && !b) {
        tg_state *s = match_named(a);
        size_t need = 0;
        char *text = NULL;
        if (s && tg_state_to_string(s, NULL, 0, &need) == TG_OK && (text = malloc(need + 5)) &&
            tg_state_to_string(s, text + 3, need + 1, NULL) == TG_OK) {
            memcpy(text, "ok ", 3);
            strcpy(text + 3 + need, "\n");
            say(fd, text);
        } else {
            say(fd, s ? "err no memory\n" : "err no such match\n");
        }
        free(text);
    } else {
        say(fd, "err commands: new SPEC; play ID MOVE; show ID; quit\n");
    }
}

/* Feeds what the socket has into the client's line; false when the client is gone. */
static int feed(struct client *c)
{
    char chunk[512];
    ssize_t n = recv(c->fd, chunk, sizeof chunk, 0);
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] == '\n') {
            c->in[c->len] = '\0';
            run(c->fd, c->in);
            c->len = 0;
        } else if (c->len < LINE_MAX_BYTES) {
            c->in[c->len++] = chunk[i];
        } else {
            say(c->fd, "err line too long\n");
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    a.sin_port = htons((uint16_t)(argc > 1 ? atoi(argv[1]) : 0));
    socklen_t alen = sizeof a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 16) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
        perror("tiny-server");
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    printf("tiny-server: listening on 127.0.0.1:%u\n", ntohs(a.sin_port));
    fflush(stdout);

    struct client clients[MAX_CLIENTS];
    struct pollfd pfd[MAX_CLIENTS + 1];
    size_t n = 0;
    while (!stopping) {
        pfd[0] = (struct pollfd){.fd = lfd, .events = n < MAX_CLIENTS ? POLLIN : 0};
        for (size_t i = 0; i < n; i++)
            pfd[i + 1] = (struct pollfd){.fd = clients[i].fd, .events = POLLIN};
        if (poll(pfd, n + 1, -1) < 0)
            continue; /* EINTR from a stop signal: the loop condition ends it */
        for (size_t i = n; i-- > 0;)
            if (pfd[i + 1].revents && !feed(&clients[i])) {
                close(clients[i].fd);
                clients[i] = clients[--n];
            }
        if (pfd[0].revents & POLLIN) {
            int fd = accept(lfd, NULL, NULL);
            if (fd >= 0)
                clients[n++] = (struct client){.fd = fd};
        }
    }
    for (size_t i = 0; i < n; i++)
        close(clients[i].fd);
    for (size_t i = 0; i < match_count; i++)
        tg_state_free(matches[i]);
    close(lfd);
    printf("tiny-server: stopped\n");
    return 0;
}

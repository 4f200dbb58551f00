/* The match server's WebSocket and HTTP side (web.h), on libwebsockets.
 *
 * libwebsockets runs its own event loop on its own thread. A WebSocket connection opens a
 * loopback TCP connection to the line server and relays: one text message from the browser is
 * one command line, one line from the server is one text message to the browser. The poll
 * loop never learns which of its clients are browsers, so nothing about the protocol, its
 * limits or its storage differs between the two. */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* strncasecmp */

#include "web.h"

#include <libwebsockets.h>

#include <arpa/inet.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MESSAGE_MAX 1024           /* a command line, as the line protocol allows */
#define BACKLOG_HIGH (64u * 1024u) /* stop reading one side while this much waits for the other */
#define EXTRA_CONNECTIONS 16       /* beyond max_clients: enough to tell them the server is full */
#define FRAGMENT_MAX (16u * 1024u) /* the most of a message sent at once */
/* An HTTP request's headers: room for a browser's large cookies; more closes the connection. */
#define HEADERS_MAX (16u * 1024u)
/* Browser connections that are not (yet) WebSockets, at once: beyond, the one least recently
 * active is closed for the newcomer, so that idle HTTP connections never take the places of
 * WebSockets. */
#define HTTP_CONNECTIONS_MAX 64
#define HTTP_KEEPALIVE_SECONDS 5 /* an HTTP connection's wait for its next request */
#define HTTP_HEADERS_SECONDS 10  /* a connection's wait for a request's headers */
#define METRICS_CONNECTIONS_MAX 4 /* on the metrics port, at once */

struct bytes {
    unsigned char *data;
    size_t len, cap;
};

static bool bytes_append(struct bytes *b, const void *p, size_t n)
{
    if (n == 0) /* an empty message: p may be NULL, and so may b->data */
        return true;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *grown = realloc(b->data, cap);
        if (!grown)
            return false;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return true;
}

static void bytes_consume(struct bytes *b, size_t n)
{
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

/* One browser connection: the WebSocket, and its loopback connection to the line server. */
struct session {
    struct lws *ws;
    struct lws *line;
    struct bytes to_browser; /* the server's bytes; sent a whole line per message */
    struct bytes to_server;  /* complete command lines */
    struct bytes message;    /* the message being received, in fragments */
    bool line_gone;          /* the server closed its side: close once to_browser is sent */
    bool refused;            /* a message was refused: close once its error is sent */
    enum lws_close_status close_status;
    bool browser_paused, server_paused;
    bool in_message; /* a message's first fragments are sent, not yet its last */
    /* GET /matches/ID.tgr: the reply of `record ID` from the line server, then sent as the
     * response's body from body_at on. */
    bool http_record, headers_sent;
    size_t body_at, body_end;
};

struct web {
    struct lws_context *context;
    struct lws_vhost *web_vhost, *metrics_vhost; /* either may be NULL: not asked for */
    unsigned line_port;
    unsigned web_port; /* the port bound: the server's own pages' origins name it */
    char relay_secret[64];
    const char *const *origins;
    size_t origin_count;
    const char *const *trusted;
    size_t trusted_count;
    struct lws_protocol_vhost_options headers[4];
    struct lws_http_mount records_mount;
    pthread_mutex_t metrics_lock;
    struct bytes metrics;                /* the loop's latest text for GET /metrics */
    size_t max_connections, connections; /* browser-side sockets, counted on its thread */
    struct lws *http[HTTP_CONNECTIONS_MAX]; /* those not WebSockets, least recently active first */
    size_t http_count;
    size_t metrics_connections;
    pthread_t thread;
    atomic_bool stop;
    char dir[4096];
    struct lws_http_mount mount;
    struct lws_protocol_vhost_options wasm_type;
};

static int connect_line_server(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    /* Loopback: the connection is made (or refused) at once, so a blocking connect costs the
     * libwebsockets thread nothing. */
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Queues an error line for the browser, then the connection closes with status. */
static void refuse(struct session *s, const char *line, enum lws_close_status status)
{
    s->refused = true;
    s->close_status = status;
    s->to_browser.len = 0;
    if (s->in_message) /* the message being sent ends here, and the error is one of its own */
        bytes_append(&s->to_browser, "\n", 1);
    bytes_append(&s->to_browser, line, strlen(line));
    if (s->line) {
        lws_set_opaque_user_data(s->line, NULL);
        lws_set_timeout(s->line, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
        s->line = NULL;
    }
    lws_callback_on_writable(s->ws);
}

static void receive(struct session *s, const void *in, size_t len)
{
    if (s->refused)
        return;
    if (lws_frame_is_binary(s->ws)) {
        refuse(s, "err usage a message is one command line of text\n",
               LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE);
        return;
    }
    /* The frame's announced length counts too: a huge one is refused before it arrives. */
    if (s->message.len + len + lws_remaining_packet_payload(s->ws) > MESSAGE_MAX) {
        refuse(s, "err line-too-long a command line is at most 1024 bytes\n",
               LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE);
        return;
    }
    if (!bytes_append(&s->message, in, len)) {
        refuse(s, "err no-memory the server ran out of memory\n",
               LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
        return;
    }
    if (!lws_is_final_fragment(s->ws) || lws_remaining_packet_payload(s->ws))
        return;
    if (!bytes_append(&s->to_server, s->message.data, s->message.len) ||
        !bytes_append(&s->to_server, "\n", 1)) {
        refuse(s, "err no-memory the server ran out of memory\n",
               LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
        return;
    }
    s->message.len = 0;
    if (s->to_server.len > BACKLOG_HIGH && !s->browser_paused) {
        s->browser_paused = true;
        lws_rx_flow_control(s->ws, 0);
    }
    if (s->line)
        lws_callback_on_writable(s->line);
}

/* Sends what waits for the browser: each line is one text message, sent in fragments of at
 * most FRAGMENT_MAX bytes, one a writable callback, as the bytes come; so a reply of any
 * length goes out while the server is still sending it, and neither side's buffer grows past
 * its high-water mark waiting for a line's end. */
static int send_to_browser(struct session *s)
{
    if (s->to_browser.len) {
        unsigned char *nl = memchr(s->to_browser.data, '\n', s->to_browser.len);
        size_t len = nl ? (size_t)(nl - s->to_browser.data) : s->to_browser.len;
        bool last = nl && len <= FRAGMENT_MAX;
        if (len > FRAGMENT_MAX)
            len = FRAGMENT_MAX;
        unsigned char *frame = malloc(LWS_PRE + len + 1);
        if (!frame)
            return -1;
        memcpy(frame + LWS_PRE, s->to_browser.data, len);
        int flags = lws_write_ws_flags(LWS_WRITE_TEXT, !s->in_message, last);
        int written = lws_write(s->ws, frame + LWS_PRE, len, (enum lws_write_protocol)flags);
        free(frame);
        if (written < (int)len)
            return -1;
        s->in_message = !last;
        bytes_consume(&s->to_browser, len + (last ? 1 : 0));
        if (s->server_paused && s->to_browser.len < BACKLOG_HIGH / 2 && s->line) {
            s->server_paused = false;
            lws_rx_flow_control(s->line, 1);
        }
    }
    if (s->to_browser.len) {
        lws_callback_on_writable(s->ws);
        return 0;
    }
    if (s->in_message && (s->refused || s->line_gone)) {
        /* The server went in the middle of a line: the message ends with what came. */
        if (!bytes_append(&s->to_browser, "\n", 1))
            return -1;
        lws_callback_on_writable(s->ws);
        return 0;
    }
    if (s->refused || s->line_gone) {
        static const char why[] = "closed";
        lws_close_reason(s->ws, s->refused ? s->close_status : LWS_CLOSE_STATUS_NORMAL,
                         (unsigned char *)(uintptr_t)why, sizeof why - 1);
        return -1;
    }
    return 0;
}

/* Whether host (a Host header, or an origin after its scheme) names this server's port on
 * loopback, under any of the names a browser on this machine may use for it. */
static bool names_this_server(const char *host, unsigned port)
{
    static const char *const loopback[] = {"127.0.0.1", "localhost", "[::1]"};
    for (size_t i = 0; i < sizeof loopback / sizeof *loopback; i++) {
        char with_port[64];
        snprintf(with_port, sizeof with_port, "%s:%u", loopback[i], port);
        if (strcasecmp(host, with_port) == 0 || (port == 80 && strcasecmp(host, loopback[i]) == 0))
            return true;
    }
    return false;
}

/* A browser names the page that opens a WebSocket in Origin: only the configured ones
 * (--origin) may, or without a list the server's own pages on loopback; so another site cannot
 * act with a visitor's seat links. Without a list the Host must name this server too: a page of
 * evil.example whose name was made to resolve to 127.0.0.1 (DNS rebinding) names
 * evil.example in both. A client with no Origin is not a browser and is let in. */
static bool origin_allowed(const struct web *w, struct lws *wsi)
{
    char origin[256], host[256];
    bool has_origin = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0;
    if (has_origin && lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0)
        return false; /* longer than any allowed */
    if (w->origin_count) {
        for (size_t i = 0; has_origin && i < w->origin_count; i++)
            if (strcmp(origin, w->origins[i]) == 0)
                return true;
        return !has_origin;
    }
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0 ||
        !names_this_server(host, w->web_port))
        return false;
    if (!has_origin)
        return true;
    const char *rest = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                                  : NULL;
    return rest && names_this_server(rest, w->web_port);
}

/* The file an HTTP request names (uri, len bytes, as libwebsockets parsed it) must be inside
 * the site once symbolic links are followed. One too long for a path is refused. */
static bool inside_site(const struct web *w, const char *uri, size_t len)
{
    if (!w->dir[0])
        return true;
    if (!uri)
        len = 0;
    char path[PATH_MAX], real[PATH_MAX];
    int made = snprintf(path, sizeof path, "%s/%.*s", w->dir,
                        (int)(len < PATH_MAX ? len : PATH_MAX), uri ? uri : "");
    if (made < 0 || (size_t)made >= sizeof path)
        return false;
    if (!realpath(path, real))
        return true; /* nothing there: libwebsockets answers 404 */
    size_t n = strlen(w->dir);
    return strncmp(real, w->dir, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

void web_set_metrics(struct web *w, const char *text, size_t len)
{
    if (!w->metrics_vhost)
        return; /* nobody can ask for it */
    pthread_mutex_lock(&w->metrics_lock);
    w->metrics.len = 0;
    bytes_append(&w->metrics, text, len);
    pthread_mutex_unlock(&w->metrics_lock);
}

/* The last element of a comma-separated header (what the proxy nearest to us appended),
 * spaces trimmed, into out. */
static void last_element(const char *value, char *out, size_t cap)
{
    const char *at = strrchr(value, ',');
    at = at ? at + 1 : value;
    while (*at == ' ' || *at == '\t')
        at++;
    size_t n = strcspn(at, " \t");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), at);
}

/* `for=` of Forwarded's last element (RFC 7239): a quoted, bracketed IPv6 address or an IPv4
 * one, either perhaps with a port, into out ("" if it names none). */
static void forwarded_for(const char *value, char *out, size_t cap)
{
    char last[512], *save = NULL;
    const char *at = strrchr(value, ',');
    snprintf(last, sizeof last, "%s", at ? at + 1 : value);
    out[0] = '\0';
    for (char *p = strtok_r(last, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
        while (*p == ' ')
            p++;
        if (strncasecmp(p, "for=", 4) != 0)
            continue;
        p += 4;
        if (*p == '"')
            p++;
        if (*p == '[') { /* [v6]:port */
            char *end = strchr(++p, ']');
            if (end)
                *end = '\0';
        } else {
            p[strcspn(p, ":\"")] = '\0'; /* v4[:port] */
        }
        snprintf(out, cap, "%s", p);
        return;
    }
}

static bool is_address(const char *text)
{
    unsigned char bin[16];
    return inet_pton(AF_INET, text, bin) == 1 || inet_pton(AF_INET6, text, bin) == 1;
}

/* The client's address: the peer's, unless the peer is a trusted proxy that names the client
 * in X-Forwarded-For (or Forwarded) with a well-formed address. */
static void client_address(const struct web *w, struct lws *wsi, char *out, size_t cap)
{
    char peer[64] = "", value[512], named[256] = "";
    lws_get_peer_simple(wsi, peer, sizeof peer);
    snprintf(out, cap, "%s", peer[0] ? peer : "?");
    bool trusted = false;
    for (size_t i = 0; i < w->trusted_count && !trusted; i++)
        trusted = strcmp(peer, w->trusted[i]) == 0;
    if (!trusted)
        return;
    if (lws_hdr_copy(wsi, value, sizeof value, WSI_TOKEN_X_FORWARDED_FOR) > 0)
        last_element(value, named, sizeof named);
    else if (lws_hdr_custom_copy(wsi, value, sizeof value, "forwarded:", 10) > 0)
        forwarded_for(value, named, sizeof named);
    if (is_address(named))
        snprintf(out, cap, "%s", named);
}

/* Opens the session's connection to the line server, its first line saying who the client
 * is (docs/server.md, "Behind a TLS proxy"), then `first` (may be ""). */
static bool open_line(struct web *w, struct session *s, struct lws *wsi, const char *first)
{
    int fd = connect_line_server(w->line_port);
    lws_sock_file_fd_type desc;
    desc.sockfd = fd;
    s->line = fd < 0 ? NULL
                     : lws_adopt_descriptor_vhost(lws_get_vhost(wsi), LWS_ADOPT_SOCKET, desc,
                                                  "tg-line", wsi);
    if (!s->line) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    lws_set_opaque_user_data(s->line, s);
    char peer[64], greeting[160];
    client_address(w, wsi, peer, sizeof peer);
    snprintf(greeting, sizeof greeting, "via %s %s\n", w->relay_secret, peer);
    bytes_append(&s->to_server, greeting, strlen(greeting));
    bytes_append(&s->to_server, first, strlen(first));
    lws_callback_on_writable(s->line);
    return true;
}

static void close_line(struct session *s)
{
    if (s->line) {
        lws_set_opaque_user_data(s->line, NULL);
        lws_set_timeout(s->line, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
        s->line = NULL;
    }
}

/* What a session holds, let go: its connection to the line server and its buffers. The
 * session is then as libwebsockets gave it (zeroed), ready for another HTTP transaction. */
static void release_session(struct session *s)
{
    close_line(s);
    free(s->to_browser.data);
    free(s->to_server.data);
    free(s->message.data);
    memset(s, 0, sizeof *s);
}

/* The end of one HTTP transaction's use of the session: another may follow on the connection. */
static int http_done(struct session *s, struct lws *wsi)
{
    release_session(s);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* GET /matches/ID.tgr: `record ID` asked of the line server like any client's command (its
 * budgets and limits apply), the reply turned into the response. */
static int ask_record(struct web *w, struct session *s, struct lws *wsi, const char *uri)
{
    char line[96];
    const char *id = uri + strlen("/matches/"), *dot = strchr(id, '.');
    size_t digits = dot ? (size_t)(dot - id) : 0;
    bool plain = digits > 0 && digits <= 19 && id[0] != '0' && strcmp(dot, ".tgr") == 0 &&
                 strspn(id, "0123456789") == digits;
    release_session(s);
    if (!plain) {
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    s->ws = wsi;
    s->http_record = true;
    snprintf(line, sizeof line, "record %.*s\nquit\n", (int)digits, id);
    if (!open_line(w, s, wsi, line)) {
        lws_return_http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, NULL);
        return http_done(s, wsi);
    }
    return 0;
}

/* Once the whole reply is in: the status and headers, then the body a fragment at a time. */
static int send_record(struct session *s, struct lws *wsi)
{
    unsigned char *data = s->to_browser.data;
    size_t have = s->to_browser.len;
    if (!s->headers_sent) {
        unsigned char *nl = have ? memchr(data, '\n', have) : NULL;
        if (!nl && !s->line_gone)
            return 0; /* more to come */
        unsigned status = HTTP_STATUS_SERVICE_UNAVAILABLE;
        if (nl && strncmp((char *)data, "ok ", 3) == 0) {
            size_t lines = strtoul((char *)data + 3, NULL, 10), at = (size_t)(nl - data) + 1;
            s->body_at = at;
            while (lines && at < have) {
                unsigned char *end = memchr(data + at, '\n', have - at);
                if (!end)
                    break;
                at = (size_t)(end - data) + 1;
                lines--;
            }
            if (lines && !s->line_gone)
                return 0;
            status = lines ? HTTP_STATUS_SERVICE_UNAVAILABLE : HTTP_STATUS_OK;
            s->body_end = at;
        } else if (nl && (strncmp((char *)data, "err no-such-match", 17) == 0 ||
                          strncmp((char *)data, "err set-aside", 13) == 0)) {
            status = HTTP_STATUS_NOT_FOUND;
        } else if (nl && strncmp((char *)data, "err rate-limited", 16) == 0) {
            status = 429;
        }
        close_line(s);
        if (status != HTTP_STATUS_OK) {
            lws_return_http_status(wsi, status, NULL);
            return http_done(s, wsi);
        }
        unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start,
                                           *end = head + sizeof head - 1;
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "text/plain; charset=utf-8",
                                        s->body_end - s->body_at, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        s->headers_sent = true;
        lws_callback_on_writable(wsi);
        return 0;
    }
    size_t len = s->body_end - s->body_at;
    bool last = len <= FRAGMENT_MAX;
    if (!last)
        len = FRAGMENT_MAX;
    unsigned char *frame = malloc(LWS_PRE + len + 1);
    if (!frame)
        return -1;
    memcpy(frame + LWS_PRE, data + s->body_at, len);
    int written =
        lws_write(wsi, frame + LWS_PRE, len, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP);
    free(frame);
    if (written < (int)len)
        return -1;
    s->body_at += len;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    return http_done(s, wsi);
}

/* The browser connections that are not WebSockets, least recently active first. */
static void http_forget(struct web *w, struct lws *wsi)
{
    for (size_t i = 0; i < w->http_count; i++)
        if (w->http[i] == wsi) {
            memmove(&w->http[i], &w->http[i + 1], (w->http_count - i - 1) * sizeof *w->http);
            w->http_count--;
            return;
        }
}

/* A request came on wsi: it is the most recently active (if it is still among them). */
static void http_touch(struct web *w, struct lws *wsi)
{
    size_t before = w->http_count;
    http_forget(w, wsi);
    if (w->http_count < before)
        w->http[w->http_count++] = wsi;
}

static bool http_close_idlest(struct web *w)
{
    if (!w->http_count)
        return false;
    struct lws *idlest = w->http[0];
    http_forget(w, idlest);
    lws_set_timeout(idlest, PENDING_TIMEOUT_HTTP_KEEPALIVE_IDLE, LWS_TO_KILL_ASYNC);
    return true;
}

/* Whether a callback needs the connection's session. libwebsockets calls some of them on a
 * connection it never gave one to (a request whose headers overflow its buffer, one it refused
 * itself while parsing): these then have nothing to release and nothing to serve. */
static bool needs_session(enum lws_callback_reasons reason)
{
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
    case LWS_CALLBACK_HTTP:
    case LWS_CALLBACK_HTTP_WRITEABLE:
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_RECEIVE:
    case LWS_CALLBACK_SERVER_WRITEABLE:
    case LWS_CALLBACK_CLOSED:
        return true;
    default:
        return false;
    }
}

static int on_browser(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                      size_t len)
{
    struct session *s = user;
    struct web *w = lws_context_user(lws_get_context(wsi));
    if (!s && needs_session(reason))
        /* Closing: nothing to do. Anything else: that connection alone is closed. */
        return reason == LWS_CALLBACK_CLOSED_HTTP || reason == LWS_CALLBACK_CLOSED ? 0 : -1;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        http_forget(w, wsi); /* a WebSocket now, in the WebSockets' places */
        release_session(s);  /* a keep-alive connection's earlier HTTP transaction, if any */
        s->ws = wsi;
        if (!open_line(w, s, wsi, ""))
            refuse(s, "err io the server cannot take this connection now\n",
                   LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
        return 0;
    }
    case LWS_CALLBACK_HTTP: {
        /* The path as the client sent it (`in` holds only what follows the mount point); one
         * longer than any this server answers does not fit and is not found. */
        char uri[64];
        http_touch(w, wsi);
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) > 0 &&
            strncmp(uri, "/matches/", strlen("/matches/")) == 0)
            return ask_record(w, s, wsi, uri);
        release_session(s);
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return s->http_record ? send_record(s, wsi) : 0;
    case LWS_CALLBACK_CLOSED_HTTP:
        release_session(s);
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return origin_allowed(w, wsi) ? 0 : 1;
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
        http_touch(w, wsi);
        return inside_site(w, in, len) ? 0 : 1;
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        /* Refused before it costs more descriptors: the process never runs out of them, so
         * libwebsockets never spins on a failing accept. When the places are taken, or the
         * HTTP connections' share is, the idlest HTTP connection makes room; WebSockets never
         * do. The ones closing may take a few places more, for a moment. */
        if (w->connections >= w->max_connections + EXTRA_CONNECTIONS)
            return 1;
        if (w->connections >= w->max_connections || w->http_count == HTTP_CONNECTIONS_MAX)
            return http_close_idlest(w) ? 0 : 1;
        return 0;
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        /* A browser's socket (the relay's are adopted, and never come here): marked so that
         * its end is told from theirs. */
        lws_set_opaque_user_data(wsi, w);
        w->connections++;
        if (w->http_count < HTTP_CONNECTIONS_MAX)
            w->http[w->http_count++] = wsi;
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        if (lws_get_opaque_user_data(wsi) == w) {
            http_forget(w, wsi);
            w->connections--;
        }
        return 0;
    case LWS_CALLBACK_RECEIVE:
        receive(s, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return send_to_browser(s);
    case LWS_CALLBACK_CLOSED:
        release_session(s);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static int on_line(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len)
{
    struct session *s = lws_get_opaque_user_data(wsi);
    (void)user;
    switch (reason) {
    case LWS_CALLBACK_RAW_RX:
        if (!s || s->refused)
            return 0;
        if (!bytes_append(&s->to_browser, in, len))
            return -1;
        /* A record for HTTP is sent once whole (its length first): it is never paused. */
        if (s->to_browser.len > BACKLOG_HIGH && !s->server_paused && !s->http_record) {
            s->server_paused = true;
            lws_rx_flow_control(wsi, 0);
        }
        lws_callback_on_writable(s->ws);
        return 0;
    case LWS_CALLBACK_RAW_WRITEABLE:
        if (!s || !s->to_server.len)
            return 0;
        {
            size_t len_out = s->to_server.len;
            unsigned char *frame = malloc(LWS_PRE + len_out);
            if (!frame)
                return -1;
            memcpy(frame + LWS_PRE, s->to_server.data, len_out);
            int written = lws_write(wsi, frame + LWS_PRE, len_out, LWS_WRITE_RAW);
            free(frame);
            if (written < 0)
                return -1;
            s->to_server.len = 0; /* lws keeps any part the socket did not take */
            if (s->browser_paused) {
                s->browser_paused = false;
                lws_rx_flow_control(s->ws, 1);
            }
        }
        return 0;
    case LWS_CALLBACK_RAW_CLOSE:
        if (s) {
            s->line = NULL;
            s->line_gone = true;
            lws_callback_on_writable(s->ws);
        }
        return 0;
    default:
        return 0;
    }
}

/* libwebsockets' errors, at most one line a second (a flood of failing connections must not
 * flood stderr), with a count of the lines left out. */
static void log_at_most_once_a_second(int level, const char *line)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static time_t last;
    static unsigned long skipped;
    (void)level;
    pthread_mutex_lock(&lock);
    time_t now = time(NULL);
    if (now != last) {
        if (skipped)
            fprintf(stderr, "tg-server: libwebsockets: %lu more lines left out\n", skipped);
        fprintf(stderr, "tg-server: libwebsockets: %s", line);
        last = now;
        skipped = 0;
    } else {
        skipped++;
    }
    pthread_mutex_unlock(&lock);
}

/* One request on the metrics port: the text it is sent. */
struct metrics_reply {
    struct bytes text;
};

static void release_metrics_reply(struct metrics_reply *r)
{
    free(r->text.data);
    memset(r, 0, sizeof *r);
}

/* GET /metrics: the loop's latest text, in Prometheus' exposition format. */
static int serve_metrics(struct web *w, struct metrics_reply *r, struct lws *wsi)
{
    char uri[16];
    unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start,
                                       *end = head + sizeof head - 1;
    release_metrics_reply(r);
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
        strcmp(uri, "/metrics") != 0) {
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    pthread_mutex_lock(&w->metrics_lock);
    bool copied = bytes_append(&r->text, w->metrics.data, w->metrics.len);
    pthread_mutex_unlock(&w->metrics_lock);
    if (!copied ||
        lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "text/plain; version=0.0.4",
                                    r->text.len, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

/* The metrics port: GET /metrics and nothing else, a few connections at once. */
static int on_metrics(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                      size_t len)
{
    struct metrics_reply *r = user;
    struct web *w = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        return w->metrics_connections >= METRICS_CONNECTIONS_MAX ? 1 : 0;
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        lws_set_opaque_user_data(wsi, w);
        w->metrics_connections++;
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        if (lws_get_opaque_user_data(wsi) == w)
            w->metrics_connections--;
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return 1; /* no WebSocket here */
    case LWS_CALLBACK_HTTP:
        return r ? serve_metrics(w, r, wsi) : -1;
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!r)
            return -1;
        unsigned char *frame = malloc(LWS_PRE + r->text.len + 1);
        int written = -1;
        if (frame) {
            if (r->text.len)
                memcpy(frame + LWS_PRE, r->text.data, r->text.len);
            written = lws_write(wsi, frame + LWS_PRE, r->text.len, LWS_WRITE_HTTP_FINAL);
            free(frame);
        }
        release_metrics_reply(r);
        return written < 0 || lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_CLOSED_HTTP:
        if (r)
            release_metrics_reply(r);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols protocols[] = {
    /* First: a WebSocket that names no subprotocol, and every HTTP request, come here. */
    {"tg-lines", on_browser, sizeof(struct session), 4096, 0, NULL, 0},
    {"tg-line", on_line, 0, 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static const struct lws_protocols metrics_protocols[] = {
    {"tg-metrics", on_metrics, sizeof(struct metrics_reply), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static void *serve_web(void *arg)
{
    struct web *w = arg;
    while (!atomic_load(&w->stop))
        if (lws_service(w->context, 0) < 0)
            break;
    return NULL;
}

/* Listens on 127.0.0.1:port for a vhost of info's (its protocols, mounts...); the port bound,
 * or 0. */
static unsigned listen_vhost(struct web *w, struct lws_context_creation_info *info,
                             const char *name, long port, struct lws_vhost **vhost)
{
    info->vhost_name = name;
    info->port = (int)port;
    info->iface = "127.0.0.1";
    info->keepalive_timeout = HTTP_KEEPALIVE_SECONDS;
    info->timeout_secs_ah_idle = HTTP_HEADERS_SECONDS;
    *vhost = lws_create_vhost(w->context, info);
    int listening = *vhost ? lws_get_vhost_listen_port(*vhost) : -1;
    return listening > 0 ? (unsigned)listening : 0;
}

static void web_free(struct web *w)
{
    if (w->context)
        lws_context_destroy(w->context);
    pthread_mutex_destroy(&w->metrics_lock);
    free(w->metrics.data);
    free(w);
}

struct web *web_start(const struct web_options *o, unsigned line_port, struct web_ports *bound,
                      char *err, size_t err_cap)
{
    struct web *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&w->metrics_lock, NULL);
    w->line_port = line_port;
    const char *dir = o->dir;
    snprintf(w->relay_secret, sizeof w->relay_secret, "%s", o->relay_secret);
    w->max_connections = o->max_clients + EXTRA_CONNECTIONS;
    w->origins = o->origins;
    w->origin_count = o->origin_count;
    w->trusted = o->trusted;
    w->trusted_count = o->trusted_count;
    atomic_init(&w->stop, false);
    lws_set_log_level(LLL_ERR, log_at_most_once_a_second);
    *bound = (struct web_ports){0, 0};

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    /* libwebsockets 4.1 reads the check of UTF-8 from the context's options, not the vhost's */
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_DISABLE_IPV6 |
                   LWS_SERVER_OPTION_VALIDATE_UTF8;
    info.max_http_header_data = HEADERS_MAX;
    info.user = w;
    w->context = lws_create_context(&info);
    if (!w->context) {
        snprintf(err, err_cap, "cannot start libwebsockets");
        web_free(w);
        return NULL;
    }
    if (o->metrics_port >= 0) {
        struct lws_context_creation_info metrics;
        memset(&metrics, 0, sizeof metrics);
        metrics.options = LWS_SERVER_OPTION_DISABLE_IPV6;
        metrics.protocols = metrics_protocols;
        bound->metrics = listen_vhost(w, &metrics, "metrics", o->metrics_port, &w->metrics_vhost);
        if (!bound->metrics) {
            snprintf(err, err_cap, "cannot listen on 127.0.0.1:%ld for metrics", o->metrics_port);
            web_free(w);
            return NULL;
        }
    }
    if (o->port >= 0) {
        info.options = LWS_SERVER_OPTION_DISABLE_IPV6 | LWS_SERVER_OPTION_VALIDATE_UTF8;
        info.protocols = protocols;
        /* Every response: no sniffing, no framing by other sites, nothing loaded from
         * elsewhere (the board compiles WebAssembly), no referrer carrying a page's address
         * away. */
        static const struct {
            const char *name, *value;
        } headers[] = {
            {"x-content-type-options:", "nosniff"},
            {"x-frame-options:", "DENY"},
            {"referrer-policy:", "no-referrer"},
            {"content-security-policy:",
             "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' "
             "'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; "
             "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
        };
        for (size_t i = 0; i < sizeof headers / sizeof *headers; i++)
            w->headers[i] = (struct lws_protocol_vhost_options){
                i + 1 < sizeof headers / sizeof *headers ? &w->headers[i + 1] : NULL, NULL,
                headers[i].name, headers[i].value};
        info.headers = w->headers;
        if (dir) {
            if (!realpath(dir, w->dir)) {
                snprintf(err, err_cap, "--web %s: %s", dir, strerror(errno));
                web_free(w);
                return NULL;
            }
            /* Browsers compile WebAssembly as it streams in only under its own type. */
            w->wasm_type =
                (struct lws_protocol_vhost_options){NULL, NULL, ".wasm", "application/wasm"};
            w->mount = (struct lws_http_mount){
                .mountpoint = "/",
                .origin = w->dir,
                .def = "index.html",
                .extra_mimetypes = &w->wasm_type,
                .origin_protocol = LWSMPRO_FILE,
                .mountpoint_len = 1,
            };
        }
        /* /matches/ID.tgr is answered by the callback, before (more specific than) the files
         * at /. */
        w->records_mount = (struct lws_http_mount){
            .mount_next = dir ? &w->mount : NULL,
            .mountpoint = "/matches",
            .origin = "tg-lines",
            .origin_protocol = LWSMPRO_CALLBACK,
            .mountpoint_len = 8,
        };
        info.mounts = &w->records_mount;
        bound->web = w->web_port = listen_vhost(w, &info, "web", o->port, &w->web_vhost);
        if (!bound->web) {
            snprintf(err, err_cap, "cannot listen on 127.0.0.1:%ld for WebSocket and HTTP",
                     o->port);
            web_free(w);
            return NULL;
        }
    }
    /* Stop signals go to the loop thread, which owns the shut-down. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&w->thread, NULL, serve_web, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, err_cap, "cannot start the WebSocket thread: %s", strerror(rc));
        web_free(w);
        return NULL;
    }
    return w;
}

void web_stop(struct web *w)
{
    if (!w)
        return;
    atomic_store(&w->stop, true);
    lws_cancel_service(w->context);
    pthread_join(w->thread, NULL);
    web_free(w);
}

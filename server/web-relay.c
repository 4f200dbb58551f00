/* The match server's WebSocket relay (web-private.h): a browser's messages to its loopback
 * connection to the line server as command lines, the server's lines back as messages. */
#define _DEFAULT_SOURCE /* explicit_bzero */

#include "web-private.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

bool bytes_append(struct bytes *b, const void *p, size_t n)
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

/* The first n bytes waiting for the browser are sent: once the backlog is down to half its
 * high-water mark, the line server is read again. */
void browser_took(struct session *s, size_t n)
{
    bytes_consume(&s->to_browser, n);
    if (s->server_paused && s->to_browser.len < BACKLOG_HIGH / 2 && s->line) {
        s->server_paused = false;
        lws_rx_flow_control(s->line, 1);
    }
}

/* What the kernel may hold of the line server's replies for one relay: the line server's own
 * send buffer per client is as large (SOCKET_SEND_BUFFER, server.h). */
#define RELAY_RECEIVE_BUFFER (64 * 1024)

static int connect_line_server(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* Bounded before connect (the window is agreed then): left to autotuning, the kernel may
     * grow this buffer to tcp_rmem's maximum (32 MB on some machines), so a browser that does
     * not read would hold a whole long record in kernel memory, the line server would never
     * see it stall, and the relay's own bound (BACKLOG_HIGH) would mean nothing. */
    int rcvbuf = RELAY_RECEIVE_BUFFER;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
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
void refuse(struct session *s, const char *line, enum lws_close_status status)
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

void receive(struct session *s, const void *in, size_t len)
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
int send_to_browser(struct session *s)
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
        browser_took(s, len + (last ? 1 : 0));
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

/* Opens the session's connection to the line server, its first line saying who the client
 * is (docs/server.md, "Behind a TLS proxy") and the session its cookie holds (session_token,
 * or NULL), then `first` (may be ""). */
bool open_line(struct web *w, struct session *s, struct lws *wsi, const char *session_token,
               const char *first)
{
    close_line(s); /* a line left open would point at this session after it is gone */
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
    char peer[64], greeting[256];
    client_address(w, wsi, peer, sizeof peer);
    snprintf(greeting, sizeof greeting, "via %s %s%s%s\n", w->relay_secret, peer,
             session_token ? " " : "", session_token ? session_token : "");
    bytes_append(&s->to_server, greeting, strlen(greeting));
    explicit_bzero(greeting, sizeof greeting);
    bytes_append(&s->to_server, first, strlen(first));
    lws_callback_on_writable(s->line);
    return true;
}

void close_line(struct session *s)
{
    if (s->line) {
        lws_set_opaque_user_data(s->line, NULL);
        lws_set_timeout(s->line, PENDING_TIMEOUT_KILLED_BY_PARENT, LWS_TO_KILL_ASYNC);
        s->line = NULL;
    }
}

/* What a session holds, let go: its connection to the line server and its buffers. The
 * session is then as libwebsockets gave it (zeroed), ready for another HTTP transaction. */
void release_session(struct session *s)
{
    close_line(s);
    /* An account request's buffers held a password, a token or both. */
    if (s->to_server.data)
        explicit_bzero(s->to_server.data, s->to_server.cap);
    if (s->message.data)
        explicit_bzero(s->message.data, s->message.cap);
    if (s->to_browser.data)
        explicit_bzero(s->to_browser.data, s->to_browser.cap);
    free(s->to_browser.data);
    free(s->to_server.data);
    free(s->message.data);
    memset(s, 0, sizeof *s);
}

int on_line(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct session *s = lws_get_opaque_user_data(wsi);
    (void)user;
    switch (reason) {
    case LWS_CALLBACK_RAW_RX:
        if (!s || s->refused)
            return 0;
        if (!bytes_append(&s->to_browser, in, len))
            return -1;
        /* A WebSocket's lines and a record's body alike: memory per browser stays near
         * BACKLOG_HIGH however slowly it reads, the rest waiting in the line server. */
        if (s->to_browser.len > BACKLOG_HIGH && !s->server_paused) {
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
            if (s->http_record || s->account_route)
                /* The request is the line server's now: lws' 5 s for an HTTP answer (set
                 * after the callback took the request) would close a record or an account
                 * request still being made, answered never, and its sign-in or sign-out
                 * done. The line server's own limits (--idle-timeout) bound it instead. */
                lws_set_timeout(s->ws, NO_PENDING_TIMEOUT, 0);
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
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return 1; /* a WebSocket naming this subprotocol: it is the relay's, no browser's */
    default:
        return 0;
    }
}

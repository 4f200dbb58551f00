/* The match server's HTTP answers (web-private.h): records as GET /matches/ID.tgr, the
 * share of HTTP connections, and /metrics on the metrics port. */
#define _DEFAULT_SOURCE /* realpath, explicit_bzero */

#include "web-private.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file an HTTP request names (uri, len bytes, as libwebsockets parsed it) must be inside
 * the site once symbolic links are followed. One too long for a path is refused. */
bool inside_site(const struct web *w, const char *uri, size_t len)
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

/* The whole answer in one write: the status line, the headers (the site's own among them,
 * and Connection: close), and the body unless the request is a HEAD; then the connection
 * closes. One write, so that nothing comes between the parts; and no next request on the
 * connection, since libwebsockets 4.1 mishandles one that follows a request answered here: it
 * hands the old request to the callback again, and serves the connection no writable callback
 * after that (http_request). The session (NULL on the metrics port) is let go. Returns what
 * the callback returns: -1. */
int http_answer(struct session *s, struct lws *wsi, unsigned status, const char *type,
                const struct http_header *extra, size_t extra_count, const void *body,
                size_t body_len)
{
    enum { HEAD_ROOM = 2048 };
    static const char close_value[] = "close";
    char *uri;
    int uri_len;
    bool head_only = lws_http_get_uri_and_method(wsi, &uri, &uri_len) == LWSHUMETH_HEAD;
    size_t cap = LWS_PRE + HEAD_ROOM + body_len;
    unsigned char *frame = malloc(cap);
    if (!frame) {
        if (s)
            release_session(s);
        return -1;
    }
    unsigned char *start = frame + LWS_PRE, *p = start, *end = start + HEAD_ROOM;
    bool failed = lws_add_http_common_headers(wsi, status, type, body_len, &p, end) != 0;
    for (size_t i = 0; i < extra_count && !failed; i++)
        failed = lws_add_http_header_by_name(wsi, (const unsigned char *)extra[i].name,
                                             (const unsigned char *)extra[i].value,
                                             (int)strlen(extra[i].value), &p, end) != 0;
    if (!failed)
        failed = lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
                                              (const unsigned char *)close_value,
                                              sizeof close_value - 1, &p, end) != 0 ||
                 lws_finalize_http_header(wsi, &p, end) != 0;
    if (!failed && !head_only && body_len) {
        memcpy(p, body, body_len); /* before the session goes: body may be in its buffers */
        p += body_len;
    }
    if (s)
        release_session(s);
    if (!failed && lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP) < 0)
        failed = true; /* closing either way; lws keeps what the socket did not take */
    explicit_bzero(frame, cap); /* a Set-Cookie's token */
    free(frame);
    return -1; /* lws sends what it kept before it closes */
}

/* An error's answer: a short text, and the connection closes (docs/server.md: an error of
 * HTTP closes that connection only). */
static int http_error(struct session *s, struct lws *wsi, unsigned status, const char *text,
                      const char *allow)
{
    struct http_header allowed = {"allow:", allow};
    return http_answer(s, wsi, status, "text/plain; charset=utf-8", &allowed, allow ? 1 : 0,
                       text, strlen(text));
}

/* Whether path is prefix itself or below it. */
static bool under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* An HTTP request that no file answers: POST /account/..., GET /matches/ID.tgr, GET
 * /players/NAME.json and /matches/ID.json (web-pages.c), or an error. */
int http_request(struct web *w, struct session *s, struct lws *wsi)
{
    /* The path as the client sent it (the callback's `in` holds only what follows the mount
     * point); one longer than any this server answers is not found. */
    char *uri_ptr = NULL, uri[64];
    int uri_len = 0;
    int method = lws_http_get_uri_and_method(wsi, &uri_ptr, &uri_len);
    if (s->ws)
        /* The request being answered, handed to the callback again: bytes followed it on the
         * connection before its answer (a pipelined request), lws has dropped them, and
         * (lws 4.1) will serve this connection no writable callback any more. It closes
         * without an answer, as a connection may (RFC 9112 9.3.2): a client sends its
         * requests again on another. Browsers do not pipeline. */
        return -1;
    release_session(s);
    if (method < 0 || !uri_ptr || uri_len < 0 || (size_t)uri_len >= sizeof uri)
        return http_error(s, wsi, HTTP_STATUS_NOT_FOUND, "not found\n", NULL);
    memcpy(uri, uri_ptr, (size_t)uri_len);
    uri[uri_len] = '\0';
    if (under(uri, "/account"))
        return method == LWSHUMETH_POST
                   ? account_request(w, s, wsi, uri)
                   : http_error(s, wsi, HTTP_STATUS_METHOD_NOT_ALLOWED,
                                "the account endpoints take POST\n", "POST");
    if (is_page_request(uri) || under(uri, "/players"))
        return method == LWSHUMETH_GET
                   ? ask_page(w, s, wsi, uri)
                   : http_error(s, wsi, HTTP_STATUS_METHOD_NOT_ALLOWED,
                                "a page is fetched with GET\n", "GET");
    if (under(uri, "/matches"))
        return method == LWSHUMETH_GET
                   ? ask_record(w, s, wsi, uri)
                   : http_error(s, wsi, HTTP_STATUS_METHOD_NOT_ALLOWED,
                                "a record is fetched with GET\n", "GET");
    return http_error(s, wsi, HTTP_STATUS_NOT_FOUND, "not found\n", NULL);
}

/* GET /matches/ID.tgr: `record ID` asked of the line server like any client's command (its
 * budgets and limits apply), the reply streamed as the response (send_record). */
int ask_record(struct web *w, struct session *s, struct lws *wsi, const char *uri)
{
    char line[96];
    size_t prefix = strlen("/matches/");
    const char *id = strlen(uri) > prefix ? uri + prefix : "", *dot = strchr(id, '.');
    size_t digits = dot ? (size_t)(dot - id) : 0;
    bool plain = digits > 0 && digits <= 19 && id[0] != '0' && strcmp(dot, ".tgr") == 0 &&
                 strspn(id, "0123456789") == digits;
    if (!plain)
        return http_error(s, wsi, HTTP_STATUS_NOT_FOUND, "no such record\n", NULL);
    s->ws = wsi;
    s->http_record = true;
    snprintf(line, sizeof line, "record %.*s\nquit\n", (int)digits, id);
    if (!open_line(w, s, wsi, NULL, line))
        return http_error(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE,
                          "the server cannot take this request now\n", NULL);
    return 0;
}

unsigned refusal_status(const char *line, size_t len)
{
    static const struct {
        const char *word;
        unsigned status;
    } refusals[] = {{"err no-such-match", HTTP_STATUS_NOT_FOUND},
                    {"err set-aside", HTTP_STATUS_NOT_FOUND},
                    {"err no-such-player", HTTP_STATUS_NOT_FOUND},
                    {"err bad-name", HTTP_STATUS_NOT_FOUND},
                    {"err bad-page", HTTP_STATUS_NOT_FOUND},
                    {"err rate-limited", 429}};
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++) {
        size_t n = strlen(refusals[i].word);
        if (len >= n && strncmp(line, refusals[i].word, n) == 0 && (len == n || line[n] == ' '))
            return refusals[i].status;
    }
    return HTTP_STATUS_SERVICE_UNAVAILABLE;
}

/* The status the first line of the `record ID` reply (len bytes, without its newline) calls
 * for; with `ok N`, N is the record's number of lines. */
static unsigned record_status(const char *line, size_t len, unsigned long long *lines)
{
    static const char ok[] = "ok ";
    size_t digits = len > sizeof ok - 1 ? len - (sizeof ok - 1) : 0;
    if (digits && digits <= 19 && strncmp(line, ok, sizeof ok - 1) == 0 &&
        strspn(line + sizeof ok - 1, "0123456789") == digits) {
        *lines = strtoull(line + sizeof ok - 1, NULL, 10);
        return HTTP_STATUS_OK;
    }
    return refusal_status(line, len);
}

/* The status and headers, once the reply's first line is in. The body's length is not known
 * yet (the record streams), so it goes chunked: a body cut short then lacks its last chunk,
 * and the client can tell it from a whole one (a body ended by closing could not be). */
static int send_record_head(struct session *s, struct lws *wsi)
{
    unsigned char *data = s->to_browser.data;
    unsigned char *nl = s->to_browser.len ? memchr(data, '\n', s->to_browser.len) : NULL;
    if (!nl && !s->line_gone && !s->server_paused)
        return 0; /* more to come */
    unsigned long long lines = 0;
    unsigned status = nl ? record_status((const char *)data, (size_t)(nl - data), &lines)
                         : HTTP_STATUS_SERVICE_UNAVAILABLE;
    if (status != HTTP_STATUS_OK)
        return http_error(s, wsi, status,
                          status == HTTP_STATUS_NOT_FOUND ? "no such record\n"
                          : status == 429 ? "too many requests: try again later\n"
                                          : "the server cannot answer now\n",
                          NULL);
    browser_took(s, (size_t)(nl - data) + 1);
    s->record_lines_left = lines;
    static const char chunked[] = "chunked";
    unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start,
                                       *end = head + sizeof head - 1;
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "text/plain; charset=utf-8",
                                    LWS_ILLEGAL_HTTP_CONTENT_LEN, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING,
                                     (const unsigned char *)chunked, sizeof chunked - 1, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    s->headers_sent = true;
    lws_callback_on_writable(wsi);
    return 0;
}

/* The bytes of the record at the front of what waits, at most FRAGMENT_MAX: up to the end of
 * its last line, since what follows is the reply to the `quit` after it. */
static size_t record_bytes_ready(struct session *s)
{
    const unsigned char *data = s->to_browser.data;
    size_t len = s->to_browser.len < FRAGMENT_MAX ? s->to_browser.len : FRAGMENT_MAX, take = 0;
    while (take < len && s->record_lines_left) {
        const unsigned char *nl = memchr(data + take, '\n', len - take);
        if (!nl)
            return len;
        take = (size_t)(nl - data) + 1;
        s->record_lines_left--;
    }
    return take;
}

/* The body, a chunk per writable callback as the bytes come from the line server; the last
 * chunk once the record's N lines are sent. */
static int send_record_body(struct session *s, struct lws *wsi)
{
    static const char crlf[] = "\r\n", last_chunk[] = "0\r\n\r\n";
    size_t take = record_bytes_ready(s);
    bool last = s->record_lines_left == 0;
    if (take || last) {
        char size_line[24];
        int size_len = take ? snprintf(size_line, sizeof size_line, "%zx\r\n", take) : 0;
        size_t n = (size_t)size_len + take + (take ? 2 : 0) + (last ? sizeof last_chunk - 1 : 0);
        unsigned char *frame = malloc(LWS_PRE + n), *p;
        if (!frame)
            return -1;
        p = frame + LWS_PRE;
        memcpy(p, size_line, (size_t)size_len);
        p += size_len;
        if (take) {
            memcpy(p, s->to_browser.data, take);
            memcpy(p + take, crlf, 2);
            p += take + 2;
        }
        if (last)
            memcpy(p, last_chunk, sizeof last_chunk - 1);
        int written =
            lws_write(wsi, frame + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP);
        free(frame);
        if (written < (int)n)
            return -1;
        browser_took(s, take);
        if (last) {
            release_session(s);
            return lws_http_transaction_completed(wsi) ? -1 : 0; /* Connection: close */
        }
    }
    if (s->to_browser.len) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    /* The line server went before the record's last line: the connection ends without the
     * last chunk, so that the download is seen cut short. */
    return s->line_gone ? -1 : 0;
}

int send_record(struct session *s, struct lws *wsi)
{
    return s->headers_sent ? send_record_body(s, wsi) : send_record_head(s, wsi);
}

/* The browser connections that are not WebSockets, least recently active first. */
void http_forget(struct web *w, struct lws *wsi)
{
    for (size_t i = 0; i < w->http_count; i++)
        if (w->http[i] == wsi) {
            memmove(&w->http[i], &w->http[i + 1], (w->http_count - i - 1) * sizeof *w->http);
            w->http_count--;
            return;
        }
}

/* A request came on wsi: it is the most recently active (if it is still among them). */
void http_touch(struct web *w, struct lws *wsi)
{
    size_t before = w->http_count;
    http_forget(w, wsi);
    if (w->http_count < before)
        w->http[w->http_count++] = wsi;
}

bool http_close_idlest(struct web *w)
{
    if (!w->http_count)
        return false;
    struct lws *idlest = w->http[0];
    http_forget(w, idlest);
    lws_set_timeout(idlest, PENDING_TIMEOUT_HTTP_KEEPALIVE_IDLE, LWS_TO_KILL_ASYNC);
    return true;
}

/* GET /metrics: the loop's latest text, in Prometheus' exposition format, answered at once. */
static int serve_metrics(struct web *w, struct lws *wsi)
{
    char *uri = NULL;
    int uri_len = 0;
    int method = lws_http_get_uri_and_method(wsi, &uri, &uri_len);
    static const char metrics_path[] = "/metrics";
    if (!uri || uri_len != (int)sizeof metrics_path - 1 || memcmp(uri, metrics_path, sizeof metrics_path - 1) != 0)
        return http_error(NULL, wsi, HTTP_STATUS_NOT_FOUND, "not found\n", NULL);
    if (method != LWSHUMETH_GET && method != LWSHUMETH_HEAD)
        return http_error(NULL, wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "GET /metrics\n", "GET");
    struct bytes text = {0};
    pthread_mutex_lock(&w->metrics_lock);
    bool copied = bytes_append(&text, w->metrics.data, w->metrics.len);
    pthread_mutex_unlock(&w->metrics_lock);
    int rc = copied ? http_answer(NULL, wsi, HTTP_STATUS_OK, "text/plain; version=0.0.4", NULL,
                                  0, text.data, text.len)
                    : http_error(NULL, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE,
                                 "out of memory\n", NULL);
    free(text.data);
    return rc;
}

/* The metrics port: GET /metrics and nothing else, a few connections at once. */
int on_metrics(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
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
        return serve_metrics(w, wsi);
    case LWS_CALLBACK_HTTP_BODY:
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return 0; /* answered already, and closed if the request was not a GET */
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

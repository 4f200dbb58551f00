/* The match server's WebSocket and HTTP side (web.h), on libwebsockets.
 *
 * libwebsockets runs its own event loop on its own thread. A WebSocket connection opens a
 * loopback TCP connection to the line server and relays: one text message from the browser is
 * one command line, one line from the server is one text message to the browser. The poll
 * loop never learns which of its clients are browsers, so nothing about the protocol, its
 * limits or its storage differs between the two. */
#define _DEFAULT_SOURCE /* realpath, explicit_bzero */

#include "web-private.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether a callback needs the connection's session. libwebsockets calls some of them on a
 * connection it never gave one to (a request whose headers overflow its buffer, one it refused
 * itself while parsing): these then have nothing to release and nothing to serve. */
static bool needs_session(enum lws_callback_reasons reason)
{
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
    case LWS_CALLBACK_HTTP:
    case LWS_CALLBACK_HTTP_WRITEABLE:
    case LWS_CALLBACK_HTTP_BODY:
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
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
        /* The session cookie signs the connection in: online play is the account's. */
        char token[SESSION_TOKEN_LEN + 1];
        bool signed_in = session_cookie(wsi, token) == COOKIE_WELL_FORMED;
        bool opened = open_line(w, s, wsi, signed_in ? token : NULL, "");
        explicit_bzero(token, sizeof token);
        if (!opened)
            refuse(s, "err io the server cannot take this connection now\n",
                   LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
        return 0;
    }
    case LWS_CALLBACK_HTTP:
        http_touch(w, wsi);
        return http_request(w, s, wsi);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (s->account_route)
            return account_send(w, s, wsi);
        if (s->http_page)
            return send_page(s, wsi);
        return s->http_record ? send_record(s, wsi) : 0;
    case LWS_CALLBACK_HTTP_BODY:
        return account_body(w, s, wsi, in, len);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        /* The body's end is told by its length (account_body). lws tells it again at every
         * turn of its loop while bytes follow the body, unread, until the answer (which
         * closes the connection): a cost bounded by the sign-in budgets of what has a body. */
        return 0;
    case LWS_CALLBACK_CLOSED_HTTP:
        release_session(s);
        return 0;
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        /* lws calls this at each request and each transaction's end, and when it hands a
         * request to the callback again: the session is the connection's own (below), and
         * is let go by the transaction's end or the connection's, not here. */
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
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: {
        /* A browser's socket (the relay's are adopted, and never come here): marked so that
         * its end is told from theirs. Its session is allocated here and lives as long as
         * the connection, rather than in lws' per-protocol memory, which lws frees and
         * allocates anew whenever it binds the protocol again: also when it hands a request
         * still being answered to the callback a second time (http_request). */
        struct session *own = calloc(1, sizeof *own);
        if (!own)
            return 1;
        lws_set_wsi_user(wsi, own);
        lws_set_opaque_user_data(wsi, w);
        w->connections++;
        if (w->http_count < HTTP_CONNECTIONS_MAX)
            w->http[w->http_count++] = wsi;
        return 0;
    }
    case LWS_CALLBACK_WSI_DESTROY:
        if (lws_get_opaque_user_data(wsi) == w) {
            http_forget(w, wsi);
            w->connections--;
            if (s) {
                release_session(s);
                free(s);
                lws_set_wsi_user(wsi, NULL);
            }
        }
        return 0;
    case LWS_CALLBACK_RAW_ADOPT:
    case LWS_CALLBACK_RAW_RX:
        /* A request libwebsockets 4.1 could not take for HTTP (a CONNECT) is handed over as
         * a raw socket of this protocol, without a timeout: it is no browser's, and closes
         * at once rather than holding a place. */
        return -1;
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

static const struct lws_protocols protocols[] = {
    /* First: a WebSocket that names no subprotocol, and every HTTP request, come here. */
    {"tg-lines", on_browser, 0, 4096, 0, NULL, 0}, /* the session: its own (on_browser) */
    {"tg-line", on_line, 0, 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

static const struct lws_protocols metrics_protocols[] = {
    {"tg-metrics", on_metrics, 0, 0, 0, NULL, 0},
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
    w->secure_cookies = o->secure_cookies;
    w->session_lifetime = o->session_lifetime;
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
        /* /matches/ID.tgr, /matches/ID.json, /players/NAME.json and /account/... are answered
         * by the callback, before (more specific than) the files at /. */
        w->account_mount = (struct lws_http_mount){
            .mount_next = dir ? &w->mount : NULL,
            .mountpoint = "/account",
            .origin = "tg-lines",
            .origin_protocol = LWSMPRO_CALLBACK,
            .mountpoint_len = 8,
        };
        w->records_mount = (struct lws_http_mount){
            .mount_next = &w->account_mount,
            .mountpoint = "/matches",
            .origin = "tg-lines",
            .origin_protocol = LWSMPRO_CALLBACK,
            .mountpoint_len = 8,
        };
        w->players_mount = (struct lws_http_mount){
            .mount_next = &w->records_mount,
            .mountpoint = "/players",
            .origin = "tg-lines",
            .origin_protocol = LWSMPRO_CALLBACK,
            .mountpoint_len = 8,
        };
        info.mounts = &w->players_mount;
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

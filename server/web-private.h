/* What the files of the WebSocket and HTTP side (web.c, web-relay.c, web-http.c,
 * web-address.c, web-account.c, web-pages.c) share, and only they. */
#ifndef TG_SERVER_WEB_PRIVATE_H
#define TG_SERVER_WEB_PRIVATE_H

#include "web.h"

#include <libwebsockets.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

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
#define HTTP_KEEPALIVE_SECONDS 5  /* an HTTP connection's wait for its next request */
#define HTTP_HEADERS_SECONDS 10   /* a connection's wait for a request's headers */
#define METRICS_CONNECTIONS_MAX 4 /* on the metrics port, at once */
#define BODY_MAX 1024             /* an account form's body: a name and a password fit */
#define SESSION_TOKEN_LEN 64      /* hex digits, as the line server writes a session token */

/* The account endpoints (web-account.c); 0: the request is not one of them. */
enum account_route {
    ACCOUNT_NONE,
    ACCOUNT_REGISTER,
    ACCOUNT_LOGIN,
    ACCOUNT_LOGOUT,
    ACCOUNT_LOGOUT_ALL,
    ACCOUNT_WHOAMI,
    ACCOUNT_DELETE
};

/* What a request's session cookie holds. */
enum cookie { COOKIE_NONE, COOKIE_WELL_FORMED, COOKIE_BAD };

struct bytes {
    unsigned char *data;
    size_t len, cap;
};

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
    /* GET /matches/ID.tgr: the reply of `record ID` from the line server, streamed as the
     * response's body once its first line has decided the status. */
    bool http_record, headers_sent;
    unsigned long long record_lines_left; /* the record's lines not yet sent */
    /* GET /players/NAME.json, /matches/ID.json: the one-line JSON reply, sent whole. */
    bool http_page;
    /* POST /account/...: the form being received, then the line server's replies. */
    enum account_route account_route;
    enum cookie cookie;
    size_t body_left;  /* the body's bytes still to come (Content-Length) */
    bool forwarded;    /* the whole body came: what follows (lws' empty last call) is not */
};

/* A header of an answer: its name with the colon, in lower case, and its value. */
struct http_header {
    const char *name;
    const char *value;
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
    bool secure_cookies;
    double session_lifetime;
    struct lws_protocol_vhost_options headers[4];
    struct lws_http_mount account_mount;
    struct lws_http_mount records_mount;
    struct lws_http_mount players_mount;
    pthread_mutex_t metrics_lock;
    struct bytes metrics;                   /* the loop's latest text for GET /metrics */
    size_t max_connections, connections;    /* browser-side sockets, counted on its thread */
    struct lws *http[HTTP_CONNECTIONS_MAX]; /* those not WebSockets, least recently active first */
    size_t http_count;
    size_t metrics_connections;
    pthread_t thread;
    atomic_bool stop;
    char dir[4096];
    struct lws_http_mount mount;
    struct lws_protocol_vhost_options wasm_type;
};

bool bytes_append(struct bytes *b, const void *p, size_t n);
void browser_took(struct session *s, size_t n);
void refuse(struct session *s, const char *line, enum lws_close_status status);
void receive(struct session *s, const void *in, size_t len);
int send_to_browser(struct session *s);
bool open_line(struct web *w, struct session *s, struct lws *wsi, const char *session_token,
               const char *first);
void close_line(struct session *s);
void release_session(struct session *s);
int on_line(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);
bool origin_allowed(const struct web *w, struct lws *wsi);
bool request_origin_allowed(const struct web *w, struct lws *wsi);
/* The request's tg_session cookie; when well formed, its token is copied to token. */
enum cookie session_cookie(struct lws *wsi, char token[SESSION_TOKEN_LEN + 1]);
int http_request(struct web *w, struct session *s, struct lws *wsi);
int http_answer(struct session *s, struct lws *wsi, unsigned status, const char *type,
                const struct http_header *extra, size_t extra_count, const void *body,
                size_t body_len);
int account_request(struct web *w, struct session *s, struct lws *wsi, const char *uri);
int account_body(struct web *w, struct session *s, struct lws *wsi, const void *in, size_t len);
int account_send(struct web *w, struct session *s, struct lws *wsi);
void client_address(const struct web *w, struct lws *wsi, char *out, size_t cap);
bool inside_site(const struct web *w, const char *uri, size_t len);
int ask_record(struct web *w, struct session *s, struct lws *wsi, const char *uri);
/* The HTTP status the line server's refusal (its reply's first line, len bytes) calls for: 404
 * for an unknown match, set-aside match, player, name or page, 429 when rate-limited, else 503. */
unsigned refusal_status(const char *line, size_t len);
/* Whether uri is one of the history's JSON paths (web-pages.c): /players/... or
 * /matches/... ending in .json. */
bool is_page_request(const char *uri);
int ask_page(struct web *w, struct session *s, struct lws *wsi, const char *uri);
int send_page(struct session *s, struct lws *wsi);
int send_record(struct session *s, struct lws *wsi);
void http_forget(struct web *w, struct lws *wsi);
void http_touch(struct web *w, struct lws *wsi);
bool http_close_idlest(struct web *w);
int on_metrics(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif

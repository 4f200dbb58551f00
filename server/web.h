/* The match server's WebSocket and HTTP side (libwebsockets): one port that serves the web
 * app's files and carries the line protocol over WebSocket. Each WebSocket connection is
 * bridged to the line server's own loopback port, so that a browser is one more client of the
 * poll loop: the same commands, limits, idle timeout and replies as a TCP client. */
#ifndef TG_SERVER_WEB_H
#define TG_SERVER_WEB_H

#include <stdbool.h>
#include <stddef.h>

struct web;

struct web_options {
    long port;                  /* WebSocket and HTTP on 127.0.0.1:port; -1: none */
    long metrics_port;          /* GET /metrics alone on 127.0.0.1:metrics_port; -1: none */
    const char *dir;            /* served over HTTP at / if not NULL; nothing outside it */
    /* Each relayed connection opens with `via SECRET ADDRESS [SESSION]`. */
    const char *relay_secret;
    size_t max_clients;         /* browser connections open at once (a few more are told) */
    const char *const *origins; /* the pages allowed to open a WebSocket; none: same origin */
    size_t origin_count;
    /* Proxies (their addresses) whose X-Forwarded-For or Forwarded header names the client:
     * from any other peer those headers are ignored. */
    const char *const *trusted;
    size_t trusted_count;
    bool secure_cookies;     /* the session cookie is marked Secure (the site is on TLS) */
    double session_lifetime; /* seconds: the session cookie's Max-Age, the session's own */
};

struct web_ports {
    unsigned web, metrics; /* 0: not listening */
};

/* Listens on the ports of o (0 picks a free one) and starts the WebSocket thread; line_port is
 * the line server's port. The ports bound are written to *bound. NULL (and why in err) on
 * failure. */
struct web *web_start(const struct web_options *o, unsigned line_port, struct web_ports *bound,
                      char *err, size_t err_cap);
/* The text GET /metrics answers from now on on the metrics port (copied; called from the
 * loop's thread). */
void web_set_metrics(struct web *w, const char *text, size_t len);
/* Closes every WebSocket connection and ends the thread. */
void web_stop(struct web *w);

#endif

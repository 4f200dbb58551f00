/* The match server's WebSocket and HTTP side (libwebsockets): one port that serves the web
 * app's files and carries the line protocol over WebSocket. Each WebSocket connection is
 * bridged to the line server's own loopback port, so that a browser is one more client of the
 * poll loop: the same commands, limits, idle timeout and replies as a TCP client. */
#ifndef TG_SERVER_WEB_H
#define TG_SERVER_WEB_H

#include <stdbool.h>
#include <stddef.h>

struct web;

/* Listens on 127.0.0.1:port (0 picks a free one) and starts the WebSocket thread. dir, if not
 * NULL, is served over HTTP at /. line_port is the line server's port; each relayed connection
 * opens with `via SECRET ADDRESS` (relay_secret, the browser's address). At most max_clients
 * (and a few more, to be told the server is full) browser connections are open at once. The
 * port bound is written to *bound. NULL (and why in err) on failure. */
struct web *web_start(unsigned port, const char *dir, unsigned line_port, const char *relay_secret,
                      size_t max_clients, unsigned *bound, char *err, size_t err_cap);
/* Closes every WebSocket connection and ends the thread. */
void web_stop(struct web *w);

#endif

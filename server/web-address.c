/* Who a browser is and where its page comes from (web-private.h): the client's address
 * behind a trusted proxy, and the origins allowed to open a WebSocket. */
#define _DEFAULT_SOURCE /* strncasecmp */

#include "web-private.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

/* Whether origin (scheme://host[:port]) is a page of this site: one of the configured ones
 * (--origin), or without a list one of the server's own pages on loopback, with a Host that
 * names this server too: a page of evil.example whose name was made to resolve to 127.0.0.1
 * (DNS rebinding) names evil.example in both. */
static bool origin_is_ours(const struct web *w, struct lws *wsi, const char *origin)
{
    char host[256];
    if (w->origin_count) {
        for (size_t i = 0; i < w->origin_count; i++)
            if (strcmp(origin, w->origins[i]) == 0)
                return true;
        return false;
    }
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0 ||
        !names_this_server(host, w->web_port))
        return false;
    const char *rest = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
    return rest && names_this_server(rest, w->web_port);
}

/* A browser names the page that opens a WebSocket in Origin: only this site's may (so that
 * another site cannot act with a visitor's seat links or session cookie). A client with no
 * Origin is not a browser and is let in (without a list, with a Host naming this server). */
bool origin_allowed(const struct web *w, struct lws *wsi)
{
    char origin[256], host[256];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0)
        return lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) > 0 &&
               origin_is_ours(w, wsi, origin); /* one too long for the buffer is no one's */
    return w->origin_count || (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) > 0 &&
                               names_this_server(host, w->web_port));
}

/* A request that changes an account (CSRF): its Origin, or without one its Referer's origin,
 * must be this site's. Unlike a WebSocket, a request that names neither is refused: a form
 * posted from another site may carry the visitor's cookie. */
bool request_origin_allowed(const struct web *w, struct lws *wsi)
{
    char origin[256], referer[1024];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0)
        return lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) > 0 &&
               origin_is_ours(w, wsi, origin);
    if (lws_hdr_copy(wsi, referer, sizeof referer, WSI_TOKEN_HTTP_REFERER) <= 0)
        return false;
    const char *scheme_end = strstr(referer, "://");
    if (!scheme_end)
        return false;
    size_t n = (size_t)(scheme_end + 3 - referer) + strcspn(scheme_end + 3, "/?#");
    if (n >= sizeof origin)
        return false;
    memcpy(origin, referer, n);
    origin[n] = '\0';
    return origin_is_ours(w, wsi, origin);
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
void client_address(const struct web *w, struct lws *wsi, char *out, size_t cap)
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

/* The history's JSON on the web port (web-private.h; docs/server.md, "History"):
 * GET /players/NAME.json[?page=N] and GET /matches/ID.json are `player-page NAME [N]` and
 * `match-page ID` asked of the line server like any client's command (its budgets and limits
 * apply), its one-line JSON reply handed on as the body. Anything else under those paths, and a
 * player or match the line server does not know, is a 404. */
#define _POSIX_C_SOURCE 200809L

#include "web-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
#define NAME_LONGEST 20 /* as the line server's names (ACCOUNT_NAME_MAX) */
#define PAGE_DIGITS 6   /* ?page= beyond this is not asked for: the line server refuses it */

/* The length of the part of `uri` after `prefix` and before a final ".json" if it is made of
 * `chars` only, at least 1 and at most `longest`; 0 otherwise. */
static size_t json_name(const char *uri, const char *prefix, const char *chars, size_t longest)
{
    size_t p = strlen(prefix), n = strlen(uri);
    if (strncmp(uri, prefix, p) != 0 || n < p + 6 || strcmp(uri + n - 5, ".json") != 0)
        return 0;
    size_t len = n - p - 5;
    return len <= longest && strspn(uri + p, chars) == len ? len : 0;
}

static int not_found(struct session *s, struct lws *wsi)
{
    static const char text[] = "not found\n";
    return http_answer(s, wsi, HTTP_STATUS_NOT_FOUND, "text/plain; charset=utf-8", NULL, 0, text,
                       sizeof text - 1);
}

bool is_page_request(const char *uri)
{
    size_t n = strlen(uri);
    return n > 5 && strcmp(uri + n - 5, ".json") == 0 &&
           (strncmp(uri, "/players/", 9) == 0 || strncmp(uri, "/matches/", 9) == 0);
}

int ask_page(struct web *w, struct session *s, struct lws *wsi, const char *uri)
{
    char line[128];
    size_t len;
    if ((len = json_name(uri, "/matches/", "0123456789", 19)) && uri[9] != '0') {
        snprintf(line, sizeof line, "match-page %.*s\nquit\n", (int)len, uri + 9);
    } else if ((len = json_name(uri, "/players/", NAME_CHARS, NAME_LONGEST))) {
        char arg[32] = "";
        const char *page = lws_get_urlarg_by_name(wsi, "page=", arg, sizeof arg);
        if (page &&
            (!*page || strlen(page) > PAGE_DIGITS || strspn(page, "0123456789") != strlen(page)))
            return not_found(s, wsi);
        snprintf(line, sizeof line, "player-page %.*s%s%s\nquit\n", (int)len, uri + 9,
                 page ? " " : "", page ? page : "");
    } else {
        return not_found(s, wsi);
    }
    release_session(s);
    s->ws = wsi;
    s->http_page = true;
    if (!open_line(w, s, wsi, NULL, line)) {
        static const char text[] = "the server cannot take this request now\n";
        return http_answer(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
                           NULL, 0, text, sizeof text - 1);
    }
    return 0;
}

/* The answer once the reply's line is in, whole in one write (http_answer): the JSON, or the
 * status a refusal calls for. A player's page changes with every game, and a match's until it
 * ends: those are checked again on each use; an ended match's page may be kept a minute (only
 * a deleted account's name leaves it). */
int send_page(struct session *s, struct lws *wsi)
{
    unsigned char *data = s->to_browser.data;
    unsigned char *nl = s->to_browser.len ? memchr(data, '\n', s->to_browser.len) : NULL;
    if (!nl && !s->line_gone && !s->server_paused)
        return 0; /* more to come */
    size_t first = nl ? (size_t)(nl - data) : 0;
    if (!nl || first < 4 || strncmp((const char *)data, "ok {", 4) != 0) {
        unsigned status =
            nl ? refusal_status((const char *)data, first) : HTTP_STATUS_SERVICE_UNAVAILABLE;
        const char *text = status == HTTP_STATUS_NOT_FOUND ? "not found\n"
                           : status == 429 ? "too many requests: try again later\n"
                                           : "the server cannot answer now\n";
        return http_answer(s, wsi, status, "text/plain; charset=utf-8", NULL, 0, text,
                           strlen(text));
    }
    close_line(s);
    data[first] = '\0'; /* where the newline was: the JSON is a string now */
    const char *json = (const char *)data + 3;
    size_t json_len = first - 3;
    bool ended_match = strncmp(json, "{\"match\":", 9) == 0 &&
                       !strstr(json, "\"result\":\"running\"");
    struct http_header cache = {"cache-control:", ended_match ? "public, max-age=60" : "no-cache"};
    return http_answer(s, wsi, HTTP_STATUS_OK, "application/json", &cache, 1, json, json_len);
}

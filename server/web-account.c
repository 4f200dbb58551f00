/* The web port's account endpoints (web-private.h; docs/server.md, "Accounts in a browser"):
 * POST /account/register, login, logout, logout-all, whoami and delete, with a form body,
 * answered in JSON, the session carried by the cookie tg_session. Each is relayed to the line
 * server as the account commands a client would send, on a connection of its own whose `via`
 * line carries the cookie's session: the line server alone checks names, passwords, sessions
 * and the sign-in budgets, so a browser is held to exactly what a line client is. */
#define _DEFAULT_SOURCE /* explicit_bzero */

#include "web-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_COOKIE "tg_session"
#define FORM_VALUE_MAX 128   /* a password's most bytes; a name is shorter */

struct route {
    const char *path;
    enum account_route route;
    const char *command;  /* the line command, before its arguments */
    bool takes_name;      /* the form's name, then its password, follow the command */
    bool takes_password;  /* the form's password follows the command */
    bool needs_session;   /* refused with 401 unless the cookie signs in */
    unsigned reply_lines; /* the replies awaited, `quit`'s not counted */
};

/* register and login are followed by `whoami`: the name as stored, whatever its case typed. */
static const struct route routes[] = {
    {"/account/register", ACCOUNT_REGISTER, "register", true, true, false, 2},
    {"/account/login", ACCOUNT_LOGIN, "login", true, true, false, 2},
    {"/account/logout", ACCOUNT_LOGOUT, "logout", false, false, true, 1},
    {"/account/logout-all", ACCOUNT_LOGOUT_ALL, "logout-all", false, false, true, 1},
    {"/account/whoami", ACCOUNT_WHOAMI, "whoami", false, false, false, 1},
    {"/account/delete", ACCOUNT_DELETE, "delete-account", false, true, true, 1},
};

static const struct route *route_of(enum account_route r)
{
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++)
        if (routes[i].route == r)
            return &routes[i];
    return NULL;
}

static bool token_well_formed(const char *t)
{
    size_t n = strlen(t);
    return n == SESSION_TOKEN_LEN && strspn(t, "0123456789abcdef") == n;
}

enum cookie session_cookie(struct lws *wsi, char token[SESSION_TOKEN_LEN + 1])
{
    size_t max = SESSION_TOKEN_LEN + 1;
    token[0] = '\0';
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_COOKIE) <= 0)
        return COOKIE_NONE;
    if (lws_http_cookie_get(wsi, SESSION_COOKIE, token, &max) == 0)
        return token_well_formed(token) ? COOKIE_WELL_FORMED : COOKIE_BAD;
    /* Absent, or too long to be a token: lws cannot tell which, the header can. */
    char *header = malloc(HEADERS_MAX + 1);
    bool named = header && lws_hdr_copy(wsi, header, HEADERS_MAX + 1, WSI_TOKEN_HTTP_COOKIE) > 0 &&
                 strstr(header, SESSION_COOKIE "=");
    free(header);
    token[0] = '\0';
    return named || !header ? COOKIE_BAD : COOKIE_NONE;
}

/* ---- the response ------------------------------------------------------------------------ */

/* The status and headers now, the JSON body at the next writable callback (account_send). */
static int respond(struct session *s, struct lws *wsi, unsigned status, const char *set_cookie,
                   const char *body)
{
    unsigned char head[LWS_PRE + 1024], *start = head + LWS_PRE, *p = start,
                                        *end = head + sizeof head - 1;
    static const char no_store[] = "no-store";
    close_line(s);
    s->to_browser.len = 0;
    if (!bytes_append(&s->to_browser, body, strlen(body)))
        return -1;
    if (lws_add_http_common_headers(wsi, status, "application/json", strlen(body), &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)no_store, sizeof no_store - 1, &p,
                                    end) ||
        (set_cookie && lws_add_http_header_by_name(wsi, (const unsigned char *)"set-cookie:",
                                                   (const unsigned char *)set_cookie,
                                                   (int)strlen(set_cookie), &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    s->headers_sent = true;
    lws_callback_on_writable(wsi);
    return 0;
}

/* An error: {"error": WORD, "message": TEXT}, the words and texts the line protocol uses. */
static int respond_error(struct session *s, struct lws *wsi, unsigned status, const char *word,
                         const char *text, size_t text_len)
{
    char body[1024];
    size_t at = (size_t)snprintf(body, sizeof body, "{\"error\":\"%s\",\"message\":\"", word);
    for (size_t i = 0; i < text_len && at + 8 < sizeof body; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '"' || ch == '\\')
            at += (size_t)snprintf(body + at, sizeof body - at, "\\%c", ch);
        else if (ch < 0x20)
            at += (size_t)snprintf(body + at, sizeof body - at, "\\u%04x", ch);
        else
            body[at++] = (char)ch;
    }
    snprintf(body + at, sizeof body - at, "\"}");
    return respond(s, wsi, status, NULL, body);
}

/* A refusal made here, before the line server is asked: the connection closes after it, so
 * that a body not read yet is never taken for the next request. */
static int refuse_request(struct session *s, struct lws *wsi, unsigned status, const char *word,
                          const char *text)
{
    s->close_after = true;
    return respond_error(s, wsi, status, word, text, strlen(text));
}

/* The session cookie: set to a token for the session's lifetime, or cleared (token NULL). */
static void cookie_header(const struct web *w, const char *token, char *out, size_t cap)
{
    snprintf(out, cap, SESSION_COOKIE "=%s; Path=/; Max-Age=%.0f; HttpOnly; SameSite=Lax%s",
             token ? token : "", token ? w->session_lifetime : 0.0,
             w->secure_cookies ? "; Secure" : "");
}

/* The HTTP status a line protocol's error word calls for. */
static unsigned status_of(const char *word, size_t len)
{
    static const struct {
        const char *word;
        unsigned status;
    } statuses[] = {
        {"bad-login", HTTP_STATUS_UNAUTHORIZED},     {"bad-session", HTTP_STATUS_UNAUTHORIZED},
        {"not-signed-in", HTTP_STATUS_UNAUTHORIZED}, {"name-taken", HTTP_STATUS_CONFLICT},
        {"rate-limited", 429},                       {"bad-name", HTTP_STATUS_BAD_REQUEST},
        {"bad-password", HTTP_STATUS_BAD_REQUEST},   {"usage", HTTP_STATUS_BAD_REQUEST},
    };
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        if (strlen(statuses[i].word) == len && strncmp(statuses[i].word, word, len) == 0)
            return statuses[i].status;
    return HTTP_STATUS_SERVICE_UNAVAILABLE; /* io, halted, overloaded, no-memory... */
}

/* The line server's replies are in (or it went): the response they call for. */
static int respond_from_replies(struct web *w, struct session *s, struct lws *wsi)
{
    char *data = (char *)s->to_browser.data, cookie[256], body[128];
    size_t len = s->to_browser.len;
    char *nl = len ? memchr(data, '\n', len) : NULL;
    if (!nl)
        return refuse_request(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "io",
                              "the server did not answer");
    size_t first = (size_t)(nl - data);
    if (first > 4 && strncmp(data, "err ", 4) == 0) {
        const char *word = data + 4, *space = memchr(word, ' ', first - 4);
        size_t word_len = space ? (size_t)(space - word) : first - 4;
        const char *text = space ? space + 1 : "";
        size_t text_len = space ? first - (size_t)(text - data) : 0;
        char word_copy[32];
        snprintf(word_copy, sizeof word_copy, "%.*s", (int)word_len, word);
        if (strspn(word_copy, "abcdefghijklmnopqrstuvwxyz-") != strlen(word_copy))
            snprintf(word_copy, sizeof word_copy, "io");
        return respond_error(s, wsi, status_of(word, word_len), word_copy, text, text_len);
    }
    if (first < 2 || strncmp(data, "ok", 2) != 0 || (first > 2 && data[2] != ' '))
        return refuse_request(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "io",
                              "the server answered what was not expected");
    *nl = '\0';
    const char *value = first > 3 ? data + 3 : "";
    switch (s->account_route) {
    case ACCOUNT_REGISTER:
    case ACCOUNT_LOGIN: {
        char *name = nl + 1, *end = memchr(name, '\n', len - first - 1);
        if (!token_well_formed(value) || !end || strncmp(name, "ok ", 3) != 0)
            return refuse_request(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "io",
                                  "the server answered what was not expected");
        *end = '\0';
        cookie_header(w, value, cookie, sizeof cookie);
        snprintf(body, sizeof body, "{\"name\":\"%s\"}", name + 3);
        explicit_bzero(data, first); /* the token goes in the cookie, nowhere else */
        int rc = respond(s, wsi, HTTP_STATUS_OK, cookie, body);
        explicit_bzero(cookie, sizeof cookie);
        return rc;
    }
    case ACCOUNT_WHOAMI:
        if (strcmp(value, "-") == 0)
            return s->cookie == COOKIE_NONE
                       ? respond(s, wsi, HTTP_STATUS_OK, NULL, "{\"name\":null}")
                       : refuse_request(s, wsi, HTTP_STATUS_UNAUTHORIZED, "bad-session",
                                        "no such session: it expired, was revoked, or never was");
        snprintf(body, sizeof body, "{\"name\":\"%s\"}", value);
        return respond(s, wsi, HTTP_STATUS_OK, NULL, body);
    default: /* signed out, everywhere, or the account gone: the cookie goes too */
        cookie_header(w, NULL, cookie, sizeof cookie);
        return respond(s, wsi, HTTP_STATUS_OK, cookie, "{\"name\":null}");
    }
}

/* ---- the request ------------------------------------------------------------------------- */

/* A form value as a word of a command line: no space, no control byte (a newline would end the
 * line and start another command), not empty, not longer than any valid one. Its content
 * (UTF-8, lengths, characters) is the line server's to judge. */
static bool fits_a_word(const char *v)
{
    if (!v || !*v || strlen(v) > FORM_VALUE_MAX)
        return false;
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return false;
    return true;
}

/* The body is in: the command lines asked of the line server, or a refusal. */
static int forward(struct web *w, struct session *s, struct lws *wsi)
{
    const struct route *r = route_of(s->account_route);
    char token[SESSION_TOKEN_LEN + 1], line[512];
    s->forwarded = true;
    s->cookie = session_cookie(wsi, token);
    if (r->needs_session && s->cookie != COOKIE_WELL_FORMED)
        return refuse_request(s, wsi, HTTP_STATUS_UNAUTHORIZED,
                              s->cookie == COOKIE_NONE ? "not-signed-in" : "bad-session",
                              s->cookie == COOKIE_NONE ? "this browser is not signed in"
                                                       : "the session cookie is not a session's");
    if (s->account_route == ACCOUNT_WHOAMI && s->cookie == COOKIE_BAD)
        return refuse_request(s, wsi, HTTP_STATUS_UNAUTHORIZED, "bad-session",
                              "the session cookie is not a session's");
    if (s->account_route == ACCOUNT_WHOAMI && s->cookie == COOKIE_NONE)
        return respond(s, wsi, HTTP_STATUS_OK, NULL, "{\"name\":null}");
    const char *name = NULL, *password = NULL;
    struct lws_spa *spa = NULL;
    if (r->takes_name || r->takes_password) {
        static const char *const fields[] = {"name", "password"};
        spa = lws_spa_create(wsi, fields, 2, BODY_MAX + 1, NULL, NULL);
        if (!spa || lws_spa_process(spa, (const char *)s->message.data, (int)s->message.len) ||
            lws_spa_finalize(spa)) {
            if (spa)
                lws_spa_destroy(spa);
            return refuse_request(s, wsi, HTTP_STATUS_BAD_REQUEST, "usage",
                                  "the body is not a form (application/x-www-form-urlencoded)");
        }
        name = lws_spa_get_string(spa, 0);
        password = lws_spa_get_string(spa, 1);
    }
    int rc = 0;
    if (r->takes_name && !fits_a_word(name)) {
        rc = refuse_request(s, wsi, HTTP_STATUS_BAD_REQUEST, "bad-name",
                            "a name is 3 to 20 letters (a-z, A-Z), digits, '_' or '-'");
    } else if (r->takes_password && !fits_a_word(password)) {
        rc = refuse_request(s, wsi, HTTP_STATUS_BAD_REQUEST, "bad-password",
                            "a password is 8 to 128 bytes of UTF-8 text, without spaces or "
                            "control characters");
    } else {
        int made = snprintf(line, sizeof line, "%s%s%s%s%s\n%squit\n", r->command,
                            r->takes_name ? " " : "", r->takes_name ? name : "",
                            r->takes_password ? " " : "", r->takes_password ? password : "",
                            r->reply_lines == 2 ? "whoami\n" : "");
        if (made < 0 || (size_t)made >= sizeof line)
            rc = refuse_request(s, wsi, HTTP_STATUS_BAD_REQUEST, "usage", "the form is too long");
        else if (!open_line(w, s, wsi, s->cookie == COOKIE_WELL_FORMED ? token : NULL, line))
            rc = refuse_request(s, wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "io",
                                "the server cannot take this request now");
    }
    explicit_bzero(line, sizeof line);
    explicit_bzero(token, sizeof token);
    if (s->message.data)
        explicit_bzero(s->message.data, s->message.cap);
    s->message.len = 0;
    if (spa)
        lws_spa_destroy(spa);
    return rc;
}

int account_request(struct web *w, struct session *s, struct lws *wsi, const char *uri)
{
    release_session(s);
    s->ws = wsi;
    const struct route *r = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof *routes && !r; i++)
        if (strcmp(uri, routes[i].path) == 0)
            r = &routes[i];
    if (!r) {
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    s->account_route = r->route;
    if (!request_origin_allowed(w, wsi))
        return refuse_request(s, wsi, HTTP_STATUS_FORBIDDEN, "bad-origin",
                              "a request that changes an account must come from this site's "
                              "own pages (Origin or Referer)");
    char length[24] = "";
    long long declared = 0;
    if (lws_hdr_copy(wsi, length, sizeof length, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0)
        declared = strspn(length, "0123456789") == strlen(length) && strlen(length) < 19
                       ? atoll(length)
                       : BODY_MAX + 1;
    if (declared > BODY_MAX)
        return refuse_request(s, wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, "too-large",
                              "a form is at most 1024 bytes");
    if ((r->takes_name || r->takes_password) && declared > 0) {
        char type[64] = "";
        lws_hdr_copy(wsi, type, sizeof type, WSI_TOKEN_HTTP_CONTENT_TYPE);
        if (strncmp(type, "application/x-www-form-urlencoded",
                    strlen("application/x-www-form-urlencoded")) != 0)
            return refuse_request(s, wsi, HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE, "usage",
                                  "the body is a form: application/x-www-form-urlencoded");
    }
    s->body_left = (size_t)declared;
    return declared == 0 ? forward(w, s, wsi) : 0;
}

int account_body(struct web *w, struct session *s, struct lws *wsi, const void *in, size_t len)
{
    if (s->headers_sent || s->forwarded || !s->account_route)
        return 0; /* answered or asked already: what else comes is not read */
    if (len > s->body_left || !bytes_append(&s->message, in, len))
        return refuse_request(s, wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, "too-large",
                              "a form is at most 1024 bytes");
    s->body_left -= len;
    return s->body_left == 0 ? forward(w, s, wsi) : 0;
}

int account_send(struct web *w, struct session *s, struct lws *wsi)
{
    if (!s->headers_sent) {
        const struct route *r = route_of(s->account_route);
        unsigned lines = 0;
        for (size_t i = 0; i < s->to_browser.len; i++)
            lines += s->to_browser.data[i] == '\n';
        if (lines < r->reply_lines && !s->line_gone)
            return 0; /* more to come */
        return respond_from_replies(w, s, wsi);
    }
    size_t n = s->to_browser.len;
    unsigned char *frame = malloc(LWS_PRE + n + 1);
    if (!frame)
        return -1;
    if (n)
        memcpy(frame + LWS_PRE, s->to_browser.data, n);
    int written = lws_write(wsi, frame + LWS_PRE, n, LWS_WRITE_HTTP_FINAL);
    free(frame);
    bool close_after = s->close_after;
    release_session(s);
    if (written < (int)n || close_after)
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

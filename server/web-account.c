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
#include <strings.h>

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

/* The answer, whole (http_answer, which closes the connection after it): the JSON body,
 * never stored by a cache, and the cookie if one is set. */
static int respond(struct session *s, struct lws *wsi, unsigned status, const char *set_cookie,
                   const char *body)
{
    const struct http_header headers[] = {{"cache-control:", "no-store"},
                                          {"set-cookie:", set_cookie ? set_cookie : ""}};
    close_line(s);
    return http_answer(s, wsi, status, "application/json", headers, set_cookie ? 2 : 1, body,
                       strlen(body));
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

/* A refusal made here, before the line server is asked (the body perhaps not read). */
static int refuse_request(struct session *s, struct lws *wsi, unsigned status, const char *word,
                          const char *text)
{
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

static int hex_digit(unsigned char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* One name or value of a form (len bytes at in), decoded into out (room for len + 1 bytes):
 * `+` is a space, `%XX` a byte. false for an escape that is not two hex digits, or a NUL
 * byte, which would cut the value short where the line server reads it. */
static bool decode_form_part(const unsigned char *in, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        int c = in[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            int high = len - i >= 3 ? hex_digit(in[i + 1]) : -1;
            int low = len - i >= 3 ? hex_digit(in[i + 2]) : -1;
            if (high < 0 || low < 0)
                return false;
            c = high * 16 + low;
            i += 2;
        }
        if (c == 0)
            return false;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return true;
}

/* The fields `name` and `password` of a form body (application/x-www-form-urlencoded), into
 * name and password (each with room for the body and its NUL; "" when not given): NULL, or
 * why the body is no form. Decoded here rather than by lws_spa, which takes a cut escape at
 * the body's end, a NUL byte or a field given twice without a word. Other fields are let be,
 * as a browser's form may hold more. */
static const char *form_fields(const unsigned char *body, size_t len, char *name, char *password)
{
    char key[BODY_MAX + 1];
    bool name_given = false, password_given = false;
    name[0] = password[0] = '\0';
    for (size_t at = 0; at < len;) {
        const unsigned char *amp = memchr(body + at, '&', len - at);
        size_t end = amp ? (size_t)(amp - body) : len;
        const unsigned char *eq = memchr(body + at, '=', end - at);
        size_t key_end = eq ? (size_t)(eq - body) : end;
        size_t value_at = eq ? key_end + 1 : end;
        if (end > at) { /* an empty part (`a=1&&b=2`) names nothing */
            if (!decode_form_part(body + at, key_end - at, key))
                return "a field's name holds a bad %-escape or a NUL byte";
            bool is_name = strcmp(key, "name") == 0, is_password = strcmp(key, "password") == 0;
            if ((is_name && name_given) || (is_password && password_given))
                return "a field is given twice";
            if ((is_name || is_password) &&
                !decode_form_part(body + value_at, end - value_at, is_name ? name : password))
                return "a field holds a bad %-escape or a NUL byte";
            name_given |= is_name;
            password_given |= is_password;
        }
        at = end + 1;
    }
    return NULL;
}

/* The body is in: the command lines asked of the line server, or a refusal. */
static int forward(struct web *w, struct session *s, struct lws *wsi)
{
    const struct route *r = route_of(s->account_route);
    char token[SESSION_TOKEN_LEN + 1], line[512];
    char name[BODY_MAX + 1], password[BODY_MAX + 1];
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
    const char *malformed = NULL;
    if (r->takes_name || r->takes_password)
        malformed = form_fields(s->message.data, s->message.len, name, password);
    int rc = 0;
    if (malformed) {
        rc = refuse_request(s, wsi, HTTP_STATUS_BAD_REQUEST, "usage", malformed);
    } else if (r->takes_name && !fits_a_word(name)) {
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
    explicit_bzero(name, sizeof name);
    explicit_bzero(password, sizeof password);
    /* s may be released (answered): its buffers are wiped then, and zeroed. */
    if (s->message.data)
        explicit_bzero(s->message.data, s->message.cap);
    s->message.len = 0;
    return rc;
}

/* The request's body length, from its Content-Length: one decimal number (RFC 9112). A sign,
 * letters, a list (two Content-Length headers) or an empty one is framing that cannot be
 * trusted; libwebsockets reads such a value its own way (atoll), so the request is refused
 * before a byte of its body is read. */
enum body_length { LENGTH_ABSENT, LENGTH_OK, LENGTH_MALFORMED, LENGTH_TOO_LARGE };

static enum body_length body_length(struct lws *wsi, size_t *length)
{
    char value[64], second[1];
    *length = 0;
    int n = lws_hdr_copy_fragment(wsi, value, sizeof value, WSI_TOKEN_HTTP_CONTENT_LENGTH, 0);
    if (n < 0) /* none, or 64 characters and more: no number of bytes a form has */
        return lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 ? LENGTH_MALFORMED
                                                                             : LENGTH_ABSENT;
    bool twice = lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, 1) > 0 ||
                 lws_hdr_copy_fragment(wsi, second, sizeof second,
                                       WSI_TOKEN_HTTP_CONTENT_LENGTH, 1) == 0;
    if (strlen(value) != (size_t)n) /* a NUL byte inside */
        return LENGTH_MALFORMED;
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t')) /* lws trims the leading */
        value[--n] = '\0';
    if (twice || n == 0 || strspn(value, "0123456789") != (size_t)n)
        return LENGTH_MALFORMED;
    if (n > 9 || atol(value) > BODY_MAX)
        return LENGTH_TOO_LARGE;
    *length = (size_t)atol(value);
    return LENGTH_OK;
}

/* Whether the body is a form: the media type application/x-www-form-urlencoded (in any case),
 * with or without parameters (`; charset=UTF-8`), and nothing else. */
static bool is_form(struct lws *wsi)
{
    static const char form[] = "application/x-www-form-urlencoded";
    char type[256];
    if (lws_hdr_copy(wsi, type, sizeof type, WSI_TOKEN_HTTP_CONTENT_TYPE) <= 0)
        return false;
    const char *p = type + strspn(type, " \t");
    size_t n = strcspn(p, ";");
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    return n == sizeof form - 1 && strncasecmp(p, form, n) == 0;
}

int account_request(struct web *w, struct session *s, struct lws *wsi, const char *uri)
{
    s->ws = wsi;
    const struct route *r = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof *routes && !r; i++)
        if (strcmp(uri, routes[i].path) == 0)
            r = &routes[i];
    if (!r)
        return refuse_request(s, wsi, HTTP_STATUS_NOT_FOUND, "usage", "no such endpoint");
    s->account_route = r->route;
    if (!request_origin_allowed(w, wsi))
        return refuse_request(s, wsi, HTTP_STATUS_FORBIDDEN, "bad-origin",
                              "a request that changes an account must come from this site's "
                              "own pages (Origin or Referer)");
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0)
        return refuse_request(s, wsi, HTTP_STATUS_LENGTH_REQUIRED, "usage",
                              "a form is sent with its Content-Length, not in chunks");
    size_t declared = 0;
    switch (body_length(wsi, &declared)) {
    case LENGTH_ABSENT: /* no body (libwebsockets reads what follows as one: ignored) */
        break;
    case LENGTH_MALFORMED:
        return refuse_request(s, wsi, HTTP_STATUS_BAD_REQUEST, "usage",
                              "the Content-Length is not one number of bytes");
    case LENGTH_TOO_LARGE:
        return refuse_request(s, wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, "too-large",
                              "a form is at most 1024 bytes");
    case LENGTH_OK:
        break;
    }
    if ((r->takes_name || r->takes_password) && declared > 0 && !is_form(wsi))
        return refuse_request(s, wsi, HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE, "usage",
                              "the body is a form: application/x-www-form-urlencoded");
    s->body_left = declared;
    return declared == 0 ? forward(w, s, wsi) : 0;
}

int account_body(struct web *w, struct session *s, struct lws *wsi, const void *in, size_t len)
{
    if (!s->account_route || s->forwarded)
        return 0; /* answered or asked already: what else comes is not read */
    if (len > s->body_left || !bytes_append(&s->message, in, len))
        return refuse_request(s, wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, "too-large",
                              "a form is at most 1024 bytes");
    s->body_left -= len;
    return s->body_left == 0 ? forward(w, s, wsi) : 0;
}

/* Whether the line server's replies are in (or it went): the answer can be made. */
static bool account_reply_ready(const struct session *s)
{
    const struct route *r = route_of(s->account_route);
    unsigned lines = 0;
    if (!r || !s->forwarded)
        return false;
    for (size_t i = 0; i < s->to_browser.len; i++)
        lines += s->to_browser.data[i] == '\n';
    return lines >= r->reply_lines || s->line_gone;
}

/* The line server's replies came (or it went): the answer they call for, in one write. */
int account_send(struct web *w, struct session *s, struct lws *wsi)
{
    return account_reply_ready(s) ? respond_from_replies(w, s, wsi) : 0;
}

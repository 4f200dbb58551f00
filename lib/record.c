/* Game records (docs/records.md): tag pairs and the moves of the undo history in notation,
 * written by tg_state_record() and read back, every move replayed, by tg_state_from_record(). */
#include "internal.h"

#include <string.h>

#define LINE_MAX_COLUMNS 80
/* Rules and Start values are read into buffers of this size: a canonical spec and a position
 * string of the largest board fit with room to spare. */
#define VALUE_MAX 2048
#define MOVE_TOKEN_MAX 64

static const char *const reserved_tags[] = {"Rules", "Start", "Result", "Termination"};

/* ---- tag pairs ---------------------------------------------------------------------------- */

struct tag {
    const char *name, *value; /* value: between the quotes, escapes not yet undone */
    size_t name_len, value_len;
};

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Reads `[Name "value"]` at p; returns the position after it, or NULL if malformed. */
static const char *read_tag(const char *p, struct tag *t)
{
    if (*p != '[')
        return NULL;
    t->name = ++p;
    while (is_name_char(*p))
        p++;
    t->name_len = (size_t)(p - t->name);
    if (t->name_len == 0 || (*p != ' ' && *p != '\t'))
        return NULL;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '"')
        return NULL;
    t->value = ++p;
    for (;;) {
        if (*p == '\0' || *p == '\n' || *p == '\r')
            return NULL; /* unterminated */
        if (*p == '"')
            break;
        if (*p == '\\') {
            if (p[1] != '"' && p[1] != '\\')
                return NULL;
            p++;
        }
        p++;
    }
    t->value_len = (size_t)(p - t->value);
    p++;
    return *p == ']' ? p + 1 : NULL;
}

static bool tag_is(const struct tag *t, const char *name)
{
    return t->name_len == strlen(name) && memcmp(t->name, name, t->name_len) == 0;
}

static bool is_reserved(const struct tag *t)
{
    for (size_t i = 0; i < sizeof reserved_tags / sizeof reserved_tags[0]; i++)
        if (tag_is(t, reserved_tags[i]))
            return true;
    return false;
}

/* The value with its escapes undone, into out[0 .. cap); false if it does not fit. */
static bool unescape(const struct tag *t, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < t->value_len; i++) {
        char c = t->value[i];
        if (c == '\\')
            c = t->value[++i];
        if (n + 1 >= cap)
            return false;
        out[n++] = c;
    }
    out[n] = '\0';
    return true;
}

/* The caller's tags of tg_state_record(): well formed, one a line, none reserved. */
static bool caller_tags_valid(const char *tags)
{
    const char *p = tags;
    while (*p) {
        struct tag t;
        p = read_tag(p, &t);
        if (!p || is_reserved(&t))
            return false;
        if (*p == '\n')
            p++;
        else if (*p != '\0')
            return false;
    }
    return true;
}

/* ---- writing ------------------------------------------------------------------------------ */

static void out_tag(struct tg_out *o, const char *name, const char *value)
{
    tg__out_str(o, "[");
    tg__out_str(o, name);
    tg__out_str(o, " \"");
    for (const char *v = value; *v; v++) {
        if (*v == '"' || *v == '\\')
            tg__out_str(o, "\\");
        tg__out_mem(o, v, 1);
    }
    tg__out_str(o, "\"]\n");
}

static const char *result_token(const struct tg_pos *pos)
{
    if (pos->phase != TG__OVER)
        return "*";
    return pos->winner == 0 ? "1-0" : pos->winner == 1 ? "0-1" : "1/2-1/2";
}

/* Move text, wrapped: a token goes on the current line if it fits in 80 columns. */
struct wrap {
    struct tg_out *o;
    size_t column;
};

static void wrap_token(struct wrap *w, size_t len)
{
    if (w->column && w->column + 1 + len > LINE_MAX_COLUMNS) {
        tg__out_str(w->o, "\n");
        w->column = 0;
    } else if (w->column) {
        tg__out_str(w->o, " ");
        w->column++;
    }
    w->column += len;
}

static void write_record(const tg_state *s, const char *tags, struct tg_out *o)
{
    const struct tg_config *cfg = &s->rules.cfg;
    out_tag(o, "Rules", s->rules.spec);
    const struct tg_pos *start = s->history_len ? &s->history[0].before : &s->pos;
    struct tg_pos initial;
    memset(&initial, 0, sizeof initial);
    initial.winner = TG_NO_WINNER_YET;
    cfg->game->init(cfg, &initial);
    if (memcmp(start, &initial, sizeof initial) != 0) {
        char text[VALUE_MAX];
        struct tg_out t = {text, sizeof text, 0};
        tg__pos_write(&s->rules, start, &t);
        out_tag(o, "Start", text);
    }
    if (tags && *tags) {
        tg__out_str(o, tags);
        if (tags[strlen(tags) - 1] != '\n')
            tg__out_str(o, "\n");
    }
    out_tag(o, "Result", result_token(&s->pos));
    if (s->pos.phase == TG__OVER)
        out_tag(o, "Termination", tg_end_reason_name(tg_state_end_reason(s)));
    tg__out_str(o, "\n");

    struct wrap w = {o, 0};
    unsigned long number = 0;
    int turn = -1;
    for (size_t i = 0; i < s->history_len; i++) {
        const struct tg_undo *u = &s->history[i];
        if (u->before.side != turn) {
            turn = u->before.side;
            char num[24];
            struct tg_out n = {num, sizeof num, 0};
            tg__out_uint(&n, ++number);
            tg__out_str(&n, ".");
            wrap_token(&w, n.len);
            tg__out_str(o, num);
        }
        struct tg_out measure = {NULL, 0, 0};
        cfg->game->move_to_string(cfg, &u->before, u->move, &measure);
        wrap_token(&w, measure.len);
        cfg->game->move_to_string(cfg, &u->before, u->move, o);
    }
    const char *result = result_token(&s->pos);
    wrap_token(&w, strlen(result));
    tg__out_str(o, result);
    tg__out_str(o, "\n");
}

tg_status tg_state_record(const tg_state *s, const char *tags, char *buf, size_t cap,
                          size_t *needed)
{
    if (!s || (!buf && cap) || (tags && !caller_tags_valid(tags)))
        return TG_ERR_INVALID_ARGUMENT;
    struct tg_out o = {NULL, 0, 0};
    write_record(s, tags, &o);
    if (needed)
        *needed = o.len;
    if (!buf && cap == 0)
        return TG_OK;
    if (o.len >= cap)
        return TG_ERR_BUFFER_TOO_SMALL;
    struct tg_out w = {buf, cap, 0};
    write_record(s, tags, &w);
    return TG_OK;
}

/* ---- reading ------------------------------------------------------------------------------ */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Skips white space and comments; NULL on an unterminated comment. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (is_space(*p))
            p++;
        if (*p != '{')
            return p;
        const char *close = strchr(p, '}');
        if (!close)
            return NULL;
        p = close + 1;
    }
}

struct header {
    char rules[VALUE_MAX];
    char start[VALUE_MAX];
    char result[16];
    char termination[32];
    bool has_rules, has_start, has_result, has_termination;
};

static bool take_value(const struct tag *t, bool *seen, char *out, size_t cap)
{
    if (*seen)
        return false; /* a repeated tag of the library's own */
    *seen = true;
    return unescape(t, out, cap);
}

/* Reads the tag pairs; returns where the move text starts, or NULL if malformed. */
static const char *read_header(const char *p, struct header *h)
{
    memset(h, 0, sizeof *h);
    for (;;) {
        p = skip_blank(p);
        if (!p)
            return NULL;
        if (*p != '[')
            break;
        struct tag t;
        p = read_tag(p, &t);
        if (!p)
            return NULL;
        bool ok = true;
        if (tag_is(&t, "Rules"))
            ok = take_value(&t, &h->has_rules, h->rules, sizeof h->rules);
        else if (tag_is(&t, "Start"))
            ok = take_value(&t, &h->has_start, h->start, sizeof h->start);
        else if (tag_is(&t, "Result"))
            ok = take_value(&t, &h->has_result, h->result, sizeof h->result);
        else if (tag_is(&t, "Termination"))
            ok = take_value(&t, &h->has_termination, h->termination, sizeof h->termination);
        if (!ok)
            return NULL;
    }
    return h->has_rules ? p : NULL;
}

enum token_kind { TOKEN_END, TOKEN_NUMBER, TOKEN_MOVE, TOKEN_RESULT, TOKEN_BAD };

static bool is_result(const char *s, size_t n)
{
    static const char *const results[] = {"1-0", "0-1", "1/2-1/2", "*"};
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (n == strlen(results[i]) && memcmp(s, results[i], n) == 0)
            return true;
    return false;
}

/* The next token of the move text at *p (advanced past it): s, n its text. */
static enum token_kind next_token(const char **p, const char **s, size_t *n)
{
    const char *q = skip_blank(*p);
    if (!q)
        return TOKEN_BAD;
    if (*q == '\0') {
        *p = q;
        return TOKEN_END;
    }
    const char *e = q;
    while (*e && !is_space(*e) && *e != '{')
        e++;
    *s = q;
    *n = (size_t)(e - q);
    *p = e;
    if (is_result(q, *n))
        return TOKEN_RESULT;
    if (q[0] >= '0' && q[0] <= '9') {
        /* A move number: digits without a leading zero, then a full stop. */
        size_t digits = 0;
        while (digits < *n && q[digits] >= '0' && q[digits] <= '9')
            digits++;
        if (q[0] == '0' || digits > 10 || digits + 1 != *n || q[digits] != '.')
            return TOKEN_BAD;
        return TOKEN_NUMBER;
    }
    return *n < MOVE_TOKEN_MAX ? TOKEN_MOVE : TOKEN_BAD;
}

/* Checks the move text's form: moves, numbers and comments, one result token at the end.
 * Returns the number of moves, or -1 if malformed; *result gets the result token. */
static long scan_moves(const char *p, const char **result, size_t *result_len)
{
    long moves = 0;
    for (;;) {
        const char *s;
        size_t n;
        switch (next_token(&p, &s, &n)) {
        case TOKEN_NUMBER:
            break;
        case TOKEN_MOVE:
            moves++;
            break;
        case TOKEN_RESULT: {
            *result = s;
            *result_len = n;
            const char *rest = skip_blank(p);
            return rest && *rest == '\0' ? moves : -1;
        }
        default:
            return -1; /* malformed, or no result token */
        }
    }
}

/* Replays the move text on s. */
static tg_status replay(tg_state *s, const char *p)
{
    for (;;) {
        const char *t;
        size_t n;
        enum token_kind k = next_token(&p, &t, &n);
        if (k == TOKEN_RESULT)
            return TG_OK;
        if (k != TOKEN_MOVE)
            continue;
        char text[MOVE_TOKEN_MAX];
        memcpy(text, t, n);
        text[n] = '\0';
        tg_move m;
        if (tg_move_from_string(s, text, &m) != TG_OK)
            return TG_ERR_PARSE;
        tg_status st = tg_state_apply(s, m);
        if (st == TG_ERR_GAME_OVER || st == TG_ERR_ILLEGAL_MOVE)
            return TG_ERR_ILLEGAL_MOVE;
        if (st != TG_OK)
            return st;
    }
}

tg_status tg_state_from_record(const char *text, tg_state **out)
{
    if (!text || !out)
        return TG_ERR_INVALID_ARGUMENT;
    struct header h;
    const char *moves_text = read_header(text, &h);
    if (!moves_text)
        return TG_ERR_PARSE;
    const char *result;
    size_t result_len;
    long moves = scan_moves(moves_text, &result, &result_len);
    if (moves < 0)
        return TG_ERR_PARSE;
    struct tg_rules rules;
    if (tg__rules_parse(h.rules, strlen(h.rules), &rules) != TG_OK)
        return TG_ERR_PARSE;
    struct tg_pos pos;
    if (h.has_start) {
        if (tg__pos_parse(&rules, h.start, &pos) != TG_OK)
            return TG_ERR_PARSE;
    } else {
        memset(&pos, 0, sizeof pos);
        pos.winner = TG_NO_WINNER_YET;
        rules.cfg.game->init(&rules.cfg, &pos);
    }
    /* The history is allocated once, for every move the text has. */
    tg_state *s;
    tg_status st = tg__state_make(&rules, &pos, (size_t)moves, &s);
    if (st != TG_OK)
        return st;
    st = replay(s, moves_text);
    if (st == TG_OK) {
        const char *got = result_token(&s->pos);
        if (strlen(got) != result_len || memcmp(got, result, result_len) != 0 ||
            (h.has_result && strcmp(h.result, got) != 0) ||
            (h.has_termination &&
             (s->pos.phase != TG__OVER ||
              strcmp(h.termination, tg_end_reason_name(tg_state_end_reason(s))) != 0)))
            st = TG_ERR_PARSE;
    }
    if (st != TG_OK) {
        tg_state_free(s);
        return st;
    }
    *out = s;
    return TG_OK;
}

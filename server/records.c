/* The records `record ID` sends (docs/server.md, "Concurrency"): each made once on the record
 * worker for a version of a match's plies and its ending, shared by every client that asks
 * for that one while it is held, and fed into each client's output a slice at a time as its
 * socket takes it. So a client that does not read holds its output's high-water mark, not a
 * copy of the record; the records themselves count against --max-buffered until the last
 * client asking has been sent its copy, or has gone. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record *record_find(struct server *sv, const struct match *m, const char *tags)
{
    for (struct record *r = sv->records; r; r = r->next)
        if (r->match_id == m->id && r->plies_version == m->plies_version &&
            strcmp(r->tags, tags) == 0)
            return r;
    return NULL;
}

struct record *record_new(struct server *sv, struct client *c, const struct match *m,
                          const char *tags)
{
    struct record *r = calloc(1, sizeof *r);
    if (!r) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return NULL;
    }
    r->match_id = m->id;
    r->plies_version = m->plies_version;
    snprintf(r->tags, sizeof r->tags, "%s", tags);
    r->making = true;
    r->next = sv->records;
    sv->records = r;
    return r;
}

static void record_free_if_unused(struct server *sv, struct record *r)
{
    if (r->users || r->making)
        return;
    for (struct record **p = &sv->records; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    sv->record_bytes -= r->len;
    free(r->text);
    free(r);
}

/* `ok N`, then the record's lines as the output drains. */
static void record_start(struct server *sv, struct client *c)
{
    c->record_sent = 0;
    c->last_active = sv->now; /* the idle timeout is the time it has to take the record */
    if (!buf_printf(&c->out, "ok %zu\n", c->record->lines)) {
        c->dead = true;
        record_detach(sv, c);
        return;
    }
    record_feed(sv, c);
}

void record_attach(struct server *sv, struct client *c, struct record *r)
{
    r->users++;
    c->record = r;
    if (r->text)
        record_start(sv, c);
    else
        c->awaiting = true;
}

void record_made(struct server *sv, struct record *r, tg_status st, char *text, size_t len)
{
    r->making = false;
    bool over = st == TG_OK && sv->out_total + sv->record_bytes + len > sv->opt.max_buffered;
    bool made = st == TG_OK && !over;
    if (made) {
        r->text = text;
        r->len = len;
        for (size_t i = 0; i < len; i++)
            r->lines += text[i] == '\n';
        sv->record_bytes += len;
    } else {
        free(text);
    }
    r->users++; /* held while its clients are told: none of them frees it meanwhile */
    for (size_t i = 0; i < sv->client_count; i++) {
        struct client *c = sv->clients[i];
        if (c->record != r)
            continue;
        c->awaiting = false;
        if (made) {
            record_start(sv, c);
            continue;
        }
        record_detach(sv, c);
        if (over)
            reply_error(c, "overloaded", "too much output waits for clients; try again");
        else
            reply_status(c, st);
    }
    r->users--;
    record_free_if_unused(sv, r); /* one not made has no users left: the next ask makes it */
}

void record_feed(struct server *sv, struct client *c)
{
    /* Up to a byte short of the mark, for the buffer's closing NUL: the output's buffer then
     * stays at 64 KB rather than doubling for one byte. */
    const size_t mark = OUT_HIGH_WATER - 1;
    struct record *r = c->record;
    if (!r || !r->text || c->out.len >= mark)
        return;
    size_t n = r->len - c->record_sent;
    if (n > mark - c->out.len)
        n = mark - c->out.len;
    if (!buf_append(&c->out, r->text + c->record_sent, n)) {
        c->dead = true;
        record_detach(sv, c);
        return;
    }
    c->record_sent += n;
    if (c->record_sent == r->len)
        record_detach(sv, c);
}

bool record_flush(struct server *sv, struct client *c)
{
    struct record *r = c->record;
    if (!r || !r->text)
        return true;
    bool appended = buf_append(&c->out, r->text + c->record_sent, r->len - c->record_sent);
    record_detach(sv, c);
    return appended;
}

void record_detach(struct server *sv, struct client *c)
{
    struct record *r = c->record;
    if (!r)
        return;
    c->record = NULL;
    if (r->users)
        r->users--;
    record_free_if_unused(sv, r);
}

void records_free(struct server *sv)
{
    for (struct record *r = sv->records, *next; r; r = next) {
        next = r->next;
        free(r->text);
        free(r);
    }
    sv->records = NULL;
}

/* Shared pieces of the match server (common.h). */
#define _POSIX_C_SOURCE 200809L

#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

void *array_reserve(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
    /* An empty array is allocated even when nothing is needed yet, so that NULL always means
     * out of memory. */
    if (need <= *cap && items)
        return items;
    size_t grown_cap = *cap ? *cap : first;
    while (grown_cap < need) {
        if (grown_cap > SIZE_MAX / 2)
            return NULL;
        grown_cap *= 2;
    }
    if (grown_cap > SIZE_MAX / size)
        return NULL;
    void *grown = realloc(items, grown_cap * size);
    if (grown)
        *cap = grown_cap;
    return grown;
}

bool buf_reserve(struct buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown)
        return false;
    b->data = grown;
    b->cap = cap;
    return true;
}

bool buf_append(struct buf *b, const char *text, size_t n)
{
    if (!buf_reserve(b, n))
        return false;
    memcpy(b->data + b->len, text, n);
    b->len += n;
    b->data[b->len] = '\0';
    return true;
}

bool buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !buf_reserve(b, (size_t)n))
        return false;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

void buf_consume(struct buf *b, size_t n)
{
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
    if (b->data)
        b->data[b->len] = '\0';
}

bool os_random(void *out, size_t n)
{
    unsigned char *p = out;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p += got;
        n -= (size_t)got;
    }
    return true;
}

bool new_token(char out[TOKEN_HEX_LEN + 1])
{
    unsigned char raw[TOKEN_HEX_LEN / 2];
    if (!os_random(raw, sizeof raw))
        return false;
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return true;
}

static bool move_list_push(struct move_list *l, const struct stored_move *m)
{
    struct stored_move *grown = array_reserve(l->items, &l->cap, l->count + 1, sizeof *grown, 8);
    if (!grown)
        return false;
    l->items = grown;
    l->items[l->count++] = *m;
    return true;
}

void move_list_free(struct move_list *l)
{
    free(l->items);
    memset(l, 0, sizeof *l);
}

tg_status record_move(tg_state *s, tg_move move, int seat, struct move_list *out)
{
    struct stored_move m = {.move = move, .seat = seat};
    tg_status st = tg_move_to_string(s, move, m.notation, sizeof m.notation, NULL);
    if (st == TG_OK)
        st = tg_state_apply(s, move);
    if (st != TG_OK)
        return st;
    m.hash_after = tg_state_hash(s);
    if (!move_list_push(out, &m)) {
        tg_state_undo(s);
        return TG_ERR_NO_MEMORY;
    }
    return TG_OK;
}

tg_status throw_while_chance(tg_state *s, struct move_list *out)
{
    while (tg_state_player(s) == TG_CHANCE) {
        size_t n = 0;
        tg_state_chance(s, NULL, NULL, 0, &n);
        tg_move *outcomes = malloc((n ? n : 1) * sizeof *outcomes);
        double *probs = malloc((n ? n : 1) * sizeof *probs);
        uint64_t bits;
        tg_status st =
            !outcomes || !probs ? TG_ERR_NO_MEMORY : tg_state_chance(s, outcomes, probs, n, &n);
        if (st == TG_OK && (n == 0 || !os_random(&bits, sizeof bits)))
            st = TG_ERR_INVALID_ARGUMENT;
        if (st == TG_OK) {
            /* 53 random bits give a uniform double in [0, 1); the outcome is the one whose
             * share of the cumulative probabilities it falls in. */
            double u = (double)(bits >> 11) * 0x1p-53, sum = 0;
            size_t pick = n - 1;
            for (size_t i = 0; i < n; i++) {
                sum += probs[i];
                if (u < sum) {
                    pick = i;
                    break;
                }
            }
            st = record_move(s, outcomes[pick], -1, out);
        }
        free(outcomes);
        free(probs);
        if (st != TG_OK)
            return st;
    }
    return TG_OK;
}

/* A copy of the file `from` as `to`, which must not exist yet. */
bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wbx") : NULL;
    char chunk[65536];
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(chunk, 1, sizeof chunk, in)) > 0)
        ok = fwrite(chunk, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

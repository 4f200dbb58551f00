/* What the endgame database suites share (test_egtb.c, test_egtb_search.c): an exhaustive
 * minimax of their own, which plays moves through the public API only and memoises on board,
 * side and quiet count; temporary directories; a flipped byte. */
#ifndef TG_TEST_EGTB_REFERENCE_H
#define TG_TEST_EGTB_REFERENCE_H

#include "test_util.h"

#include <unistd.h>

/* ----- the reference: minimax over the public API, memoised on board, side and quiet count */

enum { REF_WIN = 1000, REF_LOSS = -1000, KEY_BYTES = 16 };

struct memo_entry {
    uint8_t key[KEY_BYTES];
    int16_t value;
    uint8_t used;
};

struct memo {
    struct memo_entry *slot;
    size_t cap; /* a power of two */
    size_t used;
};

static inline int quiet_count(const tg_state *s)
{
    char text[256];
    TU_OK(tg_state_to_string(s, text, sizeof text, NULL));
    const char *q = strstr(text, " quiet=");
    assert_non_null(q);
    return atoi(q + 7);
}

static inline void state_key(const tg_state *s, int holes, uint8_t *key)
{
    memset(key, 0, KEY_BYTES);
    const tg_rules *r = tg_state_rules(s);
    int cols = tg_rules_cols(r);
    for (int c = 0; c < holes; c++)
        key[c] = (uint8_t)tg_state_count(s, c / cols, c % cols);
    key[holes] = (uint8_t)tg_state_player(s);
    key[holes + 1] = (uint8_t)quiet_count(s);
}

static inline struct memo_entry *memo_find(struct memo *m, const uint8_t *key)
{
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < KEY_BYTES; i++)
        h = (h ^ key[i]) * 1099511628211u;
    for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
        if (!m->slot[i].used || memcmp(m->slot[i].key, key, KEY_BYTES) == 0)
            return &m->slot[i];
}

static inline void memo_grow(struct memo *m)
{
    struct memo old = *m;
    m->cap = old.cap ? old.cap * 2 : 1 << 16;
    m->slot = calloc(m->cap, sizeof *m->slot);
    assert_non_null(m->slot);
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].used)
            *memo_find(m, old.slot[i].key) = old.slot[i];
    free(old.slot);
}

static inline int margin(const tg_state *s, int player)
{
    return tg_state_score(s, player) - tg_state_score(s, 1 - player);
}

/* What the side to move of running `s` gains over its opponent from here: REF_WIN / REF_LOSS
 * when an endless move decides the game. */
static inline int reference(struct memo *m, tg_state *s, int holes)
{
    uint8_t key[KEY_BYTES];
    state_key(s, holes, key);
    if (2 * (m->used + 1) > m->cap)
        memo_grow(m);
    struct memo_entry *e = memo_find(m, key);
    if (e->used)
        return e->value;
    int me = tg_state_player(s), before = margin(s, me);
    tg_move moves[16];
    size_t n = 0;
    TU_OK(tg_state_moves(s, moves, 16, &n));
    assert_true(n > 0);
    int best = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        TU_OK(tg_state_apply(s, moves[i]));
        int v;
        if (tg_state_is_terminal(s)) {
            v = tg_state_end_reason(s) == TG_END_ENDLESS ? REF_LOSS : margin(s, me) - before;
        } else {
            int after = reference(m, s, holes);
            bool same = tg_state_player(s) == me;
            if (after == REF_WIN || after == REF_LOSS)
                v = same ? after : -after;
            else
                v = margin(s, me) - before + (same ? after : -after);
        }
        TU_OK(tg_state_undo(s));
        if (v > best)
            best = v;
    }
    /* The recursion may have grown the table: find the slot again. */
    e = memo_find(m, key);
    if (!e->used)
        m->used++;
    memcpy(e->key, key, KEY_BYTES);
    e->used = 1;
    e->value = (int16_t)best;
    return best;
}

/* ----- temporary directories and damage */

static inline void make_dir(char *dir)
{
    strcpy(dir, "/tmp/tg-egtb-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static inline void file_path(char *buf, size_t cap, const char *dir, const char *game, int counters)
{
    snprintf(buf, cap, "%s/%s-%02d.egtb", dir, game, counters);
}

static inline void remove_dir(const char *dir, const char *game)
{
    char path[512];
    for (int n = 1; n <= 72; n++) {
        file_path(path, sizeof path, dir, game, n);
        unlink(path);
    }
    rmdir(dir);
}

static inline void flip_byte(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    if (at < 0) {
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        at += ftell(f);
    }
    assert_int_equal(fseek(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ 0x10, f);
    fclose(f);
}

#endif

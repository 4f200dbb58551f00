/* Shared helpers of the fuzz targets: pick a rule set from input bytes, and check the
 * conformance invariants of a state through the public API. Any violation calls abort(). */
#ifndef TG_FUZZ_COMMON_H
#define TG_FUZZ_COMMON_H

#include <traditional-games.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Report a violated invariant and abort (so libFuzzer and the replay driver both fail). */
#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* Take one byte of input (0 once the input is used up). */
static inline unsigned fuzz_byte(const uint8_t **data, size_t *size)
{
    if (*size == 0)
        return 0;
    unsigned b = **data;
    (*data)++;
    (*size)--;
    return b;
}

/* Pick a game and a value of each of its options from the input. Every choice-list value
 * is reachable, and for a `MIN..MAX` range: the default (byte 0), MIN..MIN+62 (small values
 * end games early) and MAX. Returns NULL only when the input is too short to choose. */
static inline tg_rules *fuzz_pick_rules(const uint8_t **data, size_t *size)
{
    if (*size == 0)
        return NULL;
    size_t g = fuzz_byte(data, size) % tg_game_count();
    char spec[512];
    size_t len = (size_t)snprintf(spec, sizeof spec, "%s", tg_game_id(g));
    for (size_t k = 0; k < tg_game_option_count(g); k++) {
        unsigned b = fuzz_byte(data, size);
        const char *values = tg_game_option_values(g, k);
        char value[64];
        const char *dots = strstr(values, "..");
        if (b == 0) {
            snprintf(value, sizeof value, "%s", tg_game_option_default(g, k));
        } else if (dots) {
            long lo = strtol(values, NULL, 10), hi = strtol(dots + 2, NULL, 10);
            long v = b == 255 ? hi : lo + (long)(b % 63);
            if (v > hi)
                v = hi;
            snprintf(value, sizeof value, "%ld", v);
        } else {
            size_t n = 1;
            for (const char *p = values; *p; p++)
                n += *p == '|';
            size_t pick = b % n;
            const char *p = values;
            while (pick--)
                p = strchr(p, '|') + 1;
            size_t vl = strcspn(p, "|");
            snprintf(value, sizeof value, "%.*s", (int)vl, p);
        }
        len += (size_t)snprintf(spec + len, sizeof spec - len, "%c%s=%s", k ? ',' : ':',
                                tg_game_option_key(g, k), value);
        FUZZ_CHECK(len < sizeof spec);
    }
    tg_rules *r = NULL;
    FUZZ_CHECK(tg_rules_new(spec, &r) == TG_OK);
    return r;
}

/* The position string of a state, malloc'd (measured first, then written). */
static inline char *fuzz_state_string(const tg_state *s)
{
    size_t needed = 0;
    FUZZ_CHECK(tg_state_to_string(s, NULL, 0, &needed) == TG_OK);
    char *text = malloc(needed + 1);
    FUZZ_CHECK(text != NULL);
    size_t again = 0;
    FUZZ_CHECK(tg_state_to_string(s, text, needed + 1, &again) == TG_OK);
    FUZZ_CHECK(again == needed && strlen(text) == needed);
    if (needed > 0) {
        /* One byte short: too small, nothing but *needed written. */
        FUZZ_CHECK(tg_state_to_string(s, text, needed, &again) == TG_ERR_BUFFER_TOO_SMALL);
        FUZZ_CHECK(again == needed);
    }
    return text;
}

/* The legal decisions of a state into a malloc'd buffer of tg_rules_max_moves() entries. */
static inline tg_move *fuzz_moves(const tg_state *s, size_t *count)
{
    size_t max = tg_rules_max_moves(tg_state_rules(s));
    FUZZ_CHECK(max > 0);
    tg_move *buf = malloc(max * sizeof *buf);
    FUZZ_CHECK(buf != NULL);
    size_t n = 0;
    FUZZ_CHECK(tg_state_moves(s, NULL, 0, &n) == TG_OK);
    FUZZ_CHECK(n <= max);
    size_t n2 = 0;
    FUZZ_CHECK(tg_state_moves(s, buf, max, &n2) == TG_OK && n2 == n);
    *count = n;
    return buf;
}

/* The chance outcomes of a state (malloc'd, tg_rules_max_moves() entries each). */
static inline tg_move *fuzz_chance(const tg_state *s, double **probs, size_t *count)
{
    size_t max = tg_rules_max_moves(tg_state_rules(s));
    tg_move *buf = malloc(max * sizeof *buf);
    double *p = malloc(max * sizeof *p);
    FUZZ_CHECK(buf != NULL && p != NULL);
    size_t n = 0;
    FUZZ_CHECK(tg_state_chance(s, NULL, NULL, 0, &n) == TG_OK);
    FUZZ_CHECK(n <= max);
    size_t n2 = 0;
    FUZZ_CHECK(tg_state_chance(s, buf, p, max, &n2) == TG_OK && n2 == n);
    *probs = p;
    *count = n;
    return buf;
}

/* A move's text must parse back to the same move, and print the same text again. */
static inline void fuzz_check_move_text(const tg_state *s, tg_move m)
{
    size_t needed = 0;
    FUZZ_CHECK(tg_move_to_string(s, m, NULL, 0, &needed) == TG_OK);
    char *text = malloc(needed + 1);
    FUZZ_CHECK(text != NULL);
    size_t again = 0;
    FUZZ_CHECK(tg_move_to_string(s, m, text, needed + 1, &again) == TG_OK && again == needed);
    FUZZ_CHECK(strlen(text) == needed);
    tg_move back = 0;
    FUZZ_CHECK(tg_move_from_string(s, text, &back) == TG_OK);
    FUZZ_CHECK(back == m);
    free(text);
}

/* Every invariant of one state that the public API can observe. `history` is the number of
 * undoable moves the caller expects (or (size_t)-1 to skip that check). */
static inline void fuzz_check_state(const tg_state *s, size_t history)
{
    const tg_rules *r = tg_state_rules(s);
    FUZZ_CHECK(r != NULL);
    int player = tg_state_player(s);
    bool terminal = tg_state_is_terminal(s);
    FUZZ_CHECK(player == TG_PLAYER_0 || player == TG_PLAYER_1 || player == TG_CHANCE ||
               player == TG_TERMINAL);
    FUZZ_CHECK(terminal == (player == TG_TERMINAL));
    int winner = tg_state_winner(s);
    FUZZ_CHECK(terminal ? (winner == 0 || winner == 1 || winner == TG_DRAW)
                        : winner == TG_NO_WINNER_YET);
    int turn = tg_state_turn(s);
    FUZZ_CHECK(terminal ? turn == TG_TERMINAL : (turn == 0 || turn == 1));
    if (player >= 0)
        FUZZ_CHECK(turn == player);
    double ret[2];
    FUZZ_CHECK(tg_state_returns(s, ret) == TG_OK);
    FUZZ_CHECK(ret[0] == -ret[1]);
    if (!terminal || winner == TG_DRAW)
        FUZZ_CHECK(ret[0] == 0.0);
    else
        FUZZ_CHECK(ret[winner] == 1.0);
    FUZZ_CHECK(tg_state_score(s, 0) >= 0 && tg_state_score(s, 1) >= 0);

    /* Decisions: ascending, unique, legal; present exactly at decision states. */
    size_t n = 0;
    tg_move *moves = fuzz_moves(s, &n);
    FUZZ_CHECK((player >= 0) == (n > 0));
    for (size_t i = 0; i < n; i++) {
        if (i)
            FUZZ_CHECK(moves[i - 1] < moves[i]);
        FUZZ_CHECK(tg_state_is_legal(s, moves[i]));
        fuzz_check_move_text(s, moves[i]);
    }
    if (n > 0) {
        /* A buffer one short is too small and left untouched. */
        tg_move *small = malloc(n * sizeof *small);
        FUZZ_CHECK(small != NULL);
        size_t c = 0;
        small[0] = 0x12345678u;
        if (n > 1) {
            FUZZ_CHECK(tg_state_moves(s, small, n - 1, &c) == TG_ERR_BUFFER_TOO_SMALL);
            FUZZ_CHECK(c == n && small[0] == 0x12345678u);
        }
        free(small);
    }

    /* Chance outcomes: ascending, unique, legal, probabilities in (0, 1] summing to 1. */
    double *probs = NULL;
    size_t nc = 0;
    tg_move *outcomes = fuzz_chance(s, &probs, &nc);
    FUZZ_CHECK((player == TG_CHANCE) == (nc > 0));
    double sum = 0;
    for (size_t i = 0; i < nc; i++) {
        if (i)
            FUZZ_CHECK(outcomes[i - 1] < outcomes[i]);
        FUZZ_CHECK(probs[i] > 0 && probs[i] <= 1);
        FUZZ_CHECK(tg_state_is_legal(s, outcomes[i]));
        fuzz_check_move_text(s, outcomes[i]);
        sum += probs[i];
    }
    if (nc > 0)
        FUZZ_CHECK(fabs(sum - 1.0) <= 1e-12);

    /* The position string parses back to an equal state with the same hash and string. */
    char *text = fuzz_state_string(s);
    tg_state *back = NULL;
    FUZZ_CHECK(tg_state_from_string(r, text, &back) == TG_OK);
    FUZZ_CHECK(tg_state_equal(s, back) && tg_state_equal(back, s));
    FUZZ_CHECK(tg_state_hash(s) == tg_state_hash(back));
    FUZZ_CHECK(tg_state_player(back) == player && tg_state_winner(back) == winner);
    FUZZ_CHECK(tg_state_ply(back) == 0);
    char *text2 = fuzz_state_string(back);
    FUZZ_CHECK(strcmp(text, text2) == 0);
    size_t h = 99;
    FUZZ_CHECK(tg_state_history(back, NULL, 0, &h) == TG_OK && h == 0);
    FUZZ_CHECK(tg_state_undo(back) == TG_ERR_NO_HISTORY);

    /* A clone is equal, with the same ply and history. */
    tg_state *clone = NULL;
    FUZZ_CHECK(tg_state_clone(s, &clone) == TG_OK);
    FUZZ_CHECK(tg_state_equal(s, clone) && tg_state_hash(s) == tg_state_hash(clone));
    FUZZ_CHECK(tg_state_ply(s) == tg_state_ply(clone));
    size_t hs = 0, hc = 0;
    FUZZ_CHECK(tg_state_history(s, NULL, 0, &hs) == TG_OK);
    FUZZ_CHECK(tg_state_history(clone, NULL, 0, &hc) == TG_OK && hs == hc);
    if (history != (size_t)-1)
        FUZZ_CHECK(hs == history);
    FUZZ_CHECK(hs <= tg_state_ply(s));
    if (hs > 0) {
        tg_move *ha = malloc(hs * sizeof *ha), *hb = malloc(hs * sizeof *hb);
        FUZZ_CHECK(ha && hb);
        FUZZ_CHECK(tg_state_history(s, ha, hs, &h) == TG_OK && h == hs);
        FUZZ_CHECK(tg_state_history(clone, hb, hs, &h) == TG_OK && h == hs);
        FUZZ_CHECK(memcmp(ha, hb, hs * sizeof *ha) == 0);
        free(ha);
        free(hb);
    }

    /* Render measures and writes consistently. */
    size_t rn = 0;
    FUZZ_CHECK(tg_state_render(s, NULL, 0, &rn) == TG_OK);
    char *pic = malloc(rn + 1);
    FUZZ_CHECK(pic != NULL);
    size_t rn2 = 0;
    FUZZ_CHECK(tg_state_render(s, pic, rn + 1, &rn2) == TG_OK && rn2 == rn && strlen(pic) == rn);

    free(pic);
    tg_state_free(clone);
    free(text2);
    tg_state_free(back);
    free(text);
    free(outcomes);
    free(probs);
    free(moves);
}

#endif

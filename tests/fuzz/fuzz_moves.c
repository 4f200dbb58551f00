/* Fuzz target: move notation on random reachable states.
 *
 * Input: a game byte and one byte per option (see fuzz_pick_rules), two seed bytes, one byte
 * of plies (each counts 4 random plies, played with tg_state_apply_random), then the move
 * text. When the text parses, the move must print and parse back to itself; legality must
 * agree with the move and chance lists; and applying it must either succeed (then undo
 * restores the position exactly) or fail with TG_ERR_ILLEGAL_MOVE / TG_ERR_GAME_OVER leaving
 * the state unchanged. The first four bytes of the text are also tried as a raw tg_move. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool in_list(const tg_move *list, size_t n, tg_move m)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

/* Legality and application of one candidate move, against the lists of the state. */
static void try_move(tg_state *s, tg_move m)
{
    size_t n = 0, nc = 0;
    double *probs = NULL;
    tg_move *moves = fuzz_moves(s, &n);
    tg_move *outcomes = fuzz_chance(s, &probs, &nc);
    bool listed = in_list(moves, n, m) || in_list(outcomes, nc, m);
    FUZZ_CHECK(tg_state_is_legal(s, m) == listed);

    char *before = fuzz_state_string(s);
    uint64_t hash = tg_state_hash(s);
    size_t ply = tg_state_ply(s), hist = 0, hist2 = 0;
    FUZZ_CHECK(tg_state_history(s, NULL, 0, &hist) == TG_OK);

    tg_status st = tg_state_apply(s, m);
    if (listed) {
        FUZZ_CHECK(st == TG_OK);
        FUZZ_CHECK(tg_state_ply(s) == ply + 1);
        fuzz_check_state(s, hist + 1);
        FUZZ_CHECK(tg_state_undo(s) == TG_OK);
    } else {
        FUZZ_CHECK(st == (tg_state_is_terminal(s) ? TG_ERR_GAME_OVER : TG_ERR_ILLEGAL_MOVE));
    }
    char *after = fuzz_state_string(s);
    FUZZ_CHECK(strcmp(before, after) == 0);
    FUZZ_CHECK(tg_state_hash(s) == hash);
    FUZZ_CHECK(tg_state_ply(s) == ply);
    FUZZ_CHECK(tg_state_history(s, NULL, 0, &hist2) == TG_OK && hist2 == hist);

    free(after);
    free(before);
    free(outcomes);
    free(probs);
    free(moves);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tg_rules *r = fuzz_pick_rules(&data, &size);
    if (!r)
        return 0;
    uint64_t rng = fuzz_byte(&data, &size);
    rng |= (uint64_t)fuzz_byte(&data, &size) << 8;
    unsigned plies = 4 * fuzz_byte(&data, &size);

    tg_state *s = NULL;
    FUZZ_CHECK(tg_state_new(r, &s) == TG_OK);
    tg_rules_free(r); /* the state keeps its own copy */
    for (unsigned i = 0; i < plies && !tg_state_is_terminal(s); i++)
        FUZZ_CHECK(tg_state_apply_random(s, &rng) == TG_OK);
    if (tg_state_is_terminal(s))
        FUZZ_CHECK(tg_state_apply_random(s, &rng) == TG_ERR_GAME_OVER);

    char *text = malloc(size + 1);
    FUZZ_CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';

    tg_move m = 0xDEADBEEFu;
    tg_status st = tg_move_from_string(s, text, &m);
    if (st == TG_OK) {
        /* Whatever parses prints, and the print parses back to the same move. */
        fuzz_check_move_text(s, m);
        try_move(s, m);
    } else {
        FUZZ_CHECK(st == TG_ERR_PARSE);
        FUZZ_CHECK(m == 0xDEADBEEFu);
    }

    if (size >= 4) {
        tg_move raw = (tg_move)data[0] | (tg_move)data[1] << 8 | (tg_move)data[2] << 16 |
                      (tg_move)data[3] << 24;
        /* A move that prints must parse back to itself. */
        size_t needed = 0;
        if (tg_move_to_string(s, raw, NULL, 0, &needed) == TG_OK)
            fuzz_check_move_text(s, raw);
        try_move(s, raw);
    }

    free(text);
    tg_state_free(s);
    return 0;
}

/* Fuzz target: a byte-driven game walk.
 *
 * Input: a game byte and one byte per option (see fuzz_pick_rules), then one action per
 * byte: the low 3 bits pick the action, the high 5 bits its argument k.
 *   0, 1, 2  apply legal decision k (mod the count), or chance outcome k at a chance state
 *   3        k < 16: apply a random move (tg_state_apply_random, seeded with k); else apply
 *            the move of a bot (random, greedy or a tiny mcts by k % 3): it must be legal,
 *            repeatable, leave the state untouched, and equal apply_random's for `random`
 *   4        undo (the position must come back exactly: string and hash)
 *   5        replace the state by a clone of it (history included)
 *   6        copy the state into a second state (history cleared there), or back when k is odd
 *   7        a short playout of k % 8 plies (clears the history)
 * After every step every observable invariant holds (fuzz_check_state), and the undo stack
 * kept here agrees with the library's history. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct snapshot {
    char *text;
    uint64_t hash;
    size_t ply;
    tg_move move;
};

struct walk {
    tg_state *s, *other;
    struct snapshot *stack;
    size_t depth, cap;
};

static void clear_stack(struct walk *w)
{
    for (size_t i = 0; i < w->depth; i++)
        free(w->stack[i].text);
    w->depth = 0;
}

/* Apply m (which must be legal), remembering the position for undo. */
static void apply_recorded(struct walk *w, tg_move m)
{
    FUZZ_CHECK(tg_state_is_legal(w->s, m));
    if (w->depth == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->stack = realloc(w->stack, w->cap * sizeof *w->stack);
        FUZZ_CHECK(w->stack != NULL);
    }
    struct snapshot *snap = &w->stack[w->depth];
    snap->text = fuzz_state_string(w->s);
    snap->hash = tg_state_hash(w->s);
    snap->ply = tg_state_ply(w->s);
    snap->move = m;
    FUZZ_CHECK(tg_state_apply(w->s, m) == TG_OK);
    FUZZ_CHECK(tg_state_ply(w->s) == snap->ply + 1);
    w->depth++;
    /* The history ends with the move just applied. */
    tg_move *hist = malloc(w->depth * sizeof *hist);
    size_t n = 0;
    FUZZ_CHECK(hist != NULL);
    FUZZ_CHECK(tg_state_history(w->s, hist, w->depth, &n) == TG_OK && n == w->depth);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(hist[i] == w->stack[i].move);
    free(hist);
}

/* The move of a bot, applied through apply_recorded after checking the bot's contract. */
static void bot_step(struct walk *w, unsigned k)
{
    static const char *const bots[] = {"random", "greedy", "mcts:iterations=7,c=0.5"};
    const char *bot = bots[k % 3];
    tg_state *s = w->s;
    uint64_t rng = k * 0x2545F4914F6CDD1Du, again = rng, before = rng;
    tg_move m = 0xABCDEFu, m2 = 0;
    if (tg_state_is_terminal(s)) {
        FUZZ_CHECK(tg_bot_choose(s, bot, &rng, &m) == TG_ERR_GAME_OVER);
        FUZZ_CHECK(rng == before && m == 0xABCDEFu);
        return;
    }
    char *text = fuzz_state_string(s);
    uint64_t hash = tg_state_hash(s);
    size_t ply = tg_state_ply(s);
    FUZZ_CHECK(tg_bot_choose(s, bot, &rng, &m) == TG_OK);
    FUZZ_CHECK(tg_bot_choose(s, bot, &again, &m2) == TG_OK && m2 == m && again == rng);
    char *after = fuzz_state_string(s);
    FUZZ_CHECK(strcmp(text, after) == 0 && tg_state_hash(s) == hash && tg_state_ply(s) == ply);
    free(after);
    free(text);
    if (k % 3 == 0) {
        tg_state *probe = NULL;
        uint64_t r2 = before;
        FUZZ_CHECK(tg_state_clone(s, &probe) == TG_OK);
        FUZZ_CHECK(tg_state_apply_random(probe, &r2) == TG_OK && r2 == rng);
        apply_recorded(w, m);
        FUZZ_CHECK(tg_state_equal(s, probe));
        tg_state_free(probe);
    } else {
        apply_recorded(w, m);
    }
}

static void step(struct walk *w, unsigned b)
{
    unsigned action = b & 7, k = b >> 3;
    tg_state *s = w->s;
    switch (action) {
    case 0:
    case 1:
    case 2: {
        size_t n = 0, nc = 0;
        double *probs = NULL;
        tg_move *moves = fuzz_moves(s, &n);
        tg_move *outcomes = fuzz_chance(s, &probs, &nc);
        if (n > 0)
            apply_recorded(w, moves[k % n]);
        else if (nc > 0)
            apply_recorded(w, outcomes[k % nc]);
        else
            FUZZ_CHECK(tg_state_apply(s, k) == TG_ERR_GAME_OVER);
        free(moves);
        free(outcomes);
        free(probs);
        break;
    }
    case 3: {
        if (k >= 16) {
            bot_step(w, k);
            break;
        }
        uint64_t rng = k * 0x9E3779B97F4A7C15u, before = rng;
        if (tg_state_is_terminal(s)) {
            FUZZ_CHECK(tg_state_apply_random(s, &rng) == TG_ERR_GAME_OVER && rng == before);
            break;
        }
        /* Replay the same draw through apply_recorded: apply_random must pick a legal move. */
        tg_state *probe = NULL;
        FUZZ_CHECK(tg_state_clone(s, &probe) == TG_OK);
        FUZZ_CHECK(tg_state_apply_random(probe, &rng) == TG_OK && rng != before);
        size_t n = 0;
        FUZZ_CHECK(tg_state_history(probe, NULL, 0, &n) == TG_OK && n == w->depth + 1);
        tg_move *hist = malloc(n * sizeof *hist);
        FUZZ_CHECK(hist != NULL);
        FUZZ_CHECK(tg_state_history(probe, hist, n, &n) == TG_OK);
        apply_recorded(w, hist[n - 1]);
        FUZZ_CHECK(tg_state_equal(s, probe) && tg_state_hash(s) == tg_state_hash(probe));
        free(hist);
        tg_state_free(probe);
        break;
    }
    case 4:
        if (w->depth == 0) {
            FUZZ_CHECK(tg_state_undo(s) == TG_ERR_NO_HISTORY);
        } else {
            FUZZ_CHECK(tg_state_undo(s) == TG_OK);
            struct snapshot *snap = &w->stack[--w->depth];
            char *text = fuzz_state_string(s);
            FUZZ_CHECK(strcmp(text, snap->text) == 0);
            FUZZ_CHECK(tg_state_hash(s) == snap->hash);
            FUZZ_CHECK(tg_state_ply(s) == snap->ply);
            free(text);
            free(snap->text);
        }
        break;
    case 5: {
        tg_state *clone = NULL;
        FUZZ_CHECK(tg_state_clone(s, &clone) == TG_OK);
        FUZZ_CHECK(tg_state_equal(s, clone) && tg_state_hash(s) == tg_state_hash(clone));
        tg_state_free(s);
        w->s = clone; /* the undo stack carries over: the clone has the same history */
        break;
    }
    case 6: {
        tg_state *dst = (k & 1) ? s : w->other, *src = (k & 1) ? w->other : s;
        FUZZ_CHECK(tg_state_copy(dst, src) == TG_OK);
        FUZZ_CHECK(tg_state_equal(dst, src) && tg_state_hash(dst) == tg_state_hash(src));
        FUZZ_CHECK(tg_state_ply(dst) == tg_state_ply(src));
        FUZZ_CHECK(tg_state_undo(dst) == TG_ERR_NO_HISTORY);
        if (dst == s)
            clear_stack(w);
        fuzz_check_state(w->other, (size_t)-1);
        break;
    }
    default: {
        uint64_t rng = k;
        size_t ply = tg_state_ply(s), plies = 99;
        FUZZ_CHECK(tg_state_playout(s, &rng, k % 8, &plies) == TG_OK);
        FUZZ_CHECK(plies <= k % 8 && tg_state_ply(s) == ply + plies);
        FUZZ_CHECK(plies == k % 8 || tg_state_is_terminal(s));
        size_t n = 99;
        FUZZ_CHECK(tg_state_history(s, NULL, 0, &n) == TG_OK);
        if (plies > 0 || n == 0) {
            FUZZ_CHECK(n == 0);
            clear_stack(w);
        }
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tg_rules *r = fuzz_pick_rules(&data, &size);
    if (!r)
        return 0;
    struct walk w = {0};
    FUZZ_CHECK(tg_state_new(r, &w.s) == TG_OK);
    FUZZ_CHECK(tg_state_new(r, &w.other) == TG_OK);
    tg_rules_free(r);
    fuzz_check_state(w.s, 0);
    while (size > 0) {
        step(&w, fuzz_byte(&data, &size));
        fuzz_check_state(w.s, w.depth);
    }
    /* Undo all the way back: every recorded position comes back in order. */
    while (w.depth > 0)
        step(&w, 4);
    FUZZ_CHECK(tg_state_undo(w.s) == TG_ERR_NO_HISTORY);
    clear_stack(&w);
    free(w.stack);
    tg_state_free(w.other);
    tg_state_free(w.s);
    return 0;
}

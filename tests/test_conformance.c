/* The conformance battery: every registered game under every option set, played by many seeded
 * random games, checked at every ply against the contract of the public header. Only the
 * public API is used, and games and options are found through the catalogue, so a game added
 * to the library is covered without touching this file. The little game knowledge the checks
 * need (what is conserved, who owns a hole) lives in one place: game_kind(). */
#include "rule_sets.h"

#include <inttypes.h>
#include <math.h>

enum { GAMES_PER_RULE_SET = 40, MAX_PLIES = 600, PLAYOUT_PLIES = 1000000 };

/* ---- what the battery knows about individual games ------------------------------------- */

enum kind {
    KIND_OTHER,            /* no conservation law known */
    KIND_MANCALA,          /* counters on the board plus both scores are constant */
    KIND_MANCALA_ON_BOARD, /* counters on the board are constant (Hus: the score is counted
                              on one's own side, nothing leaves the board) */
    KIND_TAB               /* per player: pieces on the board + opponent's score == cols */
};

static enum kind game_kind(const char *id, int rows)
{
    if (strcmp(id, "tab") == 0)
        return KIND_TAB;
    if (rows != 2 && rows != 4)
        return KIND_OTHER;
    return strcmp(id, "hus") == 0 ? KIND_MANCALA_ON_BOARD : KIND_MANCALA;
}

/* ---- context and failure reports ------------------------------------------------------- */

struct ctx {
    const char *spec;
    tg_rules *rules;
    enum kind kind;
    int rows, cols;
    size_t max_moves;
    uint64_t seed;
    size_t ply;
    const char *text; /* the current position, for messages */
    long conserved;   /* the conserved total of a mancala game, from its initial position */
    tg_state *scratch;
    tg_move *moves, *outcomes;
    double *probs;
    /* statistics for the report line */
    size_t total_plies, longest, finished, wins[3];
};

#define CK(cx, cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            print_error("[spec=%s seed=%" PRIu64 " ply=%zu position=\"%s\"]\n  %s:%d: %s: ",   \
                        (cx)->spec, (cx)->seed, (cx)->ply, (cx)->text ? (cx)->text : "?",      \
                        __FILE__, __LINE__, #cond);                                            \
            TU_FAIL(__VA_ARGS__);                                                              \
        }                                                                                      \
    } while (0)

#define CK_STATUS(cx, want, call)                                                              \
    do {                                                                                       \
        tg_status ck_got_ = (call);                                                            \
        CK(cx, ck_got_ == (want), "%s = %d (%s), expected %d (%s)", #call, (int)ck_got_,       \
           tg_status_string(ck_got_), (int)(want), tg_status_string(want));                    \
    } while (0)

/* ---- pieces of the per-ply check -------------------------------------------------------- */

static long board_total(const struct ctx *cx, const tg_state *s)
{
    long sum = 0;
    for (int row = 0; row < cx->rows; row++)
        for (int col = 0; col < cx->cols; col++)
            sum += tg_state_count(s, row, col);
    return sum;
}

static long mancala_conserved(const struct ctx *cx, const tg_state *s)
{
    long sum = board_total(cx, s);
    if (cx->kind == KIND_MANCALA)
        sum += tg_state_score(s, 0) + tg_state_score(s, 1);
    return sum;
}

static void check_conservation(struct ctx *cx, const tg_state *s)
{
    switch (cx->kind) {
    case KIND_MANCALA:
    case KIND_MANCALA_ON_BOARD:
        CK(cx, mancala_conserved(cx, s) == cx->conserved, "conserved total %ld, initially %ld",
           mancala_conserved(cx, s), cx->conserved);
        break;
    case KIND_TAB:
        for (int p = 0; p < 2; p++) {
            long on_board = 0;
            for (int row = 0; row < cx->rows; row++)
                for (int col = 0; col < cx->cols; col++)
                    if (tg_state_owner(s, row, col) == p)
                        on_board += tg_state_count(s, row, col);
            CK(cx, on_board + tg_state_score(s, 1 - p) == cx->cols,
               "player %d: %ld pieces on the board + opponent's score %d != %d", p, on_board,
               tg_state_score(s, 1 - p), cx->cols);
        }
        break;
    case KIND_OTHER:
        break;
    }
}

static void check_board(struct ctx *cx, const tg_state *s)
{
    for (int row = 0; row < cx->rows; row++)
        for (int col = 0; col < cx->cols; col++) {
            int count = tg_state_count(s, row, col);
            int owner = tg_state_owner(s, row, col);
            CK(cx, count >= 0, "count(%d, %d) = %d", row, col, count);
            CK(cx, owner >= -1 && owner <= 1, "owner(%d, %d) = %d", row, col, owner);
            if (cx->kind == KIND_MANCALA || cx->kind == KIND_MANCALA_ON_BOARD) {
                int want = row < cx->rows / 2 ? 0 : 1;
                CK(cx, owner == want, "mancala hole (%d, %d) owned by %d", row, col, owner);
            }
            if (cx->kind == KIND_TAB)
                CK(cx, (owner == -1) == (count == 0), "tab cell (%d, %d): count %d owner %d",
                   row, col, count, owner);
        }
    CK(cx, tg_state_count(s, cx->rows, 0) == -1, "%s", "count off the board");
    CK(cx, tg_state_count(s, 0, cx->cols) == -1, "%s", "count off the board");
    CK(cx, tg_state_count(s, -1, 0) == -1, "%s", "count off the board");
}

/* Splits the position string at spaces into at most max tokens (pointers into a copy). */
static size_t split_tokens(char *copy, char **tok, size_t max)
{
    size_t n = 0;
    for (char *p = copy; n < max;) {
        tok[n++] = p;
        char *sp = strchr(p, ' ');
        if (!sp)
            break;
        *sp = '\0';
        p = sp + 1;
    }
    return n;
}

/* The layout of API.md: `SPEC BOARD TO_MOVE SCORE0,SCORE1[ FIELD=VALUE...]`. */
static void check_text_layout(struct ctx *cx, const tg_state *s, const char *text)
{
    char *copy = malloc(strlen(text) + 1);
    assert_non_null(copy);
    strcpy(copy, text);
    char *tok[64];
    size_t n = split_tokens(copy, tok, 64);
    CK(cx, n >= 4, "%zu tokens", n);
    CK(cx, strcmp(tok[0], tg_rules_spec(cx->rules)) == 0, "spec token \"%s\"", tok[0]);

    /* BOARD: rows north first, `/` between rows, `,` between cells. */
    int rows = 1, cells_in_row = 1;
    for (const char *p = tok[1]; *p; p++) {
        if (*p == '/') {
            CK(cx, cells_in_row == cx->cols, "row %d has %d cells", rows, cells_in_row);
            rows++;
            cells_in_row = 1;
        } else if (*p == ',') {
            cells_in_row++;
        }
    }
    CK(cx, cells_in_row == cx->cols && rows == cx->rows, "board has %d rows (last of %d cells)",
       rows, cells_in_row);
    if (cx->kind == KIND_MANCALA || cx->kind == KIND_MANCALA_ON_BOARD) {
        /* A purely numeric cell is its count. */
        const char *p = tok[1];
        for (int row = cx->rows - 1; row >= 0; row--)
            for (int col = 0; col < cx->cols; col++) {
                size_t len = strcspn(p, ",/");
                if (strspn(p, "0123456789") == len)
                    CK(cx, atoi(p) == tg_state_count(s, row, col), "cell (%d, %d) written %.*s",
                       row, col, (int)len, p);
                p += len + (p[len] ? 1 : 0);
            }
    }

    int player = tg_state_player(s), turn = tg_state_turn(s);
    char want[32];
    if (player == TG_TERMINAL)
        snprintf(want, sizeof want, "-");
    else if (player == TG_CHANCE)
        snprintf(want, sizeof want, "c%d", turn);
    else
        snprintf(want, sizeof want, "%d", player);
    CK(cx, strcmp(tok[2], want) == 0, "TO_MOVE \"%s\", expected \"%s\"", tok[2], want);
    snprintf(want, sizeof want, "%d,%d", tg_state_score(s, 0), tg_state_score(s, 1));
    CK(cx, strcmp(tok[3], want) == 0, "scores \"%s\", expected \"%s\"", tok[3], want);

    for (size_t i = 4; i < n; i++)
        CK(cx, strchr(tok[i], '=') != NULL, "field \"%s\" is not FIELD=VALUE", tok[i]);
    bool has_winner = n > 4 && strncmp(tok[n - 1], "winner=", 7) == 0;
    if (player == TG_TERMINAL) {
        int w = tg_state_winner(s);
        const char *ww = w == TG_DRAW ? "winner=draw" : w == 0 ? "winner=0" : "winner=1";
        CK(cx, has_winner && strcmp(tok[n - 1], ww) == 0, "last field \"%s\", expected %s",
           tok[n - 1], ww);
    } else {
        CK(cx, !has_winner, "%s", "a running game carries winner=");
    }
    for (size_t i = 4; i + 1 < n; i++)
        CK(cx, strncmp(tok[i], "winner=", 7) != 0, "%s", "winner= is not the last field");
    free(copy);
}

/* The position string round trip, clone and copy. */
static void check_copies(struct ctx *cx, tg_state *s, const char *text)
{
    uint64_t hash = tg_state_hash(s);
    CK(cx, hash == tg_state_hash(s), "%s", "hash not stable");

    tg_state *t = NULL;
    CK_STATUS(cx, TG_OK, tg_state_from_string(cx->rules, text, &t));
    CK(cx, tg_state_equal(s, t) && tg_state_equal(t, s), "%s", "from_string(to_string) differs");
    char *back = tu_str(t);
    CK(cx, strcmp(back, text) == 0, "round trip wrote \"%s\"", back);
    free(back);
    CK(cx, tg_state_hash(t) == hash, "%s", "round trip hash differs");
    CK(cx, tg_state_ply(t) == 0 && tu_history_len(t) == 0, "%s", "parsed state has history");
    CK(cx, tg_state_player(t) == tg_state_player(s) && tg_state_turn(t) == tg_state_turn(s) &&
               tg_state_winner(t) == tg_state_winner(s) &&
               tg_state_is_terminal(t) == tg_state_is_terminal(s),
       "%s", "round trip changes player/turn/winner");
    for (int p = 0; p < 2; p++)
        CK(cx, tg_state_score(t, p) == tg_state_score(s, p), "%s", "round trip changes score");
    for (int row = 0; row < cx->rows; row++)
        for (int col = 0; col < cx->cols; col++)
            CK(cx, tg_state_count(t, row, col) == tg_state_count(s, row, col) &&
                       tg_state_owner(t, row, col) == tg_state_owner(s, row, col) &&
                       tg_state_flags(t, row, col) == tg_state_flags(s, row, col),
               "round trip changes cell (%d, %d)", row, col);
    tg_state_free(t);

    struct tu_snap snap;
    tu_snap_take(s, &snap);
    tg_state *c = NULL;
    CK_STATUS(cx, TG_OK, tg_state_clone(s, &c));
    CK(cx, tg_state_equal(c, s), "%s", "clone differs");
    const char *why = tu_snap_diff(c, &snap);
    CK(cx, why == NULL, "clone differs in %s", why);
    tg_state_free(c);

    CK_STATUS(cx, TG_OK, tg_state_copy(cx->scratch, s));
    CK(cx, tg_state_equal(cx->scratch, s), "%s", "copy differs");
    char *copied = tu_str(cx->scratch);
    CK(cx, strcmp(copied, text) == 0, "copy wrote \"%s\"", copied);
    free(copied);
    CK(cx, tg_state_hash(cx->scratch) == hash, "%s", "copy hash differs");
    CK(cx, tg_state_ply(cx->scratch) == tg_state_ply(s), "%s", "copy ply differs");
    CK(cx, tu_history_len(cx->scratch) == 0, "%s", "copy kept a history");
    why = tu_snap_diff(s, &snap);
    CK(cx, why == NULL, "copying from the state changed its %s", why);
    tu_snap_free(&snap);
}

static bool listed(const tg_move *list, size_t n, tg_move m)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == m)
            return true;
    return false;
}

static void check_move_text(struct ctx *cx, const tg_state *s, tg_move m)
{
    char text[64];
    size_t needed = 0;
    CK_STATUS(cx, TG_OK, tg_move_to_string(s, m, text, sizeof text, &needed));
    CK(cx, needed == strlen(text) && needed > 0, "move %u written \"%s\"", (unsigned)m, text);
    tg_move back = ~m;
    CK_STATUS(cx, TG_OK, tg_move_from_string(s, text, &back));
    CK(cx, back == m, "move %u written \"%s\" reads back as %u", (unsigned)m, text,
       (unsigned)back);
    if (m == TG_MOVE_PASS)
        CK(cx, strcmp(text, "pass") == 0, "pass written \"%s\"", text);
}

/* Lists moves and outcomes, checks their order, legality and notation; returns the number of
 * options now (decisions or outcomes). */
static size_t check_options(struct ctx *cx, const tg_state *s, size_t *n_moves, size_t *n_out)
{
    size_t n = (size_t)-1, nc = (size_t)-1;
    CK_STATUS(cx, TG_OK, tg_state_moves(s, NULL, 0, &n));
    CK(cx, n <= cx->max_moves, "%zu moves, max_moves %zu", n, cx->max_moves);
    size_t again = 0;
    CK_STATUS(cx, TG_OK, tg_state_moves(s, cx->moves, cx->max_moves, &again));
    CK(cx, again == n, "%s", "move count changed between calls");
    CK_STATUS(cx, TG_OK, tg_state_chance(s, NULL, NULL, 0, &nc));
    CK(cx, nc <= cx->max_moves, "%zu outcomes, max_moves %zu", nc, cx->max_moves);
    CK_STATUS(cx, TG_OK, tg_state_chance(s, cx->outcomes, cx->probs, cx->max_moves, &again));
    CK(cx, again == nc, "%s", "outcome count changed between calls");

    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            CK(cx, cx->moves[i - 1] < cx->moves[i], "moves not strictly ascending at %zu: %u, %u",
               i, (unsigned)cx->moves[i - 1], (unsigned)cx->moves[i]);
        CK(cx, tg_state_is_legal(s, cx->moves[i]), "listed move %u not legal",
           (unsigned)cx->moves[i]);
        check_move_text(cx, s, cx->moves[i]);
    }
    if (listed(cx->moves, n, TG_MOVE_PASS))
        CK(cx, n == 1, "pass offered beside %zu other moves", n - 1);

    double sum = 0.0;
    for (size_t i = 0; i < nc; i++) {
        if (i > 0)
            CK(cx, cx->outcomes[i - 1] < cx->outcomes[i],
               "outcomes not strictly ascending at %zu: %u, %u", i,
               (unsigned)cx->outcomes[i - 1], (unsigned)cx->outcomes[i]);
        CK(cx, cx->probs[i] > 0.0 && cx->probs[i] <= 1.0, "outcome %u has probability %.17g",
           (unsigned)cx->outcomes[i], cx->probs[i]);
        CK(cx, tg_state_is_legal(s, cx->outcomes[i]), "outcome %u not legal",
           (unsigned)cx->outcomes[i]);
        check_move_text(cx, s, cx->outcomes[i]);
        sum += cx->probs[i];
    }
    if (nc > 0)
        CK(cx, fabs(sum - 1.0) <= 1e-12, "probabilities sum to %.17g", sum);
    *n_moves = n;
    *n_out = nc;
    return n + nc;
}

/* Values that are not legal now must be refused without a trace. */
static void check_refusals(struct ctx *cx, tg_state *s, size_t n, size_t nc)
{
    bool over = tg_state_is_terminal(s);
    tg_move cand[16];
    size_t k = 0;
    tg_move cells = (tg_move)(cx->rows * cx->cols);
    cand[k++] = 0;
    cand[k++] = 1;
    cand[k++] = cells - 1;
    cand[k++] = cells;
    cand[k++] = TG_MOVE_PASS;
    cand[k++] = 0xFFFFFFFFu;
    cand[k++] = 0x7FFFFFFFu;
    if (n > 0) {
        cand[k++] = cx->moves[0] + 1;
        cand[k++] = cx->moves[n - 1] + 1;
        if (cx->moves[0] > 0)
            cand[k++] = cx->moves[0] - 1;
    }
    if (nc > 0)
        cand[k++] = cx->outcomes[nc - 1] + 1;
    struct tu_snap snap;
    tu_snap_take(s, &snap);
    for (size_t i = 0; i < k; i++) {
        tg_move m = cand[i];
        if (listed(cx->moves, n, m) || listed(cx->outcomes, nc, m))
            continue;
        CK(cx, !tg_state_is_legal(s, m), "unlisted %u is legal", (unsigned)m);
        tg_status want = over ? TG_ERR_GAME_OVER : TG_ERR_ILLEGAL_MOVE;
        tg_status got = tg_state_apply(s, m);
        CK(cx, got == want, "apply(unlisted %u) = %d (%s), expected %d", (unsigned)m, (int)got,
           tg_status_string(got), (int)want);
        const char *why = tu_snap_diff(s, &snap);
        CK(cx, why == NULL, "refused apply(%u) changed the %s", (unsigned)m, why);
    }
    if (over) {
        uint64_t rng = cx->seed;
        CK_STATUS(cx, TG_ERR_GAME_OVER, tg_state_apply_random(s, &rng));
        CK(cx, rng == cx->seed, "%s", "refused apply_random advanced the generator");
        const char *why = tu_snap_diff(s, &snap);
        CK(cx, why == NULL, "refused apply_random changed the %s", why);
    }
    tu_snap_free(&snap);
}

static void check_result(struct ctx *cx, const tg_state *s, size_t n, size_t nc)
{
    int player = tg_state_player(s), turn = tg_state_turn(s), winner = tg_state_winner(s);
    double ret[2] = {7.0, 7.0};
    CK_STATUS(cx, TG_OK, tg_state_returns(s, ret));
    for (int p = 0; p < 2; p++)
        CK(cx, tg_state_score(s, p) >= 0, "score %d = %d", p, tg_state_score(s, p));
    CK(cx, tg_state_score(s, 2) == -1 && tg_state_score(s, -1) == -1, "%s", "score of player 2");
    if (tg_state_is_terminal(s)) {
        CK(cx, player == TG_TERMINAL && turn == TG_TERMINAL, "terminal: player %d turn %d",
           player, turn);
        CK(cx, winner == 0 || winner == 1 || winner == TG_DRAW, "terminal winner %d", winner);
        CK(cx, n == 0 && nc == 0, "terminal with %zu moves, %zu outcomes", n, nc);
        double w0 = winner == 0 ? 1.0 : winner == 1 ? -1.0 : 0.0;
        CK(cx, ret[0] == w0 && ret[1] == -w0, "winner %d but returns %g, %g", winner, ret[0],
           ret[1]);
    } else {
        CK(cx, winner == TG_NO_WINNER_YET, "running game with winner %d", winner);
        CK(cx, ret[0] == 0.0 && ret[1] == 0.0, "running game returns %g, %g", ret[0], ret[1]);
        CK(cx, turn == 0 || turn == 1, "turn %d", turn);
        if (player == TG_CHANCE) {
            CK(cx, n == 0 && nc >= 1, "chance state with %zu decisions, %zu outcomes", n, nc);
        } else {
            CK(cx, player == turn, "player %d, turn %d", player, turn);
            CK(cx, n >= 1 && nc == 0, "decision state with %zu decisions, %zu outcomes", n, nc);
        }
    }
}

/* perft against the option lists, and one level deeper against apply/undo. */
static void check_perft(struct ctx *cx, tg_state *s, size_t options, bool deep)
{
    CK(cx, tg_perft(s, 0) == 1, "%s", "perft(0) != 1");
    CK(cx, tg_perft(s, 1) == options, "perft(1) = %" PRIu64 ", %zu options", tg_perft(s, 1),
       options);
    if (!deep)
        return;
    size_t n = options;
    tg_move *list = malloc((n + 1) * sizeof *list);
    assert_non_null(list);
    size_t got = 0;
    if (tg_state_player(s) == TG_CHANCE)
        CK_STATUS(cx, TG_OK, tg_state_chance(s, list, cx->probs, n, &got));
    else
        CK_STATUS(cx, TG_OK, tg_state_moves(s, list, n, &got));
    uint64_t leaves = 0;
    for (size_t i = 0; i < n; i++) {
        CK_STATUS(cx, TG_OK, tg_state_apply(s, list[i]));
        leaves += tg_perft(s, 1);
        CK_STATUS(cx, TG_OK, tg_state_undo(s));
    }
    free(list);
    CK(cx, tg_perft(s, 2) == leaves, "perft(2) = %" PRIu64 ", apply/undo counts %" PRIu64,
       tg_perft(s, 2), leaves);
}

/* Everything at one position; returns the number of options (decisions or outcomes). */
static size_t check_position(struct ctx *cx, tg_state *s, const char *text, bool deep)
{
    size_t n = 0, nc = 0;
    check_text_layout(cx, s, text);
    check_copies(cx, s, text);
    size_t options = check_options(cx, s, &n, &nc);
    check_result(cx, s, n, nc);
    check_board(cx, s);
    check_conservation(cx, s);
    check_refusals(cx, s, n, nc);
    check_perft(cx, s, options, deep);
    return options;
}

/* A playout from a copy reaches the end, deterministically. */
static void check_playout(struct ctx *cx, const tg_state *s)
{
    tg_state *a = NULL, *b = NULL;
    CK_STATUS(cx, TG_OK, tg_state_clone(s, &a));
    CK_STATUS(cx, TG_OK, tg_state_clone(s, &b));
    uint64_t ra = cx->seed ^ 0xABCDEFu, rb = ra;
    size_t pa = 0, pb = 0;
    CK_STATUS(cx, TG_OK, tg_state_playout(a, &ra, PLAYOUT_PLIES, &pa));
    CK_STATUS(cx, TG_OK, tg_state_playout(b, &rb, PLAYOUT_PLIES, &pb));
    CK(cx, tg_state_is_terminal(a), "playout of %zu plies did not end the game", pa);
    CK(cx, pa == pb && ra == rb && tg_state_equal(a, b), "%s", "playout not deterministic");
    CK(cx, tg_state_ply(a) == tg_state_ply(s) + pa, "ply %zu after %zu playout plies from %zu",
       tg_state_ply(a), pa, tg_state_ply(s));
    CK(cx, tu_history_len(a) == 0, "%s", "playout kept a history");
    CK_STATUS(cx, TG_ERR_NO_HISTORY, tg_state_undo(a));
    char *text = tu_str(a);
    const char *saved = cx->text;
    cx->text = text;
    check_position(cx, a, text, false);
    cx->text = saved;
    free(text);
    tg_state_free(a);
    tg_state_free(b);
}

/* One seeded random game with every check at every ply, then replay and undo to the root. */
static void play_one(struct ctx *cx)
{
    tg_state *s = NULL;
    CK_STATUS(cx, TG_OK, tg_state_new(cx->rules, &s));
    char **texts = calloc(MAX_PLIES + 1, sizeof *texts);
    uint64_t *hashes = calloc(MAX_PLIES + 1, sizeof *hashes);
    assert_non_null(texts);
    assert_non_null(hashes);
    uint64_t rng = cx->seed;
    if (cx->kind == KIND_MANCALA || cx->kind == KIND_MANCALA_ON_BOARD)
        cx->conserved = mancala_conserved(cx, s);

    size_t ply = 0;
    for (;; ply++) {
        cx->ply = ply;
        texts[ply] = tu_str(s);
        hashes[ply] = tg_state_hash(s);
        cx->text = texts[ply];
        CK(cx, tg_state_ply(s) == ply && tu_history_len(s) == ply, "ply %zu, history %zu",
           tg_state_ply(s), tu_history_len(s));
        check_position(cx, s, texts[ply], ply % 5 == 0);
        if (ply == 3 && !tg_state_is_terminal(s))
            check_playout(cx, s);
        if (tg_state_is_terminal(s) || ply == MAX_PLIES)
            break;

        /* The same generator state draws the same move; the move drawn was on offer. */
        size_t n = 0, nc = 0;
        tg_state_moves(s, cx->moves, cx->max_moves, &n);
        tg_state_chance(s, cx->outcomes, cx->probs, cx->max_moves, &nc);
        tg_state *twin = NULL;
        CK_STATUS(cx, TG_OK, tg_state_clone(s, &twin));
        uint64_t twin_rng = rng;
        CK_STATUS(cx, TG_OK, tg_state_apply_random(s, &rng));
        CK_STATUS(cx, TG_OK, tg_state_apply_random(twin, &twin_rng));
        CK(cx, rng == twin_rng && tg_state_equal(s, twin), "%s", "apply_random not deterministic");
        tg_state_free(twin);
        tg_move last = 0;
        size_t hn = 0;
        tg_move *hist = malloc((ply + 1) * sizeof *hist);
        assert_non_null(hist);
        CK_STATUS(cx, TG_OK, tg_state_history(s, hist, ply + 1, &hn));
        CK(cx, hn == ply + 1, "history has %zu moves after %zu plies", hn, ply + 1);
        last = hist[ply];
        free(hist);
        CK(cx, listed(cx->moves, n, last) || listed(cx->outcomes, nc, last),
           "apply_random applied %u, not on offer", (unsigned)last);
    }
    if (!tg_state_is_terminal(s))
        check_playout(cx, s);
    size_t final_ply = ply;
    cx->total_plies += final_ply;
    cx->longest = final_ply > cx->longest ? final_ply : cx->longest;
    if (tg_state_is_terminal(s)) {
        int w = tg_state_winner(s);
        cx->finished++;
        cx->wins[w == 0 ? 0 : w == 1 ? 1 : 2]++;
    }

    /* Replaying the history on a new state reproduces the final position. */
    tg_move *hist = malloc((final_ply + 1) * sizeof *hist);
    assert_non_null(hist);
    size_t hn = 0;
    CK_STATUS(cx, TG_OK, tg_state_history(s, hist, final_ply + 1, &hn));
    CK(cx, hn == final_ply, "history %zu, ply %zu", hn, final_ply);
    tg_state *replay = NULL;
    CK_STATUS(cx, TG_OK, tg_state_new(cx->rules, &replay));
    for (size_t i = 0; i < hn; i++) {
        cx->ply = i;
        CK_STATUS(cx, TG_OK, tg_state_apply(replay, hist[i]));
    }
    cx->ply = final_ply;
    CK(cx, tg_state_equal(replay, s), "%s", "replay differs");
    char *replayed = tu_str(replay);
    CK(cx, strcmp(replayed, texts[final_ply]) == 0, "replay ends at \"%s\"", replayed);
    free(replayed);
    CK(cx, tg_state_hash(replay) == hashes[final_ply], "%s", "replay hash differs");
    tg_state_free(replay);
    free(hist);

    /* Undo all the way back, through every position seen. */
    for (size_t k = final_ply; k > 0; k--) {
        cx->ply = k;
        cx->text = texts[k];
        CK_STATUS(cx, TG_OK, tg_state_undo(s));
        char *now = tu_str(s);
        CK(cx, strcmp(now, texts[k - 1]) == 0, "undo gives \"%s\", expected \"%s\"", now,
           texts[k - 1]);
        free(now);
        CK(cx, tg_state_hash(s) == hashes[k - 1], "%s", "undo hash differs");
        CK(cx, tg_state_ply(s) == k - 1 && tu_history_len(s) == k - 1,
           "after undo: ply %zu, history %zu", tg_state_ply(s), tu_history_len(s));
    }
    cx->ply = 0;
    cx->text = texts[0];
    CK_STATUS(cx, TG_ERR_NO_HISTORY, tg_state_undo(s));
    CK(cx, tu_history_len(s) == 0, "%s", "history not empty at the root");
    cx->text = NULL;

    for (size_t k = 0; k <= final_ply; k++)
        free(texts[k]);
    free(texts);
    free(hashes);
    tg_state_free(s);
}

/* ---- one rule set (the list is in rule_sets.h) ------------------------------------------ */

static void run_rule_set(void **state)
{
    const struct rule_set *rs = *state;
    struct ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.spec = rs->spec;
    cx.rules = tu_rules(rs->spec);
    /* The specs are built in enumeration order with every option: they are canonical. */
    CK(&cx, strcmp(tg_rules_spec(cx.rules), rs->spec) == 0, "canonical spec \"%s\"",
       tg_rules_spec(cx.rules));
    CK(&cx, strcmp(tg_rules_game_id(cx.rules), tg_game_id(rs->game)) == 0, "%s", "game id");
    cx.rows = tg_rules_rows(cx.rules);
    cx.cols = tg_rules_cols(cx.rules);
    cx.max_moves = tg_rules_max_moves(cx.rules);
    CK(&cx, cx.rows > 0 && cx.cols > 0 && cx.max_moves > 0, "rows %d cols %d max_moves %zu",
       cx.rows, cx.cols, cx.max_moves);
    cx.kind = game_kind(tg_game_id(rs->game), cx.rows);
    CK_STATUS(&cx, TG_OK, tg_state_new(cx.rules, &cx.scratch));
    cx.moves = malloc(cx.max_moves * sizeof *cx.moves);
    cx.outcomes = malloc(cx.max_moves * sizeof *cx.outcomes);
    cx.probs = malloc(cx.max_moves * sizeof *cx.probs);
    assert_true(cx.moves && cx.outcomes && cx.probs);

    const unsigned games = (unsigned)tu_battery(GAMES_PER_RULE_SET);
    for (unsigned g = 0; g < games; g++) {
        cx.seed = UINT64_C(0x5EED) * 1000 + g;
        play_one(&cx);
    }
    print_message("# %s: %d games, %zu plies (longest %zu), %zu finished: %zu-%zu, %zu drawn\n",
                  rs->spec, games, cx.total_plies, cx.longest, cx.finished,
                  cx.wins[0], cx.wins[1], cx.wins[2]);

    free(cx.moves);
    free(cx.outcomes);
    free(cx.probs);
    tg_state_free(cx.scratch);
    tg_rules_free(cx.rules);
}

int main(void)
{
    static struct rule_set sets[MAX_RULE_SETS];
    size_t n = build_rule_sets(sets, MAX_RULE_SETS);
    if (n == 0) {
        fprintf(stderr, "no rule sets\n");
        return 1;
    }
    struct CMUnitTest *tests = calloc(n, sizeof *tests);
    if (!tests)
        return 1;
    for (size_t i = 0; i < n; i++) {
        tests[i].name = sets[i].name;
        tests[i].test_func = run_rule_set;
        tests[i].initial_state = &sets[i];
    }
    int failed = _cmocka_run_group_tests("conformance", tests, n, NULL, NULL);
    free(tests);
    return failed;
}

/* The proof writer: a claim ("P wins", or for a draw "P does not lose" for each player) and,
 * under it, the tree that proves it: every reply at the other player's nodes, one move at
 * the claimant's, down to finished games. Each node's moves come from the library's prover
 * at that node, so nothing here decides a value: a move is written only if the prover chose
 * it, and a reply only if the prover proved it keeps the claim.
 *
 * The prover's proofs may wander (any proven win will do for it, however long), so the
 * longest line is bounded: the root is proven with lines of at most H plies (H = 8, 16, ...,
 * 1000 by default, the first that proves it), and a node k plies down with lines of at most H - k, so
 * the tree ends within H plies. A node the prover does not prove again within its bound and
 * budget sends the writer back to the root with twice the bound. */
#include "proof.h"

#include <stdlib.h>
#include <string.h>

enum goal { WINS, NOT_LOSE };
enum { LONGEST = 1000 }; /* the prover's longest line (its depth= option) */

struct writer {
    const char *spec; /* the prover's spec without depth= */
    FILE *out, *err;
    unsigned horizon;
    int claimant;
    enum goal goal;
    int retry; /* a node was not proven again: a longer bound may do */
    uint64_t positions, lines;
};

static const char *result_text(int winner)
{
    return winner == 0 ? "0 wins" : winner == 1 ? "1 wins" : "draw";
}

static int fault(struct writer *w, const char *why)
{
    fprintf(w->err, "tg-prove: %s\n", why);
    return 2;
}

/* A handle of the prover whose lines end within `plies`. */
static tg_search *prover(const struct writer *w, unsigned plies)
{
    char spec[160];
    tg_search *h = NULL;
    snprintf(spec, sizeof spec, "%s,depth=%u", w->spec, plies ? plies : 1);
    return tg_search_new(spec, &h) == TG_OK ? h : NULL;
}

static int node(struct writer *w, tg_state *s, unsigned depth)
{
    if (tg_state_is_terminal(s)) {
        int winner = tg_state_winner(s);
        if (w->goal == WINS ? winner != w->claimant : winner == 1 - w->claimant)
            return fault(w, "a finished game against the claim (a bug of the prover)");
        fprintf(w->out, "%*s= %s\n", (int)(2 * depth), "", result_text(winner));
        w->lines++;
        return 0;
    }
    if (depth >= w->horizon) {
        w->retry = 1;
        return 2;
    }
    tg_search *h = prover(w, w->horizon - depth);
    if (!h)
        return fault(w, "out of memory");
    uint64_t rng = 0, nodes = 0;
    int mine = tg_state_player(s) == w->claimant;
    /* The claimant's move is the prover's choice (it stops at the first proven win); that it
     * keeps the claim is checked below it, where every reply must be proven. */
    tg_move chosen = 0;
    tg_status st = mine ? tg_search_choose(h, s, &rng, &chosen) : tg_search_analyse(h, s, &rng);
    if (st != TG_OK) {
        tg_search_free(h);
        return fault(w, tg_status_string(st));
    }
    tg_search_stats(h, &nodes, NULL);
    w->positions += nodes;
    size_t n = mine ? 1 : tg_search_result_count(h);
    tg_move *moves = malloc(n * sizeof *moves);
    if (!moves) {
        tg_search_free(h);
        return fault(w, "out of memory");
    }
    size_t kept = 0;
    if (mine)
        moves[kept++] = chosen;
    int rc = 0;
    for (size_t i = 0; !mine && i < n && rc == 0; i++) {
        tg_move m;
        double v;
        bool proven;
        tg_search_result(h, i, &m, &v, &proven);
        if (!proven || (w->goal == WINS ? v != -1.0 : v > 0.0)) {
            w->retry = 1; /* not proven again, or the claimant's move was no proven one */
            rc = 2;
        }
        moves[kept++] = m;
    }
    tg_search_free(h);
    for (size_t i = 0; i < kept && rc == 0; i++) {
        char text[64];
        if (tg_move_to_string(s, moves[i], text, sizeof text, NULL) != TG_OK ||
            tg_state_apply(s, moves[i]) != TG_OK) {
            rc = fault(w, "a move the library cannot write or apply");
            break;
        }
        fprintf(w->out, "%*s%s\n", (int)(2 * depth), "", text);
        w->lines++;
        rc = node(w, s, depth + 1);
        tg_state_undo(s);
    }
    free(moves);
    return rc;
}

static int claim(struct writer *w, tg_state *s, int claimant, enum goal goal)
{
    w->claimant = claimant;
    w->goal = goal;
    fprintf(w->out, "claim %d %s\n", claimant, goal == WINS ? "wins" : "does-not-lose");
    return node(w, s, 0);
}

/* The root's values with lines of at most `horizon` plies: 1 won (for the mover), 0 drawn,
 * -1 lost, 2 not proven, 3 an error (written to err). */
static int root_value(struct writer *w, tg_state *s, int report)
{
    tg_search *h = prover(w, w->horizon);
    if (!h) {
        fault(w, "out of memory");
        return 3;
    }
    uint64_t rng = 0, nodes = 0;
    tg_status st = tg_search_analyse(h, s, &rng);
    if (st != TG_OK) {
        fprintf(w->err, "tg-prove: the prover refused the position: %s\n",
                st == TG_ERR_BAD_OPTION ? "a game with throws (the prover takes games without chance)"
                                        : tg_status_string(st));
        tg_search_free(h);
        return 3;
    }
    tg_search_stats(h, &nodes, NULL);
    w->positions += nodes;
    size_t n = tg_search_result_count(h);
    int all_proven = 1, won = 0;
    double best = -2.0;
    for (size_t i = 0; i < n; i++) {
        tg_move m;
        double v;
        bool proven;
        char text[64];
        tg_search_result(h, i, &m, &v, &proven);
        if (report && tg_move_to_string(s, m, text, sizeof text, NULL) == TG_OK)
            fprintf(w->err, "move %-6s %s\n", text,
                    !proven ? "unknown" : v > 0 ? "won" : v < 0 ? "lost" : "drawn");
        all_proven = all_proven && proven;
        won = won || (proven && v == 1.0);
        best = v > best ? v : best;
    }
    tg_search_free(h);
    return won ? 1 : !all_proven ? 2 : best < 0.0 ? -1 : 0;
}

/* Copies the proof written to `tmp` to `out`. */
static int copy(FILE *tmp, FILE *out)
{
    char buf[65536];
    size_t got;
    rewind(tmp);
    while ((got = fread(buf, 1, sizeof buf, tmp)) > 0)
        if (fwrite(buf, 1, got, out) != got)
            return 0;
    return !ferror(tmp);
}

int proof_write(const tg_state *root, const char *spec, unsigned first_depth, FILE *out, FILE *err,
                uint64_t *positions, uint64_t *lines)
{
    struct writer w = {spec, NULL, err, 0, 0, WINS, 0, 0, 0};
    *positions = *lines = 0;
    if (tg_state_is_terminal(root)) {
        fprintf(err, "tg-prove: the game is over: nothing to prove\n");
        return 2;
    }
    tg_state *s = NULL;
    if (tg_state_clone(root, &s) != TG_OK)
        return fault(&w, "out of memory");
    char *text = NULL;
    size_t needed = 0;
    if (tg_state_to_string(s, NULL, 0, &needed) != TG_OK || !(text = malloc(needed + 1)) ||
        tg_state_to_string(s, text, needed + 1, NULL) != TG_OK) {
        free(text);
        tg_state_free(s);
        return fault(&w, "out of memory");
    }
    int me = tg_state_player(s), rc = 1;
    for (w.horizon = first_depth < LONGEST ? first_depth : LONGEST;; w.horizon = w.horizon * 2 < LONGEST ? w.horizon * 2 : LONGEST) {
        int value = root_value(&w, s, w.horizon == LONGEST);
        if (value == 3) {
            rc = 2;
            break;
        }
        if (value != 2) {
            FILE *tmp = tmpfile();
            if (!tmp) {
                rc = fault(&w, "cannot make a temporary file");
                break;
            }
            w.out = tmp;
            w.retry = 0;
            w.lines = 0;
            fprintf(tmp, "tg-proof 1\nposition %s\n", text);
            rc = value == 1    ? claim(&w, s, me, WINS)
                 : value == -1 ? claim(&w, s, 1 - me, WINS)
                               : claim(&w, s, me, NOT_LOSE);
            if (rc == 0 && value == 0)
                rc = claim(&w, s, 1 - me, NOT_LOSE);
            if (rc == 0) {
                fprintf(tmp, "end\n");
                if (!copy(tmp, out))
                    rc = fault(&w, "cannot write the proof");
                fprintf(err, "proven with lines of at most %u plies\n", w.horizon);
            }
            fclose(tmp);
            if (rc == 0 || !w.retry)
                break;
            rc = 1;
        }
        if (w.horizon == LONGEST) {
            if (value != 2)
                fprintf(err, "tg-prove: proven, but not proven again down the tree within the "
                             "budget (raise --nodes)\n");
            else
                fprintf(err, "tg-prove: the position is not proven within the budget\n");
            rc = 1;
            break;
        }
    }
    *positions = w.positions;
    *lines = rc == 0 ? w.lines : 0;
    free(text);
    tg_state_free(s);
    return rc;
}

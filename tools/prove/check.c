/* The proof checker: replays a proof file (docs/proofs.md) with the public API's
 * tg_state_apply alone, independent of the prover. At the claimant's nodes one legal move, at
 * the other player's every legal move exactly once, and every leaf a finished game whose
 * result is the one written and keeps the claim. */
#include "proof.h"

#include <stdlib.h>
#include <string.h>

struct reader {
    FILE *in, *report;
    char *line;       /* the current line, without its newline; NULL at the end */
    size_t cap;
    unsigned long number;
    unsigned indent;  /* its leading spaces / 2 */
    const char *text; /* after the indent */
    int claimant;
    int wins; /* the claim: 1 wins, 0 does not lose */
    uint64_t nodes, leaves;
};

static int next_line(struct reader *r)
{
    size_t n = 0;
    int c;
    while ((c = fgetc(r->in)) != EOF && c != '\n') {
        if (n + 2 > r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 128;
            char *grown = realloc(r->line, cap);
            if (!grown)
                break;
            r->line = grown;
            r->cap = cap;
        }
        r->line[n++] = (char)c;
    }
    if ((c == EOF && n == 0) || (!r->line && !(r->line = calloc(1, 1)))) {
        free(r->line);
        r->line = NULL;
        r->cap = 0;
        return 0;
    }
    r->line[n] = '\0';
    r->number++;
    size_t spaces = strspn(r->line, " ");
    r->indent = (unsigned)(spaces / 2);
    r->text = r->line + spaces;
    if (spaces % 2) /* an odd indent belongs to no depth */
        r->indent = (unsigned)-1;
    return 1;
}

static int bad(struct reader *r, const char *why)
{
    fprintf(r->report, "invalid proof, line %lu: %s%s%s%s\n", r->number, why,
            r->line ? ": '" : "", r->line ? r->line : "", r->line ? "'" : "");
    return 1;
}

static int keeps(const struct reader *r, int winner)
{
    return r->wins ? winner == r->claimant : winner != 1 - r->claimant;
}

/* The lines after a tree: the file's end, or the next claim. */
static int ends_tree(const struct reader *r)
{
    return r->indent == 0 && (strcmp(r->text, "end") == 0 || strncmp(r->text, "claim ", 6) == 0);
}

/* The node at `depth`, whose first line is the current one. */
static int check_node(struct reader *r, tg_state *s, unsigned depth)
{
    if (!r->line || r->indent != depth)
        return bad(r, "a node expected here, at this depth, is missing");
    if (r->text[0] == '=') {
        if (!tg_state_is_terminal(s))
            return bad(r, "a leaf that is not a finished game");
        int winner = tg_state_winner(s);
        const char *said = r->text[1] == ' ' ? r->text + 2 : "";
        int claimed = strcmp(said, "0 wins") == 0   ? 0
                      : strcmp(said, "1 wins") == 0 ? 1
                      : strcmp(said, "draw") == 0   ? TG_DRAW
                                                    : -2;
        if (claimed == -2)
            return bad(r, "a leaf's result is none of '0 wins', '1 wins', 'draw'");
        if (claimed != winner)
            return bad(r, "a leaf's result is not the game's");
        if (!keeps(r, winner))
            return bad(r, "a leaf's result does not keep the claim");
        r->leaves++;
        next_line(r);
        return 0;
    }
    if (tg_state_is_terminal(s))
        return bad(r, "a move after the game ended");
    if (tg_state_player(s) == TG_CHANCE)
        return bad(r, "a chance state: proofs are of games without throws");
    r->nodes++;
    size_t legal = 0;
    if (tg_state_moves(s, NULL, 0, &legal) != TG_OK)
        return bad(r, "the position's moves cannot be listed");
    tg_move *seen = malloc((legal ? legal : 1) * sizeof *seen);
    if (!seen)
        return bad(r, "out of memory");
    size_t count = 0;
    int mine = tg_state_player(s) == r->claimant, rc = 0;
    while (rc == 0 && r->line && r->indent == depth && r->text[0] != '=' && !ends_tree(r)) {
        tg_move m;
        if (tg_move_from_string(s, r->text, &m) != TG_OK || !tg_state_is_legal(s, m)) {
            rc = bad(r, "not a legal move here");
            break;
        }
        for (size_t i = 0; i < count; i++)
            if (seen[i] == m)
                rc = bad(r, "a move listed twice");
        if (rc)
            break;
        if (count == legal || (mine && count == 1)) {
            rc = bad(r, mine ? "more than one move at the claimant's node" : "too many moves");
            break;
        }
        seen[count++] = m;
        if (tg_state_apply(s, m) != TG_OK) {
            rc = bad(r, "the move cannot be applied");
            break;
        }
        next_line(r);
        rc = check_node(r, s, depth + 1);
        tg_state_undo(s);
    }
    free(seen);
    if (rc)
        return rc;
    if (count == 0)
        return bad(r, "a running game with no move under it");
    if (!mine && count != legal)
        return bad(r, "a reply of the opponent is missing before this line");
    return 0;
}

int proof_check(FILE *in, FILE *report)
{
    struct reader r;
    memset(&r, 0, sizeof r);
    r.in = in;
    r.report = report;
    if (!next_line(&r) || strcmp(r.line, "tg-proof 1") != 0)
        return bad(&r, "not a proof file (no 'tg-proof 1' first line)");
    if (!next_line(&r) || strncmp(r.line, "position ", 9) != 0)
        return bad(&r, "no 'position' line");
    const char *text = r.line + 9;
    size_t spec_len = strcspn(text, " ");
    char *spec = malloc(spec_len + 1);
    tg_rules *rules = NULL;
    tg_state *s = NULL;
    int rc = 0;
    if (!spec)
        return bad(&r, "out of memory");
    memcpy(spec, text, spec_len);
    spec[spec_len] = '\0';
    if (tg_rules_new(spec, &rules) != TG_OK || tg_state_from_string(rules, text, &s) != TG_OK)
        rc = bad(&r, "not a position of the library");
    free(spec);
    unsigned claims = 0;
    int claimed[2][2] = {{0, 0}, {0, 0}};
    if (rc == 0)
        next_line(&r);
    while (rc == 0) {
        if (!r.line) {
            rc = bad(&r, "no 'end' line");
            break;
        }
        if (strcmp(r.line, "end") == 0)
            break;
        int player = -1;
        char what[32] = "";
        if (claims == 2 || sscanf(r.line, "claim %d %31s", &player, what) != 2 ||
            (player != 0 && player != 1) ||
            (strcmp(what, "wins") != 0 && strcmp(what, "does-not-lose") != 0)) {
            rc = bad(&r, claims == 2 ? "'end' expected after two claims"
                                     : "a 'claim P wins' or 'claim P does-not-lose' line expected");
            break;
        }
        r.claimant = player;
        r.wins = strcmp(what, "wins") == 0;
        claimed[player][r.wins] = 1;
        next_line(&r);
        rc = check_node(&r, s, 0);
        claims++;
    }
    if (rc == 0 && claims == 0)
        rc = bad(&r, "no claim");
    if (rc == 0) {
        const char *value = claimed[0][1]   ? "player 0 wins"
                            : claimed[1][1] ? "player 1 wins"
                            : claimed[0][0] && claimed[1][0]
                                ? "a draw"
                                : claimed[0][0] ? "player 0 does not lose" : "player 1 does not lose";
        fprintf(report, "valid proof: %s (%llu positions, %llu finished games)\n", value,
                (unsigned long long)r.nodes, (unsigned long long)r.leaves);
    }
    free(r.line);
    tg_state_free(s);
    tg_rules_free(rules);
    return rc;
}

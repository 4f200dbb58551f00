/* tg-prove: proves a position of a game without throws with the library's prover and writes
 * the proof as a file that an independent checker replays (docs/proofs.md).
 *
 *   tg-prove [--nodes N] [--tt MB] [--depth D] (--position TEXT | --record FILE | --spec RULES)
 *            --out FILE
 *   tg-prove --check FILE
 *
 * The position is the library's position text (tg_state_to_string(), its first word the rule
 * set), the end of a game record (tg_state_from_record()), or the start of a rule set. Exit
 * status: 0 proven and written (or, with --check, a valid proof), 1 not proven within the
 * budget (or an invalid proof), 2 bad arguments or input. */
#include "prove/proof.h"
#include "tool-args.h"

#include <stdlib.h>
#include <string.h>

static const struct tool_cli cli = {
    "tg-prove",
    "usage: tg-prove [--nodes N] [--tt MB] [--depth D]\n"
    "                (--position TEXT | --record FILE | --spec RULES) --out FILE\n"
    "       tg-prove --check FILE\n",
    "Proves the position with the library's prover (the bot spec prove:nodes=N,tt=MB, at\n"
    "every node of the proof) and writes the proof to FILE: under a claim ('P wins', or for\n"
    "a draw 'P does-not-lose' for each player) every reply of the other player and one\n"
    "move of the claimant's, down to finished games (docs/proofs.md). The root's value of\n"
    "each move goes to standard error.\n"
    "\n"
    "  --nodes N        the prover's positions at each node, 1 to 1000000000 (1000000)\n"
    "  --tt MB          the prover's table, 1 to 1024 MB (64)\n"
    "  --depth D        the first bound on the proof's lines, 1 to 1000 plies (8); each\n"
    "                   bound that does not prove the position is doubled, up to 1000\n"
    "  --position TEXT  a position as tg_state_to_string() writes it\n"
    "  --record FILE    the position at the end of a game record\n"
    "  --spec RULES     the start of a rule set\n"
    "  --out FILE       where the proof goes ('-': standard output)\n"
    "  --check FILE     replay a proof with tg_state_apply alone and say what it proves\n"
    "\n"
    "Exit status: 0 proven (a valid proof), 1 not proven in the budget (an invalid proof),\n"
    "2 bad arguments or input.\n",
};

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

static tg_state *from_position(const char *text)
{
    size_t spec_len = strcspn(text, " ");
    char *spec = malloc(spec_len + 1);
    if (!spec)
        return NULL;
    memcpy(spec, text, spec_len);
    spec[spec_len] = '\0';
    tg_rules *r = NULL;
    tg_state *s = NULL;
    if (tg_rules_new(spec, &r) == TG_OK && tg_state_from_string(r, text, &s) != TG_OK)
        s = NULL;
    tg_rules_free(r);
    free(spec);
    return s;
}

int main(int argc, char **argv)
{
    uint64_t nodes = 1000000, tt = 64, depth = 8;
    const char *position = NULL, *record = NULL, *spec = NULL, *out_path = NULL,
               *check = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (tool_is_help(a))
            return tool_help(&cli, stdout);
        if (i + 1 >= argc)
            return tool_bad_args(&cli, "unknown argument or missing value", a);
        const char *v = argv[++i];
        if (strcmp(a, "--nodes") == 0) {
            if (!tool_parse_whole(v, 10, 1000000000, &nodes, NULL) || nodes == 0)
                return tool_bad_args(&cli, "--nodes takes 1 to 1000000000", v);
        } else if (strcmp(a, "--tt") == 0) {
            if (!tool_parse_whole(v, 10, 1024, &tt, NULL) || tt == 0)
                return tool_bad_args(&cli, "--tt takes 1 to 1024", v);
        } else if (strcmp(a, "--depth") == 0) {
            if (!tool_parse_whole(v, 10, 1000, &depth, NULL) || depth == 0)
                return tool_bad_args(&cli, "--depth takes 1 to 1000", v);
        } else if (strcmp(a, "--position") == 0 && !position) {
            position = v;
        } else if (strcmp(a, "--record") == 0 && !record) {
            record = v;
        } else if (strcmp(a, "--spec") == 0 && !spec) {
            spec = v;
        } else if (strcmp(a, "--out") == 0 && !out_path) {
            out_path = v;
        } else if (strcmp(a, "--check") == 0 && !check) {
            check = v;
        } else {
            return tool_bad_args(&cli, "unknown or repeated argument", a);
        }
    }
    if (check) {
        if (position || record || spec || out_path)
            return tool_bad_args(&cli, "--check takes no position and no --out", NULL);
        FILE *in = fopen(check, "r");
        if (!in)
            return tool_bad_args(&cli, "cannot read the proof", check);
        int rc = proof_check(in, stdout);
        fclose(in);
        return rc;
    }
    if ((position != NULL) + (record != NULL) + (spec != NULL) != 1)
        return tool_bad_args(&cli, "one of --position, --record and --spec is needed", NULL);
    if (!out_path)
        return tool_bad_args(&cli, "--out FILE is needed", NULL);

    tg_state *s = NULL;
    if (position && !(s = from_position(position)))
        return tool_bad_args(&cli, "not a position of the library", position);
    if (record) {
        char *text = read_file(record);
        if (!text)
            return tool_bad_args(&cli, "cannot read the record", record);
        tg_status st = tg_state_from_record(text, &s);
        free(text);
        if (st != TG_OK)
            return tool_bad_args(&cli, "not a game record", record);
    }
    if (spec) {
        tg_rules *r = NULL;
        if (tg_rules_new(spec, &r) != TG_OK)
            return tool_bad_args(&cli, "not a rule set", spec);
        tg_status st = tg_state_new(r, &s);
        tg_rules_free(r);
        if (st != TG_OK)
            return tool_bad_args(&cli, "out of memory", NULL);
    }
    char bot[96];
    snprintf(bot, sizeof bot, "prove:nodes=%llu,tt=%llu", (unsigned long long)nodes,
             (unsigned long long)tt);
    FILE *out = strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "w");
    if (!out) {
        tg_state_free(s);
        return tool_bad_args(&cli, "cannot write", out_path);
    }
    uint64_t positions = 0, lines = 0;
    int rc = proof_write(s, bot, (unsigned)depth, out, stderr, &positions, &lines);
    if (out != stdout && fclose(out) != 0 && rc == 0) {
        fprintf(stderr, "tg-prove: could not write %s\n", out_path);
        rc = 2;
    }
    fprintf(stderr, "%s: %llu positions searched, %llu lines written\n",
            rc == 0 ? "proven" : "not proven", (unsigned long long)positions,
            (unsigned long long)lines);
    if (rc != 0 && out != stdout)
        remove(out_path);
    tg_state_free(s);
    return rc;
}

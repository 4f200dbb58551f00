/* tg-prove's two halves: the writer (write.c), which proves a position with the library's
 * prover (`prove:` specs of tg_search) and writes the proof, and the checker (check.c),
 * which replays a proof file with tg_state_apply alone. They share nothing but the public
 * library API and this declaration of their entry points; the file format is docs/proofs.md. */
#ifndef TG_TOOLS_PROOF_H
#define TG_TOOLS_PROOF_H

#include <traditional-games.h>

#include <stdint.h>
#include <stdio.h>

/* Proves `s` with the prover spec `spec` (no depth=: the writer bounds the lines, from
 * `first_depth` plies, doubled until the position is proven, up to 1000) and writes the proof
 * to `out`. Returns 0 (written),
 * 1 (the position's value is not proven within the budget: the values found are described on
 * `err`) or 2 (an error, described on `err`). *positions receives the positions the prover
 * searched in all, *lines the lines written. */
int proof_write(const tg_state *s, const char *spec, unsigned first_depth, FILE *out, FILE *err,
                uint64_t *positions, uint64_t *lines);

/* Checks the proof file `in`. Returns 0 (valid: what it proves is written to `report`) or 1
 * (invalid or unreadable: the first fault, with its line number, written to `report`). */
int proof_check(FILE *in, FILE *report);

#endif

/* What the programs in tools/ share in reading their command lines: whole numbers checked to
 * the digit, and the message of a bad argument (exit status 2 in every program). */
#ifndef TG_TOOLS_TOOL_ARGS_H
#define TG_TOOLS_TOOL_ARGS_H

#include <stdint.h>

enum { TOOL_EXIT_BAD_ARGS = 2 };

/* A whole number from 0 to `max` that starts with a digit (no sign, no space), read in `base`
 * (10, or 0 to take C's 0x and 0 prefixes too). With `end_out` NULL the text must end with the
 * number; otherwise `*end_out` receives where it stopped. Returns 1, or 0 (and `*out` is
 * untouched) if the text is no such number. */
int tool_parse_whole(const char *text, int base, uint64_t max, uint64_t *out, const char **end_out);

/* Writes "PROGRAM: WHY: 'ARG'" (or "PROGRAM: WHY" when `arg` is NULL), then `usage` and a line
 * that points to PROGRAM --help, to standard error. Returns TOOL_EXIT_BAD_ARGS. */
int tool_bad_args(const char *program, const char *usage, const char *why, const char *arg);

#endif

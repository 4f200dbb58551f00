/* What the programs in tools/ share in reading their command lines: --help, the message of a
 * bad argument (exit status 2 in every program), and whole numbers checked to the digit. */
#ifndef TG_TOOLS_TOOL_ARGS_H
#define TG_TOOLS_TOOL_ARGS_H

#include <stdint.h>
#include <stdio.h>

enum { TOOL_EXIT_BAD_ARGS = 2 };

/* A program's name and texts, as its command-line messages show them. */
struct tool_cli {
    const char *program; /* "tg-play" */
    const char *usage;   /* the usage lines, each ending in a newline */
    const char *help;    /* what --help adds after the usage and an empty line */
};

/* Whether `arg` asks for the help: --help or -h. */
int tool_is_help(const char *arg);

/* Writes the usage, an empty line and the help to `f`. Returns 0, the exit status of --help. */
int tool_help(const struct tool_cli *cli, FILE *f);

/* Writes "PROGRAM: WHY: 'ARG'" (or "PROGRAM: WHY" when `arg` is NULL), then the usage and a
 * line that points to PROGRAM --help, to standard error. Returns TOOL_EXIT_BAD_ARGS. */
int tool_bad_args(const struct tool_cli *cli, const char *why, const char *arg);

/* A whole number from 0 to `max` that starts with a digit (no sign, no space), read in `base`
 * (10, or 0 to take C's 0x and 0 prefixes too). With `end_out` NULL the text must end with the
 * number; otherwise `*end_out` receives where it stopped. Returns 1, or 0 (and `*out` is
 * untouched) if the text is no such number. */
int tool_parse_whole(const char *text, int base, uint64_t max, uint64_t *out, const char **end_out);

#endif

/* The command-line helpers of tools/tool-args.h. */
#include "tool-args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tool_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int tool_help(const struct tool_cli *cli, FILE *f)
{
    fprintf(f, "%s\n%s", cli->usage, cli->help);
    return 0;
}

int tool_bad_args(const struct tool_cli *cli, const char *why, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "%s: %s: '%s'\n", cli->program, why, arg);
    else
        fprintf(stderr, "%s: %s\n", cli->program, why);
    fprintf(stderr, "%s       (%s --help for more)\n", cli->usage, cli->program);
    return TOOL_EXIT_BAD_ARGS;
}

int tool_parse_whole(const char *text, int base, uint64_t max, uint64_t *out, const char **end_out)
{
    /* strtoull alone would take a sign or leading white space, and wrap "-1" round. */
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, base);
    if (errno != 0 || v > max || (end_out == NULL && *end != '\0'))
        return 0;
    if (end_out != NULL)
        *end_out = end;
    *out = (uint64_t)v;
    return 1;
}

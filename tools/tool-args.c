/* The command-line helpers of tools/tool-args.h. */
#include "tool-args.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

int tool_bad_args(const char *program, const char *usage, const char *why, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "%s: %s: '%s'\n", program, why, arg);
    else
        fprintf(stderr, "%s: %s\n", program, why);
    fprintf(stderr, "%s       (%s --help for more)\n", usage, program);
    return TOOL_EXIT_BAD_ARGS;
}

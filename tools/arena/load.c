/* Reading tg-arena's JSON back (see load.h): a strict reader of the one layout report.c
 * writes, field by field in its order, not a general JSON parser. */
#define _POSIX_C_SOURCE 200809L

#include "load.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int expect(const char **p, const char *literal)
{
    size_t n = strlen(literal);
    if (strncmp(*p, literal, n) != 0)
        return 0;
    *p += n;
    return 1;
}

/* A JSON string as report.c escapes it: \" \\ \n and \u00XX. */
static char *read_string(const char **p)
{
    const char *s = *p;
    if (*s++ != '"')
        return NULL;
    size_t n = strlen(s); /* an upper bound */
    char *out = malloc(n + 1), *o = out;
    if (out == NULL)
        return NULL;
    while (*s != '"') {
        unsigned c = (unsigned char)*s++;
        if (c == '\0' || c < 0x20)
            goto bad;
        if (c == '\\') {
            c = (unsigned char)*s++;
            if (c == 'n') {
                c = '\n';
            } else if (c == 'u') {
                unsigned v = 0;
                for (int k = 0; k < 4; k++, s++) {
                    if (!isxdigit((unsigned char)*s))
                        goto bad;
                    v = v * 16 +
                        (unsigned)(isdigit((unsigned char)*s) ? *s - '0' : (*s | 0x20) - 'a' + 10);
                }
                if (v == 0 || v >= 0x80)
                    goto bad;
                c = v;
            } else if (c != '"' && c != '\\') {
                goto bad;
            }
        }
        *o++ = (char)c;
    }
    *o = '\0';
    *p = s + 1;
    return out;
bad:
    free(out);
    return NULL;
}

static int read_number(const char **p, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(*p, &end);
    if (end == *p || errno != 0 || !(**p == '-' || isdigit((unsigned char)**p)))
        return 0;
    *p = end;
    *out = v;
    return 1;
}

static int read_count(const char **p, unsigned long long max, unsigned long long *out)
{
    char *end;
    if (!isdigit((unsigned char)**p))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno != 0 || v > max)
        return 0;
    *p = end;
    *out = v;
    return 1;
}

static int read_times(const char **p, struct game *g, int seat)
{
    size_t cap = 0;
    if (!expect(p, "["))
        return 0;
    while (**p != ']') {
        double ms;
        if ((g->moves[seat] > 0 && !expect(p, ", ")) || !read_number(p, &ms) || ms < 0.0)
            return 0;
        if (g->moves[seat] == cap) {
            cap = cap == 0 ? 64 : 2 * cap;
            double *grown = realloc(g->move_seconds[seat], cap * sizeof *grown);
            if (grown == NULL)
                return 0;
            g->move_seconds[seat] = grown;
        }
        g->move_seconds[seat][g->moves[seat]++] = ms / 1000.0;
    }
    (*p)++;
    return 1;
}

/* One line of the "games" array. */
static int read_game(const char *p, struct loaded_game *lg)
{
    unsigned long long u, moves[2];
    double x, score[2];
    struct game *g = &lg->g;
    memset(lg, 0, sizeof *lg);
    while (*p == ' ')
        p++;
    if (!expect(&p, "{\"rules\": ") || (lg->rules = read_string(&p)) == NULL)
        return 0;
    if (!expect(&p, ", \"seed\": ") || !read_count(&p, UINT64_MAX, &u))
        return 0;
    g->seed = (uint64_t)u;
    /* Files written before --opening existed have no such field: no opening. */
    if (expect(&p, ", \"opening\": ")) {
        if (!read_count(&p, ULONG_MAX, &u))
            return 0;
        g->opening = (unsigned long)u;
    }
    /* Only games with --balanced openings have this field. */
    if (expect(&p, ", \"balanced\": ")) {
        if (!read_count(&p, 999, &u))
            return 0;
        g->balanced = (unsigned long)u;
    }
    if (!expect(&p, ", \"bots\": [") || (lg->bots[0] = read_string(&p)) == NULL ||
        !expect(&p, ", ") || (lg->bots[1] = read_string(&p)) == NULL ||
        !expect(&p, "], \"bot_index\": ["))
        return 0;
    p += strcspn(p, "]");
    if (!expect(&p, "], \"pairing\": ") || !read_count(&p, UINT64_MAX, &u) ||
        !expect(&p, ", \"winner\": "))
        return 0;
    if (!expect(&p, "null, \"result\": \"*\"") && !expect(&p, "null, \"result\": \"1/2-1/2\"") &&
        !expect(&p, "0, \"result\": \"1-0\"") && !expect(&p, "1, \"result\": \"0-1\""))
        return 0;
    char last = p[-2];
    g->winner = last == '*' ? TG_NO_WINNER_YET : last == '2' ? TG_DRAW : last == '0' ? 0 : 1;
    if (!expect(&p, ", \"plies\": ") || !read_count(&p, SIZE_MAX, &u))
        return 0;
    g->plies = (size_t)u;
    if (!expect(&p, ", \"score\": [") || !read_number(&p, &score[0]) || !expect(&p, ", ") ||
        !read_number(&p, &score[1]) || !expect(&p, "], \"moves\": [") ||
        !read_count(&p, SIZE_MAX, &moves[0]) || !expect(&p, ", ") ||
        !read_count(&p, SIZE_MAX, &moves[1]) || !expect(&p, "], \"seconds\": "))
        return 0;
    g->score[0] = (int)score[0];
    g->score[1] = (int)score[1];
    if (!read_number(&p, &x) || !expect(&p, ", \"move_ms\": ["))
        return 0;
    g->seconds = x;
    if (!read_times(&p, g, 0) || !expect(&p, ", ") || !read_times(&p, g, 1) ||
        g->moves[0] != moves[0] || g->moves[1] != moves[1])
        return 0;
    if (!expect(&p, "], \"final\": ") || (g->final_position = read_string(&p)) == NULL)
        return 0;
    return expect(&p, "}") && (*p == '\0' || strcmp(p, ",") == 0);
}

static void free_one(struct loaded_game *lg)
{
    free(lg->rules);
    free(lg->bots[0]);
    free(lg->bots[1]);
    free(lg->g.final_position);
    free(lg->g.move_seconds[0]);
    free(lg->g.move_seconds[1]);
}

void load_free(struct loaded_game *games, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free_one(&games[i]);
    free(games);
}

int load_games(const char *path, struct loaded_game **games, size_t *count, char *err,
               size_t err_cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, err_cap, "cannot read '%s': %s", path, strerror(errno));
        return 0;
    }
    char *line = NULL;
    size_t line_cap = 0, line_no = 0, found = 0;
    int in_games = 0, program = 0, ok = 1;
    ssize_t len;
    while (ok && (len = getline(&line, &line_cap, f)) >= 0) {
        line_no++;
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line, "  \"program\": \"tg-arena\",") == 0) {
            program = 1;
        } else if (strcmp(line, "  \"games\": [") == 0) {
            in_games = program;
        } else if (in_games && strcmp(line, "  ]") == 0) {
            in_games = 0;
        } else if (in_games) {
            struct loaded_game lg;
            struct loaded_game *grown = realloc(*games, (*count + 1) * sizeof *grown);
            if (grown == NULL || !read_game(line, &lg)) {
                if (grown != NULL)
                    free_one(&lg);
                if (grown != NULL)
                    *games = grown;
                snprintf(err, err_cap, "%s:%zu: not a game of tg-arena's JSON", path, line_no);
                ok = 0;
                break;
            }
            *games = grown;
            (*games)[(*count)++] = lg;
            found++;
        }
    }
    free(line);
    fclose(f);
    if (ok && (!program || found == 0)) {
        snprintf(err, err_cap, "'%s' is not tg-arena JSON with games", path);
        ok = 0;
    }
    return ok;
}

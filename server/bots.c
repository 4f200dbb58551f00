/* Bot requests (docs/server.md, "Bots"): the level names, the limits a server puts on a
 * search, and the time a search gets: the server's cap, the time the spec asks, and, on a
 * seat whose clock runs, a share of that seat's time that never reaches its end. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bot_level_spec(const char *game_id, const char *name)
{
    for (size_t i = 0; i < bot_level_count; i++)
        if (strcmp(game_id, bot_levels[i].game) == 0 && strcmp(name, bot_levels[i].level) == 0)
            return bot_levels[i].spec;
    return name;
}

/* The value of option `key` in a spec that tg_bot_check accepted, or -1 if absent. */
static long option(const char *spec, const char *key)
{
    const char *p = strchr(spec, ':');
    size_t klen = strlen(key);
    while (p) {
        p++;
        if (strncmp(p, key, klen) == 0 && p[klen] == '=')
            return strtol(p + klen + 1, NULL, 10);
        p = strchr(p, ',');
    }
    return -1;
}

static bool searches(const char *spec)
{
    return strncmp(spec, "mcts", 4) == 0 || strncmp(spec, "search", 6) == 0;
}

const char *bot_over_limit(const char *spec, const struct options *o, char *why, size_t cap)
{
    if (strncmp(spec, "mcts", 4) == 0) {
        long n = option(spec, "iterations");
        if ((unsigned long)(n < 0 ? 1000 : n) > o->max_bot_iterations) {
            snprintf(why, cap, "more mcts iterations than this server allows (%lu)",
                     o->max_bot_iterations);
            return "bot-too-slow";
        }
    }
    if (strncmp(spec, "search", 6) == 0 && option(spec, "tt") > BOT_TT_MAX_MB) {
        snprintf(why, cap, "a larger transposition table than this server allows (%d MB)",
                 BOT_TT_MAX_MB);
        return "bot-too-slow";
    }
    return NULL;
}

long bot_time_ms(const char *spec, unsigned long cap_ms, double now, double deadline)
{
    if (!searches(spec))
        return -1; /* random and greedy: no search to bound */
    long t = (long)cap_ms, asked = option(spec, "time");
    if (asked > 0 && asked < t)
        t = asked;
    if (deadline > 0) {
        /* What the seat has left; a search returns within a few ms of its time. */
        double left_ms = (deadline - now) * 1000.0;
        if (left_ms < t)
            t = (long)left_ms;
    }
    return t < 1 ? 1 : t;
}

bool bot_is_cheap(const char *spec, unsigned long cap_ms, double now, double deadline)
{
    return bot_time_ms(spec, cap_ms, now, deadline) <= BOT_CHEAP_MS;
}

bool bot_spec_with_time(const char *spec, long time_ms, char *out, size_t cap)
{
    if (time_ms < 0) {
        int n = snprintf(out, cap, "%s", spec);
        return n >= 0 && (size_t)n < cap;
    }
    const char *colon = strchr(spec, ':');
    size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec), len = 0;
    if (name_len + 1 >= cap)
        return false;
    memcpy(out, spec, name_len);
    len = name_len;
    /* Every option but time, in the order given, then the time this search gets. */
    for (const char *p = colon; p && *p;) {
        p++;
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (strncmp(p, "time=", 5) != 0) {
            if (len + n + 2 >= cap)
                return false;
            char sep = len == name_len ? ':' : ',';
            out[len++] = sep;
            memcpy(out + len, p, n);
            len += n;
        }
        p = end;
    }
    int n = snprintf(out + len, cap - len, "%ctime=%ld", len == name_len ? ':' : ',', time_ms);
    return n >= 0 && (size_t)n < cap - len;
}

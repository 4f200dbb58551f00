/* The rule sets the batteries run over (tests/test_conformance.c, tests/test_learning.c): every
 * game of the catalogue under every combination of its listed choices (ranges at their
 * defaults), plus the defaults with a short quiet limit and the relay games under tiny lap
 * limits. Public API only, so a game added to the library is covered without touching this. */
#ifndef TG_TEST_RULE_SETS_H
#define TG_TEST_RULE_SETS_H

#include "test_util.h"

enum { RULE_SPEC_MAX = 512 };

struct rule_set {
    char spec[RULE_SPEC_MAX];
    char name[RULE_SPEC_MAX + 16];
    size_t game;
};

/* Whether an option's values are a `MIN..MAX` range rather than a list of choices. */
static inline bool is_range(const char *values)
{
    const char *dots = strstr(values, "..");
    return dots && !strchr(values, '|') && dots > values &&
           strspn(values, "0123456789") == (size_t)(dots - values) &&
           strspn(dots + 2, "0123456789") == strlen(dots + 2);
}

/* The values an option takes in the battery: every choice of a list; the default of a range. */
static inline size_t option_choices(size_t game, size_t k, char out[][64], size_t max)
{
    const char *values = tg_game_option_values(game, k);
    assert_non_null(values);
    if (is_range(values)) {
        snprintf(out[0], 64, "%s", tg_game_option_default(game, k));
        return 1;
    }
    size_t n = 0;
    for (const char *p = values; n < max;) {
        size_t len = strcspn(p, "|");
        assert_true(len > 0 && len < 64);
        memcpy(out[n], p, len);
        out[n++][len] = '\0';
        if (!p[len])
            break;
        p += len + 1;
    }
    return n;
}

enum { MAX_OPTIONS = 8, MAX_CHOICES = 16, MAX_RULE_SETS = 512 };

static inline size_t add_spec(struct rule_set *sets, size_t n, size_t game, char vals[][64])
{
    const char *id = tg_game_id(game);
    size_t nopt = tg_game_option_count(game);
    struct rule_set *rs = &sets[n];
    size_t len = (size_t)snprintf(rs->spec, RULE_SPEC_MAX, "%s", id);
    for (size_t k = 0; k < nopt; k++)
        len += (size_t)snprintf(rs->spec + len, RULE_SPEC_MAX - len, "%s%s=%s", k ? "," : ":",
                                tg_game_option_key(game, k), vals[k]);
    for (size_t i = 0; i < n; i++)
        if (strcmp(sets[i].spec, rs->spec) == 0)
            return n;
    rs->game = game;
    snprintf(rs->name, sizeof rs->name, "battery %s", rs->spec);
    return n + 1;
}

static inline size_t build_rule_sets(struct rule_set *sets, size_t max)
{
    size_t n = 0;
    for (size_t g = 0; g < tg_game_count(); g++) {
        size_t nopt = tg_game_option_count(g);
        if (nopt > MAX_OPTIONS) {
            fprintf(stderr, "game %s has %zu options\n", tg_game_id(g), nopt);
            exit(1);
        }
        char choices[MAX_OPTIONS][MAX_CHOICES][64];
        size_t count[MAX_OPTIONS], at[MAX_OPTIONS] = {0};
        char vals[MAX_OPTIONS][64];
        for (size_t k = 0; k < nopt; k++)
            count[k] = option_choices(g, k, choices[k], MAX_CHOICES);
        /* The cartesian product, as an odometer. */
        for (;;) {
            for (size_t k = 0; k < nopt; k++)
                snprintf(vals[k], 64, "%s", choices[k][at[k]]);
            if (n == max)
                return n;
            n = add_spec(sets, n, g, vals);
            size_t k = 0;
            while (k < nopt && ++at[k] == count[k])
                at[k++] = 0;
            if (k == nopt)
                break;
        }
        /* The defaults with a short quiet limit, so that quiet endings happen. */
        bool has_quiet = false;
        for (size_t k = 0; k < nopt; k++) {
            bool quiet = strcmp(tg_game_option_key(g, k), "quiet") == 0;
            has_quiet = has_quiet || quiet;
            snprintf(vals[k], 64, "%s", quiet ? "10" : tg_game_option_default(g, k));
        }
        if (has_quiet && n < max)
            n = add_spec(sets, n, g, vals);
        /* The relay games under tiny lap limits, so that endless moves are frequent: laps=1
         * makes every relay endless, laps=2 every move of more than two laps. */
        static const char *const tiny_limits[] = {"1", "2"};
        for (size_t t = 0; t < sizeof tiny_limits / sizeof tiny_limits[0]; t++) {
            bool has_laps = false;
            for (size_t k = 0; k < nopt; k++) {
                bool laps = strcmp(tg_game_option_key(g, k), "laps") == 0;
                has_laps = has_laps || laps;
                snprintf(vals[k], 64, "%s", laps ? tiny_limits[t] : tg_game_option_default(g, k));
            }
            if (has_laps && n < max)
                n = add_spec(sets, n, g, vals);
        }
    }
    return n;
}

#endif

/* The catalogue of games and the spec language: `GAME` or `GAME:KEY=VALUE,KEY=VALUE`. */
#include "internal.h"

#include <string.h>

static const struct tg_game *const catalogue[] = {
    &tg__halusa,
    &tg__hus,
    &tg__hawalis,
    &tg__walak_pussa,
    &tg__tab,
};

size_t tg__game_count(void)
{
    return sizeof catalogue / sizeof catalogue[0];
}

const struct tg_game *tg__game_at(size_t i)
{
    return i < tg__game_count() ? catalogue[i] : NULL;
}

static const struct tg_game *find_game(const char *id, size_t len)
{
    for (size_t i = 0; i < tg__game_count(); i++) {
        if (strlen(catalogue[i]->id) == len && memcmp(catalogue[i]->id, id, len) == 0)
            return catalogue[i];
    }
    return NULL;
}

static bool parse_value(const struct tg_option_def *def, const char *s, size_t n, int *out)
{
    if (def->choices) {
        for (int i = 0; def->choices[i]; i++) {
            if (strlen(def->choices[i]) == n && memcmp(def->choices[i], s, n) == 0) {
                *out = i;
                return true;
            }
        }
        return false;
    }
    unsigned long v;
    if (!tg__parse_uint(s, n, (unsigned long)def->max, &v) || v < (unsigned long)def->min)
        return false;
    *out = (int)v;
    return true;
}

/* Options are applied to a config that already holds the defaults; each key once. */
static tg_status parse_options(const struct tg_game *g, const char *s, size_t len, int *opt)
{
    bool seen[TG__MAX_OPTIONS] = {false};
    size_t i = 0;
    for (;;) {
        size_t item_end = i;
        while (item_end < len && s[item_end] != ',')
            item_end++;
        const char *eq = memchr(s + i, '=', item_end - i);
        if (!eq)
            return TG_ERR_BAD_OPTION;
        size_t key_len = (size_t)(eq - (s + i));
        size_t k = 0;
        while (k < g->option_count && !(strlen(g->options[k].key) == key_len &&
                                        memcmp(g->options[k].key, s + i, key_len) == 0))
            k++;
        if (k == g->option_count || seen[k])
            return TG_ERR_BAD_OPTION;
        seen[k] = true;
        const char *value = eq + 1;
        if (!parse_value(&g->options[k], value, (size_t)(s + item_end - value), &opt[k]))
            return TG_ERR_BAD_OPTION;
        if (item_end == len)
            return TG_OK;
        i = item_end + 1;
    }
}

static void write_canonical(struct tg_rules *r)
{
    const struct tg_game *g = r->cfg.game;
    struct tg_out o = {r->spec, sizeof r->spec, 0};
    tg__out_str(&o, g->id);
    for (size_t k = 0; k < g->option_count; k++) {
        const struct tg_option_def *def = &g->options[k];
        tg__out_str(&o, k == 0 ? ":" : ",");
        tg__out_str(&o, def->key);
        tg__out_str(&o, "=");
        if (def->choices)
            tg__out_str(&o, def->choices[r->cfg.opt[k]]);
        else
            tg__out_uint(&o, (unsigned long)r->cfg.opt[k]);
    }
}

tg_status tg__rules_parse(const char *spec, size_t len, struct tg_rules *out)
{
    const char *colon = memchr(spec, ':', len);
    size_t id_len = colon ? (size_t)(colon - spec) : len;
    const struct tg_game *g = find_game(spec, id_len);
    if (!g)
        return TG_ERR_UNKNOWN_GAME;

    struct tg_rules r;
    memset(&r, 0, sizeof r);
    r.cfg.game = g;
    for (size_t k = 0; k < g->option_count; k++) {
        const struct tg_option_def *def = &g->options[k];
        parse_value(def, def->def, strlen(def->def), &r.cfg.opt[k]);
    }
    if (colon) {
        tg_status st = parse_options(g, colon + 1, len - id_len - 1, r.cfg.opt);
        if (st != TG_OK)
            return st;
    }
    r.cfg.quiet_limit = g->quiet_option >= 0 ? (unsigned)r.cfg.opt[g->quiet_option] : 0;
    r.cfg.lap_limit = g->laps_option >= 0 ? (uint32_t)r.cfg.opt[g->laps_option] : 0;
    g->setup(&r.cfg);
    tg__hash_setup(&r.cfg);
    write_canonical(&r);
    *out = r;
    return TG_OK;
}

bool tg__rules_same(const struct tg_rules *a, const struct tg_rules *b)
{
    return strcmp(a->spec, b->spec) == 0;
}

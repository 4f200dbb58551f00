#include "index.h"

#include "../mancala/board.h"

#include <string.h>

static void fill_binomials(struct tg_egtb_tier *t)
{
    for (unsigned n = 0; n < TG__EGTB_BINOM_N; n++) {
        t->choose[n][0] = 1;
        for (unsigned k = 1; k < TG__EGTB_BINOM_K; k++)
            t->choose[n][k] = n == 0 ? 0 : t->choose[n - 1][k - 1] + t->choose[n - 1][k];
    }
}

tg_egtb_status tg__egtb_supported(const struct tg_config *cfg)
{
    if (cfg->quiet_limit == 0)
        return TG_EGTB_UNSUPPORTED;
    if (cfg->game == &tg__halusa)
        return TG_EGTB_OK;
    /* Walak-pussa's match play carries rounds, reserves and dead holes: not indexed. */
    if (cfg->game == &tg__walak_pussa && cfg->field_count == 0)
        return TG_EGTB_OK;
    return TG_EGTB_UNSUPPORTED;
}

bool tg__egtb_tier_exists(const struct tg_config *cfg, unsigned counters)
{
    if (counters == 0 || counters > (unsigned)cfg->total)
        return false;
    return cfg->game != &tg__halusa || counters % 2 == 0;
}

bool tg__egtb_tier_make(const struct tg_config *cfg, unsigned counters, struct tg_egtb_tier *t)
{
    memset(t, 0, sizeof *t);
    t->holes = (unsigned)cfg->cells;
    t->counters = counters;
    t->quiet = cfg->quiet_limit;
    if (counters + t->holes - 1 >= TG__EGTB_BINOM_N || t->holes - 1 >= TG__EGTB_BINOM_K)
        return false;
    fill_binomials(t);
    t->boards = t->choose[counters + t->holes - 1][t->holes - 1];
    t->layer_entries = 2 * t->boards;
    if (t->layer_entries > (UINT64_C(1) << 31))
        return false;
    t->layer_blocks = (t->layer_entries + TG__EGTB_BLOCK_ENTRIES - 1) / TG__EGTB_BLOCK_ENTRIES;
    return true;
}

/* Stars and bars: the bars after holes 0 .. holes-2 stand at b_j = (counters in holes 0..j) + j,
 * a strictly increasing sequence; its colexicographic rank is sum C(b_j, j + 1). */
uint64_t tg__egtb_rank(const struct tg_egtb_tier *t, const uint8_t *cell)
{
    uint64_t rank = 0;
    unsigned before = 0;
    for (unsigned j = 0; j + 1 < t->holes; j++) {
        before += cell[j];
        rank += t->choose[before + j][j + 1];
    }
    return rank;
}

void tg__egtb_unrank(const struct tg_egtb_tier *t, uint64_t rank, uint8_t *cell)
{
    unsigned top = t->counters + t->holes - 1; /* bars stand below this */
    unsigned after = t->counters;              /* counters at or after the current bar */
    for (unsigned j = t->holes - 1; j-- > 0;) {
        unsigned b = top - 1;
        while (t->choose[b][j + 1] > rank)
            b--;
        rank -= t->choose[b][j + 1];
        /* Counters between bar j and the next bar (or the end). */
        cell[j + 1] = (uint8_t)(top - 1 - b);
        after -= cell[j + 1];
        top = b;
    }
    cell[0] = (uint8_t)after;
}

/* What the parts of the `search` engine share: its value scale, the transposition table
 * (search_table.c) and the evaluation (search_eval.c), used by the search (search.c). */
#ifndef TG_SEARCH_H
#define TG_SEARCH_H

#include "bot.h"

#include <stdint.h>

/* Values are integers (centi-counters of score lead; results as +-WIN), so that a search
 * bounded by nodes or depth is the same on every platform. */
#define TG__INF 32000
#define TG__WIN 30000
#define TG__WIN_MIN (TG__WIN - 1000) /* a value beyond this is a result, won or lost */
#define TG__EVAL_MAX (TG__WIN_MIN - 1)
#define TG__NO_MOVE 0xFFFFFFFFu

enum { TG__TT_UPPER = 1, TG__TT_LOWER = 2, TG__TT_EXACT = 3, TG__TT_BOUND = 3, TG__TT_PROVEN = 4 };

/* 16 bytes on every platform, so that a table of a given size holds the same number of
 * entries everywhere (and replaces the same ones). */
struct tg__tt_entry {
    uint64_t key;
    tg_move move;
    int16_t value;
    uint8_t depth;
    uint8_t flags; /* 0: empty */
};

/* The prover's table entry (prove.c), in the same memory as the search's and the same
 * size: a position's proof and disproof numbers for one goal (the key includes the goal). */
struct tg__pn_entry {
    uint64_t key;
    uint32_t pn, dn;
};

/* search_table.c: the table's key of a position (the same on every platform), a lookup
 * (NULL if the position has no entry) and a store that may replace another position's entry. */
uint64_t tg__table_key(const struct tg_config *cfg, const struct tg_pos *pos);
struct tg__tt_entry *tg__tt_probe(const struct tg__engine *e, uint64_t key);
void tg__tt_store(struct tg__engine *e, uint64_t key, int depth, int16_t value, unsigned flags,
                  tg_move move);
/* Clears the pages of the table the previous search wrote, looking at `ctl` before each page;
 * false if it stopped the clearing (the pages not yet cleared stay marked). */
bool tg__tt_clear(struct tg__engine *e, struct tg__control *ctl);
/* Marks the page of the table that holds entry `index` as written. */
void tg__tt_mark(struct tg__engine *e, size_t index);

#endif

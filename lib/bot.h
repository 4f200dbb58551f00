/* The bots' internal contract: the parsed spec, the limits and stop flag a search obeys, the
 * per-move results of an analysis, and the engines behind them (bot.c: random, greedy, UCT;
 * search.c, search_eval.c, search_table.c: alpha-beta and expectimax; search_handle.c: the
 * public tg_search handle). */
#ifndef TG_BOT_H
#define TG_BOT_H

#include "internal.h"

#include <stdatomic.h>

enum tg__bot_kind { TG__BOT_RANDOM, TG__BOT_GREEDY, TG__BOT_MCTS, TG__BOT_SEARCH, TG__BOT_PROVE };

#define TG__TIME_MAX_MS 600000u
#define TG__SEARCH_NODES_DEFAULT 1000000u
#define TG__SEARCH_NODES_MAX 1000000000u
#define TG__SEARCH_DEPTH_MAX 64u
/* The prover's longest line, in plies (the WebAssembly build stops at 192: prove.c). */
#define TG__PROVE_DEPTH_MAX 1000u
#define TG__SEARCH_TT_DEFAULT_MB 8u
#define TG__SEARCH_TT_MAX_MB 1024u
/* The tree bound of `mcts:time=` without `iterations=`: 32 MB of nodes. */
#define TG__MCTS_TIMED_NODES 1000000u
/* Moves kept in a result's principal line. */
#define TG__LINE_MAX 32

/* The evaluation a `search` uses (`eval=`): the game's chosen one, the classic heuristic, or
 * the fitted one (search_features.h; the classic where a game has none). */
enum tg__eval_kind { TG__EVAL_DEFAULT = 0, TG__EVAL_CLASSIC, TG__EVAL_FITTED };

struct tg__bot {
    enum tg__bot_kind kind;
    uint32_t iterations; /* mcts; 0 with time= and no iterations= */
    double exploration;  /* mcts */
    uint32_t time_ms;    /* mcts, search; 0: no time limit */
    uint32_t nodes;      /* search; 0: none */
    uint32_t depth;      /* search: the deepest iteration; prove: the longest line */
    uint32_t tt_mb;      /* search */
    /* search: the evaluation (eval=) */
    enum tg__eval_kind eval;
};

tg_status tg__bot_parse(const char *spec, struct tg__bot *b);

/* A handle's life, one atomic word, so that a stop cannot fall between the start of a call
 * and the clearing of a flag: IDLE, RUNNING (one call), STOPPING (a stop or a free came
 * while it ran; the call reads it as "stop"), FREED (tg_search_free came while it ran: the
 * call releases the handle as it returns). */
enum { TG__IDLE, TG__RUNNING, TG__STOPPING, TG__FREED };

/* What ends a search early: the handle's life leaving RUNNING (checked every position or
 * iteration, and before each page of the table's clearing) and, read every so often, the
 * clock. */
struct tg__control {
    atomic_int *life; /* NULL: nobody can stop it */
    bool timed;
    uint64_t deadline_ns;
    bool stopped; /* latched once any of them ended the search */
};

/* Starts the clock of a search: false if there is no clock (the search then stops). */
bool tg__control_start(struct tg__control *c, atomic_int *life, uint32_t time_ms);
/* Reads the life word and, when `with_clock`, the clock; latches and returns `stopped`. */
bool tg__control_poll(struct tg__control *c, bool with_clock);

/* One analysed move: its value for the player to move at the root in [-1, 1], whether it is
 * exact, and the line that follows it (the move first). */
struct tg__result {
    tg_move move;
    uint32_t line_len;
    double value;
    bool proven;
    tg_move line[TG__LINE_MAX];
    /* Given by an endgame database (search_egtb.c): the exact value, and its rank among the
     * exact values (an endless win above every margin), which orders results of equal value. */
    bool exact;
    int exact_order;
    tg_egtb_value exact_value;
};

/* bot.c: random, greedy and UCT on a position that has at least one decision (and is not a
 * chance state). `results`: NULL to choose only, else (`mcts` only) room for every legal
 * move, filled in moves() order. Returns TG_OK or TG_ERR_NO_MEMORY; *iterations receives the
 * work done. */
tg_status tg__bot_run(const struct tg_config *cfg, const struct tg_pos *pos,
                      const struct tg__bot *b, struct tg__control *ctl, uint64_t *rng, tg_move *out,
                      struct tg__result *results, uint64_t *iterations);

/* bot.c: the analysis of `random` and `greedy` (and of any bot but `search` at a throw):
 * each option valued by the position it leaves, in tg__options_now() order. */
void tg__one_ply_results(const struct tg_config *cfg, const struct tg_pos *root,
                         struct tg__result *results);

/* search.c's static value of a position for player `me` (centi-counters of score lead), and
 * an engine value as an analysis value in [-1, 1] (`averaged`: a game with throws). Shared
 * with the one-ply analysis of `random` and `greedy` in bot.c. */
int tg__engine_evaluate(const struct tg_config *cfg, const struct tg_pos *pos, int me);
int tg__engine_evaluate_as(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                           enum tg__eval_kind kind);
double tg__engine_value(int v, bool proven, bool averaged);

/* search.c: the alpha-beta engine's memory, owned by a handle; prove.c uses the same table
 * (as its own entries: a handle is either `search` or `prove`) and its own stack. */
struct tg__engine {
    void *tt_block; /* the allocation the table lies in, aligned within it */
    union {
        struct tg__tt_entry *tt;
        struct tg__pn_entry *pn;
    };
    size_t tt_entries;  /* a power of two */
    uint64_t *tt_dirty; /* a bit per 4 KB page of the table written since cleared */
    struct tg_pos *frames;
    size_t frame_moves; /* positions per ply the frames have room for */
    void *levels;       /* the prover's children, keys and path (prove.c) */
    size_t level_moves; /* positions per ply the levels have room for */
    /* The attached endgame database's reader (search_egtb.c; native builds), whether this
     * call still probes it, and the first failure of this call. */
    tg_egtb_reader *egtb;
    bool egtb_on;
    tg_egtb_status egtb_status;
    uint64_t egtb_probes;
};

tg_status tg__engine_init(struct tg__engine *e, uint32_t tt_mb);
void tg__engine_release(struct tg__engine *e);
/* Searches a DECIDE or CHANCE position with at least one option. `results` as above (in
 * tg__options_now() order, unsorted), or NULL for a choice; *out the best decision. */
tg_status tg__engine_run(struct tg__engine *e, const struct tg_config *cfg,
                         const struct tg_pos *pos, const struct tg__bot *b, struct tg__control *ctl,
                         tg_move *out, struct tg__result *results, uint64_t *nodes,
                         uint32_t *depth);

/* prove.c: proves the value (won, drawn or lost for the player to move) of every legal
 * decision of a DECIDE position of a game without chance; `results` in tg__options_now()
 * order, each proven or left unknown (value 0, not proven) within the budget. `choose`: the
 * moves after the first proven win are left unknown. TG_ERR_BAD_OPTION for a game with
 * chance. */
/* search_egtb.c (native builds): a search call's use of the attached database. begin: probe
 * it in this call if attached and of `rules`. probe: the exact value of `pos`, or false (a
 * failure other than "not in the database" latches egtb_status and ends the probing). root:
 * if `pos` is covered, its best move by the database into *out and, if `results`, every
 * move's exact value (in tg__options_now() order) with its line; false if not covered. */
void tg__search_egtb_begin(struct tg__engine *e, const struct tg_rules *rules);
bool tg__search_egtb_probe(struct tg__engine *e, const struct tg_pos *pos, tg_egtb_value *out);
bool tg__search_egtb_root(struct tg__engine *e, const struct tg_config *cfg,
                          const struct tg_pos *pos, tg_move *out, struct tg__result *results);

tg_status tg__prove_run(struct tg__engine *e, const struct tg_config *cfg,
                        const struct tg_pos *pos, const struct tg__bot *b, struct tg__control *ctl,
                        bool choose, struct tg__result *results, uint64_t *nodes);

#endif

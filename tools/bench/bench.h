/* What the parts of tg-bench share: the settings, the results of one rule set, and one entry
 * point per measured area. The header comment of tools/tg-bench.c defines every metric; each
 * area's file says how it takes its measurement. */
#ifndef TG_TOOLS_BENCH_H
#define TG_TOOLS_BENCH_H

#include <traditional-games.h>

#include <stdbool.h>
#include <stdint.h>

/* A rule set without a quiet limit can cycle for ever under random play (rules/README.md):
 * such playouts are cut here and reported. */
enum { MAX_PERFT_DEPTH = 64, MAX_PLAYOUT_PLIES = 10000 };
/* The MCTS measurement searches a position every MCTS_SAMPLE_GAP plies or so of its random
 * games; MCTS_MAX_ITERATIONS is the bot's own limit. */
enum { MCTS_SAMPLE_GAP = 5, MCTS_DEFAULT_ITERATIONS = 200 };
#define MCTS_MAX_ITERATIONS 10000000ul
enum { MAX_RUNS = 101, MAX_THREADS = 64, SAMPLE_SIZE = 256, SAMPLE_MIN = 16 };
/* A sampled move slower than this is drawn again (at most SLOW_RETRIES times). */
#define SLOW_MOVE_SECONDS 1e-3
enum { SLOW_RETRIES = 8 };

enum {
    M_PLAYOUTS = 1u << 0,
    M_PERFT = 1u << 1,
    M_COPY = 1u << 2,
    M_MCTS = 1u << 3,
    M_THREADS = 1u << 4,
    M_ALL = (1u << 5) - 1, /* what runs when --only is not given */
    M_WORST = 1u << 5
};
#define WORST_DEFAULT_POSITIONS 1000000ul
enum { WORST_RETIMES = 4 };

struct options {
    double seconds;
    int runs;
    uint64_t seed;
    unsigned long mcts_iterations;
    int threads;
    unsigned long positions;
    unsigned metrics;
    bool json;
};

/* Per-run values are NaN when not measured. */
struct result {
    char spec[128];
    char game[32];
    /* playouts */
    uint64_t games, cut, plies, decisions, chance, sown; /* sums over every run */
    double playouts_per_s[MAX_RUNS], ns_per_ply[MAX_RUNS], ns_per_decision[MAX_RUNS],
        ns_per_chance[MAX_RUNS], sown_per_s[MAX_RUNS], ns_per_sown[MAX_RUNS];
    bool split; /* the chance split was measured */
    double split_decision_ns, split_chance_ns, split_overhead_ns; /* move-by-move pass */
    uint64_t split_decisions, split_chance;
    /* perft */
    unsigned perft_depth;
    uint64_t perft_leaves; /* leaves of one call at perft_depth */
    double perft_per_s[MAX_RUNS];
    /* copy, apply, undo */
    double copy_ns[MAX_RUNS], apply_ns[MAX_RUNS], apply_undo_ns[MAX_RUNS],
        apply_undo_ratio[MAX_RUNS];
    int sample_size;
    /* mcts */
    double mcts_per_s[MAX_RUNS];
    uint64_t mcts_searches;
    /* threads */
    double thread1_per_s[MAX_RUNS], threadn_per_s[MAX_RUNS], thread_ratio[MAX_RUNS];
    double thread1_cpu[MAX_RUNS], threadn_cpu[MAX_RUNS]; /* CPU time over wall-clock time */
    /* worst */
    uint64_t worst_positions, worst_moves;
    double worst_ns, worst_total_ns;
    char worst_position[512], worst_move[32];
};

/* The seed of run `run` of a measurement, `salt` telling the measurements apart. */
uint64_t run_seed(uint64_t seed, int run, uint64_t salt);

/* [playouts] tools/bench/playouts.c. Each returns 0 when the library failed. */
int playout_run(const tg_state *root, tg_state *scratch, double seconds, uint64_t seed,
                struct result *r, int run);
int chance_split(const tg_state *root, double seconds, uint64_t seed, struct result *r);

/* [perft] tools/bench/perft.c */
void perft_depth(const tg_state *root, double seconds, struct result *r);
void perft_run(const tg_state *root, double seconds, struct result *r, int run);

/* [copy] tools/bench/copy.c: mid-game positions, each with a legal decision. */
struct sample {
    int n;
    tg_state *pos[SAMPLE_SIZE];
    tg_move move[SAMPLE_SIZE];
    tg_state *scratch;
};
int sample_build(const tg_state *root, uint64_t seed, double seconds, struct sample *sm);
void sample_free(struct sample *sm);
int copy_run(struct sample *sm, double seconds, struct result *r, int run);

/* [mcts] tools/bench/mcts.c */
int mcts_run(const tg_state *root, double seconds, uint64_t seed, unsigned long iterations,
             struct result *r, int run);

/* [threads] tools/bench/threads.c: NaN on failure. */
double threads_rate(const tg_state *root, int n, double seconds, uint64_t seed, double *cpu_share);

/* [worst] tools/bench/worst.c */
int worst_apply(const tg_state *root, uint64_t seed, unsigned long positions, struct result *r);

/* tools/bench/output.c: the tables, or one JSON object, on standard output. */
void print_tables(const struct result *res, int n, const struct options *o);
void print_json(const struct result *res, int n, const struct options *o);

#endif

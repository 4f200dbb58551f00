/* The internal contract between the generic core (api.c, state.c, rules.c, notation.c,
 * random.c) and the games under games/. Nothing here is exported. */
#ifndef TG_GAME_H
#define TG_GAME_H

#include "traditional-games.h"
#include "mancala/ring.h"
#include "race/track.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds shared by every game: At-Tab wa-d-Dukk on 4x29 is the largest board (116 cells). */
#define TG__MAX_CELLS 128
#define TG__MAX_MOVES 512
#define TG__MAX_OPTIONS 4
#define TG__MAX_FIELD_BYTES 16
/* Slots of a position's hash after its cells: two scores, quiet, side, phase, winner, fields. */
#define TG__HASH_TAIL (6 + TG__MAX_FIELD_BYTES)

enum tg__phase { TG__DECIDE = 0, TG__CHANCE = 1, TG__OVER = 2 };

/* A position as a plain value: copying is memcpy, equality is memcmp, the undo history is an
 * array of these. Every byte is meaningful (no padding, unused cells stay 0), which is what
 * makes memcmp equality and whole-struct hashing sound. */
struct tg_pos {
    uint8_t cell[TG__MAX_CELLS];        /* game-defined content of each cell */
    uint16_t score[2];                  /* the game's own score of each player */
    uint16_t quiet;                     /* moves since the last capture (quiet limit) */
    uint8_t side;                       /* whose turn: 0 or 1 (0 once the game is over) */
    uint8_t phase;                      /* enum tg__phase */
    int8_t winner;                      /* TG_NO_WINNER_YET, 0, 1 or TG_DRAW */
    uint8_t reserved;                   /* always 0 */
    uint8_t field[TG__MAX_FIELD_BYTES]; /* game-specific position fields */
};

/* What a game's apply reports to the generic core: these flags in the low byte, and above
 * them the number of counters the move sowed (TG__SOWN), for tg_state_playout_stats(). */
#define TG__SOWN_SHIFT 8
#define TG__SOWN(n) ((uint64_t)(n) << TG__SOWN_SHIFT)
enum {
    TG__CAPTURED = 1u, /* the move captured: the quiet count restarts */
    TG__ENDLESS = 2u,  /* the move never ends: the game was ended, quiet count untouched */
    TG__NEW_ROUND = 4u /* the move ended a round and set up the next: the count restarts at 0 */
};

struct tg_config;
struct tg__story; /* story.h */
struct tg_learning;

/* A spec option: either a list of named choices or a whole-number range. */
struct tg_option_def {
    const char *key;
    const char *values;         /* as published: "last-mover|owner" or "0..1000" */
    const char *const *choices; /* NULL-terminated, or NULL for a number */
    int min, max;               /* range of a number */
    const char *def;            /* default, spelled as in a spec */
};

/* Shared option of the relay-sowing games (rules/README.md, "Endless moves": the lap limit),
 * which comes just before the quiet limit in their canonical specs. */
#define TG__LAPS_OPTION                                                                            \
    {                                                                                              \
        "laps", "0..1000000000", NULL, 0, 1000000000, "10000"                                      \
    }

/* Shared option of the mancala games (rules/README.md: the quiet limit). */
#define TG__QUIET_OPTION                                                                           \
    {                                                                                              \
        "quiet", "0..1000", NULL, 0, 1000, "100"                                                   \
    }

/* A small growable text sink that counts what does not fit; see notation.c. */
struct tg_out {
    char *buf;
    size_t cap;
    size_t len;
};
void tg__out_mem(struct tg_out *o, const char *s, size_t n);
void tg__out_str(struct tg_out *o, const char *s);
void tg__out_uint(struct tg_out *o, unsigned long v);
void tg__out_cell_name(struct tg_out *o, const struct tg_config *cfg, int cell);
/* Reads a whole number 0..max without sign or leading zeros from s[0..n); false if malformed. */
bool tg__parse_uint(const char *s, size_t n, unsigned long max, unsigned long *out);
/* Reads a cell name (`a1`, `ab3`) from s[0..n); the cell index, or -1 if not on the board. */
int tg__parse_cell_name(const struct tg_config *cfg, const char *s, size_t n);

struct tg_game {
    const char *id;
    const char *name;
    const struct tg_option_def *options; /* in canonical-spec order */
    size_t option_count;
    int quiet_option; /* index of the quiet option, or -1 if none */
    int laps_option;  /* index of the lap-limit option, or -1 if none (the relay games have it) */

    /* Board size, tables and bounds from cfg->opt. */
    void (*setup)(struct tg_config *cfg);
    void (*init)(const struct tg_config *cfg, struct tg_pos *pos);
    /* Legal decisions, ascending, at a TG__DECIDE position; returns the count. */
    size_t (*moves)(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out);
    /* The decisions of moves() as a move set (bit i for the move first + i, see "Move sets"
     * below), or NULL: the learning interface's action mask reads it without a listing. */
    uint64_t (*move_set)(const struct tg_config *cfg, const struct tg_pos *pos, unsigned *first);
    /* Chance outcomes ascending and their probabilities at a TG__CHANCE position; NULL for
     * games without chance. */
    size_t (*chance)(const struct tg_config *cfg, const struct tg_pos *pos, tg_move *out,
                     double *prob);
    /* Applies a move from moves() or chance(); never fails. Returns TG__CAPTURED, TG__ENDLESS,
     * TG__NEW_ROUND, or-ed with TG__SOWN(counters sown, endless sowing included). */
    uint64_t (*apply)(const struct tg_config *cfg, struct tg_pos *pos, tg_move m);
    /* apply() telling its story (story.h): the same rules code with the events written. */
    uint64_t (*apply_story)(const struct tg_config *cfg, struct tg_pos *pos, tg_move m,
                            struct tg__story *story);
    /* Random plies until the end or max_plies, draw for draw what repeated
     * tg_state_apply_random() calls draw: one of the loops of playout.h instantiated with the
     * game's own functions, so that they are inlined into it. stats: NULL, or TG_STAT_COUNT
     * counters to add to. */
    size_t (*playout)(const struct tg_config *cfg, struct tg_pos *pos, uint64_t *rng,
                      size_t max_plies, uint64_t *stats);
    /* Ends a game (or round) that reached the quiet limit, telling it to `story` (NULL on the
     * hot path); NULL if the game has no limit. */
    void (*quiet_end)(const struct tg_config *cfg, struct tg_pos *pos, struct tg__story *story);

    int (*count)(const struct tg_config *cfg, const struct tg_pos *pos, int cell);
    int (*owner)(const struct tg_config *cfg, const struct tg_pos *pos, int cell);
    unsigned (*flags)(const struct tg_config *cfg, const struct tg_pos *pos, int cell);

    /* Notation. Cells and fields are handed over as (text, length) tokens already split by
     * the core; the hooks say whether a token is well formed. */
    void (*write_cell)(const struct tg_config *cfg, const struct tg_pos *pos, int cell,
                       struct tg_out *o);
    bool (*read_cell)(const struct tg_config *cfg, const char *s, size_t n, struct tg_pos *pos,
                      int cell);
    void (*write_field)(const struct tg_config *cfg, const struct tg_pos *pos, size_t field,
                        struct tg_out *o);
    bool (*read_field)(const struct tg_config *cfg, size_t field, const char *s, size_t n,
                       struct tg_pos *pos);
    /* Game invariants of a parsed position (totals, fields). The core checks separately that
     * a running position has a move or an outcome, and that a finished one could be left. */
    bool (*valid)(const struct tg_config *cfg, const struct tg_pos *pos);
    /* The endings among the game's own and its quiet end (when the count stands at the limit)
     * that leave exactly this finished position, bit r for tg_end_reason r: the condition holds
     * on the board and the winner is the one it gives. The core adds the third way a game
     * ends, an endless move (tg__endings()). */
    unsigned (*endings)(const struct tg_config *cfg, const struct tg_pos *pos);
    /* For tg_state_render: the game's own position fields in words a player understands, one
     * line each (`round 4 ...`, `throws to spend: 3`); NULL if the game has none. */
    void (*describe)(const struct tg_config *cfg, const struct tg_pos *pos, struct tg_out *o);
    bool (*move_to_string)(const struct tg_config *cfg, const struct tg_pos *pos, tg_move m,
                           struct tg_out *o);
    bool (*move_from_string)(const struct tg_config *cfg, const struct tg_pos *pos, const char *s,
                             size_t n, tg_move *m);
    /* The learning interface's game-specific part (learning.h); NULL for the mancala default. */
    const struct tg_learning *learning;
};

/* A rule set after parsing: the game, its option values and everything derived from them.
 * Immutable once made, so it can be shared between threads and copied into each state. */
struct tg_config {
    const struct tg_game *game;
    int opt[TG__MAX_OPTIONS]; /* choice index or number, per option */
    int rows, cols, cells;
    unsigned quiet_limit;      /* 0: no limit */
    uint32_t lap_limit;        /* relay games: laps after which a sowing is endless; 0: none */
    size_t max_moves;          /* bound on moves() and chance() counts */
    int total;                 /* counters (or pieces) in play, for validation */
    const char *const *fields; /* names of the position fields these options need, in order */
    size_t field_count;
    /* The Zobrist key of 0 in each slot after the cells, and all of them combined. They are the
     * same for every rule set; computed once here (C cannot compute them at compile time), so
     * that tg__pos_hash mixes only the slots that are not 0. */
    uint64_t hash_zero[TG__HASH_TAIL];
    uint64_t hash_zero_all;
    union {
        struct tg_ring ring[2];   /* mancala: each player's sowing ring (shared or own) */
        struct tg_track track[2]; /* race games: each player's track */
    };
};

/* Ends the game with a result; the side is normalised so that equal finished positions are
 * equal whatever move ended them. */
static inline void tg__finish(struct tg_pos *pos, int winner)
{
    pos->phase = TG__OVER;
    pos->side = 0;
    pos->winner = (int8_t)winner;
}

/* The winner by higher score, as most games decide. */
static inline int tg__winner_by_score(const struct tg_pos *pos)
{
    if (pos->score[0] == pos->score[1])
        return TG_DRAW;
    return pos->score[0] > pos->score[1] ? 0 : 1;
}

typedef uint64_t tg__apply_fn(const struct tg_config *cfg, struct tg_pos *pos, tg_move m);

/* Applies a legal move with the common rules around it (the quiet limit). The one path used
 * by tg_state_apply, playouts, perft and the bots; inline, since it runs once a ply, and
 * with the game's apply as a parameter so that a game's own playout loop can have it inlined
 * too. */
/* The quiet count after a move that reported `result`: true if it ends the game (or round),
 * which the caller then does with the game's quiet_end. */
static inline bool tg__quiet_step(const struct tg_config *cfg, struct tg_pos *pos, uint64_t result)
{
    if (result & TG__ENDLESS || cfg->game->quiet_option < 0)
        return false;
    if (result & (TG__CAPTURED | TG__NEW_ROUND))
        pos->quiet = 0;
    else if (pos->quiet < UINT16_MAX)
        pos->quiet++;
    /* The quiet limit only ends what the game's own rules left running. */
    return cfg->quiet_limit && pos->quiet >= cfg->quiet_limit && pos->phase != TG__OVER &&
           !(result & TG__NEW_ROUND);
}

static inline uint64_t tg__play_with(const struct tg_config *cfg, struct tg_pos *pos, tg_move m,
                                     tg__apply_fn *apply)
{
    uint64_t result = apply(cfg, pos, m);
    if (tg__quiet_step(cfg, pos, result))
        cfg->game->quiet_end(cfg, pos, NULL);
    return result;
}

static inline uint64_t tg__play(const struct tg_config *cfg, struct tg_pos *pos, tg_move m)
{
    return tg__play_with(cfg, pos, m, cfg->game->apply);
}

/* For a game's apply body, written once with a story parameter: inlined into both its apply
 * (story NULL, every emission removed) and its apply_story. */
#if defined(__GNUC__)
#define TG__ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define TG__ALWAYS_INLINE inline
#endif

/* The lowest set bit of a non-zero word, and the number of set bits. */
static inline unsigned tg__lowest_bit(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned i = 0;
    for (; !(x & 1u); x >>= 1)
        i++;
    return i;
#endif
}

static inline unsigned tg__bit_count(uint64_t x)
{
#if defined(__GNUC__) && (defined(__POPCNT__) || defined(__wasm__))
    /* WebAssembly has the instruction (i64.popcnt) in its base set. */
    return (unsigned)__builtin_popcountll(x);
#else
    /* Without the instruction, the builtin is a library call: sums of bits in ever wider
     * lanes cost less. */
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* Move sets, for games whose decisions are cells less than 64 apart: bit i of a set stands
 * for the move first + i. Listing one ascending (as tg_game.moves does), and its k-th move. */
static inline size_t tg__move_set_list(uint64_t set, unsigned first, tg_move *out)
{
    if (!out)
        return tg__bit_count(set);
    size_t k = 0;
    for (; set; set &= set - 1)
        out[k++] = (tg_move)(first + tg__lowest_bit(set));
    return k;
}

typedef uint64_t tg__move_set_fn(const struct tg_config *cfg, const struct tg_pos *pos,
                                 unsigned *first);

/* tg_game.moves of a game whose decisions are a move set. */
static inline size_t tg__moves_of_set(tg__move_set_fn *move_set, const struct tg_config *cfg,
                                      const struct tg_pos *pos, tg_move *out)
{
    unsigned first;
    uint64_t set = move_set(cfg, pos, &first);
    return tg__move_set_list(set, first, out);
}

static inline tg_move tg__move_set_nth(uint64_t set, unsigned first, unsigned k)
{
    /* A plain loop: a branch-free select (prefix sums of bit counts) measured slower here,
     * its longer dependency chain costing more than the loop's mispredicted exit. */
    while (k--)
        set &= set - 1;
    return (tg_move)(first + tg__lowest_bit(set));
}

/* Legal decisions or chance outcomes, whichever the position has; probabilities optional. */
static inline size_t tg__options_now(const struct tg_config *cfg, const struct tg_pos *pos,
                                     tg_move *out, double *prob)
{
    switch (pos->phase) {
    case TG__DECIDE:
        return cfg->game->moves(cfg, pos, out);
    case TG__CHANCE: {
        if (!cfg->game->chance)
            return 0;
        double scratch[TG__MAX_MOVES];
        return cfg->game->chance(cfg, pos, out, prob ? prob : scratch);
    }
    default:
        return 0;
    }
}

/* The catalogue, in tg_game_id order. */
extern const struct tg_game tg__halusa;
extern const struct tg_game tg__walak_pussa;
extern const struct tg_game tg__hus;
extern const struct tg_game tg__hawalis;
extern const struct tg_game tg__tab;

#endif

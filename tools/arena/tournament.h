/* The games of a tg-arena tournament: the schedule (every pairing, every seed, both colours,
 * every rule set) and playing it in parallel threads. Public API of the library only. */
#ifndef TG_ARENA_TOURNAMENT_H
#define TG_ARENA_TOURNAMENT_H

#include <traditional-games.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Two bots (indices into the tournament's bots) and how many games they play per rule set:
 *  `games` / 2 seeds, each played twice with the colours swapped. */
struct pairing {
    size_t a, b;
    unsigned long games;
};

/** The outcome of one game, `winner` as tg_state_winner() says (0, 1, TG_DRAW, or
 *  TG_NO_WINNER_YET for a game stopped at the ply limit, counted as a draw in the fit). */
struct game {
    size_t rules, pairing; /* indices into the tournament's rule sets and pairings */
    size_t seat[2];        /* the bot of player 0 and of player 1 */
    uint64_t seed;
    unsigned long opening;  /* the first plies were random, the same for both colourings */
    unsigned long balanced; /* 0, or the opening was redrawn until balanced (tournament) */
    int winner;
    size_t plies;
    int score[2];
    char *final_position;    /* tg_state_to_string() at the end, owned */
    unsigned long moves[2];  /* decisions chosen by each seat's bot */
    double *move_seconds[2]; /* each decision's time in tg_bot_choose(), owned */
    double seconds;          /* the whole game, wall clock */
    /* A screening game (tournament_play() with `screen`): both seats are copies of the
     * screening engine; with `streams_swapped` copy A (stream 1) sits as player 1. */
    bool screening, streams_swapped;
    bool proven; /* a screening game whose opening the judge proved: not played further */
};

/** Why an opening is left out of a paired match (tournament_play() with `screen`). */
enum screen_verdict {
    SCREEN_KEPT = 0,
    SCREEN_PROVEN,   /* the balance judge proved the opening's position */
    SCREEN_SAME_SEAT /* two copies of the screening engine won it with the same seat twice */
};

/** The verdict on one opening from its two screening games (copy A as player 0, then as
 *  player 1): `proven` if the judge proved it, else the winners as tg_state_winner() gives
 *  them. A draw or an unfinished game in either keeps the opening. */
enum screen_verdict screen_verdict(bool proven, int winner_a_first, int winner_b_first);

/** The openings of one rule set, screened. */
struct screen_count {
    unsigned long seeds, proven, same_seat;
};

struct opening_cache;

struct tournament {
    size_t rule_count;
    tg_rules **rules;
    size_t play_rule_count; /* the first rule sets are played; the others only reported */
    size_t bot_count;
    const char **bots;
    size_t pairing_count;
    const struct pairing *pairings;
    uint64_t seed; /* seed index k of every pairing plays with seed + k */
    unsigned long max_plies;
    unsigned long opening; /* plies played at random at the start of every game (stream 3) */
    /* 0, or a bound in thousandths: an opening is drawn again (from the same stream) until
     * the analysis of BALANCE_SPEC values its position, for the side to move, within
     * +-balanced/1000 and not proven; both colourings of a seed draw the same ones. */
    unsigned long balanced;
    unsigned jobs;
    int progress; /* a line per finished game on standard error */
    /* NULL, or a bot spec: before the match, each seed's opening is played by two copies of
     * it with both colourings, and the seeds that are proven or won by the same seat twice
     * are left out of every pairing (removed from `games`) and counted in `screened`. */
    const char *screen;
    struct screen_count *screened; /* play_rule_count entries, filled by tournament_play() */
    uint64_t *left_out_seeds;      /* the seeds left out, their rule sets, and why */
    size_t *left_out_rules;
    enum screen_verdict *left_out_why;
    size_t left_out_count;
    /* The clock is not read: every time recorded is 0, so the JSON is a pure function of the
     * seed, the budgets and the options (node- and iteration-bounded bots only). */
    bool clockless;
    struct opening_cache *openings; /* while tournament_play() runs: each seed's opening */
    size_t game_count;
    struct game *games; /* filled by tournament_schedule(), then loaded games appended */
    size_t play_count;  /* the first games are played, the rest were read (--from) */
};

/** Lays out every game to play (rule set by rule set, pairing by pairing, seed by seed, bot
 *  `a` as player 0 first), with room for `extra` more after them. Returns 0 if out of
 *  memory. */
int tournament_schedule(struct tournament *t, size_t extra);

/** Plays the first `play_count` games with `jobs` threads. Returns TG_OK, or the first error a bot
 *  or the library reported (the message already printed). */
tg_status tournament_play(struct tournament *t);

/** Frees the games and what they own, and the screening's counts. */
void tournament_free_games(struct tournament *t);

/** The generator a game gives to chance (stream 0), to the bot of player p (stream p + 1)
 *  and to the random opening (stream 3),
 *  derived from the game's seed: the throws of both colourings of a seed are the same. */
uint64_t tournament_stream(uint64_t seed, unsigned stream);

/** The analysis that judges a balanced opening: node-bounded, so the same on every run. */
#define BALANCE_SPEC "search:nodes=200000"
/** Openings drawn at most for one balanced game; after them the most balanced one is used. */
#define BALANCE_DRAWS 200

#endif

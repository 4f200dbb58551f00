/* The games of a tg-arena tournament: the schedule (every pairing, every seed, both colours,
 * every rule set) and playing it in parallel threads. Public API of the library only. */
#ifndef TG_ARENA_TOURNAMENT_H
#define TG_ARENA_TOURNAMENT_H

#include <traditional-games.h>

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
};

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

/** Frees the games and what they own. */
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

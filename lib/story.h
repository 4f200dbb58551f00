/* The story sink: where a move's rules code writes what it does, when tg_state_story() or
 * tg_state_end_reason() plays it again. The hot path passes NULL instead of a sink, and every
 * emission point is an `if (story)` the compiler removes there. */
#ifndef TG_STORY_H
#define TG_STORY_H

#include "game.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* No value in a field of an event. */
#define TG__NA UINT32_MAX

/* A sowing of more than TG__STORY_FULL_LAPS laps is written as its first TG__STORY_HEAD laps,
 * an elision, and its last TG__STORY_TAIL laps. */
#define TG__STORY_FULL_LAPS 100u
#define TG__STORY_HEAD 60u
#define TG__STORY_TAIL 40u

struct tg__story {
    uint32_t *buf; /* NULL: count only */
    size_t cap;    /* in events */
    size_t count;  /* events of the story so far, written or not */
    /* Counting laps only (the first of the runs of a relay move): nothing else is done. */
    bool probe;
    /* The lap total of the move, learnt by the probe; 0 when unknown (nothing is elided). */
    uint64_t total_laps;
    uint64_t lap;       /* the lap the events now come from, 0 before the first */
    uint64_t sown_laps; /* laps that dropped a counter so far */
    uint32_t last_kind; /* kind of the last event reported, written or not */
    uint64_t elided_sown;
    bool elision_done;
    uint64_t laps_sown; /* set by tg__relay(): laps it sowed */
    int mover;          /* the player whose move it is */
    /* The counts as the written events leave them, kept for the mancala board to restore or
     * bring up to date with SET events (board: the live board array). */
    uint8_t shadow[TG__MAX_CELLS];
    const uint8_t *board;
    int cells;
    bool ended;     /* a GAME_END was written */
    int end_reason; /* its reason, TG_END_NONE if none */
};

/* Starts a sink for the move of `pos` on `board`, the live board array (whose cells are the
 * counts in the mancala games; in Tab nothing reads it). */
void tg__story_init(struct tg__story *story, const struct tg_config *cfg, const struct tg_pos *pos,
                    const uint8_t *board);
void tg__story_event(struct tg__story *story, uint32_t kind, uint32_t cell, uint32_t count,
                     uint32_t player);
/* A SET event for every cell whose count the written events leave different from the board. */
void tg__story_sync(struct tg__story *story);
/* An endless move: its ENDLESS event, the SET events back to the restored board, and the end
 * of the game. */
void tg__story_endless(struct tg__story *story, struct tg_pos *pos, int winner);
/* tg__finish() with its GAME_END event. */
void tg__story_finish(struct tg__story *story, struct tg_pos *pos, int winner, int reason);

static inline void tg__story_lift(struct tg__story *story, unsigned cell, unsigned count)
{
    tg__story_event(story, TG_EVENT_LIFT, cell, count, (uint32_t)story->mover);
}

/* Ends the game, with its GAME_END event when a story is told. Inline so that a NULL story
 * costs nothing. */
static inline void tg__end(struct tg__story *story, struct tg_pos *pos, int winner, int reason)
{
    if (story)
        tg__story_finish(story, pos, winner, reason);
    else
        tg__finish(pos, winner);
}

/* The same for an endless move (tg__story_endless()). */
static inline void tg__end_endless(struct tg__story *story, struct tg_pos *pos, int winner)
{
    if (story)
        tg__story_endless(story, pos, winner);
    else
        tg__finish(pos, winner);
}

/* A game's tg_game.apply and tg_game.apply_story: its one apply body `play` (TG__ALWAYS_INLINE,
 * with a story parameter) inlined into each, with a constant NULL into the first. The first is
 * always inlined too, into the game's playout loop (playout.h): clang's flatten does not reach
 * a call made through a function parameter, so it left a call a ply there. */
#define TG__APPLY_FUNCTIONS(apply, apply_story, play)                                              \
    static TG__ALWAYS_INLINE uint64_t apply(const struct tg_config *cfg, struct tg_pos *pos,       \
                                            tg_move m)                                             \
    {                                                                                              \
        return play(cfg, pos, m, NULL);                                                            \
    }                                                                                              \
    static uint64_t apply_story(const struct tg_config *cfg, struct tg_pos *pos, tg_move m,        \
                                struct tg__story *story)                                           \
    {                                                                                              \
        return play(cfg, pos, m, story);                                                           \
    }

/* Plays a move with the common rules around it, as tg__play() does, with its story. */
uint64_t tg__play_story(const struct tg_config *cfg, struct tg_pos *pos, tg_move m,
                        struct tg__story *story);

#endif

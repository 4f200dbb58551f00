/* The story sink, tg_state_story() and tg_state_end_reason(): a move of the history played
 * again on a copy by the game's own rules code, with the sink attached. */
#include "story.h"
#include "internal.h"

#include <string.h>

void tg__story_init(struct tg__story *story, const struct tg_config *cfg, const struct tg_pos *pos,
                    const uint8_t *board)
{
    memset(story, 0, sizeof *story);
    story->mover = pos->side;
    story->board = board;
    story->cells = cfg->cells;
    story->end_reason = TG_END_NONE;
    if (board)
        memcpy(story->shadow, board, (size_t)cfg->cells);
}

static uint32_t saturate(uint64_t v)
{
    return v >= UINT32_MAX - 1u ? UINT32_MAX - 1u : (uint32_t)v;
}

static void put(struct tg__story *story, uint32_t kind, uint32_t cell, uint32_t count,
                uint32_t player)
{
    if (story->buf && story->count < story->cap) {
        uint32_t *e = story->buf + story->count * TG_EVENT_FIELDS;
        e[0] = kind;
        e[1] = cell;
        e[2] = count;
        e[3] = player;
    }
    story->count++;
    if (cell == TG__NA || !story->board)
        return;
    /* The shadow follows the effect of each kind on the counts. */
    switch (kind) {
    case TG_EVENT_LIFT:
    case TG_EVENT_CAPTURE:
    case TG_EVENT_RESOW:
    case TG_EVENT_GATHER:
        story->shadow[cell] = (uint8_t)(story->shadow[cell] - count);
        break;
    case TG_EVENT_DROP:
    case TG_EVENT_FILL:
        story->shadow[cell] = (uint8_t)(story->shadow[cell] + count);
        break;
    case TG_EVENT_SET:
        story->shadow[cell] = (uint8_t)count;
        break;
    default:
        break;
    }
}

void tg__story_sync(struct tg__story *story)
{
    if (story->probe || !story->board)
        return;
    for (int c = 0; c < story->cells; c++)
        if (story->shadow[c] != story->board[c])
            put(story, TG_EVENT_SET, (uint32_t)c, story->board[c], TG__NA);
}

/* Whether lap `lap` of a sowing of `total` laps is elided. */
static bool elided(uint64_t lap, uint64_t total)
{
    return total > TG__STORY_FULL_LAPS && lap > TG__STORY_HEAD && lap + TG__STORY_TAIL <= total;
}

void tg__story_event(struct tg__story *story, uint32_t kind, uint32_t cell, uint32_t count,
                     uint32_t player)
{
    /* A lap starts with the lift (or Hus's re-sown captures) that fills the hand: the first
     * such event, or one after a drop. */
    bool fills_hand = kind == TG_EVENT_LIFT || kind == TG_EVENT_RESOW;
    if (fills_hand && (story->lap == 0 || story->last_kind == TG_EVENT_DROP))
        story->lap++;
    /* The laps counted are those that sowed: an endless move judged at the limit has lifted
     * the hand of a lap it never sowed. */
    if (kind == TG_EVENT_DROP && story->last_kind != TG_EVENT_DROP)
        story->sown_laps++;
    story->last_kind = kind;
    if (story->probe) {
        story->total_laps = story->sown_laps;
        return;
    }
    if (elided(story->lap, story->total_laps)) {
        if (kind == TG_EVENT_DROP)
            story->elided_sown += count;
        return;
    }
    if (!story->elision_done && story->lap > TG__STORY_HEAD &&
        story->total_laps > TG__STORY_FULL_LAPS) {
        /* The first event after the elided laps: what they did, before it. The lifting
         * events are reported before the board changes, so the board is as the laps left it. */
        story->elision_done = true;
        put(story, TG_EVENT_ELISION, TG__NA,
            saturate(story->total_laps - TG__STORY_HEAD - TG__STORY_TAIL), TG__NA);
        tg__story_sync(story);
        put(story, TG_EVENT_ELIDED_SOWN, TG__NA, saturate(story->elided_sown), TG__NA);
    }
    put(story, kind, cell, count, player);
}

void tg__story_ring_drop(struct tg__story *story, unsigned cell)
{
    tg__story_event(story, TG_EVENT_DROP, cell, 1, (uint32_t)story->mover);
}

void tg__story_set_laps(struct tg__story *story, uint64_t laps)
{
    story->laps_sown = laps;
}

static void game_end(struct tg__story *story, int winner, int reason)
{
    story->ended = true;
    story->end_reason = reason;
    tg__story_event(story, TG_EVENT_GAME_END, TG__NA, (uint32_t)reason,
                    winner == TG_DRAW ? TG__NA : (uint32_t)winner);
}

void tg__story_finish(struct tg__story *story, struct tg_pos *pos, int winner, int reason)
{
    tg__finish(pos, winner);
    game_end(story, winner, reason);
}

void tg__story_endless(struct tg__story *story, struct tg_pos *pos, int winner)
{
    tg__story_event(story, TG_EVENT_ENDLESS, TG__NA, saturate(story->laps_sown), TG__NA);
    tg__story_sync(story);
    tg__story_finish(story, pos, winner, TG_END_ENDLESS);
}

uint64_t tg__play_story(const struct tg_config *cfg, struct tg_pos *pos, tg_move m,
                        struct tg__story *story)
{
    int side = pos->side;
    uint64_t result = cfg->game->apply_story(cfg, pos, m, story);
    if (tg__quiet_step(cfg, pos, result)) {
        cfg->game->quiet_end(cfg, pos, story);
        /* A Walak-pussa match can end there for its own reason (a short store). */
        if (pos->phase == TG__OVER && !story->ended)
            game_end(story, pos->winner, TG_END_QUIET);
    }
    if (pos->phase != TG__OVER && pos->side != side)
        tg__story_event(story, TG_EVENT_TURN, TG__NA, TG__NA, pos->side);
    return result;
}

/* Plays history entry `u` into a sink that writes to events[0 .. cap) or only counts. Relay
 * games run the move once more first, counting its laps, so that the elided ones are known. */
static void tell(const struct tg_config *cfg, const struct tg_undo *u, struct tg__story *story,
                 uint32_t *events, size_t cap)
{
    uint64_t total = 0;
    if (cfg->game->laps_option >= 0) {
        struct tg_pos probe_pos = u->before;
        tg__story_init(story, cfg, &probe_pos, probe_pos.cell);
        story->probe = true;
        tg__play_story(cfg, &probe_pos, u->move, story);
        total = story->total_laps;
    }
    struct tg_pos pos = u->before;
    tg__story_init(story, cfg, &pos, pos.cell);
    story->total_laps = total;
    story->buf = events;
    story->cap = cap;
    tg__play_story(cfg, &pos, u->move, story);
}

tg_status tg_state_story(const tg_state *s, size_t index, uint32_t *events, size_t cap,
                         size_t *count)
{
    if (!s || !count || (!events && cap) || index >= s->history_len)
        return TG_ERR_INVALID_ARGUMENT;
    const struct tg_config *cfg = &s->rules.cfg;
    struct tg__story story;
    tell(cfg, &s->history[index], &story, NULL, 0);
    *count = story.count;
    if (!events && cap == 0)
        return TG_OK;
    if (cap < story.count)
        return TG_ERR_BUFFER_TOO_SMALL;
    tell(cfg, &s->history[index], &story, events, cap);
    return TG_OK;
}

tg_end_reason tg_state_end_reason(const tg_state *s)
{
    if (!s || s->pos.phase != TG__OVER)
        return TG_END_NONE;
    const struct tg_config *cfg = &s->rules.cfg;
    if (s->history_len) {
        /* The last entry of the history is the move that led here. */
        struct tg__story story;
        struct tg_pos pos = s->history[s->history_len - 1].before;
        tg__story_init(&story, cfg, &pos, NULL);
        story.probe = true;
        tg__play_story(cfg, &pos, s->history[s->history_len - 1].move, &story);
        if (story.ended)
            return (tg_end_reason)story.end_reason;
    }
    unsigned fit = tg__endings(cfg, &s->pos);
    if (fit && (fit & (fit - 1)) == 0)
        return (tg_end_reason)tg__lowest_bit(fit);
    return TG_END_UNKNOWN;
}

const char *tg_end_reason_name(tg_end_reason r)
{
    switch (r) {
    case TG_END_NONE:
        return "none";
    case TG_END_UNKNOWN:
        return "unknown";
    case TG_END_NO_MOVE:
        return "no-move";
    case TG_END_EMPTY_ROW:
        return "empty-row";
    case TG_END_STORE_SHORT:
        return "store-short";
    case TG_END_ALL_CAPTURED:
        return "all-captured";
    case TG_END_ALL_ACROSS:
        return "all-across";
    case TG_END_BLOCKED:
        return "blocked";
    case TG_END_QUIET:
        return "quiet";
    case TG_END_ENDLESS:
        return "endless";
    }
    return "invalid";
}

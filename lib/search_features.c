/* The features of a position for the `search` engine's fitted evaluation, per game. Each is a
 * lead (player `me`'s value less the opponent's), counted from the board alone: what the
 * rules say about the position stays in the game's own file, and these only count. */
#include "search_features.h"

#include "race/track.h"

/* Two-row games: row p is player p's. Four-row games: player 0 has rows 0 (outer) and 1
 * (inner), player 1 rows 2 (inner) and 3 (outer). */
static int inner_row(const struct tg_config *cfg, int p)
{
    return cfg->rows == 4 ? 1 + p : p;
}

struct side_counts {
    int32_t counters, empty, single, big, inner, exposed;
};

/* One player's counts over their own rows. A "big" hole holds at least as many counters as
 * a row has holes (its sowing goes round at least a row). "Exposed": the counters of an inner
 * hole and the outer hole behind it that the opponent could capture by landing on the facing
 * inner hole (Hus: both inner holes occupied; Hawalis: the opponent's facing hole empty). */
static struct side_counts count_side(const struct tg_config *cfg, const struct tg_pos *pos, int p)
{
    struct side_counts s = {0, 0, 0, 0, 0, 0};
    int w = cfg->cols, own_rows = cfg->rows / 2, first = p * own_rows * w;
    for (int cell = first; cell < first + own_rows * w; cell++) {
        int n = pos->cell[cell];
        s.counters += n;
        s.empty += n == 0;
        s.single += n == 1;
        s.big += n >= w;
    }
    int inner = inner_row(cfg, p) * w;
    for (int c = 0; c < w; c++)
        s.inner += pos->cell[inner + c];
    if (cfg->rows == 4) {
        int facing_row = inner_row(cfg, 1 - p) * w, behind_row = (p == 0 ? 0 : 3) * w;
        for (int c = 0; c < w; c++) {
            int mine = pos->cell[inner + c], theirs = pos->cell[facing_row + c];
            bool exposed = cfg->game == &tg__hus ? mine > 0 && theirs > 0 : theirs == 0;
            if (exposed)
                s.exposed += mine + pos->cell[behind_row + c];
        }
    }
    return s;
}

enum { TAB_FREED, TAB_PROGRESS, TAB_ACROSS };

/* At-Tab wa-d-Dukk, one player's pieces: freed from the home row, their progress (track
 * positions walked, a piece of a stack each), and those in the last row of the track (the
 * opponent's home row, where they are safe from nothing but out of the race). */
static void count_tab(const struct tg_config *cfg, const struct tg_pos *pos, int p, int32_t *out)
{
    const struct tg_track *track = &cfg->track[p];
    int last_row = track->len - cfg->cols;
    out[TAB_FREED] = out[TAB_PROGRESS] = out[TAB_ACROSS] = 0;
    for (int cell = 0; cell < cfg->cells; cell++) {
        if (cfg->game->owner(cfg, pos, cell) != p ||
            cfg->game->flags(cfg, pos, cell) & TG_CELL_LOCKED)
            continue;
        int32_t pieces = cfg->game->count(cfg, pos, cell);
        int at = track->at[cell];
        out[TAB_FREED] += pieces;
        if (at != TG__NOT_ON_TRACK) {
            out[TAB_PROGRESS] += pieces * at;
            out[TAB_ACROSS] += at >= last_row ? pieces : 0;
        }
    }
}

static const char *const two_row_names[] = {"score",        "counters",  "empty holes",
                                            "single holes", "big holes", NULL};
/* In Hus and Hawalis the score is the counters on one's rows: no separate "counters". */
static const char *const four_row_names[] = {
    "score", "inner row", "empty holes", "single holes", "big holes", "exposed", NULL};
static const char *const tab_names[] = {"score", "freed", "progress", "across", NULL};

static const char *const *feature_names(const struct tg_game *game)
{
    if (game == &tg__halusa || game == &tg__walak_pussa)
        return two_row_names;
    if (game == &tg__hus || game == &tg__hawalis)
        return four_row_names;
    if (game == &tg__tab)
        return tab_names;
    return NULL;
}

const char *tg__eval_feature_name(const struct tg_game *game, size_t i)
{
    const char *const *names = feature_names(game);
    for (size_t k = 0; names && names[k]; k++)
        if (k == i)
            return names[k];
    return NULL;
}

size_t tg__eval_features(const struct tg_config *cfg, const struct tg_pos *pos, int me,
                         int32_t *out)
{
    const struct tg_game *g = cfg->game;
    int32_t score = (int32_t)pos->score[me] - (int32_t)pos->score[1 - me];
    if (g == &tg__tab) {
        int32_t mine[3], theirs[3];
        count_tab(cfg, pos, me, mine);
        count_tab(cfg, pos, 1 - me, theirs);
        out[0] = score;
        for (int i = 0; i < 3; i++)
            out[1 + i] = mine[i] - theirs[i];
        return 4;
    }
    if (!feature_names(g))
        return 0;
    struct side_counts a = count_side(cfg, pos, me), b = count_side(cfg, pos, 1 - me);
    int32_t counters = a.counters - b.counters, inner = a.inner - b.inner,
            empty = a.empty - b.empty, single = a.single - b.single, big = a.big - b.big,
            exposed = a.exposed - b.exposed;
    size_t n = 0;
    out[n++] = score;
    if (cfg->rows == 4)
        out[n++] = inner;
    else
        out[n++] = counters;
    out[n++] = empty;
    out[n++] = single;
    out[n++] = big;
    if (cfg->rows == 4)
        out[n++] = exposed;
    return n;
}

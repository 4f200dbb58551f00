/* Playing a tg-arena tournament: each game from the rule set's initial position, decisions by
 * tg_bot_choose() with the bot of the player to move and that seat's own generator, chance
 * outcomes (Tab's throws) drawn by the `random` bot from a generator of the game's own, so
 * that the k-th throw of a seed is the same whichever colours the bots have. Games are
 * handed to the threads one at a time from a shared counter; the rule sets are shared (a
 * tg_rules is immutable), each game has a state of its own. */
#define _POSIX_C_SOURCE 200112L

#include "tournament.h"

#include "clock-random.h"
#include "yardstick.h"

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t tournament_stream(uint64_t seed, unsigned stream)
{
    /* One splitmix64 step from a state that differs per stream: nearby seeds and streams
     * give unrelated generators. */
    uint64_t z = seed ^ ((uint64_t)(stream + 1) * UINT64_C(0xD1B54A32D192ED03));
    return tool_splitmix64(&z);
}

int tournament_schedule(struct tournament *t, size_t extra)
{
    size_t n = 0;
    for (size_t p = 0; p < t->pairing_count; p++)
        n += t->pairings[p].games;
    n = n * t->play_rule_count + extra;
    t->games = calloc(n == 0 ? 1 : n, sizeof *t->games);
    if (t->games == NULL)
        return 0;
    t->game_count = 0;
    for (size_t r = 0; r < t->play_rule_count; r++)
        for (size_t p = 0; p < t->pairing_count; p++)
            for (unsigned long k = 0; k < t->pairings[p].games; k++) {
                struct game *g = &t->games[t->game_count++];
                int swap = (int)(k % 2);
                g->rules = r;
                g->pairing = p;
                g->seat[0] = swap ? t->pairings[p].b : t->pairings[p].a;
                g->seat[1] = swap ? t->pairings[p].a : t->pairings[p].b;
                g->seed = t->seed + k / 2;
                g->opening = t->opening;
                g->balanced = t->balanced;
                g->winner = TG_NO_WINNER_YET;
            }
    t->play_count = t->game_count;
    return 1;
}

static void free_game(struct game *g)
{
    free(g->final_position);
    free(g->move_seconds[0]);
    free(g->move_seconds[1]);
}

void tournament_free_games(struct tournament *t)
{
    for (size_t i = 0; i < t->game_count; i++)
        free_game(&t->games[i]);
    free(t->games);
    free(t->screened);
    free(t->left_out_seeds);
    free(t->left_out_rules);
    free(t->left_out_why);
    t->left_out_rules = NULL;
    t->screened = NULL;
    t->left_out_seeds = NULL;
    t->left_out_why = NULL;
    t->left_out_count = 0;
    t->games = NULL;
    t->game_count = 0;
}

struct shared {
    struct tournament *t;
    struct game *games; /* the games to play: the match's, or the screening's */
    size_t count;
    pthread_mutex_t lock;
    size_t next, finished;
    tg_status error;
};

static tg_status record_time(struct game *g, int p, size_t *cap, double seconds)
{
    if (g->moves[p] == cap[p]) {
        size_t want = cap[p] == 0 ? 64 : 2 * cap[p];
        double *grown = realloc(g->move_seconds[p], want * sizeof *grown);
        if (grown == NULL)
            return TG_ERR_NO_MEMORY;
        g->move_seconds[p] = grown;
        cap[p] = want;
    }
    g->move_seconds[p][g->moves[p]++] = seconds;
    return TG_OK;
}

static char *position_string(const tg_state *s)
{
    size_t needed = 0;
    if (tg_state_to_string(s, NULL, 0, &needed) != TG_OK)
        return NULL;
    char *buf = malloc(needed + 1);
    if (buf != NULL && tg_state_to_string(s, buf, needed + 1, NULL) != TG_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* How far from balanced the position is for the side to move: |value| of the best move in
 * thousandths, or 1000 for a proven value or a finished game. */
static tg_status imbalance(tg_search *judge, const tg_state *s, unsigned long *out)
{
    *out = 1000;
    if (tg_state_is_terminal(s))
        return TG_OK;
    uint64_t rng = 0;
    tg_status st = tg_search_analyse(judge, s, &rng);
    double v = 0.0;
    bool proven = true;
    if (st == TG_OK)
        st = tg_search_result(judge, 0, NULL, &v, &proven);
    if (st == TG_OK && !proven)
        *out = (unsigned long)(1000.0 * (v < 0 ? -v : v));
    return st;
}

/* The random opening: g->opening plies from the stream; with g->balanced, drawn again from
 * the start until its position is balanced (or, after BALANCE_DRAWS, the most balanced).
 * `known`, if not NULL, is the stream state an earlier game of this seed drew the opening
 * from: it is replayed without the judge. `*drawn_from` receives that state. */
static tg_status play_opening(struct game *g, tg_state *s, uint64_t *opening, uint64_t *chance,
                              const uint64_t *known, uint64_t *drawn_from)
{
    uint64_t chance0 = *chance;
    tg_search *judge = NULL;
    unsigned long balanced = known != NULL ? 0 : g->balanced;
    if (known != NULL)
        *opening = *known;
    tg_status st = balanced ? tg_search_new(BALANCE_SPEC, &judge) : TG_OK;
    uint64_t best_state = *opening;
    unsigned long best = ULONG_MAX;
    for (unsigned draw = 0; st == TG_OK && draw < (balanced ? BALANCE_DRAWS + 1 : 1); draw++) {
        int last = !balanced || draw == BALANCE_DRAWS;
        if (last && balanced)
            *opening = best_state; /* replay the most balanced draw */
        *drawn_from = *opening;
        *chance = chance0;
        while (tg_state_undo(s) == TG_OK)
            continue;
        while (st == TG_OK && !tg_state_is_terminal(s) && tg_state_ply(s) < g->opening) {
            tg_move m = 0;
            int chance_state = tg_state_player(s) == TG_CHANCE;
            st = tg_bot_choose(s, "random", chance_state ? chance : opening, &m);
            if (st == TG_OK)
                st = tg_state_apply(s, m);
        }
        if (st != TG_OK || last)
            break;
        unsigned long off;
        st = imbalance(judge, s, &off);
        if (st == TG_OK && off <= balanced)
            break;
        if (st == TG_OK && off < best) {
            best = off;
            best_state = *drawn_from;
        }
    }
    tg_search_free(judge);
    return st;
}

/* The openings drawn so far, one slot per played rule set and seed: a balanced opening costs
 * the judge up to BALANCE_DRAWS analyses, and every game of a seed (every pairing, both
 * colourings, the screening) plays the same one. */
struct opening_cache {
    pthread_mutex_t lock;
    size_t seeds;      /* slots per rule set */
    uint64_t *from;    /* the stream state the opening was drawn from */
    unsigned char *known;
};

static size_t cache_slot(const struct tournament *t, const struct game *g)
{
    const struct opening_cache *c = t->openings;
    if (c == NULL || g->rules >= t->play_rule_count || g->seed < t->seed ||
        g->seed - t->seed >= c->seeds)
        return SIZE_MAX;
    return g->rules * c->seeds + (size_t)(g->seed - t->seed);
}

/* The opening of game g, drawn once per seed and then replayed from the cache. */
static tg_status cached_opening(const struct tournament *t, struct game *g, tg_state *s,
                                uint64_t *opening, uint64_t *chance)
{
    struct opening_cache *c = t->openings;
    size_t i = cache_slot(t, g);
    uint64_t known = 0, drawn_from = 0;
    int have = 0;
    if (i != SIZE_MAX) {
        pthread_mutex_lock(&c->lock);
        have = c->known[i];
        known = c->from[i];
        pthread_mutex_unlock(&c->lock);
    }
    tg_status st = play_opening(g, s, opening, chance, have ? &known : NULL, &drawn_from);
    if (st == TG_OK && i != SIZE_MAX && !have) {
        pthread_mutex_lock(&c->lock);
        c->from[i] = drawn_from;
        c->known[i] = 1;
        pthread_mutex_unlock(&c->lock);
    }
    return st;
}

/* A decision by the library's bot of that spec, or by the arena's own yardstick. */
static tg_status choose(const tg_state *s, const char *bot, uint64_t *rng, tg_move *m)
{
    uint64_t nodes = 0;
    if (!yardstick_named(bot))
        return tg_bot_choose(s, bot, rng, m);
    tg_status st = yardstick_parse(bot, &nodes);
    return st == TG_OK ? yardstick_choose(s, nodes, m) : st;
}

/* The spec of the bot that plays for `player` in game g. */
static const char *seat_bot(const struct tournament *t, const struct game *g, int player)
{
    return g->screening ? t->screen : t->bots[g->seat[player]];
}

/* A screening game stops after its opening when the judge proves that position. */
static tg_status judge_screened(struct game *g, const tg_state *s)
{
    tg_search *judge = NULL;
    tg_status st = tg_search_new(BALANCE_SPEC, &judge);
    unsigned long off = 0;
    if (st == TG_OK)
        st = imbalance(judge, s, &off);
    tg_search_free(judge);
    g->proven = st == TG_OK && off >= 1000;
    return st;
}

static tg_status play_moves(const struct tournament *t, struct game *g, tg_state *s)
{
    uint64_t chance = tournament_stream(g->seed, 0);
    /* A screening game's copies keep their streams when the colours swap, so that its two
     * colourings are two different games even for a bot of one spec. */
    unsigned first = g->streams_swapped ? 2 : 1;
    uint64_t rng[2] = {tournament_stream(g->seed, first), tournament_stream(g->seed, 3 - first)};
    uint64_t opening = tournament_stream(g->seed, 3);
    size_t cap[2] = {0, 0};
    double start = t->clockless ? 0.0 : tool_seconds();
    /* A deterministic game from one start would be played over and over by two
     * deterministic bots: a random opening, the same for both colourings of the seed, makes
     * each seed a different game. Throws in it come from the chance stream, as later. */
    tg_status st = cached_opening(t, g, s, &opening, &chance);
    if (st == TG_OK && g->screening)
        st = judge_screened(g, s);
    if (st != TG_OK)
        return st;
    while (!g->proven && !tg_state_is_terminal(s) &&
           (t->max_plies == 0 || tg_state_ply(s) < t->max_plies)) {
        int player = tg_state_player(s);
        tg_move m = 0;
        if (player == TG_CHANCE) {
            st = tg_bot_choose(s, "random", &chance, &m);
        } else {
            double before = t->clockless ? 0.0 : tool_seconds();
            st = choose(s, seat_bot(t, g, player), &rng[player], &m);
            if (st == TG_OK)
                st = record_time(g, player, cap, t->clockless ? 0.0 : tool_seconds() - before);
        }
        if (st == TG_OK)
            st = tg_state_apply(s, m);
        if (st != TG_OK)
            return st;
    }
    g->seconds = t->clockless ? 0.0 : tool_seconds() - start;
    g->winner = tg_state_winner(s);
    g->plies = tg_state_ply(s);
    g->score[0] = tg_state_score(s, 0);
    g->score[1] = tg_state_score(s, 1);
    g->final_position = position_string(s);
    return g->final_position == NULL ? TG_ERR_NO_MEMORY : TG_OK;
}

/* A game from the initial position in a state of its own (a state per game: a tg_state can
 * only be reset to a position of its own rule set, and a tournament may have several). */
static tg_status play_game(const struct tournament *t, struct game *g)
{
    tg_state *s = NULL;
    tg_status st = tg_state_new(t->rules[g->rules], &s);
    if (st == TG_OK)
        st = play_moves(t, g, s);
    tg_state_free(s);
    return st;
}

static const char *result_text(int winner)
{
    return winner == 0 ? "1-0" : winner == 1 ? "0-1" : winner == TG_DRAW ? "1/2-1/2" : "*";
}

static void *worker(void *arg)
{
    struct shared *sh = arg;
    struct tournament *t = sh->t;
    tg_status st = TG_OK;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        if (st != TG_OK && sh->error == TG_OK)
            sh->error = st;
        size_t i = sh->next;
        int stop = sh->error != TG_OK || i >= sh->count;
        if (!stop)
            sh->next++;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        struct game *g = &sh->games[i];
        st = play_game(t, g);
        pthread_mutex_lock(&sh->lock);
        sh->finished++;
        if (st != TG_OK) {
            fprintf(stderr, "tg-arena: game %zu (%s, seed %" PRIu64 ", %s against %s): %s\n", i + 1,
                    tg_rules_spec(t->rules[g->rules]), g->seed, seat_bot(t, g, 0),
                    seat_bot(t, g, 1), tg_status_string(st));
        } else if (t->progress) {
            fprintf(stderr, "[%zu/%zu] %s seed %" PRIu64 ": %s - %s %s, %zu plies, %.1f s\n",
                    sh->finished, sh->count, tg_rules_spec(t->rules[g->rules]), g->seed,
                    seat_bot(t, g, 0), seat_bot(t, g, 1), result_text(g->winner), g->plies,
                    g->seconds);
            fflush(stderr);
        }
        pthread_mutex_unlock(&sh->lock);
    }
    return NULL;
}

/* Plays `count` games with the tournament's threads. */
static tg_status play_all(struct tournament *t, struct game *games, size_t count)
{
    struct shared sh = {.t = t, .games = games, .count = count, .error = TG_OK};
    if (pthread_mutex_init(&sh.lock, NULL) != 0)
        return TG_ERR_NO_MEMORY;
    unsigned jobs = t->jobs == 0 ? 1 : t->jobs;
    pthread_t *threads = calloc(jobs, sizeof *threads);
    unsigned started = 0;
    if (threads != NULL)
        for (; started < jobs; started++)
            if (pthread_create(&threads[started], NULL, worker, &sh) != 0)
                break;
    if (started == 0)
        worker(&sh);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    pthread_mutex_destroy(&sh.lock);
    return sh.error;
}

enum screen_verdict screen_verdict(bool proven, int winner_a_first, int winner_b_first)
{
    if (proven)
        return SCREEN_PROVEN;
    if ((winner_a_first == 0 || winner_a_first == 1) && winner_a_first == winner_b_first)
        return SCREEN_SAME_SEAT;
    return SCREEN_KEPT;
}

/* The seeds every pairing plays: seed + k for k below the largest pairing's seeds. */
static unsigned long seeds_per_rules(const struct tournament *t)
{
    unsigned long most = 0;
    for (size_t p = 0; p < t->pairing_count; p++)
        if (t->pairings[p].games / 2 > most)
            most = t->pairings[p].games / 2;
    return most;
}

/* Plays the screening games (two a seed and rule set), records the verdicts and removes the
 * left-out seeds' games from the schedule (the games read from files stay). */
static tg_status screen_openings(struct tournament *t)
{
    unsigned long seeds = seeds_per_rules(t);
    size_t count = t->play_rule_count * seeds * 2;
    struct game *screen = calloc(count == 0 ? 1 : count, sizeof *screen);
    t->screened = calloc(t->play_rule_count == 0 ? 1 : t->play_rule_count, sizeof *t->screened);
    t->left_out_seeds = calloc(count / 2 + 1, sizeof *t->left_out_seeds);
    t->left_out_rules = calloc(count / 2 + 1, sizeof *t->left_out_rules);
    t->left_out_why = calloc(count / 2 + 1, sizeof *t->left_out_why);
    enum screen_verdict *verdict = calloc(count / 2 + 1, sizeof *verdict);
    tg_status st = TG_ERR_NO_MEMORY;
    if (screen != NULL && t->screened != NULL && t->left_out_seeds != NULL &&
        t->left_out_rules != NULL && t->left_out_why != NULL && verdict != NULL) {
        for (size_t i = 0; i < count; i++)
            screen[i] = (struct game){.rules = i / (2 * seeds),
                                      .seed = t->seed + (i / 2) % seeds,
                                      .opening = t->opening,
                                      .balanced = t->balanced,
                                      .winner = TG_NO_WINNER_YET,
                                      .screening = true,
                                      .streams_swapped = i % 2 == 1};
        st = play_all(t, screen, count);
    }
    if (st == TG_OK) {
        for (size_t k = 0; k < count / 2; k++) {
            const struct game *a = &screen[2 * k], *b = &screen[2 * k + 1];
            struct screen_count *c = &t->screened[a->rules];
            verdict[k] = screen_verdict(a->proven, a->winner, b->winner);
            c->seeds++;
            c->proven += verdict[k] == SCREEN_PROVEN;
            c->same_seat += verdict[k] == SCREEN_SAME_SEAT;
            if (verdict[k] != SCREEN_KEPT) {
                t->left_out_seeds[t->left_out_count] = a->seed;
                t->left_out_rules[t->left_out_count] = a->rules;
                t->left_out_why[t->left_out_count++] = verdict[k];
            }
        }
        size_t kept = 0, kept_played = 0;
        for (size_t i = 0; i < t->game_count; i++) {
            struct game *g = &t->games[i];
            int played = i < t->play_count;
            if (played && verdict[g->rules * seeds + (g->seed - t->seed)] != SCREEN_KEPT)
                continue; /* an unplayed game owns nothing */
            t->games[kept++] = *g;
            kept_played += played;
        }
        t->game_count = kept;
        t->play_count = kept_played;
    }
    for (size_t i = 0; screen != NULL && i < count; i++)
        free_game(&screen[i]);
    free(screen);
    free(verdict);
    return st;
}

tg_status tournament_play(struct tournament *t)
{
    struct opening_cache cache = {.seeds = seeds_per_rules(t)};
    size_t slots = t->play_rule_count * cache.seeds;
    cache.from = calloc(slots == 0 ? 1 : slots, sizeof *cache.from);
    cache.known = calloc(slots == 0 ? 1 : slots, sizeof *cache.known);
    tg_status st = TG_ERR_NO_MEMORY;
    if (cache.from != NULL && cache.known != NULL && pthread_mutex_init(&cache.lock, NULL) == 0) {
        t->openings = &cache;
        st = t->screen != NULL ? screen_openings(t) : TG_OK;
        if (st == TG_OK)
            st = play_all(t, t->games, t->play_count);
        t->openings = NULL;
        pthread_mutex_destroy(&cache.lock);
    }
    free(cache.from);
    free(cache.known);
    return st;
}

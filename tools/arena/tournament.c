/* Playing a tg-arena tournament: each game from the rule set's initial position, decisions by
 * tg_bot_choose() with the bot of the player to move and that seat's own generator, chance
 * outcomes (Tab's throws) drawn by the `random` bot from a generator of the game's own, so
 * that the k-th throw of a seed is the same whichever colours the bots have. Games are
 * handed to the threads one at a time from a shared counter; the rule sets are shared (a
 * tg_rules is immutable), each game has a state of its own. */
#define _POSIX_C_SOURCE 200112L

#include "tournament.h"

#include "clock-random.h"

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

void tournament_free_games(struct tournament *t)
{
    for (size_t i = 0; i < t->game_count; i++) {
        free(t->games[i].final_position);
        free(t->games[i].move_seconds[0]);
        free(t->games[i].move_seconds[1]);
    }
    free(t->games);
    t->games = NULL;
    t->game_count = 0;
}

struct shared {
    struct tournament *t;
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
 * the start until its position is balanced (or, after BALANCE_DRAWS, the most balanced). */
static tg_status play_opening(struct game *g, tg_state *s, uint64_t *opening, uint64_t *chance)
{
    uint64_t chance0 = *chance;
    tg_search *judge = NULL;
    tg_status st = g->balanced ? tg_search_new(BALANCE_SPEC, &judge) : TG_OK;
    uint64_t best_state = *opening;
    unsigned long best = ULONG_MAX;
    for (unsigned draw = 0; st == TG_OK && draw < (g->balanced ? BALANCE_DRAWS + 1 : 1); draw++) {
        int last = !g->balanced || draw == BALANCE_DRAWS;
        if (last && g->balanced)
            *opening = best_state; /* replay the most balanced draw */
        uint64_t drawn_from = *opening;
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
        if (st == TG_OK && off <= g->balanced)
            break;
        if (st == TG_OK && off < best) {
            best = off;
            best_state = drawn_from;
        }
    }
    tg_search_free(judge);
    return st;
}

static tg_status play_moves(const struct tournament *t, struct game *g, tg_state *s)
{
    uint64_t chance = tournament_stream(g->seed, 0);
    uint64_t rng[2] = {tournament_stream(g->seed, 1), tournament_stream(g->seed, 2)};
    uint64_t opening = tournament_stream(g->seed, 3);
    size_t cap[2] = {0, 0};
    double start = tool_seconds();
    /* A deterministic game from one start would be played over and over by two
     * deterministic bots: a random opening, the same for both colourings of the seed, makes
     * each seed a different game. Throws in it come from the chance stream, as later. */
    tg_status st = play_opening(g, s, &opening, &chance);
    if (st != TG_OK)
        return st;
    while (!tg_state_is_terminal(s) && (t->max_plies == 0 || tg_state_ply(s) < t->max_plies)) {
        int player = tg_state_player(s);
        tg_move m = 0;
        if (player == TG_CHANCE) {
            st = tg_bot_choose(s, "random", &chance, &m);
        } else {
            const char *bot = t->bots[g->seat[player]];
            double before = tool_seconds();
            st = tg_bot_choose(s, bot, &rng[player], &m);
            if (st == TG_OK)
                st = record_time(g, player, cap, tool_seconds() - before);
        }
        if (st == TG_OK)
            st = tg_state_apply(s, m);
        if (st != TG_OK)
            return st;
    }
    g->seconds = tool_seconds() - start;
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
        int stop = sh->error != TG_OK || i >= t->play_count;
        if (!stop)
            sh->next++;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        struct game *g = &t->games[i];
        st = play_game(t, g);
        pthread_mutex_lock(&sh->lock);
        sh->finished++;
        if (st != TG_OK) {
            fprintf(stderr, "tg-arena: game %zu (%s, seed %" PRIu64 ", %s against %s): %s\n", i + 1,
                    tg_rules_spec(t->rules[g->rules]), g->seed, t->bots[g->seat[0]],
                    t->bots[g->seat[1]], tg_status_string(st));
        } else if (t->progress) {
            fprintf(stderr, "[%zu/%zu] %s seed %" PRIu64 ": %s - %s %s, %zu plies, %.1f s\n",
                    sh->finished, t->play_count, tg_rules_spec(t->rules[g->rules]), g->seed,
                    t->bots[g->seat[0]], t->bots[g->seat[1]], result_text(g->winner), g->plies,
                    g->seconds);
            fflush(stderr);
        }
        pthread_mutex_unlock(&sh->lock);
    }
    return NULL;
}

tg_status tournament_play(struct tournament *t)
{
    struct shared sh = {.t = t, .next = 0, .finished = 0, .error = TG_OK};
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

/* Rated games (docs/server.md, "Rated games"): a rated match's clock category, its seats'
 * accounts and rated_matches row written with the match, and both players' Glicko-2 ratings
 * updated from its result in the change that stores the result. The update is claimed on the
 * match's rated_matches row (store_claim_rated), so it happens once whichever server decides
 * the result and however often the result's change is tried; and `player NAME` (and
 * `whoami`) show an account's ratings. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "glicko2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATINGS_SHOWN 64 /* (game, category) pairs one reply lists: every reply stays small */

const char *clock_category(const struct stored_clock *clock)
{
    if (clock->days)
        return "correspondence";
    /* The estimated length of one side's game: the base and 40 moves' increments. */
    int64_t estimate_ms = clock->base_ms + 40 * clock->increment_ms;
    if (estimate_ms < 180000)
        return "bullet";
    if (estimate_ms < 480000)
        return "blitz";
    if (estimate_ms < 1500000)
        return "rapid";
    return "classical";
}

bool ratings_stage_new(struct store *st, const struct change *ch)
{
    const struct match *m = ch->match;
    for (int seat = 0; seat < 2; seat++)
        if (ch->seat_accounts[seat] &&
            !store_set_seat_account(st, m->id, seat, ch->seat_accounts[seat]))
            return false;
    return !ch->rated || store_mark_rated(st, m->id, tg_rules_game_id(m->rules->rules),
                                          clock_category(&ch->clock.kept));
}

/* The score of seat 0 (1, 0.5, 0) if the change ends the match with a result; -1 if not. */
static double score_of_seat_0(const struct change *ch)
{
    int winner;
    switch (ch->kind) {
    case CH_NEW:
    case CH_JOIN:
    case CH_MOVES:
        if (!ch->state || !tg_state_is_terminal(ch->state))
            return -1;
        winner = tg_state_winner(ch->state);
        break;
    case CH_RESIGN:
    case CH_FLAG:
        winner = 1 - ch->seat;
        break;
    case CH_DRAW:
        return 0.5;
    default:
        return -1;
    }
    return winner == 0 ? 1.0 : winner == 1 ? 0.0 : 0.5;
}

bool ratings_stage_result(struct store *st, const struct change *ch, uint64_t id)
{
    double score0 = score_of_seat_0(ch);
    if (score0 < 0)
        return true;
    uint64_t accounts[2];
    struct stored_rating before[2];
    switch (store_claim_rated(st, id, before[0].game, before[0].category)) {
    case RATED_NO: /* casual, or rated already (by another server, or before a restart) */
        return true;
    case RATED_FAILED:
        return false;
    case RATED_YES:
        break;
    }
    if (!store_seat_accounts(st, id, accounts))
        return false;
    if (!accounts[0] || !accounts[1])
        return true; /* a seat's account was never recorded: nobody to rate against */
    before[1] = before[0];
    for (int seat = 0; seat < 2; seat++) {
        enum rated_result had = store_get_rating(st, accounts[seat], &before[seat]);
        if (had == RATED_FAILED)
            return false;
        if (had == RATED_NO) {
            struct glicko2_rating start = glicko2_start();
            before[seat].rating = start.rating;
            before[seat].rd = start.rd;
            before[seat].volatility = start.volatility;
            before[seat].games = 0;
        }
    }
    /* One game is the rating period: each against the other as they were before it. */
    for (int seat = 0; seat < 2; seat++) {
        const struct stored_rating *me = &before[seat], *other = &before[1 - seat];
        struct glicko2_rating r = {me->rating, me->rd, me->volatility};
        struct glicko2_game game = {other->rating, other->rd, seat == 0 ? score0 : 1.0 - score0};
        if (!glicko2_update(&r, &game, 1, GLICKO2_TAU, true))
            return false;
        struct stored_rating after = *me;
        after.rating = r.rating;
        after.rd = r.rd;
        after.volatility = r.volatility;
        after.games = me->games + 1;
        if (!store_put_rating(st, accounts[seat], &after, id))
            return false;
    }
    return true;
}

enum rated_result match_rated(struct server *sv, const struct match *m)
{
    char game[RATED_GAME_MAX], category[RATED_CATEGORY_MAX];
    return store_find_rated(sv->store, m->id, game, category, NULL);
}

static void describe_one(const struct stored_rating *r, void *ctx)
{
    struct glicko2_rating g = {r->rating, r->rd, r->volatility};
    buf_printf(ctx, " %s/%s=%.2f%s,rd=%.2f,games=%" PRIu64, r->game, r->category, r->rating,
               glicko2_is_provisional(&g) ? "?" : "", r->rd, r->games);
}

bool ratings_describe(struct server *sv, uint64_t account_id, struct buf *out)
{
    return store_each_rating(sv->store, account_id, RATINGS_SHOWN, describe_one, out);
}

void cmd_player(struct server *sv, struct client *c, const char *name)
{
    struct stored_account a;
    if (!find_player(sv, c, name, &a))
        return;
    struct buf line = {0};
    buf_printf(&line, "ok %s", a.name);
    if (!ratings_describe(sv, a.id, &line)) {
        free(line.data);
        reply_error(c, "io", "the ratings could not be read (%s)", store_error(sv->store));
        return;
    }
    buf_printf(&line, "\n");
    buf_append(&c->out, line.data, line.len);
    free(line.data);
}

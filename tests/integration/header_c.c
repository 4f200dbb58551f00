/* The public header compiles on its own as C11 under -Wall -Wextra -Wpedantic -Werror: it is
 * the first and only include, so everything it uses must come from its own includes. */
#include <traditional-games.h>

/* Every type, constant and macro of the contract is usable with nothing else included. */
static const tg_status statuses[] = {
    TG_OK, TG_ERR_INVALID_ARGUMENT, TG_ERR_NO_MEMORY, TG_ERR_UNKNOWN_GAME, TG_ERR_BAD_OPTION,
    TG_ERR_ILLEGAL_MOVE, TG_ERR_PARSE, TG_ERR_BUFFER_TOO_SMALL, TG_ERR_NO_HISTORY,
    TG_ERR_GAME_OVER, TG_ERR_RULES_MISMATCH, TG_ERR_BUSY,
};

_Static_assert(sizeof(tg_move) == 4, "tg_move is 32 bits");
_Static_assert(TG_VERSION_NUMBER ==
                   TG_VERSION_MAJOR * 10000 + TG_VERSION_MINOR * 100 + TG_VERSION_PATCH,
               "version arithmetic");
_Static_assert(TG_PLAYER_0 == 0 && TG_PLAYER_1 == 1 && TG_CHANCE == -1 && TG_TERMINAL == -2,
               "player constants");
_Static_assert(TG_DRAW == -3 && TG_NO_WINNER_YET == -4, "result constants");
_Static_assert(TG_MOVE_PASS == 0xFFFFFFFEu, "pass move");
_Static_assert((TG_CELL_LOCKED & TG_CELL_DEAD) == 0, "distinct flag bits");

int main(void)
{
    tg_rules *rules = NULL;
    tg_state *state = NULL;
    size_t n = sizeof statuses / sizeof statuses[0];
    bool ok = tg_version() == TG_VERSION_NUMBER && tg_version_string() != NULL;
    for (size_t i = 0; i < n; i++)
        ok = ok && statuses[i] == (tg_status)i && tg_status_string(statuses[i]) != NULL;
    ok = ok && tg_rules_new("halusa", &rules) == TG_OK && tg_state_new(rules, &state) == TG_OK;
    uint64_t rng = 1;
    ok = ok && tg_state_playout(state, &rng, 1000, NULL) == TG_OK && tg_state_is_terminal(state);
    tg_state_free(state);
    tg_rules_free(rules);
    return ok ? 0 : 1;
}

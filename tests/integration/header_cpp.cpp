// The public header compiles as C++ (its extern "C" guard) under -Wall -Wextra -Wpedantic
// -Werror, and a C++ program links against the C library and calls it.
#include <traditional-games.h>

static_assert(TG_VERSION_NUMBER ==
                  TG_VERSION_MAJOR * 10000 + TG_VERSION_MINOR * 100 + TG_VERSION_PATCH,
              "version arithmetic");
static_assert(sizeof(tg_move) == 4, "tg_move is 32 bits");

int main()
{
    tg_rules *rules = nullptr;
    tg_state *state = nullptr;
    bool ok = tg_version() == TG_VERSION_NUMBER && tg_version_string() != nullptr;
    tg_status st = tg_rules_new("halusa", &rules);
    ok = ok && st == TG_OK && tg_status_string(st) != nullptr;
    ok = ok && tg_state_new(rules, &state) == TG_OK;
    tg_move moves[64];
    size_t count = 0;
    ok = ok && tg_state_moves(state, moves, sizeof moves / sizeof moves[0], &count) == TG_OK &&
         count > 0 && tg_state_apply(state, moves[0]) == TG_OK;
    tg_state_free(state);
    tg_rules_free(rules);
    return ok ? 0 : 1;
}

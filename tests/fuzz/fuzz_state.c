/* Fuzz target: position strings. The first byte picks a game (default options) when even;
 * when odd, the rule set is the one the text's own spec names, so every option set is reached.
 * The rest is the text. A position that parses must write back to a string that parses to an equal
 * state, and must be playable. */
#include <traditional-games.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    tg_rules *r = NULL;
    if (data[0] & 1) {
        char *space = strchr(text, ' ');
        if (space)
            *space = '\0';
        tg_status st = tg_rules_new(text, &r);
        if (space)
            *space = ' ';
        if (st != TG_OK) {
            free(text);
            return 0;
        }
    } else if (tg_rules_new(tg_game_id((size_t)(data[0] >> 1) % tg_game_count()), &r) != TG_OK) {
        abort();
    }

    tg_state *s = NULL;
    if (tg_state_from_string(r, text, &s) == TG_OK) {
        size_t needed = 0;
        tg_state_to_string(s, NULL, 0, &needed);
        char *back = malloc(needed + 1);
        tg_state *t = NULL;
        if (!back || tg_state_to_string(s, back, needed + 1, NULL) != TG_OK ||
            tg_state_from_string(r, back, &t) != TG_OK || !tg_state_equal(s, t) ||
            tg_state_hash(s) != tg_state_hash(t))
            abort();
        uint64_t rng = 1;
        while (!tg_state_is_terminal(s))
            if (tg_state_apply_random(s, &rng) != TG_OK)
                abort();
        tg_state_free(t);
        free(back);
    }
    tg_state_free(s);
    free(text);
    tg_rules_free(r);
    return 0;
}

/* Fuzz target: the rule-spec and bot-spec parsers. Any byte string must give a status, never a
 * crash. */
#include <traditional-games.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    tg_rules *r = NULL;
    if (tg_rules_new(spec, &r) == TG_OK) {
        /* A canonical spec must parse again to the same canonical spec. */
        tg_rules *again = NULL;
        if (tg_rules_new(tg_rules_spec(r), &again) != TG_OK ||
            strcmp(tg_rules_spec(r), tg_rules_spec(again)) != 0)
            abort();
        tg_rules_free(again);
    }
    tg_rules_free(r);
    tg_status bot = tg_bot_check(spec);
    if (bot != TG_OK && bot != TG_ERR_BAD_OPTION)
        abort();
    free(spec);
    return 0;
}

/* Fuzz target: game records. The input is the text of a record. One that reads must write
 * back to a record that reads to an equal state with the same history, and every move of it
 * must tell a story. */
#include <traditional-games.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *record_of(const tg_state *s)
{
    size_t needed = 0;
    if (tg_state_record(s, "[Fuzz \"1\"]", NULL, 0, &needed) != TG_OK)
        abort();
    char *text = malloc(needed + 1);
    if (!text || tg_state_record(s, "[Fuzz \"1\"]", text, needed + 1, NULL) != TG_OK)
        abort();
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    tg_state *s = NULL;
    if (tg_state_from_record(text, &s) == TG_OK) {
        char *back = record_of(s);
        tg_state *t = NULL;
        size_t n = 0, m = 0;
        if (tg_state_from_record(back, &t) != TG_OK || !tg_state_equal(s, t) ||
            tg_state_history(s, NULL, 0, &n) != TG_OK ||
            tg_state_history(t, NULL, 0, &m) != TG_OK || n != m ||
            tg_state_end_reason(s) != tg_state_end_reason(t))
            abort();
        for (size_t i = 0; i < n; i++) {
            size_t count = 0;
            if (tg_state_story(s, i, NULL, 0, &count) != TG_OK || count == 0)
                abort();
        }
        tg_state_free(t);
        free(back);
    }
    tg_state_free(s);
    free(text);
    return 0;
}

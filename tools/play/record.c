/* tg-play's game records: the library writes and reads them (tg_state_record(),
 * tg_state_from_record()); this file adds the tags tg-play knows, the files, and a listing of
 * a loaded game's moves with what each did. */
#define _POSIX_C_SOURCE 200112L

#include "record.h"

#include "describe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A tag value as the record's tag pairs quote it: `"` and `\` escaped. */
static void quote_into(char *buf, size_t cap, const char *value)
{
    size_t k = 0;
    for (; *value != '\0' && k + 3 < cap; value++) {
        if (*value == '"' || *value == '\\')
            buf[k++] = '\\';
        buf[k++] = *value;
    }
    buf[k] = '\0';
}

int record_save(const tg_state *s, const char *path, const char *const bot[2], int human,
                uint64_t seed)
{
    char south[256], north[256], date[16] = "????.??.??", tags[700];
    quote_into(south, sizeof south, human == 0 ? "person" : bot[0]);
    quote_into(north, sizeof north, human == 1 ? "person" : bot[1]);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(date, sizeof date, "%Y.%m.%d", &tm);
    snprintf(tags, sizeof tags,
             "[South \"%s\"]\n[North \"%s\"]\n[Date \"%s\"]\n[Seed \"%" PRIu64 "\"]\n", south,
             north, date, seed);
    size_t needed = 0;
    tg_status st = tg_state_record(s, tags, NULL, 0, &needed);
    char *text = st == TG_OK ? malloc(needed + 1) : NULL;
    if (st == TG_OK && text == NULL)
        st = TG_ERR_NO_MEMORY;
    if (st == TG_OK)
        st = tg_state_record(s, tags, text, needed + 1, NULL);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: cannot write the game's record: %s\n", tg_status_string(st));
        free(text);
        return 0;
    }
    FILE *f = fopen(path, "w");
    int ok = f != NULL && fputs(text, f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "tg-play: cannot write '%s': %s\n", path, strerror(errno));
    else
        printf("record saved to %s\n", path);
    free(text);
    return ok;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len + 1 < cap || feof(f) || ferror(f))
            break;
        char *grown = realloc(buf, 2 * cap);
        if (grown == NULL)
            free(buf);
        buf = grown;
        cap *= 2;
    }
    if (buf != NULL && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

int record_load(const char *path, tg_state **out)
{
    char *text = read_file(path);
    if (text == NULL) {
        fprintf(stderr, "tg-play: cannot read '%s': %s\n", path, strerror(errno));
        return 0;
    }
    tg_status st = strlen(text) == 0 ? TG_ERR_PARSE : tg_state_from_record(text, out);
    free(text);
    if (st != TG_OK) {
        fprintf(stderr, "tg-play: '%s' is not a game record tg-play can load: %s\n", path,
                tg_status_string(st));
        return 0;
    }
    return 1;
}

int record_print_moves(const tg_state *s)
{
    size_t count = 0;
    tg_move *h = NULL;
    tg_state *replay = NULL;
    int ok = tg_state_history(s, NULL, 0, &count) == TG_OK &&
             (h = malloc((count == 0 ? 1 : count) * sizeof *h)) != NULL &&
             tg_state_history(s, h, count, &count) == TG_OK && tg_state_clone(s, &replay) == TG_OK;
    /* Back to where the record started, then forward move by move: a move is named in the
     * position it was played from, and told once it is in the history. */
    for (size_t i = 0; ok && i < count; i++)
        ok = tg_state_undo(replay) == TG_OK;
    for (size_t i = 0; ok && i < count; i++) {
        int player = tg_state_player(replay), turn = tg_state_turn(replay);
        char name[64], what[512];
        if (tg_move_to_string(replay, h[i], name, sizeof name, NULL) != TG_OK ||
            tg_state_apply(replay, h[i]) != TG_OK) {
            ok = 0;
            break;
        }
        if (player == TG_CHANCE)
            printf("%zu. player %d throws: %s", i + 1, turn, name);
        else
            printf("%zu. player %d plays %s", i + 1, player, name);
        if (describe_move(replay, i, what, sizeof what) && what[0] != '\0')
            printf(": %s", what);
        fputc('\n', stdout);
    }
    if (!ok)
        fputs("tg-play: cannot replay the record's moves\n", stderr);
    free(h);
    tg_state_free(replay);
    return ok;
}

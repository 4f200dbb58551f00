/* The old log format: a header line `tg-match 1 SPEC`, then one record a line: `m N NAME` (a
 * move, N the tg_move number), `u` (an undo), `r P` (player P resigned). A last line without
 * its newline was torn by a crash and never acknowledged. (migrate.h) */
#define _POSIX_C_SOURCE 200809L

#include "migrate.h"

#include "common.h"

#include <traditional-games.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_MAGIC "tg-match 1 "
#define LOG_MAX_BYTES (64u * 1024u * 1024u) /* far beyond any real match; a bound on memory */

/* The id of a log's file name: `match-ID.log`, ID a plain decimal (no sign, no leading zero,
 * so that no two names mean one id) within SQL's signed 64-bit range. */
static bool log_id(const char *name, uint64_t *id)
{
    if (strncmp(name, "match-", 6) != 0)
        return false;
    const char *digits = name + 6;
    size_t n = 0;
    while (isdigit((unsigned char)digits[n]))
        n++;
    if (n == 0 || strcmp(digits + n, ".log") != 0)
        return false;
    if (digits[0] == '0' || n > 19)
        return false;
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, 10);
    if (errno || v > INT64_MAX)
        return false;
    *id = v;
    return true;
}

static bool read_log(int dir_fd, const char *name, struct buf *text, char *why, size_t why_cap)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0) {
        snprintf(why, why_cap, "cannot read it: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    if (!S_ISREG(info.st_mode) || (uintmax_t)info.st_size > LOG_MAX_BYTES) {
        snprintf(why, why_cap, "not a regular file of at most %u bytes", LOG_MAX_BYTES);
        close(fd);
        return false;
    }
    char chunk[65536];
    for (;;) {
        ssize_t r = read(fd, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || text->len + (size_t)(r > 0 ? r : 0) > LOG_MAX_BYTES) {
            snprintf(why, why_cap, "cannot read it: %s", r < 0 ? strerror(errno) : "too large");
            close(fd);
            return false;
        }
        if (r == 0)
            break;
        if (!buf_append(text, chunk, (size_t)r)) {
            snprintf(why, why_cap, "out of memory");
            close(fd);
            return false;
        }
    }
    close(fd);
    return true;
}

/* Replays a log into *out (the state after every record); false with why on any record that
 * does not replay, since the match would then differ from what was acknowledged. */
static bool replay_log(struct buf *text, tg_state **out, int *resigned, bool *torn, char *why,
                       size_t why_cap)
{
    if (memchr(text->data ? text->data : "", '\0', text->len)) {
        snprintf(why, why_cap, "it holds NUL bytes (damaged outside the server)");
        return false;
    }
    size_t whole = text->len;
    while (whole > 0 && text->data[whole - 1] != '\n')
        whole--;
    *torn = whole < text->len; /* a torn last record was never acknowledged */
    text->len = whole;
    if (text->data)
        text->data[whole] = '\0';
    tg_state *s = NULL;
    tg_rules *rules = NULL;
    *resigned = -1;
    size_t line_no = 0;
    char *save = NULL;
    for (char *line = whole ? strtok_r(text->data, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        tg_status st = TG_ERR_PARSE;
        if (line_no == 1) {
            if (strncmp(line, LOG_MAGIC, strlen(LOG_MAGIC)) == 0 &&
                (st = tg_rules_new(line + strlen(LOG_MAGIC), &rules)) == TG_OK)
                st = tg_state_new(rules, &s);
            tg_rules_free(rules);
        } else if (line[0] == 'm' && line[1] == ' ' && isdigit((unsigned char)line[2])) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(line + 2, &end, 10);
            if (!errno && (*end == ' ' || *end == '\0') && v <= UINT32_MAX && *resigned < 0)
                st = tg_state_apply(s, (tg_move)v);
        } else if (strcmp(line, "u") == 0 && *resigned < 0) {
            st = tg_state_undo(s);
        } else if ((strcmp(line, "r 0") == 0 || strcmp(line, "r 1") == 0) && *resigned < 0 &&
                   !tg_state_is_terminal(s)) {
            *resigned = line[2] - '0';
            st = TG_OK;
        }
        if (st != TG_OK) {
            snprintf(why, why_cap, "line %zu does not replay ('%.40s': %s)", line_no, line,
                     tg_status_string(st));
            tg_state_free(s);
            return false;
        }
    }
    if (!s) {
        snprintf(why, why_cap, "no complete header: a creation that was never acknowledged");
        return false;
    }
    *out = s;
    return true;
}

/* Writes one replayed match: its moves named and hashed again from the start, and, if it
 * stopped at a throw (the old server let clients throw), that throw made now by the server. */
static bool store_replayed(struct store *st, uint64_t id, const tg_state *final, int resigned,
                           char tokens[2][TOKEN_HEX_LEN + 1], char *why, size_t why_cap)
{
    size_t n = 0;
    tg_state_history(final, NULL, 0, &n);
    tg_move *h = malloc((n ? n : 1) * sizeof *h);
    tg_state *s = NULL;
    struct move_list made = {0};
    tg_status status = !h ? TG_ERR_NO_MEMORY : tg_state_history(final, h, n, &n);
    if (status == TG_OK)
        status = tg_state_new(tg_state_rules(final), &s);
    for (size_t i = 0; status == TG_OK && i < n; i++) {
        int player = tg_state_player(s);
        status = record_move(s, h[i], player == TG_CHANCE ? -1 : player, &made);
    }
    if (status == TG_OK && resigned < 0)
        status = throw_while_chance(s, &made);
    bool ok = status == TG_OK && new_token(tokens[0]) && new_token(tokens[1]);
    if (!ok)
        snprintf(why, why_cap, "%s",
                 status != TG_OK ? tg_status_string(status) : "no random bytes for the tokens");
    uint64_t got;
    bool in_savepoint = ok && store_change_begin(st);
    ok = in_savepoint && store_insert_match(st, id, tg_rules_spec(tg_state_rules(s)),
                                            (const char(*)[TOKEN_HEX_LEN + 1]) tokens, &got);
    for (size_t i = 0; ok && i < made.count; i++)
        ok = store_insert_move(st, id, i, &made.items[i]);
    ok = ok && store_set_plies(st, id, made.count);
    if (ok && (resigned >= 0 || tg_state_is_terminal(s))) {
        int w = resigned >= 0 ? 1 - resigned : tg_state_winner(s);
        ok = store_set_result(st, id, w == 0 || w == 1 ? w : -1, resigned >= 0, tg_state_ply(s),
                              tg_state_score(s, 0), tg_state_score(s, 1));
    }
    if (status == TG_OK && !ok)
        snprintf(why, why_cap, "the database refused it: %s", store_error(st));
    if (in_savepoint)
        ok = store_change_end(st, ok) == CHANGE_KEPT && ok;
    move_list_free(&made);
    tg_state_free(s);
    free(h);
    return ok;
}

int migrate_logs(struct store *st, const char *dir, FILE *out)
{
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dup_fd = dir_fd >= 0 ? dup(dir_fd) : -1;
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        fprintf(out, "tg-server: cannot read %s: %s\n", dir, strerror(errno));
        if (dup_fd >= 0)
            close(dup_fd);
        if (dir_fd >= 0)
            close(dir_fd);
        return 1;
    }
    size_t imported = 0, skipped = 0;
    struct dirent *e;
    /* One transaction for the whole import: one sync, and an interrupted import leaves
     * nothing half done. */
    bool began = store_begin_round(st);
    while (began && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "match-", 6) != 0)
            continue;
        uint64_t id;
        char why[256] = "";
        struct buf text = {0};
        tg_state *s = NULL;
        int resigned;
        bool torn = false;
        char tokens[2][TOKEN_HEX_LEN + 1];
        bool exists = false;
        if (!log_id(e->d_name, &id))
            snprintf(why, sizeof why,
                     "not a log name (match-ID.log, ID from 1 to 2^63-1 "
                     "without leading zeros)");
        else if (!store_match_exists(st, id, &exists) || exists)
            snprintf(why, sizeof why, "match %" PRIu64 " is already in the database", id);
        else if (read_log(dir_fd, e->d_name, &text, why, sizeof why) &&
                 replay_log(&text, &s, &resigned, &torn, why, sizeof why) &&
                 store_replayed(st, id, s, resigned, tokens, why, sizeof why)) {
            fprintf(out, "migrated %s as match %" PRIu64 " (%zu plies%s%s); seat tokens %s %s\n",
                    e->d_name, id, tg_state_ply(s),
                    resigned >= 0             ? ", resigned"
                    : tg_state_is_terminal(s) ? ", over"
                                              : "",
                    torn ? "; a torn last record, never acknowledged, was dropped" : "", tokens[0],
                    tokens[1]);
            imported++;
        }
        if (why[0]) {
            fprintf(out, "skipped %s: %s\n", e->d_name, why);
            skipped++;
        }
        tg_state_free(s);
        free(text.data);
    }
    closedir(d);
    close(dir_fd);
    bool committed = began && store_commit_round(st);
    if (!committed) {
        fprintf(out, "tg-server: the import was not stored: %s\n", store_error(st));
        return 1;
    }
    fprintf(out, "tg-server: %zu matches migrated from %s, %zu logs skipped\n", imported, dir,
            skipped);
    return skipped ? 1 : 0;
}

/* tg-server: a match server for libtraditional-games, the starting point for a game server.
 *
 *   tg-server [--port N] [--db PATH] [--port-file PATH] [--max-clients N] [--max-matches N]
 *             [--max-loaded N] [--idle-timeout S] [--bot-threads N] [--move-threads N]
 *             [--max-bot-iterations N] [--max-bot-ms MS] [--max-laps N] [--unload-after S]
 *             [--check] [--web-port N] [--web DIR] [--web-port-file PATH]
 *             [--trusted-proxy ADDR]... (tg-server --help for all of them)
 *   tg-server --db PATH --migrate-logs DIR
 *
 * Listens on 127.0.0.1 and hosts matches of any game through a line-based text protocol
 * (docs/server.md). One thread serves every client from a poll() loop; anything that may take
 * long (a bot's search, a move, replaying a stored match) runs on a small pool of worker
 * threads, so no command holds up the other clients.
 *
 * Storage is one SQLite database in WAL mode (server/store.c): every change of one round of
 * the loop goes into one transaction, committed (and synced) before any reply of that round
 * is sent. Matches are loaded from the database when first used and unloaded when idle, so
 * start-up costs nothing per stored match. A stored match that does not replay exactly as
 * recorded (moves, notation, hashes, result) is set aside and reported, never served.
 *
 * Browsers (server/web.c): with --web-port, the same protocol over WebSocket, relayed to the
 * line port so that a browser is one more client of the loop, and the web app's files over
 * HTTP on that port. A connection that watches a match is pushed every change to it as an
 * `event` line. A match may have clocks (`new SPEC clock=M+S`), kept by the loop and stored
 * with every change; a flag fall ends the match.
 *
 * Seats: `new` answers two secret tokens from the OS's random source; changing a match needs
 * the token of the seat that acts, reading it needs nothing. Chance outcomes are thrown by the
 * server from the OS's random source.
 *
 * Exit status: 0 after SIGINT or SIGTERM (and after a migration with nothing skipped), 1 on a
 * fatal error (cannot listen, cannot open the database) or a migration that skipped logs, 2 on
 * bad arguments. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "migrate.h"
#include "wal.h"
#include "web.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- start-up and shut-down ---------------------------------------------------------- */

static const char usage_text[] =
    "usage: tg-server [--port N] [--db PATH] [--port-file PATH] [--max-clients N]\n"
    "                 [--max-clients-per-address N]\n"
    "                 [--max-matches N] [--max-loaded N] [--idle-timeout S] [--bot-threads N]\n"
    "                 [--move-threads N] [--max-bot-iterations N] [--max-bot-ms MS]\n"
    "                 [--max-laps N]\n"
    "                 [--unload-after S] [--first-move-timeout S] [--undo-timeout S]\n"
    "                 [--join-timeout S] [--abandon-after S]\n"
    "                 [--rate N] [--address-rate N] [--max-buffered KB]\n"
    "                 [--no-bots-on-clock] [--check] [--web-port N] [--web DIR]\n"
    "                 [--web-port-file PATH] [--origin ORIGIN]... [--trusted-proxy ADDR]...\n"
    "                 [--metrics-port N] [--metrics-port-file PATH] [--lease S]\n"
    "       tg-server --db PATH --migrate-logs DIR\n"
    "       tg-server --db PATH --backup FILE\n";

static void usage(FILE *f)
{
    fputs(usage_text, f);
    fputs("\n"
          "  --port N                 TCP port on 127.0.0.1 (default 7878; 0 picks a free one)\n"
          "  --db PATH                the SQLite database (default tg-server.db); created if\n"
          "                           missing. A postgresql:// URL or a libpq conninfo\n"
          "                           (host=... dbname=...) uses PostgreSQL, which several\n"
          "                           servers may share (docs/server.md)\n"
          "  --port-file PATH         write the port there once the server accepts clients\n"
          "  --max-clients N          concurrent connections (default 1000); more are told\n"
          "                           err too-many-clients\n"
          "  --max-clients-per-address N  connections from one address (an IPv6 /64; a\n"
          "                           browser's as the relay names it); default an eighth\n"
          "                           of --max-clients, at least 8; more are told\n"
          "                           err too-many-connections\n",
          f);
    fputs(          "  --max-matches N          matches stored in all (default 10000000)\n"
          "  --max-loaded N           matches held in memory at once (default 100000); the\n"
          "                           least recently used idle one is unloaded for another\n"
          "  --idle-timeout S         close a connection that sends no command for S seconds\n"
          "                           (default 300; events pushed to it do not count)\n"
          "  --bot-threads N          worker threads for bot searches (default 2)\n"
          "  --move-threads N         worker threads for moves and loading matches (default 2)\n"
          "  --max-bot-iterations N   the most mcts iterations a bot request may ask (default\n"
          "                           100000)\n"
          "  --max-bot-ms MS          the longest a bot search (mcts, search) may take (default\n"
          "                           5000); on a clock, a tenth of the seat's time at most\n"
          "  --max-laps N             the largest lap limit (laps=N) a new match may set\n"
          "                           (default 10000); laps=0, no limit, is refused\n"
          "  --unload-after S         unload a match unused for S seconds (default 60)\n"
          "  --first-move-timeout S   abort a clocked match with no decision after S seconds\n"
          "                           (default 60)\n"
          "  --join-timeout S         abort a match whose second seat is not joined S seconds\n"
          "                           after it was made (default 86400: a day)\n"
          "  --abandon-after S        abort a match without a clock that has no move for S\n"
          "                           seconds (default 2592000: 30 days)\n"
          "  --undo-timeout S         an undo request unanswered for S seconds lapses\n"
          "                           (default 60)\n"
          "  --rate N                 costly commands (new, bot, undo, accept, decline, watch,\n"
          "                           list, history) a connection may make per second, 5 s\n"
          "                           of them at once (default 20); more: err rate-limited\n"
          "  --address-rate N         the same for all connections from one address\n"
          "                           (default 100)\n"
          "  --max-buffered KB        output waiting for all clients together before watchers\n"
          "                           that do not read are let go (default 32768)\n"
          "  --check                  before serving, run PRAGMA integrity_check and replay\n"
          "                           every stored match, setting aside any that fails\n"
          "  --web-port N             WebSocket (the same protocol) and HTTP on 127.0.0.1:N\n"
          "                           (0 picks a free one); off unless given\n"
          "  --web DIR                serve the web app's files from DIR over HTTP on the\n"
          "                           web port (implies --web-port 8080 unless given)\n"
          "  --web-port-file PATH     write the web port there once it accepts clients\n",
          f);
    fputs("  --metrics-port N         GET /metrics (Prometheus) on 127.0.0.1:N, a port of\n"
          "                           its own for the operator (0 picks a free one); off\n"
          "                           unless given\n"
          "  --metrics-port-file PATH write the metrics port there once it listens\n"
          "  --no-bots-on-clock       refuse bot on a match with a clock (a search is not\n"
          "                           bounded by the seat's time)\n"
          "  --origin ORIGIN          a page allowed to open a WebSocket (repeatable; default:\n"
          "                           the server's own pages only)\n"
          "  --trusted-proxy ADDR     a proxy in front of the web port whose X-Forwarded-For\n"
          "                           (or Forwarded) names the client, for the address\n"
          "                           budgets (repeatable); from other peers it is ignored\n"
          "  --lease S                a PostgreSQL database shared by several servers: a\n"
          "                           match is played by one of them at a time, for S seconds\n"
          "                           unless renewed (default 5; from 0.1)\n"
          "  --backup FILE            copy the database to FILE with SQLite's online backup\n"
          "                           (while a server runs on it) and exit\n"
          "  --migrate-logs DIR       import the match logs (match-ID.log) of the file-log\n"
          "                           tg-server into the database, print each match's seat\n"
          "                           tokens, and exit\n"
          "\n"
          "The protocol is described in docs/server.md; try: new halusa, show 1, moves 1,\n"
          "play 1 0 c1 TOKEN, history 1, status, help, quit.\n",
          f);
}

static int bad_args(const char *why, const char *arg)
{
    fprintf(stderr, "tg-server: %s%s%s%s\n", why, arg ? ": '" : "", arg ? arg : "", arg ? "'" : "");
    fputs(usage_text, stderr);
    fputs("(tg-server --help for more)\n", stderr);
    return EXIT_BAD_ARGS;
}

static bool parse_number(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    if (!text || !isdigit((unsigned char)text[0]))
        return false;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){.port = 7878,
                          .db_path = "tg-server.db",
                          .max_clients = 1000,
                          .max_matches = 10000000,
                          .max_loaded = 100000,
                          .idle_timeout = 300,
                          .unload_after = 60,
                          .bot_threads = 2,
                          .move_threads = 2,
                          .max_bot_iterations = 100000,
                          .max_bot_ms = 5000,
                          .max_laps = 10000,
                          .first_move_timeout = 60,
                          .join_timeout = 86400,
                          .abandon_after = 30 * 86400,
                          .undo_timeout = 60,
                          .rate = 20,
                          .address_rate = 100,
                          .max_buffered = 32u * 1024u * 1024u,
                          .lease_ms = 5000,
                          .web_port = -1,
                          .metrics_port = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--check") == 0) {
            o->check = true;
            continue;
        }
        if (strcmp(a, "--no-bots-on-clock") == 0) {
            o->no_bots_on_clock = true;
            continue;
        }
        i++; /* every other option takes a value */
        if (strcmp(a, "--port") == 0) {
            if (!parse_number(v, 65535, &n))
                return bad_args("--port needs a number from 0 to 65535", v);
            o->port = (unsigned)n;
        } else if (strcmp(a, "--db") == 0) {
            if (!v || !*v)
                return bad_args("--db needs a path", NULL);
            o->db_path = v;
        } else if (strcmp(a, "--port-file") == 0) {
            if (!v || !*v)
                return bad_args("--port-file needs a path", NULL);
            o->port_file = v;
        } else if (strcmp(a, "--web-port") == 0) {
            if (!parse_number(v, 65535, &n))
                return bad_args("--web-port needs a number from 0 to 65535", v);
            o->web_port = (long)n;
        } else if (strcmp(a, "--web") == 0) {
            if (!v || !*v)
                return bad_args("--web needs a directory", NULL);
            o->web_dir = v;
        } else if (strcmp(a, "--origin") == 0) {
            if (!v || !*v || o->origin_count == ORIGINS_MAX)
                return bad_args("--origin needs a page's origin (e.g. https://games.example), "
                                "at most 16 of them",
                                v);
            o->origins[o->origin_count++] = v;
        } else if (strcmp(a, "--trusted-proxy") == 0) {
            unsigned char bin[16];
            if (!v || o->trusted_count == ORIGINS_MAX ||
                (inet_pton(AF_INET, v, bin) != 1 && inet_pton(AF_INET6, v, bin) != 1))
                return bad_args("--trusted-proxy needs a proxy's IP address (e.g. 127.0.0.1), "
                                "at most 16 of them",
                                v);
            o->trusted[o->trusted_count++] = v;
        } else if (strcmp(a, "--web-port-file") == 0) {
            if (!v || !*v)
                return bad_args("--web-port-file needs a path", NULL);
            o->web_port_file = v;
        } else if (strcmp(a, "--metrics-port") == 0) {
            if (!parse_number(v, 65535, &n))
                return bad_args("--metrics-port needs a number from 0 to 65535", v);
            o->metrics_port = (long)n;
        } else if (strcmp(a, "--metrics-port-file") == 0) {
            if (!v || !*v)
                return bad_args("--metrics-port-file needs a path", NULL);
            o->metrics_port_file = v;
        } else if (strcmp(a, "--backup") == 0) {
            if (!v || !*v)
                return bad_args("--backup needs a path", NULL);
            o->backup_path = v;
        } else if (strcmp(a, "--migrate-logs") == 0) {
            if (!v || !*v)
                return bad_args("--migrate-logs needs a directory", NULL);
            o->migrate_dir = v;
        } else if (strcmp(a, "--max-clients") == 0) {
            if (!parse_number(v, 100000, &n) || n == 0)
                return bad_args("--max-clients needs a number from 1 to 100000", v);
            o->max_clients = n;
        } else if (strcmp(a, "--max-clients-per-address") == 0) {
            if (!parse_number(v, 100000, &n) || n == 0)
                return bad_args("--max-clients-per-address needs a number from 1 to 100000", v);
            o->max_clients_per_address = n;
        } else if (strcmp(a, "--max-matches") == 0) {
            if (!parse_number(v, 1000000000, &n) || n == 0)
                return bad_args("--max-matches needs a number from 1 to 1000000000", v);
            o->max_matches = n;
        } else if (strcmp(a, "--max-loaded") == 0) {
            if (!parse_number(v, 10000000, &n) || n == 0)
                return bad_args("--max-loaded needs a number from 1 to 10000000", v);
            o->max_loaded = n;
        } else if (strcmp(a, "--idle-timeout") == 0) {
            if (!parse_number(v, 86400, &n) || n == 0)
                return bad_args("--idle-timeout needs seconds, from 1 to 86400", v);
            o->idle_timeout = (double)n;
        } else if (strcmp(a, "--unload-after") == 0) {
            if (!parse_number(v, 86400, &n))
                return bad_args("--unload-after needs seconds, from 0 to 86400", v);
            o->unload_after = (double)n;
        } else if (strcmp(a, "--bot-threads") == 0) {
            if (!parse_number(v, 64, &n) || n == 0)
                return bad_args("--bot-threads needs a number from 1 to 64", v);
            o->bot_threads = (unsigned)n;
        } else if (strcmp(a, "--move-threads") == 0) {
            if (!parse_number(v, 64, &n) || n == 0)
                return bad_args("--move-threads needs a number from 1 to 64", v);
            o->move_threads = (unsigned)n;
        } else if (strcmp(a, "--max-laps") == 0) {
            if (!parse_number(v, 1000000000, &n) || n == 0)
                return bad_args("--max-laps needs a number from 1 to 1000000000", v);
            o->max_laps = n;
        } else if (strcmp(a, "--first-move-timeout") == 0) {
            if (!parse_number(v, 86400, &n) || n == 0)
                return bad_args("--first-move-timeout needs seconds, from 1 to 86400", v);
            o->first_move_timeout = (double)n;
        } else if (strcmp(a, "--join-timeout") == 0) {
            if (!parse_number(v, 31536000, &n) || n == 0)
                return bad_args("--join-timeout needs seconds, from 1 to 31536000", v);
            o->join_timeout = (double)n;
        } else if (strcmp(a, "--abandon-after") == 0) {
            if (!parse_number(v, 31536000, &n) || n == 0)
                return bad_args("--abandon-after needs seconds, from 1 to 31536000", v);
            o->abandon_after = (double)n;
        } else if (strcmp(a, "--undo-timeout") == 0) {
            if (!parse_number(v, 86400, &n) || n == 0)
                return bad_args("--undo-timeout needs seconds, from 1 to 86400", v);
            o->undo_timeout = (double)n;
        } else if (strcmp(a, "--rate") == 0) {
            if (!parse_number(v, 1000000, &n) || n == 0)
                return bad_args("--rate needs a number from 1 to 1000000", v);
            o->rate = (double)n;
        } else if (strcmp(a, "--address-rate") == 0) {
            if (!parse_number(v, 1000000, &n) || n == 0)
                return bad_args("--address-rate needs a number from 1 to 1000000", v);
            o->address_rate = (double)n;
        } else if (strcmp(a, "--max-buffered") == 0) {
            if (!parse_number(v, 16u * 1024u * 1024u, &n) || n < 64)
                return bad_args("--max-buffered needs kilobytes, from 64 to 16777216", v);
            o->max_buffered = (size_t)n * 1024u;
        } else if (strcmp(a, "--lease") == 0) {
            char *end;
            double seconds = v ? strtod(v, &end) : 0;
            if (!v || !isdigit((unsigned char)v[0]) || *end || !(seconds >= 0.1) || seconds > 3600)
                return bad_args("--lease needs seconds, from 0.1 to 3600", v);
            o->lease_ms = (unsigned)(seconds * 1000.0 + 0.5);
        } else if (strcmp(a, "--max-bot-ms") == 0) {
            if (!parse_number(v, 600000, &n) || n == 0)
                return bad_args("--max-bot-ms needs milliseconds, from 1 to 600000", v);
            o->max_bot_ms = n;
        } else if (strcmp(a, "--max-bot-iterations") == 0) {
            if (!parse_number(v, 10000000, &n) || n == 0)
                return bad_args("--max-bot-iterations needs a number from 1 to 10000000", v);
            o->max_bot_iterations = n;
        } else {
            return bad_args("unknown argument", a);
        }
    }
    return -1;
}

/* Written whole under a temporary name, then renamed: a reader never sees half. */
static void write_port_file(const char *path, unsigned port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        fatal("cannot write %s", path);
}

/* Before SQLite opens the database and replays its log: a log whose chain of frames breaks
 * before its last commits loses those commits without a word from SQLite. Said loudly, with a
 * copy of the log kept for whoever can mend it. */
static void check_wal(const char *db_path, char *warning, size_t cap)
{
    char wal[4096], kept[4200], err[512];
    struct wal_scan w;
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    if (!wal_scan(wal, &w, err, sizeof err)) {
        fprintf(stderr, "tg-server: cannot read the write-ahead log: %s\n", err);
        return;
    }
    if (!w.present || !w.first_bad || !w.lost_commits)
        return;
    snprintf(kept, sizeof kept, "%s.cut-%lld", wal, (long long)time(NULL));
    bool copied = copy_file(wal, kept);
    snprintf(warning, cap,
             "the write-ahead log was cut short: frame %" PRIu64 " of %" PRIu64
             " is damaged, and %" PRIu64 " committed transaction%s after it %s lost (a copy "
             "of the log: %s)",
             w.first_bad, w.frames_in_file, w.lost_commits, w.lost_commits == 1 ? "" : "s",
             w.lost_commits == 1 ? "is" : "are", copied ? kept : "could not be made");
    fprintf(stderr, "tg-server: WARNING: %s\n", warning);
}

/* The counts of stored and live matches. A damaged page of `matches` does not stop the start:
 * the count goes on past it, and the stretch of ids it held is reported. */
static void count_matches(struct server *sv, struct id_gap **gaps, size_t *gap_count)
{
    if (store_count_matches(sv->store, &sv->match_count) &&
        store_count_live_matches(sv->store, &sv->live_count))
        return;
    bool live_known = false;
    if (!store_last_was_damage(sv->store) ||
        !store_count_past_damage(sv->store, &sv->match_count, &sv->live_count, &live_known, gaps,
                                 gap_count))
        fatal("cannot read the database %s: %s", sv->opt.db_path, store_error(sv->store));
    for (size_t i = 0; i < *gap_count; i++) {
        if ((*gaps)[i].to == UINT64_MAX)
            fprintf(stderr,
                    "tg-server: WARNING: the matches rows from id %" PRIu64
                    " on sit on a damaged page: each is set aside when asked for\n",
                    (*gaps)[i].from);
        else
            fprintf(stderr,
                    "tg-server: WARNING: the matches rows of ids %" PRIu64 " to %" PRIu64
                    " sit on a damaged page: those matches are set aside\n",
                    (*gaps)[i].from, (*gaps)[i].to);
    }
    if (!live_known)
        fprintf(stderr, "tg-server: WARNING: the tables of match endings are damaged too: "
                        "every readable match counts as live\n");
}

#define GAP_MARKS_MAX 10000 /* ids marked at start; those of a longer stretch as they load */

static void set_gaps_aside(struct server *sv, const struct id_gap *gaps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (gaps[i].to - gaps[i].from < GAP_MARKS_MAX &&
            !remember_set_aside_range(sv, gaps[i].from, gaps[i].to,
                                      "its matches row sits on a damaged page"))
            fatal("out of memory");
}

/* --check of one stored match: its rows, then its replay on this thread. */
static void check_one(struct server *sv, uint64_t id)
{
    struct job *j = calloc(1, sizeof *j);
    struct match *m = j ? calloc(1, sizeof *m) : NULL;
    char why[256] = "";
    tg_status st;
    if (!m)
        fatal("out of memory");
    enum load_result r = store_load_match(sv->store, id, &j->stored, why, sizeof why);
    if (r == LOAD_UNAVAILABLE)
        fatal("cannot read the database: %s", why);
    if (r == LOAD_FOUND && !(m->rules = rules_acquire(sv, j->stored.spec, &st)))
        snprintf(why, sizeof why, "its rule spec is not valid: %s", tg_status_string(st));
    if (r == LOAD_FOUND && m->rules) {
        j->match = m;
        work_load(&j->base);
        if (j->status == TG_OK)
            result_consistent(j, why, sizeof why);
        else
            snprintf(why, sizeof why, "%s", j->why);
    }
    if (why[0])
        remember_set_aside(sv, id, why, r == LOAD_SET_ASIDE);
    job_free(j);
    match_free(sv, m);
}

/* --check: the whole file through SQLite's own check, then every match replayed here. */
static void check_everything(struct server *sv, const struct id_gap *gaps, size_t gap_count)
{
    char first[256];
    bool ran = store_check(sv->store, true, first, sizeof first);
    fprintf(stderr, "tg-server: integrity_check: %s\n", first);
    (void)ran;
    uint64_t after = 0, ids[LIST_MAX];
    size_t n;
    bool more = true;
    size_t gap = 0;
    for (;;) {
        bool listed = store_list_ids(sv->store, after, ids, LIST_MAX, &n, &more);
        for (size_t i = 0; i < n; i++)
            check_one(sv, ids[i]);
        if (n)
            after = ids[n - 1];
        if (!listed) {
            /* A damaged page of matches: on past it (count_matches found where it ends). */
            while (gap < gap_count && gaps[gap].to <= after)
                gap++;
            if (gap == gap_count || gaps[gap].to == UINT64_MAX)
                break;
            /* A seek above the page's last id lands on the page itself: the first id past
             * it is looked at on its own. */
            after = gaps[gap++].to + 1;
            bool exists = false;
            if (store_match_exists(sv->store, after, &exists) && exists)
                check_one(sv, after);
            continue;
        }
        if (n == 0 || !more)
            break;
    }
    write_set_aside_marks(sv);
}

/* A damaged side table costs the matches it may concern, not every match (store.h). */
static void quarantine_damaged_tables(struct server *sv)
{
    char report[2048];
    store_quarantine_damaged_tables(sv->opt.db_path, report, sizeof report);
    if (report[0])
        fprintf(stderr, "tg-server: WARNING: %s\n", report);
}

static void free_jobs(struct pool_job *list)
{
    for (struct pool_job *next; list; list = next) {
        next = list->next;
        job_free((struct job *)list);
    }
}

int main(int argc, char **argv)
{
    struct server sv = {0};
    int rc = parse_args(argc, argv, &sv.opt);
    if (rc >= 0)
        return rc;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    struct stat web_dir_info;
    if (sv.opt.web_dir &&
        (stat(sv.opt.web_dir, &web_dir_info) != 0 || !S_ISDIR(web_dir_info.st_mode)))
        fatal("--web %s is not a directory", sv.opt.web_dir);

    double t0 = monotonic_seconds();
    char err[512];
    if (sv.opt.backup_path) {
        if (!store_backup(sv.opt.db_path, sv.opt.backup_path, err, sizeof err)) {
            fprintf(stderr, "tg-server: cannot back %s up to %s: %s\n", sv.opt.db_path,
                    sv.opt.backup_path, err);
            return EXIT_FATAL;
        }
        printf("tg-server: %s backed up to %s in %.1f ms\n", sv.opt.db_path, sv.opt.backup_path,
               (monotonic_seconds() - t0) * 1000.0);
        return 0;
    }
    char wal_warning[8192] = "";
    bool postgres = store_names_postgres(sv.opt.db_path); /* no file, no log, no schema page */
    if (!postgres)
        check_wal(sv.opt.db_path, wal_warning, sizeof wal_warning);
    if (!postgres)
        quarantine_damaged_tables(&sv);
    sv.store = store_open(sv.opt.db_path, err, sizeof err);
    if (!sv.store && !postgres) {
        char report[1024];
        enum schema_repair r = store_repair_schema(sv.opt.db_path, report, sizeof report);
        if (r == SCHEMA_REPAIRED) {
            fprintf(stderr, "tg-server: %s\n", report);
            quarantine_damaged_tables(&sv);
            sv.store = store_open(sv.opt.db_path, err, sizeof err);
        } else if (r == SCHEMA_NOT_REPAIRED && strstr(report, "schema")) {
            fatal("cannot open the database %s; %s", err, report);
        }
    }
    if (!sv.store)
        fatal("cannot open the database %s", err);
    store_set_lease(sv.store, sv.opt.lease_ms);
    if (!sv.opt.migrate_dir && !postgres &&
        !store_save_schema(sv.store, sv.opt.db_path, err, sizeof err))
        fprintf(stderr, "tg-server: cannot keep a copy of the schema: %s\n", err);
    if (sv.opt.migrate_dir) {
        int status = migrate_logs(sv.store, sv.opt.migrate_dir, stdout);
        store_close(sv.store);
        return status;
    }
    fit_clients_to_descriptor_limit(&sv.opt);
    if (!sv.opt.max_clients_per_address) /* an eighth of the room, at least 8 */
        sv.opt.max_clients_per_address = sv.opt.max_clients / 8 > 8 ? sv.opt.max_clients / 8 : 8;
    struct id_gap *gaps = NULL;
    size_t gap_count = 0;
    count_matches(&sv, &gaps, &gap_count);
    set_gaps_aside(&sv, gaps, gap_count);
    if (!store_each_set_aside(sv.store, on_stored_set_aside, &sv))
        fprintf(stderr,
                "tg-server: the set-aside marks cannot all be read (%s); matches are "
                "checked again as they load\n",
                store_error(sv.store));
    if (sv.opt.check)
        check_everything(&sv, gaps, gap_count);
    sv.gaps = gaps;
    sv.gap_count = gap_count;
    double open_s = monotonic_seconds() - t0;

    /* Held to be let go when descriptors run out, so that a client can still be told. */
    sv.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!new_token(sv.relay_secret))
        fatal("cannot read the operating system's random source");
    int wake[2];
    if (pipe(wake) != 0 || !set_nonblocking(wake[0]) || !set_nonblocking(wake[1]))
        fatal("pipe: %s", strerror(errno));
    sv.wake_read = wake[0];
    sv.wake_write = wake[1];
    sv.move_pool = pool_new(sv.opt.move_threads, 4096, sv.wake_write);
    sv.bot_pool = pool_new(sv.opt.bot_threads, 64u * sv.opt.bot_threads, sv.wake_write);
    sv.record_pool = pool_new(RECORD_THREADS, 1024, sv.wake_write);
    if (!sv.move_pool || !sv.bot_pool || !sv.record_pool)
        fatal("cannot start the worker threads");

    unsigned port = 0;
    int listen_fd = listen_loopback(sv.opt.port, &port);
    if (listen_fd < 0)
        fatal("cannot listen on 127.0.0.1:%u: %s", sv.opt.port, strerror(errno));
    printf("tg-server: listening on 127.0.0.1:%u; %" PRIu64 " matches in %s, %zu set aside", port,
           sv.match_count, sv.opt.db_path, sv.set_aside_count);
    for (size_t i = 0; i < sv.set_aside_count && i < STATUS_IDS_MAX; i++)
        printf("%s%" PRIu64, i ? "," : " (", sv.set_aside[i].id);
    printf("%s; opened in %.1f ms%s%s", sv.set_aside_count ? ")" : "", open_s * 1000.0,
           wal_warning[0] ? "; WARNING: " : "", wal_warning);
    if (store_is_shared(sv.store)) /* its name in the leases table, for the operator */
        printf("; shared, as server %s, leases of %.1f s", store_owner(sv.store),
               sv.opt.lease_ms / 1000.0);
    printf("\n");
    fflush(stdout);
    struct web *web = NULL;
    bool web_port_wanted = sv.opt.web_port >= 0 || sv.opt.web_dir;
    if (web_port_wanted || sv.opt.metrics_port >= 0) {
        struct web_ports bound;
        struct web_options wo = {web_port_wanted ? (sv.opt.web_port >= 0 ? sv.opt.web_port : 8080)
                                                 : -1,
                                 sv.opt.metrics_port,
                                 sv.opt.web_dir,
                                 sv.relay_secret,
                                 sv.opt.max_clients,
                                 sv.opt.origins,
                                 sv.opt.origin_count,
                                 sv.opt.trusted,
                                 sv.opt.trusted_count};
        web = web_start(&wo, port, &bound, err, sizeof err);
        if (!web)
            fatal("%s", err);
        if (bound.web)
            printf("tg-server: WebSocket%s on 127.0.0.1:%u\n",
                   sv.opt.web_dir ? " and web app" : "", bound.web);
        if (bound.metrics)
            printf("tg-server: metrics on 127.0.0.1:%u\n", bound.metrics);
        fflush(stdout);
        if (sv.opt.web_port_file && bound.web)
            write_port_file(sv.opt.web_port_file, bound.web);
        if (sv.opt.metrics_port_file && bound.metrics)
            write_port_file(sv.opt.metrics_port_file, bound.metrics);
    }
    if (sv.opt.port_file)
        write_port_file(sv.opt.port_file, port);
    sv.web = web;

    serve(&sv, listen_fd);

    web_stop(web);

    close(listen_fd);
    for (size_t i = 0; i < sv.client_count; i++)
        client_free(&sv, sv.clients[i]);
    free(sv.clients);
    /* Searches cannot be interrupted: a stop waits a little for them, and if one is still
     * running its move is abandoned (never acknowledged) and the process just ends. */
    struct pool_job *left_moves = NULL, *left_bots = NULL, *left_records = NULL;
    bool moves_stopped = pool_stop(sv.move_pool, STOP_WAIT_SECONDS, &left_moves);
    bool bots_stopped = pool_stop(sv.bot_pool, STOP_WAIT_SECONDS, &left_bots);
    bool records_stopped = pool_stop(sv.record_pool, STOP_WAIT_SECONDS, &left_records);
    store_close(sv.store);
    sv.store = NULL; /* the matches freed below have no database to tell */
    if (!moves_stopped || !bots_stopped || !records_stopped) {
        printf("tg-server: stopped (a worker was still inside a move or search; abandoned)\n");
        fflush(stdout);
        _exit(0);
    }
    free_jobs(left_moves);
    free_jobs(left_bots);
    free_jobs(left_records);
    records_free(&sv);
    for (size_t b = 0; b < sv.bucket_count; b++)
        for (struct match *m = sv.buckets[b], *next; m; m = next) {
            next = m->next_in_bucket;
            match_free(&sv, m);
        }
    free(sv.buckets);
    for (size_t i = 0; i < sv.change_count; i++)
        change_discard(&sv, &sv.changes[i]);
    free(sv.changes);
    for (size_t i = 0; i < sv.set_aside_count; i++)
        free(sv.set_aside[i].reason);
    free(sv.set_aside);
    free(sv.gaps);
    free(sv.clocked);
    addresses_free(&sv);
    if (sv.reserve_fd >= 0)
        close(sv.reserve_fd);
    for (size_t i = 0; i < sv.rules_count; i++) {
        tg_rules_free(sv.rules[i]->rules);
        free(sv.rules[i]);
    }
    free(sv.rules);
    close(sv.wake_read);
    close(sv.wake_write);
    printf("tg-server: stopped\n");
    return 0;
}

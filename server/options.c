/* The command line of tg-server: its options, their defaults and checks, and --help's text.
 * A bad argument is refused with a message and exit status 2, before anything is opened. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
    "                 [--sign-in-rate N] [--address-sign-in-rate N] [--session-lifetime S]\n"
    "                 [--secure-cookies] [--seek-lifetime S] [--day-seconds S]\n"
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
          "  --sign-in-rate N         password attempts with one account's name in 15\n"
          "                           minutes (default 5); more: err rate-limited\n"
          "  --address-sign-in-rate N password attempts and registrations from one address\n"
          "                           in 15 minutes (default 100)\n"
          "  --session-lifetime S     how long a session lasts from its sign-in (default\n"
          "                           2592000: 30 days)\n"
          "  --seek-lifetime S        a lobby seek nobody takes goes after S seconds (default\n"
          "                           1800)\n"
          "  --day-seconds S          for tests only: the length of a correspondence day\n"
          "                           (days=N per move), 86400 unless given\n"
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
          "  --origin ORIGIN          a page allowed to open a WebSocket or to sign in\n"
          "                           (repeatable; default: the server's own pages only)\n"
          "  --secure-cookies         mark the session cookie Secure: the site is served over\n"
          "                           TLS (by a proxy in front of the web port)\n"
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

int parse_options(int argc, char **argv, struct options *o)
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
                          .sign_in_rate = 5,
                          .address_sign_in_rate = 100,
                          .session_lifetime = 30 * 86400,
                          .seek_lifetime = 1800,
                          .day_seconds = 86400,
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
        if (strcmp(a, "--secure-cookies") == 0) {
            o->secure_cookies = true;
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
        } else if (strcmp(a, "--sign-in-rate") == 0) {
            if (!parse_number(v, 1000000, &n) || n == 0)
                return bad_args("--sign-in-rate needs attempts in 15 minutes, from 1 to 1000000",
                                v);
            o->sign_in_rate = (double)n;
        } else if (strcmp(a, "--address-sign-in-rate") == 0) {
            if (!parse_number(v, 1000000, &n) || n == 0)
                return bad_args("--address-sign-in-rate needs attempts in 15 minutes, from 1 "
                                "to 1000000",
                                v);
            o->address_sign_in_rate = (double)n;
        } else if (strcmp(a, "--session-lifetime") == 0) {
            if (!parse_number(v, 366ul * 86400, &n) || n == 0)
                return bad_args("--session-lifetime needs seconds, from 1 to 31622400 (366 days)",
                                v);
            o->session_lifetime = (double)n;
        } else if (strcmp(a, "--seek-lifetime") == 0) {
            if (!parse_number(v, 86400, &n) || n == 0)
                return bad_args("--seek-lifetime needs seconds, from 1 to 86400", v);
            o->seek_lifetime = (double)n;
        } else if (strcmp(a, "--day-seconds") == 0) {
            if (!parse_number(v, 86400, &n) || n == 0)
                return bad_args("--day-seconds needs seconds, from 1 to 86400", v);
            o->day_seconds = (double)n;
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

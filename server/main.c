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
 * Storage is one SQLite database in WAL mode (server/store.h): every change of one round of
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
 * bad arguments.
 *
 * This file: the process's start-up (workers, listeners, the web side) and its shut-down;
 * options.c reads the command line, open-database.c opens the database and counts its matches. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "migrate.h"
#include "password.h"
#include "web.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Written whole under a temporary name, then renamed: a reader never sees half. */
static void write_port_file(const char *path, unsigned port)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        fatal("cannot write %s", path);
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
    int rc = parse_options(argc, argv, &sv.opt);
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
    open_database(&sv, wal_warning, sizeof wal_warning);
    if (sv.opt.migrate_dir) {
        int status = migrate_logs(sv.store, sv.opt.migrate_dir, stdout);
        store_close(sv.store);
        return status;
    }
    fit_clients_to_descriptor_limit(&sv.opt);
    if (!sv.opt.max_clients_per_address) /* an eighth of the room, at least 8 */
        sv.opt.max_clients_per_address = sv.opt.max_clients / 8 > 8 ? sv.opt.max_clients / 8 : 8;
    survey_stored_matches(&sv);
    double open_s = monotonic_seconds() - t0;

    /* Held to be let go when descriptors run out, so that a client can still be told. */
    sv.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!password_init())
        fatal("libsodium cannot start (no random source)");
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
    sv.account_pool = pool_new(ACCOUNT_THREADS, 256, sv.wake_write);
    if (!sv.move_pool || !sv.bot_pool || !sv.record_pool || !sv.account_pool)
        fatal("cannot start the worker threads");
    if (!round_thread_start(&sv, err, sizeof err))
        fatal("the round threads' connections: %s", err);
    if (!db_pool_start(&sv, err, sizeof err))
        fatal("the database threads' connections: %s", err);

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
                                 sv.opt.trusted_count,
                                 sv.opt.secure_cookies,
                                 sv.opt.session_lifetime};
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
    round_thread_stop(&sv); /* the batches in flight end first; their changes are not answered */
    db_pool_stop(&sv);      /* likewise the take-over claims and account writes under way */
    free(sv.load_reads);    /* the loads' reads left there were freed with their jobs */

    web_stop(web);

    close(listen_fd);
    for (size_t i = 0; i < sv.client_count; i++)
        client_free(&sv, sv.clients[i]);
    free(sv.clients);
    /* Searches cannot be interrupted: a stop waits a little for them, and if one is still
     * running its move is abandoned (never acknowledged) and the process just ends. */
    struct pool_job *left_moves = NULL, *left_bots = NULL, *left_records = NULL,
                    *left_accounts = NULL;
    bool moves_stopped = pool_stop(sv.move_pool, STOP_WAIT_SECONDS, &left_moves);
    bool bots_stopped = pool_stop(sv.bot_pool, STOP_WAIT_SECONDS, &left_bots);
    bool records_stopped = pool_stop(sv.record_pool, STOP_WAIT_SECONDS, &left_records);
    bool accounts_stopped = pool_stop(sv.account_pool, STOP_WAIT_SECONDS, &left_accounts);
    store_close(sv.store);
    sv.store = NULL; /* the matches freed below have no database to tell */
    if (!moves_stopped || !bots_stopped || !records_stopped || !accounts_stopped) {
        printf("tg-server: stopped (a worker was still inside a move or search; abandoned)\n");
        fflush(stdout);
        _exit(0);
    }
    free_jobs(left_moves);
    free_jobs(left_bots);
    free_jobs(left_records);
    records_free(&sv);
    lobby_free(&sv);
    free_jobs(left_accounts);
    for (size_t i = 0; i < sv.account_task_count; i++)
        account_task_free(sv.account_tasks[i]);
    free(sv.account_tasks);
    sign_ins_free(&sv);
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

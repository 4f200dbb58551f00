/* What an operator sees: the loop's measures in Prometheus' text format, published once a
 * second to the web port's /metrics (the loop owns the numbers; the web thread only copies the
 * text). */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "web.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void metrics_round(struct server *sv, double round_seconds)
{
    if (round_seconds > sv->round_max)
        sv->round_max = round_seconds;
}

void metrics_commit(struct server *sv, double seconds)
{
    sv->commits++;
    sv->commit_total += seconds;
    if (seconds > sv->commit_max)
        sv->commit_max = seconds;
}

static void gauge(struct buf *b, const char *name, const char *help, const char *type,
                  const char *labels, double value)
{
    if (help)
        buf_printf(b, "# HELP tg_server_%s %s\n# TYPE tg_server_%s %s\n", name, help, name, type);
    buf_printf(b, "tg_server_%s%s %.17g\n", name, labels, value);
}

static void site_gauge(struct buf *b, const char *name, const char *help, uint64_t value)
{
    buf_printf(b, "# HELP tg_site_%s %s\n# TYPE tg_site_%s gauge\ntg_site_%s %" PRIu64 "\n", name,
               help, name, name, value);
}

void metrics_publish(struct server *sv, struct web *web)
{
    if (!web)
        return;
    size_t pinned = 0;
    for (const struct match *m = sv->pinned_head; m; m = m->lru_next)
        pinned++;
    char wal[4096];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", sv->opt.db_path);
    double wal_bytes = stat(wal, &st) == 0 ? (double)st.st_size : 0;
    struct buf b = {0};
    gauge(&b, "matches", "Matches stored.", "gauge", "", (double)sv->match_count);
    gauge(&b, "live_matches", "Matches being played (what --max-matches bounds).", "gauge", "",
          (double)sv->live_count);
    gauge(&b, "loaded_matches", "Matches in memory.", "gauge", "", (double)sv->loaded_count);
    gauge(&b, "pinned_matches", "Loaded matches that may not be unloaded now.", "gauge", "",
          (double)pinned);
    gauge(&b, "set_aside_matches", "Matches set aside as damaged.", "gauge", "",
          (double)sv->set_aside_count);
    gauge(&b, "clients", "Connections, browsers included.", "gauge", "", (double)sv->client_count);
    gauge(&b, "queued_jobs", "Jobs queued or running on the workers.", "gauge", "{pool=\"move\"}",
          (double)pool_in_flight(sv->move_pool));
    gauge(&b, "queued_jobs", NULL, "gauge", "{pool=\"bot\"}", (double)pool_in_flight(sv->bot_pool));
    gauge(&b, "queued_jobs", NULL, "gauge", "{pool=\"record\"}",
          (double)pool_in_flight(sv->record_pool));
    gauge(&b, "queued_jobs", NULL, "gauge", "{pool=\"account\"}",
          (double)pool_in_flight(sv->account_pool));
    gauge(&b, "buffered_bytes", "Output waiting for clients.", "gauge", "", (double)sv->out_total);
    gauge(&b, "wal_bytes", "Size of the write-ahead log.", "gauge", "", wal_bytes);
    gauge(&b, "halted", "1 while no change is taken after a failed commit (err halted).", "gauge",
          "", sv->halted ? 1.0 : 0.0);
    gauge(&b, "loop_round_seconds_max", "The longest round of the loop in the last second.",
          "gauge", "", sv->round_max);
    gauge(&b, "commit_seconds_max", "The longest commit (with its sync) in the last second.",
          "gauge", "", sv->commit_max);
    gauge(&b, "commits_total", "Rounds committed.", "counter", "", (double)sv->commits);
    gauge(&b, "commit_seconds_total", "Time spent committing.", "counter", "", sv->commit_total);
    gauge(&b, "refusals_total", "Commands and clients refused, by reason.", "counter",
          "{reason=\"rate-limited\"}", (double)sv->refused_rate);
    gauge(&b, "refusals_total", NULL, "counter", "{reason=\"too-many-clients\"}",
          (double)sv->refused_full);
    gauge(&b, "refusals_total", NULL, "counter", "{reason=\"watcher-dropped\"}",
          (double)sv->dropped_watchers);
    if (store_is_shared(sv->store)) { /* several servers on one PostgreSQL database */
        gauge(&b, "refusals_total", NULL, "counter", "{reason=\"leased-or-stale\"}",
              (double)sv->refused_leased);
        gauge(&b, "refreshed_total", "Copies of matches read again after another server's change.",
              "counter", "", (double)sv->refreshed);
        gauge(&b, "taken_over_total", "Matches taken over after their server's lease ran out.",
              "counter", "", (double)sv->taken_over);
        /* The site's, the same on every server (aggregate with max, never sum). */
        if (sv->site_at > 0) {
            site_gauge(&b, "matches", "Matches stored in the shared database.", sv->site.matches);
            site_gauge(&b, "matches_active",
                       "Matches being played on the whole site (what --max-matches bounds).",
                       sv->site.live);
            site_gauge(&b, "servers", "Servers that wrote their row of instances lately.",
                       sv->site.servers);
            site_gauge(&b, "clients", "Connections to all the site's servers together.",
                       sv->site.clients);
            gauge(&b, "site_counts_age_seconds", "Since the tg_site_ gauges were read.", "gauge",
                  "", sv->now - sv->site_at);
        }
        /* The database threads (db-pool.c): a queue that grows, or both threads busy for
         * long, is the database making this server's claims and writes wait. */
        struct pool *db = db_pool_workers(sv);
        size_t db_queued = 0, db_running = 0;
        if (db)
            pool_counts(db, &db_queued, &db_running);
        gauge(&b, "db_queued_jobs",
              "Jobs waiting for a database thread (claims, account and lobby writes, scans).",
              "gauge", "", (double)db_queued);
        gauge(&b, "db_busy_threads", "Database threads running a job (of 2).", "gauge", "",
              (double)db_running);
        gauge(&b, "lease_renewal_age_seconds",
              "Since this server last renewed its leases (trouble if it nears --lease).", "gauge",
              "", sv->leases_renewed_at > 0 ? sv->now - sv->leases_renewed_at : -1);
    }
    if (b.data)
        web_set_metrics(web, b.data, b.len);
    free(b.data);
    sv->round_max = sv->commit_max = 0;
}

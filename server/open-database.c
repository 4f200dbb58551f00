/* The database at start-up, before the server serves (docs/server.md, "Damage"): its
 * write-ahead log checked, damaged side tables put aside, a damaged schema page rebuilt, then
 * opened; the stored matches counted past damaged pages of `matches`, the set-aside marks
 * read, and with --check every match replayed. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "wal.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void open_database(struct server *sv, char *wal_warning, size_t warning_cap)
{
    char err[512];
    bool postgres = store_names_postgres(sv->opt.db_path); /* no file, no log, no schema page */
    if (!postgres)
        check_wal(sv->opt.db_path, wal_warning, warning_cap);
    if (!postgres)
        quarantine_damaged_tables(sv);
    sv->store = store_open(sv->opt.db_path, err, sizeof err);
    if (!sv->store && !postgres) {
        char report[1024];
        enum schema_repair r = store_repair_schema(sv->opt.db_path, report, sizeof report);
        if (r == SCHEMA_REPAIRED) {
            fprintf(stderr, "tg-server: %s\n", report);
            quarantine_damaged_tables(sv);
            sv->store = store_open(sv->opt.db_path, err, sizeof err);
        } else if (r == SCHEMA_NOT_REPAIRED && strstr(report, "schema")) {
            fatal("cannot open the database %s; %s", err, report);
        }
    }
    if (!sv->store)
        fatal("cannot open the database %s", err);
    store_set_lease(sv->store, sv->opt.lease_ms);
    if (!sv->opt.migrate_dir && !postgres &&
        !store_save_schema(sv->store, sv->opt.db_path, err, sizeof err))
        fprintf(stderr, "tg-server: cannot keep a copy of the schema: %s\n", err);
}

void survey_stored_matches(struct server *sv)
{
    struct id_gap *gaps = NULL;
    size_t gap_count = 0;
    count_matches(sv, &gaps, &gap_count);
    set_gaps_aside(sv, gaps, gap_count);
    if (!store_each_set_aside(sv->store, on_stored_set_aside, sv))
        fprintf(stderr,
                "tg-server: the set-aside marks cannot all be read (%s); matches are "
                "checked again as they load\n",
                store_error(sv->store));
    if (sv->opt.check)
        check_everything(sv, gaps, gap_count);
    sv->gaps = gaps;
    sv->gap_count = gap_count;
}

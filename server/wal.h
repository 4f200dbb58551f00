/* Reading SQLite's write-ahead log as a file (its format is public: sqlite.org/fileformat2.html
 * "The Write-Ahead Log"), for what SQLite does not say: that a damaged frame cut the log short
 * and dropped the commits after it, and, after a commit whose sync failed, taking the refused
 * frames out so that a crash cannot bring them back. */
#ifndef TG_SERVER_WAL_H
#define TG_SERVER_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wal_scan {
    bool present; /* the file exists and has a valid header */
    uint32_t page_size;
    uint32_t salt[2];
    uint64_t valid_frames;   /* frames SQLite's recovery keeps (up to the last valid commit) */
    uint64_t valid_commits;  /* committed transactions among them */
    uint64_t first_bad;      /* 1-based frame where the chain breaks, 0 if it never does */
    uint64_t lost_commits;   /* commit frames of this log's generation from first_bad on */
    uint64_t frames_in_file; /* whole frames the file holds */
};

/* Reads the log at path. A missing or empty file is present = false, no error. False (and
 * why in err) if it cannot be read. */
bool wal_scan(const char *path, struct wal_scan *out, char *err, size_t err_cap);

/* The log's header salts, for wal_refuse_after; false if the file has no valid header. */
bool wal_salts(const char *path, uint32_t salt[2]);

/* After a commit whose sync failed: makes the frames after the first acked_frames of the log
 * generation with salts acked_salt unreadable to SQLite's recovery (or, if the log was restarted
 * since, the whole log, whose every frame is already in the database), then syncs the file.
 * False (why in err) if that cannot be done or synced: the state on disk is then unknown. */
bool wal_refuse_after(const char *path, const uint32_t acked_salt[2], uint64_t acked_frames,
                      char *err, size_t err_cap);

#endif

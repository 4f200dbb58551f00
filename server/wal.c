/* SQLite's write-ahead log read as a file (wal.h). The layout: a 32-byte header (magic, format,
 * page size, checkpoint sequence, two salts, a checksum of the first 24 bytes), then frames of a
 * 24-byte header (page number, the database's size in pages after a commit or 0, the salts, a
 * running checksum) and one page each. All fields big-endian; the checksums add 32-bit words in
 * the byte order the magic names. */
#define _POSIX_C_SOURCE 200809L

#include "wal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WAL_HEADER 32
#define FRAME_HEADER 24
#define WAL_MAGIC 0x377f0682u

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | (uint32_t)p[0];
}

/* SQLite's checksum: s0 += x0 + s1, s1 += x1 + s0 over pairs of words. */
static void checksum(bool big, const unsigned char *p, size_t n, uint32_t s[2])
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        s[0] += (big ? be32(p + i) : le32(p + i)) + s[1];
        s[1] += (big ? be32(p + i + 4) : le32(p + i + 4)) + s[0];
    }
}

/* All n bytes at `at`, through interruptions and short counts: read into `to`, or (to NULL)
 * written from `from`. One loop for both directions, so that they cannot drift apart. */
static bool transfer_all(int fd, void *to, const void *from, size_t n, off_t at)
{
    size_t done = 0;
    while (done < n) {
        off_t where = at + (off_t)done;
        ssize_t r = to ? pread(fd, (unsigned char *)to + done, n - done, where)
                       : pwrite(fd, (const unsigned char *)from + done, n - done, where);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

static bool read_all(int fd, void *to, size_t n, off_t at)
{
    return transfer_all(fd, to, NULL, n, at);
}

static bool write_all(int fd, const void *from, size_t n, off_t at)
{
    return transfer_all(fd, NULL, from, n, at);
}

/* The header, checked: its magic, a page size SQLite allows, and its checksum. */
static bool read_header(int fd, unsigned char h[WAL_HEADER], bool *big, uint32_t *page_size)
{
    if (!read_all(fd, h, WAL_HEADER, 0) || (be32(h) & ~1u) != WAL_MAGIC)
        return false;
    *big = be32(h) & 1u;
    *page_size = be32(h + 8);
    if (*page_size < 512 || *page_size > 65536 || (*page_size & (*page_size - 1)))
        return false;
    uint32_t s[2] = {0, 0};
    checksum(*big, h, 24, s);
    return s[0] == be32(h + 24) && s[1] == be32(h + 28);
}

bool wal_scan(const char *path, struct wal_scan *out, char *err, size_t err_cap)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return true;
        snprintf(err, err_cap, "%s: %s", path, strerror(errno));
        return false;
    }
    struct stat info;
    unsigned char h[WAL_HEADER];
    bool big;
    if (fstat(fd, &info) != 0 || !read_header(fd, h, &big, &out->page_size)) {
        close(fd); /* no valid header: SQLite ignores the whole file, and so does this */
        return true;
    }
    out->present = true;
    out->salt[0] = be32(h + 16);
    out->salt[1] = be32(h + 20);
    size_t frame = FRAME_HEADER + out->page_size;
    out->frames_in_file = ((uint64_t)info.st_size - WAL_HEADER) / frame;
    unsigned char *f = malloc(frame);
    if (!f) {
        close(fd);
        snprintf(err, err_cap, "out of memory");
        return false;
    }
    uint32_t s[2] = {be32(h + 24), be32(h + 28)};
    uint64_t commits = 0;
    for (uint64_t i = 0; i < out->frames_in_file; i++) {
        if (!read_all(fd, f, frame, (off_t)(WAL_HEADER + i * frame))) {
            free(f);
            close(fd);
            snprintf(err, err_cap, "%s: cannot read frame %llu", path, (unsigned long long)i + 1);
            return false;
        }
        bool ours = be32(f + 8) == out->salt[0] && be32(f + 12) == out->salt[1];
        bool commit = be32(f + 4) != 0;
        if (!out->first_bad) {
            checksum(big, f, 8, s);
            checksum(big, f + FRAME_HEADER, out->page_size, s);
            if (ours && be32(f) != 0 && s[0] == be32(f + 16) && s[1] == be32(f + 20)) {
                if (commit) {
                    out->valid_frames = i + 1;
                    out->valid_commits = ++commits;
                }
                continue;
            }
            out->first_bad = i + 1;
        }
        /* Past the break: a commit frame of this generation is a transaction SQLite drops. */
        if (ours && commit)
            out->lost_commits++;
    }
    free(f);
    close(fd);
    return true;
}

bool wal_salts(const char *path, uint32_t salt[2])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    unsigned char h[WAL_HEADER];
    bool big;
    uint32_t page_size;
    bool ok = read_header(fd, h, &big, &page_size);
    close(fd);
    if (ok) {
        salt[0] = be32(h + 16);
        salt[1] = be32(h + 20);
    }
    return ok;
}

bool wal_refuse_after(const char *path, const uint32_t acked_salt[2], uint64_t acked_frames,
                      char *err, size_t err_cap)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return true; /* no log: nothing of the refused round can come back */
        snprintf(err, err_cap, "%s: %s", path, strerror(errno));
        return false;
    }
    struct stat info;
    unsigned char h[WAL_HEADER];
    bool big;
    uint32_t page_size;
    bool ok = true;
    if (fstat(fd, &info) != 0) {
        ok = false;
    } else if (read_header(fd, h, &big, &page_size)) {
        bool same = be32(h + 16) == acked_salt[0] && be32(h + 20) == acked_salt[1];
        off_t at = same ? (off_t)(WAL_HEADER + acked_frames * (FRAME_HEADER + page_size)) : 0;
        /* A frame whose salts differ from the header's ends SQLite's recovery there; a header
         * whose checksum fails makes it ignore the log (restarted logs start only once every
         * earlier frame is in the database). */
        unsigned char spoil[8];
        if (!same || at + FRAME_HEADER <= info.st_size) {
            off_t field = same ? at + 8 : 24;
            ok = read_all(fd, spoil, sizeof spoil, field);
            for (size_t i = 0; i < sizeof spoil; i++)
                spoil[i] = (unsigned char)~spoil[i];
            ok = ok && write_all(fd, spoil, sizeof spoil, field);
        }
    }
    ok = ok && fdatasync(fd) == 0;
    if (!ok)
        snprintf(err, err_cap, "%s: %s", path, strerror(errno));
    close(fd);
    return ok;
}

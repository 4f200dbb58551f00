/* The database file (docs/egtb.md, "Files"): blocks compressed by zstd, each a frame with its
 * own content checksum, then a header frame (rules, counter number, format version, the block
 * table), then a fixed trailer that says where the header is. Written front to back in one
 * pass, so a builder streams layers to disk as it finishes them. */
#ifndef TG_EGTB_FILE_H
#define TG_EGTB_FILE_H

#include "index.h"

#include <stdint.h>
#include <stdio.h>

#define TG__EGTB_FORMAT_VERSION 1u

/* The fixed parts of the layout: magic, trailer, the header's fixed fields, one block entry. */
enum {
    TG__EGTB_MAGIC_BYTES = 8,
    TG__EGTB_TRAILER_BYTES = 16,
    TG__EGTB_HEADER_FIXED_BYTES = 4 + TG__SPEC_MAX + 4 * 4 + 8 + 8,
    TG__EGTB_BLOCK_REF_BYTES = 12
};

struct tg_egtb_block_ref {
    uint64_t offset;
    uint32_t size;
};

/* What a file says about itself. */
struct tg_egtb_header {
    uint32_t version;
    char spec[TG__SPEC_MAX]; /* canonical rules spec */
    uint32_t holes, counters, quiet, block_entries;
    uint64_t layer_entries;
    uint64_t block_count; /* quiet * blocks per layer, layer (quiet count) major */
    struct tg_egtb_block_ref *blocks;
};

/* Writing: blocks in any order, then the header. */
struct tg_egtb_writer {
    FILE *f;
    uint64_t offset;
    struct tg_egtb_header header;
    uint64_t written; /* blocks so far */
};

/* The file name of a counter number: "halusa-08.egtb"; false if it does not fit. */
bool tg__egtb_file_name(const struct tg_config *cfg, unsigned counters, const char *dir,
                        char *buf, size_t cap);

tg_egtb_status tg__egtb_writer_open(struct tg_egtb_writer *w, const char *path,
                                    const struct tg_rules *rules, const struct tg_egtb_tier *t);
/* Compresses `n` entries with a checksum into `out` (capacity tg__egtb_block_bound()); the
 * compressed size, or 0 on failure. Thread-safe: workers compress, one writer writes. */
size_t tg__egtb_block_bound(void);
size_t tg__egtb_compress(const int8_t *values, size_t n, void *out, size_t cap);
/* Appends block number `index` of the table (layer major: quiet count * blocks a layer + j). */
tg_egtb_status tg__egtb_writer_block(struct tg_egtb_writer *w, uint64_t index, const void *data,
                                     size_t size);
/* Writes the header and trailer and closes; on any failure the file is closed too. */
tg_egtb_status tg__egtb_writer_finish(struct tg_egtb_writer *w);
void tg__egtb_writer_abandon(struct tg_egtb_writer *w);

/* Reading. Native builds (file.c) read the files with open/pread and libzstd; the WebAssembly
 * build (host.c) asks its JavaScript host, which reads and decompresses them. A "file" is an
 * int either way: a descriptor, or the host's number for it. */
tg_egtb_status tg__egtb_dir_check(const char *dir);
tg_egtb_status tg__egtb_file_open(const char *path, int *fd);
void tg__egtb_file_close(int fd);
/* The header of an open file (blocks allocated, freed by tg__egtb_header_free). */
tg_egtb_status tg__egtb_read_header(int fd, struct tg_egtb_header *h);
void tg__egtb_header_free(struct tg_egtb_header *h);
/* header.c: the checks and fields of a header's uncompressed bytes (`raw_size` of them) whose
 * frame starts at `header_offset` (no block may reach past it). */
tg_egtb_status tg__egtb_parse_header(const uint8_t *raw, size_t raw_size, uint64_t header_offset,
                                     struct tg_egtb_header *h);
/* Entries in block `b`: h->block_entries, fewer in the last block of a layer. */
uint64_t tg__egtb_block_length(const struct tg_egtb_header *h, uint64_t b);
uint32_t tg__egtb_get32(const uint8_t *p);
uint64_t tg__egtb_get64(const uint8_t *p);
/* What one reader reuses from block to block: a decompression context and the buffer the
 * compressed frame is read into (grown as needed). A reader's own: never shared by threads. */
struct ZSTD_DCtx_s;
struct tg__egtb_scratch {
    struct ZSTD_DCtx_s *dctx;
    void *packed;
    size_t packed_cap;
};
/* Releases what a scratch holds (not the struct itself). */
void tg__egtb_scratch_release(struct tg__egtb_scratch *scratch);
/* Block `b` into `out` (h->block_entries entries; the last block of a layer may be shorter:
 * `*n` says how many). Thread-safe (pread). `scratch`: NULL to allocate a buffer and a
 * context for this read only, else the caller's to reuse (its context made at first use). */
tg_egtb_status tg__egtb_read_block(int fd, const struct tg_egtb_header *h, uint64_t b,
                                   int8_t *out, size_t *n, struct tg__egtb_scratch *scratch);

#endif

/* pread, fileno, O_CLOEXEC: POSIX.1-2008 beyond C11. */
#define _POSIX_C_SOURCE 200809L

#include "file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getFrameHeader: the checksum flag */
#include <zstd.h>

static const char file_magic[8] = {'T', 'G', '-', 'E', 'G', 'T', 'B', '\n'};
static const char trailer_magic[4] = {'E', 'G', 'T', 'B'};
enum {
    TRAILER_BYTES = TG__EGTB_TRAILER_BYTES,
    HEADER_FIXED_BYTES = TG__EGTB_HEADER_FIXED_BYTES,
    BLOCK_REF_BYTES = TG__EGTB_BLOCK_REF_BYTES,
    /* Checksums and small frames cost little; a higher level buys little on these runs. */
    COMPRESSION_LEVEL = 3
};
/* A header frame larger than this is not one this library wrote. */
#define HEADER_MAX_BYTES (UINT64_C(1) << 30)

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

tg_egtb_status tg__egtb_writer_open(struct tg_egtb_writer *w, const char *path,
                                    const struct tg_rules *rules, const struct tg_egtb_tier *t)
{
    memset(w, 0, sizeof *w);
    struct tg_egtb_header *h = &w->header;
    h->version = TG__EGTB_FORMAT_VERSION;
    memcpy(h->spec, rules->spec, sizeof h->spec);
    h->holes = t->holes;
    h->counters = t->counters;
    h->quiet = t->quiet;
    h->block_entries = TG__EGTB_BLOCK_ENTRIES;
    h->layer_entries = t->layer_entries;
    h->block_count = (uint64_t)t->quiet * t->layer_blocks;
    h->blocks = tg__realloc(NULL, (size_t)h->block_count * sizeof *h->blocks);
    if (!h->blocks)
        return TG_EGTB_NO_MEMORY;
    w->f = fopen(path, "wb");
    if (!w->f || fwrite(file_magic, 1, sizeof file_magic, w->f) != sizeof file_magic) {
        tg__egtb_writer_abandon(w);
        return TG_EGTB_IO_ERROR;
    }
    w->offset = sizeof file_magic;
    return TG_EGTB_OK;
}

size_t tg__egtb_block_bound(void)
{
    return ZSTD_compressBound(TG__EGTB_BLOCK_ENTRIES);
}

size_t tg__egtb_compress(const int8_t *values, size_t n, void *out, size_t cap)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (!c)
        return 0;
    size_t size = 0;
    if (!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, COMPRESSION_LEVEL)) &&
        !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1))) {
        size = ZSTD_compress2(c, out, cap, values, n);
        if (ZSTD_isError(size))
            size = 0;
    }
    ZSTD_freeCCtx(c);
    return size;
}

tg_egtb_status tg__egtb_writer_block(struct tg_egtb_writer *w, uint64_t index, const void *data,
                                     size_t size)
{
    if (w->written >= w->header.block_count || index >= w->header.block_count ||
        size > UINT32_MAX)
        return TG_EGTB_BAD_ARGUMENT;
    if (fwrite(data, 1, size, w->f) != size)
        return TG_EGTB_IO_ERROR;
    w->header.blocks[index].offset = w->offset;
    w->header.blocks[index].size = (uint32_t)size;
    w->written++;
    w->offset += size;
    return TG_EGTB_OK;
}

void tg__egtb_writer_abandon(struct tg_egtb_writer *w)
{
    if (w->f)
        fclose(w->f);
    w->f = NULL;
    tg__egtb_header_free(&w->header);
}

tg_egtb_status tg__egtb_writer_finish(struct tg_egtb_writer *w)
{
    struct tg_egtb_header *h = &w->header;
    if (w->written != h->block_count) {
        tg__egtb_writer_abandon(w);
        return TG_EGTB_BAD_ARGUMENT;
    }
    size_t raw_size = HEADER_FIXED_BYTES + (size_t)h->block_count * BLOCK_REF_BYTES;
    uint8_t *raw = tg__realloc(NULL, raw_size);
    size_t cap = ZSTD_compressBound(raw_size);
    uint8_t *packed = tg__realloc(NULL, cap);
    tg_egtb_status st = TG_EGTB_NO_MEMORY;
    if (raw && packed) {
        uint8_t *p = raw;
        put32(p, h->version);
        memcpy(p + 4, h->spec, TG__SPEC_MAX);
        p += 4 + TG__SPEC_MAX;
        put32(p, h->holes);
        put32(p + 4, h->counters);
        put32(p + 8, h->quiet);
        put32(p + 12, h->block_entries);
        put64(p + 16, h->layer_entries);
        put64(p + 24, h->block_count);
        p += 32;
        for (uint64_t b = 0; b < h->block_count; b++, p += BLOCK_REF_BYTES) {
            put64(p, h->blocks[b].offset);
            put32(p + 8, h->blocks[b].size);
        }
        size_t size = tg__egtb_compress((const int8_t *)raw, raw_size, packed, cap);
        uint8_t trailer[TRAILER_BYTES];
        put64(trailer, w->offset);
        put32(trailer + 8, (uint32_t)size);
        memcpy(trailer + 12, trailer_magic, sizeof trailer_magic);
        st = size && fwrite(packed, 1, size, w->f) == size &&
                     fwrite(trailer, 1, sizeof trailer, w->f) == sizeof trailer
                 ? TG_EGTB_OK
                 : TG_EGTB_IO_ERROR;
    }
    tg__realloc(raw, 0);
    tg__realloc(packed, 0);
    if (fclose(w->f) != 0 && st == TG_EGTB_OK)
        st = TG_EGTB_IO_ERROR;
    w->f = NULL;
    tg__egtb_header_free(h);
    return st;
}

/* pread of exactly n bytes: DAMAGED if the file is shorter, IO_ERROR if reading fails. */
static tg_egtb_status read_at(int fd, void *buf, size_t n, uint64_t offset)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t got = pread(fd, p, n, (off_t)offset);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return TG_EGTB_IO_ERROR;
        if (got == 0)
            return TG_EGTB_DAMAGED;
        p += got;
        n -= (size_t)got;
        offset += (uint64_t)got;
    }
    return TG_EGTB_OK;
}

tg_egtb_status tg__egtb_read_header(int fd, struct tg_egtb_header *h)
{
    memset(h, 0, sizeof *h);
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return TG_EGTB_IO_ERROR;
    uint64_t file_size = (uint64_t)sb.st_size;
    if (file_size < sizeof file_magic + TRAILER_BYTES)
        return TG_EGTB_DAMAGED;
    char magic[sizeof file_magic];
    uint8_t trailer[TRAILER_BYTES];
    tg_egtb_status st = read_at(fd, magic, sizeof magic, 0);
    if (st == TG_EGTB_OK)
        st = read_at(fd, trailer, sizeof trailer, file_size - TRAILER_BYTES);
    if (st != TG_EGTB_OK)
        return st;
    uint64_t header_offset = tg__egtb_get64(trailer);
    uint32_t header_size = tg__egtb_get32(trailer + 8);
    if (memcmp(magic, file_magic, sizeof magic) != 0 ||
        memcmp(trailer + 12, trailer_magic, sizeof trailer_magic) != 0 ||
        header_offset < sizeof file_magic ||
        header_offset + header_size + TRAILER_BYTES != file_size)
        return TG_EGTB_DAMAGED;
    uint8_t *packed = tg__realloc(NULL, header_size ? header_size : 1);
    if (!packed)
        return TG_EGTB_NO_MEMORY;
    st = read_at(fd, packed, header_size, header_offset);
    if (st != TG_EGTB_OK) {
        tg__realloc(packed, 0);
        return st;
    }
    unsigned long long raw_size = ZSTD_getFrameContentSize(packed, header_size);
    if (raw_size == ZSTD_CONTENTSIZE_ERROR || raw_size == ZSTD_CONTENTSIZE_UNKNOWN ||
        raw_size > HEADER_MAX_BYTES) {
        tg__realloc(packed, 0);
        return TG_EGTB_DAMAGED;
    }
    uint8_t *raw = tg__realloc(NULL, (size_t)raw_size + 1);
    if (!raw) {
        tg__realloc(packed, 0);
        return TG_EGTB_NO_MEMORY;
    }
    size_t got = ZSTD_decompress(raw, (size_t)raw_size, packed, header_size);
    tg__realloc(packed, 0);
    if (ZSTD_isError(got) || got != raw_size)
        st = TG_EGTB_DAMAGED;
    else
        st = tg__egtb_parse_header(raw, (size_t)raw_size, header_offset, h);
    tg__realloc(raw, 0);
    return st;
}

void tg__egtb_scratch_release(struct tg__egtb_scratch *scratch)
{
    ZSTD_freeDCtx(scratch->dctx);
    tg__realloc(scratch->packed, 0);
    scratch->dctx = NULL;
    scratch->packed = NULL;
    scratch->packed_cap = 0;
}

/* Room for a frame of `size` bytes in the scratch, and its context; false if out of memory. */
static bool scratch_ready(struct tg__egtb_scratch *scratch, size_t size)
{
    if (!scratch->dctx && !(scratch->dctx = ZSTD_createDCtx()))
        return false;
    if (scratch->packed_cap < size) {
        void *grown = tg__realloc(scratch->packed, size);
        if (!grown)
            return false;
        scratch->packed = grown;
        scratch->packed_cap = size;
    }
    return true;
}

tg_egtb_status tg__egtb_read_block(int fd, const struct tg_egtb_header *h, uint64_t b,
                                   int8_t *out, size_t *n, struct tg__egtb_scratch *scratch)
{
    uint64_t want = tg__egtb_block_length(h, b);
    const struct tg_egtb_block_ref *ref = &h->blocks[b];
    struct tg__egtb_scratch once = {NULL, NULL, 0};
    struct tg__egtb_scratch *use = scratch ? scratch : &once;
    if (!scratch_ready(use, ref->size)) {
        tg__egtb_scratch_release(&once);
        return TG_EGTB_NO_MEMORY;
    }
    void *packed = use->packed;
    tg_egtb_status st = read_at(fd, packed, ref->size, ref->offset);
    ZSTD_frameHeader fh;
    /* A frame without its checksum is not one this library wrote (a flipped flag bit). */
    if (st == TG_EGTB_OK &&
        (ZSTD_getFrameHeader(&fh, packed, ref->size) != 0 || !fh.checksumFlag))
        st = TG_EGTB_DAMAGED;
    if (st == TG_EGTB_OK) {
        /* The frame's own checksum (written with ZSTD_c_checksumFlag) is checked here. A
         * context left in an error state by a damaged frame is reset by the next call. */
        size_t got = ZSTD_decompressDCtx(use->dctx, out, (size_t)want, packed, ref->size);
        st = ZSTD_isError(got) || got != want ? TG_EGTB_DAMAGED : TG_EGTB_OK;
    }
    tg__egtb_scratch_release(&once);
    if (st == TG_EGTB_OK)
        *n = (size_t)want;
    return st;
}

tg_egtb_status tg__egtb_dir_check(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOMEM ? TG_EGTB_NO_MEMORY : TG_EGTB_IO_ERROR;
    closedir(d);
    return TG_EGTB_OK;
}

tg_egtb_status tg__egtb_file_open(const char *path, int *fd)
{
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return errno == ENOENT ? TG_EGTB_MISSING_FILE : TG_EGTB_IO_ERROR;
    return TG_EGTB_OK;
}

void tg__egtb_file_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

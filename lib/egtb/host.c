/* Reading database files in the WebAssembly build (docs/egtb.md, "JavaScript"). The module has
 * no file system and no libzstd, so each read is an import its JavaScript host provides
 * (bindings/js/traditional-games.js, module "tg_egtb"). The host answers from bytes it fetched
 * and decompressed before the call: a WebAssembly import cannot wait for a file or a network
 * read. What it does not hold yet it notes as needed and answers TG_EGTB_IO_ERROR; the host's
 * asynchronous wrapper then fetches what was noted and calls again. A block whose frame fails
 * its XXH64 checksum is answered TG_EGTB_DAMAGED, as libzstd's check does natively. */
#include "file.h"

#include <string.h>

#define TG__HOST_IMPORT(name) __attribute__((import_module("tg_egtb"), import_name(name)))

/* TG_EGTB_OK if the directory can be read. */
TG__HOST_IMPORT("dir") int32_t tg__egtb_host_dir(const char *dir, size_t length);
/* The host's number (0 or more) for the file at `path`, or minus a tg_egtb_status. */
TG__HOST_IMPORT("open") int32_t tg__egtb_host_open(const char *path, size_t length);
TG__HOST_IMPORT("close") void tg__egtb_host_close(int32_t file);
/* The uncompressed size of the file's header (0 or more), its frame's offset in
 * `*frame_offset`; or minus a status (TG_EGTB_DAMAGED: bad magic, trailer or checksum). */
TG__HOST_IMPORT("header_size")
int32_t tg__egtb_host_header_size(int32_t file, uint64_t *frame_offset);
/* The uncompressed header into `out` (`size` bytes, as header_size said): a status. */
TG__HOST_IMPORT("header") int32_t tg__egtb_host_header(int32_t file, uint8_t *out, size_t size);
/* The `want` entries of the block whose frame is `size` bytes at `offset`, into `out`. */
TG__HOST_IMPORT("block")
int32_t tg__egtb_host_block(int32_t file, uint64_t offset, uint32_t size, int8_t *out, size_t want);

tg_egtb_status tg__egtb_dir_check(const char *dir)
{
    return (tg_egtb_status)tg__egtb_host_dir(dir, strlen(dir));
}

tg_egtb_status tg__egtb_file_open(const char *path, int *fd)
{
    int32_t file = tg__egtb_host_open(path, strlen(path));
    *fd = file >= 0 ? (int)file : -1;
    return file >= 0 ? TG_EGTB_OK : (tg_egtb_status)-file;
}

void tg__egtb_file_close(int fd)
{
    if (fd >= 0)
        tg__egtb_host_close(fd);
}

tg_egtb_status tg__egtb_read_header(int fd, struct tg_egtb_header *h)
{
    memset(h, 0, sizeof *h);
    uint64_t frame_offset = 0;
    int32_t size = tg__egtb_host_header_size(fd, &frame_offset);
    if (size < 0)
        return (tg_egtb_status)-size;
    uint8_t *raw = tg__realloc(NULL, (size_t)size + 1);
    if (!raw)
        return TG_EGTB_NO_MEMORY;
    tg_egtb_status st = (tg_egtb_status)tg__egtb_host_header(fd, raw, (size_t)size);
    if (st == TG_EGTB_OK)
        st = tg__egtb_parse_header(raw, (size_t)size, frame_offset, h);
    tg__realloc(raw, 0);
    return st;
}

void tg__egtb_scratch_release(struct tg__egtb_scratch *scratch)
{
    /* The host decompresses: a scratch never holds anything here. */
    scratch->dctx = NULL;
    scratch->packed = NULL;
    scratch->packed_cap = 0;
}

tg_egtb_status tg__egtb_read_block(int fd, const struct tg_egtb_header *h, uint64_t b, int8_t *out,
                                   size_t *n, struct tg__egtb_scratch *scratch)
{
    (void)scratch;
    size_t want = (size_t)tg__egtb_block_length(h, b);
    const struct tg_egtb_block_ref *ref = &h->blocks[b];
    tg_egtb_status st = (tg_egtb_status)tg__egtb_host_block(fd, ref->offset, ref->size, out, want);
    if (st == TG_EGTB_OK)
        *n = want;
    return st;
}

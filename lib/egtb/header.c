/* The header of a database file (docs/egtb.md, "Files"), read from its uncompressed bytes.
 * Shared by both ways of reading the files: native builds read them with pread and libzstd
 * (file.c), the WebAssembly build is handed the bytes by its JavaScript host (host.c); either
 * way the checks of what a header says are these. */
#include "file.h"

#include <string.h>

uint32_t tg__egtb_get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

uint64_t tg__egtb_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void tg__egtb_header_free(struct tg_egtb_header *h)
{
    tg__realloc(h->blocks, 0);
    h->blocks = NULL;
}

tg_egtb_status tg__egtb_parse_header(const uint8_t *raw, size_t raw_size, uint64_t header_offset,
                                     struct tg_egtb_header *h)
{
    if (raw_size < TG__EGTB_HEADER_FIXED_BYTES)
        return TG_EGTB_DAMAGED;
    h->version = tg__egtb_get32(raw);
    if (h->version != TG__EGTB_FORMAT_VERSION)
        return TG_EGTB_DAMAGED;
    memcpy(h->spec, raw + 4, TG__SPEC_MAX);
    if (memchr(h->spec, '\0', TG__SPEC_MAX) == NULL)
        return TG_EGTB_DAMAGED;
    const uint8_t *p = raw + 4 + TG__SPEC_MAX;
    h->holes = tg__egtb_get32(p);
    h->counters = tg__egtb_get32(p + 4);
    h->quiet = tg__egtb_get32(p + 8);
    h->block_entries = tg__egtb_get32(p + 12);
    h->layer_entries = tg__egtb_get64(p + 16);
    h->block_count = tg__egtb_get64(p + 24);
    if (h->block_entries != TG__EGTB_BLOCK_ENTRIES || h->layer_entries == 0 ||
        h->block_count != (raw_size - TG__EGTB_HEADER_FIXED_BYTES) / TG__EGTB_BLOCK_REF_BYTES ||
        (raw_size - TG__EGTB_HEADER_FIXED_BYTES) % TG__EGTB_BLOCK_REF_BYTES != 0)
        return TG_EGTB_DAMAGED;
    h->blocks = tg__realloc(NULL, (size_t)h->block_count * sizeof *h->blocks + 1);
    if (!h->blocks)
        return TG_EGTB_NO_MEMORY;
    p += 32;
    for (uint64_t b = 0; b < h->block_count; b++, p += TG__EGTB_BLOCK_REF_BYTES) {
        h->blocks[b].offset = tg__egtb_get64(p);
        h->blocks[b].size = tg__egtb_get32(p + 8);
        if (h->blocks[b].offset < TG__EGTB_MAGIC_BYTES || h->blocks[b].size == 0 ||
            h->blocks[b].offset + h->blocks[b].size > header_offset) {
            tg__egtb_header_free(h);
            return TG_EGTB_DAMAGED;
        }
    }
    return TG_EGTB_OK;
}

uint64_t tg__egtb_block_length(const struct tg_egtb_header *h, uint64_t b)
{
    uint64_t layer_blocks = (h->layer_entries + h->block_entries - 1) / h->block_entries;
    uint64_t first = b % layer_blocks * h->block_entries;
    return h->layer_entries - first < h->block_entries ? h->layer_entries - first
                                                       : h->block_entries;
}

bool tg__egtb_file_name(const struct tg_config *cfg, unsigned counters, const char *dir, char *buf,
                        size_t cap)
{
    /* Written out rather than with snprintf, whose stdio would make the WebAssembly module
     * import WASI's file writes. Counter numbers are at most 72: two digits. */
    char number[3] = {(char)('0' + counters / 10 % 10), (char)('0' + counters % 10), '\0'};
    const char *parts[] = {dir, "/", cfg->game->id, "-", number, ".egtb"};
    size_t at = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t length = strlen(parts[i]);
        if (length >= cap - at)
            return false;
        memcpy(buf + at, parts[i], length);
        at += length;
    }
    buf[at] = '\0';
    return true;
}

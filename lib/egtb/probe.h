/* Between the open directory (probe.c) and its readers (reader.c, the search): where a
 * position's entry lies and what a stored entry means for a position. */
#ifndef TG_EGTB_PROBE_H
#define TG_EGTB_PROBE_H

#include "file.h"

/* The entry of a position: its file, the file's header, the block and the entry in it. */
struct tg__egtb_where {
    int fd;
    const struct tg_egtb_header *header;
    unsigned counters;
    uint64_t block;
    size_t entry;
};

/* The rule set the directory was opened for. */
const struct tg_rules *tg__egtb_rules(const tg_egtb *db);
/* Where the entry of running position `pos` (of the directory's rules: not checked) lies,
 * or why there is none (finished, too many counters, a missing or damaged file). */
tg_egtb_status tg__egtb_locate(const tg_egtb *db, const struct tg_pos *pos,
                               struct tg__egtb_where *where);
/* The value of `pos` whose entry holds `stored`: the banked scores added. */
tg_egtb_status tg__egtb_decode(const struct tg_pos *pos, int stored, tg_egtb_value *out);

/* reader.c: a probe by a reader of a position of the directory's rules (not checked). */
tg_egtb_status tg__egtb_reader_probe_pos(tg_egtb_reader *reader, const struct tg_pos *pos,
                                         tg_egtb_value *out);
/* The directory a reader reads. */
const tg_egtb *tg__egtb_reader_db(const tg_egtb_reader *reader);

#endif

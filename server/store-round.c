/* The round's transaction on SQLite (store.h): begun at a round's first change, a savepoint
 * around each change so that one failing change does not take the others with it, committed
 * or rolled back whole; and, after a commit that failed, the log settled so that the refused
 * round cannot reappear. PostgreSQL's is store-pg-round.c. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-private.h"
#include "store-pg.h"
#include "wal.h"

#include <sqlite3.h>

#include <stdint.h>
#include <string.h>

static bool run_plain(struct store *st, enum stmt_id id)
{
    sqlite3_stmt *s = store_prepared(st, id);
    return s && store_run(st, s);
}

bool store_settle(struct store *st, char *err, size_t err_cap)
{
    if (st->pg)
        return true; /* PostgreSQL rolls a failed commit back itself */
    static const uint32_t none[2] = {0, 0};
    return wal_refuse_after(st->wal_path, st->have_salt ? st->acked_salt : none,
                            st->have_salt ? st->acked_frames : 0, err, err_cap);
}

bool store_begin_round(struct store *st)
{
    if (st->pg)
        return pg_begin_round(st->pg);
    return run_plain(st, S_BEGIN);
}

bool store_in_transaction(const struct store *st)
{
    if (st->pg)
        return pg_in_transaction(st->pg);
    return !sqlite3_get_autocommit(st->db);
}

bool store_change_begin(struct store *st)
{
    if (st->pg)
        return pg_change_begin(st->pg);
    if (!store_in_transaction(st) && !store_begin_round(st))
        return false;
    return run_plain(st, S_SAVEPOINT);
}

enum change_outcome store_change_end(struct store *st, bool ok)
{
    if (st->pg)
        return pg_change_end(st->pg, ok);
    if (!store_in_transaction(st))
        return CHANGE_ROUND_LOST; /* SQLite rolled it all back (an I/O error, a full disk) */
    if (ok && run_plain(st, S_RELEASE))
        return CHANGE_KEPT;
    int code = st->last_code;
    char why[sizeof st->last_error];
    memcpy(why, st->last_error, sizeof why);
    bool kept = run_plain(st, S_ROLLBACK_TO) && run_plain(st, S_RELEASE);
    st->last_code = code; /* the caller wants the change's own error, not the rollback's */
    memcpy(st->last_error, why, sizeof why);
    return kept && store_in_transaction(st) ? CHANGE_DROPPED : CHANGE_ROUND_LOST;
}

bool store_commit_round(struct store *st)
{
    if (st->pg)
        return pg_commit_round(st->pg);
    if (!store_in_transaction(st))
        return true;
    if (run_plain(st, S_COMMIT))
        return true;
    store_rollback_round(st);
    return false;
}

void store_rollback_round(struct store *st)
{
    if (st->pg) {
        pg_rollback_round(st->pg);
        return;
    }
    if (store_in_transaction(st)) {
        int code = st->last_code;
        run_plain(st, S_ROLLBACK);
        st->last_code = code;
    }
}

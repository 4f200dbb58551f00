/* Accounts, sessions and the accounts of seats in the SQLite database (store.h; the statements
 * are store.c's, PostgreSQL's are store-pg-accounts.c's). Outside a round each call is its
 * own transaction, synced like a round's commit. */
#define _POSIX_C_SOURCE 200809L

#include "store.h"
#include "store-pg.h"
#include "store-private.h"

#include <sqlite3.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static sqlite3_int64 now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (sqlite3_int64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Account writes never join a round: a round's failure must not take them along, nor they it. */
static bool between_rounds(struct store *st)
{
    if (!store_in_transaction(st))
        return true;
    snprintf(st->last_error, sizeof st->last_error, "an account write inside a round");
    return false;
}

static void copy_text(char *out, size_t cap, const unsigned char *text)
{
    snprintf(out, cap, "%s", text ? (const char *)text : "");
}

/* Reads one account row (id, name, password_hash) of a statement already bound. */
static enum account_result one_account(struct store *st, sqlite3_stmt *s,
                                       struct stored_account *out)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->id = store_as_unsigned(sqlite3_column_int64(s, 0));
        copy_text(out->name, sizeof out->name, sqlite3_column_text(s, 1));
        if (sqlite3_column_count(s) > 2)
            copy_text(out->password_hash, sizeof out->password_hash, sqlite3_column_text(s, 2));
    }
    sqlite3_reset(s);
    if (rc == SQLITE_ROW)
        return ACCOUNT_OK;
    if (rc == SQLITE_DONE)
        return ACCOUNT_NOT_FOUND;
    store_failed(st, rc);
    return ACCOUNT_FAILED;
}

enum account_result store_create_account(struct store *st, const char *name, const char *folded,
                                         const char *password_hash, uint64_t *id)
{
    if (st->pg)
        return pg_create_account(st->pg, name, folded, password_hash, id);
    sqlite3_stmt *s = between_rounds(st) ? store_prepared(st, S_INSERT_ACCOUNT) : NULL;
    if (!s)
        return ACCOUNT_FAILED;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, folded, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, now_ms());
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) {
        *id = store_as_unsigned(sqlite3_last_insert_rowid(st->db));
        return ACCOUNT_OK;
    }
    store_failed(st, rc);
    return sqlite3_extended_errcode(st->db) == SQLITE_CONSTRAINT_UNIQUE ? ACCOUNT_TAKEN
                                                                        : ACCOUNT_FAILED;
}

enum account_result store_find_account(struct store *st, const char *folded,
                                       struct stored_account *out)
{
    if (st->pg)
        return pg_find_account(st->pg, folded, out);
    sqlite3_stmt *s = store_prepared(st, S_FIND_ACCOUNT);
    if (!s)
        return ACCOUNT_FAILED;
    sqlite3_bind_text(s, 1, folded, -1, SQLITE_STATIC);
    return one_account(st, s, out);
}

/* A few statements as one transaction: all of them or none. */
static bool in_transaction(struct store *st, bool (*body)(struct store *, uint64_t, const void *),
                           uint64_t id, const void *arg)
{
    if (!between_rounds(st) || !store_begin_round(st))
        return false;
    if (body(st, id, arg) && store_commit_round(st))
        return true;
    char why[sizeof st->last_error];
    memcpy(why, st->last_error, sizeof why);
    if (store_in_transaction(st))
        store_rollback_round(st);
    memcpy(st->last_error, why, sizeof why);
    return false;
}

struct new_session {
    const char *token_hash;
    int64_t lifetime_ms;
};

static bool insert_session(struct store *st, uint64_t account_id, const void *arg)
{
    const struct new_session *ns = arg;
    sqlite3_int64 now = now_ms();
    sqlite3_stmt *s = store_prepared(st, S_DELETE_EXPIRED_SESSIONS);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)account_id);
    sqlite3_bind_int64(s, 2, now);
    if (!store_run(st, s) || !(s = store_prepared(st, S_INSERT_SESSION)))
        return false;
    sqlite3_bind_text(s, 1, ns->token_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)account_id);
    sqlite3_bind_int64(s, 3, now);
    sqlite3_bind_int64(s, 4, ns->lifetime_ms);
    return store_run(st, s);
}

bool store_create_session(struct store *st, uint64_t account_id, const char *token_hash,
                          int64_t lifetime_ms)
{
    if (st->pg)
        return pg_create_session(st->pg, account_id, token_hash, lifetime_ms);
    struct new_session ns = {token_hash, lifetime_ms};
    return in_transaction(st, insert_session, account_id, &ns);
}

enum account_result store_find_session(struct store *st, const char *token_hash,
                                       struct stored_account *out)
{
    if (st->pg)
        return pg_find_session(st->pg, token_hash, out);
    sqlite3_stmt *s = store_prepared(st, S_FIND_SESSION);
    if (!s)
        return ACCOUNT_FAILED;
    sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, now_ms());
    return one_account(st, s, out);
}

bool store_delete_session(struct store *st, const char *token_hash)
{
    if (st->pg)
        return pg_delete_session(st->pg, token_hash);
    sqlite3_stmt *s = between_rounds(st) ? store_prepared(st, S_DELETE_SESSION) : NULL;
    if (!s)
        return false;
    sqlite3_bind_text(s, 1, token_hash, -1, SQLITE_STATIC);
    return store_run(st, s);
}

static bool run_with_id(struct store *st, enum stmt_id which, uint64_t id)
{
    sqlite3_stmt *s = store_prepared(st, which);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return store_run(st, s);
}

bool store_delete_sessions(struct store *st, uint64_t account_id)
{
    if (st->pg)
        return pg_delete_sessions(st->pg, account_id);
    return between_rounds(st) && run_with_id(st, S_DELETE_SESSIONS, account_id);
}

static bool anonymise(struct store *st, uint64_t account_id, const void *unused)
{
    (void)unused;
    return run_with_id(st, S_DELETE_SESSIONS, account_id) &&
           run_with_id(st, S_DELETE_RATINGS, account_id) &&
           run_with_id(st, S_DELETE_RATING_HISTORY, account_id) &&
           run_with_id(st, S_ANONYMISE_ACCOUNT, account_id);
}

enum sign_in_charge store_charge_sign_in(struct store *st, const struct sign_in_budget *address,
                                         const struct sign_in_budget *account)
{
    if (st->pg)
        return pg_charge_sign_in(st->pg, address, account);
    snprintf(st->last_error, sizeof st->last_error,
             "on SQLite the sign-in budgets are the server's memory");
    return SIGN_IN_FAILED;
}

bool store_delete_account(struct store *st, uint64_t account_id)
{
    if (st->pg)
        return pg_delete_account(st->pg, account_id);
    return in_transaction(st, anonymise, account_id, NULL);
}

bool store_set_seat_account(struct store *st, uint64_t id, int seat, uint64_t account_id)
{
    if (st->pg)
        return pg_set_seat_account(st->pg, id, seat, account_id);
    sqlite3_stmt *s = store_prepared(st, S_SET_SEAT_ACCOUNT);
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s, 2, seat);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)account_id);
    return store_run(st, s);
}

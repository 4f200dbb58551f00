/* Accounts, sessions and the accounts of seats on PostgreSQL (store-pg.h; the statements are
 * store-pg.c's): site-wide, whichever server a player signs in through. Writes run between
 * rounds, each statement its own transaction; reads may come inside a round, in a savepoint so
 * that a failed read does not sink it. */
#define _POSIX_C_SOURCE 200809L

#include "store-pg-private.h"

#include <libpq-fe.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool may_write(struct pg_store *pg)
{
    if (pg_in_transaction(pg))
        return pg_fail(pg, "an account write inside a round");
    return pg_connected(pg);
}

/* Runs a statement that reads, inside the round or not. */
static PGresult *read_rows(struct pg_store *pg, enum pg_stmt id, int n, const char *const *values)
{
    bool inside = pg_in_transaction(pg);
    if (inside ? PQstatus(pg->conn) != CONNECTION_OK : !pg_connected(pg))
        return NULL;
    if (inside && !pg_run_sql(pg, "SAVEPOINT account_read"))
        return NULL;
    PGresult *r = pg_run(pg, id, n, values);
    if (inside)
        pg_run_sql(pg, r ? "RELEASE account_read" : "ROLLBACK TO account_read");
    return r;
}

static enum account_result one_account(PGresult *r, struct stored_account *out)
{
    if (!r)
        return ACCOUNT_FAILED;
    enum account_result found = PQntuples(r) == 1 ? ACCOUNT_OK : ACCOUNT_NOT_FOUND;
    if (found == ACCOUNT_OK) {
        memset(out, 0, sizeof *out);
        out->id = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
        snprintf(out->name, sizeof out->name, "%s", PQgetvalue(r, 0, 1));
        if (PQnfields(r) > 2)
            snprintf(out->password_hash, sizeof out->password_hash, "%s", PQgetvalue(r, 0, 2));
    }
    PQclear(r);
    return found;
}

enum account_result pg_create_account(struct pg_store *pg, const char *name, const char *folded,
                                      const char *password_hash, uint64_t *id)
{
    if (!may_write(pg))
        return ACCOUNT_FAILED;
    const char *v[] = {name, folded, password_hash};
    PGresult *r = pg_run(pg, P_INSERT_ACCOUNT, 3, v);
    if (!r)
        return pg_last_was_conflict(pg) ? ACCOUNT_TAKEN : ACCOUNT_FAILED;
    bool made = PQntuples(r) == 1;
    if (made)
        *id = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return made || pg_fail(pg, "the new account's id did not come") ? ACCOUNT_OK : ACCOUNT_FAILED;
}

enum account_result pg_find_account(struct pg_store *pg, const char *folded,
                                    struct stored_account *out)
{
    const char *v[] = {folded};
    return one_account(read_rows(pg, P_FIND_ACCOUNT, 1, v), out);
}

bool pg_create_session(struct pg_store *pg, uint64_t account_id, const char *token_hash,
                       int64_t lifetime_ms)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {token_hash, pg_u64_text(a, account_id), pg_i64_text(b, lifetime_ms)};
    return may_write(pg) && pg_run_done(pg, P_INSERT_SESSION, 3, v);
}

enum account_result pg_find_session(struct pg_store *pg, const char *token_hash,
                                    struct stored_account *out)
{
    const char *v[] = {token_hash};
    return one_account(read_rows(pg, P_FIND_SESSION, 1, v), out);
}

bool pg_delete_session(struct pg_store *pg, const char *token_hash)
{
    const char *v[] = {token_hash};
    return may_write(pg) && pg_run_done(pg, P_DELETE_SESSION, 1, v);
}

bool pg_delete_sessions(struct pg_store *pg, uint64_t account_id)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id)};
    return may_write(pg) && pg_run_done(pg, P_DELETE_SESSIONS, 1, v);
}

bool pg_delete_account(struct pg_store *pg, uint64_t account_id)
{
    char a[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, account_id)};
    return may_write(pg) && pg_run_done(pg, P_DELETE_ACCOUNT, 1, v);
}

bool pg_set_seat_account(struct pg_store *pg, uint64_t id, int seat, uint64_t account_id)
{
    char a[NUM_TEXT], b[NUM_TEXT];
    const char *v[] = {pg_u64_text(a, id), seat ? "1" : "0", pg_u64_text(b, account_id)};
    return pg_run_done(pg, P_SET_SEAT_ACCOUNT, 3, v);
}

/* One token from a budget: true and *taken set (false when it had none left), or false when
 * the database failed. */
static bool charge_one(struct pg_store *pg, const struct sign_in_budget *b, bool *taken)
{
    char size[40], per_second[40];
    double cap = b->size < 1 ? 1 : b->size;
    snprintf(size, sizeof size, "%.17g", cap);
    snprintf(per_second, sizeof per_second, "%.17g", b->size / b->window_seconds);
    const char *v[] = {b->key, size, per_second};
    PGresult *r = pg_run(pg, P_CHARGE_SIGN_IN, 3, v);
    if (!r)
        return false;
    *taken = PQntuples(r) == 1;
    PQclear(r);
    return true;
}

enum sign_in_charge pg_charge_sign_in(struct pg_store *pg, const struct sign_in_budget *address,
                                      const struct sign_in_budget *account)
{
    if (!may_write(pg) || !pg_run_sql(pg, "BEGIN"))
        return SIGN_IN_FAILED;
    enum sign_in_charge result = SIGN_IN_TAKEN;
    bool taken = true;
    /* The longer window of the two: a row of either kind idle that long is full again. */
    double window = 0;
    if (address && address->window_seconds > window)
        window = address->window_seconds;
    if (account && account->window_seconds > window)
        window = account->window_seconds;
    char window_text[40];
    snprintf(window_text, sizeof window_text, "%.17g", window);
    const char *expire[] = {window_text};
    if (!pg_run_done(pg, P_EXPIRE_SIGN_INS, 1, expire))
        goto failed;
    if (address && !charge_one(pg, address, &taken))
        goto failed;
    if (!taken)
        result = SIGN_IN_ADDRESS_SPENT;
    else if (account && !charge_one(pg, account, &taken))
        goto failed;
    else if (!taken)
        result = SIGN_IN_ACCOUNT_SPENT;
    /* A refusal charges nothing: the address's token, taken before the account refused, goes
     * back with the rollback. */
    if (result == SIGN_IN_TAKEN ? pg_run_sql(pg, "COMMIT") : pg_run_sql(pg, "ROLLBACK"))
        return result;
failed:
    pg_rollback_keeping_error(pg);
    return SIGN_IN_FAILED;
}

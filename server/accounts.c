/* Accounts on the line protocol (docs/server.md, "Accounts"): register, login, session,
 * logout, logout-all, delete-account and whoami. A password is hashed or checked on the
 * account workers (Argon2id is slow on purpose, never on the loop); the writes a command makes
 * are made, each in its own transaction, on a database thread on a shared database (db-pool.c:
 * a lock another server holds never stalls the loop), and between rounds on SQLite (whose round
 * holds the one connection), then answered on the loop. A session token is what an HTTP cookie
 * will carry: `session TOKEN` is how any connection, a WebSocket's included, signs in with it. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"
#include "password.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum account_op { OP_REGISTER, OP_LOGIN, OP_DELETE, OP_LOGOUT, OP_LOGOUT_ALL };

/* How a task's writes went: made; refused for a reason the client is told (a wrong password,
 * a name taken meanwhile, no memory for the hash); or the database failed (nothing changed). */
enum write_outcome { WRITE_MADE, WRITE_REFUSED, WRITE_FAILED };

struct account_task {
    enum account_op op;
    uint64_t client_serial;
    uint64_t account_id;
    char name[ACCOUNT_NAME_MAX + 1];
    char folded[ACCOUNT_NAME_MAX + 1];
    char password[PASSWORD_MAX + 1];       /* wiped as soon as the worker is done with it */
    char password_hash[PASSWORD_HASH_MAX]; /* made (register) or stored (login, delete) */
    char session_hash[SESSION_HASH_HEX_LEN + 1];
    bool worked; /* the worker's answer: hashed, or the password is the account's */
    /* What the writes did (write_task), for the answer (answer_task). */
    enum write_outcome outcome;
    int64_t session_lifetime_ms;
    char token[SESSION_TOKEN_HEX_LEN + 1]; /* OP_REGISTER, OP_LOGIN: the new session's */
    char why[300];                         /* WRITE_FAILED: the database's error */
    /* On a shared database, the attempt's sign-in budgets as the database keeps them (charged
     * on a database thread before anything else; address_key empty: no address). */
    char address_key[sizeof "a" + sizeof((struct address *)0)->name];
    char account_key[sizeof "n" + ACCOUNT_NAME_MAX];
    double address_budget, account_budget;
    enum sign_in_charge charge;
    /* The account of the folded name, looked up after the charge (on the database thread
     * with it on a shared database, the loop waiting for neither). */
    enum account_result found;
    struct stored_account account; /* found == ACCOUNT_OK */
};

void account_task_free(struct account_task *t)
{
    if (!t)
        return;
    password_wipe(t, sizeof *t);
    free(t);
}

/* ---- what a name, a password and a token may be ------------------------------------------- */

/* 3 to 20 letters, digits, '_' or '-' (ASCII: no look-alike letters of other scripts); folded
 * to lower case, the key that keeps "Alice" out once "alice" exists. */
bool account_name_fold(const char *name, char folded[ACCOUNT_NAME_MAX + 1])
{
    size_t len = strlen(name);
    if (len < ACCOUNT_NAME_MIN || len > ACCOUNT_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = name[i];
        bool lower = ch >= 'a' && ch <= 'z', upper = ch >= 'A' && ch <= 'Z';
        if (!lower && !upper && !(ch >= '0' && ch <= '9') && ch != '_' && ch != '-')
            return false;
        folded[i] = upper ? (char)(ch - 'A' + 'a') : ch;
    }
    folded[len] = '\0';
    return true;
}

/* Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF) without
 * control characters: what a password typed anywhere is. */
static bool utf8_text(const unsigned char *p)
{
    while (*p) {
        unsigned c = *p;
        size_t more;
        unsigned min;
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f)
                return false;
            p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            more = 1;
            min = 0x80;
            c &= 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            more = 2;
            min = 0x800;
            c &= 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            more = 3;
            min = 0x10000;
            c &= 0x07;
        } else {
            return false;
        }
        for (size_t i = 1; i <= more; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            c = (c << 6) | (p[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return false;
        p += more + 1;
    }
    return true;
}

static bool password_valid(const char *password)
{
    size_t len = strlen(password);
    return len >= PASSWORD_MIN && len <= PASSWORD_MAX && utf8_text((const unsigned char *)password);
}

static bool session_token_valid(const char *token)
{
    size_t len = strlen(token);
    if (len != SESSION_TOKEN_HEX_LEN)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f')))
            return false;
    return true;
}

/* ---- signed in or not ---------------------------------------------------------------------- */

static void sign_in(struct client *c, const struct stored_account *a, const char *session_hash)
{
    c->account_id = a->id;
    snprintf(c->account_name, sizeof c->account_name, "%s", a->name);
    snprintf(c->session_hash, sizeof c->session_hash, "%s", session_hash);
}

static void sign_out(struct client *c)
{
    c->account_id = 0;
    c->account_name[0] = '\0';
    c->session_hash[0] = '\0';
}

/* Every connection to this server signed in to the account: other servers' find out from the
 * database at their next check (signed_in_account). */
static void sign_out_everywhere(struct server *sv, uint64_t account_id)
{
    for (size_t i = 0; i < sv->client_count; i++)
        if (sv->clients[i]->account_id == account_id)
            sign_out(sv->clients[i]);
}

uint64_t signed_in_account(struct server *sv, struct client *c)
{
    if (!c || !c->account_id)
        return 0;
    struct stored_account a;
    enum account_result found = store_find_session(sv->store, c->session_hash, &a);
    if (found == ACCOUNT_NOT_FOUND || (found == ACCOUNT_OK && a.id != c->account_id))
        sign_out(c);
    /* The database failing to answer is not a revocation: the sign-in holds. */
    return c->account_id;
}

/* ---- the commands ----------------------------------------------------------------------- */

static struct account_task *task_new(struct client *c, enum account_op op)
{
    struct account_task *t = calloc(1, sizeof *t);
    if (!t) {
        reply_status(c, TG_ERR_NO_MEMORY);
        return NULL;
    }
    t->op = op;
    t->client_serial = c->serial;
    t->account_id = c->account_id;
    snprintf(t->session_hash, sizeof t->session_hash, "%s", c->session_hash);
    return t;
}

static void wait_for_settle(struct server *sv, struct client *c, struct account_task *t);

/* Hands the task's password to an account worker; its client waits. */
static void submit_task(struct server *sv, struct client *c, struct account_task *t)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        account_task_free(t);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    j->kind = JOB_ACCOUNT;
    j->base.work = work_account;
    j->client_serial = c->serial;
    j->account = t;
    if (!job_submit(sv->account_pool, c, j, ACCOUNT_JOBS_PER_ADDRESS)) {
        job_free(j);
        return;
    }
    c->awaiting = true;
}

void work_account(struct pool_job *pj)
{
    struct account_task *t = ((struct job *)pj)->account;
    if (t->op == OP_REGISTER)
        t->worked = password_hash(t->password, t->password_hash);
    else
        t->worked = password_verify(t->password_hash, t->password);
    password_wipe(t->password, sizeof t->password);
}

void account_job_done(struct server *sv, struct job *j)
{
    struct client *c = client_by_serial(sv, j->client_serial);
    struct account_task *t = j->account;
    j->account = NULL;
    if (!c) { /* gone: nobody would hear of it, and nothing is made for nobody */
        account_task_free(t);
        return;
    }
    c->awaiting = false;
    wait_for_settle(sv, c, t);
}

/* A name and a password as register and login take them, or the client told which is not. */
static bool credentials_valid(struct client *c, const char *name, const char *password,
                              char folded[ACCOUNT_NAME_MAX + 1])
{
    if (!account_name_fold(name, folded)) {
        reply_error(c, "bad-name", "a name is 3 to 20 letters (a-z, A-Z), digits, '_' or '-'");
        return false;
    }
    if (!password_valid(password)) {
        reply_error(c, "bad-password",
                    "a password is 8 to 128 bytes of UTF-8 text, without spaces or control "
                    "characters");
        return false;
    }
    return true;
}

/* The attempt's budgets charged and its name looked up (t->found): a registration's name
 * checked free, or a password's account checked, and the password handed to a worker. */
static void after_charge(struct server *sv, struct client *c, struct account_task *t)
{
    const struct stored_account *a = &t->account;
    enum account_result found = t->found;
    if (found != ACCOUNT_OK && found != ACCOUNT_NOT_FOUND) {
        reply_error(c, "io", "%s", t->why);
    } else if (t->op == OP_REGISTER && found == ACCOUNT_OK) {
        reply_error(c, "name-taken",
                    "that name, or one that differs from it only by case, is "
                    "taken");
    } else if (t->op == OP_REGISTER) {
        submit_task(sv, c, t);
        return;
    } else if (found == ACCOUNT_NOT_FOUND) { /* the same answer as a wrong password */
        reply_error(c, "bad-login", "wrong name or password");
    } else if (t->op == OP_DELETE && a->id != c->account_id) {
        reply_error(c, "not-signed-in", "this connection is not signed in");
    } else {
        t->account_id = a->id;
        snprintf(t->name, sizeof t->name, "%s", a->name);
        snprintf(t->password_hash, sizeof t->password_hash, "%s", a->password_hash);
        password_wipe(&t->account, sizeof t->account);
        submit_task(sv, c, t);
        return;
    }
    account_task_free(t);
}

/* The account of the attempt's name, into the task; a failure's words into t->why. */
static void look_up(struct store *st, struct account_task *t)
{
    t->found = store_find_account(st, t->folded, &t->account);
    if (t->found != ACCOUNT_OK && t->found != ACCOUNT_NOT_FOUND)
        snprintf(t->why, sizeof t->why, "the accounts could not be read (%s)", store_error(st));
}

/* Hands the account task to a database thread (work there, done on the loop); the job owns the
 * task from here, and the client waits for its answer. */
static void submit_account_task(struct server *sv, struct client *c, struct account_task *t,
                                void (*work)(struct job *, struct store *),
                                void (*done)(struct server *, struct job *))
{
    struct job *j = calloc(1, sizeof *j);
    if (!j) {
        account_task_free(t);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    j->client_serial = c->serial;
    j->account = t; /* freed with the job */
    j->db_work = work;
    j->db_done = done;
    if (!db_submit(sv, c, j)) {
        job_free(j);
        return;
    }
    c->awaiting = true;
}

static void charge_on_db_thread(struct job *j, struct store *st)
{
    struct account_task *t = j->account;
    struct sign_in_budget address = {t->address_key, t->address_budget, SIGN_IN_WINDOW};
    struct sign_in_budget account = {t->account_key, t->account_budget, SIGN_IN_WINDOW};
    t->charge = store_charge_sign_in(st, t->address_key[0] ? &address : NULL,
                                     t->op == OP_REGISTER ? NULL : &account);
    if (t->charge == SIGN_IN_FAILED)
        snprintf(t->why, sizeof t->why, "the sign-in budgets could not be charged (%s)",
                 store_error(st));
    else if (t->charge == SIGN_IN_TAKEN)
        look_up(st, t);
}

static void charged_on_db_thread(struct server *sv, struct job *j)
{
    struct client *c = client_by_serial(sv, j->client_serial);
    if (!c)
        return; /* gone: the task goes with the job */
    c->awaiting = false;
    struct account_task *t = j->account;
    j->account = NULL;
    switch (t->charge) {
    case SIGN_IN_TAKEN:
        after_charge(sv, c, t);
        return;
    case SIGN_IN_ADDRESS_SPENT:
    case SIGN_IN_ACCOUNT_SPENT:
        reply_sign_in_spent(sv, c, t->charge == SIGN_IN_ACCOUNT_SPENT);
        break;
    case SIGN_IN_FAILED:
        reply_error(c, "io", "%s; nothing changed, try again", t->why);
        break;
    }
    account_task_free(t);
}

/* Charges the attempt to its sign-in budgets before any password is hashed or checked, and
 * looks its name up: on a shared database the budgets are the site's, kept by the database,
 * charged and the name looked up on a database thread (the loop waits for neither); else the
 * budgets are this server's memory. A refused attempt goes no further. */
static void charge_sign_in(struct server *sv, struct client *c, struct account_task *t)
{
    if (!sv->db_pool) {
        if (spend_sign_in(sv, c, t->op == OP_REGISTER ? NULL : t->folded)) {
            look_up(sv->store, t);
            after_charge(sv, c, t);
        } else {
            account_task_free(t);
        }
        return;
    }
    if (c->address)
        snprintf(t->address_key, sizeof t->address_key, "a%s", c->address->name);
    snprintf(t->account_key, sizeof t->account_key, "n%s", t->folded);
    t->address_budget = sv->opt.address_sign_in_rate;
    t->account_budget = sv->opt.sign_in_rate;
    t->charge = SIGN_IN_FAILED;
    snprintf(t->why, sizeof t->why, "the database's threads did not take the charge");
    submit_account_task(sv, c, t, charge_on_db_thread, charged_on_db_thread);
}

/* register, login and delete-account: a name and a password, charged to the sign-in budgets. */
static void cmd_credentials(struct server *sv, struct client *c, enum account_op op,
                            const char *name, const char *password)
{
    char folded[ACCOUNT_NAME_MAX + 1];
    if (!credentials_valid(c, name, password, folded))
        return;
    struct account_task *t = task_new(c, op);
    if (!t)
        return;
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->folded, sizeof t->folded, "%s", folded);
    snprintf(t->password, sizeof t->password, "%s", password);
    charge_sign_in(sv, c, t);
}

static void cmd_session(struct server *sv, struct client *c, const char *token)
{
    char hash[SESSION_HASH_HEX_LEN + 1];
    struct stored_account a;
    if (!session_token_valid(token)) {
        reply_error(c, "bad-session", "a session token is 64 lower-case hex digits");
        return;
    }
    session_token_hash(token, hash);
    switch (store_find_session(sv->store, hash, &a)) {
    case ACCOUNT_OK:
        sign_in(c, &a, hash);
        buf_printf(&c->out, "ok %s\n", a.name);
        return;
    case ACCOUNT_NOT_FOUND:
        reply_error(c, "bad-session", "no such session: it expired, was revoked, or never was");
        return;
    default:
        reply_error(c, "io", "the sessions could not be read (%s)", store_error(sv->store));
        return;
    }
}

void account_resume(struct server *sv, struct client *c, const char *token)
{
    char hash[SESSION_HASH_HEX_LEN + 1];
    struct stored_account a;
    if (!session_token_valid(token))
        return;
    session_token_hash(token, hash);
    if (store_find_session(sv->store, hash, &a) == ACCOUNT_OK)
        sign_in(c, &a, hash);
    password_wipe(&a, sizeof a);
}

/* The name, and the account's ratings (ratings.c) if it has any. */
static void cmd_whoami(struct server *sv, struct client *c)
{
    if (!signed_in_account(sv, c)) {
        buf_printf(&c->out, "ok -\n");
        return;
    }
    struct buf line = {0};
    if (!buf_printf(&line, "ok %s", c->account_name) ||
        !ratings_describe(sv, c->account_id, &line) || !buf_printf(&line, "\n")) {
        free(line.data);
        reply_error(c, "io", "the ratings could not be read (%s)", store_error(sv->store));
        return;
    }
    buf_append(&c->out, line.data, line.len);
    free(line.data);
}

void cmd_account(struct server *sv, struct client *c, char **w, size_t n)
{
    const char *cmd = w[0];
    (void)n;
    if (strcmp(cmd, "register") == 0) {
        cmd_credentials(sv, c, OP_REGISTER, w[1], w[2]);
    } else if (strcmp(cmd, "login") == 0) {
        cmd_credentials(sv, c, OP_LOGIN, w[1], w[2]);
    } else if (strcmp(cmd, "session") == 0) {
        cmd_session(sv, c, w[1]);
    } else if (strcmp(cmd, "whoami") == 0) {
        cmd_whoami(sv, c);
    } else if (!signed_in_account(sv, c)) {
        reply_error(c, "not-signed-in", "this connection is not signed in");
    } else if (strcmp(cmd, "delete-account") == 0) {
        cmd_credentials(sv, c, OP_DELETE, c->account_name, w[1]);
    } else {
        struct account_task *t =
            task_new(c, strcmp(cmd, "logout") == 0 ? OP_LOGOUT : OP_LOGOUT_ALL);
        if (t)
            wait_for_settle(sv, c, t);
    }
}

/* ---- the writes: on a database thread, or between rounds ----------------------------------- */

/* A fresh session for the task's account; its token is the reply. */
static enum write_outcome open_session(struct store *st, struct account_task *t)
{
    char hash[SESSION_HASH_HEX_LEN + 1];
    session_token_new(t->token);
    session_token_hash(t->token, hash);
    if (store_create_session(st, t->account_id, hash, t->session_lifetime_ms)) {
        snprintf(t->session_hash, sizeof t->session_hash, "%s", hash);
        return WRITE_MADE;
    }
    password_wipe(t->token, sizeof t->token);
    snprintf(t->why, sizeof t->why, "the session could not be stored (%s)", store_error(st));
    return WRITE_FAILED;
}

/* Makes the task's writes; reads and writes nothing but the task and the store, so that it
 * runs on a database thread as well as on the loop. */
static enum write_outcome write_task(struct store *st, struct account_task *t)
{
    switch (t->op) {
    case OP_REGISTER:
        if (!t->worked)
            return WRITE_REFUSED;
        switch (store_create_account(st, t->name, t->folded, t->password_hash, &t->account_id)) {
        case ACCOUNT_OK:
            return open_session(st, t);
        case ACCOUNT_TAKEN: /* registered meanwhile, through this server or another */
            return WRITE_REFUSED;
        default:
            snprintf(t->why, sizeof t->why, "the account could not be stored (%s); nothing changed",
                     store_error(st));
            return WRITE_FAILED;
        }
    case OP_LOGIN:
        return t->worked ? open_session(st, t) : WRITE_REFUSED;
    case OP_DELETE:
        if (!t->worked)
            return WRITE_REFUSED;
        if (store_delete_account(st, t->account_id))
            return WRITE_MADE;
        snprintf(t->why, sizeof t->why, "the account could not be deleted (%s); nothing changed",
                 store_error(st));
        return WRITE_FAILED;
    case OP_LOGOUT:
    case OP_LOGOUT_ALL:
        if (t->op == OP_LOGOUT ? store_delete_session(st, t->session_hash)
                               : store_delete_sessions(st, t->account_id))
            return WRITE_MADE;
        snprintf(t->why, sizeof t->why, "the sessions could not be revoked (%s); nothing changed",
                 store_error(st));
        return WRITE_FAILED;
    }
    return WRITE_FAILED;
}

/* Tells the client how the task's writes went, and signs connections in or out to match. */
static void answer_task(struct server *sv, struct client *c, struct account_task *t)
{
    if (t->outcome == WRITE_FAILED) {
        reply_error(c, "io", "%s", t->why);
        return;
    }
    struct stored_account a = {.id = t->account_id};
    switch (t->op) {
    case OP_REGISTER:
    case OP_LOGIN:
        if (t->outcome == WRITE_REFUSED && t->op == OP_LOGIN)
            reply_error(c, "bad-login", "wrong name or password");
        else if (t->outcome == WRITE_REFUSED && !t->worked)
            reply_status(c, TG_ERR_NO_MEMORY);
        else if (t->outcome == WRITE_REFUSED)
            reply_error(c, "name-taken",
                        "that name, or one that differs from it only by case, is taken");
        if (t->outcome == WRITE_REFUSED)
            return;
        snprintf(a.name, sizeof a.name, "%s", t->name);
        sign_in(c, &a, t->session_hash);
        buf_printf(&c->out, "ok %s\n", t->token);
        return;
    case OP_DELETE:
        if (t->outcome == WRITE_REFUSED) {
            reply_error(c, "bad-login", "wrong password");
            return;
        }
        sign_out_everywhere(sv, t->account_id);
        buf_printf(&c->out, "ok\n");
        return;
    case OP_LOGOUT:
    case OP_LOGOUT_ALL:
        if (t->op == OP_LOGOUT)
            sign_out(c);
        else
            sign_out_everywhere(sv, t->account_id);
        buf_printf(&c->out, "ok\n");
        return;
    }
}

static void write_on_db_thread(struct job *j, struct store *st)
{
    j->account->outcome = write_task(st, j->account);
}

static void written_on_db_thread(struct server *sv, struct job *j)
{
    struct client *c = client_by_serial(sv, j->client_serial);
    if (!c)
        return; /* gone: what was written stays (a session nobody holds expires) */
    c->awaiting = false;
    answer_task(sv, c, j->account);
}

/* The task's writes: on a database thread on a shared database, else between rounds. */
static void wait_for_settle(struct server *sv, struct client *c, struct account_task *t)
{
    t->session_lifetime_ms = (int64_t)(sv->opt.session_lifetime * 1000.0);
    t->outcome = WRITE_FAILED;
    snprintf(t->why, sizeof t->why,
             "the database's threads did not take the write; nothing changed, try again");
    if (sv->db_pool) {
        submit_account_task(sv, c, t, write_on_db_thread, written_on_db_thread);
        return;
    }
    struct account_task **grown = array_reserve(sv->account_tasks, &sv->account_task_cap,
                                                sv->account_task_count + 1, sizeof *grown, 8);
    if (!grown) {
        account_task_free(t);
        reply_status(c, TG_ERR_NO_MEMORY);
        return;
    }
    sv->account_tasks = grown;
    sv->account_tasks[sv->account_task_count++] = t;
    c->awaiting = true;
}

void accounts_settle(struct server *sv)
{
    for (size_t i = 0; i < sv->account_task_count; i++) {
        struct account_task *t = sv->account_tasks[i];
        struct client *c = client_by_serial(sv, t->client_serial);
        if (c && sv->halted) {
            c->awaiting = false;
            reply_error(c, "halted",
                        "a write to the server's disk failed and what it holds is not known "
                        "yet; no change is taken until it is (reads still work)");
        } else if (c) {
            c->awaiting = false;
            t->outcome = write_task(sv->store, t);
            answer_task(sv, c, t);
            /* A write refused by the database: as after a round's failed commit, what it may
             * have left in the log must not reappear after a crash. */
            if (t->outcome == WRITE_FAILED)
                settle_after_failure(sv);
        }
        account_task_free(t);
    }
    sv->account_task_count = 0;
}

bool find_player(struct server *sv, struct client *c, const char *name, struct stored_account *a)
{
    char folded[ACCOUNT_NAME_MAX + 1];
    if (!account_name_fold(name, folded)) {
        reply_error(c, "bad-name", "a name is 3 to 20 letters (a-z, A-Z), digits, '_' or '-'");
        return false;
    }
    switch (store_find_account(sv->store, folded, a)) {
    case ACCOUNT_OK:
        return true;
    case ACCOUNT_NOT_FOUND:
        reply_error(c, "no-such-player", "nobody has that name");
        return false;
    default:
        reply_error(c, "io", "the accounts could not be read (%s)", store_error(sv->store));
        return false;
    }
}

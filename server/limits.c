/* What one client may cost the others: budgets of costly commands per connection and per
 * address (a browser's address comes from the WebSocket relay's first line), the bound on
 * output waiting for all clients together, and the descriptors the connections need. */
#define _POSIX_C_SOURCE 200809L

#include "server.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Each client costs one descriptor, a WebSocket three: the browser's socket, the relay's
 * loopback socket and the loop's end of it. The limit is sized for the worst case, so that a
 * client beyond --max-clients can always be told so rather than left hanging. */
void fit_clients_to_descriptor_limit(struct options *o)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return;
    rlim_t per = o->web_port >= 0 || o->web_dir ? WEB_DESCRIPTORS : 1;
    rlim_t wanted = (rlim_t)o->max_clients * per + SPARE_DESCRIPTORS;
    if (lim.rlim_cur < wanted) {
        lim.rlim_cur =
            lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= wanted ? wanted : lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
        getrlimit(RLIMIT_NOFILE, &lim);
    }
    if (lim.rlim_cur < wanted) {
        size_t fit = lim.rlim_cur > SPARE_DESCRIPTORS + per
                         ? (size_t)((lim.rlim_cur - SPARE_DESCRIPTORS) / per)
                         : 1;
        fprintf(stderr,
                "tg-server: --max-clients lowered from %zu to %zu to fit the limit of %llu "
                "descriptors (%u each)\n",
                o->max_clients, fit, (unsigned long long)lim.rlim_cur, (unsigned)per);
        o->max_clients = fit;
    }
}

/* ---- budgets --------------------------------------------------------------------------- */

/* Takes one command from a token bucket that refills at `rate` a second and holds `cap`;
 * false (nothing taken) when it is empty. */
static bool take_capped(struct budget *b, double rate, double cap, double now)
{
    if (cap < 1)
        cap = 1;
    if (b->stamp <= 0) {
        b->tokens = cap;
    } else {
        b->tokens += (now - b->stamp) * rate;
        if (b->tokens > cap)
            b->tokens = cap;
    }
    b->stamp = now;
    if (b->tokens < 1)
        return false;
    b->tokens -= 1;
    return true;
}

/* The command budgets hold BUDGET_SECONDS of commands. */
static bool take(struct budget *b, double rate, double now)
{
    return take_capped(b, rate, rate * BUDGET_SECONDS, now);
}

/* The commands that cost the server work or push events to others: creating a match, a
 * search, undo traffic, subscribing (with its catch-up), and reading lists and histories. */
static bool costly(const char *cmd)
{
    static const char *const names[] = {
        "new",     "bot",        "undo",           "accept",  "decline",     "watch",     "list",
        "history", "join",       "record",         "rematch", "register",    "login",     "session",
        "logout",  "logout-all", "delete-account", "whoami",  "player-page", "match-page"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(cmd, names[i]) == 0)
            return true;
    return false;
}

bool spend_budget(struct server *sv, struct client *c, const char *cmd)
{
    if (!costly(cmd))
        return true;
    bool ok = take(&c->budget, sv->opt.rate, sv->now);
    if (ok && c->address && !take(&c->address->budget, sv->opt.address_rate, sv->now)) {
        c->budget.tokens += 1; /* refused: the connection's own budget is not charged */
        ok = false;
    }
    if (!ok) {
        sv->refused_rate++;
        reply_error(c, "rate-limited",
                    "too many costly commands (new, bot, undo, accept, decline, watch, list, "
                    "history, join, record, rematch, player-page, match-page, and the account "
                    "commands) from this %s; "
                    "wait a second",
                    c->budget.tokens < 1 ? "connection" : "address");
    }
    return ok;
}

/* ---- addresses ---------------------------------------------------------------------------- */

static void sign_ins_sweep(struct server *sv);

static size_t address_hash(const char *name)
{
    uint64_t h = 14695981039346656037u;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211u;
    return (size_t)h;
}

static bool address_table_grow(struct server *sv)
{
    size_t count = sv->address_buckets ? sv->address_buckets * 2 : 64;
    struct address **fresh = calloc(count, sizeof *fresh);
    if (!fresh)
        return false;
    for (size_t i = 0; i < sv->address_buckets; i++)
        for (struct address *a = sv->addresses[i], *next; a; a = next) {
            next = a->next;
            size_t b = address_hash(a->name) & (count - 1);
            a->next = fresh[b];
            fresh[b] = a;
        }
    free(sv->addresses);
    sv->addresses = fresh;
    sv->address_buckets = count;
    return true;
}

/* The name an address's budgets go by: an IPv4 address as it is (also when written as an
 * IPv4-mapped IPv6 one), an IPv6 address as its /64, which one host or one subscriber usually
 * holds whole: twenty addresses of one /64 share one budget. */
static void address_key(const char *name, char *key, size_t cap)
{
    unsigned char bin[16];
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    char text[INET6_ADDRSTRLEN];
    if (strchr(name, ':') && inet_pton(AF_INET6, name, bin) == 1) {
        if (memcmp(bin, mapped, sizeof mapped) == 0 &&
            inet_ntop(AF_INET, bin + 12, text, sizeof text)) {
            snprintf(key, cap, "%s", text);
            return;
        }
        memset(bin + 8, 0, 8);
        if (inet_ntop(AF_INET6, bin, text, sizeof text)) {
            snprintf(key, cap, "%s/64", text);
            return;
        }
    }
    snprintf(key, cap, "%s", name);
}

static struct address *address_find(const struct server *sv, const char *key)
{
    if (!sv->address_buckets)
        return NULL;
    struct address *a = sv->addresses[address_hash(key) & (sv->address_buckets - 1)];
    while (a && strcmp(a->name, key) != 0)
        a = a->next;
    return a;
}

/* The address's entry stays after its last client leaves, until its budget has refilled: a
 * client cannot get a fresh budget by reconnecting. */
bool address_attach(struct server *sv, struct client *c, const char *name)
{
    address_detach(sv, c);
    if (sv->address_count + 1 > sv->address_buckets && !address_table_grow(sv))
        return false;
    char key[sizeof c->address->name];
    address_key(name, key, sizeof key);
    struct address *a = address_find(sv, key);
    if (!a) {
        a = calloc(1, sizeof *a);
        if (!a)
            return false;
        snprintf(a->name, sizeof a->name, "%s", key);
        size_t b = address_hash(key) & (sv->address_buckets - 1);
        a->next = sv->addresses[b];
        sv->addresses[b] = a;
        sv->address_count++;
    }
    a->clients++;
    c->address = a;
    return true;
}

void address_detach(struct server *sv, struct client *c)
{
    (void)sv;
    if (c->address) {
        c->address->clients--;
        if (c->counted)
            c->address->counted--;
    }
    c->counted = false;
    c->address = NULL;
}

/* One address may hold --max-clients-per-address connections; the relay's connections count
 * for the browser's address that their first line names, not for the relay's. A connection is
 * counted against its address's cap once its address is known: the address
 * the relay's `via` names, or the peer's own once the first line is another command or
 * GREETING_SECONDS passed without one. Before that it counts only against the peer's
 * unsettled connections (address_has_room), so that local clients holding their share of the
 * loopback address do not shut the relay's connections out. */
bool client_settle(struct server *sv, struct client *c)
{
    if (c->counted || !c->address)
        return true;
    c->greeted = true; /* a connection past its greeting may no longer say via */
    if (c->address->counted >= sv->opt.max_clients_per_address) {
        sv->refused_full++;
        reply_error(c, "too-many-connections",
                    "this address has its %zu connections already; close one, then try again",
                    sv->opt.max_clients_per_address);
        c->closing = true;
        return false;
    }
    c->address->counted++;
    c->counted = true;
    return true;
}

bool address_has_room(struct server *sv, const char *name)
{
    char key[sizeof sv->addresses[0]->name];
    address_key(name, key, sizeof key);
    const struct address *a = address_find(sv, key);
    /* The relay's connections open from 127.0.0.1, as many at once as browsers arrive. */
    bool relay = (sv->opt.web_port >= 0 || sv->opt.web_dir) && strcmp(key, "127.0.0.1") == 0;
    size_t opening = relay ? sv->opt.max_clients : sv->opt.max_clients_per_address;
    return !a || a->clients - a->counted < opening;
}

/* Once a second: the entries of addresses with no client and full budgets go. */
void addresses_sweep(struct server *sv)
{
    sign_ins_sweep(sv);
    for (size_t i = 0; i < sv->address_buckets; i++)
        for (struct address **p = &sv->addresses[i]; *p;) {
            struct address *a = *p;
            if (!a->clients && sv->now - a->budget.stamp > BUDGET_SECONDS &&
                sv->now - a->sign_in.stamp > SIGN_IN_WINDOW) {
                *p = a->next;
                free(a);
                sv->address_count--;
                continue;
            }
            p = &a->next;
        }
}

void addresses_free(struct server *sv)
{
    for (size_t i = 0; i < sv->address_buckets; i++)
        for (struct address *a = sv->addresses[i], *next; a; a = next) {
            next = a->next;
            free(a);
        }
    free(sv->addresses);
}

/* The relay's first line, `via SECRET ADDRESS [SESSION]`, names the browser's address and,
 * when its session cookie holds one, the session it signs in with; only the relay knows the
 * secret (made at start-up), and only a connection's first line may carry it.
 * Returns true if the line was taken here: the greeting, or any first line of a connection
 * refused by its address's connection cap (answered only when refused). */
bool client_greet(struct server *sv, struct client *c, char **w, size_t n)
{
    if (c->greeted)
        return false;
    c->greeted = true;
    if (n == 0 || strcmp(w[0], "via") != 0)
        return !client_settle(sv, c);
    unsigned char diff = (n != 3 && n != 4) || strlen(w[1]) != TOKEN_HEX_LEN;
    for (size_t i = 0; !diff && i < TOKEN_HEX_LEN; i++)
        diff |= (unsigned char)(w[1][i] ^ sv->relay_secret[i]);
    if (diff || strlen(w[2]) >= sizeof c->address->name) {
        reply_error(c, "bad-token", "only the server's WebSocket relay may say via");
        client_settle(sv, c);
        return true;
    }
    if (!address_attach(sv, c, w[2]))
        c->dead = true;
    else if (client_settle(sv, c) && n == 4)
        account_resume(sv, c, w[3]);
    return true;
}

/* ---- sign-in budgets -------------------------------------------------------------------- */

/* Password attempts are budgeted apart from commands, by SIGN_IN_WINDOW: per address, so that one
 * host cannot try many accounts, and per account name, so that many hosts cannot try one
 * account's passwords. An account's entry stays until its budget has refilled. */
static struct sign_in_entry *sign_in_entry(struct server *sv, const char *folded, bool *full)
{
    *full = false;
    if (!sv->sign_ins && !(sv->sign_ins = calloc(SIGN_IN_BUCKETS, sizeof *sv->sign_ins)))
        return NULL;
    size_t b = address_hash(folded) & (SIGN_IN_BUCKETS - 1);
    for (struct sign_in_entry *e = sv->sign_ins[b]; e; e = e->next)
        if (strcmp(e->folded, folded) == 0)
            return e;
    if (sv->sign_in_count >= SIGN_IN_NAMES_MAX) {
        *full = true;
        return NULL;
    }
    struct sign_in_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    snprintf(e->folded, sizeof e->folded, "%s", folded);
    e->next = sv->sign_ins[b];
    sv->sign_ins[b] = e;
    sv->sign_in_count++;
    return e;
}

void reply_sign_in_spent(struct server *sv, struct client *c, bool account)
{
    sv->refused_rate++;
    reply_error(c, "rate-limited",
                account
                    ? "too many sign-in attempts for this account; try again in a few minutes"
                    : "too many sign-in attempts from this address; try again in a few minutes");
}

bool spend_sign_in(struct server *sv, struct client *c, const char *folded)
{
    double per_second = sv->opt.address_sign_in_rate / SIGN_IN_WINDOW;
    struct budget *from_address = c->address ? &c->address->sign_in : NULL;
    struct budget saved = from_address ? *from_address : (struct budget){0, 0};
    if (from_address &&
        !take_capped(from_address, per_second, sv->opt.address_sign_in_rate, sv->now)) {
        reply_sign_in_spent(sv, c, false);
        return false;
    }
    if (!folded)
        return true;
    bool full = false;
    struct sign_in_entry *e = sign_in_entry(sv, folded, &full);
    per_second = sv->opt.sign_in_rate / SIGN_IN_WINDOW;
    if (!e || !take_capped(&e->budget, per_second, sv->opt.sign_in_rate, sv->now)) {
        if (from_address)
            *from_address = saved; /* refused: the address is not charged */
        if (e) {
            reply_sign_in_spent(sv, c, true);
        } else if (full) {
            sv->refused_rate++;
            reply_error(c, "rate-limited",
                        "too many accounts are being signed in to; try again in a few minutes");
        } else {
            sv->refused_rate++;
            reply_status(c, TG_ERR_NO_MEMORY);
        }
        return false;
    }
    return true;
}

/* Once a second with the addresses: the accounts whose budgets have refilled go. */
static void sign_ins_sweep(struct server *sv)
{
    for (size_t i = 0; sv->sign_ins && i < SIGN_IN_BUCKETS; i++)
        for (struct sign_in_entry **p = &sv->sign_ins[i]; *p;) {
            struct sign_in_entry *e = *p;
            if (sv->now - e->budget.stamp > SIGN_IN_WINDOW) {
                *p = e->next;
                free(e);
                sv->sign_in_count--;
                continue;
            }
            p = &e->next;
        }
}

void sign_ins_free(struct server *sv)
{
    for (size_t i = 0; sv->sign_ins && i < SIGN_IN_BUCKETS; i++)
        for (struct sign_in_entry *e = sv->sign_ins[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    free(sv->sign_ins);
    sv->sign_ins = NULL;
}

/* ---- output waiting for clients ------------------------------------------------------------ */

void count_output(struct server *sv)
{
    size_t total = 0;
    for (size_t i = 0; i < sv->client_count; i++)
        total += sv->clients[i]->out.len;
    sv->out_total = total;
}

/* A watcher is let go rather than buffered for when it is far behind, or when the output of
 * all clients together is over --max-buffered and this one holds more than its share of it:
 * the total stays near the bound however many watchers stop reading. */
bool output_over_budget(const struct server *sv, const struct client *c)
{
    size_t share = sv->opt.max_buffered / (sv->client_count ? sv->client_count : 1);
    return c->out.len > WATCHER_OUT_MAX ||
           (sv->out_total > sv->opt.max_buffered && c->out.len > share);
}

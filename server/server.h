/* The match server's shared declarations: its limits, the structures of matches, clients,
 * worker jobs and the round's changes, and the functions each file offers the others. Private
 * to server/; one file per job (docs/server.md, "The sources"). */
#ifndef TG_SERVER_SERVER_H
#define TG_SERVER_SERVER_H

#include "common.h"
#include "pool.h"
#include "store.h"

#include <traditional-games.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TG_NORETURN __attribute__((noreturn))
#else
#define TG_PRINTF(f, a)
#define TG_NORETURN
#endif

enum { EXIT_FATAL = 1, EXIT_BAD_ARGS = 2 };

#define LINE_MAX_BYTES 1024          /* a command, without its newline */
#define OUT_HIGH_WATER (64u * 1024u) /* stop reading a client whose replies pile up */
#define IN_HIGH_WATER (64u * 1024u)  /* and one whose commands pile up unprocessed */
#define LINES_PER_ROUND 16           /* per client, so that one busy client cannot starve others */
#define LIST_MAX 100                 /* ids per `list` reply: every reply stays small */
#define STATUS_IDS_MAX 20            /* set-aside ids named by `status` */
#define TICK_MS 250                  /* the loop wakes at least this often for timeouts */
#define STOP_WAIT_SECONDS 2.0        /* how long a stop waits for running searches */
#define SPARE_DESCRIPTORS 32         /* the database, its log, the pipe, the listener, ... */
#define WATCH_MAX 16                 /* matches one connection may watch at once */
#define WATCHER_OUT_MAX (1024u * 1024u) /* a watcher this far behind on its events is dropped */
#define FLAG_CHECK_SECONDS 0.05         /* how often running clocks are looked at */
#define SOCKET_SEND_BUFFER (64 * 1024)  /* bytes the kernel holds for one client's replies */
#define ORIGINS_MAX 16
#define WEB_DESCRIPTORS 3      /* a WebSocket: its socket, the relay's, and the loop's end of it */
#define BUDGET_SECONDS 5.0     /* a budget holds this many seconds' worth of costly commands */
#define GREETING_SECONDS 2.0   /* a connection silent this long is counted as its peer's */
#define BOT_TT_MAX_MB 64       /* the largest transposition table a `search` request may ask */
#define BOT_CLOCK_MARGIN_MS 50 /* a bot on a clock stops this far from its flag at least */
/* Work one address may hold on the workers (docs/server.md, "Concurrency"): searches queued or
 * running, records being made; beyond, `err rate-limited`. A bot whose search gets at most
 * BOT_CHEAP_MS (random and greedy never search) runs on the move workers, never waiting
 * behind searches. Records are made on RECORD_THREADS workers of their own. */
#define BOT_JOBS_PER_ADDRESS 4
#define RECORD_JOBS_PER_ADDRESS 2
#define BOT_CHEAP_MS 20
#define RECORD_THREADS 1
/* Password hashing (Argon2id, about 0.1 s and 64 MiB each) runs on ACCOUNT_THREADS workers of
 * its own, never on the loop nor in front of moves; an address may hold ACCOUNT_JOBS_PER_ADDRESS
 * of them queued or running. */
#define ACCOUNT_THREADS 1
#define ACCOUNT_JOBS_PER_ADDRESS 2
#define PASSWORD_MIN 8        /* bytes of a password */
#define PASSWORD_MAX 128
#define ACCOUNT_NAME_MIN 3
#define SIGN_IN_WINDOW 900.0 /* sign-in budgets: so many attempts in 15 minutes, holding as many */
#define SIGN_IN_NAMES_MAX 100000 /* accounts whose sign-in budgets are tracked at once */
#define SIGN_IN_BUCKETS 4096

struct options {
    unsigned port;
    const char *db_path;
    const char *port_file;
    const char *migrate_dir;
    const char *backup_path; /* --backup: copy the database there and exit */
    long web_port;           /* -1: no WebSocket and HTTP listener */
    const char *web_dir;
    const char *web_port_file;
    long metrics_port; /* -1: GET /metrics is not served */
    const char *metrics_port_file;
    const char *origins[ORIGINS_MAX]; /* --origin: pages allowed to open a WebSocket */
    size_t origin_count;
    const char *trusted[ORIGINS_MAX]; /* --trusted-proxy: whose X-Forwarded-For counts */
    size_t trusted_count;
    size_t max_clients;
    size_t max_clients_per_address; /* 0 until parsed: max(8, max_clients / 8) */
    uint64_t max_matches;
    size_t max_loaded;
    double idle_timeout;
    double unload_after;
    unsigned bot_threads, move_threads;
    unsigned long max_bot_iterations;
    unsigned long max_bot_ms; /* the longest a bot search may take */
    unsigned long max_laps;
    double first_move_timeout; /* a clocked match with no decision by then is aborted */
    double join_timeout;       /* a match whose second seat is not joined by then is aborted */
    double abandon_after;      /* and one without a clock and without a move for this long */
    double undo_timeout;       /* an unanswered undo request lapses after this */
    double rate, address_rate; /* costly commands per second, per connection and per address */
    size_t max_buffered;       /* bytes of output waiting for all clients together */
    bool no_bots_on_clock;     /* `bot` refused on a match with a clock */
    unsigned lease_ms;         /* a shared database: how long a match's lease lasts */
    bool check;
    double sign_in_rate;         /* attempts with one account's name in SIGN_IN_WINDOW (login) */
    double address_sign_in_rate; /* attempts from one address in SIGN_IN_WINDOW (register, ...) */
    double session_lifetime;     /* seconds a session lasts from its sign-in */
    bool secure_cookies;         /* the session cookie is marked Secure (the site is on TLS) */
    double seek_lifetime;        /* seconds a lobby seek waits for a taker */
    double day_seconds;          /* a correspondence day: 86400, shorter only in tests */
};

/* ---- rule sets, matches, clients ----------------------------------------------------- */

struct rules_entry {
    tg_rules *rules;
    size_t users; /* loaded matches of this rule set; freed at 0 */
};

struct ply_note {
    size_t end; /* where this ply's name ends in match.names */
    int seat;   /* who chose it: 0, 1, or -1 for a throw */
};

/* A time control kept by the server: each seat's time left at the start of its turn, and when
 * the turn began. A restart gives the seat to move its turn's time back (turn_began is not
 * stored): the server's downtime is never charged to a player. */
struct match_clock {
    struct stored_clock kept; /* as stored: on, base, increment, left at turn start, flagged */
    double turn_began;        /* monotonic seconds */
};

/* A match's draw offer (docs/server.md, "Draw offers"): the seat offering, or -1; and whether
 * each seat offered since the other seat's last decision (one offer a turn of the opponent). */
struct draw_offer {
    int by;
    bool spent[2];
};

struct match {
    uint64_t id;
    struct match *next_in_bucket;
    struct rules_entry *rules;
    tg_state *state; /* NULL while loading */
    char tokens[2][TOKEN_HEX_LEN + 1];
    int resigned;          /* -1, or the seat that resigned */
    bool loading;          /* a worker replays it from the database */
    bool busy;             /* a change is being computed or committed: other changes wait */
    int undo_requested_by; /* -1, or the seat asking to take back the last decision */
    size_t undo_request_ply;
    struct buf names; /* the notation of every ply, each followed by one space */
    struct ply_note *plies;
    size_t ply_count, ply_cap;
    double last_used;
    struct match_clock clock;
    size_t watchers;  /* connections receiving its events: it stays loaded while watched */
    bool flag_staged; /* its flag fall is in this round's transaction */
    bool aborted;     /* a clocked match whose first decision did not come in time */
    int invite_seat;  /* the seat nobody has joined yet, or -1 once both are taken */
    /* The connection that made it, which may not take its other seat (in memory only). */
    uint64_t creator_serial;
    char *kept_throws; /* throws an accepted undo took back, to be made again; or NULL */
    char invite[TOKEN_HEX_LEN + 1];
    double undo_requested_at;
    /* The matches the loop may unload, least recently used first, and the pinned ones: a
     * refusal or an unload never walks every loaded match. */
    struct match *lru_prev, *lru_next;
    bool pinned;
    uint64_t rematch;       /* the match its `rematch` created (in memory only), or 0 */
    bool rematch_staged;    /* its rematch is being stored (the match busy until it is) */
    uint64_t version;       /* its changes as stored (a shared database): who else changed it */
    uint64_t plies_version; /* new with each change of its plies, unique in the process */
    bool claimed;           /* this server holds its lease (as of claim_epoch: follow.c) */
    uint64_t claim_epoch;
    struct draw_offer draw; /* draws.c: in memory only, never stored */
    uint64_t draw_version;  /* the version the offer was last made, answered or withdrawn at */
    /* A shared database: a version another server made that must be an offer's change, whose
     * news has not come yet, and when it was seen: the offer is not answered meanwhile. */
    uint64_t draw_unsure_version;
    double draw_unsure_at;
    bool agreed;            /* ended in a draw by agreement */
    /* A shared database: another server's news of an offer, made at a version this server
     * has not read yet; taken once it has (draws.c). news_version 0: none. */
    struct draw_offer draw_news;
    uint64_t draw_news_version;
    size_t draw_news_ply;
    int draw_news_seat;
    char draw_news_what[16];
};

/* A token bucket: `tokens` commands may be made now; it refills at the budget's rate. */
struct budget {
    double tokens, stamp;
};

/* The budget shared by every connection from one address (a browser's, told by the relay);
 * an IPv6 address stands for its whole /64. */
struct address {
    char name[64];
    struct budget budget;
    size_t clients;
    size_t counted; /* the clients counted against --max-clients-per-address */
    struct budget sign_in; /* --address-sign-in-rate: password attempts and registrations */
    struct address *next;
};

struct client {
    uint64_t serial;
    int fd;
    struct buf in, out;
    size_t partial;  /* bytes of the unfinished line at the end of `in` */
    bool discarding; /* inside an overlong line: dropping bytes up to its newline */
    bool eof;        /* the peer closed its side: finish what is buffered, then close */
    bool closing;    /* close once the replies are sent */
    bool dead;
    bool awaiting; /* a worker or the round's commit owes this client a reply */
    bool blocked;  /* its next command waits for a match being loaded */
    double last_active;
    uint64_t watching[WATCH_MAX];
    size_t watch_count;
    bool greeted; /* its first line was seen: only that one may be the relay's `via` */
    bool charged; /* the command waiting for a load has been charged to the budgets */
    bool counted; /* counted against its address's connection cap (client_settle) */
    double connected_at;
    struct budget budget;
    struct address *address;
    /* Signed in (accounts.c): the account and the hash of the session's token; 0 for a guest. */
    uint64_t account_id;
    char account_name[ACCOUNT_NAME_MAX + 1];
    char session_hash[SESSION_HASH_HEX_LEN + 1];
    /* The record it waits for or is sending (records.c), and how much of it is in `out`. */
    struct record *record;
    size_t record_sent;
    bool in_lobby; /* `lobby`: seeks and live matches are pushed to it (lobby.c) */
};

/* A record made on the record worker (records.c): made once for a version of a match's plies
 * and its ending, and shared by the clients that ask for it meanwhile; each client's output
 * takes it a slice at a time, as its socket takes them. */
struct record {
    uint64_t match_id, plies_version;
    char tags[256]; /* the tag pairs the server adds: they tell how the match ended */
    char *text;     /* the record's lines; NULL while it is being made */
    size_t len, lines;
    size_t users; /* clients waiting for it or sending it */
    bool making;  /* its job is queued or running */
    struct record *next;
};

/* One account's sign-in budget (limits.c), kept until it has refilled. */
struct sign_in_entry {
    char folded[ACCOUNT_NAME_MAX + 1];
    struct budget budget;
    struct sign_in_entry *next;
};

/* The most ids one of the once-a-second passes hands to a database thread (clock.c, match.c). */
#define DB_PASS_IDS_MAX 64

enum job_kind { JOB_LOAD, JOB_PLAY, JOB_BOT, JOB_UNDO, JOB_RECORD, JOB_ACCOUNT, JOB_DB };
struct account_task;
struct db_pool;
struct server;

struct job {
    struct pool_job base; /* first: the pool hands back this pointer */
    enum job_kind kind;
    uint64_t client_serial;
    struct match *match;
    tg_state *state; /* the worker's own state: a clone, or a replay from the database */
    int seat;
    tg_move move;
    char bot[LINE_MAX_BYTES + 1];
    struct stored_match stored; /* JOB_LOAD: the rows to replay */
    struct move_list made;      /* the moves the job made, throws included */
    tg_status status;
    char why[256];   /* JOB_LOAD: why the stored match does not replay */
    char *kept;      /* the match's kept throws, made before any new one */
    double arrived;  /* when the command came: a move is charged up to then */
    double deadline; /* JOB_BOT on a running clock: the search ends by then (0: no clock) */
    double finished; /* JOB_BOT: when its search ended, the move's own time */
    unsigned long max_bot_ms;
    size_t kept_used; /* bytes of kept the move used */
    /* JOB_UNDO, JOB_RECORD (replay.c): the notation to replay and the rule set, held */
    char *names;
    size_t names_len;
    struct rules_entry *rules;
    size_t keep;      /* JOB_UNDO: the plies kept */
    char *kept_after; /* JOB_UNDO: the match's kept throws after it, or NULL if unchanged */
    char tags[256];   /* JOB_RECORD: the tag pairs the server adds */
    char *text;       /* JOB_RECORD: the record */
    size_t text_len;
    size_t reserved;       /* JOB_RECORD: its bytes as counted in server.record_bytes */
    struct record *record; /* JOB_RECORD: what it makes */
    struct account_task *account; /* JOB_ACCOUNT: a password to hash or check (accounts.c);
                                   * JOB_DB: the account writes to make */
    /* JOB_DB (db-pool.c): db_work runs on a database thread with a connection of its own,
     * then db_done on the loop. */
    void (*db_work)(struct job *j, struct store *st);
    void (*db_done)(struct server *sv, struct job *j);
    struct db_pool *db;
    bool adopted;             /* the take-over's match was loaded for it (follow.c) */
    uint64_t claim_id, claim_version; /* the take-over's match, and the version of its copy */
    enum claim_result claimed; /* the take-over's outcome; CLAIM_FAILED until it ran */
    /* The once-a-second passes' jobs (clock.c, match.c): the overdue correspondence matches
     * found, or the unloaded expired matches to end, and how many of those were ended. */
    uint64_t pass_ids[DB_PASS_IDS_MAX];
    size_t pass_id_count, pass_ended;
    double expire_join_timeout, expire_abandon_after; /* the ends' rules, copied for the thread */
};

/* CH_UNDO takes moves back (an accepted undo); CH_UNDO_ASK and CH_UNDO_END open and end an
 * undo request, stored like any change so that any server can answer it. */
enum change_kind {
    CH_NEW,
    CH_MOVES,
    CH_UNDO,
    CH_RESIGN,
    CH_FLAG,
    CH_ABORT,
    CH_JOIN,
    CH_UNDO_ASK,
    CH_UNDO_END,
    CH_DRAW_TALK, /* a draw offered, declined or withdrawn: nothing stored but the claim */
    CH_DRAW       /* a draw offer accepted: the match ends */
};

enum draw_talk { DRAW_OFFERED, DRAW_DECLINED, DRAW_WITHDRAWN };

/* What the change's rows are written from, copied from its match when it is staged, so that a
 * round thread (round-thread.c) reads nothing the loop may change; and how writing them went. */
struct staged_rows {
    uint64_t id, version; /* the match's, as this server last read or wrote it */
    uint64_t ply;         /* its ply before the change */
    int score[2];         /* its scores before the change */
    bool undo_open;       /* an undo request is open, and this change ends it */
    enum change_outcome outcome;
    enum claim_result claim;
    enum admit_result admit;
    bool damage;             /* the change failed on a damaged page */
    bool conflict;           /* it failed on a unique key (another server's rematch stored first) */
    bool lock_wait;          /* it failed waiting for a lock past lock_timeout */
    uint64_t rematch_winner; /* CH_NEW of a rematch that conflicted: the one stored, or 0 */
    char why[300];           /* the store's error, if it failed */
};

/* A change made in this round's transaction; applied to memory and answered once committed. */
struct change {
    enum change_kind kind;
    struct match *match;
    uint64_t client_serial;
    tg_state *state; /* the match's state after the change */
    struct move_list made;
    size_t keep_plies; /* CH_UNDO */
    int seat;          /* CH_RESIGN, CH_FLAG, CH_UNDO_ASK (asking), CH_UNDO_END (answering) */
    enum undo_state undo_end; /* CH_UNDO_END: UNDO_DECLINED or UNDO_LAPSED */
    enum draw_talk draw_talk; /* CH_DRAW_TALK */
    /* CH_DRAW_TALK on a shared database: what the other servers are told at the commit. */
    char draw_news[160];
    struct match_clock clock; /* the match's clocks after the change */
    struct buf reply;
    bool failed;
    double at;         /* the moment the change is charged up to (0: the round's) */
    bool kept_changed; /* the match's kept throws become kept_after (NULL: none) */
    char *kept_after;
    uint64_t rematch_of; /* CH_NEW: the finished match this one is the rematch of, or 0 */
    /* CH_NEW: the seat of the client asking, and whether its reply names the invite (`new`:
     * ok ID TOKEN INVITE) or the seat (`rematch`, `accept-seek`: ok ID SEAT TOKEN). */
    int asker_seat;
    bool reply_with_invite;
    uint64_t account_id; /* CH_NEW, CH_JOIN: the signed-in account taking the seat, or 0 */
    /* CH_NEW of an accepted seek (lobby.c): both seats' accounts (0: a guest's), whether it
     * is rated, and the seek's owner, told once the match is stored. */
    uint64_t seat_accounts[2];
    bool rated;
    uint64_t seek_id, seek_owner_serial;
    int seek_owner_seat;
    char seek_owner_instance[TOKEN_HEX_LEN + 1]; /* the server of the owner's connection */
    char seek_owner_name[ACCOUNT_NAME_MAX + 1];
    struct staged_rows rows;
};

struct set_aside_entry {
    uint64_t id;
    char *reason;
    bool written; /* recorded in the database (a damaged page may refuse the write) */
};

struct server {
    struct options opt;
    struct store *store;
    struct pool *bot_pool, *move_pool, *record_pool, *account_pool;
    /* Account work waiting for the end of the round: its writes are made between rounds. */
    struct account_task **account_tasks;
    size_t account_task_count, account_task_cap;
    struct sign_in_entry **sign_ins; /* SIGN_IN_BUCKETS chains, or NULL before the first */
    size_t sign_in_count;
    /* What the record jobs queued or running may hold, reserved, and the records made and
     * not yet sent to every client asking (records.c). */
    size_t record_bytes;
    struct record *records;
    int wake_read, wake_write;
    struct rules_entry **rules;
    size_t rules_count;
    struct match **buckets;
    size_t bucket_count, loaded_count;
    uint64_t match_count;
    struct client **clients;
    size_t client_count;
    uint64_t next_serial;
    struct change *changes;
    size_t change_count, change_cap;
    /* A shared database: the round's changes to stored matches are written on round threads,
     * each with its own connection, so that no database wait holds the loop (round-thread.c);
     * NULL on SQLite. */
    struct round_thread *round_thread;
    /* A shared database: the loop's other writes (take-over claims, account writes) on
     * threads with connections of their own (db-pool.c); NULL on SQLite. */
    struct db_pool *db_pool;
    struct set_aside_entry *set_aside;
    size_t set_aside_count, set_aside_cap;
    struct match **clocked; /* loaded matches whose clocks may still run */
    size_t clocked_count, clocked_cap;
    double now;
    uint64_t live_count; /* matches stored and still being played: what --max-matches bounds */
    struct match *lru_head, *lru_tail, *pinned_head;
    struct address **addresses;
    size_t address_buckets, address_count;
    size_t out_total; /* output bytes waiting for every client, as of the last count */
    int reserve_fd;   /* closed to accept and refuse a client when descriptors run out */
    char relay_secret[TOKEN_HEX_LEN + 1]; /* what the WebSocket relay's first line carries */
    uint64_t refused_rate, refused_full, dropped_watchers;
    struct web *web; /* the web port, if open: it serves /metrics */
    double round_max, commit_max, commit_total;
    uint64_t commits;
    double next_lease_tick, next_version_poll; /* follow.c's timers */
    double leases_renewed_at; /* the last renewal of this server's leases that went through */
    uint64_t lease_epoch;     /* counts the times the leases may have run out between renewals */
    uint64_t refreshed, taken_over, refused_leased; /* follow.c's counts, for the metrics */
    /* A shared database: the whole site's counts as of site_at (0: not yet read), written with
     * this server's row of `instances` every SITE_POLL_SECONDS (follow.c). */
    struct site_counts site;
    double site_at, next_site_poll;
    /* A commit failed and the refused round could not yet be kept out of the database for
     * certain (store_settle): no change is taken until it can. */
    bool halted;
    struct id_gap *gaps;    /* stretches of ids on a damaged page of matches, found at start-up */
    uint64_t expiry_cursor; /* the matches nobody plays: ids up to it were looked at this pass */
    /* On a shared database, a pass's job is on a database thread: no second one is queued. */
    bool overdue_scan_running, expiry_running;
    size_t gap_count;
    struct lobby *lobby; /* the seeks and the lobby's live matches (lobby.c), or NULL */
};

enum run_result { RUN_DONE, RUN_WAIT };

/* metrics.c */
struct web;
void metrics_round(struct server *sv, double round_seconds);
void metrics_commit(struct server *sv, double seconds);
void metrics_publish(struct server *sv, struct web *web);

/* limits.c */
void fit_clients_to_descriptor_limit(struct options *o);
bool client_greet(struct server *sv, struct client *c, char **w, size_t n);
/* Counts the client against its address's connection cap, or refuses it (closing) if the
 * address holds its share already; false: refused. */
bool client_settle(struct server *sv, struct client *c);
/* Whether the peer may hold one more connection still unsettled. */
bool address_has_room(struct server *sv, const char *name);
bool spend_budget(struct server *sv, struct client *c, const char *cmd);
/* A password attempt from the client's address and, if folded is not NULL, with that account's
 * name: false (the client told, nothing spent) when either budget is empty. */
bool spend_sign_in(struct server *sv, struct client *c, const char *folded);
/* Tells the client its sign-in attempt was refused by its address's budget or, if account, by
 * the account's, and counts the refusal. */
void reply_sign_in_spent(struct server *sv, struct client *c, bool account);
void sign_ins_free(struct server *sv);
bool address_attach(struct server *sv, struct client *c, const char *name);
void address_detach(struct server *sv, struct client *c);
void addresses_free(struct server *sv);
void addresses_sweep(struct server *sv);
void count_output(struct server *sv);
bool output_over_budget(const struct server *sv, const struct client *c);

/* accounts.c */
/* The account commands (docs/server.md, "Accounts"); w[0] names it, n words in all. */
void cmd_account(struct server *sv, struct client *c, char **w, size_t n);
/* The signed-in account of the connection, checked against the database (its session may
 * have been revoked or expired, through any server): 0 for a guest. */
uint64_t signed_in_account(struct server *sv, struct client *c);
/* The relay's `via` line carries a browser's session cookie: the connection is signed in with
 * it as by `session TOKEN`, without a reply; a token that signs in to nothing leaves a guest. */
void account_resume(struct server *sv, struct client *c, const char *token);
/* A finished JOB_ACCOUNT: its task waits for accounts_settle. */
void account_job_done(struct server *sv, struct job *j);
void account_task_free(struct account_task *t);
/* Between rounds: makes the account writes of the tasks waiting, and answers them. */
void accounts_settle(struct server *sv);
void work_account(struct pool_job *pj);

/* accounts.c */
/* Whether name is a valid account name; its folded form (the key of look-alikes) into folded. */
bool account_name_fold(const char *name, char folded[ACCOUNT_NAME_MAX + 1]);
/* The account of a player named in a command, or false with the client answered: bad-name,
 * no-such-player, or io. */
bool find_player(struct server *sv, struct client *c, const char *name, struct stored_account *a);

/* lobby.c */
/* An accepted seek's match (ch) stored (taken) or refused: the seek leaves this server's lobby,
 * its watchers told, or is open here again. */
void lobby_seek_settled(struct server *sv, const struct change *ch, bool taken);
/* seek, challenge, unseek, accept-seek, decline-seek and lobby (docs/server.md, "Lobby"). */
void cmd_lobby(struct server *sv, struct client *c, char **w, size_t n);
/* A committed change: tells a seek's owner of its match, and the lobby of matches started
 * and ended. */
void lobby_committed(struct server *sv, const struct change *ch);
/* Once a second: the seeks whose owner is gone or that are too old go. */
void lobby_sweep(struct server *sv);
/* Inside CH_NEW: an accepted seek is taken off the site, its seats' accounts and, if rated,
 * its rated_matches row written (ratings_stage_new). */
bool lobby_stage_new(struct store *st, const struct change *ch);
/* A shared database: what the other servers' lobbies did, pushed to this one's. */
void lobby_follow(struct server *sv);
void lobby_free(struct server *sv);

/* ratings.c */
/* The clock category of a rated game (docs/server.md, "Rated games"). */
const char *clock_category(const struct stored_clock *clock);
/* Inside CH_NEW: an accepted seek's seats' accounts and, if rated, its rated_matches row. */
bool ratings_stage_new(struct store *st, const struct change *ch);
/* Inside any change to match `id` (on a round's thread on PostgreSQL: reads only the change,
 * never the match): if it ends a rated match, both players' ratings, once. */
bool ratings_stage_result(struct store *st, const struct change *ch, uint64_t id);
/* Whether the match is rated (RATED_FAILED: the database did not answer). */
enum rated_result match_rated(struct server *sv, const struct match *m);
/* Appends " GAME/CATEGORY=RATING[?],rd=RD,games=N" for each of the account's ratings. */
bool ratings_describe(struct server *sv, uint64_t account_id, struct buf *out);
void cmd_player(struct server *sv, struct client *c, const char *name);

/* history.c */
/* player-page NAME [PAGE]: the account's ratings, rating history and finished games, as JSON. */
void cmd_player_page(struct server *sv, struct client *c, const char *name, const char *page_text);
/* match-page ID: the stored match's players, result and how it ended, as JSON. */
void cmd_match_page(struct server *sv, struct client *c, const char *id_text);

/* bots.c */
/* A level name of a game and the bot spec it stands for (docs/bots.md, "Levels"): the table
 * server/levels-table.py writes from docs/ratings/levels.json, the web board's file too. */
struct bot_level {
    const char *game, *level, *spec;
};
extern const struct bot_level bot_levels[];
extern const size_t bot_level_count;
/* The spec a level name stands for in the game game_id; any other name as it is. */
const char *bot_level_spec(const char *game_id, const char *name);
/* The error word (and why) if a valid spec asks more than this server allows, else NULL. */
const char *bot_over_limit(const char *spec, const struct options *o, char *why, size_t cap);
/* The time in ms a search gets now (-1: the spec does not search): the server's cap, the
 * spec's own time= if smaller, and no later than deadline (if not 0). */
long bot_time_ms(const char *spec, unsigned long cap_ms, double now, double deadline);
/* spec with its time= replaced by time_ms (as it is if time_ms < 0); false if out is short. */
bool bot_spec_with_time(const char *spec, long time_ms, char *out, size_t cap);
/* Whether a search with these limits (bot_time_ms's) costs at most BOT_CHEAP_MS. */
bool bot_is_cheap(const char *spec, unsigned long cap_ms, double now, double deadline);

/* clock.c */
void check_flags(struct server *sv);
/* Loads the correspondence matches whose deadline passed while nobody had them loaded, for
 * check_flags to flag (docs/server.md, "Correspondence"). Once a second. */
void load_overdue_matches(struct server *sv);
bool flag_fell(struct server *sv, struct match *m);
struct match_clock clock_after(const struct match *m, double now, double charged, int decider);
int64_t clock_left(const struct match *m, int seat, double now);
int clock_running(const struct match *m);
/* A time control, clock=M+S or days=N (docs/server.md, "Clocks", "Correspondence"); false
 * for anything else, *out then unchanged or partly written. */
#define TIME_CONTROL_HELP                                                                          \
    "a time control is clock=M+S, minutes (up to 1440) and an increment in seconds (up to "        \
    "3600), e.g. clock=5+3, or days=N, N days per move: 1, 2, 3, 5, 7 or 14"
bool parse_time_control(const char *text, double day_seconds, struct stored_clock *out);
/* Whether a word is meant as a time control (clock=... or days=...), valid or not. */
bool is_time_control(const char *word);
bool track_clock(struct server *sv, struct match *m);

/* commands.c */
/* The rule set for a new match (new, a seek): checked against this server's limits; NULL, the
 * client told why, if it may not be played. */
struct rules_entry *rules_for_new_match(struct server *sv, struct client *c, const char *spec);
void cmd_answer_undo(struct server *sv, struct client *c, struct match *m, char **w, bool accept);
void cmd_bot(struct server *sv, struct client *c, struct match *m, char **w);
void cmd_new(struct server *sv, struct client *c, char **w, size_t n);
void cmd_join(struct server *sv, struct client *c, struct match *m, const char *invite);
void cmd_play(struct server *sv, struct client *c, struct match *m, char **w);
void cmd_resign(struct server *sv, struct client *c, struct match *m, char **w);
/* The seat whose token is `token` if it may change the match now (joined, not over, not busy,
 * and at ply `ply_text` if given); -1 after replying with the error. */
int acting_seat(struct client *c, struct match *m, const char *ply_text, const char *token);

/* draws.c */
/* offer-draw, accept-draw, decline-draw, withdraw-draw ID PLY TOKEN (w[0] names which). */
void cmd_draw(struct server *sv, struct client *c, struct match *m, char **w);
/* After a committed change of this server's: the offer as the change leaves it, told. */
void draw_committed(struct server *sv, const struct change *ch, size_t plies_before);
/* After the match was read again (another server changed it): plies from `from` on are new,
 * `undone` if some of the plies it had were taken back, `unseen` if the new version changed
 * nothing else (an offer's change, whose news may not have come yet); a pending news taken
 * if due. */
void draw_followed(struct server *sv, struct match *m, size_t from, bool undone, bool unseen);
/* Another server's news of an offer ("ID VERSION PLY BY SPENT0 SPENT1 WHAT SEAT"). */
void draw_news(struct server *sv, const char *rest);
/* The catch-up line of an open offer, and show's field. */
void draw_catch_up(struct client *c, const struct match *m);
void cmd_undo(struct server *sv, struct client *c, struct match *m, char **w);
/* The match's undo request went unanswered for --undo-timeout: its lapse is staged (where this
 * server plays the match, or nobody has for long). */
void undo_lapse(struct server *sv, struct match *m);
/* The match's open request as loaded: who asked, and when (as long ago as stored). */
void undo_take(struct server *sv, struct match *m, const struct stored_undo *u);
void cmd_unwatch(struct client *c, struct match *m);
void cmd_watch(struct server *sv, struct client *c, struct match *m, const char *ply_text);

/* events.c */
void catch_up(struct server *sv, struct client *c, const struct match *m, size_t from);
const char *end_reason(const struct match *m);
/* Why an aborted match was: its seat never joined (no-join), its clocked first decision
 * never came (no-first-move), or nobody moved in an unclocked one (abandoned). Told by what the
 * match is, so that no reason needs storing. */
const char *abort_reason(const struct match *m);
void push_clock(struct server *sv, const struct match *m);
/* Sends one line to every connection watching the match. */
void push_event(struct server *sv, const struct match *m, const char *fmt, ...) TG_PRINTF(3, 4);
const char *result_word(const struct match *m);
bool watches(const struct client *c, uint64_t id);

/* follow.c */
int follow_fd(const struct server *sv);
void follow_round(struct server *sv);
bool follow_refresh(struct server *sv, struct match *m);
struct match *follow_fresh(struct server *sv, struct match *m);
/* The site's counts read now unless read in the last max_age seconds; false: not known. */
bool follow_site(struct server *sv, double max_age);
void follow_claimed(struct server *sv, struct match *m);

/* jobs.c */
bool load_consistent(const struct job *j, char *why, size_t why_cap);
/* Loads stored match id (not loaded, not set aside) on a move worker: RUN_WAIT once queued,
 * RUN_DONE when it cannot be, c (NULL for the server's own loads) told why. */
enum run_result start_load(struct server *sv, struct client *c, uint64_t id);
enum run_result find_match(struct server *sv, struct client *c, const char *id_text,
                           struct match **out);
void job_free(struct job *j);
/* Queues j on pool for the client's address, at most address_max (0: any number) of that
 * address's jobs there at once; false (j not taken) after telling the client why not. */
bool job_submit(struct pool *pool, struct client *c, struct job *j, size_t address_max);
bool result_consistent(const struct job *j, char *why, size_t why_cap);
void take_finished_jobs(struct server *sv);
void work_bot(struct pool_job *pj);
void work_load(struct pool_job *pj);
void work_play(struct pool_job *pj);

/* loop.c */
void client_free(struct server *sv, struct client *c);
TG_NORETURN void fatal(const char *fmt, ...) TG_PRINTF(1, 2);
int listen_loopback(unsigned port, unsigned *bound);
double monotonic_seconds(void);
void on_stop(int sig);
void serve(struct server *sv, int listen_fd);
bool set_nonblocking(int fd);

/* match.c */
/* Whether one more match may be created now; false: the client has its refusal. */
bool admit_new_match(struct server *sv, struct client *c);
/* A CH_NEW change, not yet staged, of a fresh match of `rules` (taken over: released on failure)
 * with `clock`; seat `invite_seat` is invited with `invite` (a copy of it, a fresh token if
 * NULL). NULL: the client has its error. */
struct change *new_match_change(struct server *sv, struct client *c, struct rules_entry *rules,
                                const struct stored_clock *clock, int invite_seat,
                                const char *invite);
/* Writes a stored CH_NEW's reply (its id known once stored) into ch->reply; false: out of
 * memory. */
bool new_match_reply(struct change *ch);
bool evictable(const struct match *m);
void match_touch(struct server *sv, struct match *m);
void lru_unlink(struct server *sv, struct match *m);
void unload_idle_matches(struct server *sv);
/* Once a second: ends the next stretch of ids' matches nobody plays (--join-timeout,
 * --abandon-after), so that --max-matches counts play. */
void expire_unplayed_matches(struct server *sv);
const struct set_aside_entry *find_set_aside(const struct server *sv, uint64_t id);
void forget_plies(struct match *m, size_t keep);
struct match *loaded_match(struct server *sv, uint64_t id);
void match_free(struct server *sv, struct match *m);
bool match_over(const struct match *m);
bool note_plies(struct match *m, const struct stored_move *moves, size_t n);
void on_stored_set_aside(uint64_t id, const char *reason, void *ctx);
void remember_set_aside(struct server *sv, uint64_t id, const char *reason, bool written);
/* Every id from..to, at start-up, before any other mark: no search, no line each. */
bool remember_set_aside_range(struct server *sv, uint64_t from, uint64_t to, const char *reason);
bool room_to_load(struct server *sv);
struct rules_entry *rules_acquire(struct server *sv, const char *spec, tg_status *st);
void rules_release(struct server *sv, struct rules_entry *e);
int seat_of(const struct match *m, const char *token);
bool table_insert(struct server *sv, struct match *m);
void table_remove(struct server *sv, struct match *m);
void write_set_aside_marks(struct server *sv);

/* open-database.c */
/* Opens the database at start-up, mending what it can first (the log checked, damaged side
 * tables put aside, a damaged schema page rebuilt); what the log lost is written into
 * wal_warning. Ends the process (fatal) if the database cannot be opened. */
void open_database(struct server *sv, char *wal_warning, size_t warning_cap);
/* Counts the stored and live matches past damaged pages, setting their ids aside, reads the
 * set-aside marks, and with --check replays every match. */
void survey_stored_matches(struct server *sv);

/* options.c */
/* Reads the command line into o, defaults first: -1 to go on, else the exit status to end with
 * (0 after --help, EXIT_BAD_ARGS after saying what is wrong). */
int parse_options(int argc, char **argv, struct options *o);

/* protocol.c */
struct client *client_by_serial(struct server *sv, uint64_t serial);
enum run_result handle_line(struct server *sv, struct client *c, char *line);
bool parse_u64(const char *text, uint64_t *out);
void reply_error(struct client *c, const char *word, const char *fmt, ...) TG_PRINTF(3, 4);
void reply_set_aside(struct client *c, uint64_t id, const char *reason);
void reply_status(struct client *c, tg_status st);

/* replay.c */
/* A copy of the position (and ply) without the history: what a worker gets for a move. */
tg_status state_copy_short(const tg_state *s, tg_state **out);
/* Replays the match's first `keep` plies on a worker, then stages the undo; takes kept_after
 * (the kept throws after it, NULL: unchanged). False: the client has its error. */
bool submit_undo(struct server *sv, struct client *c, struct match *m, size_t keep,
                 char *kept_after);
void cmd_record(struct server *sv, struct client *c, struct match *m);
void replay_done(struct server *sv, struct job *j);

/* records.c */
/* The record of the match's plies as they are now with these tags: one made or being made, or
 * NULL. */
struct record *record_find(struct server *sv, const struct match *m, const char *tags);
/* A record to be made, NULL when memory runs out (the client is then told). */
struct record *record_new(struct server *sv, struct client *c, const struct match *m,
                          const char *tags);
/* The client waits for the record, or, made, starts sending it. */
void record_attach(struct server *sv, struct client *c, struct record *r);
/* The record's job is done: st, and the text it made (taken), or NULL. Its clients start
 * sending it, or are told why not. */
void record_made(struct server *sv, struct record *r, tg_status st, char *text, size_t len);
/* More of the client's record into its output while that holds less than OUT_HIGH_WATER. */
void record_feed(struct server *sv, struct client *c);
/* The rest of the client's record into its output at once, so that an event pushed to it
 * comes after the record's lines, as it did when records were written whole (the caller
 * counts the bytes in out_total); false when memory runs out. */
bool record_flush(struct server *sv, struct client *c);
/* The client is done with its record (sent, or the client is going). */
void record_detach(struct server *sv, struct client *c);
void records_free(struct server *sv);

/* rematch.c */
enum run_result cmd_rematch(struct server *sv, struct client *c, struct match *old, char **w);
void rematch_catch_up(const struct server *sv, struct client *c, const struct match *m);
void rematch_settle(struct server *sv, const struct change *ch, bool stored);
/* A rematch that another server stored first (or is storing): the change is discarded, the
 * client told to ask again (the winner's id in the old match's `rematch` and in the reply, if
 * it was stored), and true returned. False: not that, the change's failure is the usual one. */
bool rematch_lost(struct server *sv, struct change *ch, struct client *c);
/* The rematch of match `of` is no longer being stored (stored, or not): it is free again. */
void rematch_release(struct server *sv, uint64_t of);

/* round.c */
void change_discard(struct server *sv, struct change *ch);
struct change *change_new(struct server *sv, enum change_kind kind, struct match *m,
                          uint64_t serial);
void finish_round(struct server *sv);
/* Writes the change's rows in a savepoint of the round's transaction on st, from ch->rows and
 * what the change holds, and notes in ch->rows how it went. Reads nothing of the server, so it
 * runs on a round thread too. first_of_round: no other change holds locks in the round. */
void stage_rows(struct store *st, struct change *ch, uint64_t max_matches, bool first_of_round);
/* After stage_rows: a change kept waits for the commit (true); one that failed is discarded and
 * its client told why. */
bool stage_settle(struct server *sv, struct change *ch);
/* After the commit (committed or not): applies a change kept to memory and queues its reply,
 * or tells its client that nothing changed (why: the failed commit's error). */
void apply_change(struct server *sv, struct change *ch, bool committed, const char *why);

/* db-pool.c */
/* A shared database: starts the database threads and their connections; false, why in err, if
 * they cannot. Nothing to do on SQLite (true). */
bool db_pool_start(struct server *sv, char *err, size_t err_cap);
/* Stops the threads once their statements are done; the jobs not run are freed. */
void db_pool_stop(struct server *sv);
/* Queues j (its db_work and db_done set) for a database thread, for the client's address, or
 * for nobody's (c NULL). False: not queued (the client, if any, is told why); j is the
 * caller's. */
bool db_submit(struct server *sv, struct client *c, struct job *j);
/* The database threads' pool, whose finished jobs the loop takes; NULL on SQLite. */
struct pool *db_pool_workers(const struct server *sv);

/* round-thread.c */
/* A shared database: starts the round threads and their connections; false, why in err, if
 * they cannot. Nothing to do on SQLite (true). */
bool round_thread_start(struct server *sv, char *err, size_t err_cap);
/* Waits for the batches in flight (bounded by the sessions' statement timeout) and stops the
 * threads; the changes not answered are discarded. */
void round_thread_stop(struct server *sv);
/* Takes the change (its match busy, its rows copied into ch->rows) into the next batch; the
 * slot in sv->changes is free again. False: out of memory, the change is the caller's. */
bool round_thread_take(struct server *sv, struct change *ch);
/* Applies the batches the threads are done with and answers their clients, then shares the
 * changes gathered out among the free threads. Called every round. */
void round_thread_turn(struct server *sv);
/* The change staged last into the batch being gathered, or NULL (a command that stages a change
 * and then rewrites its reply looks it up there, as in sv->changes on SQLite). */
struct change *round_thread_last(struct server *sv);
/* The new matches (CH_NEW) gathered or in flight, not yet applied: 0 on SQLite. */
size_t round_thread_news(const struct server *sv);
/* Whether a change waits in a batch, gathered or in flight. */
bool round_thread_waiting(const struct server *sv);
/* Tries again to learn the state on disk after a failed commit; takes changes again if so. */
void settle_after_failure(struct server *sv);
void stage(struct server *sv, struct change *ch);

#endif

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
    uint64_t rematch;       /* the match its `rematch` created (stored: store_mark_rematch), or 0 */
    bool rematch_staged;    /* its rematch is being stored (the match busy until it is) */
    uint64_t version;       /* its changes as stored (a shared database): who else changed it */
    uint64_t plies_version; /* new with each change of its plies, unique in the process */
    bool claimed;           /* this server holds its lease (as of claim_epoch: follow.c) */
    uint64_t claim_epoch;
    struct draw_offer draw; /* draws.c; stored in draw_offers by the changes that alter it */
    uint64_t draw_version;  /* the version the offer was last made, answered or withdrawn at */
    /* A shared database: a version another server made that must be an offer's change, whose
     * news has not come yet, and when it was seen: the offer is not answered meanwhile. */
    uint64_t draw_unsure_version;
    double draw_unsure_at;
    /* A shared database: the offer as its row was when the match was last read, and at which
     * version: what the offer is taken to be if that version's news never comes. */
    struct draw_offer draw_row;
    uint64_t draw_row_version;
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
struct lobby_task;
struct db_pool;
struct server;

/* What a command is told when the match it names could not be loaded: `err CODE TEXT`. */
struct load_refusal {
    char code[24];
    char text[400];
};

/* A shared database: a stored match whose rows a database thread is reading (load-read.c).
 * Commands naming it wait for this read, none starts another; once the read is done and gave
 * no match, `refusal` answers the commands that waited (for the rest of that loop's pass). */
struct load_read {
    uint64_t id;
    bool finished;
    struct load_refusal refusal;
};

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
    struct lobby_task *seek_task; /* JOB_DB: a lobby write (lobby-write.c), a plain struct freed
                                   * with the job */
    bool adopted;             /* the take-over's match was loaded for it (follow.c) */
    uint64_t claim_id, claim_version; /* the take-over's match, and the version of its copy */
    enum claim_result claimed; /* the take-over's outcome; CLAIM_FAILED until it ran */
    /* The once-a-second passes' jobs (clock.c, match.c): the overdue correspondence matches
     * found, or the unloaded expired matches to end, and how many of those were ended. */
    uint64_t pass_ids[DB_PASS_IDS_MAX];
    size_t pass_id_count, pass_ended;
    double expire_join_timeout, expire_abandon_after; /* the ends' rules, copied for the thread */
    /* A load's read on a database thread (load-read.c): the id, what the read found, and the
     * address that asked, whose turn the replay then takes on the move workers. */
    uint64_t load_id;
    enum load_result load_found;
    char load_address[64];
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
    CH_DRAW_TALK, /* a draw offered, declined or withdrawn: the offer's row and the claim */
    CH_DRAW       /* a draw offer accepted: the match ends */
};

enum draw_talk { DRAW_OFFERED, DRAW_DECLINED, DRAW_WITHDRAWN };

/* What a change does to its match's stored draw offer (draws.c, draw_rows): nothing, an offer
 * by the change's seat, an end of the open offer and the decisions made (DRAW_ROW_DECIDED), or
 * the row gone with the match's end. */
enum draw_row { DRAW_ROW_SAME, DRAW_ROW_OFFER, DRAW_ROW_DECIDED, DRAW_ROW_FORGET };

/* What the change's rows are written from, copied from its match when it is staged, so that a
 * round thread (round-thread.c) reads nothing the loop may change; and how writing them went. */
struct staged_rows {
    uint64_t id, version; /* the match's, as this server last read or wrote it */
    uint64_t ply;         /* its ply before the change */
    int score[2];         /* its scores before the change */
    bool undo_open;       /* an undo request is open, and this change ends it */
    bool ends;            /* the change ends the match (its draw and lobby rows go) */
    enum draw_row draw_row;
    int draw_seat;         /* DRAW_ROW_OFFER: the seat offering */
    bool draw_ended;       /* DRAW_ROW_DECIDED: the open offer ends (answered, withdrawn, undo) */
    bool draw_decided[2];  /* DRAW_ROW_DECIDED: the seats that made a decision */
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
    /* CH_NEW of an accepted seek (lobby-seek.c): both seats' accounts (0: a guest's), whether it
     * is rated, and the seek's owner, told once the match is stored. */
    uint64_t seat_accounts[2];
    bool rated;
    uint64_t seek_id, seek_owner_serial;
    int seek_owner_seat;
    char seek_owner_instance[TOKEN_HEX_LEN + 1]; /* the server of the owner's connection */
    char seek_owner_name[ACCOUNT_NAME_MAX + 1];
    /* CH_NEW of an accepted seek: its `lobby live` line after the id, stored with the match. */
    char live_line[HISTORY_SPEC_MAX + 128];
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
    /* A shared database: the loads whose rows a database thread reads (load-read.c). */
    struct load_read *load_reads;
    size_t load_read_count, load_read_cap;
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

#include "server-calls.h"

#endif

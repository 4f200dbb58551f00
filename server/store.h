/* The match server's storage: matches, seats, moves and results as rows, in one SQLite database
 * (WAL mode) or in PostgreSQL, which several servers may share. Only the server's loop thread
 * touches it. One interface for both: the files below only store and load rows, the match
 * logic is the server's own. The schemas are described in docs/server.md.
 *
 * SQLite, one job a file: store.c opens the database (schema, pragmas, statements),
 * store-round.c the round's transaction, store-write.c writes a match's rows, store-load.c reads
 * one match, store-list.c counts and lists the matches, store-expire.c finds the matches nobody
 * plays, store-maintenance.c runs --check's integrity check and --backup; past damage,
 * store-scan.c counts past a damaged page, store-repair.c keeps and restores the schema page,
 * store-quarantine.c puts a damaged side table aside. PostgreSQL: store-pg.c opens it, and the
 * store-pg-*.c files do the same jobs there (store-pg-private.h). store-shared.c: what several
 * servers on one database need, no-ops on SQLite. */
#ifndef TG_SERVER_STORE_H
#define TG_SERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOKEN_HEX_LEN 32 /* 128 bits from the OS's random source, in hex */
#define NOTATION_MAX 48  /* room for any move name of any game, with its NUL */

struct store;

/* One row of `moves`. seat is 0 or 1 for a decision, -1 for a throw made by the server. */
struct stored_move {
    uint32_t move;
    char notation[NOTATION_MAX];
    uint64_t hash_after;
    int seat;
};

/* A match's time control and where its clocks stood after its last change. */
struct stored_clock {
    bool on;
    int64_t base_ms, increment_ms;
    int64_t left_ms[2]; /* each seat's time at the start of its turn */
    bool started;       /* clocks run from the first decision on */
    int flagged;        /* -1, or the seat whose time ran out (the match is over) */
    int64_t used_ms;    /* as loaded: how long the current turn has run (PostgreSQL stores when
                           each turn began; SQLite does not, and a restart gives it back) */
    int to_move;        /* correspondence: the seat to move after the change, -1 if none */
    bool no_deadline;   /* correspondence: none runs (the match is over, or a seat is not yet
                           taken), so that the scan's range holds only deadlines that run */
    int days;           /* correspondence: days per move (base_ms is that many days), else 0;
                           stored with the deadline of the seat to move, in wall-clock time,
                           from which a load computes used_ms on either store */
};

/* A match's undo request at its current ply (docs/server.md, "Undo"): open, or how it ended;
 * UNDO_NONE also for a request made at another ply (a change since ended it). */
enum undo_state { UNDO_NONE, UNDO_OPEN, UNDO_DECLINED, UNDO_LAPSED };
struct stored_undo {
    enum undo_state state;
    int seat;       /* who asked */
    int64_t age_ms; /* how long ago, as loaded (the database's clock on PostgreSQL) */
};

/* A running match's draw offer (docs/server.md, "Draw offers"): the seat offering, or -1, and
 * whether each seat has offered since the other seat last decided. */
struct stored_draw {
    int by;
    bool spent[2];
};

/* One match as the database holds it; made by store_load_match, freed by stored_match_free. */
struct stored_match {
    uint64_t id;
    char *spec;
    char tokens[2][TOKEN_HEX_LEN + 1];
    bool has_result;
    int winner; /* 0, 1, or -1 for a draw */
    bool by_resignation;
    uint64_t result_ply;
    struct stored_clock clock;
    bool aborted;      /* a clocked match whose first decision never came */
    int invite_seat;   /* the seat nobody has joined yet, or -1 */
    char *kept_throws; /* space-separated throws to make again after an undo, or NULL */
    char invite[TOKEN_HEX_LEN + 1];
    struct stored_move *moves;
    size_t move_count;
    uint64_t version; /* counts the match's changes (PostgreSQL; 0 on SQLite) */
    uint64_t rematch; /* the match that is its rematch, or 0 */
    struct stored_undo undo;
    struct stored_draw draw; /* none (by -1, nothing spent) without a draw_offers row */
};

/* LOAD_UNAVAILABLE: the database could not be read (PostgreSQL gone away): not the match's
 * fault, so it is not set aside. */
enum load_result { LOAD_FOUND, LOAD_NOT_FOUND, LOAD_SET_ASIDE, LOAD_DAMAGED, LOAD_UNAVAILABLE };

/* Opens (creating if missing) the database at path, in WAL mode with full syncs; a path that
 * is a postgresql:// URL or a libpq conninfo (key=value ...) opens PostgreSQL instead, its
 * schema created or migrated. On failure returns NULL and writes why into err. */
struct store *store_open(const char *path, char *err, size_t err_cap);
void store_close(struct store *st);
const char *store_error(const struct store *st);
/* Whether the last failure was the database reporting damage (SQLITE_CORRUPT, SQLITE_NOTADB). */
bool store_last_was_damage(const struct store *st);

/* A round's transaction: changes are grouped in it, each inside its own savepoint so that one
 * failing change does not take the others with it. */
bool store_begin_round(struct store *st);
bool store_in_transaction(const struct store *st);
bool store_change_begin(struct store *st);
/* Ends one change: kept if ok, else rolled back to its savepoint. CHANGE_ROUND_LOST: the whole
 * transaction was lost, with every change staged before this one. */
enum change_outcome { CHANGE_KEPT, CHANGE_DROPPED, CHANGE_ROUND_LOST };
enum change_outcome store_change_end(struct store *st, bool ok);
bool store_commit_round(struct store *st);
/* After store_commit_round failed: makes sure the refused round cannot reappear in the
 * database, not even after a crash (a failed sync may still have written its commit), and
 * syncs that. False (why in err): the state on disk is unknown, and no change may be taken
 * until a later call succeeds. */
bool store_settle(struct store *st, char *err, size_t err_cap);
void store_rollback_round(struct store *st);

bool store_insert_match(struct store *st, uint64_t wanted_id, const char *spec,
                        const char tokens[2][TOKEN_HEX_LEN + 1], uint64_t *id);
bool store_insert_move(struct store *st, uint64_t id, uint64_t ply, const struct stored_move *m);
/* The match's count of moves rows, kept with every change that adds or removes some. */
bool store_set_plies(struct store *st, uint64_t id, uint64_t plies);
/* The n moves rows from ply `first` on, then the count of plies set to plies: what a change
 * that adds moves writes (one statement on PostgreSQL). */
bool store_add_moves(struct store *st, uint64_t id, uint64_t first, const struct stored_move *m,
                     size_t n, uint64_t plies);
bool store_delete_moves_from(struct store *st, uint64_t id, uint64_t ply);
bool store_set_result(struct store *st, uint64_t id, int winner, bool by_resignation, uint64_t ply,
                      int score0, int score1);
bool store_clear_result(struct store *st, uint64_t id);
/* The throws an accepted undo took back, to be made again (NULL: none left). */
bool store_put_kept_throws(struct store *st, uint64_t id, const char *notations);
/* The invite to a match's other seat, written with the match and deleted when it is used; none
 * for seat -1 (both seats taken at once). */
bool store_put_invite(struct store *st, uint64_t id, int seat, const char *invite);
bool store_delete_invite(struct store *st, uint64_t id);
/* Ends a match with no result: its first decision did not come in time. */
bool store_set_aborted(struct store *st, uint64_t id);
/* The matches being played that nobody plays (store-expire.c): never joined for join_timeout
 * seconds since created, or without a clock and without a move for abandon_after seconds (since
 * the last move, or the creation), by the stored times. Up to max such ids in (after,
 * after + span], ascending; *more: there are ids above that range. */
bool store_expired_matches(struct store *st, uint64_t after, uint64_t span, double join_timeout,
                           double abandon_after, uint64_t *ids, size_t max, size_t *count,
                           bool *more);
/* Ends match id with an `aborted` row if it is (still) expired, in one statement outside any
 * round, for a match this server does not hold loaded; *ended: it was. */
bool store_expire_match(struct store *st, uint64_t id, double join_timeout, double abandon_after,
                        bool *ended);
/* The matches still being played (no result, no flag fall, not aborted). */
bool store_count_live_matches(struct store *st, uint64_t *count);
/* Writes the match's clocks row (a match without a time control has none). */
bool store_put_clock(struct store *st, uint64_t id, const struct stored_clock *c);
/* A correspondence match's time left to its seat to move, as a change leaves it: the lesser of
 * the two (each decision gives both seats the whole allowance; the seat to move is charged). */
int64_t correspondence_left_ms(const struct stored_clock *c);
/* How long the turn of a correspondence match's seat to move has run, from its deadline (Unix
 * milliseconds) at now_ms; the load then gives both seats the whole allowance again, so
 * that the time left is the deadline's. */
int64_t correspondence_used_ms(struct stored_clock *c, int64_t deadline_ms, int64_t now_ms);
/* Correspondence matches still being played whose seat to move is past its stored deadline
 * (docs/server.md, "Correspondence"), the most overdue first, at most max; on a shared
 * database, only those no live server holds the lease of (that server's loop flags them). */
bool store_overdue_matches(struct store *st, uint64_t *ids, size_t max, size_t *count);
/* Seat asks to take back the last decision of the match at ply (it replaces an earlier
 * request's row); the store notes when, in its own clock. */
bool store_put_undo_request(struct store *st, uint64_t id, int seat, uint64_t ply);
/* The open request ends: answered (UNDO_DECLINED), lapsed (UNDO_LAPSED), both kept in the row
 * so that other servers tell their watchers, or taken away with it (UNDO_NONE: accepted, or
 * ended by another change). */
bool store_end_undo_request(struct store *st, uint64_t id, enum undo_state how);
/* The match's draw offer, in the change that makes, answers or lapses it (docs/server.md,
 * "Draw offers"). store_offer_draw: seat offers, and has offered. store_draw_decided: the open
 * offer ends if `ended` (declined, withdrawn, an accepted undo); each seat that `decided` lets
 * the other seat offer again and lapses that seat's offer. Both change the row as it is, not
 * as the server last knew it. store_forget_draw: the match ended, the row goes. */
bool store_offer_draw(struct store *st, uint64_t id, int seat);
bool store_draw_decided(struct store *st, uint64_t id, bool ended, const bool decided[2]);
bool store_forget_draw(struct store *st, uint64_t id);

/* The lobby's live matches (docs/server.md, "Lobby"): line is the match's `lobby live` line
 * after its id, written in the accepted seek's change; the row goes with the match's end.
 * store_each_lobby_match calls each for the newest max still being played, oldest first. */
bool store_put_lobby_match(struct store *st, uint64_t id, const char *line);
bool store_forget_lobby_match(struct store *st, uint64_t id);
bool store_each_lobby_match(struct store *st, size_t max,
                            void (*each)(uint64_t id, const char *line, void *ctx), void *ctx);

/* Before store_open, on SQLite: each side table that SQLite's quick_check finds damaged
 * (set_aside, meta, undo_requests, draw_offers, lobby_matches, invites, kept_throws, aborted,
 * clocks, results, correspondence) is renamed
 * damaged_NAME_TIME, kept for an operator and never read again, for store_open to make anew,
 * empty; in the same transaction every match whose rows it may have held is set aside
 * (store-quarantine.c says which, table by table). What was done goes into report. The number
 * of tables renamed, or -1 when the file cannot be checked (none yet, or page 1 damaged:
 * store_repair_schema's part). */
int store_quarantine_damaged_tables(const char *db_path, char *report, size_t report_cap);

/* Marks a match as set aside, in its own small transaction outside any round. */
bool store_set_aside(struct store *st, uint64_t id, const char *reason);

enum load_result store_load_match(struct store *st, uint64_t id, struct stored_match *out,
                                  char *why, size_t why_cap);
void stored_match_free(struct stored_match *m);

bool store_count_matches(struct store *st, uint64_t *count);

/* A stretch of match ids whose `matches` rows sit on a page that cannot be read (to may be
 * UINT64_MAX: every id from `from` on). */
struct id_gap {
    uint64_t from, to;
};
/* When store_count_matches reports damage: the matches that can be read, and the live ones
 * among them (live_known false: the tables of endings are damaged too, and live = count), with
 * each stretch of ids skipped over (malloc'd into *gaps). False on any other failure. */
bool store_count_past_damage(struct store *st, uint64_t *count, uint64_t *live, bool *live_known,
                             struct id_gap **gaps, size_t *gap_count);
/* Copies the database at db_path to to_path with SQLite's online backup, while a server may
 * be running on it; false (and why in err) on failure. */
bool store_backup(const char *db_path, const char *to_path, char *err, size_t err_cap);
bool store_match_exists(struct store *st, uint64_t id, bool *exists);

/* The set-aside matches, ascending: calls each(id, reason, ctx) for each. */
bool store_each_set_aside(struct store *st, void (*each)(uint64_t, const char *, void *),
                          void *ctx);

/* Up to max ids above after, ascending; *more tells whether there are further ones. */
bool store_list_ids(struct store *st, uint64_t after, uint64_t *ids, size_t max, size_t *count,
                    bool *more);

/* The schema page: store_save_schema keeps a copy of the schema's rows beside the database
 * (PATH.schema, rewritten when they change); store_repair_schema, when the database cannot be
 * opened, rebuilds a damaged schema page from that copy, keeping the damaged file as
 * PATH.damaged-TIME, and says what it did in report. */
bool store_save_schema(struct store *st, const char *db_path, char *err, size_t err_cap);
enum schema_repair { SCHEMA_READS, SCHEMA_REPAIRED, SCHEMA_NOT_REPAIRED };
enum schema_repair store_repair_schema(const char *db_path, char *report, size_t report_cap);

/* Runs PRAGMA quick_check (full = integrity_check); writes its first line into out. */
bool store_check(struct store *st, bool full, char *out, size_t out_cap);

/* ---- accounts (store-accounts.c; store-pg-accounts.c on PostgreSQL) ------------------- */

#define ACCOUNT_NAME_MAX 20     /* bytes of a name (docs/server.md, "Accounts") */
#define PASSWORD_HASH_MAX 128   /* an Argon2id hash string (libsodium's crypto_pwhash_STRBYTES) */
#define SESSION_TOKEN_HEX_LEN 64 /* 256 bits from the OS's random source, in hex */
#define SESSION_HASH_HEX_LEN 64  /* a session token's SHA-256, in hex: all that is stored */

/* An account that is not deleted, as stored. */
struct stored_account {
    uint64_t id;
    char name[ACCOUNT_NAME_MAX + 1];
    char password_hash[PASSWORD_HASH_MAX];
};

/* ACCOUNT_TAKEN: another account has that folded name (store_create_account). */
enum account_result { ACCOUNT_OK, ACCOUNT_NOT_FOUND, ACCOUNT_TAKEN, ACCOUNT_FAILED };

/* Every account function but store_set_seat_account runs between rounds (never inside the
 * round's transaction; false or ACCOUNT_FAILED, with nothing done, if called inside one), each
 * in a transaction of its own. A new account: name as given, folded the key of look-alikes. */
enum account_result store_create_account(struct store *st, const char *name, const char *folded,
                                         const char *password_hash, uint64_t *id);
/* The account, not deleted, whose folded name is folded. */
enum account_result store_find_account(struct store *st, const char *folded,
                                       struct stored_account *out);
/* A session of account_id for lifetime_ms from now, known by the hash of its token; the
 * account's expired sessions go at the same time. */
bool store_create_session(struct store *st, uint64_t account_id, const char *token_hash,
                          int64_t lifetime_ms);
/* The account of a session that exists, has not expired and whose account is not deleted. */
enum account_result store_find_session(struct store *st, const char *token_hash,
                                       struct stored_account *out);
/* Revokes one session; every session of an account (sign out everywhere). */
bool store_delete_session(struct store *st, const char *token_hash);
bool store_delete_sessions(struct store *st, uint64_t account_id);
/* Deletes an account: its sessions and ratings go, its row stays anonymised (no name, no
 * password hash) so that the seats of its games keep pointing at one player. */
bool store_delete_account(struct store *st, uint64_t account_id);
/* Inside a change: the seat of match id was taken by account_id. */
bool store_set_seat_account(struct store *st, uint64_t id, int seat, uint64_t account_id);

/* How a sign-in attempt's charge went: taken from both budgets; refused by the address's or
 * the account's (neither charged); or the database failed (neither charged). */
enum sign_in_charge { SIGN_IN_TAKEN, SIGN_IN_ADDRESS_SPENT, SIGN_IN_ACCOUNT_SPENT, SIGN_IN_FAILED };

/* One sign-in budget as the database keeps it: its key, its size (attempts in window_seconds;
 * a size below 1 counts as 1, as the in-memory budgets do) and its window. */
struct sign_in_budget {
    const char *key;
    double size;
    double window_seconds;
};

/**
 * @brief Charges one sign-in attempt to budgets kept in the database, site-wide.
 *
 * PostgreSQL only (on SQLite, one server, the budgets are the server's memory: false, with
 * nothing done). Between rounds, in a transaction of its own: the address's budget first, then
 * the account's if @p account is not NULL; a refusal by either charges neither. Each budget
 * refills by the database's clock, so every server of the site agrees on it. Rows full again
 * are deleted (a few per call), so the table holds only the window's attempts.
 *
 * @param st      the store (its PostgreSQL connection).
 * @param address the address's budget, or NULL when the attempt has no address.
 * @param account the account name's budget, or NULL (a registration).
 * @return how the charge went (SIGN_IN_FAILED: store_error says why).
 */
enum sign_in_charge store_charge_sign_in(struct store *st, const struct sign_in_budget *address,
                                         const struct sign_in_budget *account);

/* ---- rated matches and ratings (store-ratings.c; store-pg-ratings.c on PostgreSQL) ------ */

#define RATED_GAME_MAX 32     /* bytes of a game id, with its NUL */
#define RATED_CATEGORY_MAX 16 /* bytes of a clock category, with its NUL */

/* A rating as stored: Glicko-2's three numbers and the rated games behind them. */
struct stored_rating {
    char game[RATED_GAME_MAX];
    char category[RATED_CATEGORY_MAX];
    double rating, rd, volatility;
    uint64_t games;
};

/* RATED_NO: not a rated match (or, for a claim, one rated already). */
enum rated_result { RATED_YES, RATED_NO, RATED_FAILED };

/* Inside a change: match id is rated, in game and category; its result is not yet rated. */
bool store_mark_rated(struct store *st, uint64_t id, const char *game, const char *category);
/* Whether match id is rated: its game and category, and whether its ratings were updated
 * (rated_done may be NULL). Inside a round or not. */
enum rated_result store_find_rated(struct store *st, uint64_t id, char game[RATED_GAME_MAX],
                                   char category[RATED_CATEGORY_MAX], bool *rated_done);
/* Inside a change: claims the update of match id's ratings. RATED_YES (game and category
 * filled) exactly once per match, site-wide: the claim is a row held to the commit. */
enum rated_result store_claim_rated(struct store *st, uint64_t id, char game[RATED_GAME_MAX],
                                    char category[RATED_CATEGORY_MAX]);
/* The accounts of match id's two seats (0 for a seat without one). */
bool store_seat_accounts(struct store *st, uint64_t id, uint64_t accounts[2]);
/* One account's rating in (game, category): RATED_NO if it has none yet. */
enum rated_result store_get_rating(struct store *st, uint64_t account_id,
                                   struct stored_rating *inout);
/* Inside a change: writes one account's rating (r's game and category name it), as the result
 * of match_id left it, and the same numbers as a point of the account's rating history. */
bool store_put_rating(struct store *st, uint64_t account_id, const struct stored_rating *r,
                      uint64_t match_id);
/* Calls each for every rating of the account, by game and category; at most max of them. */
bool store_each_rating(struct store *st, uint64_t account_id, size_t max,
                       void (*each)(const struct stored_rating *, void *), void *ctx);

/* ---- a player's and a match's history (store-history.c; store-pg-history.c) ------------ */

#define HISTORY_SPEC_MAX 512 /* bytes of a stored match's rule spec, with its NUL */

/* One rating as a rated result left it (a row of rating_history); times are Unix
 * milliseconds. */
struct rating_point {
    char game[RATED_GAME_MAX];
    char category[RATED_CATEGORY_MAX];
    double rating, rd, volatility;
    uint64_t match_id;
    int64_t at_ms;
};

/* Calls each for the account's latest rating points, newest first; at most max of them. */
bool store_each_rating_point(struct store *st, uint64_t account_id, size_t max,
                             void (*each)(const struct rating_point *, void *), void *ctx);

/* A finished game (a result or a flag fall) one account held a seat of. */
struct played_game {
    uint64_t match_id;
    char spec[HISTORY_SPEC_MAX];
    int seat;                            /* the account's */
    char opponent[ACCOUNT_NAME_MAX + 1]; /* "" for a guest or a deleted account */
    bool opponent_deleted;               /* the other seat's account was deleted */
    int winner;                          /* 0, 1, or -1: a draw */
    char reason[16];                     /* rules, resignation, time */
    bool rated;
    char game[RATED_GAME_MAX], category[RATED_CATEGORY_MAX]; /* a rated game's */
    uint64_t plies;
    int64_t created_ms, ended_ms; /* ended_ms -1: not stored (a flag fall) */
};

/* Calls each for the account's finished games, newest first, skipping the first `skip`; at
 * most max of them. */
bool store_each_played_game(struct store *st, uint64_t account_id, uint64_t skip, size_t max,
                            void (*each)(const struct played_game *, void *), void *ctx);

/* A correspondence match being played that one account holds a seat of (the player page's
 * "your turn" list). */
struct correspondence_game {
    uint64_t match_id;
    char spec[HISTORY_SPEC_MAX];
    int seat;                            /* the account's */
    char opponent[ACCOUNT_NAME_MAX + 1]; /* "" for a guest or a deleted account */
    int days;
    int to_move;         /* the seat to move, -1 while a seat is not yet joined or unknown */
    int64_t deadline_ms; /* the seat to move's, Unix milliseconds; -1 if none */
};

/* Calls each for the account's correspondence matches being played, the nearest deadline first;
 * at most max of them. */
bool store_each_correspondence(struct store *st, uint64_t account_id, size_t max,
                               void (*each)(const struct correspondence_game *, void *), void *ctx);

/* One seat of a stored match: its account, if any, and the rating a rated result moved. */
struct summary_seat {
    bool has_account, deleted;
    char name[ACCOUNT_NAME_MAX + 1];
    bool has_rating; /* the rated result moved this seat's rating */
    bool has_before; /* false: it was the account's first rated game */
    double rating_before, rating_after;
};

/* A stored match as its page shows it. result: "0", "1", "draw", "running" or "aborted"
 * (as `show` says); reason: rules, resignation, time, aborted, or "" while running. */
struct match_summary {
    char spec[HISTORY_SPEC_MAX];
    uint64_t plies;
    int64_t created_ms, ended_ms; /* ended_ms -1: running, or not stored */
    char result[8], reason[16];
    bool has_scores;
    int scores[2];
    bool rated;
    char game[RATED_GAME_MAX], category[RATED_CATEGORY_MAX];
    struct summary_seat seats[2];
};

/* Match id as stored: RATED_NO if there is no such match. */
enum rated_result store_match_summary(struct store *st, uint64_t id, struct match_summary *out);

/* ---- the lobby's seeks, site-wide (store-pg-lobby.c: PostgreSQL only) ------------------ */

#define SEEK_SPEC_MAX 256 /* bytes of a seek's canonical rule spec, with its NUL */

/* A seek as the site knows it: which server holds its owner's connection, and what it asks. */
struct stored_seek {
    uint64_t id;
    char instance[TOKEN_HEX_LEN + 1]; /* the owner's server (store_owner) */
    uint64_t owner_serial, owner_account, target_account;
    char owner_name[ACCOUNT_NAME_MAX + 1], target_name[ACCOUNT_NAME_MAX + 1];
    char spec[SEEK_SPEC_MAX];
    char clock_text[32];
    bool rated;
    int min, max;
    double rating;
    bool provisional;
};

/* A connection of its own that holds the site's seeks and hears the lobby's notifications
 * (channel tg_lobby), so that the store's own never sees them. */
struct lobby_feed;
struct lobby_feed *lobby_feed_open(const char *conninfo, char *err, size_t err_cap);
void lobby_feed_close(struct lobby_feed *f);
/* The seek with that id: false if it is gone (or the read failed: *failed). */
bool lobby_feed_get_seek(struct lobby_feed *f, uint64_t id, struct stored_seek *out, bool *failed);
/* Every seek of the site, oldest first. */
bool lobby_feed_each_seek(struct lobby_feed *f, void (*each)(const struct stored_seek *, void *),
                          void *ctx);
bool lobby_feed_notify(struct lobby_feed *f, const char *payload);
/* Calls each with every notification's payload that came since the last call. */
bool lobby_feed_take(struct lobby_feed *f, void (*each)(const char *, void *), void *ctx);
/* Inside a change: takes seek id off the site, telling the site `notice` once committed;
 * *taken false if it was gone already (taken through another server). True on SQLite, whose
 * seeks are the server's memory only. */
bool store_take_seek(struct store *st, uint64_t id, const char *notice, bool *taken);
/* Inside a change: tells the site `notice` on the lobby's channel once committed (a draw
 * offer's news: draws.c). True, and nothing told, on SQLite. */
bool store_tell_site(struct store *st, const char *notice);

/* The lobby's writes (PostgreSQL only: on SQLite the seeks are the server's memory, and these
 * fail), made on a database thread, never on the loop (lobby-write.c). */
/* Stores the seek (its id given to it) and tells the site: "INSTANCE seek ID". */
bool store_add_seek(struct store *st, struct stored_seek *s);
/* What store_remove_seeks did with one seek. */
enum seek_removal {
    SEEK_ABSENT,  /* no such row: taken or swept through another server meanwhile */
    SEEK_REMOVED, /* deleted, and the site told "INSTANCE unseek ID WHY" */
    SEEK_HELD     /* another session holds its row (a server taking it): left as it was */
};
/* Deletes the seeks ids[0..count) whose rows no other session holds, without waiting for any
 * lock, and tells the site of each; outcome[i] says what became of ids[i]. False if the
 * statement failed (nothing deleted). */
bool store_remove_seeks(struct store *st, const char *instance, const uint64_t *ids, size_t count,
                        const char *why, enum seek_removal *outcome);
/* Deletes the seeks older than lifetime seconds, and those whose server has not been seen for
 * gone_after seconds (rows another session holds are left for the next sweep), telling the
 * site of each ("SWEEPER unseek ID WHY"). */
bool store_sweep_seeks(struct store *st, const char *sweeper, double lifetime, double gone_after);

/* ---- several servers on one database: PostgreSQL's, no-ops on SQLite ------------------- */

/* Whether --db names a PostgreSQL database (a postgresql:// URL or a libpq conninfo). */
bool store_names_postgres(const char *db);
/* Whether other servers may share the database (PostgreSQL). */
bool store_is_shared(const struct store *st);
/* This server's name in the leases table ("" on SQLite). */
const char *store_owner(const struct store *st);
/* How long a lease lasts unless renewed, in milliseconds (store_leases_tick renews them). */
void store_set_lease(struct store *st, unsigned lease_ms);

enum claim_result { CLAIM_OK, CLAIM_LEASED, CLAIM_STALE, CLAIM_FAILED };
/* Inside a change, before its rows: takes or renews this server's lease on the match and checks
 * that the match is still at `version`, as this server last read or wrote it. With bump, the
 * change counts: the match's version becomes version + 1 and, once the round commits, the
 * other servers are told (NOTIFY). CLAIM_LEASED: another server plays it now; CLAIM_STALE:
 * another server changed it since; CLAIM_FAILED: the database's error (store_error). */
enum claim_result store_claim(struct store *st, uint64_t id, uint64_t version, bool bump);
/* This server no longer plays the match (it was unloaded): its lease goes at the next tick. */
void store_release(struct store *st, uint64_t id);
/* The match is being changed again: a release asked for it is off (store_claim does it too,
 * on the connection that claims; the round's own connection claims, this one releases). */
void store_keep_lease(struct store *st, uint64_t id);
/* A second connection to the same PostgreSQL database as the same server, for the round's
 * transaction on its own thread (round-thread.c): NULL, with why in err, on SQLite or if it
 * cannot connect. Closed by store_close, which then gives up no lease. */
struct store *store_open_sibling(const struct store *of, char *err, size_t err_cap);
/* Renews this server's leases and makes the releases; reconnects a lost connection. */
bool store_leases_tick(struct store *st);
/* Up to max live matches whose lease ran out (their server stopped or died). */
bool store_expired_leases(struct store *st, uint64_t *ids, size_t max, size_t *count);

/* Asks the server holding the match's lease to give it up (its client wants to play it here),
 * once the round commits. */
void store_want(struct store *st, uint64_t id);
/* The whole site's counts (PostgreSQL): every stored match, the ones being played, the servers
 * alive on the database (seen in the last alive_ms) and their clients together. */
struct site_counts {
    uint64_t matches, live, servers, clients;
};
/* Writes this server's row of `instances` (its clients and loaded matches, now) and reads the
 * site's counts. False on SQLite (one server is the site) or on failure. */
bool store_site_poll(struct store *st, uint64_t clients, uint64_t loaded, unsigned alive_ms,
                     struct site_counts *out);
/* Inside a change, before a new match's rows: whether the site has room for one more match
 * being played under max. The answer holds until the round ends (an admission lock, held to
 * the commit), so two servers cannot both take the last place. may_wait: the change is the
 * first of its round, which holds no other lock, and may wait for the admission lock (at most
 * lock_timeout); else it is tried for 0.1 s. ADMIT_BUSY: not had. Always ADMIT_OK on SQLite, where the
 * server's own count is the site's. */
enum admit_result { ADMIT_OK, ADMIT_FULL, ADMIT_BUSY, ADMIT_FAILED };
enum admit_result store_admit_match(struct store *st, uint64_t max, bool may_wait);

/* Inside a change, after a new match's rows: the new match is the rematch of match `of`, the
 * only one site-wide; the other servers are told (the old match's version counts it). On
 * PostgreSQL a second rematch of one match fails (store_last_was_conflict) once the first is
 * committed; on SQLite, where the server's memory is the site's, the link is stored so that
 * a restart keeps it (a load reads it: stored_match.rematch). */
bool store_mark_rematch(struct store *st, uint64_t id, uint64_t of);
/* The rematch of match `of` stored, or 0 (always 0 on SQLite); inside a round it leaves the
 * round's transaction as it was, failed or not. */
bool store_find_rematch(struct store *st, uint64_t of, uint64_t *id);
/* Whether the last failure was a unique row that another server wrote first (PostgreSQL). */
bool store_last_was_conflict(const struct store *st);
/* Whether the last failure was a lock that another server held past lock_timeout (busy, or
 * frozen in its round): to try again, not the database failing. */
bool store_last_was_lock_wait(const struct store *st);

/* The socket to poll for other servers' changes, or -1. */
int store_notify_fd(const struct store *st);
/* Calls each(id, version, ctx) for every change another server committed since the last call,
 * and gives up this server's lease of a match another server wants if wanted(id, ctx) says it
 * is not in the middle of a change here. *missed: the connection was lost and made again, so
 * notifications may have been lost too. */
bool store_take_notifications(struct store *st, void (*each)(uint64_t, uint64_t, void *),
                              bool (*wanted)(uint64_t, void *), void *ctx, bool *missed);
/* The versions of n matches (UINT64_MAX for one that is gone): the catch-up that makes a lost
 * notification harmless. */
bool store_versions(struct store *st, const uint64_t *ids, size_t n, uint64_t *versions);

#endif

/* What each of the match server's source files offers the others, file by file. The types
 * they share are in server.h, which includes this header last: a source file includes
 * server.h only. */
#ifndef TG_SERVER_SERVER_CALLS_H
#define TG_SERVER_SERVER_CALLS_H

#ifndef TG_SERVER_SERVER_H
#error "include server.h, which includes this header after the types it uses"
#endif

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

/* lobby.c and its family: lobby-seek.c (cmd_lobby, lobby_seek_settled, lobby_stage_new),
 * lobby-live.c (lobby_committed), lobby-write.c (lobby_sweep), lobby-site.c (lobby_follow). */
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
/* On the loop, as a change is staged: what it does to the stored offer (rows->draw_*), given
 * whether it ends the match; draw_stage_rows writes that, inside the change (stage_rows). */
void draw_rows(const struct server *sv, const struct change *ch, bool ends,
               struct staged_rows *rows);
bool draw_stage_rows(struct store *st, uint64_t id, const struct staged_rows *rows);
/* A match just read from the database (loaded, or adopted by follow.c): its stored offer. */
void draw_loaded(struct match *m, const struct stored_draw *stored);
/* A loaded match read again (follow.c): its stored offer kept aside, at the version read, for
 * the case that the news of that version never comes. */
void draw_read(struct match *m, const struct stored_draw *stored);
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

/* load-read.c */
/* start_load on a shared database: the read of the rows handed to a database thread, or the
 * one under way for id waited for. */
enum run_result start_load_read(struct server *sv, struct client *c, uint64_t id);
/* After the loop's pass over the commands: the finished reads' answers, given to every command
 * that waited, are let go. */
void load_reads_settle(struct server *sv);
/* Reads in flight, not yet done. */
size_t load_reads_in_flight(const struct server *sv);

/* jobs.c */
bool load_consistent(const struct job *j, char *why, size_t why_cap);
/* Loads stored match id (not loaded, not set aside): its rows read (on SQLite on the loop, on
 * a shared database on a database thread, load-read.c), then replayed on a move worker.
 * RUN_WAIT once under way, RUN_DONE when it cannot be, c (NULL for the server's own loads)
 * told why. */
enum run_result start_load(struct server *sv, struct client *c, uint64_t id);
/* The rows of stored match id, as read (found, and why_read unless LOAD_FOUND): the match
 * goes into the table, loading, and j (which this takes) to the move workers as `address`'s.
 * RUN_WAIT once queued; RUN_DONE when it cannot be, with what to tell in *refusal (a damaged
 * match or a bad rule spec also set aside). */
enum run_result replay_stored(struct server *sv, const char *address, uint64_t id, struct job *j,
                              enum load_result found, const char *why_read,
                              struct load_refusal *refusal);
/* Fills r with `err CODE TEXT`, TEXT made from fmt, cut to fit. */
void load_refuse(struct load_refusal *r, const char *code, const char *fmt, ...) TG_PRINTF(3, 4);
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
/* Room for one more loaded match besides `coming` on their way (a shared database's loads
 * whose rows are being read), unloading idle ones as room_to_load does. */
bool room_to_load_besides(struct server *sv, uint64_t coming);
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
/* The same words as reply_set_aside, kept for a command that waited for the read. */
void refuse_set_aside(struct load_refusal *r, uint64_t id, const char *reason);
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

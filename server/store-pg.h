/* The PostgreSQL store (libpq): the functions the store's files (store.c, store-round.c,
 * store-write.c, ...) hand a PostgreSQL database to, one for each of store.h's, with the same
 * promises. Private to the store's files. */
#ifndef TG_SERVER_STORE_PG_H
#define TG_SERVER_STORE_PG_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pg_store;

/* Whether --db names a PostgreSQL database (a postgresql:// URL or a libpq conninfo with
 * key=value pairs) rather than a SQLite file. */
bool pg_is_conninfo(const char *db);

struct pg_store *pg_open(const char *conninfo, char *err, size_t err_cap);
/* A second connection to the same database as the same server (its owner name and lease):
 * no migration, no LISTEN, and closing it gives no lease up. */
struct pg_store *pg_open_sibling(const struct pg_store *of, char *err, size_t err_cap);
void pg_close(struct pg_store *pg);
const char *pg_error(const struct pg_store *pg);
bool pg_last_was_damage(const struct pg_store *pg);

bool pg_begin_round(struct pg_store *pg);
bool pg_in_transaction(const struct pg_store *pg);
bool pg_change_begin(struct pg_store *pg);
enum change_outcome pg_change_end(struct pg_store *pg, bool ok);
bool pg_commit_round(struct pg_store *pg);
void pg_rollback_round(struct pg_store *pg);

bool pg_insert_match(struct pg_store *pg, uint64_t wanted_id, const char *spec,
                     const char tokens[2][TOKEN_HEX_LEN + 1], uint64_t *id);
bool pg_insert_move(struct pg_store *pg, uint64_t id, uint64_t ply, const struct stored_move *m);
bool pg_set_plies(struct pg_store *pg, uint64_t id, uint64_t plies);
bool pg_add_moves(struct pg_store *pg, uint64_t id, uint64_t first, const struct stored_move *m,
                  size_t n, uint64_t plies);
bool pg_delete_moves_from(struct pg_store *pg, uint64_t id, uint64_t ply);
bool pg_set_result(struct pg_store *pg, uint64_t id, int winner, bool by_resignation, uint64_t ply,
                   int score0, int score1);
bool pg_clear_result(struct pg_store *pg, uint64_t id);
bool pg_put_kept_throws(struct pg_store *pg, uint64_t id, const char *notations);
bool pg_put_invite(struct pg_store *pg, uint64_t id, int seat, const char *invite);
bool pg_delete_invite(struct pg_store *pg, uint64_t id);
bool pg_set_aborted(struct pg_store *pg, uint64_t id);
bool pg_expired_matches(struct pg_store *pg, uint64_t after, uint64_t span, double join_timeout,
                        double abandon_after, uint64_t *ids, size_t max, size_t *count,
                        bool *more);
bool pg_expire_match(struct pg_store *pg, uint64_t id, double join_timeout, double abandon_after,
                     bool *ended);
bool pg_put_clock(struct pg_store *pg, uint64_t id, const struct stored_clock *c);
bool pg_each_correspondence(struct pg_store *pg, uint64_t account_id, size_t max,
                            void (*each)(const struct correspondence_game *, void *), void *ctx);
bool pg_overdue_matches(struct pg_store *pg, uint64_t *ids, size_t max, size_t *count);
bool pg_set_aside(struct pg_store *pg, uint64_t id, const char *reason);
bool pg_put_undo_request(struct pg_store *pg, uint64_t id, int seat, uint64_t ply);
bool pg_end_undo_request(struct pg_store *pg, uint64_t id, enum undo_state how);
bool pg_offer_draw(struct pg_store *pg, uint64_t id, int seat);
bool pg_draw_decided(struct pg_store *pg, uint64_t id, bool ended, const bool decided[2]);
bool pg_forget_draw(struct pg_store *pg, uint64_t id);
bool pg_put_lobby_match(struct pg_store *pg, uint64_t id, const char *line);
bool pg_forget_lobby_match(struct pg_store *pg, uint64_t id);
bool pg_each_lobby_match(struct pg_store *pg, size_t max,
                         void (*each)(uint64_t id, const char *line, void *ctx), void *ctx);
bool pg_site_poll(struct pg_store *pg, uint64_t clients, uint64_t loaded, unsigned alive_ms,
                  struct site_counts *out);
enum admit_result pg_admit_match(struct pg_store *pg, uint64_t max, bool may_wait);
bool pg_mark_rematch(struct pg_store *pg, uint64_t id, uint64_t of);
bool pg_find_rematch(struct pg_store *pg, uint64_t of, uint64_t *id);
bool pg_last_was_conflict(const struct pg_store *pg);
/* Accounts (store-pg-accounts.c), as store.h's store_*_account and store_*_session. */
enum account_result pg_create_account(struct pg_store *pg, const char *name, const char *folded,
                                      const char *password_hash, uint64_t *id);
enum account_result pg_find_account(struct pg_store *pg, const char *folded,
                                    struct stored_account *out);
bool pg_create_session(struct pg_store *pg, uint64_t account_id, const char *token_hash,
                       int64_t lifetime_ms);
enum account_result pg_find_session(struct pg_store *pg, const char *token_hash,
                                    struct stored_account *out);
bool pg_delete_session(struct pg_store *pg, const char *token_hash);
bool pg_delete_sessions(struct pg_store *pg, uint64_t account_id);
bool pg_delete_account(struct pg_store *pg, uint64_t account_id);
bool pg_set_seat_account(struct pg_store *pg, uint64_t id, int seat, uint64_t account_id);
enum sign_in_charge pg_charge_sign_in(struct pg_store *pg, const struct sign_in_budget *address,
                                      const struct sign_in_budget *account);
bool pg_last_was_lock_wait(const struct pg_store *pg);
bool pg_take_seek(struct pg_store *pg, uint64_t id, const char *notice, bool *taken);
bool pg_tell_site(struct pg_store *pg, const char *notice);
bool pg_add_seek(struct pg_store *pg, struct stored_seek *s);
bool pg_remove_seeks(struct pg_store *pg, const char *instance, const uint64_t *ids, size_t count,
                     const char *why, enum seek_removal *outcome);
bool pg_sweep_seeks(struct pg_store *pg, const char *sweeper, double lifetime, double gone_after);
/* Rated matches and ratings (store-pg-ratings.c), as store.h's. */
bool pg_mark_rated(struct pg_store *pg, uint64_t id, const char *game, const char *category);
enum rated_result pg_find_rated(struct pg_store *pg, uint64_t id, char game[RATED_GAME_MAX],
                                char category[RATED_CATEGORY_MAX], bool *rated_done);
enum rated_result pg_claim_rated(struct pg_store *pg, uint64_t id, char game[RATED_GAME_MAX],
                                 char category[RATED_CATEGORY_MAX]);
bool pg_seat_accounts(struct pg_store *pg, uint64_t id, uint64_t accounts[2]);
enum rated_result pg_get_rating(struct pg_store *pg, uint64_t account_id,
                                struct stored_rating *inout);
bool pg_put_rating(struct pg_store *pg, uint64_t account_id, const struct stored_rating *r,
                   uint64_t match_id);
bool pg_each_rating_point(struct pg_store *pg, uint64_t account_id, size_t max,
                          void (*each)(const struct rating_point *, void *), void *ctx);
bool pg_each_played_game(struct pg_store *pg, uint64_t account_id, uint64_t skip, size_t max,
                         void (*each)(const struct played_game *, void *), void *ctx);
enum rated_result pg_match_summary(struct pg_store *pg, uint64_t id, struct match_summary *out);
bool pg_each_rating(struct pg_store *pg, uint64_t account_id, size_t max,
                    void (*each)(const struct stored_rating *, void *), void *ctx);

enum load_result pg_load_match(struct pg_store *pg, uint64_t id, struct stored_match *out,
                               char *why, size_t why_cap);
bool pg_count_matches(struct pg_store *pg, uint64_t *count);
bool pg_count_live_matches(struct pg_store *pg, uint64_t *count);
bool pg_match_exists(struct pg_store *pg, uint64_t id, bool *exists);
bool pg_each_set_aside(struct pg_store *pg, void (*each)(uint64_t, const char *, void *),
                       void *ctx);
bool pg_list_ids(struct pg_store *pg, uint64_t after, uint64_t *ids, size_t max, size_t *count,
                 bool *more);
bool pg_check(struct pg_store *pg, bool full, char *out, size_t out_cap);

void pg_set_lease(struct pg_store *pg, unsigned lease_ms);
const char *pg_owner(const struct pg_store *pg);
enum claim_result pg_claim(struct pg_store *pg, uint64_t id, uint64_t version, bool bump);
void pg_release(struct pg_store *pg, uint64_t id);
void pg_keep_lease(struct pg_store *pg, uint64_t id);
bool pg_leases_tick(struct pg_store *pg);
bool pg_expired_leases(struct pg_store *pg, uint64_t *ids, size_t max, size_t *count);
int pg_notify_fd(const struct pg_store *pg);
void pg_want(struct pg_store *pg, uint64_t id);
bool pg_take_notifications(struct pg_store *pg, void (*each)(uint64_t, uint64_t, void *),
                           bool (*wanted)(uint64_t, void *), void *ctx, bool *missed);
bool pg_versions(struct pg_store *pg, const uint64_t *ids, size_t n, uint64_t *versions);

#endif

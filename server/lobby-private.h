/* What the lobby's files share (lobby.c: the list of seeks and the feed; lobby-seek.c: the
 * commands; lobby-write.c: the writes of a shared database and the sweeps; lobby-site.c: the
 * site's seeks and news; lobby-live.c: the list of live matches). */
#ifndef TG_SERVER_LOBBY_PRIVATE_H
#define TG_SERVER_LOBBY_PRIVATE_H

#include "server.h"

/* A seek as stored (owner_account 0: a guest's; target_account: a challenge's only taker;
 * min, max 0: any rating), and what this server adds. */
struct seek {
    struct stored_seek s;
    struct stored_clock clock;
    bool local; /* its owner's connection is this server's (owner_serial is one of ours) */
    /* Accepted here, its match being stored: still the site's until that commits, so it is
     * listed as before, and a second taker here is told to try again (lobby-seek.c). */
    bool taking;
    /* Being stored on the site by a database thread, its id not known yet: counted against
     * its owner's budgets, shown to nobody, until stored (lobby-write.c, seek_stored). */
    bool storing;
    /* Its row being deleted by a database thread (unseek, decline-seek, the sweep): listed as
     * before until that is done, and a taker here told to try again. */
    bool withdrawing;
    double created;
    const struct address *address;
};

struct live_match {
    uint64_t id;
    char *line; /* its `lobby live` line, without the newline */
};

struct lobby {
    struct seek *seeks;
    size_t seek_count, seek_cap;
    uint64_t next_id;
    struct live_match *live;
    size_t live_count, live_cap;
    struct lobby_feed *feed; /* a shared database: the site's seeks and news, else NULL */
    double next_site_sweep;
    bool site_sweeping; /* the site's sweep is on a database thread */
};

/* lobby.c */
struct lobby *lobby_of(struct server *sv);
/* Whether c made seek k (its connection, or its account's), and whether c may see it (a
 * challenge: only its owner and its target). */
bool owns(const struct client *c, const struct seek *k);
bool sees(const struct client *c, const struct seek *k);
/* A seek's time control word (clock=M+S or days=N) from its clock_text, into out. */
void time_control_word(const char *clock_text, char *out, size_t cap);
/* One line to a client, which is let go if it stopped reading (as a watcher is). */
void push_to(struct server *sv, struct client *c, const char *text, size_t len);
/* The seek's line to those who may see it. */
void push_seek(struct server *sv, const struct seek *s);
/* One line to every connection that asked with `lobby`. */
void push_all(struct server *sv, const char *line, size_t len);
/* Seek i out of this server's list, its watchers told why (but actor, answered instead). */
void seek_remove(struct server *sv, size_t i, const char *why, const struct client *actor);
/* A seek of the site by its id, its index into *index, or NULL. */
struct seek *seek_by_id(struct lobby *l, uint64_t id, size_t *index);
/* A seek into this server's list; false if memory runs out. */
bool seek_add(struct server *sv, const struct seek *k);
/* `lobby`: the seeks and live matches c may see, then their changes pushed. */
void cmd_subscribe(struct server *sv, struct client *c);

/* lobby-write.c */
/* The writes: what a database thread does, and what the withdrawal's answer says. */
enum lobby_op { LOBBY_ADD, LOBBY_UNSEEK, LOBBY_DECLINE, LOBBY_SWEEP, LOBBY_SITE_SWEEP };
/* Withdraws the seeks ids[0..count) (at most DB_PASS_IDS_MAX), for c (NULL: the sweep), which
 * is answered when done (named: the seek the command named, 0: all); false if the job could
 * not be queued (c told why). */
bool withdraw_seeks(struct server *sv, struct client *c, enum lobby_op op, const uint64_t *ids,
                    size_t count, uint64_t named, const char *why);
/* The seek s of c, held in this server's list as being stored, stored on the site by a
 * database thread; c is answered then, or now if the job could not be queued (the held seek
 * then goes). */
void write_seek_to_site(struct server *sv, struct client *c, const struct stored_seek *s);

/* lobby-site.c */
/* A seek of the site, as read from the database (ctx: the server), mirrored here. */
void mirror_seek(const struct stored_seek *stored, void *ctx);

/* lobby-live.c */
void tell_owner(struct server *sv, uint64_t serial, uint64_t seek_id, uint64_t match_id, int seat,
                const char *token);
void live_add(struct server *sv, uint64_t id, const char *rest);
/* The accepted seek's `lobby live` line after the id, into ch->live_line, from the seek's
 * fields of ch, its clock and its taker; false if it does not fit. */
bool live_line_of(struct change *ch, const struct client *taker);
/* The stored live matches, listed (once, as the lobby is made). */
void live_read_stored(struct server *sv);
bool live_end(struct server *sv, uint64_t id, const char *result);
void site_lives(struct server *sv);
void take_lives(struct server *sv, const char *rest);

#endif

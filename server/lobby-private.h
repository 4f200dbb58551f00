/* What the lobby's two files share (lobby.c: seeks, challenges, the site's news; lobby-live.c:
 * the list of live matches). */
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
     * listed as before, and a second taker here is told to try again (lobby.c). */
    bool taking;
    /* Being stored on the site by a database thread, its id not known yet: counted against
     * its owner's budgets, shown to nobody, until stored (lobby.c, seek_stored). */
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

struct lobby *lobby_of(struct server *sv);
/* One line to a client, which is let go if it stopped reading (as a watcher is). */
void push_to(struct server *sv, struct client *c, const char *text, size_t len);
/* One line to every connection that asked with `lobby`. */
void push_all(struct server *sv, const char *line, size_t len);

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

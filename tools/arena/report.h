/* What tg-arena reports of a played tournament: per rule set the Elo fit and each bot's
 * games, score and move times, per pairing the wins and draws; as a table and as JSON. */
#ifndef TG_ARENA_REPORT_H
#define TG_ARENA_REPORT_H

#include "elo.h"
#include "tournament.h"

#include <stdio.h>

struct bot_summary {
    unsigned long games, wins, draws, losses, unfinished; /* unfinished count as draws */
    double points;
    int rated; /* played in this rule set, and the fit is ELO_OK */
    double rating, half_width;
    unsigned long moves; /* decisions, with their times in tg_bot_choose() */
    double mean_ms, p99_ms, max_ms;
};

struct pairing_summary {
    unsigned long games, a_wins, draws, b_wins, unfinished;
    double a_points;
    int rated;                  /* the fit is ELO_OK and the pairing played here */
    double gap, gap_half_width; /* fitted rating of a minus b, and its 95% half-width */
};

struct rules_summary {
    struct bot_summary *bots;         /* bot_count entries */
    struct pairing_summary *pairings; /* pairing_count entries */
    enum elo_status fit;
    size_t anchor;  /* the bot rated 0 (bot_count if none played) */
    double seconds; /* the games' wall-clock seconds summed */
    unsigned long plies;
};

struct report {
    const struct tournament *t;
    size_t anchor;
    double prior;
    struct rules_summary *rules; /* rule_count entries */
    double wall_seconds;
    char load_before[64], load_after[64]; /* /proc/loadavg, or "" where there is none */
};

/** Summarises and fits every rule set. Returns 0 if out of memory. */
int report_build(struct report *r, const struct tournament *t, size_t anchor, double prior);

void report_free(struct report *r);

/** The tables: per rule set the ratings, then the pairings. */
void report_print(const struct report *r, FILE *out);

/** Everything as one JSON object: the settings, every game, the summaries and the fits. */
void report_json(const struct report *r, FILE *out);

/** The first line of /proc/loadavg into `buf` ("" if it cannot be read). */
void report_load(char *buf, size_t cap);

#endif

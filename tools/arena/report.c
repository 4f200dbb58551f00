/* tg-arena's report: the summaries and fits of a played tournament, as tables and JSON. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_load(char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)cap, f) == NULL)
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The move times of bot `b` in the games of rule set `rs`: mean, 99th percentile (nearest
 * rank) and maximum, in milliseconds. */
static int move_times(const struct tournament *t, size_t rs, size_t b, struct bot_summary *out)
{
    size_t n = 0;
    for (size_t i = 0; i < t->game_count; i++)
        for (int p = 0; p < 2; p++)
            if (t->games[i].rules == rs && t->games[i].seat[p] == b)
                n += t->games[i].moves[p];
    out->moves = n;
    out->mean_ms = out->p99_ms = out->max_ms = 0.0;
    if (n == 0)
        return 1;
    double *all = malloc(n * sizeof *all);
    if (all == NULL)
        return 0;
    size_t k = 0;
    double sum = 0.0;
    for (size_t i = 0; i < t->game_count; i++)
        for (int p = 0; p < 2; p++)
            if (t->games[i].rules == rs && t->games[i].seat[p] == b)
                for (unsigned long m = 0; m < t->games[i].moves[p]; m++) {
                    all[k++] = t->games[i].move_seconds[p][m];
                    sum += t->games[i].move_seconds[p][m];
                }
    qsort(all, n, sizeof *all, compare_double);
    size_t rank = (size_t)ceil(0.99 * (double)n);
    out->mean_ms = 1000.0 * sum / (double)n;
    out->p99_ms = 1000.0 * all[(rank == 0 ? 1 : rank) - 1];
    out->max_ms = 1000.0 * all[n - 1];
    free(all);
    return 1;
}

/* A game's points for player 0: a game stopped at the ply limit counts as a draw. */
static double points_of_player0(int winner)
{
    return winner == 0 ? 1.0 : winner == 1 ? 0.0 : 0.5;
}

/* Files a game's result under the side that sat at `seat`: its win, its loss, a draw, or a
 * game stopped unfinished. Returns that side's points. */
static double count_result(int winner, int seat, unsigned long *wins, unsigned long *losses,
                           unsigned long *draws, unsigned long *unfinished)
{
    if (winner == seat)
        ++*wins;
    else if (winner == 1 - seat)
        ++*losses;
    else if (winner == TG_DRAW)
        ++*draws;
    else
        ++*unfinished;
    double p0 = points_of_player0(winner);
    return seat == 0 ? p0 : 1.0 - p0;
}

static void tally(const struct tournament *t, const struct game *g, struct rules_summary *rs)
{
    for (int p = 0; p < 2; p++) {
        struct bot_summary *b = &rs->bots[g->seat[p]];
        b->games++;
        b->points += count_result(g->winner, p, &b->wins, &b->losses, &b->draws, &b->unfinished);
    }
    /* For the pairing, bot a's side: b's wins are a's losses. */
    struct pairing_summary *ps = &rs->pairings[g->pairing];
    int a_seat = g->seat[0] == t->pairings[g->pairing].a ? 0 : 1;
    ps->games++;
    ps->a_points +=
        count_result(g->winner, a_seat, &ps->a_wins, &ps->b_wins, &ps->draws, &ps->unfinished);
    rs->seconds += g->seconds;
    rs->plies += g->plies;
}

/* The fit of one rule set over the bots that played in it (a run reading earlier games may
 * have bots that played only in other rule sets), anchored on the report's anchor if it
 * played here, else on the first bot that did. */
static int fit(const struct tournament *t, size_t r, struct report *rep)
{
    struct rules_summary *rs = &rep->rules[r];
    size_t n = t->bot_count, m = 0;
    struct elo_game *eg = malloc((t->pairing_count + 1) * sizeof *eg);
    double *rating = calloc(n, sizeof *rating), *half = calloc(n, sizeof *half);
    double *cov = calloc(n * n, sizeof *cov);
    size_t *compact = calloc(n, sizeof *compact), *bot_of = calloc(n, sizeof *bot_of);
    int ok = eg != NULL && rating != NULL && half != NULL && cov != NULL && compact != NULL &&
             bot_of != NULL;
    if (ok) {
        rs->anchor = n;
        for (size_t b = 0; b < n; b++)
            if (rs->bots[b].games > 0) {
                if (rs->anchor == n || b == rep->anchor)
                    rs->anchor = b;
                compact[b] = m;
                bot_of[m++] = b;
            }
        /* The fit only needs each pairing's points: one weighted entry per pairing. */
        size_t count = 0;
        for (size_t p = 0; p < t->pairing_count; p++) {
            const struct pairing_summary *ps = &rs->pairings[p];
            if (ps->games > 0)
                eg[count++] =
                    (struct elo_game){compact[t->pairings[p].a], compact[t->pairings[p].b],
                                      ps->a_points / (double)ps->games, (double)ps->games};
        }
        rs->fit = m < 2 ? ELO_BAD_INPUT
                        : elo_fit_covariance(m, eg, count, compact[rs->anchor], rep->prior, rating,
                                             half, cov);
        for (size_t k = 0; k < m && rs->fit == ELO_OK; k++) {
            rs->bots[bot_of[k]].rated = 1;
            rs->bots[bot_of[k]].rating = rating[k];
            rs->bots[bot_of[k]].half_width = half[k];
        }
        for (size_t p = 0; p < t->pairing_count && rs->fit == ELO_OK; p++) {
            struct pairing_summary *ps = &rs->pairings[p];
            size_t a = compact[t->pairings[p].a], b = compact[t->pairings[p].b];
            if (ps->games == 0)
                continue;
            ps->rated = 1;
            ps->gap = rating[a] - rating[b];
            ps->gap_half_width = elo_gap_half_width(cov, m, a, b);
        }
    }
    free(eg);
    free(rating);
    free(half);
    free(cov);
    free(compact);
    free(bot_of);
    return ok;
}

int report_build(struct report *r, const struct tournament *t, size_t anchor, double prior)
{
    r->t = t;
    r->anchor = anchor;
    r->prior = prior;
    r->rules = calloc(t->rule_count, sizeof *r->rules);
    if (r->rules == NULL)
        return 0;
    for (size_t i = 0; i < t->rule_count; i++) {
        r->rules[i].bots = calloc(t->bot_count, sizeof *r->rules[i].bots);
        r->rules[i].pairings = calloc(t->pairing_count, sizeof *r->rules[i].pairings);
        if (r->rules[i].bots == NULL || r->rules[i].pairings == NULL)
            return 0;
    }
    for (size_t i = 0; i < t->game_count; i++)
        tally(t, &t->games[i], &r->rules[t->games[i].rules]);
    for (size_t i = 0; i < t->rule_count; i++) {
        for (size_t b = 0; b < t->bot_count; b++)
            if (!move_times(t, i, b, &r->rules[i].bots[b]))
                return 0;
        if (!fit(t, i, r))
            return 0;
    }
    return 1;
}

void report_free(struct report *r)
{
    if (r->rules == NULL)
        return;
    for (size_t i = 0; i < r->t->rule_count; i++) {
        free(r->rules[i].bots);
        free(r->rules[i].pairings);
    }
    free(r->rules);
    r->rules = NULL;
}

static double percent(double points, unsigned long games)
{
    return games == 0 ? 0.0 : 100.0 * points / (double)games;
}

void report_print(const struct report *r, FILE *out)
{
    const struct tournament *t = r->t;
    for (size_t i = 0; i < t->rule_count; i++) {
        const struct rules_summary *rs = &r->rules[i];
        unsigned long games = 0;
        for (size_t p = 0; p < t->pairing_count; p++)
            games += rs->pairings[p].games;
        fprintf(out, "\n%s: %lu games, %.1f plies per game, %.1f s of play\n",
                tg_rules_spec(t->rules[i]), games,
                games == 0 ? 0.0 : (double)rs->plies / (double)games, rs->seconds);
        if (t->screened != NULL && i < t->play_rule_count)
            fprintf(out,
                    "paired openings screened by two copies of %s: %lu seeds, %lu kept, %lu left "
                    "out (%lu proven, %lu won by the same seat twice)\n",
                    t->screen, t->screened[i].seeds,
                    t->screened[i].seeds - t->screened[i].proven - t->screened[i].same_seat,
                    t->screened[i].proven + t->screened[i].same_seat, t->screened[i].proven,
                    t->screened[i].same_seat);
        if (rs->fit != ELO_OK)
            fprintf(out, "no Elo fit: %s\n",
                    rs->fit == ELO_BAD_INPUT ? "fewer than two bots played"
                                             : elo_status_string(rs->fit));
        fprintf(out, "%-32s %6s %7s %6s %17s %8s %8s %8s\n", "bot", "games", "score", "Elo",
                "95% interval", "ms/move", "p99 ms", "max ms");
        for (size_t b = 0; b < t->bot_count; b++) {
            const struct bot_summary *s = &rs->bots[b];
            char elo[16] = "-", interval[32] = "";
            if (s->games == 0)
                continue;
            if (s->rated) {
                snprintf(elo, sizeof elo, "%.0f", s->rating);
                if (b == rs->anchor)
                    snprintf(interval, sizeof interval, "anchor");
                else
                    snprintf(interval, sizeof interval, "[%.0f, %.0f]", s->rating - s->half_width,
                             s->rating + s->half_width);
            }
            fprintf(out, "%-32s %6lu %6.1f%% %6s %17s %8.2f %8.2f %8.2f\n", t->bots[b], s->games,
                    percent(s->points, s->games), elo, interval, s->mean_ms, s->p99_ms, s->max_ms);
        }
        fprintf(out, "%-32s %-32s %6s %6s %6s %6s %6s %7s %12s\n", "A", "B", "games", "A wins",
                "draws", "B wins", "unfin.", "A score", "A - B Elo");
        for (size_t p = 0; p < t->pairing_count; p++) {
            const struct pairing_summary *ps = &rs->pairings[p];
            if (ps->games == 0)
                continue;
            char gap[32] = "-";
            if (ps->rated)
                snprintf(gap, sizeof gap, "%.0f +- %.0f", ps->gap, ps->gap_half_width);
            fprintf(out, "%-32s %-32s %6lu %6lu %6lu %6lu %6lu %6.1f%% %12s\n",
                    t->bots[t->pairings[p].a], t->bots[t->pairings[p].b], ps->games, ps->a_wins,
                    ps->draws, ps->b_wins, ps->unfinished, percent(ps->a_points, ps->games), gap);
        }
    }
    if (r->load_before[0] != '\0')
        fprintf(out, "\nload average before: %s; after: %s; %.0f s wall clock\n", r->load_before,
                r->load_after, r->wall_seconds);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s != NULL && *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* JSON has no infinities or NaN: those become null. */
static void json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.6g", v);
    else
        fputs("null", out);
}

static void json_game(const struct tournament *t, const struct game *g, FILE *out)
{
    fputs("    {\"rules\": ", out);
    json_string(out, tg_rules_spec(t->rules[g->rules]));
    fprintf(out, ", \"seed\": %" PRIu64 ", \"opening\": %lu", g->seed, g->opening);
    if (g->balanced)
        fprintf(out, ", \"balanced\": %lu", g->balanced);
    fprintf(out, ", \"bots\": [");
    json_string(out, t->bots[g->seat[0]]);
    fputs(", ", out);
    json_string(out, t->bots[g->seat[1]]);
    fprintf(out, "], \"bot_index\": [%zu, %zu], \"pairing\": %zu, \"winner\": ", g->seat[0],
            g->seat[1], g->pairing);
    if (g->winner == 0 || g->winner == 1)
        fprintf(out, "%d", g->winner);
    else
        fputs("null", out);
    fprintf(out,
            ", \"result\": \"%s\", \"plies\": %zu, \"score\": [%d, %d], \"moves\": [%lu, %lu], "
            "\"seconds\": ",
            g->winner == 0         ? "1-0"
            : g->winner == 1       ? "0-1"
            : g->winner == TG_DRAW ? "1/2-1/2"
                                   : "*",
            g->plies, g->score[0], g->score[1], g->moves[0], g->moves[1]);
    json_number(out, g->seconds);
    /* Every decision's time, so that a later run reading this file (--from) still has the
     * percentiles. */
    fputs(", \"move_ms\": [", out);
    for (int p = 0; p < 2; p++) {
        fputc('[', out);
        for (unsigned long m = 0; m < g->moves[p]; m++)
            fprintf(out, "%s%.2f", m == 0 ? "" : ", ", 1000.0 * g->move_seconds[p][m]);
        fputs(p == 0 ? "], " : "]", out);
    }
    fputs("], \"final\": ", out);
    json_string(out, g->final_position);
    fputc('}', out);
}

static void json_rules(const struct report *r, size_t i, FILE *out)
{
    const struct tournament *t = r->t;
    const struct rules_summary *rs = &r->rules[i];
    fputs("    {\"rules\": ", out);
    json_string(out, tg_rules_spec(t->rules[i]));
    fputs(", \"fit\": ", out);
    json_string(out, rs->fit == ELO_OK ? "ok" : elo_status_string(rs->fit));
    fputs(", \"anchor\": ", out);
    json_string(out, rs->anchor < t->bot_count ? t->bots[rs->anchor] : "");
    if (t->screened != NULL && i < t->play_rule_count)
        fprintf(out,
                ",\n     \"screened\": {\"seeds\": %lu, \"proven\": %lu, \"same_seat\": %lu}",
                t->screened[i].seeds, t->screened[i].proven, t->screened[i].same_seat);
    fputs(",\n     \"ratings\": [\n", out);
    for (size_t b = 0; b < t->bot_count; b++) {
        const struct bot_summary *s = &rs->bots[b];
        fputs("      {\"bot\": ", out);
        json_string(out, t->bots[b]);
        fprintf(out,
                ", \"games\": %lu, \"wins\": %lu, \"draws\": %lu, \"losses\": %lu, "
                "\"unfinished\": %lu, \"points\": ",
                s->games, s->wins, s->draws, s->losses, s->unfinished);
        json_number(out, s->points);
        fputs(", \"elo\": ", out);
        json_number(out, s->rated ? s->rating : NAN);
        fputs(", \"half_width\": ", out);
        json_number(out, s->rated ? s->half_width : NAN);
        fprintf(out, ", \"moves\": %lu, \"mean_ms\": ", s->moves);
        json_number(out, s->mean_ms);
        fputs(", \"p99_ms\": ", out);
        json_number(out, s->p99_ms);
        fputs(", \"max_ms\": ", out);
        json_number(out, s->max_ms);
        fprintf(out, "}%s\n", b + 1 < t->bot_count ? "," : "");
    }
    fputs("     ],\n     \"pairings\": [\n", out);
    for (size_t p = 0; p < t->pairing_count; p++) {
        const struct pairing_summary *ps = &rs->pairings[p];
        fprintf(out,
                "      {\"a\": %zu, \"b\": %zu, \"games\": %lu, \"a_wins\": %lu, "
                "\"draws\": %lu, \"b_wins\": %lu, \"unfinished\": %lu, \"a_points\": ",
                t->pairings[p].a, t->pairings[p].b, ps->games, ps->a_wins, ps->draws, ps->b_wins,
                ps->unfinished);
        json_number(out, ps->a_points);
        fputs(", \"gap\": ", out);
        json_number(out, ps->rated ? ps->gap : NAN);
        fputs(", \"gap_half_width\": ", out);
        json_number(out, ps->rated ? ps->gap_half_width : NAN);
        fprintf(out, "}%s\n", p + 1 < t->pairing_count ? "," : "");
    }
    fputs("     ]}", out);
}

void report_json(const struct report *r, FILE *out)
{
    const struct tournament *t = r->t;
    fputs("{\n  \"program\": \"tg-arena\",\n  \"version\": ", out);
    json_string(out, tg_version_string());
    fprintf(out, ",\n  \"opening_plies\": %lu", t->opening);
    if (t->balanced)
        fprintf(out, ",\n  \"balanced\": %lu, \"balance_judge\": \"%s\"", t->balanced,
                BALANCE_SPEC);
    if (t->screen != NULL) {
        fputs(",\n  \"screen\": ", out);
        json_string(out, t->screen);
        fputs(",\n  \"left_out\": [", out);
        for (size_t k = 0; k < t->left_out_count; k++) {
            fputs(k == 0 ? "\n    {\"rules\": " : ",\n    {\"rules\": ", out);
            json_string(out, tg_rules_spec(t->rules[t->left_out_rules[k]]));
            fprintf(out, ", \"seed\": %" PRIu64 ", \"why\": \"%s\"}", t->left_out_seeds[k],
                    t->left_out_why[k] == SCREEN_PROVEN ? "proven" : "same seat");
        }
        fputc(']', out);
    }
    fprintf(out, ",\n  \"seed\": %" PRIu64 ",\n  \"max_plies\": %lu,\n  \"jobs\": %u,\n", t->seed,
            t->max_plies, t->jobs);
    fputs("  \"prior_draws_per_pairing\": ", out);
    json_number(out, r->prior);
    fputs(",\n  \"anchor\": ", out);
    json_string(out, t->bots[r->anchor]);
    fputs(",\n  \"load_before\": ", out);
    json_string(out, r->load_before);
    fputs(",\n  \"load_after\": ", out);
    json_string(out, r->load_after);
    fputs(",\n  \"wall_seconds\": ", out);
    json_number(out, r->wall_seconds);
    fputs(",\n  \"bots\": [", out);
    for (size_t b = 0; b < t->bot_count; b++) {
        json_string(out, t->bots[b]);
        if (b + 1 < t->bot_count)
            fputs(", ", out);
    }
    fputs("],\n  \"rule_sets\": [\n", out);
    for (size_t i = 0; i < t->rule_count; i++) {
        json_rules(r, i, out);
        fputs(i + 1 < t->rule_count ? ",\n" : "\n", out);
    }
    fputs("  ],\n  \"games\": [\n", out);
    for (size_t i = 0; i < t->game_count; i++) {
        json_game(t, &t->games[i], out);
        fputs(i + 1 < t->game_count ? ",\n" : "\n", out);
    }
    fputs("  ]\n}\n", out);
}

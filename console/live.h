/* live — what the console shows while a run goes on.
 *
 * What it is for: the run control (console/control.c) calls live_update
 * once per merged second; live decides what to print.
 *
 *   - On a terminal (LIVE_TABLE): a table redrawn in place every second with
 *     ANSI escapes (cursor up, clear line; no curses): a header with a
 *     progress bar, elapsed and remaining time, VUs, the open model's
 *     arrivals so far (scheduled, late, dropped), agents, TPS and error
 *     rate, then one row per step (TPS, mean and p95 of this second, errors
 *     this second and in total) and a totals row. Names are cut to the
 *     terminal's width and rows to its height ("... K more steps").
 *   - Elsewhere, e.g. CI logs (LIVE_PLAIN): one line every 10 updates, with
 *     rates, mean and p95 over those 10 seconds.
 *   - LIVE_QUIET prints nothing, so callers need not test for --quiet.
 *
 * Usage:
 *     live *l = live_new(stderr, o.quiet ? LIVE_QUIET : LIVE_AUTO, names, nsteps,
 *                        duration_us);
 *     each second, after agg_add:  live_update(l, &agg, steps_of_this_second, 0, 0);
 *     before printing anything else on out:  live_clear(l);
 *     at the end, before the summary:  live_finish(l); live_free(l);
 *
 * Everything is allocated by live_new; an update allocates nothing and costs
 * time proportional to the number of steps (one percentile per shown step).
 * Step names come from scripts: control characters and malformed UTF-8 are
 * shown as '?', never sent to the terminal. */
#ifndef QUERN_LIVE_H
#define QUERN_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/stats.h"
#include "console/agg.h"

/** Display modes for live_new. */
enum live_mode {
    LIVE_AUTO,  /**< LIVE_TABLE if out is a terminal and TERM is set and not "dumb", else plain */
    LIVE_TABLE, /**< redrawn table, one frame per update */
    LIVE_PLAIN, /**< one line per 10 updates */
    LIVE_QUIET  /**< nothing */
};

/** Updates between two lines in plain mode. */
#define LIVE_PLAIN_EVERY 10

/** The live display of one run; created by live_new, released by live_free. */
typedef struct live live;

/** Returns a display writing to out (borrowed, usually stderr) in mode
 * (enum live_mode). step_names[nsteps] are copied. planned_us is the run's
 * planned duration, 0 when unknown (--runs): no progress bar then. */
live *live_new(FILE *out, int mode, const char *const *step_names, size_t nsteps,
               int64_t planned_us);

/** Returns the mode in use: LIVE_TABLE, LIVE_PLAIN or LIVE_QUIET (never AUTO). */
int live_mode(const live *l);

/** Fixes the terminal size instead of asking the terminal (TIOCGWINSZ) at
 * each update; 0 for either goes back to asking. For tests and for outputs
 * that are not terminals (defaults there: 100 columns, 40 rows). */
void live_set_size(live *l, int cols, int rows);

/** Shows one completed second. a holds the totals and, in a->last, every
 * step of this second merged (call it after agg_add); last_per_step holds
 * this second's stats of each step (a->nsteps entries, the nsteps given to
 * live_new). agents_total is 0 for a local run: no agents shown. */
void live_update(live *l, const agg *a, const step_stats *last_per_step, uint32_t agents_alive,
                 uint32_t agents_total);

/** Takes the table off the screen so that a message can be printed on out;
 * the next update draws it again below the message. No-op in other modes. */
void live_clear(live *l);

/** Ends the display: the table stays, the cursor is below it; in plain mode
 * the seconds since the last line (if any) get a last line. */
void live_finish(live *l);

/** Frees l; NULL is fine. */
void live_free(live *l);

#endif

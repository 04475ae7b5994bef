/* webfeed — the run's state handed to the live page (console/serve/web.h).
 *
 * What it is for: the page's server is handed what it shows, as
 * web_state_input (console/serve/web_state.h), and never reads struct run: this
 * is where the run's agents, its thresholds judged on the totals so far,
 * the VUs asked for and a pause (console/steering.h) are gathered for it.
 *
 * Usage:
 *     each merged second, after agg_add:  webfeed_second(r, sum->steps, late);
 *     at the end:                         webfeed_final(r, &si);
 * Both do nothing without --web (r->web NULL) or before the steps are known.
 * Cost: once per merged second, proportional to the agents and the
 * thresholds, on the loop's thread. */
#ifndef QUERN_WEBFEED_H
#define QUERN_WEBFEED_H

#include "common/stats.h"

struct run;
struct summary_info;

/** Hands the merged second (second: r->nsteps steps of it; late: merged
 *  after its time) to the page: its charts, and unless late the state. */
void webfeed_second(struct run *r, const step_stats *second, int late);

/** Hands the final state to the page: the summary si (its verdict, its
 *  table) and the thresholds' final verdicts. */
void webfeed_final(struct run *r, const struct summary_info *si);

#endif

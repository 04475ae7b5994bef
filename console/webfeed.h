/* webfeed — the run's state handed to the live page (console/serve/web.h).
 *
 * What it is for: the page's server is handed what it shows, as
 * web_state_input (console/serve/web_state.h), and never reads the run:
 * this is where the run's agents, its thresholds judged on the totals so
 * far, the VUs asked for and a pause (console/steering.h) are gathered for
 * it, from the webfeed_run the run's control fills for each call
 * (control_web_view, console/control.h).
 *
 * Usage:
 *     control_web_view(r, &v);
 *     each merged second, after agg_add:  webfeed_second(&v, sum->steps, late);
 *     at the end:                         webfeed_final(&v, &si);
 * Both do nothing without --web (v.web NULL) or before the steps are known
 * (v.a NULL). Cost: once per merged second, proportional to the agents and
 * the thresholds, on the loop's thread. */
#ifndef QUERN_WEBFEED_H
#define QUERN_WEBFEED_H

#include <stddef.h>
#include <stdint.h>

#include "common/stats.h"
#include "console/agents.h"
#include "console/agg.h"
#include "console/rollwin.h"
#include "console/serve/web.h"
#include "console/thresh.h"

struct summary_info;

/** The run as the live page's feed sees it, borrowed from the run for one
 *  call. */
typedef struct webfeed_run {
    web *web;                  /**< borrowed: the --web page, NULL without */
    const agg *a;              /**< borrowed: the totals; NULL before the steps are known */
    const char *const *ids;    /**< borrowed: the steps' test ids (a->nsteps) */
    const char *const *names;  /**< borrowed: their full names */
    const thresh *const *th;   /**< borrowed: the nth thresholds */
    size_t nth;                /**< entries of th */
    const rollwin *roll;       /**< borrowed: their windows ("p95[10s]"), or NULL */
    const aconn *const *conns; /**< borrowed: the nconns connections */
    size_t nconns;             /**< entries of conns */
    uint32_t vus_max;          /**< the VUs asked for: a vus N's once one came, else --vus */
    int paused;                /**< 1 while quern ctl paused the load */
    int64_t planned_us;        /**< the run's planned length (--duration), 0 when not known */
} webfeed_run;

/** Hands the merged second (second: v->a->nsteps steps of it; late: merged
 *  after its time) to the page: its charts, and unless late the state. */
void webfeed_second(const webfeed_run *v, const step_stats *second, int late);

/** Hands the final state to the page: the summary si (its verdict, its
 *  table) and the thresholds' final verdicts. */
void webfeed_final(const webfeed_run *v, const struct summary_info *si);

#endif

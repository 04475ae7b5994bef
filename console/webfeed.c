/* webfeed — the run's state handed to the live page; see webfeed.h. */
#include "console/webfeed.h"

#include <jansson.h>
#include <string.h>

#include "common/mem.h"
#include "console/agents.h"
#include "console/run.h"
#include "console/serve/web.h"
#include "console/summary.h"
#include "console/thresh.h"

static const char *conn_state(const aconn *c)
{
    if (c->lost)
        return "lost";
    if (c->finished)
        return "finished";
    if (c->in_run && c->ready)
        return "running";
    if (c->in_run)
        return "starting";
    return "registered";
}

/* Hands r to the page (second: its latest second per step, NULL: none;
 * summary: the final one, NULL while running; rs: the thresholds'
 * verdicts, NULL: evaluated here on the totals so far). */
static void hand(const run *r, const step_stats *second, const json_t *summary,
                 const thresh_result *rs)
{
    web_state_input in;
    web_state_agent *ag = xcalloc(r->nconns + 1, sizeof(*ag));
    web_state_threshold *th = xcalloc(r->o.nth + 1, sizeof(*th));
    thresh_result *ev = rs == NULL ? xcalloc(r->o.nth + 1, sizeof(*ev)) : NULL;
    double el = r->have_agg ? (double)r->agg.elapsed_us / 1e6 : 0.0;

    memset(&in, 0, sizeof(in));
    in.steps = (const char *const *)r->names;
    in.a = r->have_agg ? &r->agg : NULL;
    in.second = second;
    in.vus_max = steering_vus_asked(&r->steer, r->o.vus); /* a vus N's, once one came */
    in.planned_us = r->o.duration_us;
    for (size_t i = 0; i < r->nconns; i++) {
        const aconn *c = r->conns[i];
        if (c->state != AC_AGENT && !c->in_run)
            continue;
        ag[in.nagents++] = (web_state_agent){c->name, c->host,     conn_state(c), c->active,
                                             c->vus,  c->requests, c->errors};
    }
    in.agents = ag;
    for (size_t i = 0; i < r->o.nth && r->have_agg; i++) {
        const thresh_result *res = rs != NULL ? &rs[i] : &ev[i];
        if (rs == NULL)
            rollwin_eval(r->roll, i, r->o.th[i], &r->agg, (const char *const *)r->ids,
                         (const char *const *)r->names, el, &ev[i]);
        th[in.nth++] = (web_state_threshold){r->o.th[i]->expr, res->passed, res->desc};
    }
    in.th = th;
    in.summary = summary;
    in.paused = steering_is_paused(&r->steer);
    if (summary != NULL)
        web_final(r->web, &in);
    else
        web_show(r->web, &in);
    xfree(ag);
    xfree(th);
    xfree(ev);
}

void webfeed_second(run *r, const step_stats *second, int late)
{
    if (r->web == NULL || !web_open(r->web) || !r->have_agg)
        return;
    web_second(r->web, &r->agg, late);
    if (!late)
        hand(r, second, NULL, NULL);
}

void webfeed_final(run *r, const summary_info *si)
{
    json_t *sum;

    if (r->web == NULL || !r->have_agg)
        return;
    sum = summary_json(&r->agg, si);
    hand(r, NULL, sum, si->nthresholds > 0 ? si->threshold_results : NULL);
    json_decref(sum);
}

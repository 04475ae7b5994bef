/* webfeed — the run's state handed to the live page; see webfeed.h. */
#include "console/webfeed.h"

#include <jansson.h>
#include <string.h>

#include "common/mem.h"
#include "console/summary.h"

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

/* Hands v to the page (second: its latest second per step, NULL: none;
 * summary: the final one, NULL while running; rs: the thresholds'
 * verdicts, NULL: evaluated here on the totals so far). */
static void hand(const webfeed_run *v, const step_stats *second, const json_t *summary,
                 const thresh_result *rs)
{
    web_state_input in;
    web_state_agent *ag = xcalloc(v->nconns + 1, sizeof(*ag));
    web_state_threshold *th = xcalloc(v->nth + 1, sizeof(*th));
    thresh_result *ev = rs == NULL ? xcalloc(v->nth + 1, sizeof(*ev)) : NULL;
    double el = v->a != NULL ? (double)v->a->elapsed_us / 1e6 : 0.0;

    memset(&in, 0, sizeof(in));
    in.steps = v->names;
    in.a = v->a;
    in.second = second;
    in.vus_max = v->vus_max; /* a vus N's, once one came */
    in.planned_us = v->planned_us;
    for (size_t i = 0; i < v->nconns; i++) {
        const aconn *c = v->conns[i];
        if (c->state != AC_AGENT && !c->in_run)
            continue;
        ag[in.nagents++] = (web_state_agent){c->name, c->host,     conn_state(c), c->active,
                                             c->vus,  c->requests, c->errors};
    }
    in.agents = ag;
    for (size_t i = 0; i < v->nth && v->a != NULL; i++) {
        const thresh_result *res = rs != NULL ? &rs[i] : &ev[i];
        if (rs == NULL)
            rollwin_eval(v->roll, i, v->th[i], v->a, v->ids, v->names, el, &ev[i]);
        th[in.nth++] = (web_state_threshold){v->th[i]->expr, res->passed, res->desc};
    }
    in.th = th;
    in.summary = summary;
    in.paused = v->paused;
    if (summary != NULL)
        web_final(v->web, &in);
    else
        web_show(v->web, &in);
    xfree(ag);
    xfree(th);
    xfree(ev);
}

void webfeed_second(const webfeed_run *v, const step_stats *second, int late)
{
    if (v->web == NULL || !web_open(v->web) || v->a == NULL)
        return;
    web_second(v->web, v->a, late);
    if (!late)
        hand(v, second, NULL, NULL);
}

void webfeed_final(const webfeed_run *v, const summary_info *si)
{
    json_t *sum;

    if (v->web == NULL || v->a == NULL)
        return;
    sum = summary_json(v->a, si);
    hand(v, NULL, sum, si->nthresholds > 0 ? si->threshold_results : NULL);
    json_decref(sum);
}

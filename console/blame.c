/* blame — whose delay made a threshold fail; see blame.h. */
#include "console/blame.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/rate.h"

const char *blame_name(int who)
{
    return who == BLAME_INJECTOR ? "injector" : who == BLAME_POOL ? "pool" : "server";
}

/* A response-time threshold ("p95<20ms", "mean<...", "max<..."), not a service.* one. */
static int on_response_time(const thresh *t)
{
    /* a windowed one failed in a window: the run's figures are no evidence of it */
    return !t->service && t->window_s == 0 &&
           (t->metric == THRESH_PERCENTILE || t->metric == THRESH_MEAN || t->metric == THRESH_MAX);
}

/* quern's own start lag at t's figure over every scenario, ms; 0 when none. */
static double own_lag_ms(const thresh *t, const agg *a)
{
    hist *h = NULL; /* owned */
    double ms = 0;

    for (size_t i = 0; i < a->nscens; i++) {
        if (a->start_lag == NULL || a->start_lag[i] == NULL)
            continue;
        if (h == NULL)
            h = hist_new();
        hist_merge(h, a->start_lag[i]);
    }
    if (h != NULL && hist_count(h) > 0)
        ms = t->metric == THRESH_MEAN  ? hist_mean(h) / 1000.0
             : t->metric == THRESH_MAX ? (double)hist_max(h) / 1000.0
                                       : (double)hist_percentile(h, t->pct) / 1000.0;
    hist_free(h);
    return ms;
}

/* The figure's name: "p95", "mean", "max". */
static void figure(const thresh *t, char *buf, size_t len)
{
    if (t->metric == THRESH_PERCENTILE)
        snprintf(buf, len, "p%g", t->pct);
    else
        snprintf(buf, len, "%s", t->metric == THRESH_MEAN ? "mean" : "max");
}

/* Why the delay was the pool's (or the pacing's), into out->why after what it holds. */
static void pool_why(const agg *a, blame *out)
{
    rate_counts arr;
    uint64_t missed = 0;

    agg_arrivals_all(a, &arr);
    for (size_t i = 0; i < a->nscens; i++)
        missed += a->missed_pacing[i];
    if (arr.scheduled > 0 || arr.started > 0)
        err_append(out->why, sizeof(out->why),
                   "; the delay was the wait for a VU: %llu of %llu arrivals waited (%llu for a "
                   "new VU's init, %llu for a VU of the full pool), the server's time seen "
                   "through the pool",
                   (unsigned long long)(arr.late + arr.init_waits), (unsigned long long)arr.started,
                   (unsigned long long)arr.init_waits, (unsigned long long)arr.late);
    else
        err_append(out->why, sizeof(out->why),
                   "; the delay was the runs overrunning their pacing (%llu missed their slot): "
                   "the server's time",
                   (unsigned long long)missed);
}

void blame_threshold(const thresh *t, const agg *a, const char *const *ids,
                     const char *const *names, double secs, blame *out)
{
    thresh svc;
    thresh_result rr, sr;
    char fig[16];
    double gap;

    memset(out, 0, sizeof(*out));
    out->who = BLAME_SERVER;
    if (!on_response_time(t))
        return;
    thresh_eval(t, a, ids, names, secs, &rr);
    svc = *t; /* a view: its pointers stay t's */
    svc.service = 1;
    out->service_passed = thresh_eval(&svc, a, ids, names, secs, &sr);
    out->response_ms = rr.measured;
    out->service_ms = sr.measured;
    out->own_lag_ms = own_lag_ms(t, a);
    figure(t, fig, sizeof(fig));
    err_set(out->why, sizeof(out->why),
            "%s %.1f ms of response times, %.1f ms of service times (%s); quern's own start "
            "lag %s %.1f ms",
            fig, out->response_ms, out->service_ms, out->service_passed ? "passes" : "fails too",
            fig, out->own_lag_ms);
    if (!out->service_passed || rr.passed)
        return; /* the server's own time fails */
    gap = out->response_ms - out->service_ms;
    if (out->own_lag_ms >= gap / 2.0) {
        out->who = BLAME_INJECTOR;
        err_append(out->why, sizeof(out->why), ": the delay was quern's own, not the server's");
        return;
    }
    out->who = BLAME_POOL;
    pool_why(a, out);
}

/* capacity_search — a capacity search while it runs; see capacity_search.h. */
#include "console/capacity_search.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"
#include "common/hist.h"
#include "common/lbuf.h"
#include "common/mem.h"
#include "common/usl.h"
#include "console/blame.h"
#include "console/injtot.h"

capacity_search *capacity_search_new(const capacity_plan *plan, int64_t settle_us, size_t nsteps,
                                     size_t nscens)
{
    capacity_search *cs = xcalloc(1, sizeof(*cs));

    cs->plan = *plan;
    cs->settle_us = settle_us;
    cs->nsteps = nsteps;
    cs->nscens = nscens;
    cs->steps = xcalloc(plan->nsteps, sizeof(*cs->steps));
    for (size_t i = 0; i < plan->nsteps; i++) {
        capacity_search_step *s = &cs->steps[i];
        s->load = capacity_load(plan, i);
        capacity_window(plan, i, &s->t0_us, &s->t1_us);
        s->from_us = (s->t0_us + settle_us + 999999) / 1000000 * 1000000;
    }
    agg_init(&cs->a, nsteps, nscens);
    return cs;
}

void capacity_search_free(capacity_search *cs)
{
    if (cs == NULL)
        return;
    agg_free(&cs->a);
    for (size_t i = 0; i < cs->plan.nsteps; i++)
        xfree(cs->steps[i].rs);
    xfree(cs->steps);
    xfree(cs);
}

static double pct_ms(const hist *h, double p)
{
    return (double)hist_percentile(h, p) / 1000.0;
}

int capacity_search_step_waited(uint64_t scheduled, uint64_t waited, uint64_t dropped)
{
    double sch = (double)scheduled;

    if (scheduled > 0 && (double)dropped > CAPACITY_SEARCH_INJ_DROPPED_MAX * sch)
        return 1;
    return scheduled > 0 && (double)waited > CAPACITY_SEARCH_INJ_LATE_MAX * sch;
}

int capacity_search_step_injector(unsigned seconds, unsigned saturated_seconds,
                                  unsigned clear_seconds)
{
    return verdict_saturated(saturated_seconds, clear_seconds, seconds);
}

/* 1 when a worker did not keep up in the second sum holds; clear: 1 when
 * one clearly did not (console/injtot.h). */
static unsigned any_saturated(const interval_sum *sum, int clear)
{
    for (size_t k = 0; k < sum->nload; k++)
        if (clear ? injtot_load_clear(&sum->load[k]) : sum->load[k].saturated)
            return 1;
    return 0;
}

/* One second's runs, their durations and its VUs into s (Little's law). */
static void add_little(capacity_search_step *s, const interval_sum *sum)
{
    for (size_t j = 0; j < sum->nscens; j++)
        s->runs += sum->runs[j];
    s->run_us += sum->run_us;
    if (sum->active_vus > s->vus_peak)
        s->vus_peak = sum->active_vus;
}

/* The injector's figures of the step being summed into s. */
static void judge_injector(capacity_search *cs, capacity_search_step *s)
{
    rate_counts arr;
    hist *lag = NULL; /* owned: every scenario's start lags */
    int pool_full;
    char counts[192];

    agg_arrivals_all(&cs->a, &arr);
    for (size_t i = 0; i < cs->a.nscens; i++) {
        if (cs->a.start_lag[i] == NULL)
            continue;
        if (lag == NULL)
            lag = hist_new();
        hist_merge(lag, cs->a.start_lag[i]);
    }
    s->arr_scheduled = arr.scheduled;
    s->arr_late = arr.late;
    s->arr_init_waits = arr.init_waits;
    s->arr_started = arr.started;
    s->arr_inits = arr.inits;
    s->arr_dropped = arr.dropped;
    rate_counts_text(&arr, counts, sizeof(counts));
    s->lag_p99_ms = lag != NULL ? pct_ms(lag, 99) : 0;
    pool_full = cs->pool > 0 && s->vus_peak >= cs->pool;
    s->injector_saturated =
        capacity_search_step_injector(s->seconds, s->saturated_seconds, s->clear_seconds);
    /* arrivals that waited for a VU, for a full pool or for new VUs' init,
     * waited for the server's time: never the injector's */
    s->pool_limited =
        !s->injector_saturated &&
        capacity_search_step_waited(arr.scheduled, arr.late + arr.init_waits, arr.dropped);
    if (s->injector_saturated)
        snprintf(s->injector, sizeof(s->injector),
                 "injector saturated in %u of %u s; %s; start lag p99 %.0f ms",
                 s->saturated_seconds, s->seconds, counts, s->lag_p99_ms);
    if (s->pool_limited && !pool_full) {
        snprintf(s->pool, sizeof(s->pool),
                 "arrivals waited for new VUs' init: %llu of %llu, the pool at %u of %u (the "
                 "server's init time; --vus N makes N VUs before the first step)",
                 (unsigned long long)arr.init_waits, (unsigned long long)arr.started, s->vus_peak,
                 cs->pool);
    } else if (s->pool_limited) {
        /* Little's law: the VUs busy that the load asks at this response time */
        double r_s = s->runs > 0 ? (double)s->run_us / 1e6 / (double)s->runs : 0;
        double per_s = s->seconds > 0 ? (double)s->runs / (double)s->seconds : 0;
        if (s->load * r_s >= 0.5 * (double)cs->pool)
            snprintf(s->pool, sizeof(s->pool),
                     "pool too small for the server's response time: %.0f/s x %.3f s = %.0f VUs "
                     "busy, the pool has %u; %s",
                     s->load, r_s, s->load * r_s, cs->pool, counts);
        else /* the runs that ended were quick: those that did not held the pool */
            snprintf(s->pool, sizeof(s->pool),
                     "throughput %.0f runs/s of %.0f/s asked: the server's limit, its queue "
                     "growing until it held the %u VUs of the pool; %s",
                     per_s, s->load, cs->pool, counts);
    }
    hist_free(lag);
}

/* Whose delay made threshold t fail on the step being summed
 * (console/blame.h): quern's own makes the step injector-limited, the wait
 * for VUs a limit of the server's seen through the pool. */
static void step_blame(capacity_search *cs, capacity_search_step *s, const thresh *t,
                       const char *const *ids, const char *const *names)
{
    blame b;

    blame_threshold(t, &cs->a, ids, names, (double)s->seconds, &b);
    s->blame = b.who;
    if (b.who == BLAME_INJECTOR && !s->injector_saturated) {
        s->injector_saturated = 1;
        snprintf(s->injector, sizeof(s->injector), "%s", b.why);
    } else if (b.who == BLAME_POOL && !s->pool_limited && !s->injector_saturated) {
        s->pool_limited = 1;
        snprintf(s->pool, sizeof(s->pool), "%s", b.why);
    }
}

/* Judges the step being summed on its seconds; 1 when it failed. */
static int judge(capacity_search *cs, const thresh *const *ths, size_t nth, const char *const *ids,
                 const char *const *names)
{
    capacity_search_step *s = &cs->steps[cs->cur];
    step_stats all;
    uint64_t errs = 0;

    stats_init(&all);
    for (size_t i = 0; i < cs->a.nsteps; i++)
        stats_merge(&all, &cs->a.total[i]);
    errs = all.err_tech + all.err_func;
    s->count = all.count;
    s->tps = s->seconds > 0 ? (double)all.count / (double)s->seconds : 0;
    s->p50_ms = pct_ms(all.hist, 50);
    s->p95_ms = pct_ms(all.hist, 95);
    s->p99_ms = pct_ms(all.hist, 99);
    s->errors_pct = all.count > 0 ? 100.0 * (double)errs / (double)all.count : 0;
    stats_free(&all);
    judge_injector(cs, s);
    s->judged = 1;
    s->passed = 1;
    s->rs = xcalloc(nth + 1, sizeof(*s->rs));
    s->nrs = nth;
    for (size_t i = 0; i < nth; i++) {
        if (!thresh_eval(ths[i], &cs->a, ids, names, (double)s->seconds, &s->rs[i]) && s->passed) {
            s->passed = 0;
            snprintf(s->failed, sizeof(s->failed), "%s: %s", ths[i]->expr, s->rs[i].desc);
            step_blame(cs, s, ths[i], ids, names);
        }
    }
    if (s->passed && s->arr_scheduled > 0 &&
        (double)s->arr_dropped > CAPACITY_SEARCH_INJ_DROPPED_MAX * (double)s->arr_scheduled) {
        /* a pass at a load not sent is no capacity: the injector's when it
         * was saturated, else the pool's (full, or its VUs in their init) */
        s->passed = 0;
        snprintf(s->failed, sizeof(s->failed), "load not sent: %llu of %llu arrivals dropped",
                 (unsigned long long)s->arr_dropped, (unsigned long long)s->arr_scheduled);
        s->blame = s->injector_saturated ? BLAME_INJECTOR : BLAME_POOL;
    }
    agg_free(&cs->a);
    agg_init(&cs->a, cs->nsteps, cs->nscens);
    cs->summing = 0;
    if (!s->passed) {
        cs->failed = 1;
        cs->failed_step = cs->cur;
    }
    return !s->passed;
}

int capacity_search_second(capacity_search *cs, uint64_t second, const interval_sum *sum, int late,
                           const thresh *const *ths, size_t nth, const char *const *ids,
                           const char *const *names)
{
    size_t i;
    int last;

    if (cs->failed)
        return 0;
    if (late) {
        if (cs->summing && capacity_second(&cs->plan, cs->settle_us, second, &i, &last) == 0 &&
            i == cs->cur) {
            agg_add(&cs->a, sum->steps, sum->runs, sum->missed, 0, sum->active_vus);
            agg_add_arrivals(&cs->a, sum->arrivals);
            agg_add_lag(&cs->a, sum->lag);
            agg_add_tally(&cs->a, &sum->tally);
            add_little(&cs->steps[i], sum);
        }
        return 0;
    }
    if (capacity_second(&cs->plan, cs->settle_us, second, &i, &last) != 0) {
        /* a step's last second never came (no report that second): judge it now */
        if (cs->summing && (int64_t)second * 1000000 >= cs->steps[cs->cur].t1_us &&
            cs->cur + 1 < cs->plan.nsteps)
            return judge(cs, ths, nth, ids, names);
        return 0;
    }
    if (cs->summing && i != cs->cur && judge(cs, ths, nth, ids, names))
        return 1;
    if (!cs->summing) {
        cs->cur = i;
        cs->summing = 1;
    }
    agg_add(&cs->a, sum->steps, sum->runs, sum->missed, 1000000, sum->active_vus);
    agg_add_arrivals(&cs->a, sum->arrivals);
    agg_add_lag(&cs->a, sum->lag);
    agg_add_tally(&cs->a, &sum->tally);
    add_little(&cs->steps[i], sum);
    cs->steps[i].seconds++;
    cs->steps[i].saturated_seconds += any_saturated(sum, 0);
    cs->steps[i].clear_seconds += any_saturated(sum, 1);
    return last && i + 1 < cs->plan.nsteps ? judge(cs, ths, nth, ids, names) : 0;
}

void capacity_search_end(capacity_search *cs, const thresh *const *ths, size_t nth,
                         const char *const *ids, const char *const *names)
{
    if (cs != NULL && cs->summing && !cs->failed)
        judge(cs, ths, nth, ids, names);
}

int capacity_search_found(const capacity_search *cs, size_t *step)
{
    size_t n = 0;

    /* a step that passed at a load the injector did not send is no
     * capacity, unless --allow-saturation judges such steps as usual */
    while (n < cs->plan.nsteps && cs->steps[n].judged && cs->steps[n].passed &&
           (!cs->steps[n].injector_saturated || cs->allow_saturation))
        n++;
    if (n == 0)
        return 0;
    *step = n - 1;
    return 1;
}

int capacity_search_result(const capacity_search *cs, size_t i, thresh_result *out)
{
    size_t k;
    const capacity_search_step *s;
    char lb[CAPACITY_LOAD_MAX], desc[THRESH_DESC_MAX];

    if (!capacity_search_found(cs, &k)) {
        if (!cs->steps[0].judged)
            return 0;
        k = 0;
    }
    s = &cs->steps[k];
    if (i >= s->nrs)
        return 0;
    *out = s->rs[i];
    snprintf(desc, sizeof(desc), "step at %s: %s",
             capacity_format(&cs->plan, s->load, lb, sizeof(lb)), s->rs[i].desc);
    memcpy(out->desc, desc, sizeof(out->desc));
    return 1;
}

size_t capacity_search_judged(const capacity_search *cs)
{
    size_t n = 0;

    for (size_t i = 0; i < cs->plan.nsteps; i++)
        if (cs->steps[i].judged)
            n = i + 1;
    return n;
}

/* The first judged step the injector limited, passed or failed; NULL when none. */
static const capacity_search_step *first_injector(const capacity_search *cs)
{
    for (size_t i = 0; i < capacity_search_judged(cs); i++)
        if (cs->steps[i].judged && cs->steps[i].injector_saturated)
            return &cs->steps[i];
    return NULL;
}

char *capacity_search_why(const capacity_search *cs, char *buf, size_t len)
{
    char a[CAPACITY_LOAD_MAX], b[CAPACITY_LOAD_MAX], what[CAPACITY_SEARCH_FAILED_MAX + 32];
    size_t k;
    const capacity_search_step *f = cs->failed ? &cs->steps[cs->failed_step] : NULL;
    const capacity_search_step *inj = cs->allow_saturation ? NULL : first_injector(cs);

    if (inj != NULL) {
        capacity_format(&cs->plan, inj->load, b, sizeof(b));
        if (inj->passed)
            snprintf(what, sizeof(what), "it passed on figures that were");
        else
            snprintf(what, sizeof(what), "its failure (%s) was", inj->failed);
        if (!capacity_search_found(cs, &k))
            snprintf(buf, len,
                     "no capacity measured: the first step, %s, was limited by the injector "
                     "(%s): %s quern's own queue, not the server's",
                     b, inj->injector, what);
        else
            snprintf(buf, len,
                     "capacity at least %s%s: the step at %s was limited by the injector (%s): "
                     "%s quern's own queue, not the server's",
                     capacity_format(&cs->plan, cs->steps[k].load, a, sizeof(a)),
                     cs->plan.open ? "" : " VUs", b, inj->injector, what);
        return buf;
    }
    if (!capacity_search_found(cs, &k)) {
        if (f != NULL)
            snprintf(buf, len, "no capacity: the first step, %s, failed: %s%s%s",
                     capacity_format(&cs->plan, f->load, a, sizeof(a)), f->failed,
                     f->pool_limited ? "; the server's limit: " : "", f->pool);
        else
            snprintf(buf, len, "no capacity: no step was judged");
        return buf;
    }
    capacity_format(&cs->plan, cs->steps[k].load, a, sizeof(a));
    if (f != NULL)
        snprintf(buf, len, "capacity %s%s (the step at %s failed: %s%s%s)", a,
                 cs->plan.open ? "" : " VUs", capacity_format(&cs->plan, f->load, b, sizeof(b)),
                 f->failed, f->pool_limited ? "; the server's limit: " : "", f->pool);
    else if (k + 1 == cs->plan.nsteps)
        snprintf(buf, len, "capacity %s%s at least (every step passed, up to MAX)", a,
                 cs->plan.open ? "" : " VUs");
    else
        snprintf(buf, len, "capacity %s%s at least (the run ended before a step failed)", a,
                 cs->plan.open ? "" : " VUs");
    return buf;
}

const char *capacity_search_limited_by(const capacity_search *cs)
{
    size_t k;

    if (first_injector(cs) != NULL)
        return "injector";
    if (cs->failed)
        return "server";
    if (capacity_search_judged(cs) == 0)
        return NULL;
    return capacity_search_found(cs, &k) && k + 1 == cs->plan.nsteps ? "max" : "stopped";
}

/* What the verdict rests on: the capacity's step and the failing one, each
 * with its judged seconds and samples, into buf ("" when none was judged). */
static void evidence(const capacity_search *cs, char *buf, size_t len)
{
    size_t k, n = 0;
    char lb[CAPACITY_LOAD_MAX];
    const capacity_search_step *s[2] = {NULL, NULL};
    lbuf b = {buf, 0, len - 1};

    if (capacity_search_found(cs, &k))
        s[n++] = &cs->steps[k];
    if (cs->failed && (n == 0 || &cs->steps[cs->failed_step] != s[0]))
        s[n++] = &cs->steps[cs->failed_step];
    for (size_t i = 0; i < n; i++)
        lbuf_fmt(&b, "%s%s on %u s and %llu samples", i == 0 ? " [judged: " : ", ",
                 capacity_format(&cs->plan, s[i]->load, lb, sizeof(lb)), s[i]->seconds,
                 (unsigned long long)s[i]->count);
    if (n > 0)
        lbuf_put(&b, "]", 1);
    buf[b.len] = '\0';
}

void capacity_search_verdict(const capacity_search *cs, verdict *v)
{
    char why[VERDICT_WHY_MAX - 96], ev[80];
    size_t k;
    const char *by = capacity_search_limited_by(cs);

    if (!v->passed)
        return;
    evidence(cs, ev, sizeof(ev));
    if (by != NULL && strcmp(by, "injector") == 0 && !cs->allow_saturation) {
        v->passed = 0;
        v->inconclusive = 1;
        v->rc = 1; /* console/runcmd.h's RUN_EXIT_FAILED */
        err_set(v->why, sizeof(v->why), "inconclusive: %s%s",
                capacity_search_why(cs, why, sizeof(why)), ev);
        return;
    }
    v->passed = capacity_search_found(cs, &k);
    v->rc = v->passed ? 0 : 1; /* console/runcmd.h's RUN_EXIT_OK, RUN_EXIT_FAILED */
    v->allowed = by != NULL && strcmp(by, "injector") == 0;
    err_set(v->why, sizeof(v->why), "%s: %s%s%s", v->passed ? "passed" : "failed",
            capacity_search_why(cs, why, sizeof(why)),
            v->allowed ? " (a step was limited by the injector: judged as usual by "
                         "--allow-saturation)"
                       : "",
            ev);
}

/* A step's mean concurrency by Little's law: its runs' time over its
 * judged time, the runs in flight on average. */
static double step_concurrency(const capacity_search_step *s)
{
    return s->seconds > 0 ? (double)s->run_us / 1e6 / (double)s->seconds : 0.0;
}

/* The law's N for a step: the VUs of a closed search (its users, as the
 * law counts them), the runs in flight of an open one. */
static double law_n(const capacity_search *cs, const capacity_search_step *s)
{
    return strcmp(capacity_unit(&cs->plan), "vus") == 0 ? s->load : step_concurrency(s);
}

/* The Universal Scalability Law over the judged steps (common/usl.h):
 * 0 fitted, -1 with f->why. */
static int fit_usl(const capacity_search *cs, usl_fit *f)
{
    size_t n = capacity_search_judged(cs), k = 0;
    double *conc = xcalloc(n + 1, sizeof(double)), *tps = xcalloc(n + 1, sizeof(double));
    int rc;

    for (size_t i = 0; i < n; i++) {
        if (!cs->steps[i].judged)
            continue;
        conc[k] = law_n(cs, &cs->steps[i]);
        tps[k++] = cs->steps[i].tps;
    }
    rc = usl_fit_points(conc, tps, k, f);
    xfree(conc);
    xfree(tps);
    return rc;
}

void capacity_search_print(const capacity_search *cs, FILE *out)
{
    usl_fit f;
    char sb[DUR_FORMAT_MAX], why[CAPACITY_SEARCH_FAILED_MAX + 128];

    fprintf(out, "\nCapacity search (each step judged after its first %s):\n",
            dur_format(cs->settle_us, sb, sizeof(sb)));
    fprintf(out, "  %4s  %10s  %10s  %9s  %9s  %9s  %8s  %s\n", "step", "load", "tps", "p50 ms",
            "p95 ms", "p99 ms", "errors", "verdict");
    for (size_t i = 0; i < capacity_search_judged(cs); i++) {
        const capacity_search_step *s = &cs->steps[i];
        char lb[CAPACITY_LOAD_MAX];
        if (!s->judged)
            continue;
        fprintf(out, "  %4zu  %10s  %10.1f  %9.1f  %9.1f  %9.1f  %6.2f %%  %s%s%s%s%s%s%s%s\n",
                i + 1, capacity_format(&cs->plan, s->load, lb, sizeof(lb)), s->tps, s->p50_ms,
                s->p95_ms, s->p99_ms, s->errors_pct, s->passed ? "PASS" : "FAIL ", s->failed,
                s->injector_saturated ? " [injector-limited: " : "", s->injector,
                s->injector_saturated ? "]" : "", s->pool_limited ? " [server-limited: " : "",
                s->pool, s->pool_limited ? "]" : "");
    }
    fprintf(out, "Capacity: %s\n", capacity_search_why(cs, why, sizeof(why)));
    if (fit_usl(cs, &f) != 0)
        fprintf(out, "Scalability (USL): no fit: %s\n", f.why);
    else if (f.sigma == 0 && f.kappa == 0)
        fprintf(out,
                "Scalability (USL, R² %.2f): linear over the steps: no contention, no coherency\n",
                f.r2);
    else if (isinf(f.peak_n))
        fprintf(out,
                "Scalability (USL, R² %.2f): contention σ %.3f, coherency κ 0: no peak, "
                "throughput bounded by %.1f tps\n",
                f.r2, f.sigma, f.peak_x);
    else
        fprintf(out,
                "Scalability (USL, R² %.2f): contention σ %.3f, coherency κ %.5f: "
                "peak %.1f tps at %.1f in flight\n",
                f.r2, f.sigma, f.kappa, f.peak_x, f.peak_n);
}

/* capacity.usl: the law's coefficients and peak, or why it does not fit. */
static json_t *scalability_json(const capacity_search *cs)
{
    json_t *u = json_object();
    usl_fit f;
    int ok = fit_usl(cs, &f) == 0;

    json_object_set_new(u, "fitted", json_boolean(ok));
    if (!ok) {
        json_object_set_new(u, "why", json_string(f.why));
        return u;
    }
    json_object_set_new(u, "lambda", json_real(f.lambda));
    json_object_set_new(u, "sigma", json_real(f.sigma));
    json_object_set_new(u, "kappa", json_real(f.kappa));
    json_object_set_new(u, "r2", json_real(f.r2));
    json_object_set_new(u, "peak_concurrency", isinf(f.peak_n) ? json_null() : json_real(f.peak_n));
    json_object_set_new(u, "peak_tps", isinf(f.peak_x) ? json_null() : json_real(f.peak_x));
    return u;
}

json_t *capacity_search_json(const capacity_search *cs)
{
    json_t *o = json_object(), *steps = json_array();
    size_t k;
    int found = capacity_search_found(cs, &k);

    json_object_set_new(o, "found", json_boolean(found));
    json_object_set_new(o, "value", found ? json_real(cs->steps[k].load) : json_null());
    json_object_set_new(o, "unit", json_string(capacity_unit(&cs->plan)));
    json_object_set_new(o, "settle_s", json_real((double)cs->settle_us / 1e6));
    json_object_set_new(o, "limited_by",
                        capacity_search_limited_by(cs) != NULL
                            ? json_string(capacity_search_limited_by(cs))
                            : json_null());
    for (size_t i = 0; i < capacity_search_judged(cs); i++) {
        const capacity_search_step *s = &cs->steps[i];
        json_t *j = json_object();
        json_object_set_new(j, "load", json_real(s->load));
        json_object_set_new(j, "start_s", json_real((double)s->t0_us / 1e6));
        json_object_set_new(j, "end_s", json_real((double)s->t1_us / 1e6));
        json_object_set_new(j, "seconds", json_integer(s->seconds));
        json_object_set_new(j, "saturated_seconds", json_integer(s->saturated_seconds));
        json_object_set_new(j, "count", json_integer((json_int_t)s->count));
        json_object_set_new(j, "tps", json_real(s->tps));
        json_object_set_new(j, "concurrency", json_real(step_concurrency(s)));
        json_object_set_new(j, "usl_n", json_real(law_n(cs, s)));
        json_object_set_new(j, "p50_ms", json_real(s->p50_ms));
        json_object_set_new(j, "p95_ms", json_real(s->p95_ms));
        json_object_set_new(j, "p99_ms", json_real(s->p99_ms));
        json_object_set_new(j, "errors_pct", json_real(s->errors_pct));
        json_object_set_new(j, "passed", json_boolean(s->judged && s->passed));
        json_object_set_new(j, "failed",
                            s->failed[0] != '\0' ? json_string(s->failed) : json_null());
        json_object_set_new(j, "injector_saturated", json_boolean(s->injector_saturated));
        if (s->injector_saturated)
            json_object_set_new(j, "injector", json_string(s->injector));
        json_object_set_new(j, "pool_limited", json_boolean(s->pool_limited));
        if (s->judged && !s->passed)
            json_object_set_new(j, "blame", json_string(blame_name(s->blame)));
        if (s->pool_limited)
            json_object_set_new(j, "pool", json_string(s->pool));
        if (s->arr_scheduled > 0 || s->arr_dropped > 0) {
            json_t *ar = json_object();
            json_object_set_new(ar, "scheduled", json_integer((json_int_t)s->arr_scheduled));
            json_object_set_new(ar, "started", json_integer((json_int_t)s->arr_started));
            json_object_set_new(ar, "late", json_integer((json_int_t)s->arr_late));
            json_object_set_new(ar, "init_waits", json_integer((json_int_t)s->arr_init_waits));
            json_object_set_new(ar, "dropped", json_integer((json_int_t)s->arr_dropped));
            json_object_set_new(ar, "inits", json_integer((json_int_t)s->arr_inits));
            json_object_set_new(ar, "start_lag_p99_ms", json_real(s->lag_p99_ms));
            json_object_set_new(
                ar, "runs_s", json_real(s->seconds > 0 ? (double)s->runs / (double)s->seconds : 0));
            json_object_set_new(j, "arrivals", ar);
        }
        json_array_append_new(steps, j);
    }
    json_object_set_new(o, "steps", steps);
    json_object_set_new(o, "usl", scalability_json(cs));
    return o;
}

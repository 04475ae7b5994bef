/* web_state — the --web page's state as JSON; see web_state.h. */
#include "console/serve/web_state.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/dbuf.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/ratelog.h"
#include "common/utf8.h"
#include "console/sumtally.h"
#include "reports/chart.h"

/* The charts' series, one value per point. */
enum { S_RPS, S_P50, S_P95, S_P99, S_TECH, S_FUNC, S_VUS, S_N };

struct web_state {
    double y[S_N][WEB_STATE_POINTS]; /* closed points; NAN: no sample */
    size_t npts;
    unsigned width_s; /* seconds a point covers */
    /* The point being filled: */
    unsigned secs; /* seconds in it so far */
    int64_t us;    /* their length (the last second of a run may be short) */
    uint64_t count, tech, func;
    uint32_t vus;
    int any;        /* a second (on time or late) went into it */
    hist *h;        /* owned: its latencies, every step */
    json_t *charts; /* owned: the closed points drawn, redrawn when one closes */
    /* The injector's saturated seconds, shaded on the charts: */
    shade sat;             /* its bands, in seconds of the page's time axis */
    uint64_t seconds;      /* seconds added (not late) so far */
    uint64_t inj_measured; /* a->inj.measured_s when last looked at */
};

static json_t *charts_json(const web_state *w, int partial);

web_state *web_state_new(void)
{
    web_state *w = xcalloc(1, sizeof(*w));

    w->width_s = 1;
    w->h = hist_new();
    shade_init(&w->sat, "injector saturated", SHADE_SAT_COLOR);
    return w;
}

void web_state_free(web_state *w)
{
    if (w == NULL)
        return;
    hist_free(w->h);
    json_decref(w->charts);
    shade_free(&w->sat);
    xfree(w);
}

size_t web_state_points(const web_state *w, unsigned *width_s)
{
    *width_s = w->width_s;
    return w->npts;
}

static double pct_ms(const hist *h, double p)
{
    return hist_count(h) == 0 ? NAN : (double)hist_percentile(h, p) / 1000.0;
}

/* The point being filled, as values over its length (at least 1 ms). */
static void current_point(const web_state *w, double *v)
{
    double secs = w->us > 1000 ? (double)w->us / 1e6 : 1.0;

    v[S_RPS] = (double)w->count / secs;
    v[S_P50] = pct_ms(w->h, 50);
    v[S_P95] = pct_ms(w->h, 95);
    v[S_P99] = pct_ms(w->h, 99);
    v[S_TECH] = (double)w->tech / secs;
    v[S_FUNC] = (double)w->func / secs;
    v[S_VUS] = (double)w->vus;
}

static double larger(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a > b ? a : b;
}

/* Pairs neighbouring points: half as many, each twice as long. */
static void halve(web_state *w)
{
    size_t n = w->npts / 2;

    for (size_t i = 0; i < n; i++) {
        for (int s = 0; s < S_N; s++) {
            double a = w->y[s][2 * i], b = w->y[s][2 * i + 1];
            int rate = s == S_RPS || s == S_TECH || s == S_FUNC;
            w->y[s][i] = rate ? (a + b) / 2 : larger(a, b);
        }
    }
    w->npts = n;
    w->width_s *= 2;
}

/* The second just added shaded when a worker was saturated in it, with the
 * worst worker's figures; only when it brought the injector's entries (a
 * second without any leaves a->inj's latest second as it was). */
static void mark_saturated(web_state *w, const agg *a)
{
    const injtot *t = &a->inj;
    const injtot_worker *worst;
    shade_sat f;

    if (t->measured_s == w->inj_measured)
        return;
    w->inj_measured = t->measured_s;
    memset(&f, 0, sizeof(f));
    worst = injtot_last_worst(t, &f.saturated, &f.workers);
    if (!t->last_saturated || worst == NULL)
        return;
    f.cpu_pct = (double)worst->last_cpu_permille / 10.;
    f.lag_ms = (double)worst->last_lag_us / 1e3;
    injtot_name(t, worst, f.who, sizeof(f.who));
    shade_add(&w->sat, w->seconds, w->seconds + 1, &f);
}

void web_state_add(web_state *w, const agg *a, int late)
{
    double v[S_N];

    hist_merge(w->h, a->last.hist);
    w->count += a->last.count;
    w->tech += a->last.err_tech;
    w->func += a->last.err_func;
    w->any = 1;
    if (late)
        return;
    mark_saturated(w, a);
    w->seconds++;
    if (a->active_vus > w->vus)
        w->vus = a->active_vus;
    w->us += a->last_length_us;
    if (++w->secs < w->width_s)
        return;
    current_point(w, v);
    for (int s = 0; s < S_N; s++)
        w->y[s][w->npts] = v[s];
    w->npts++;
    if (w->npts == WEB_STATE_POINTS)
        halve(w);
    w->secs = 0;
    w->us = 0;
    w->count = w->tech = w->func = 0;
    w->vus = 0;
    w->any = 0;
    hist_reset(w->h);
    /* drawn once a point, not once a render: the SVG is most of the cost */
    json_decref(w->charts);
    w->charts = charts_json(w, 0);
}

/* s as a JSON string; text from a script that is not well-formed UTF-8
 * (which JSON cannot hold) has its bad bytes shown as '?'. */
static json_t *safe_string(const char *s)
{
    json_t *j = json_string(s != NULL ? s : "");
    size_t n, k = 0;
    char *copy;

    if (j != NULL)
        return j;
    n = strlen(s);
    copy = xmalloc(n + 1);
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t l = utf8_decode((const unsigned char *)s + i, n - i, &c);
        if (l == 0) {
            copy[k++] = '?';
            i++;
            continue;
        }
        memcpy(copy + k, s + i, l);
        k += l;
        i += l;
    }
    copy[k] = '\0';
    j = json_string(copy);
    xfree(copy);
    return j;
}

/* Draws one chart into an owned string; NULL when it would pass
 * WEB_STATE_CHART_MAX (said at most once a minute) or the stream failed. */
static char *draw(const chart *c)
{
    static ratelog too_big; /* the loop's thread only */
    dbuf b;
    FILE *f;
    char *svg = NULL;

    dbuf_init(&b, WEB_STATE_CHART_MAX);
    f = dbuf_stream(&b);
    if (f == NULL)
        return NULL;
    chart_svg(f, c);
    if (fclose(f) == 0 && !b.refused)
        svg = dbuf_take(&b, NULL);
    else if (b.refused && ratelog_ok(&too_big, clock_mono_us(), 60000000, 1, NULL))
        log_msg(LOG_WARN, "--web: the chart \"%s\" would pass %u bytes: shown empty", c->title,
                WEB_STATE_CHART_MAX);
    dbuf_free(&b);
    return svg;
}

static void set_chart(json_t *o, const char *key, const chart *c)
{
    char *svg = draw(c);

    json_object_set_new(o, key, svg != NULL ? safe_string(svg) : json_null());
    xfree(svg);
}

/* The four charts of the closed points, and of the one being filled when
 * partial (the run's end). */
static json_t *charts_json(const web_state *w, int partial)
{
    double y[S_N][WEB_STATE_POINTS + 1];
    json_t *o = json_object();
    size_t n = w->npts;
    chart c;

    for (int s = 0; s < S_N; s++)
        memcpy(y[s], w->y[s], n * sizeof(double));
    if (partial && w->any) {
        double v[S_N];
        current_point(w, v);
        for (int s = 0; s < S_N; s++)
            y[s][n] = v[s];
        n++;
    }
    {
        chart_series thr[1] = {{"all steps", "#1d2330", y[S_RPS], n, 0}};
        chart_series pc[3] = {{"p50", "#16a34a", y[S_P50], n, 0},
                              {"p95", "#d97706", y[S_P95], n, 0},
                              {"p99", "#e5533d", y[S_P99], n, 0}};
        chart_series es[2] = {{"technical", "#b42318", y[S_TECH], n, 0},
                              {"functional", "#f59e0b", y[S_FUNC], n, 0}};
        chart_series vs[1] = {{"active VUs", "#2563eb", y[S_VUS], n, 0}};
        memset(&c, 0, sizeof(c));
        c.npts = n;
        c.width_s = w->width_s;
        c.shades = &w->sat;
        c.nshades = 1;
        c.title = "Throughput: requests per second";
        c.unit = "req/s";
        c.kind = CHART_AREA;
        c.series = thr;
        c.nseries = 1;
        set_chart(o, "throughput", &c);
        c.title = "Response time percentiles (all steps, from merged histograms)";
        c.unit = "ms";
        c.kind = CHART_LINES;
        c.series = pc;
        c.nseries = 3;
        set_chart(o, "latency", &c);
        c.small = 1;
        c.title = "Errors per second: technical and functional";
        c.unit = "errors/s";
        c.kind = CHART_STACKED;
        c.series = es;
        c.nseries = 2;
        set_chart(o, "errors", &c);
        c.title = "Active virtual users";
        c.unit = "VUs";
        c.kind = CHART_AREA;
        c.series = vs;
        c.nseries = 1;
        set_chart(o, "vus", &c);
    }
    json_object_set_new(o, "width_s", json_integer(w->width_s));
    return o;
}

static json_t *ms_or_null(const hist *h, double p)
{
    return hist_count(h) == 0 ? json_null() : json_real((double)hist_percentile(h, p) / 1000.0);
}

/* A row of the live table: sec is the latest second (NULL: none), tot the
 * whole run's. */
static json_t *row_json(const char *name, const step_stats *sec, double sec_s, uint64_t count,
                        uint64_t tech, uint64_t func)
{
    json_t *r = json_object();
    int has = sec != NULL && hist_count(sec->hist) > 0;

    json_object_set_new(r, "name", safe_string(name));
    json_object_set_new(r, "tps", json_real(sec != NULL && sec_s > 0 ? sec->count / sec_s : 0.0));
    json_object_set_new(r, "mean_ms", has ? json_real(hist_mean(sec->hist) / 1000.0) : json_null());
    json_object_set_new(r, "p95_ms", has ? ms_or_null(sec->hist, 95) : json_null());
    json_object_set_new(r, "p99_ms", has ? ms_or_null(sec->hist, 99) : json_null());
    json_object_set_new(r, "tech", json_integer(sec != NULL ? (json_int_t)sec->err_tech : 0));
    json_object_set_new(r, "func", json_integer(sec != NULL ? (json_int_t)sec->err_func : 0));
    json_object_set_new(r, "count", json_integer((json_int_t)count));
    json_object_set_new(r, "tech_total", json_integer((json_int_t)tech));
    json_object_set_new(r, "func_total", json_integer((json_int_t)func));
    return r;
}

/* The rows: of the latest second while the run goes on; once it is over
 * (in->summary), of the whole run. */
static json_t *steps_json(const web_state_input *in, json_t **total)
{
    json_t *arr = json_array();
    const agg *a = in->a;
    int final = in->summary != NULL && a != NULL;
    double sec_s = a == NULL ? 0.0
                   : final   ? (double)a->elapsed_us / 1e6
                             : (double)a->last_length_us / 1e6;
    const step_stats *sec_all = NULL;
    step_stats all;

    stats_init(&all);
    for (size_t i = 0; a != NULL && i < a->nsteps; i++) {
        const step_stats *t = &a->total[i];
        const step_stats *sec = final ? t : in->second != NULL ? &in->second[i] : NULL;
        json_array_append_new(
            arr, row_json(in->steps[i], sec, sec_s, t->count, t->err_tech, t->err_func));
        if (final) {
            stats_merge(&all, t); /* its histogram too, for the whole run's percentiles */
        } else {
            all.count += t->count;
            all.err_tech += t->err_tech;
            all.err_func += t->err_func;
        }
    }
    if (final)
        sec_all = &all;
    else if (a != NULL && in->second != NULL)
        sec_all = &a->last;
    *total = row_json("All steps", sec_all, sec_s, all.count, all.err_tech, all.err_func);
    stats_free(&all);
    return arr;
}

/* The injector now: saturated in one of the latest WEB_STATE_SAT_HOLD_S
 * seconds (the figures of that band's worst second), else the latest
 * second's worst worker; the run's saturated seconds, and the bands the
 * charts shade. */
static json_t *inj_json(const web_state *w, const agg *a)
{
    json_t *o, *bands;
    const injtot_worker *worst;
    const shade_band *last = w->sat.n > 0 ? &w->sat.bands[w->sat.n - 1] : NULL;
    uint32_t nsat = 0, n = 0;
    char who[SHADE_WHO_MAX];

    if (a == NULL)
        return json_null();
    o = json_object();
    bands = json_array();
    worst = injtot_last_worst(&a->inj, &nsat, &n);
    if (last != NULL && w->seconds < last->to_s + WEB_STATE_SAT_HOLD_S) {
        json_object_set_new(o, "saturated", json_true());
        json_object_set_new(o, "worker", safe_string(last->worst.who));
        json_object_set_new(o, "cpu_pct", json_real(last->worst.cpu_pct));
        json_object_set_new(o, "lag_ms", json_real(last->worst.lag_ms));
        nsat = last->worst.saturated;
        n = last->worst.workers;
    } else if (worst != NULL) {
        json_object_set_new(o, "saturated", json_false());
        injtot_name(&a->inj, worst, who, sizeof(who));
        json_object_set_new(o, "worker", safe_string(who));
        json_object_set_new(o, "cpu_pct", json_real((double)worst->last_cpu_permille / 10.));
        json_object_set_new(o, "lag_ms", json_real((double)worst->last_lag_us / 1e3));
    } else {
        json_object_set_new(o, "saturated", json_false());
        json_object_set_new(o, "worker", json_null());
        json_object_set_new(o, "cpu_pct", json_null());
        json_object_set_new(o, "lag_ms", json_null());
    }
    json_object_set_new(o, "workers", json_integer(n));
    json_object_set_new(o, "workers_saturated", json_integer(nsat));
    json_object_set_new(o, "saturated_s", json_integer((json_int_t)a->inj.saturated_s));
    json_object_set_new(o, "measured_s", json_integer((json_int_t)a->inj.measured_s));
    for (size_t i = 0; i < w->sat.n; i++) {
        json_t *b = json_array();
        json_array_append_new(b, json_integer((json_int_t)w->sat.bands[i].from_s));
        json_array_append_new(b, json_integer((json_int_t)w->sat.bands[i].to_s));
        json_array_append_new(bands, b);
    }
    json_object_set_new(o, "bands", bands);
    return o;
}

char *web_state_render(const web_state *w, const web_state_input *in, size_t *len)
{
    json_t *root = json_object(), *agents = json_array(), *th = json_array(), *total;
    char *dump, *out;
    size_t n;

    json_object_set_new(root, "run", safe_string(in->run));
    json_object_set_new(root, "final", json_boolean(in->summary != NULL));
    json_object_set_new(root, "paused", json_boolean(in->paused && in->summary == NULL));
    json_object_set_new(root, "elapsed_s",
                        json_real(in->a != NULL ? (double)in->a->elapsed_us / 1e6 : 0.0));
    json_object_set_new(root, "planned_s", json_real((double)in->planned_us / 1e6));
    json_object_set_new(root, "vus", json_integer(in->a != NULL ? in->a->active_vus : 0));
    json_object_set_new(root, "vus_max", json_integer(in->vus_max));
    json_object_set_new(root, "steps", steps_json(in, &total));
    json_object_set_new(root, "total", total);
    for (size_t i = 0; i < in->nagents; i++) {
        const web_state_agent *g = &in->agents[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", safe_string(g->name));
        json_object_set_new(o, "host", safe_string(g->host));
        json_object_set_new(o, "state", safe_string(g->state));
        json_object_set_new(o, "vus", json_integer(g->vus));
        json_object_set_new(o, "slots", json_integer(g->slots));
        json_object_set_new(o, "requests", json_integer((json_int_t)g->requests));
        json_object_set_new(o, "errors", json_integer((json_int_t)g->errors));
        json_array_append_new(agents, o);
    }
    json_object_set_new(root, "agents", agents);
    for (size_t i = 0; i < in->nth; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "expr", safe_string(in->th[i].expr));
        json_object_set_new(o, "passed", json_boolean(in->th[i].passed));
        json_object_set_new(o, "desc", safe_string(in->th[i].desc));
        json_array_append_new(th, o);
    }
    json_object_set_new(root, "thresholds", th);
    if (in->a != NULL)
        sumtally_json(root, in->a); /* "checks" and "metrics", the run's so far */
    else {
        json_object_set_new(root, "checks", json_array());
        json_object_set_new(root, "metrics", json_array());
    }
    json_object_set_new(root, "injector", inj_json(w, in->a));
    if (in->summary != NULL || w->charts == NULL)
        json_object_set_new(root, "charts", charts_json(w, in->summary != NULL));
    else
        json_object_set(root, "charts", w->charts);
    json_object_set(root, "summary", in->summary != NULL ? (json_t *)in->summary : json_null());
    dump = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (dump == NULL)
        return NULL;
    n = strlen(dump);
    if (n >= WEB_STATE_TEXT_MAX) {
        free(dump);
        return NULL;
    }
    out = xmalloc(n + 1);
    memcpy(out, dump, n + 1);
    free(dump); /* jansson's: malloc'd */
    *len = n;
    return out;
}

#include "console/summary.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "common/err.h"
#include "common/ofile.h"
#include "common/mem.h"
#include "common/termsafe.h"
#include "store/run_row.h"
#include "console/delivery.h"
#include "console/errsummary.h"
#include "console/sumtally.h"
#include "console/thresh.h"

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

static double tps(const agg *a, uint64_t count)
{
    return a->elapsed_us > 0 ? (double)count * 1e6 / (double)a->elapsed_us : 0.0;
}

/* One row of the table: the latencies of h (the response or the service
 * times of s). */
static void print_row_of(FILE *out, const char *name, int width, const agg *a, const step_stats *s,
                         const hist *h)
{
    char nm[TERMSAFE_MAX];

    fprintf(out, "%-*s %9llu %8llu %8llu %9.1f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", width,
            termsafe(name, nm, sizeof(nm)), (unsigned long long)s->count,
            (unsigned long long)s->err_tech, (unsigned long long)s->err_func, tps(a, s->count),
            hist_mean(h) / 1000.0, ms(hist_percentile(h, 50)), ms(hist_percentile(h, 90)),
            ms(hist_percentile(h, 95)), ms(hist_percentile(h, 99)), ms(hist_max(h)));
}

static void print_row(FILE *out, const char *name, int width, const agg *a, const step_stats *s)
{
    print_row_of(out, name, width, a, s, s->hist);
}

/* 1 when a step's service times differ from its response times by more
 * than SUMMARY_SVC_SHARE of its mean or p95 (and by a millisecond at least):
 * its starts were late, and the table's figures are not the server's alone. */
static int svc_differs(const step_stats *s)
{
    const hist *r = s->hist, *v = stats_service(s);
    double mr = hist_mean(r), mv = hist_mean(v);
    double pr = (double)hist_percentile(r, 95), pv = (double)hist_percentile(v, 95);

    if (v == r || s->count == 0)
        return 0;
    return (mr - mv > 1000.0 && mr - mv > SUMMARY_SVC_SHARE * mr) ||
           (pr - pv > 1000.0 && pr - pv > SUMMARY_SVC_SHARE * pr);
}

void summary_print(FILE *out, const agg *a, const summary_info *si)
{
    int width = 10;
    step_stats all;
    char nm[TERMSAFE_MAX], msg[TERMSAFE_MAX];

    /* Names and messages come from scripts and servers: shown, never acted
     * on by the terminal. */
    for (size_t i = 0; i < a->nsteps; i++) {
        int n = (int)strlen(si->step_names[i]);
        if (n > width)
            width = n;
    }
    if (width > 60)
        width = 60;
    fprintf(out, "\n%-*s %9s %8s %8s %9s %9s %9s %9s %9s %9s %9s\n", width, "Test", "Count",
            "Tech.err", "Func.err", "TPS", "Mean(ms)", "p50", "p90", "p95", "p99", "Max");
    stats_init(&all);
    for (size_t i = 0; i < a->nsteps; i++) {
        print_row(out, si->step_names[i], width, a, &a->total[i]);
        stats_merge(&all, &a->total[i]);
    }
    print_row(out, "Totals", width, a, &all);
    fprintf(out, "Latencies: response time, from each request's intended start (a late start "
                 "counts).\n");
    if (svc_differs(&all)) {
        /* the same table of service times, from each request's actual start,
         * for the steps where the two differ */
        fprintf(out,
                "\nService time, from each request's actual start (where it differs by more "
                "than %.0f %%):\n",
                100.0 * SUMMARY_SVC_SHARE);
        for (size_t i = 0; i < a->nsteps; i++)
            if (svc_differs(&a->total[i]))
                print_row_of(out, si->step_names[i], width, a, &a->total[i],
                             stats_service(&a->total[i]));
        print_row_of(out, "Totals", width, a, &all, stats_service(&all));
    }
    stats_free(&all);
    sumtally_print(out, a);
    fprintf(out, "\n");
    for (size_t i = 0; i < a->nscens; i++)
        fprintf(out, "Scenario %s: %llu runs, %llu missed pacing\n",
                termsafe(si->scen_names[i], nm, sizeof(nm)), (unsigned long long)a->runs[i],
                (unsigned long long)a->missed_pacing[i]);
    for (size_t i = 0; i < a->nscens; i++) {
        const rate_counts *c = &a->arrivals[i];
        if (c->scheduled == 0 && c->dropped == 0)
            continue; /* the closed model */
        fprintf(out,
                "Scenario %s: arrivals %llu scheduled, %llu started, %llu late (waited for a "
                "VU of a full pool), %llu waited for a new VU's init, %llu dropped; %llu VU(s) "
                "made during the load (their init run then)\n",
                termsafe(si->scen_names[i], nm, sizeof(nm)), (unsigned long long)c->scheduled,
                (unsigned long long)c->started, (unsigned long long)c->late,
                (unsigned long long)c->init_waits, (unsigned long long)c->dropped,
                (unsigned long long)c->inits);
    }
    for (size_t i = 0; i < a->nsteps; i++) {
        const step_stats *t = &a->total[i];
        if (t->sample_tech[0])
            fprintf(out, "%s: technical error, e.g. %s%s%s%s\n",
                    termsafe(si->step_ids[i], nm, sizeof(nm)),
                    termsafe(t->sample_tech, msg, sizeof(msg)), t->trace_tech[0] ? " (trace " : "",
                    t->trace_tech, t->trace_tech[0] ? ")" : "");
        if (t->sample_func[0])
            fprintf(out, "%s: functional error, e.g. %s%s%s%s\n",
                    termsafe(si->step_ids[i], nm, sizeof(nm)),
                    termsafe(t->sample_func, msg, sizeof(msg)), t->trace_func[0] ? " (trace " : "",
                    t->trace_func, t->trace_func[0] ? ")" : "");
    }
    errsummary_print(out, a->total, si->step_ids, a->nsteps, si->started_us);
    if (si->load != NULL && si->load->asked > 0 && si->vu_pool > 0)
        fprintf(out, "Load: %llu arrivals asked, %llu sent, %llu dropped (%.0f %%), %llu late\n",
                (unsigned long long)si->load->asked, (unsigned long long)si->load->sent,
                (unsigned long long)si->load->dropped, 100.0 * si->load->share,
                (unsigned long long)si->load->late);
    else if (si->load != NULL && (si->load->missed_pacing > 0 || si->load->vus_never > 0))
        fprintf(out,
                "Load: %llu runs, %llu missed their pacing slot (%.1f s lost), %llu of %llu VUs "
                "never started (%.0f %% not sent)\n",
                (unsigned long long)si->load->asked, (unsigned long long)si->load->missed_pacing,
                (double)si->load->pace_lost_us / 1e6, (unsigned long long)si->load->vus_never,
                (unsigned long long)si->load->vus_planned, 100.0 * si->load->share);
    if (si->vu_pool > 0)
        fprintf(out, "Run %s: %.1f s, VUs: pool peak %u of %u", si->status,
                (double)a->elapsed_us / 1e6, si->vus_peak, si->vu_pool);
    else if (si->vus_steered > 0 && si->vus_steered != si->vus)
        fprintf(out, "Run %s: %.1f s, VUs: %u at the start, steered to %u (peak %u)", si->status,
                (double)a->elapsed_us / 1e6, si->vus, si->vus_steered, a->vus_peak);
    else
        fprintf(out, "Run %s: %.1f s, %u VUs", si->status, (double)a->elapsed_us / 1e6, si->vus);
    if (si->paused_us > 0)
        fprintf(out, " (%.1f s paused, left out)", (double)si->paused_us / 1e6);
    fputc('\n', out);
}

/* run.load: {asked, sent, dropped, late, missed_pacing, pacing_lost_s, vus_planned,
 * vus_never_started, undelivered_pct, why}. */
static json_t *load_json(const delivery *d)
{
    json_t *o = json_object();

    json_object_set_new(o, "asked", json_integer((json_int_t)d->asked));
    json_object_set_new(o, "sent", json_integer((json_int_t)d->sent));
    json_object_set_new(o, "dropped", json_integer((json_int_t)d->dropped));
    json_object_set_new(o, "late", json_integer((json_int_t)d->late));
    json_object_set_new(o, "missed_pacing", json_integer((json_int_t)d->missed_pacing));
    json_object_set_new(o, "pacing_lost_s", json_real((double)d->pace_lost_us / 1e6));
    json_object_set_new(o, "vus_planned", json_integer((json_int_t)d->vus_planned));
    json_object_set_new(o, "vus_never_started", json_integer((json_int_t)d->vus_never));
    json_object_set_new(o, "undelivered_pct", json_real(100.0 * d->share));
    if (d->why[0] != '\0')
        json_object_set_new(o, "why", json_string(d->why));
    return o;
}

/* The latency fields of a test into o (returned): the response times, or
 * the service times for tests[i].service. */
static json_t *latency_json(json_t *o, const hist *h)
{
    json_object_set_new(o, "mean_ms", json_real(hist_mean(h) / 1000.0));
    json_object_set_new(o, "p50_ms", json_real(ms(hist_percentile(h, 50))));
    json_object_set_new(o, "p90_ms", json_real(ms(hist_percentile(h, 90))));
    json_object_set_new(o, "p95_ms", json_real(ms(hist_percentile(h, 95))));
    json_object_set_new(o, "p99_ms", json_real(ms(hist_percentile(h, 99))));
    json_object_set_new(o, "max_ms", json_real(ms(hist_max(h))));
    json_object_set_new(o, "min_ms", json_real(ms(hist_min(h))));
    return o;
}

/* [{expr, source, passed, measured (null: nothing measured), limit, unit,
 * description}] in the order the thresholds were given. */
/* A step's WebSocket messages: tests[i].messages. */
/* A step's slowest samples, slowest first (common/slowest.h). */
static json_t *slow_json(const slowest *h)
{
    json_t *arr = json_array();
    slowest_entry *e = xcalloc(h->n ? h->n : 1, sizeof(*e));
    size_t n = slowest_sorted(h, e);

    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "latency_ms", json_real((double)e[i].latency_us / 1e3));
        json_object_set_new(o, "start_us", json_integer((json_int_t)e[i].start_us));
        json_object_set_new(o, "vu", json_integer((json_int_t)e[i].vu));
        if (e[i].trace[0])
            json_object_set_new(o, "trace_id", json_string(e[i].trace));
        json_array_append_new(arr, o);
    }
    xfree(e);
    return arr;
}

static json_t *messages_json(const step_stats *s)
{
    json_t *o = json_object();

    json_object_set_new(o, "sent", json_integer((json_int_t)s->ws_sent));
    json_object_set_new(o, "received", json_integer((json_int_t)s->ws_recv));
    json_object_set_new(o, "bytes_sent", json_integer((json_int_t)s->ws_bytes_sent));
    json_object_set_new(o, "bytes_received", json_integer((json_int_t)s->ws_bytes_recv));
    return o;
}

static json_t *thresholds_json(const summary_info *si)
{
    json_t *arr = json_array();

    for (size_t i = 0; i < si->nthresholds; i++) {
        const thresh *t = si->thresholds[i];
        const thresh_result *r = &si->threshold_results[i];
        json_t *o = json_object();
        const char *src = si->threshold_sources != NULL && si->threshold_sources[i] != NULL
                              ? si->threshold_sources[i]
                              : "cli";
        json_object_set_new(o, "expr", json_string(t->expr));
        json_object_set_new(o, "source", json_string(src));
        json_object_set_new(o, "passed", json_boolean(r->passed));
        json_object_set_new(o, "measured",
                            thresh_measured(t, r) ? json_real(r->measured) : json_null());
        json_object_set_new(o, "limit", json_real(r->limit));
        json_object_set_new(o, "unit", json_string(thresh_unit(t)));
        json_object_set_new(o, "description", json_string(r->desc));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* totals: every step's samples together (count, errors, tps, latencies), so
 * that a CI step reads one object. */
static json_t *totals_json(const agg *a)
{
    json_t *o = json_object(), *e = json_object();
    step_stats all;

    stats_init(&all);
    for (size_t i = 0; i < a->nsteps; i++)
        stats_merge(&all, &a->total[i]);
    json_object_set_new(o, "count", json_integer((json_int_t)all.count));
    json_object_set_new(e, "technical", json_integer((json_int_t)all.err_tech));
    json_object_set_new(e, "functional", json_integer((json_int_t)all.err_func));
    json_object_set_new(o, "errors", e);
    json_object_set_new(
        o, "error_pct",
        json_real(all.count > 0 ? 100.0 * (double)(all.err_tech + all.err_func) / (double)all.count
                                : 0.0));
    json_object_set_new(o, "tps", json_real(tps(a, all.count)));
    latency_json(o, all.hist);
    json_object_set_new(o, "service", latency_json(json_object(), stats_service(&all)));
    json_object_set_new(o, "bytes_in", json_integer((json_int_t)all.bytes_in));
    json_object_set_new(o, "bytes_out", json_integer((json_int_t)all.bytes_out));
    stats_free(&all);
    return o;
}

json_t *summary_json(const agg *a, const summary_info *si)
{
    json_t *root = json_object(), *run = json_object(), *tests = json_array(),
           *scens = json_array();

    json_object_set_new(run, "id", si->run_id > 0 ? json_integer(si->run_id) : json_null());
    json_object_set_new(run, "name", si->name != NULL ? json_string(si->name) : json_null());
    if (si->started_us > 0) {
        char at[40];
        run_row_iso_utc(si->started_us, at, sizeof(at));
        json_object_set_new(run, "started_at", json_string(at));
    }
    json_object_set_new(run, "status", json_string(si->status));
    json_object_set_new(run, "vus", json_integer(si->vus));
    json_object_set_new(run, "vu_ids", json_integer(si->vu_ids));
    if (si->vus_steered > 0)
        json_object_set_new(run, "vus_steered", json_integer(si->vus_steered));
    json_object_set_new(run, "duration_s", json_real((double)a->elapsed_us / 1e6));
    json_object_set_new(run, "paused_s", json_real((double)si->paused_us / 1e6));
    json_object_set_new(run, "vus_peak",
                        json_integer(si->vu_pool > 0 ? si->vus_peak : a->vus_peak));
    if (si->vu_pool > 0)
        json_object_set_new(run, "vu_pool", json_integer(si->vu_pool));
    if (si->load != NULL)
        json_object_set_new(run, "load", load_json(si->load));
    if (si->max_in_flight > 0) {
        json_t *h = json_object();
        json_object_set_new(run, "max_in_flight", json_integer(si->max_in_flight));
        json_object_set_new(h, "requests", json_integer((json_int_t)a->held));
        json_object_set_new(h, "wait_mean_ms", json_real(agg_held_mean_ms(a)));
        json_object_set_new(h, "wait_max_ms", json_real((double)a->held_max_us / 1e3));
        json_object_set_new(run, "held_back", h);
    }
    if (a->inj.measured_s > 0 || a->console.measured_s > 0)
        json_object_set_new(run, "injector", summary_injector_json(a));
    json_object_set_new(root, "run", run);
    for (size_t i = 0; i < a->nsteps; i++) {
        const step_stats *s = &a->total[i];
        json_t *t = json_object(), *e = json_object(), *samples = json_object();
        json_object_set_new(t, "id", json_string(si->step_ids[i]));
        json_object_set_new(t, "label", json_string(si->step_labels[i]));
        json_object_set_new(t, "name", json_string(si->step_names[i]));
        json_object_set_new(t, "count", json_integer((json_int_t)s->count));
        json_object_set_new(e, "technical", json_integer((json_int_t)s->err_tech));
        json_object_set_new(e, "functional", json_integer((json_int_t)s->err_func));
        if (s->sample_tech[0])
            json_object_set_new(samples, "technical", json_string(s->sample_tech));
        if (s->sample_func[0])
            json_object_set_new(samples, "functional", json_string(s->sample_func));
        if (s->trace_tech[0])
            json_object_set_new(samples, "technical_trace_id", json_string(s->trace_tech));
        if (s->trace_func[0])
            json_object_set_new(samples, "functional_trace_id", json_string(s->trace_func));
        json_object_set_new(e, "samples", samples);
        json_object_set_new(e, "kinds", errsummary_json(s->kinds));
        json_object_set_new(t, "errors", e);
        json_object_set_new(t, "tps", json_real(tps(a, s->count)));
        latency_json(t, s->hist);
        json_object_set_new(t, "service", latency_json(json_object(), stats_service(s)));
        json_object_set_new(t, "bytes_in", json_integer((json_int_t)s->bytes_in));
        json_object_set_new(t, "bytes_out", json_integer((json_int_t)s->bytes_out));
        json_object_set_new(t, "new_connections", json_integer((json_int_t)s->new_conns));
        json_object_set_new(t, "requests", json_integer((json_int_t)s->requests));
        json_object_set_new(t, "messages", messages_json(s));
        if (s->slow != NULL)
            json_object_set_new(t, "slowest", slow_json(s->slow));
        json_object_set_new(t, "mean_dns_ms",
                            json_real(s->count ? ms(s->sum_dns) / (double)s->count : 0.0));
        json_object_set_new(t, "mean_connect_ms",
                            json_real(s->count ? ms(s->sum_connect) / (double)s->count : 0.0));
        json_object_set_new(t, "mean_ttfb_ms",
                            json_real(s->count ? ms(s->sum_ttfb) / (double)s->count : 0.0));
        json_array_append_new(tests, t);
    }
    json_object_set_new(root, "tests", tests);
    json_object_set_new(root, "totals", totals_json(a));
    for (size_t i = 0; i < a->nscens; i++) {
        json_t *sc = json_object();
        json_object_set_new(sc, "name", json_string(si->scen_names[i]));
        json_object_set_new(sc, "runs", json_integer((json_int_t)a->runs[i]));
        json_object_set_new(sc, "missed_pacing", json_integer((json_int_t)a->missed_pacing[i]));
        if (a->arrivals[i].scheduled > 0 || a->arrivals[i].dropped > 0) {
            json_t *ar = json_object();
            json_object_set_new(ar, "scheduled",
                                json_integer((json_int_t)a->arrivals[i].scheduled));
            json_object_set_new(ar, "started", json_integer((json_int_t)a->arrivals[i].started));
            json_object_set_new(ar, "late", json_integer((json_int_t)a->arrivals[i].late));
            json_object_set_new(ar, "init_waits",
                                json_integer((json_int_t)a->arrivals[i].init_waits));
            json_object_set_new(ar, "inits", json_integer((json_int_t)a->arrivals[i].inits));
            json_object_set_new(ar, "dropped", json_integer((json_int_t)a->arrivals[i].dropped));
            if (a->start_lag[i] != NULL)
                json_object_set_new(ar, "start_lag", latency_json(json_object(), a->start_lag[i]));
            json_object_set_new(sc, "arrivals", ar);
        }
        json_array_append_new(scens, sc);
    }
    json_object_set_new(root, "scenarios", scens);
    sumtally_json(root, a);
    json_object_set_new(root, "thresholds", thresholds_json(si));
    if (si->verdict != NULL) {
        json_t *v = json_object();
        json_object_set_new(v, "passed", json_boolean(si->verdict_passed));
        json_object_set_new(v, "reason", json_string(si->verdict));
        /* --allow-saturation judged as usual a run that was the injector's */
        json_object_set_new(v, "allowed", json_boolean(si->verdict_allowed));
        json_object_set_new(root, "verdict", v);
    }
    if (si->capacity != NULL)
        json_object_set(root, "capacity", si->capacity);
    if (si->profile != NULL)
        json_object_set(root, "profile", si->profile);
    return root;
}

int summary_write_json(const char *path, const agg *a, const summary_info *si, char *err,
                       size_t errlen)
{
    json_t *root = summary_json(a, si);
    char oerr[ERR_MAX];
    ofile o;
    FILE *f;
    int rc = -1;

    if (ofile_open(&o, path, OFILE_REPLACE, oerr, sizeof(oerr)) != 0) {
        err_set(err, errlen, "cannot write %s", oerr);
        goto out;
    }
    f = ofile_stream(&o);
    if (f == NULL || json_dumpf(root, f, JSON_INDENT(2)) != 0) {
        err_set(err, errlen, "cannot write %s: %s", path, strerror(errno));
        ofile_abort(&o);
        goto out;
    }
    if (ofile_commit(&o, oerr, sizeof(oerr)) != 0) {
        err_set(err, errlen, "cannot write %s", oerr);
        goto out;
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

int summary_dump_json(FILE *out, const agg *a, const summary_info *si, char *err, size_t errlen)
{
    json_t *root = summary_json(a, si);
    int rc = 0;

    if (json_dumpf(root, out, JSON_INDENT(2)) != 0 || fputc('\n', out) == EOF || fflush(out) != 0) {
        err_set(err, errlen, "cannot write the summary to standard output: %s", strerror(errno));
        rc = -1;
    }
    json_decref(root);
    return rc;
}

/* "console kept up (CPU max 5 %, loop lag p99 1 ms)" or "console saturated
 * 2 of 30 s (CPU max ..., ...)" into buf; "" when it measured nothing. */
static void console_text(const injtot *c, char *buf, size_t len)
{
    char fig[96];

    buf[0] = '\0';
    if (c->measured_s == 0)
        return;
    snprintf(fig, sizeof(fig), "CPU max %.0f %%, loop lag p99 %.0f ms",
             (double)injtot_cpu_max(c) / 10., (double)injtot_lag_p99_us(c) / 1e3);
    if (c->saturated_s == 0)
        snprintf(buf, len, "console kept up (%s)", fig);
    else
        snprintf(buf, len, "console saturated %llu of %llu s (%s)",
                 (unsigned long long)c->saturated_s, (unsigned long long)c->measured_s, fig);
}

void summary_print_injector(FILE *out, const agg *a)
{
    const injtot *t = &a->inj;
    const injtot_worker *w = injtot_worst(t);
    char d[INTERVAL_SUM_LOAD_NAME + 96], con[160];

    console_text(&a->console, con, sizeof(con));
    if (t->measured_s == 0 || w == NULL) {
        if (con[0] != '\0')
            fprintf(out, "\nInjector: %s\n", con);
        return;
    }
    if (t->saturated_s == 0) {
        fprintf(out, "\nInjector: kept up (CPU max %.0f %%, loop lag p99 %.0f ms)%s%s\n",
                (double)injtot_cpu_max(t) / 10., (double)injtot_lag_p99_us(t) / 1e3,
                con[0] ? "; " : "", con);
        return;
    }
    injtot_describe(w, d, sizeof(d));
    fprintf(out, "\nInjector: saturated %llu of %llu s (%s)%s%s\n",
            (unsigned long long)t->saturated_s, (unsigned long long)t->measured_s, d,
            con[0] ? "; " : "", con);
}

json_t *summary_injector_json(const agg *a)
{
    const injtot *t = &a->inj;
    json_t *o = json_object(), *ws = json_array();

    json_object_set_new(o, "saturated_s", json_integer((json_int_t)t->saturated_s));
    json_object_set_new(o, "measured_s", json_integer((json_int_t)t->measured_s));
    json_object_set_new(o, "cpu_max_pct", json_real((double)injtot_cpu_max(t) / 10.));
    json_object_set_new(o, "loop_lag_p99_ms", json_real((double)injtot_lag_p99_us(t) / 1e3));
    for (size_t i = 0; i < t->n; i++) {
        const injtot_worker *w = &t->w[i];
        json_t *x = json_object();
        json_object_set_new(x, "agent", json_string(w->agent));
        json_object_set_new(x, "worker", json_integer(w->worker));
        json_object_set_new(x, "saturated_s", json_integer((json_int_t)w->saturated_s));
        json_object_set_new(x, "measured_s", json_integer((json_int_t)w->seconds));
        json_object_set_new(x, "cpu_max_pct", json_real((double)w->cpu_max_permille / 10.));
        json_object_set_new(x, "loop_lag_p99_ms",
                            json_real((double)injtot_worker_lag_p99_us(w) / 1e3));
        json_object_set_new(x, "loop_lag_max_ms", json_real((double)w->lag_max_us / 1e3));
        json_array_append_new(ws, x);
    }
    json_object_set_new(o, "workers", ws);
    if (a->console.measured_s > 0) {
        const injtot *c = &a->console;
        json_t *x = json_object();
        json_object_set_new(x, "saturated_s", json_integer((json_int_t)c->saturated_s));
        json_object_set_new(x, "measured_s", json_integer((json_int_t)c->measured_s));
        json_object_set_new(x, "cpu_max_pct", json_real((double)injtot_cpu_max(c) / 10.));
        json_object_set_new(x, "loop_lag_p99_ms", json_real((double)injtot_lag_p99_us(c) / 1e3));
        json_object_set_new(x, "loop_lag_max_ms",
                            json_real(c->n > 0 ? (double)c->w[0].lag_max_us / 1e3 : 0.));
        json_object_set_new(o, "console", x);
    }
    return o;
}

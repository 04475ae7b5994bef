/* prom — a run's totals as Prometheus text; see prom.h. */
#include "console/prom.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/dbuf.h"
#include "common/mem.h"

#define DECADE(m)                                                                                  \
    1 * (m), 125 * (m) / 100, 16 * (m) / 10, 2 * (m), 25 * (m) / 10, 32 * (m) / 10, 4 * (m),       \
        5 * (m), 63 * (m) / 10, 8 * (m)

const uint64_t prom_bounds_us[PROM_NBOUNDS] = {
    DECADE(100ULL),    DECADE(1000ULL),    DECADE(10000ULL),
    DECADE(100000ULL), DECADE(1000000ULL), DECADE(10000000ULL),
};

/* The text being written: up to PROM_TEXT_MAX with its NUL, then only
 * records that it overflowed (the text is then dropped whole). */
typedef struct text {
    dbuf b;
    int over;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (!t->over && dbuf_put(&t->b, s, n) != 0)
        t->over = 1;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void fmt(text *t, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void fmt(text *t, const char *f, ...)
{
    va_list ap;

    if (t->over)
        return;
    va_start(ap, f);
    if (dbuf_vfmt(&t->b, f, ap) != 0)
        t->over = 1;
    va_end(ap);
}

/* A label value, escaped: backslash, double quote and newline. */
static void label_value(text *t, const char *v)
{
    for (const char *s = v; *s != '\0'; s++) {
        if (*s == '\\')
            put(t, "\\\\", 2);
        else if (*s == '"')
            put(t, "\\\"", 2);
        else if (*s == '\n')
            put(t, "\\n", 2);
        else
            put(t, s, 1);
    }
}

static void family(text *t, const char *name, const char *type, const char *help)
{
    fmt(t, "# HELP %s ", name);
    puts_(t, help);
    fmt(t, "\n# TYPE %s %s\n", name, type);
}

/* name{run="...",step="..." then extra (already formatted, may be "")} */
static void sample_head(text *t, const prom_input *in, const char *name, size_t step,
                        const char *extra)
{
    puts_(t, name);
    puts_(t, "{run=\"");
    label_value(t, in->run);
    if (step != SIZE_MAX) {
        puts_(t, "\",step=\"");
        label_value(t, in->steps[step]);
    }
    puts_(t, "\"");
    puts_(t, extra);
    puts_(t, "} ");
}

const char *prom_seconds(uint64_t us, char *buf, size_t buflen)
{
    uint64_t whole = us / 1000000, frac = us % 1000000;
    int digits = 6;

    if (frac == 0) {
        snprintf(buf, buflen, "%" PRIu64, whole);
        return buf;
    }
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    snprintf(buf, buflen, "%" PRIu64 ".%0*" PRIu64, whole, digits, frac);
    return buf;
}

/* A counter family, one sample per step: field(step_stats) */
static void counter(text *t, const prom_input *in, const char *name, const char *help, size_t off)
{
    family(t, name, "counter", help);
    for (size_t i = 0; in->a != NULL && i < in->a->nsteps; i++) {
        sample_head(t, in, name, i, "");
        fmt(t, "%" PRIu64 "\n", *(const uint64_t *)((const char *)&in->a->total[i] + off));
    }
}

/* A classic histogram family per step from each step's response times, or
 * its service times (service). */
static void latency(text *t, const prom_input *in, const char *name, int service, const char *help)
{
    uint64_t cum[PROM_NBOUNDS];
    char le[64], sec[32], sname[64];

    family(t, name, "histogram", help);
    for (size_t i = 0; in->a != NULL && i < in->a->nsteps; i++) {
        const hist *h = service ? stats_service(&in->a->total[i]) : in->a->total[i].hist;
        hist_cumulative(h, prom_bounds_us, PROM_NBOUNDS, cum);
        snprintf(sname, sizeof(sname), "%s_bucket", name);
        for (size_t j = 0; j < PROM_NBOUNDS; j++) {
            snprintf(le, sizeof(le), ",le=\"%s\"",
                     prom_seconds(prom_bounds_us[j], sec, sizeof(sec)));
            sample_head(t, in, sname, i, le);
            fmt(t, "%" PRIu64 "\n", cum[j]);
        }
        sample_head(t, in, sname, i, ",le=\"+Inf\"");
        fmt(t, "%" PRIu64 "\n", hist_count(h));
        snprintf(sname, sizeof(sname), "%s_sum", name);
        sample_head(t, in, sname, i, "");
        fmt(t, "%s\n", prom_seconds(hist_sum(h), sec, sizeof(sec)));
        snprintf(sname, sizeof(sname), "%s_count", name);
        sample_head(t, in, sname, i, "");
        fmt(t, "%" PRIu64 "\n", hist_count(h));
    }
}

/* The open model's arrivals of every scenario together, by state; nothing
 * for a closed run. */
static void arrivals(text *t, const prom_input *in)
{
    rate_counts c;
    const struct {
        const char *state; /* borrowed: a literal */
        const uint64_t *v; /* borrowed: its count in c */
    } rows[] = {{"scheduled", &c.scheduled},
                {"started", &c.started},
                {"late", &c.late},
                {"dropped", &c.dropped}};

    if (in->a == NULL || !agg_arrivals_all(in->a, &c))
        return;
    family(t, "quern_arrivals_total", "counter",
           "Arrivals of the open model, every scenario together, by state (late: waited for a "
           "VU; dropped: never started).");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        fmt(t, "quern_arrivals_total{run=\"");
        label_value(t, in->run);
        fmt(t, "\",state=\"%s\"} %" PRIu64 "\n", rows[i].state, *rows[i].v);
    }
}

/* Requests held back by --max-in-flight, and their waits; nothing until one
 * was. */
static void held_back(text *t, const prom_input *in)
{
    char sec[32];

    if (in->a == NULL || in->a->held == 0)
        return;
    family(t, "quern_held_back_total", "counter",
           "Requests that waited for one of --max-in-flight to end before they left.");
    fmt(t, "quern_held_back_total{run=\"");
    label_value(t, in->run);
    fmt(t, "\"} %" PRIu64 "\n", in->a->held);
    family(t, "quern_held_back_seconds_total", "counter",
           "Their waits, summed (counted in the response times, not the service times).");
    fmt(t, "quern_held_back_seconds_total{run=\"");
    label_value(t, in->run);
    fmt(t, "\"} %s\n", prom_seconds(in->a->held_us, sec, sizeof(sec)));
}

/* The console's own series of a family (role="console", console/selfload.h):
 * its latest second's CPU (what 'c') or loop lag ('l'), or its saturated
 * seconds ('s'). */
static void console_series(text *t, const prom_input *in, const char *name, char what)
{
    const injtot *c = &in->a->console;
    char sec[32];

    if (c->n == 0)
        return;
    fmt(t, "%s{run=\"", name);
    label_value(t, in->run);
    if (what == 'c')
        fmt(t, "\",role=\"console\"} %.3f\n", (double)c->w[0].last_cpu_permille / 1e3);
    else if (what == 'l')
        fmt(t, "\",role=\"console\"} %s\n", prom_seconds(c->w[0].last_lag_us, sec, sizeof(sec)));
    else
        fmt(t, "\",role=\"console\"} %" PRIu64 "\n", c->saturated_s);
}

/* Each worker's own load in the latest second it reported, and the
 * saturated seconds so far (the workers' with no role label, the console's
 * with role="console"); nothing until a worker or the console reported. */
static void injector(text *t, const prom_input *in)
{
    const injtot *it = in->a != NULL ? &in->a->inj : NULL;
    char sec[32];

    if (it == NULL || (it->n == 0 && in->a->console.n == 0))
        return;
    family(t, "quern_injector_cpu_ratio", "gauge",
           "CPU a worker (or, role=\"console\", the console) used in its latest second over wall "
           "time (1 = one core).");
    for (size_t i = 0; i < it->n; i++) {
        fmt(t, "quern_injector_cpu_ratio{run=\"");
        label_value(t, in->run);
        fmt(t, "\",agent=\"");
        label_value(t, it->w[i].agent);
        fmt(t, "\",worker=\"%" PRIu32 "\"} %.3f\n", it->w[i].worker,
            (double)it->w[i].last_cpu_permille / 1e3);
    }
    console_series(t, in, "quern_injector_cpu_ratio", 'c');
    family(t, "quern_injector_loop_lag_seconds", "gauge",
           "How late a worker's (or the console's) event loop ran at worst in its latest second.");
    for (size_t i = 0; i < it->n; i++) {
        fmt(t, "quern_injector_loop_lag_seconds{run=\"");
        label_value(t, in->run);
        fmt(t, "\",agent=\"");
        label_value(t, it->w[i].agent);
        fmt(t, "\",worker=\"%" PRIu32 "\"} %s\n", it->w[i].worker,
            prom_seconds(it->w[i].last_lag_us, sec, sizeof(sec)));
    }
    console_series(t, in, "quern_injector_loop_lag_seconds", 'l');
    family(t, "quern_injector_saturated_seconds_total", "counter",
           "Seconds in which a worker could not keep up (the verdict is inconclusive past 5 % of "
           "the measured seconds); role=\"console\": the console's own (a warning only).");
    if (it->n > 0) {
        fmt(t, "quern_injector_saturated_seconds_total{run=\"");
        label_value(t, in->run);
        fmt(t, "\"} %" PRIu64 "\n", it->saturated_s);
    }
    console_series(t, in, "quern_injector_saturated_seconds_total", 's');
}

/* The errors per step, class and code (common/errkinds.h: the HTTP status,
 * the libcurl code, 0 for a check; "other" for the kinds past the bound):
 * only in a run that has some. A family apart from quern_errors_total, so
 * that summing either counts each error once. */
static void code_counters(text *t, const prom_input *in)
{
    int any = 0;

    for (size_t i = 0; in->a != NULL && i < in->a->nsteps; i++)
        any |= errkinds_total(in->a->total[i].kinds) > 0;
    if (!any)
        return;
    family(t, "quern_errors_by_code_total", "counter",
           "Samples that failed, per step, kind and code (the HTTP status, the libcurl error "
           "code, 0 for a check or the script; \"other\" for the kinds past 32).");
    for (size_t i = 0; i < in->a->nsteps; i++) {
        errkind sums[ERRKIND_ROWS];
        size_t n = errkinds_by_code(in->a->total[i].kinds, sums);
        for (size_t j = 0; j < n; j++) {
            char extra[64];
            if (errkinds_is_other(&sums[j]))
                snprintf(extra, sizeof(extra), ",kind=\"%s\",code=\"other\"",
                         errkinds_class(&sums[j]));
            else
                snprintf(extra, sizeof(extra), ",kind=\"%s\",code=\"%d\"", errkinds_class(&sums[j]),
                         (int)sums[j].code);
            sample_head(t, in, "quern_errors_by_code_total", i, extra);
            fmt(t, "%" PRIu64 "\n", sums[j].count);
        }
    }
}

/* The WebSocket messages, per step: only in a run that has some. */
static void ws_message_counters(text *t, const prom_input *in)
{
    size_t i = 0;

    while (in->a != NULL && i < in->a->nsteps && in->a->total[i].ws_sent == 0 &&
           in->a->total[i].ws_recv == 0)
        i++;
    if (in->a == NULL || i == in->a->nsteps)
        return;
    counter(t, in, "quern_websocket_messages_sent_total", "WebSocket messages sent, per step.",
            offsetof(step_stats, ws_sent));
    counter(t, in, "quern_websocket_messages_received_total",
            "WebSocket messages received, per step.", offsetof(step_stats, ws_recv));
    counter(t, in, "quern_websocket_bytes_sent_total",
            "Payload bytes of the WebSocket messages sent, per step.",
            offsetof(step_stats, ws_bytes_sent));
    counter(t, in, "quern_websocket_bytes_received_total",
            "Payload bytes of the WebSocket messages received, per step.",
            offsetof(step_stats, ws_bytes_recv));
}

/* The script's soft checks and custom metrics (common/tally.h). */
static void checks_series(text *t, const prom_input *in)
{
    const tally *ty = in->a != NULL ? &in->a->tally : NULL;

    if (ty == NULL || ty->nchecks == 0)
        return;
    family(t, "quern_checks_total", "counter",
           "Soft checks (quern.check, r:check) by name and result (pass or fail).");
    for (size_t i = 0; i < ty->nchecks; i++) {
        for (int pass = 1; pass >= 0; pass--) {
            puts_(t, "quern_checks_total{run=\"");
            label_value(t, in->run);
            puts_(t, "\",check=\"");
            label_value(t, ty->checks[i].name);
            fmt(t, "\",result=\"%s\"} %" PRIu64 "\n", pass ? "pass" : "fail",
                pass ? ty->checks[i].passes : ty->checks[i].fails);
        }
    }
}

/* name{run="..."extra} value: one sample of a custom metric. */
static void metric_sample(text *t, const prom_input *in, const char *name, const char *suffix,
                          const char *extra, double v)
{
    fmt(t, "quern_metric_%s%s{run=\"", name, suffix);
    label_value(t, in->run);
    fmt(t, "\"%s} %.17g\n", extra, v);
}

static void metric_series(text *t, const prom_input *in)
{
    static const double q[] = {0.5, 0.9, 0.95, 0.99};
    char fam[TALLY_NAME_MAX + 32], extra[32];

    for (size_t i = 0; in->a != NULL && i < in->a->tally.nmetrics; i++) {
        const tally_metric *m = &in->a->tally.metrics[i];
        switch (m->kind) {
        case TALLY_COUNTER:
            snprintf(fam, sizeof(fam), "quern_metric_%s_total", m->name);
            family(t, fam, "counter", "The script's counter (quern.metric.counter).");
            metric_sample(t, in, m->name, "_total", "", m->sum);
            break;
        case TALLY_GAUGE:
            if (!m->has_value)
                break;
            snprintf(fam, sizeof(fam), "quern_metric_%s", m->name);
            family(t, fam, "gauge", "The script's gauge (quern.metric.gauge): the value last set.");
            metric_sample(t, in, m->name, "", "", m->value);
            break;
        case TALLY_TREND:
            snprintf(fam, sizeof(fam), "quern_metric_%s", m->name);
            family(t, fam, "summary",
                   "The script's trend (quern.metric.trend), in its unit: quantiles from the "
                   "merged HDR histogram.");
            for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
                snprintf(extra, sizeof(extra), ",quantile=\"%g\"", q[k]);
                metric_sample(t, in, m->name, "", extra, tally_trend_stat(m, NULL, q[k] * 100));
            }
            metric_sample(t, in, m->name, "_sum", "", (double)hist_sum(m->h) / TALLY_TREND_SCALE);
            metric_sample(t, in, m->name, "_count", "", (double)hist_count(m->h));
            break;
        }
    }
}

char *prom_render(const prom_input *in, size_t *len)
{
    text t = {0};

    dbuf_init(&t.b, PROM_TEXT_MAX - 1);
    counter(&t, in, "quern_requests_total", "Samples completed (successes and errors), per step.",
            offsetof(step_stats, count));
    counter(&t, in, "quern_http_requests_total",
            "HTTP requests sent, per step: redirects, digest round trips and a page's "
            "resources each count one.",
            offsetof(step_stats, requests));
    family(&t, "quern_errors_total", "counter",
           "Samples that failed, per step and kind (technical: transport or status; "
           "functional: a check or the script).");
    for (size_t i = 0; in->a != NULL && i < in->a->nsteps; i++) {
        sample_head(&t, in, "quern_errors_total", i, ",kind=\"technical\"");
        fmt(&t, "%" PRIu64 "\n", in->a->total[i].err_tech);
        sample_head(&t, in, "quern_errors_total", i, ",kind=\"functional\"");
        fmt(&t, "%" PRIu64 "\n", in->a->total[i].err_func);
    }
    code_counters(&t, in);
    counter(&t, in, "quern_bytes_received_total", "Bytes received (headers and bodies), per step.",
            offsetof(step_stats, bytes_in));
    counter(&t, in, "quern_bytes_sent_total",
            "Bytes sent (request lines, headers, bodies), per step.",
            offsetof(step_stats, bytes_out));
    ws_message_counters(&t, in);
    latency(&t, in, "quern_latency_seconds", 0,
            "Response time of the samples, per step (from the merged HDR histograms).");
    latency(&t, in, "quern_service_seconds", 1,
            "Service time of the samples, from their actual start, per step (from the merged HDR "
            "histograms).");
    arrivals(&t, in);
    held_back(&t, in);
    injector(&t, in);
    checks_series(&t, in);
    metric_series(&t, in);
    family(&t, "quern_vus", "gauge", "Active virtual users, every agent and worker together.");
    sample_head(&t, in, "quern_vus", SIZE_MAX, "");
    fmt(&t, "%" PRIu32 "\n", in->a != NULL ? in->a->active_vus : 0);
    family(&t, "quern_vus_max", "gauge", "Virtual users asked for (--vus, or quern ctl vus N).");
    sample_head(&t, in, "quern_vus_max", SIZE_MAX, "");
    fmt(&t, "%" PRIu32 "\n", in->vus_max);
    family(&t, "quern_paused", "gauge", "1 while quern ctl pause holds the load, else 0.");
    sample_head(&t, in, "quern_paused", SIZE_MAX, "");
    fmt(&t, "%d\n", in->paused ? 1 : 0);
    family(&t, "quern_threshold_passed", "gauge",
           "1 when the threshold passes on the totals so far, else 0.");
    for (size_t i = 0; i < in->nth; i++) {
        puts_(&t, "quern_threshold_passed{run=\"");
        label_value(&t, in->run);
        puts_(&t, "\",expr=\"");
        label_value(&t, in->th[i].expr);
        fmt(&t, "\"} %d\n", in->th[i].passed ? 1 : 0);
    }
    if (t.over) {
        dbuf_free(&t.b);
        return NULL;
    }
    return dbuf_take(&t.b, len);
}

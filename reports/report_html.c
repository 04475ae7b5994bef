#include "reports/report_html.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "common/dur.h"
#include "common/mem.h"
#include "common/version.h"
#include "reports/chart.h"
#include "reports/html.h"
#include "reports/monitor_html.h"
#include "reports/capacity_chart.h"
#include "reports/little_chart.h"
#include "reports/injector_chart.h"
#include "reports/kindshtml.h"
#include "reports/profile_html.h"
#include "reports/slowhtml.h"
#include "reports/tallyhtml.h"

/* --------------------------------------------------------------------- HTML */

/* "12.5 %" of part in whole, or "-" when whole is 0. */
static const char *pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    if (whole == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f %%", 100.0 * (double)part / (double)whole);
    return buf;
}

/* A JSON object of strings as a definition list; other text as it is. */
static void json_kv(FILE *out, const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text != NULL ? text : "", 0, &je);
    const char *k;
    json_t *v;

    if (o == NULL || !json_is_object(o)) {
        fputs("<code>", out);
        html_esc(out, text);
        fputs("</code>", out);
        json_decref(o);
        return;
    }
    if (json_object_size(o) == 0) {
        fputs("<span class=\"same\">none</span>", out);
        json_decref(o);
        return;
    }
    fputs("<dl class=\"kv\">", out);
    json_object_foreach(o, k, v)
    {
        fputs("<dt><code>", out);
        html_esc(out, k);
        fputs("</code></dt><dd><code>", out);
        if (json_is_string(v)) {
            html_esc(out, json_string_value(v));
        } else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            html_esc(out, s);
            free(s);
        }
        fputs("</code></dd>", out);
    }
    fputs("</dl>", out);
    json_decref(o);
}

static void status_badge(FILE *out, const char *status)
{
    fputs("<span class=\"badge st-", out);
    html_esc(out, status);
    fputs("\">", out);
    html_esc(out, status);
    fputs("</span>", out);
}

static const char *const runverdict_class[] = {"v-passed", "v-failed", "v-pending"};
static const char *const runverdict_word[] = {"passed", "failed", "running"};

/* The verdict badge: "passed" (green), "failed" (red), "running". */
static void report_html_verdict_badge(FILE *out, const query_run *r)
{
    fprintf(out, "<span class=\"badge %s\" data-verdict=\"%s\" title=\"",
            runverdict_class[r->verdict.kind], runverdict_word[r->verdict.kind]);
    html_esc(out, r->verdict.text);
    fprintf(out, "\">%s</span>", runverdict_word[r->verdict.kind]);
}

/* "612.3 ms", "0.52 %", "12 /s", "340": a threshold's figure. */
static const char *thr_value(double v, const char *unit, char *buf, size_t len)
{
    char n[64];

    snprintf(n, sizeof(n), "%.4g", v);
    if (unit == NULL || unit[0] == '\0')
        snprintf(buf, len, "%s", n);
    else
        snprintf(buf, len, "%s %s", n, unit);
    return buf;
}

/* Why the figures are not a whole run, or how the run ended badly. */
static void report_html_notice(FILE *out, const query_run *r)
{
    char b[64];

    if (r->abandoned) {
        fputs("<p class=\"warn\" id=\"incomplete\"><strong>Abandoned: this run is incomplete."
              "</strong> It never ended: ",
              out);
        html_esc(out, r->status_reason != NULL ? r->status_reason : "its console is gone");
        fprintf(out,
                ". The figures below cover only the %s it recorded; they are not those of "
                "a complete run.</p>\n",
                dur_prose(r->elapsed_us, b, sizeof(b)));
    } else if (strcmp(r->status, "running") == 0) {
        fprintf(out,
                "<p class=\"warn\" id=\"incomplete\"><strong>Still running.</strong> The "
                "figures below cover the %s recorded so far.</p>\n",
                dur_prose(r->elapsed_us, b, sizeof(b)));
    } else if (r->status_reason != NULL) {
        fputs("<p class=\"warn\" id=\"status-reason\">Ended ", out);
        html_esc(out, r->status);
        fputs(": ", out);
        html_esc(out, r->status_reason);
        fputs("</p>\n", out);
    }
}

/* The verdict and each threshold's. */
static void report_html_verdict_section(FILE *out, const query_run *r)
{
    char m[96], l[96];

    fputs("<section id=\"verdict\">\n<h2>Verdict: ", out);
    report_html_verdict_badge(out, r);
    fputs("</h2>\n<p id=\"verdict-text\">", out);
    html_esc(out, r->verdict.text);
    fputs("</p>\n", out);
    if (r->run_verdict != NULL) {
        fputs("<p class=\"note\">The console's verdict: ", out);
        html_esc(out, r->run_verdict);
        if (r->run_verdict_reason != NULL) {
            fputs(" (", out);
            html_esc(out, r->run_verdict_reason);
            fputs(")", out);
        }
        fputs(".</p>\n", out);
    }
    if (r->nthresholds == 0) {
        fputs("<p class=\"same\">No threshold was declared for this run.</p>\n</section>\n", out);
        return;
    }
    fputs("<h3>Thresholds</h3>\n<table class=\"thresholds\">\n<thead><tr><th>Threshold</th>"
          "<th>Declared in</th><th class=\"n\">Measured</th><th class=\"n\">Limit</th>"
          "<th>Result</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nthresholds; i++) {
        const query_threshold *t = &r->thresholds[i];
        fprintf(out, "<tr class=\"threshold\" data-passed=\"%d\"><td><code>", t->passed);
        html_esc(out, t->expr);
        fputs("</code><br><span class=\"lbl\">", out);
        html_esc(out, t->description);
        fputs("</span></td><td>", out);
        if (strcmp(t->source, "cli") == 0)
            fputs("command line", out);
        else {
            fputs("<code>", out);
            html_esc(out, t->source);
            fputs("</code>", out);
        }
        fputs("</td><td class=\"n\">", out);
        if (t->measurable)
            html_esc(out, thr_value(t->measured, t->unit, m, sizeof(m)));
        else
            fputs("not measurable", out);
        fputs("</td><td class=\"n\">", out);
        html_esc(out, thr_value(t->limit, t->unit, l, sizeof(l)));
        fprintf(out, "</td><td class=\"%s\">%s</td></tr>\n", t->passed ? "better" : "worse",
                t->passed ? "PASS" : "FAIL");
    }
    fputs("</tbody>\n</table>\n</section>\n", out);
}

/* 1 when a step of r sent or received a WebSocket message. */
static int report_html_has_messages(const query_run *r)
{
    return r->all.ws_sent > 0 || r->all.ws_recv > 0;
}

static void card(FILE *out, const char *key, const char *value, const char *small)
{
    fprintf(out, "<div class=\"card\"><div class=\"k\">%s</div><div class=\"v\">%s", key, value);
    if (small != NULL)
        fprintf(out, " <small>%s</small>", small);
    fputs("</div></div>\n", out);
}

/* The legend name of a step: its label, else its id. */
static const char *step_name(const query_step *s)
{
    return s->label != NULL && s->label[0] != '\0' ? s->label : s->test_id;
}

static void report_html_cards(FILE *out, const query_run *r)
{
    char a[64], b[64];
    double vmax = 0;

    for (size_t p = 0; p < r->npts; p++)
        if (!isnan(r->vus_ts[p]) && r->vus_ts[p] > vmax)
            vmax = r->vus_ts[p];
    fputs("<div class=\"cards\" id=\"overview\">\n", out);
    card(out, "Requests", html_count(r->all.count, a, sizeof(a)), NULL);
    card(out, "Errors", html_count(r->all.err_tech + r->all.err_func, a, sizeof(a)),
         pct(r->all.err_tech + r->all.err_func, r->all.count, b, sizeof(b)));
    card(out, "Throughput", html_num(r->all.tps, a, sizeof(a)), "req/s");
    card(out, "Mean", html_ms(r->all.mean_us, a, sizeof(a)), "ms");
    card(out, "p95", html_ms((double)r->all.p95_us, a, sizeof(a)), "ms");
    card(out, "p99", html_ms((double)r->all.p99_us, a, sizeof(a)), "ms");
    /* the open model's pool, or the VUs asked; steered, the peak may pass them */
    if (r->vu_pool > 0)
        snprintf(b, sizeof(b), "of a pool of %lld", (long long)r->vu_pool);
    else if (r->nsteers > 0)
        snprintf(b, sizeof(b), "%lld asked at the start, then steered", (long long)r->vus);
    else
        snprintf(b, sizeof(b), "of %lld", (long long)r->vus);
    card(out, "Peak VUs", html_count((uint64_t)vmax, a, sizeof(a)), b);
    card(out, "Duration", dur_prose(r->duration_us, a, sizeof(a)), NULL);
    fputs("</div>\n", out);
}

/* Draws c with these title, unit, kind and series (the rest of c kept). */
static void draw(FILE *out, chart *c, const char *title, const char *unit, enum chart_kind kind,
                 const chart_series *series, size_t nseries)
{
    c->title = title;
    c->unit = unit;
    c->kind = kind;
    c->series = series;
    c->nseries = nseries;
    chart_svg(out, c);
}

static void report_html_charts(FILE *out, const query_run *r)
{
    size_t ns = r->nsteps + 1;
    chart_series *s = xcalloc(ns, sizeof(*s));
    shade sh[2] = {r->sat, r->paused}; /* views: query_run_free frees them */
    chart c = {.npts = r->npts, .width_s = r->width_s, .shades = sh, .nshades = 2};
    size_t shown = 1;

    fputs("<section id=\"charts\">\n<h2>Over time</h2>\n", out);
    s[0] = (chart_series){"all steps", "#1d2330", r->all.ts.rps, r->npts, 0};
    for (size_t i = 0; i < r->nsteps; i++)
        if (query_step_shown(&r->steps[i]))
            s[shown++] = (chart_series){step_name(&r->steps[i]), CHART_COLOR(i), r->steps[i].ts.rps,
                                        r->npts, 0};
    /* One step: its line is the total. More steps than colours: each has
     * its own chart below, this one keeps the total only. */
    c.nseries = shown > 2 && shown <= 1 + CHART_PALETTE_SIZE ? shown : 1;
    c.title = c.nseries > 1 ? "Throughput: requests per second, all steps and each step"
                            : "Throughput: requests per second";
    c.unit = "req/s";
    c.kind = CHART_AREA;
    c.series = s;
    chart_svg(out, &c);

    {
        chart_series pc[3] = {{"p50", "#16a34a", r->all.ts.p50_ms, r->npts, 0},
                              {"p95", "#d97706", r->all.ts.p95_ms, r->npts, 0},
                              {"p99", "#e5533d", r->all.ts.p99_ms, r->npts, 0}};
        chart_series es[2] = {{"technical", "#b42318", r->all.ts.tech_ps, r->npts, 0},
                              {"functional", "#f59e0b", r->all.ts.func_ps, r->npts, 0}};
        chart_series vs[1] = {{"active VUs", "#2563eb", r->vus_ts, r->npts, 0}};
        chart_series sc[3] = {{"p50", "#16a34a", r->all.ts.svc_p50_ms, r->npts, 0},
                              {"p95", "#d97706", r->all.ts.svc_p95_ms, r->npts, 0},
                              {"p99", "#e5533d", r->all.ts.svc_p99_ms, r->npts, 0}};
        draw(out, &c,
             "Response time percentiles, from each request's intended start (all steps, per "
             "second, from merged histograms)",
             "ms", CHART_LINES, pc, 3);
        draw(out, &c,
             "Service time percentiles, from each request's actual start: below the response "
             "times when requests waited to start",
             "ms", CHART_LINES, sc, 3);
        if (report_html_has_messages(r)) {
            chart_series ms[2] = {{"sent", "#7c3aed", r->all.ts.msg_sent_ps, r->npts, 0},
                                  {"received", "#0891b2", r->all.ts.msg_recv_ps, r->npts, 0}};
            draw(out, &c, "WebSocket messages per second: sent and received (all steps)", "msg/s",
                 CHART_LINES, ms, 2);
        }
        fputs("<div class=\"grid2\">\n", out);
        c.small = 1;
        draw(out, &c, "Errors per second: technical and functional", "errors/s", CHART_STACKED, es,
             2);
        draw(out, &c, "Active virtual users", "VUs", CHART_AREA, vs, 1);
        fputs("</div>\n", out);
    }
    fputs("<p class=\"note\">Technical errors: transport, timeout, status not accepted. "
          "Functional errors: failed checks, script errors.",
          out);
    if (r->width_s > 1)
        fprintf(out, " Each point covers %u seconds.", r->width_s);
    fputs("</p>\n</section>\n", out);
    xfree(s);
}

static void step_row(FILE *out, const query_step *s, int total, int msgs)
{
    char b[64];
    uint64_t errs = s->err_tech + s->err_func;

    if (total)
        fputs("<tr class=\"total\">", out);
    else
        fputs("<tr class=\"step\">", out);
    fputs("<td>", out);
    if (!total) {
        fputs("<code>", out);
        html_esc(out, s->test_id);
        fputs("</code><br><span class=\"lbl\">", out);
        html_esc(out, s->label);
        fputs("</span>", out);
    } else {
        fputs("All steps", out);
    }
    fprintf(out, "</td><td class=\"n\" data-count=\"%llu\">%s</td>", (unsigned long long)s->count,
            html_count(s->count, b, sizeof(b)));
    fprintf(out, "<td class=\"n\" data-http-requests=\"%llu\">%s</td>",
            (unsigned long long)s->requests, html_count(s->requests, b, sizeof(b)));
    if (msgs) {
        fprintf(out, "<td class=\"n\" data-ws-sent=\"%llu\" data-ws-received=\"%llu\">%s",
                (unsigned long long)s->ws_sent, (unsigned long long)s->ws_recv,
                html_count(s->ws_sent, b, sizeof(b)));
        fprintf(out, " / %s<br><span class=\"lbl\">", html_count(s->ws_recv, b, sizeof(b)));
        fprintf(out, "%s B / ", html_count(s->ws_bytes_sent, b, sizeof(b)));
        fprintf(out, "%s B</span></td>", html_count(s->ws_bytes_recv, b, sizeof(b)));
    }
    fprintf(out, "<td class=\"n\" data-errors=\"%llu\">%s", (unsigned long long)errs,
            html_count(errs, b, sizeof(b)));
    fprintf(out, "<br><span class=\"lbl\">%s</span></td>", pct(errs, s->count, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_num(s->tps, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms(s->mean_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p50_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p90_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p95_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td>", html_ms((double)s->p99_us, b, sizeof(b)));
    fprintf(out, "<td class=\"n\">%s</td></tr>\n", html_ms((double)s->max_us, b, sizeof(b)));
}

static void steps_table(FILE *out, const query_run *r)
{
    int partial = 0, msgs = report_html_has_messages(r);

    fputs("<section id=\"steps\">\n<h2>Steps</h2>\n<table class=\"steps\">\n<thead><tr>"
          "<th>Step</th><th class=\"n\">Requests</th><th class=\"n\">HTTP requests</th>",
          out);
    if (msgs)
        fputs("<th class=\"n\">Messages sent / received</th>", out);
    fputs("<th class=\"n\">Errors</th>"
          "<th class=\"n\">TPS</th><th class=\"n\">Mean ms</th><th class=\"n\">p50 ms</th>"
          "<th class=\"n\">p90 ms</th><th class=\"n\">p95 ms</th><th class=\"n\">p99 ms</th>"
          "<th class=\"n\">Max ms</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nsteps; i++) {
        if (!query_step_shown(&r->steps[i]))
            continue;
        step_row(out, &r->steps[i], 0, msgs);
        partial |= !r->steps[i].has_totals;
    }
    fputs("</tbody>\n<tfoot>\n", out);
    step_row(out, &r->all, 1, msgs);
    fputs("</tfoot>\n</table>\n<p class=\"note\">TPS: requests per second of the run's "
          "duration. HTTP requests: what the step sent, redirects and a page's resources "
          "included. Percentiles from the merged latency histograms (HDR-style, within "
          "0.4 %).",
          out);
    if (msgs)
        fputs(" Messages: WebSocket messages, and their payload bytes below.", out);
    if (partial)
        fputs(" The run did not end: figures summed from its recorded seconds.", out);
    fputs("</p>\n</section>\n", out);
}

static void step_charts(FILE *out, const query_run *r)
{
    char b[64], c2[64];

    if (r->nsteps == 0)
        return;
    fputs("<section id=\"per-step\">\n<h2>Each step</h2>\n", out);
    for (size_t i = 0; i < r->nsteps; i++) {
        const query_step *s = &r->steps[i];
        chart_series rs[3] = {{"OK", "#16a34a", s->ts.ok_ps, r->npts, 0},
                              {"technical errors", "#b42318", s->ts.tech_ps, r->npts, 0},
                              {"functional errors", "#f59e0b", s->ts.func_ps, r->npts, 0}};
        chart_series ps[3] = {{"p50", "#16a34a", s->ts.p50_ms, r->npts, 0},
                              {"p95", "#d97706", s->ts.p95_ms, r->npts, 0},
                              {"p99", "#e5533d", s->ts.p99_ms, r->npts, 0}};
        shade sh[2] = {r->sat, r->paused};
        chart c = {.npts = r->npts, .width_s = r->width_s, .small = 1, .shades = sh, .nshades = 2};
        if (!query_step_shown(s))
            continue;
        fprintf(out, "<div class=\"stepbox\" id=\"step-%zu\">\n<h3><code>", i);
        html_esc(out, s->test_id);
        fputs("</code> ", out);
        html_esc(out, s->label);
        fputs("</h3>\n<p class=\"meta\">", out);
        fprintf(out, "%s requests · ", html_count(s->count, b, sizeof(b)));
        fprintf(out, "%s errors · ", pct(s->err_tech + s->err_func, s->count, c2, sizeof(c2)));
        fprintf(out, "%s req/s · ", html_num(s->tps, b, sizeof(b)));
        fprintf(out, "p95 %s ms", html_ms((double)s->p95_us, b, sizeof(b)));
        if (s->ws_sent > 0 || s->ws_recv > 0) {
            fprintf(out, " · %s messages sent, ", html_count(s->ws_sent, b, sizeof(b)));
            fprintf(out, "%s received", html_count(s->ws_recv, b, sizeof(b)));
        }
        fputs("</p>\n<div class=\"grid2\">\n", out);
        draw(out, &c, "Responses per second", "req/s", CHART_STACKED, rs, 3);
        draw(out, &c, "Response time percentiles", "ms", CHART_LINES, ps, 3);
        fputs("</div>\n</div>\n", out);
    }
    fputs("</section>\n", out);
}

static void errors_table(FILE *out, const query_run *r)
{
    char b[64];

    fputs("<section id=\"errors\">\n<h2>Errors</h2>\n", out);
    if (r->nerrors == 0) {
        fputs("<p class=\"same\">No error was recorded.</p>\n</section>\n", out);
        return;
    }
    fputs("<table class=\"errors\">\n<thead><tr><th>Kind</th><th>Step</th><th>Sample "
          "message</th><th class=\"n\">Count</th><th class=\"n\">First second</th>"
          "<th class=\"n\">Last second</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nerrors; i++) {
        const query_error *e = &r->errors[i];
        fputs("<tr><td>", out);
        html_esc(out, e->kind);
        fputs("</td><td><code>", out);
        if (e->step >= 0 && (uint64_t)e->step < r->nsteps)
            html_esc(out, r->steps[e->step].test_id);
        else
            fprintf(out, "step %lld", (long long)e->step);
        fputs("</code></td><td><code>", out);
        html_esc(out, e->sample);
        if (e->trace_id != NULL) {
            fputs("</code><br>trace <code>", out);
            html_esc(out, e->trace_id);
        }
        fprintf(out, "</code></td><td class=\"n\">%s</td>",
                html_count(e->count > 0 ? (uint64_t)e->count : 0, b, sizeof(b)));
        fprintf(out, "<td class=\"n\">%llds</td><td class=\"n\">%llds</td></tr>\n",
                (long long)e->first_second, (long long)e->last_second);
    }
    fputs("</tbody>\n</table>\n<p class=\"note\">Seconds are counted from the start of the "
          "load; the sample is the first message seen.</p>\n</section>\n",
          out);
}

static void report_html_agents(FILE *out, const query_run *r)
{
    char b[64];

    fputs("<section id=\"agents\">\n<h2>Load injectors</h2>\n", out);
    if (r->nagents == 0) {
        fputs("<p class=\"same\">No agent was recorded.</p>\n", out);
    } else {
        fputs("<table class=\"agents\">\n<thead><tr><th>Agent</th><th>Host</th>"
              "<th class=\"n\">Workers</th><th class=\"n\">VUs</th><th>Status</th>"
              "<th class=\"n\">Requests</th><th class=\"n\">Errors</th></tr></thead>\n<tbody>\n",
              out);
        for (size_t i = 0; i < r->nagents; i++) {
            const query_agent *a = &r->agents[i];
            fputs("<tr><td>", out);
            html_esc(out, a->name);
            fputs("</td><td>", out);
            html_esc(out, a->host);
            fprintf(out, "</td><td class=\"n\">%lld</td><td class=\"n\">", (long long)a->workers);
            /* the VUs that ran, of the slots it was given (a pool, a ceiling) */
            if (a->vus_peak >= 0 && a->vus_peak != a->vus)
                fprintf(out, "%lld <span class=\"same\">of %lld</span>", (long long)a->vus_peak,
                        (long long)a->vus);
            else
                fprintf(out, "%lld", (long long)a->vus);
            fputs("</td><td>", out);
            html_esc(out, a->status);
            if (a->lost)
                fputs(" <span class=\"badge st-aborted\">lost</span>", out);
            fprintf(out, "</td><td class=\"n\">%s</td>",
                    html_count(a->requests > 0 ? (uint64_t)a->requests : 0, b, sizeof(b)));
            fprintf(out, "<td class=\"n\">%s</td></tr>\n",
                    html_count(a->errors > 0 ? (uint64_t)a->errors : 0, b, sizeof(b)));
        }
        fputs("</tbody>\n</table>\n", out);
    }
    if (r->nscens > 0) {
        int open = 0;
        for (size_t i = 0; i < r->nscens; i++)
            open |= r->scens[i].arr_scheduled > 0 || r->scens[i].arr_dropped > 0;
        fprintf(out,
                "<h3>Scenarios</h3>\n<table class=\"scenarios\">\n<thead><tr><th>Scenario</th>"
                "<th class=\"n\">Runs</th><th class=\"n\">Missed pacing</th>%s</tr></thead>\n"
                "<tbody>\n",
                open ? "<th class=\"n\">Arrivals scheduled</th><th class=\"n\">Started</th>"
                       "<th class=\"n\">Late</th><th class=\"n\">After a new VU's init</th>"
                       "<th class=\"n\">Dropped</th><th class=\"n\" title=\"VUs made during "
                       "the load, their init run then (not those of --vus, made before the "
                       "start)\">Inits in the load</th>"
                     : "");
        for (size_t i = 0; i < r->nscens; i++) {
            fputs("<tr><td>", out);
            html_esc(out, r->scens[i].name);
            fprintf(
                out, "</td><td class=\"n\">%s</td>",
                html_count(r->scens[i].runs > 0 ? (uint64_t)r->scens[i].runs : 0, b, sizeof(b)));
            fprintf(out, "<td class=\"n\">%s</td>",
                    html_count(r->scens[i].missed > 0 ? (uint64_t)r->scens[i].missed : 0, b,
                               sizeof(b)));
            if (open) {
                const int64_t v[6] = {r->scens[i].arr_scheduled, r->scens[i].arr_started,
                                      r->scens[i].arr_late,      r->scens[i].arr_init_waits,
                                      r->scens[i].arr_dropped,   r->scens[i].arr_inits};
                for (size_t k = 0; k < 6; k++)
                    fprintf(out, "<td class=\"n\">%s</td>",
                            html_count(v[k] > 0 ? (uint64_t)v[k] : 0, b, sizeof(b)));
            }
            fputs("</tr>\n", out);
        }
        fputs("</tbody>\n</table>\n", out);
    }
    fputs("</section>\n", out);
}

static void kv(FILE *out, const char *key, const char *value, int code)
{
    fprintf(out, "<dt>%s</dt><dd>%s", key, code ? "<code>" : "");
    html_esc(out, value);
    fprintf(out, "%s</dd>\n", code ? "</code>" : "");
}

/* The changes made to the running load (quern ctl, the live page), one row
 * each: a pause with how long it held the load, which the run's duration
 * and rates leave out; a new number of VUs or rate from then on. */
static void steers_section(FILE *out, const query_run *r)
{
    char b[64], v[64];

    if (r->nsteers == 0)
        return;
    fputs("<section id=\"steers\">\n<h2>Manual changes</h2>\n<p>Made while the run went on "
          "(quern ctl). A pause held every VU; its time is left out of the run's duration, "
          "rates and response times.</p>\n<table class=\"steps\"><thead><tr><th>at</th>"
          "<th>change</th><th>for</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < r->nsteers; i++) {
        const query_steer *q = &r->steers[i];
        if (strcmp(q->kind, "vus") == 0)
            snprintf(v, sizeof(v), "%.0f VUs from then on", q->value);
        else if (strcmp(q->kind, "rate") == 0)
            snprintf(v, sizeof(v), "%g/s from then on", q->value);
        else if (strcmp(q->kind, "pause") == 0)
            snprintf(v, sizeof(v), "paused");
        else
            snprintf(v, sizeof(v), "%s", q->kind);
        fputs("<tr class=\"steer-", out);
        html_esc(out, q->kind);
        fprintf(out, "\"><td>%.1f s</td><td>", (double)q->at_us / 1e6);
        html_esc(out, v);
        fputs("</td><td>", out);
        if (strcmp(q->kind, "pause") == 0)
            html_esc(out,
                     q->end_us >= 0 ? dur_prose(q->end_us - q->at_us, b, sizeof(b)) : "to the end");
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n</section>\n", out);
}

static void settings(FILE *out, const query_run *r)
{
    char b[64], t[64];

    fputs("<section id=\"settings\">\n<h2>Settings</h2>\n<dl class=\"kv\">\n", out);
    snprintf(b, sizeof(b), "%lld", (long long)r->id);
    kv(out, "Run", b, 0);
    kv(out, "Name", r->name, 0);
    fputs("<dt>Status</dt><dd>", out);
    status_badge(out, r->status);
    if (r->status_reason != NULL) {
        fputs(" ", out);
        html_esc(out, r->status_reason);
    }
    fputs("</dd>\n<dt>Verdict</dt><dd>", out);
    html_esc(out, r->verdict.text);
    fputs("</dd>\n<dt>Tags</dt><dd>", out);
    json_kv(out, r->tags);
    fputs("</dd>\n", out);
    kv(out, "Script", r->script, 1);
    kv(out, "Script SHA-256", r->script_hash, 1);
    fputs("<dt>Properties</dt><dd>", out);
    json_kv(out, r->properties);
    fputs("</dd>\n", out);
    snprintf(b, sizeof(b), "%lld", (long long)r->vus);
    kv(out, "VUs (--vus)", b, 0);
    if (r->req_duration_us < 0)
        kv(out, "Requested duration (--duration)", "not recorded", 0);
    else if (r->req_duration_us == 0)
        kv(out, "Requested duration (--duration)", "none", 0);
    else
        kv(out, "Requested duration (--duration)", dur_prose(r->req_duration_us, b, sizeof(b)), 0);
    if (r->req_ramp_up_us < 0)
        kv(out, "Ramp-up (--ramp-up)", "not recorded", 0);
    else if (r->req_ramp_up_us == 0)
        kv(out, "Ramp-up (--ramp-up)", "none", 0);
    else
        kv(out, "Ramp-up (--ramp-up)", dur_prose(r->req_ramp_up_us, b, sizeof(b)), 0);
    if (r->req_runs < 0)
        snprintf(b, sizeof(b), "not recorded");
    else if (r->req_runs == 0)
        snprintf(b, sizeof(b), "no limit");
    else
        snprintf(b, sizeof(b), "%lld", (long long)r->req_runs);
    kv(out, "Runs per VU (--runs)", b, 0);
    if (r->req_stages != NULL)
        kv(out, "Stages (--stages)", r->req_stages, 1);
    kv(out, "Command line", r->command_line != NULL ? r->command_line : "not recorded",
       r->command_line != NULL);
    if (r->console_host != NULL) {
        char c[320];
        snprintf(c, sizeof(c), "%s, pid %lld", r->console_host, (long long)r->console_pid);
        kv(out, "Console", c, 0);
    }
    snprintf(b, sizeof(b), "%s (local)", html_time(r->started_us, t, sizeof(t)));
    kv(out, "Start", b, 0);
    kv(out, "Start (UTC)", r->started_at, 1);
    if (r->ended_us >= 0) {
        snprintf(b, sizeof(b), "%s (local)", html_time(r->ended_us, t, sizeof(t)));
        kv(out, "End", b, 0);
        kv(out, "End (UTC)", r->ended_at, 1);
    } else {
        kv(out, "End", "not recorded (the run did not end)", 0);
    }
    kv(out, "Duration of the load", dur_prose(r->duration_us, b, sizeof(b)), 0);
    kv(out, "quern version", r->quern_version, 0);
    fputs("</dl>\n</section>\n", out);
}

void report_html_write(FILE *out, const query_run *r)
{
    report_html_write_profile(out, r, NULL);
}

void report_html_write_profile(FILE *out, const query_run *r, const profile_html *prof)
{
    char title[256], b[64];

    snprintf(title, sizeof(title), "quern report: %s (run %lld)", r->name, (long long)r->id);
    html_head(out, title);
    fputs("<header>\n<h1>", out);
    html_esc(out, r->name);
    fprintf(out, " <span class=\"same\">· run %lld</span> ", (long long)r->id);
    report_html_verdict_badge(out, r);
    fputs(" ", out);
    if (r->verdict.kind == RUNVERDICT_FAILED && strcmp(r->status, "completed") == 0)
        fputs("<span class=\"badge\">completed</span>", out); /* not green: it failed */
    else
        status_badge(out, r->status);
    fprintf(out, "</h1>\n<div class=\"sub\">started %s", html_time(r->started_us, b, sizeof(b)));
    fprintf(out, " · %s", dur_prose(r->duration_us, b, sizeof(b)));
    if (r->vu_pool > 0 && r->vus_peak >= 0)
        fprintf(out, " · VUs: pool peak %lld of %lld · ", (long long)r->vus_peak,
                (long long)r->vu_pool);
    else
        fprintf(out, " · %lld VUs · ", (long long)r->vus);
    html_esc(out, r->script);
    fprintf(out,
            "</div>\n<nav><a href=\"#overview\">Overview</a><a href=\"#verdict\">Verdict</a>"
            "<a href=\"#charts\">Charts</a>%s%s"
            "<a href=\"#steps\">Steps</a><a href=\"#per-step\">Each step</a>%s"
            "<a href=\"#errors\">Errors</a><a href=\"#kinds\">Errors by kind</a>"
            "<a href=\"#slowest\">Slowest</a>"
            "<a href=\"#agents\">Injectors</a>%s"
            "<a href=\"#settings\">Settings</a></nav>\n</header>\n<main>\n",
            r->mon.nhosts > 0 ? "<a href=\"#resources\">System under test</a>" : "",
            prof != NULL && prof->n > 0 ? "<a href=\"#profile\">Server profile</a>" : "",
            r->tally.nchecks + r->tally.nmetrics > 0 ? "<a href=\"#checks\">Checks</a>" : "",
            r->nsteers > 0 ? "<a href=\"#steers\">Manual changes</a>" : "");
    report_html_notice(out, r);
    report_html_cards(out, r);
    report_html_verdict_section(out, r);
    report_html_charts(out, r);
    monitor_html_section(out, r);
    if (r->capacity != NULL)
        capacity_chart_section(out, r->capacity);
    profile_html_section(out, prof);
    if (r->nlittle > 0)
        little_chart_section(out, r->little, r->nlittle, &r->sat);
    injector_chart_section(out, r->inj, r->ninj, &r->sat);
    steps_table(out, r);
    step_charts(out, r);
    tallyhtml_section(out, r);
    errors_table(out, r);
    kindshtml_section(out, r);
    slowhtml_section(out, r);
    report_html_agents(out, r);
    steers_section(out, r);
    settings(out, r);
    fputs("</main>\n<footer>quern " QUERN_VERSION
          " · from the results database alone · this page needs no network</footer>\n",
          out);
    html_foot(out);
}

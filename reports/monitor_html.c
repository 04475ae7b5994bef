/* monitor_html — the report's section on the monitored hosts; see monitor_html.h. */
#include "reports/monitor_html.h"

#include <math.h>
#include <string.h>

#include "common/mem.h"
#include "common/rate.h"
#include "common/stages.h"
#include "reports/chart.h"
#include "reports/html.h"

/* A copy of y (n values) multiplied by k: the unit a chart shows. */
static double *scaled(const double *y, size_t n, double k)
{
    double *c = xmalloc((n > 0 ? n : 1) * sizeof(*c));

    for (size_t i = 0; i < n; i++)
        c[i] = y != NULL ? y[i] * k : NAN;
    return c;
}

/* Points [*pa, *pb) of the window [s0, s1) seconds: its first second left
 * out when it lasts 3 s or more. */
static void window_points(const query_run *r, double s0, double s1, size_t *pa, size_t *pb)
{
    double w = r->width_s > 0 ? r->width_s : 1;
    double a = s1 - s0 >= 3 ? s0 + 1 : s0;
    size_t from = (size_t)ceil(a / w), to = (size_t)floor(s1 / w);

    if (to <= from) { /* narrower than a point: the points it touches */
        from = (size_t)floor(s0 / w);
        to = (size_t)ceil(s1 / w);
    }
    if (to > r->npts)
        to = r->npts;
    if (from > to)
        from = to;
    *pa = from;
    *pb = to;
}

static void measure(const query_run *r, monitor_html_window *win)
{
    size_t pa, pb;
    double req = 0, errs = 0;
    bottleneck_window *w = &win->w;

    window_points(r, win->start_s, win->end_s, &pa, &pb);
    w->tps = monitor_series_mean(r->all.ts.rps, pa, pb);
    for (size_t p = pa; p < pb; p++) {
        if (!isnan(r->all.ts.rps[p]))
            req += r->all.ts.rps[p];
        if (!isnan(r->all.ts.tech_ps[p]))
            errs += r->all.ts.tech_ps[p];
        if (!isnan(r->all.ts.func_ps[p]))
            errs += r->all.ts.func_ps[p];
    }
    w->errors_pct = req > 0 ? errs / req * 100.0 : NAN;
    w->cpu_pct = w->disk_pct = NAN;
    w->cpu_host = NULL;
    w->monitored = 0;
    for (size_t h = 0; h < r->mon.nhosts; h++) {
        double c = monitor_series_mean(monitor_series_get(&r->mon, h, "cpu_busy"), pa, pb);
        double d = monitor_series_mean(monitor_series_get(&r->mon, h, "disk_busy"), pa, pb);
        if (!isnan(c)) {
            w->monitored = 1;
            if (isnan(w->cpu_pct) || c > w->cpu_pct) {
                w->cpu_pct = c;
                w->cpu_host = r->mon.hosts[h].host;
            }
        }
        if (!isnan(d) && (isnan(w->disk_pct) || d > w->disk_pct))
            w->disk_pct = d;
    }
}

/* The run's stages as (length, load) pairs, from its VU stages or, in the
 * open model, its rate stages; 0 when it has neither. */
static size_t stage_loads(const char *req, int64_t *dur_us, double *load, size_t max)
{
    stage *st = xcalloc(max + 1, sizeof(*st));
    rate_stage *rs = xcalloc(max + 1, sizeof(*rs));
    size_t n = 0;

    if (req != NULL && stages_parse(req, st, max, &n, NULL, 0) == 0) {
        for (size_t i = 0; i < n; i++) {
            dur_us[i] = st[i].dur_us;
            load[i] = st[i].target;
        }
    } else if (req != NULL && rate_stages_parse(req, rs, max, &n, NULL, 0) == 0) {
        for (size_t i = 0; i < n; i++) {
            dur_us[i] = rs[i].dur_us;
            load[i] = rs[i].per_s;
        }
    } else {
        n = 0;
    }
    xfree(st);
    xfree(rs);
    return n;
}

size_t monitor_html_windows(const query_run *r, monitor_html_window *out, size_t max)
{
    int64_t *dur_us = xcalloc(max + 1, sizeof(*dur_us));
    double *load = xcalloc(max + 1, sizeof(*load));
    size_t n = stage_loads(r->req_stages, dur_us, load, max);
    double t = 0;

    if (n == 0) {
        n = max > 0 ? 1 : 0;
        if (n == 1) {
            memset(&out[0], 0, sizeof(out[0]));
            out[0].start_s = 0;
            out[0].end_s = (double)r->npts * r->width_s;
            out[0].w.load = (double)r->vus;
        }
    } else {
        size_t k = 0;
        /* A stage of 0 s is a jump (a staircase: "0s:10,30s:10,0s:20,..."):
         * no window of its own, the next stage holds its level. */
        for (size_t i = 0; i < n; i++) {
            if (dur_us[i] == 0)
                continue;
            memset(&out[k], 0, sizeof(out[k]));
            out[k].start_s = t;
            t += (double)dur_us[i] / 1e6;
            out[k].end_s = t;
            out[k].w.load = load[i];
            k++;
        }
        n = k;
    }
    for (size_t i = 0; i < n; i++) {
        measure(r, &out[i]);
        out[i].kind = bottleneck_judge(i > 0 ? &out[i - 1].w : NULL, &out[i].w, out[i].why,
                                       sizeof(out[i].why));
    }
    xfree(dur_us);
    xfree(load);
    return n;
}

static void draw(FILE *out, const query_run *r, const char *title, const char *unit,
                 enum chart_kind kind, int small, const chart_series *s, size_t ns)
{
    chart c = {.title = title,
               .unit = unit,
               .npts = r->npts,
               .width_s = r->width_s,
               .small = small,
               .kind = kind,
               .series = s,
               .nseries = ns,
               .shades = &r->sat,
               .nshades = 1};
    chart_svg(out, &c);
}

static const char *const fixed[] = {
    "cpu_user", "cpu_system",     "cpu_iowait",         "cpu_steal",          "cpu_busy",
    "load1",    "mem_used_bytes", "net_rx_bytes_per_s", "net_tx_bytes_per_s", "disk_busy"};

static int is_fixed(const char *name)
{
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        if (strcmp(name, fixed[i]) == 0)
            return 1;
    return 0;
}

static void host_charts(FILE *out, const query_run *r, size_t h)
{
    const monitor_series_host *mh = &r->mon.hosts[h];
    const monitor_series *ms = &r->mon;
    size_t n = r->npts;
    double *mem = scaled(monitor_series_get(ms, h, "mem_used_bytes"), n, 1.0 / 1048576.0);
    double *rx = scaled(monitor_series_get(ms, h, "net_rx_bytes_per_s"), n, 1.0 / 1024.0);
    double *tx = scaled(monitor_series_get(ms, h, "net_tx_bytes_per_s"), n, 1.0 / 1024.0);
    const double *busy = monitor_series_get(ms, h, "cpu_busy");
    chart_series cpu[4] = {{"user", "#2563eb", monitor_series_get(ms, h, "cpu_user"), n, 0},
                           {"system", "#d97706", monitor_series_get(ms, h, "cpu_system"), n, 0},
                           {"iowait", "#7c3aed", monitor_series_get(ms, h, "cpu_iowait"), n, 0},
                           {"steal", "#b42318", monitor_series_get(ms, h, "cpu_steal"), n, 0}};
    chart_series bs[1] = {{"busy (all but idle and iowait)", "#1d2330", busy, n, 0}};
    chart_series lq[1] = {{"node_load1", "#2563eb", monitor_series_get(ms, h, "load1"), n, 0}};
    chart_series mm[1] = {{"used", "#16a34a", mem, n, 0}};
    chart_series nt[2] = {{"in", "#2563eb", rx, n, 0}, {"out", "#d97706", tx, n, 0}};
    chart_series dk[1] = {
        {"busiest device", "#7c3aed", monitor_series_get(ms, h, "disk_busy"), n, 0}};
    char title[512];

    for (size_t i = 0; i < 4; i++)
        if (cpu[i].y == NULL)
            cpu[i].n = 0;
    fprintf(out, "<div class=\"stepbox mon-host\" id=\"mon-host-%zu\" data-host=\"", h);
    html_esc(out, mh->host);
    fputs("\">\n<h3>", out);
    html_esc(out, mh->host);
    fputs(" <span class=\"lbl\">", out);
    html_esc(out, mh->url);
    fputs("</span></h3>\n", out);
    if (mh->problem != NULL) {
        fputs("<p class=\"warn mon-problem\">This endpoint failed: ", out);
        html_esc(out, mh->problem);
        fputs(". Its figures are missing while it failed.</p>\n", out);
    }
    snprintf(title, sizeof(title), "CPU busy by mode, %% of all the host's CPUs");
    draw(out, r, title, "%", CHART_STACKED, 0, cpu, 4);
    fputs("<div class=\"grid2\">\n", out);
    draw(out, r, "CPU busy, % of all CPUs", "%", CHART_AREA, 1, bs, busy != NULL ? 1 : 0);
    draw(out, r, "Run queue (node_load1)", "tasks", CHART_LINES, 1, lq, lq[0].y != NULL ? 1 : 0);
    draw(out, r, "Memory used (MemTotal - MemAvailable)", "MiB", CHART_AREA, 1, mm,
         monitor_series_get(ms, h, "mem_used_bytes") != NULL ? 1 : 0);
    draw(out, r, "Network, every device but lo", "KiB/s", CHART_LINES, 1, nt,
         monitor_series_get(ms, h, "net_rx_bytes_per_s") != NULL ? 2 : 0);
    draw(out, r, "Disk busy, % of the time (busiest device)", "%", CHART_AREA, 1, dk,
         dk[0].y != NULL ? 1 : 0);
    for (size_t i = 0; i < mh->nm; i++) {
        chart_series cs[1] = {{mh->m[i].name, "#0f766e", mh->m[i].y, n, 0}};
        if (is_fixed(mh->m[i].name))
            continue;
        snprintf(title, sizeof(title), "%s", mh->m[i].name);
        draw(out, r, title, "", CHART_LINES, 1, cs, 1);
    }
    fputs("</div>\n", out);
    if (monitor_series_get(ms, h, "net_rx_bytes_per_s") == NULL)
        fputs("<p class=\"note\">No network figures: the host has no device but loopback (lo), "
              "whose traffic is left out.</p>\n",
              out);
    fputs("</div>\n", out);
    xfree(mem);
    xfree(rx);
    xfree(tx);
}

static void fmt(FILE *out, double v, const char *unit)
{
    if (isnan(v))
        fputs("<td class=\"n\">–</td>", out);
    else
        fprintf(out, "<td class=\"n\">%.1f%s</td>", v, unit);
}

static void windows_table(FILE *out, const query_run *r)
{
    monitor_html_window *w = xcalloc(MONITOR_HTML_WINDOWS_MAX, sizeof(*w));
    size_t n = monitor_html_windows(r, w, MONITOR_HTML_WINDOWS_MAX);

    fputs("<h3>Bottleneck signature, per step window</h3>\n<table id=\"bottleneck\">\n<thead><tr>"
          "<th>window</th><th>load</th><th>req/s</th><th>errors</th><th>busiest CPU</th>"
          "<th>busiest disk</th><th>signature</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "<tr class=\"bn-%d\" data-kind=\"%s\"><td>%.0f–%.0f s</td>", (int)w[i].kind,
                bottleneck_name(w[i].kind), w[i].start_s, w[i].end_s);
        fmt(out, w[i].w.load, "");
        fmt(out, w[i].w.tps, "");
        fmt(out, w[i].w.errors_pct, " %");
        fmt(out, w[i].w.cpu_pct, " %");
        fmt(out, w[i].w.disk_pct, " %");
        fputs("<td><b>", out);
        html_esc(out, bottleneck_name(w[i].kind));
        fputs("</b>: ", out);
        html_esc(out, w[i].why);
        fputs("</td></tr>\n", out);
    }
    fprintf(out,
            "</tbody>\n</table>\n<p class=\"note\">Windows: the stages of the load (--stages), "
            "or the whole run; each window's first second is left out when it lasts 3 s or "
            "more. Rules, in order: errors above %g %% of the samples: errors first (a limit "
            "was hit); a load that did not rise by %g %%: not judged; throughput rising by "
            "%g %% of the load's rise or more: scales; else flat, and CPU-bound when a host's "
            "CPU is %g %% busy or more, contention when every host's CPU and disk are below "
            "%g %%.</p>\n",
            BOTTLENECK_ERRORS_PCT, BOTTLENECK_LOAD_RISE_PCT, BOTTLENECK_FOLLOW_PCT,
            BOTTLENECK_CPU_SATURATED_PCT, BOTTLENECK_ROOM_PCT);
    xfree(w);
}

void monitor_html_section(FILE *out, const query_run *r)
{
    if (r->mon.nhosts == 0)
        return;
    fputs("<section id=\"resources\">\n<h2>The system under test</h2>\n", out);
    for (size_t h = 0; h < r->mon.nhosts; h++)
        host_charts(out, r, h);
    windows_table(out, r);
    fputs("</section>\n", out);
}

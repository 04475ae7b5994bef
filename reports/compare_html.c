#include "reports/compare_html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/dur.h"
#include "common/mem.h"
#include "common/version.h"
#include "reports/chart.h"
#include "reports/compare.h"
#include "reports/html.h"

#define COLOR_NEW "#2563eb"
#define COLOR_BASE "#475467"

static void compare_html_run_column(FILE *out, const query_run *r, const char *role,
                                    const char *color, int dashed)
{
    char b[64];

    fprintf(out,
            "<div class=\"card\"><div class=\"k\"><svg width=\"22\" height=\"8\"><line x1=\"0\" "
            "y1=\"4\" x2=\"22\" y2=\"4\" stroke=\"%s\" stroke-width=\"3\"%s/></svg> %s</div>",
            color, dashed ? " stroke-dasharray=\"5 3\"" : "", role);
    fprintf(out, "<div class=\"v\">run %lld <small>", (long long)r->id);
    html_esc(out, r->name);
    fputs("</small></div><p class=\"meta\">", out);
    fprintf(out, "%s · ", html_time(r->started_us, b, sizeof(b)));
    fprintf(out, "%s · ", dur_prose(r->duration_us, b, sizeof(b)));
    fprintf(out, "%lld VUs · ", (long long)r->vus);
    html_esc(out, r->status);
    fprintf(out, " · verdict <span class=\"badge %s\" data-verdict=\"%s\">",
            r->verdict.kind == RUNVERDICT_PASSED   ? "v-passed"
            : r->verdict.kind == RUNVERDICT_FAILED ? "v-failed"
                                                   : "v-pending",
            r->verdict.kind == RUNVERDICT_PASSED   ? "passed"
            : r->verdict.kind == RUNVERDICT_FAILED ? "failed"
                                                   : "running");
    html_esc(out, r->verdict.text);
    fputs("</span> · <code>", out);
    html_esc(out, r->script);
    fputs("</code> · quern ", out);
    html_esc(out, r->quern_version);
    fputs("</p></div>\n", out);
}

static void compare_html_table(FILE *out, const compare_html_page *pg)
{
    char va[32], vb[32], dl[32], ns[256];
    double ma, mb;

    fputs("<section id=\"steps\">\n<h2>Steps</h2>\n<table class=\"compare\">\n<thead><tr>"
          "<th>Step</th><th>Verdict</th>",
          out);
    for (int m = 0; m < COMPARE_STEPS_COUNT; m++)
        fprintf(out, "<th class=\"n\">%s</th>", compare_steps_metric_name[m]);
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < pg->nrows; i++) {
        const compare_steps_row *row = &pg->rows[i];
        fputs("<tr class=\"step\" data-step=\"", out);
        html_esc(out, compare_steps_row_id(row));
        fprintf(out, "\" data-verdict=\"%s\"><td><code>", compare_steps_verdict_text[row->overall]);
        html_esc(out, compare_steps_row_id(row));
        fputs("</code><br><span class=\"lbl\">", out);
        html_esc(out, compare_steps_row_label(row));
        fputs("</span>", out);
        if (compare_steps_row_messages(row, pg->a, pg->b, &ma, &mb))
            fprintf(out, "<br><span class=\"lbl\" data-messages=\"1\">messages/s %s → %s</span>",
                    compare_steps_fmt_metric(COMPARE_STEPS_TPS, mb, vb, sizeof(vb)),
                    compare_steps_fmt_metric(COMPARE_STEPS_TPS, ma, va, sizeof(va)));
        fprintf(out, "</td><td class=\"%s\">%s", compare_steps_verdict_class[row->overall],
                row->overall == COMPARE_STEPS_NA ? compare_steps_na_reason(row)
                                                 : compare_steps_verdict_text[row->overall]);
        if (pg->note[0] != '\0' &&
            (row->overall == COMPARE_STEPS_WORSE || row->overall == COMPARE_STEPS_BETTER)) {
            fputs(" <span class=\"lbl load-note\">(note: ", out);
            html_esc(out, pg->note);
            fputs(")</span>", out);
        }
        fputs("</td>", out);
        for (int m = 0; m < COMPARE_STEPS_COUNT; m++) {
            if (row->overall == COMPARE_STEPS_NA) {
                fputs("<td class=\"n\">-</td>", out);
                continue;
            }
            fprintf(out, "<td class=\"n\">%s → %s<br><span class=\"%s\">%s</span>",
                    compare_steps_fmt_metric(m, row->vb[m], vb, sizeof(vb)),
                    compare_steps_fmt_metric(m, row->va[m], va, sizeof(va)),
                    compare_steps_verdict_class[row->v[m]],
                    compare_steps_fmt_delta(m, row->va[m], row->vb[m], dl, sizeof(dl)));
            if (compare_steps_fmt_noise(row, m, ns, sizeof(ns))[0] != '\0') {
                fputs("<br><span class=\"lbl\">", out);
                html_esc(out, ns);
                fputs("</span>", out);
            }
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fprintf(out,
            "</tbody>\n</table>\n<p class=\"note\">Each cell: baseline → new, then the delta. "
            "Significant: TPS or latency beyond %g %% (latency also beyond %g ms), error "
            "rate beyond %g percentage points, and beyond the noise: the 95 %% interval of the "
            "shift of the new run's seconds past the threshold (shown under a changed figure), the "
            "baselines' own spread passed. Steps are matched by their id.</p>\n</section>\n",
            pg->thr, COMPARE_LATENCY_FLOOR_US / 1000.0, COMPARE_ERROR_POINTS);
}

static void overlay(FILE *out, const compare_html_page *pg, const char *title, const char *unit,
                    const double *ya, size_t na, const double *yb, size_t nb, int small)
{
    char la[48], lb[48];
    chart_series s[2];
    /* each run's saturated seconds in its colour: views of its bands */
    shade sh[2] = {pg->a->sat, pg->b->sat};
    chart c = {.title = title,
               .unit = unit,
               .npts = pg->npts,
               .width_s = pg->width_s,
               .small = small,
               .kind = CHART_LINES,
               .series = s,
               .nseries = 2,
               .shades = sh,
               .nshades = 2};

    snprintf(la, sizeof(la), "new: run %lld", (long long)pg->a->id);
    snprintf(lb, sizeof(lb), "baseline: run %lld", (long long)pg->b->id);
    s[0] = (chart_series){la, COLOR_NEW, ya, ya != NULL ? na : 0, 0};
    s[1] = (chart_series){lb, COLOR_BASE, yb, yb != NULL ? nb : 0, 1};
    sh[0].label = "new: injector saturated";
    sh[0].color = COLOR_NEW;
    sh[1].label = "baseline: injector saturated";
    sh[1].color = COLOR_BASE;
    chart_svg(out, &c);
}

/* --monitor: each host of the new run with CPU figures, against the same
 * host (by host:port) of the baseline, or its only host when each run has
 * one (a baseline without it: the new run's line alone). */
static void overlay_cpu(FILE *out, const compare_html_page *pg)
{
    const monitor_series *ma = &pg->a->mon, *mb = &pg->b->mon;
    char title[320];

    for (size_t h = 0; h < ma->nhosts; h++) {
        const double *ya = monitor_series_get(ma, h, "cpu_busy"), *yb = NULL;
        if (ya == NULL) /* an endpoint that gave nothing: no line of the new run */
            continue;
        for (size_t k = 0; k < mb->nhosts && yb == NULL; k++)
            if (strcmp(mb->hosts[k].host, ma->hosts[h].host) == 0)
                yb = monitor_series_get(mb, k, "cpu_busy");
        if (yb == NULL && ma->nhosts == 1 && mb->nhosts == 1)
            yb = monitor_series_get(mb, 0, "cpu_busy");
        snprintf(title, sizeof(title), "CPU busy of %s, %% of all its CPUs (--monitor)",
                 ma->hosts[h].host);
        overlay(out, pg, title, "%", ya, pg->a->npts, yb, pg->b->npts, 0);
    }
}

void compare_html_write(FILE *out, const compare_html_page *pg)
{
    const query_run *a = pg->a, *b = pg->b;
    size_t nv[4] = {0, 0, 0, 0};
    char title[256], buf[32];

    for (size_t i = 0; i < pg->nrows; i++)
        nv[pg->rows[i].overall]++;
    snprintf(title, sizeof(title), "quern compare: run %lld against run %lld", (long long)a->id,
             (long long)b->id);
    html_head(out, title);
    fputs("<header>\n<h1>", out);
    html_esc(out, a->name);
    fprintf(out, " <span class=\"same\">· run %lld against baseline run %lld</span></h1>\n",
            (long long)a->id, (long long)b->id);
    fputs("<div class=\"sub\">", out);
    if (nv[COMPARE_STEPS_WORSE] > 0)
        fprintf(out, "<span class=\"badge st-aborted\">%zu step%s worse</span> ",
                nv[COMPARE_STEPS_WORSE], nv[COMPARE_STEPS_WORSE] > 1 ? "s" : "");
    if (nv[COMPARE_STEPS_BETTER] > 0)
        fprintf(out, "<span class=\"badge st-completed\">%zu step%s better</span> ",
                nv[COMPARE_STEPS_BETTER], nv[COMPARE_STEPS_BETTER] > 1 ? "s" : "");
    if (nv[COMPARE_STEPS_SAME] > 0)
        fprintf(out, "<span class=\"badge\">%zu without significant change</span> ",
                nv[COMPARE_STEPS_SAME]);
    fputs("</div>\n<nav><a href=\"#runs\">Runs</a><a href=\"#steps\">Steps</a>"
          "<a href=\"#charts\">Charts</a><a href=\"#per-step\">Each step</a></nav>\n"
          "</header>\n<main>\n<div class=\"grid2\" id=\"runs\" style=\"margin-bottom:18px\">\n",
          out);
    compare_html_run_column(out, a, "new", COLOR_NEW, 0);
    compare_html_run_column(out, b, "baseline", COLOR_BASE, 1);
    fputs("</div>\n", out);
    if (strcmp(a->script_hash, b->script_hash) != 0)
        fputs("<p class=\"note\">The script changed between the runs (its SHA-256 differs).</p>\n",
              out);
    for (int k = 0; k < 2; k++) {
        const query_run *r = k == 0 ? a : b;
        if (!query_run_incomplete(r))
            continue;
        fprintf(out, "<p class=\"warn\" id=\"incomplete-%s\">Run %lld (%s) is %s",
                k == 0 ? "a" : "b", (long long)r->id, k == 0 ? "A, new" : "B, baseline",
                r->abandoned ? "abandoned: it is incomplete" : "still running");
        if (r->abandoned && r->status_reason != NULL) {
            fputs(" (", out);
            html_esc(out, r->status_reason);
            fputs(")", out);
        }
        fprintf(out, "; its figures cover only the %s it recorded, and no step is judged.</p>\n",
                dur_prose(r->elapsed_us, buf, sizeof(buf)));
    }
    if (pg->note[0] != '\0') {
        fputs("<p class=\"warn\" id=\"load-note\">The runs had different loads: ", out);
        html_esc(out, pg->note);
        fputs(".</p>\n", out);
    }
    compare_html_table(out, pg);

    fputs("<section id=\"charts\">\n<h2>Over time, both runs</h2>\n", out);
    overlay(out, pg, "Throughput: requests per second, all steps", "req/s", a->all.ts.rps, a->npts,
            b->all.ts.rps, b->npts, 0);
    overlay(out, pg, "p95 response time, all steps", "ms", a->all.ts.p95_ms, a->npts,
            b->all.ts.p95_ms, b->npts, 0);
    overlay_cpu(out, pg);
    if (pg->width_s > 1)
        fprintf(out, "<p class=\"note\">Each point covers %u seconds.</p>\n", pg->width_s);
    fputs("</section>\n<section id=\"per-step\">\n<h2>Each step</h2>\n", out);
    for (size_t i = 0; i < pg->nrows; i++) {
        const compare_steps_row *row = &pg->rows[i];
        fputs("<div class=\"stepbox\">\n<h3><code>", out);
        html_esc(out, compare_steps_row_id(row));
        fputs("</code> ", out);
        html_esc(out, compare_steps_row_label(row));
        fprintf(out, " <span class=\"%s\">%s</span></h3>\n<div class=\"grid2\">\n",
                compare_steps_verdict_class[row->overall],
                row->overall == COMPARE_STEPS_NA ? compare_steps_na_reason(row)
                                                 : compare_steps_verdict_text[row->overall]);
        overlay(out, pg, "Requests per second", "req/s", row->a ? row->a->ts.rps : NULL, a->npts,
                row->b ? row->b->ts.rps : NULL, b->npts, 1);
        overlay(out, pg, "p95 response time", "ms", row->a ? row->a->ts.p95_ms : NULL, a->npts,
                row->b ? row->b->ts.p95_ms : NULL, b->npts, 1);
        fputs("</div>\n</div>\n", out);
    }
    fputs("</section>\n</main>\n<footer>quern " QUERN_VERSION " · ", out);
    fprintf(out, "generated %s · this page needs no network</footer>\n",
            html_time((int64_t)time(NULL) * 1000000, buf, sizeof(buf)));
    html_foot(out);
}

#include "reports/compare.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/mem.h"
#include "reports/abandon.h"
#include "reports/db.h"
#include "reports/html.h"
#include "reports/chart.h"
#include "reports/cli.h"
#include "reports/query.h"
#include "common/version.h"

#define THRESHOLD_MAX 1000.0 /* percent */

#define NOTE_MAX 512 /* bytes of the note on the runs' different loads */

#define COLOR_NEW "#2563eb"
#define COLOR_BASE "#475467"

/* The options, beside their help text. */
static const struct option compare_options[] = {
    {"db", required_argument, NULL, 'd'},
    {"output", required_argument, NULL, 'o'},
    {"fail-on-regression", required_argument, NULL, 'f'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: quern compare [A [B]] [--db FILE] [-o FILE] [--fail-on-regression P%%]\n"
            "\n"
            "Compares run A (the new one) with run B (the baseline), step by step: TPS,\n"
            "mean, p50, p95, p99 and error rate of both runs with their deltas, and a\n"
            "verdict per step: worse, better or no significant change. A defaults to the\n"
            "latest run; B to the latest complete run before A with the same name as A.\n"
            "\n"
            "A change is significant when TPS or a latency moved by more than %g %% (or\n"
            "the --fail-on-regression value) of the baseline, a latency also by more than\n"
            "%g ms, or the error rate by more than %g percentage points. A step is worse\n"
            "when one of its figures is significantly worse (lower TPS, higher latency or\n"
            "error rate), better when none is worse and one is better. Steps are matched\n"
            "by id; one with fewer than %d samples in either run is not compared.\n"
            "\n"
            "Both runs' verdicts are shown; when their requested VUs, duration, ramp-up or\n"
            "runs per VU differ, a note says so beside each verdict (\"worse (note: A ran\n"
            "50 VUs, B 100)\"). A run still running or abandoned is not judged, and is\n"
            "never the default baseline.\n"
            "\n"
            "It also writes an HTML page with the table and both runs overlaid on the same\n"
            "charts (throughput and p95 over the elapsed time).\n"
            "\n"
            "options:\n"
            "  --db FILE                 results database (default ./quern-results.db,\n"
            "                            or $QUERN_DB)\n"
            "  -o FILE                   the HTML page (default quern-compare-A-B.html)\n"
            "  --fail-on-regression P%%   significance threshold, and exit 1 when a step\n"
            "                            is worse (a CI build step fails)\n"
            "\n"
            "exit status: 0 no regression; 1 a step regressed (--fail-on-regression);\n"
            "2 usage error, unknown run or no baseline; 3 the database cannot be read or\n"
            "the page cannot be written.\n",
            COMPARE_THRESHOLD_DEFAULT, COMPARE_LATENCY_FLOOR_US / 1000.0, COMPARE_ERROR_POINTS,
            COMPARE_SAMPLES_MIN);
}

/* ---------------------------------------------------------------- verdicts */

enum cmp_metric { M_TPS, M_MEAN, M_P50, M_P95, M_P99, M_ERR, M_COUNT };
enum cmp_verdict { V_NA, V_SAME, V_BETTER, V_WORSE };

static const char *const metric_name[M_COUNT] = {"TPS",    "mean ms", "p50 ms",
                                                 "p95 ms", "p99 ms",  "errors %"};
static const char *const metric_short[M_COUNT] = {"TPS", "mean", "p50", "p95", "p99", "errors"};
static const char *const runverdict_text[] = {"not comparable", "no significant change", "better",
                                              "worse"};
static const char *const runverdict_class[] = {"same", "same", "better", "worse"};

/* One step of A matched with the same step of B (either may be NULL). */
typedef struct cmp_row {
    const query_step *a, *b; /* borrowed */
    double va[M_COUNT], vb[M_COUNT];
    enum cmp_verdict v[M_COUNT];
    enum cmp_verdict overall;
    const char *na_why; /* static or borrowed: why no verdict, overriding na_reason */
} cmp_row;

static double metric_value(const query_step *s, enum cmp_metric m)
{
    switch (m) {
    case M_TPS:
        return s->tps;
    case M_MEAN:
        return s->mean_us;
    case M_P50:
        return (double)s->p50_us;
    case M_P95:
        return (double)s->p95_us;
    case M_P99:
        return (double)s->p99_us;
    case M_ERR:
        return s->count > 0 ? 100.0 * (double)(s->err_tech + s->err_func) / (double)s->count : 0;
    default:
        return 0;
    }
}

/* Whether a (new) against b (baseline) is a significant change of m. */
static enum cmp_verdict judge(enum cmp_metric m, double a, double b, double thr)
{
    double rel;

    if (m == M_ERR) {
        if (fabs(a - b) <= COMPARE_ERROR_POINTS)
            return V_SAME;
        return a > b ? V_WORSE : V_BETTER;
    }
    if (!(b > 0))
        return a > 0 && m == M_TPS ? V_BETTER : V_NA;
    rel = (a - b) / b * 100.0;
    if (fabs(rel) <= thr)
        return V_SAME;
    if (m == M_TPS)
        return rel > 0 ? V_BETTER : V_WORSE;
    if (fabs(a - b) <= COMPARE_LATENCY_FLOOR_US)
        return V_SAME;
    return rel > 0 ? V_WORSE : V_BETTER;
}

static void judge_row(cmp_row *row, double thr)
{
    int worse = 0, better = 0;

    row->overall = V_NA;
    if (row->a == NULL || row->b == NULL || row->a->count < COMPARE_SAMPLES_MIN ||
        row->b->count < COMPARE_SAMPLES_MIN)
        return;
    for (int m = 0; m < M_COUNT; m++) {
        row->va[m] = metric_value(row->a, m);
        row->vb[m] = metric_value(row->b, m);
        row->v[m] = judge(m, row->va[m], row->vb[m], thr);
        worse |= row->v[m] == V_WORSE;
        better |= row->v[m] == V_BETTER;
    }
    row->overall = worse ? V_WORSE : better ? V_BETTER : V_SAME;
}

/* The rows: A's steps in order, then B's steps A does not have. A run that
 * is not complete (running, abandoned) gives no verdict: why says so. */
static cmp_row *match_steps(const query_run *a, const query_run *b, double thr, const char *why,
                            size_t *n)
{
    cmp_row *rows = xcalloc(a->nsteps + b->nsteps + 1, sizeof(*rows));
    size_t k = 0;

    for (size_t i = 0; i < a->nsteps; i++) {
        if (!query_step_shown(&a->steps[i]))
            continue;
        rows[k].a = &a->steps[i];
        for (size_t j = 0; j < b->nsteps; j++)
            if (query_step_shown(&b->steps[j]) &&
                strcmp(a->steps[i].test_id, b->steps[j].test_id) == 0) {
                rows[k].b = &b->steps[j];
                break;
            }
        judge_row(&rows[k++], thr);
    }
    for (size_t j = 0; j < b->nsteps; j++) {
        int found = !query_step_shown(&b->steps[j]);
        for (size_t i = 0; i < a->nsteps && !found; i++)
            found = query_step_shown(&a->steps[i]) &&
                    strcmp(a->steps[i].test_id, b->steps[j].test_id) == 0;
        if (found)
            continue;
        rows[k].b = &b->steps[j];
        judge_row(&rows[k++], thr);
    }
    *n = k;
    for (size_t i = 0; why != NULL && i < k; i++) {
        rows[i].overall = V_NA;
        rows[i].na_why = why;
    }
    return rows;
}

/* Appends "; " (unless first) and the formatted text to buf. */
static void note_add(char *buf, size_t len, const char *fmt, const char *x, const char *y)
{
    size_t n = strlen(buf);

    if (n > 0 && n + 2 < len) {
        snprintf(buf + n, len - n, "; ");
        n += 2;
    }
    if (n < len)
        snprintf(buf + n, len - n, fmt, x, y);
}

/* A requested duration: "2 min 00 s", or "none" for 0. */
static const char *dur_or_none(int64_t us, char *buf, size_t len)
{
    if (us > 0)
        return html_duration(us, buf, len);
    snprintf(buf, len, "none");
    return buf;
}

/* "A ran 50 VUs, B 100; ..." when the runs were asked for different loads
 * (VUs, duration, ramp-up, runs per VU; those an older quern did not
 * record are not compared), else "". */
static const char *load_note(const query_run *a, const query_run *b, char *buf, size_t len)
{
    char x[48], y[48];

    buf[0] = '\0';
    if (a->vus != b->vus) {
        snprintf(x, sizeof(x), "%lld", (long long)a->vus);
        snprintf(y, sizeof(y), "%lld", (long long)b->vus);
        note_add(buf, len, "A ran %s VUs, B %s", x, y);
    }
    if (a->req_duration_us >= 0 && b->req_duration_us >= 0 &&
        a->req_duration_us != b->req_duration_us)
        note_add(buf, len, "A's duration %s, B's %s", dur_or_none(a->req_duration_us, x, sizeof(x)),
                 dur_or_none(b->req_duration_us, y, sizeof(y)));
    if (a->req_ramp_up_us >= 0 && b->req_ramp_up_us >= 0 && a->req_ramp_up_us != b->req_ramp_up_us)
        note_add(buf, len, "A's ramp-up %s, B's %s", dur_or_none(a->req_ramp_up_us, x, sizeof(x)),
                 dur_or_none(b->req_ramp_up_us, y, sizeof(y)));
    if (a->req_runs >= 0 && b->req_runs >= 0 && a->req_runs != b->req_runs) {
        snprintf(x, sizeof(x), "%lld", (long long)a->req_runs);
        snprintf(y, sizeof(y), "%lld", (long long)b->req_runs);
        note_add(buf, len, "A's runs per VU %s, B's %s", x, y);
    }
    return buf;
}

/* Why the runs cannot be compared step by step (NULL: they can). */
static const char *incomplete_why(const query_run *a, const query_run *b, char *buf, size_t len)
{
    const query_run *r = query_run_incomplete(a) ? a : query_run_incomplete(b) ? b : NULL;

    if (r == NULL)
        return NULL;
    snprintf(buf, len, "not compared: run %lld (%s) is %s, not a complete run", (long long)r->id,
             r == a ? "A" : "B", r->abandoned ? "abandoned" : "still running");
    return buf;
}

/* A metric's value for display: ms for latencies, else as it is. */
static const char *fmt_metric(enum cmp_metric m, double v, char *buf, size_t len)
{
    if (m >= M_MEAN && m <= M_P99)
        return html_ms(v, buf, len);
    if (m == M_ERR) {
        snprintf(buf, len, "%.2f", v);
        return buf;
    }
    return html_num(v, buf, len);
}

/* The delta of m: relative for TPS and latency, in points for errors. */
static const char *fmt_delta(enum cmp_metric m, double a, double b, char *buf, size_t len)
{
    if (m == M_ERR)
        snprintf(buf, len, "%+.2f pt", a - b);
    else if (b > 0)
        snprintf(buf, len, "%+.1f%%", (a - b) / b * 100.0);
    else
        snprintf(buf, len, "-");
    return buf;
}

static const char *row_id(const cmp_row *row)
{
    return row->a != NULL ? row->a->test_id : row->b->test_id;
}

static const char *row_label(const cmp_row *row)
{
    return row->a != NULL ? row->a->label : row->b->label;
}

/* Why a row has no verdict. */
static const char *na_reason(const cmp_row *row)
{
    if (row->na_why != NULL)
        return row->na_why;
    if (row->b == NULL)
        return "new step (not in the baseline)";
    if (row->a == NULL)
        return "not in the new run";
    return "too few samples to compare";
}

/* ------------------------------------------------------------------- text */

/* One line per incomplete run: what it is and why. */
static void print_incomplete(FILE *out, const query_run *r, const char *role)
{
    char b[32];

    if (!query_run_incomplete(r))
        return;
    fprintf(out, "note: run %lld (%s) is %s", (long long)r->id, role,
            r->abandoned ? "abandoned, incomplete" : "still running");
    if (r->abandoned && r->status_reason != NULL)
        fprintf(out, ": %s", r->status_reason);
    fprintf(out, "; its figures cover only the %s it recorded\n",
            html_duration(r->elapsed_us, b, sizeof(b)));
}

static void print_text(FILE *out, const query_run *a, const query_run *b, const cmp_row *rows,
                       size_t n, double thr, const char *note)
{
    char va[32], vb[32], dl[32], hb[24], ha[24], t[32];

    fprintf(out, "new:      run %lld \"%s\", started %s, %s, verdict %s\n", (long long)a->id,
            a->name, html_time(a->started_us, t, sizeof(t)), a->status, a->verdict.text);
    fprintf(out, "baseline: run %lld \"%s\", started %s, %s, verdict %s\n", (long long)b->id,
            b->name, html_time(b->started_us, t, sizeof(t)), b->status, b->verdict.text);
    print_incomplete(out, a, "A");
    print_incomplete(out, b, "B");
    if (note[0] != '\0')
        fprintf(out, "note: the runs had different loads: %s\n", note);
    fprintf(out,
            "significant: TPS or latency beyond %g%% (latency also beyond %g ms), error rate "
            "beyond %g points\n",
            thr, COMPARE_LATENCY_FLOOR_US / 1000.0, COMPARE_ERROR_POINTS);
    if (strcmp(a->script_hash, b->script_hash) != 0)
        fprintf(out, "note: the script changed between the runs (SHA-256 differs)\n");
    snprintf(hb, sizeof(hb), "baseline #%lld", (long long)b->id);
    snprintf(ha, sizeof(ha), "new #%lld", (long long)a->id);
    for (size_t i = 0; i < n; i++) {
        const cmp_row *row = &rows[i];
        if (row_label(row)[0] != '\0')
            fprintf(out, "\n%s (%s): ", row_id(row), row_label(row));
        else
            fprintf(out, "\n%s: ", row_id(row));
        if (row->overall == V_NA) {
            fprintf(out, "%s\n", na_reason(row));
            continue;
        }
        if (note[0] != '\0' && (row->overall == V_WORSE || row->overall == V_BETTER))
            fprintf(out, "%s (note: %s)\n", runverdict_text[row->overall], note);
        else
            fprintf(out, "%s\n", runverdict_text[row->overall]);
        fprintf(out, "  %-10s %14s %14s %12s\n", "", hb, ha, "delta");
        for (int m = 0; m < M_COUNT; m++) {
            fprintf(out, "  %-10s %14s %14s %12s", metric_name[m],
                    fmt_metric(m, row->vb[m], vb, sizeof(vb)),
                    fmt_metric(m, row->va[m], va, sizeof(va)),
                    fmt_delta(m, row->va[m], row->vb[m], dl, sizeof(dl)));
            if (row->v[m] == V_WORSE || row->v[m] == V_BETTER)
                fprintf(out, "  %s", runverdict_text[row->v[m]]);
            fputc('\n', out);
        }
    }
}

/* ------------------------------------------------------------------- HTML */

typedef struct cmp_page {
    const query_run *a, *b; /* borrowed */
    const cmp_row *rows;    /* borrowed */
    size_t nrows;
    double thr;
    size_t npts;
    unsigned width_s;
    const char *note; /* borrowed: load_note, "" when none */
} cmp_page;

static void run_column(FILE *out, const query_run *r, const char *role, const char *color,
                       int dashed)
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
    fprintf(out, "%s · ", html_duration(r->duration_us, b, sizeof(b)));
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

static void html_table(FILE *out, const cmp_page *pg)
{
    char va[32], vb[32], dl[32];

    fputs("<section id=\"steps\">\n<h2>Steps</h2>\n<table class=\"compare\">\n<thead><tr>"
          "<th>Step</th><th>Verdict</th>",
          out);
    for (int m = 0; m < M_COUNT; m++)
        fprintf(out, "<th class=\"n\">%s</th>", metric_name[m]);
    fputs("</tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < pg->nrows; i++) {
        const cmp_row *row = &pg->rows[i];
        fputs("<tr class=\"step\" data-step=\"", out);
        html_esc(out, row_id(row));
        fprintf(out, "\" data-verdict=\"%s\"><td><code>", runverdict_text[row->overall]);
        html_esc(out, row_id(row));
        fputs("</code><br><span class=\"lbl\">", out);
        html_esc(out, row_label(row));
        fprintf(out, "</span></td><td class=\"%s\">%s", runverdict_class[row->overall],
                row->overall == V_NA ? na_reason(row) : runverdict_text[row->overall]);
        if (pg->note[0] != '\0' && (row->overall == V_WORSE || row->overall == V_BETTER)) {
            fputs(" <span class=\"lbl load-note\">(note: ", out);
            html_esc(out, pg->note);
            fputs(")</span>", out);
        }
        fputs("</td>", out);
        for (int m = 0; m < M_COUNT; m++) {
            if (row->overall == V_NA) {
                fputs("<td class=\"n\">-</td>", out);
                continue;
            }
            fprintf(out, "<td class=\"n\">%s → %s<br><span class=\"%s\">%s</span></td>",
                    fmt_metric(m, row->vb[m], vb, sizeof(vb)),
                    fmt_metric(m, row->va[m], va, sizeof(va)), runverdict_class[row->v[m]],
                    fmt_delta(m, row->va[m], row->vb[m], dl, sizeof(dl)));
        }
        fputs("</tr>\n", out);
    }
    fprintf(out,
            "</tbody>\n</table>\n<p class=\"note\">Each cell: baseline → new, then the delta. "
            "Significant: TPS or latency beyond %g %% (latency also beyond %g ms), error "
            "rate beyond %g percentage points. Steps are matched by their id.</p>\n</section>\n",
            pg->thr, COMPARE_LATENCY_FLOOR_US / 1000.0, COMPARE_ERROR_POINTS);
}

static void overlay(FILE *out, const cmp_page *pg, const char *title, const char *unit,
                    const double *ya, size_t na, const double *yb, size_t nb, int small)
{
    char la[48], lb[48];
    chart_series s[2];
    chart c = {.title = title,
               .unit = unit,
               .npts = pg->npts,
               .width_s = pg->width_s,
               .small = small,
               .kind = CHART_LINES,
               .series = s,
               .nseries = 2};

    snprintf(la, sizeof(la), "new: run %lld", (long long)pg->a->id);
    snprintf(lb, sizeof(lb), "baseline: run %lld", (long long)pg->b->id);
    s[0] = (chart_series){la, COLOR_NEW, ya, ya != NULL ? na : 0, 0};
    s[1] = (chart_series){lb, COLOR_BASE, yb, yb != NULL ? nb : 0, 1};
    chart_svg(out, &c);
}

static void cmp_write(FILE *out, const void *arg)
{
    const cmp_page *pg = arg;
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
    if (nv[V_WORSE] > 0)
        fprintf(out, "<span class=\"badge st-aborted\">%zu step%s worse</span> ", nv[V_WORSE],
                nv[V_WORSE] > 1 ? "s" : "");
    if (nv[V_BETTER] > 0)
        fprintf(out, "<span class=\"badge st-completed\">%zu step%s better</span> ", nv[V_BETTER],
                nv[V_BETTER] > 1 ? "s" : "");
    if (nv[V_SAME] > 0)
        fprintf(out, "<span class=\"badge\">%zu without significant change</span> ", nv[V_SAME]);
    fputs("</div>\n<nav><a href=\"#runs\">Runs</a><a href=\"#steps\">Steps</a>"
          "<a href=\"#charts\">Charts</a><a href=\"#per-step\">Each step</a></nav>\n"
          "</header>\n<main>\n<div class=\"grid2\" id=\"runs\" style=\"margin-bottom:18px\">\n",
          out);
    run_column(out, a, "new", COLOR_NEW, 0);
    run_column(out, b, "baseline", COLOR_BASE, 1);
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
                html_duration(r->elapsed_us, buf, sizeof(buf)));
    }
    if (pg->note[0] != '\0') {
        fputs("<p class=\"warn\" id=\"load-note\">The runs had different loads: ", out);
        html_esc(out, pg->note);
        fputs(".</p>\n", out);
    }
    html_table(out, pg);

    fputs("<section id=\"charts\">\n<h2>Over time, both runs</h2>\n", out);
    overlay(out, pg, "Throughput: requests per second, all steps", "req/s", a->all.ts.rps, a->npts,
            b->all.ts.rps, b->npts, 0);
    overlay(out, pg, "p95 response time, all steps", "ms", a->all.ts.p95_ms, a->npts,
            b->all.ts.p95_ms, b->npts, 0);
    if (pg->width_s > 1)
        fprintf(out, "<p class=\"note\">Each point covers %u seconds.</p>\n", pg->width_s);
    fputs("</section>\n<section id=\"per-step\">\n<h2>Each step</h2>\n", out);
    for (size_t i = 0; i < pg->nrows; i++) {
        const cmp_row *row = &pg->rows[i];
        fputs("<div class=\"stepbox\">\n<h3><code>", out);
        html_esc(out, row_id(row));
        fputs("</code> ", out);
        html_esc(out, row_label(row));
        fprintf(out, " <span class=\"%s\">%s</span></h3>\n<div class=\"grid2\">\n",
                runverdict_class[row->overall],
                row->overall == V_NA ? na_reason(row) : runverdict_text[row->overall]);
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

/* ---------------------------------------------------------------- command */

/* "10%", "10", "2.5%": a percentage in (0, THRESHOLD_MAX]. -1 if not. */
static double parse_pct(const char *s)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s)
        return -1;
    if (*end == '%')
        end++;
    if (*end != '\0' || !(v > 0) || v > THRESHOLD_MAX)
        return -1;
    return v;
}

int compare_main(int argc, char **argv)
{
    const char *path = NULL, *outp = NULL, *ids[2] = {NULL, NULL};
    int64_t id[2] = {0, 0};
    size_t nids = 0, nrows = 0;
    double thr = COMPARE_THRESHOLD_DEFAULT;
    int fail_on = 0, rc = 3, c;
    db_opts dbo = {0};
    db *d = NULL;
    int open_rc;
    char *name_a = NULL, *name_b = NULL;
    query_run *a = NULL, *b = NULL;
    cmp_row *rows = NULL;
    uint64_t sa, sb;
    unsigned width;
    char err[1024], def[96], note[NOTE_MAX], why[160];

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "-:ho:", compare_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            compare_usage(stdout);
            return 0;
        case 'd':
        case 'o':
        case 'f':
            if (optarg[0] == '\0')
                return cli_usage_err("compare", "%s needs a value", cli_flag(argv, optind, optarg));
            if (c == 'd') {
                path = optarg;
            } else if (c == 'f') {
                thr = parse_pct(optarg);
                if (thr < 0)
                    return cli_usage_err("compare",
                                         "--fail-on-regression: \"%s\" is not a percentage such "
                                         "as 10%%",
                                         optarg);
                fail_on = 1;
            } else {
                outp = optarg;
            }
            break;
        case ':':
            return cli_usage_err("compare", "%s needs a value", cli_flag(argv, optind, NULL));
        case 1:
            if (nids == 2)
                return cli_usage_err("compare", "two runs at most, got a third: %s", optarg);
            ids[nids] = optarg;
            id[nids] = query_parse_id(optarg);
            if (id[nids] <= 0)
                return cli_usage_err("compare", "\"%s\" is not a run id (quern runs lists them)",
                                     optarg);
            nids++;
            break;
        default:
            return cli_usage_err("compare", "unknown option %s", cli_flag(argv, optind, NULL));
        }
    }
    if (optind > 1 && strcmp(argv[optind - 1], "--") == 0)
        return cli_usage_err("compare", "unknown option %s", "--");
    dbo.path = path;
    path = db_opts_path(&dbo);
    if (path == NULL)
        return cli_usage_err("compare", "%s", "--db none: no database to read");
    d = query_open("compare", path, &open_rc);
    if (d == NULL)
        return open_rc;
    /* Best effort: query_run_load judges each run itself when this cannot write. */
    abandon_sweep(d, clock_wall_us(), err, sizeof(err));
    if (nids == 0) {
        if (query_run_find(d, NULL, 0, &id[0], err, sizeof(err)) != 0)
            goto dberr;
        if (id[0] == 0) {
            fprintf(stderr, "quern compare: no run in %s\n", path);
            rc = 2;
            goto out;
        }
    }
    if (query_run_name(d, id[0], &name_a, err, sizeof(err)) != 0)
        goto dberr;
    if (name_a == NULL) {
        fprintf(stderr, "quern compare: no run %s in %s (quern runs lists them)\n", ids[0], path);
        rc = 2;
        goto out;
    }
    if (nids < 2) {
        if (query_run_baseline(d, name_a, id[0], &id[1], err, sizeof(err)) != 0)
            goto dberr;
        if (id[1] == 0) {
            fprintf(stderr,
                    "quern compare: run %lld (\"%s\") has no earlier run of the same name in %s: "
                    "give the baseline run B\n",
                    (long long)id[0], name_a, path);
            rc = 2;
            goto out;
        }
    } else {
        if (query_run_name(d, id[1], &name_b, err, sizeof(err)) != 0)
            goto dberr;
        if (name_b == NULL) {
            fprintf(stderr, "quern compare: no run %s in %s (quern runs lists them)\n", ids[1],
                    path);
            rc = 2;
            goto out;
        }
    }
    /* One width for both, so that their points line up on the charts. */
    if (query_run_seconds(d, id[0], &sa, err, sizeof(err)) != 0 ||
        query_run_seconds(d, id[1], &sb, err, sizeof(err)) != 0)
        goto dberr;
    width = (unsigned)(((sa > sb ? sa : sb) + CHART_POINTS_MAX - 1) / CHART_POINTS_MAX);
    if (width == 0)
        width = 1;
    a = query_run_load(d, id[0], width, NULL, err, sizeof(err));
    if (a == NULL)
        goto dberr;
    b = query_run_load(d, id[1], width, NULL, err, sizeof(err));
    if (b == NULL)
        goto dberr;

    rows = match_steps(a, b, thr, incomplete_why(a, b, why, sizeof(why)), &nrows);
    load_note(a, b, note, sizeof(note));
    print_text(stdout, a, b, rows, nrows, thr, note);
    {
        cmp_page pg = {a, b, rows, nrows, thr, a->npts > b->npts ? a->npts : b->npts, width, note};
        size_t worse = 0, better = 0, same = 0;
        if (outp == NULL) {
            snprintf(def, sizeof(def), "quern-compare-%lld-%lld.html", (long long)a->id,
                     (long long)b->id);
            outp = def;
        }
        if (html_write_file(outp, cmp_write, &pg, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern compare: %s\n", err);
            goto out;
        }
        for (size_t i = 0; i < nrows; i++) {
            worse += rows[i].overall == V_WORSE;
            better += rows[i].overall == V_BETTER;
            same += rows[i].overall == V_SAME;
        }
        printf("\nverdict: %zu step%s worse, %zu better, %zu without significant change", worse,
               worse == 1 ? "" : "s", better, same);
        if (note[0] != '\0' && worse + better > 0)
            printf(" (note: %s)", note);
        if (incomplete_why(a, b, why, sizeof(why)) != NULL)
            printf(" (%s)", why);
        printf("\n");
        printf("comparison written to %s\n", outp);
        rc = 0;
        if (fail_on && worse > 0) {
            printf("regression beyond %g%%:", thr);
            for (size_t i = 0; i < nrows; i++)
                if (rows[i].overall == V_WORSE) {
                    printf(" %s (", row_id(&rows[i]));
                    for (int m = 0, first = 1; m < M_COUNT; m++)
                        if (rows[i].v[m] == V_WORSE) {
                            char dl[32];
                            printf("%s%s %s", first ? "" : ", ", metric_short[m],
                                   fmt_delta(m, rows[i].va[m], rows[i].vb[m], dl, sizeof(dl)));
                            first = 0;
                        }
                    printf(")");
                }
            printf("\n");
            rc = 1;
        }
    }
    goto out;
dberr:
    fprintf(stderr, "quern compare: %s: %s\n", path, err);
    rc = 3;
out:
    xfree(rows);
    query_run_free(a);
    query_run_free(b);
    xfree(name_a);
    xfree(name_b);
    db_close(d);
    return rc;
}

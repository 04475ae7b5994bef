/* kindshtml — the report's errors by kind; see kindshtml.h. */
#include "reports/kindshtml.h"

#include <stdint.h>

#include "reports/chart.h"
#include "reports/html.h"

/* A time in the run, seconds from its start. */
static double since_start(const query_run *r, int64_t ms)
{
    return (double)(ms * 1000 - r->started_us) / 1e6;
}

static void kind_row(FILE *out, const query_run *r, const kindseries_row *k)
{
    char b[64];

    fprintf(out, "<tr><td class=\"n\">%s</td><td>", html_count(k->count, b, sizeof(b)));
    html_esc(out, k->cls);
    fprintf(out, "</td><td class=\"n\">%lld</td><td><code>", (long long)k->code);
    html_esc(out, k->message);
    fprintf(out, "</code></td><td class=\"n\">%.1f s</td><td class=\"n\">%.1f s</td><td>",
            since_start(r, k->first_ms), since_start(r, k->last_ms));
    if (k->url[0] != '\0') {
        fputs("<code>", out);
        html_esc(out, k->url);
        fputs("</code>", out);
    }
    if (k->status > 0)
        fprintf(out, " · status %lld", (long long)k->status);
    if (k->trace_id != NULL) {
        fputs("<br>trace <code>", out);
        html_esc(out, k->trace_id);
        fputs("</code>", out);
    }
    if (k->body[0] != '\0') {
        fputs("<br><code class=\"lbl\">", out);
        html_esc(out, k->body);
        fputs("</code>", out);
    }
    fputs("</td></tr>\n", out);
}

/* The table and the chart of step's rows r->kinds.rows[from..to). */
static void step_kinds(FILE *out, const query_run *r, size_t from, size_t to)
{
    const kindseries_row *k = &r->kinds.rows[from];
    chart_series s[KINDSHTML_CHART_MAX];
    char names[KINDSHTML_CHART_MAX][96];
    size_t ns = 0;
    chart c = {.title = "Errors per second by kind",
               .unit = "errors/s",
               .npts = r->npts,
               .width_s = r->width_s,
               .kind = CHART_STACKED,
               .small = 1,
               .shades = &r->sat,
               .nshades = 1};

    fputs("<h3><code>", out);
    if (k->step >= 0 && (uint64_t)k->step < r->nsteps)
        html_esc(out, r->steps[k->step].test_id);
    else
        fprintf(out, "step %lld", (long long)k->step);
    fputs("</code></h3>\n<table class=\"errors\">\n<thead><tr><th class=\"n\">Count</th>"
          "<th>Class</th><th class=\"n\">Code</th><th>Message</th><th class=\"n\">First</th>"
          "<th class=\"n\">Last</th><th>Example</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = from; i < to; i++) {
        k = &r->kinds.rows[i];
        kind_row(out, r, k);
        if (ns < KINDSHTML_CHART_MAX) {
            snprintf(names[ns], sizeof(names[ns]), "%lld %.80s", (long long)k->code, k->message);
            s[ns] = (chart_series){names[ns], CHART_COLOR(ns), k->ps, r->npts, 0};
            ns++;
        }
    }
    fputs("</tbody>\n</table>\n", out);
    if (r->npts > 0) {
        c.series = s;
        c.nseries = ns;
        fputs("<div class=\"grid2\">\n", out); /* half width, as each step's charts */
        chart_svg(out, &c);
        fputs("</div>\n", out);
    }
}

void kindshtml_section(FILE *out, const query_run *r)
{
    size_t from = 0;

    fputs("<section id=\"kinds\">\n<h2>Errors by kind</h2>\n", out);
    if (r->kinds.n == 0) {
        fputs("<p class=\"same\">No error by kind was recorded (no error, or an older "
              "quern).</p>\n</section>\n",
              out);
        return;
    }
    for (size_t i = 1; i <= r->kinds.n; i++) {
        if (i < r->kinds.n && r->kinds.rows[i].step == r->kinds.rows[from].step)
            continue;
        step_kinds(out, r, from, i);
        from = i;
    }
    fputs("<p class=\"note\">A kind is a class, a code (the HTTP status, the libcurl error "
          "code, 0 for a check or the script) and the message with numbers (N) and ids (ID) "
          "folded; at most 32 kinds a step, the rest in one row per class, "
          "<code>(other kinds)</code>. Times are counted from the start of the run; the "
          "example is the first error of the kind. The chart draws a step's first "
          "8 kinds.</p>\n</section>\n",
          out);
}

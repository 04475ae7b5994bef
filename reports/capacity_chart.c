/* knee — the report's section of a capacity search; see capacity_chart.h. */
#include "reports/capacity_chart.h"

#include <math.h>
#include <string.h>

#include "common/usl.h"
#include "reports/capacity_compare.h"
#include "reports/html.h"

#define CAPACITY_CHART_W 720 /* the SVG's size and the plot's margins, in px */
#define CAPACITY_CHART_H 300
#define CAPACITY_CHART_L 60
#define CAPACITY_CHART_R 60
#define CAPACITY_CHART_T 20
#define CAPACITY_CHART_B 50
#define CAPACITY_CHART_TICKS 4
#define CAPACITY_CHART_TPS_COLOR "#2563eb"
#define CAPACITY_CHART_P95_COLOR "#d97706"
#define CAPACITY_CHART_USL_COLOR "#7c3aed"
#define CAPACITY_CHART_FAIL_COLOR "#b42318"
#define CAPACITY_CHART_CAP_COLOR "#16a34a"
#define CAPACITY_CHART_INJ_COLOR "#fde68a" /* the band of a step the injector limited */

/* A round axis top at or above v (1, 2 or 5 times a power of ten). */
static double round_up(double v)
{
    double p, m;

    if (!(v > 0))
        return 1;
    p = pow(10, floor(log10(v)));
    m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void load_text(const capacity_db_run *c, double load, char *buf, size_t len)
{
    snprintf(buf, len, strcmp(c->unit, "/s") == 0 ? "%g/s" : "%g VUs", load);
}

/* 1 when c is an open-model search whose runs a second and inits were
 * kept (every step: schema 18 on): its throughput is drawn in runs a
 * second, the unit of its load, and its table shows them. */
static int kept_runs(const capacity_db_run *c)
{
    if (strcmp(c->unit, "/s") != 0)
        return 0;
    for (size_t i = 0; i < c->nsteps; i++)
        if (c->steps[i].runs_s < 0 || c->steps[i].inits < 0)
            return 0;
    return 1;
}

static double x_of(size_t i, size_t n)
{
    return CAPACITY_CHART_L +
           ((double)i + 0.5) * (CAPACITY_CHART_W - CAPACITY_CHART_L - CAPACITY_CHART_R) / (double)n;
}

static double y_of(double v, double top)
{
    return CAPACITY_CHART_T +
           (CAPACITY_CHART_H - CAPACITY_CHART_T - CAPACITY_CHART_B) * (1 - v / top);
}

/* One polyline through the steps' values v, with a dot and a title per step when dots. */
static void line(FILE *out, const capacity_db_run *c, const double *v, double top,
                 const char *color, int dashed, int dots, const char *what, const char *unit)
{
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", color,
            dashed ? " stroke-dasharray=\"5 4\"" : "");
    for (size_t i = 0; i < c->nsteps; i++)
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", x_of(i, c->nsteps), y_of(v[i], top));
    fputs("\"/>\n", out);
    for (size_t i = 0; dots && i < c->nsteps; i++) {
        char lb[48];
        load_text(c, c->steps[i].load, lb, sizeof(lb));
        fprintf(out,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%s at %s: %.1f "
                "%s</title></circle>\n",
                x_of(i, c->nsteps), y_of(v[i], top),
                c->steps[i].passed ? color : CAPACITY_CHART_FAIL_COLOR, what, lb, v[i], unit);
    }
}

/* The Universal Scalability Law through a closed search's steps (N its
 * VUs, X the throughput drawn), its values at each step in model: 1 when
 * it fits (common/usl.h). An open search's N, the runs in flight, is in
 * --summary-json only (capacity.usl): the database keeps no run times. */
static int fit_law(const capacity_db_run *c, const double *tps, double *model, usl_fit *f)
{
    double vus[CAPACITY_DB_STEPS_MAX];

    if (strcmp(c->unit, "vus") != 0)
        return 0;
    for (size_t i = 0; i < c->nsteps; i++)
        vus[i] = c->steps[i].load;
    if (usl_fit_points(vus, tps, c->nsteps, f) != 0)
        return 0;
    for (size_t i = 0; i < c->nsteps; i++)
        model[i] = usl_throughput(f, vus[i]);
    return 1;
}

static void svg(FILE *out, const capacity_db_run *c)
{
    double tps[CAPACITY_DB_STEPS_MAX], p95[CAPACITY_DB_STEPS_MAX], offered[CAPACITY_DB_STEPS_MAX];
    double model[CAPACITY_DB_STEPS_MAX], ttop = 0, ptop = 0;
    int open = strcmp(c->unit, "/s") == 0, runs = kept_runs(c), law;
    size_t n = c->nsteps;
    usl_fit uf;

    /* The open model's load is in arrivals a second: its throughput beside
     * it in the same unit, runs a second (a run may send several requests);
     * a search from before they were kept draws requests, and says so. */
    for (size_t i = 0; i < n; i++) {
        tps[i] = runs ? c->steps[i].runs_s : c->steps[i].tps;
        p95[i] = c->steps[i].p95_ms;
        offered[i] = c->steps[i].load;
        ttop = fmax(ttop, fmax(tps[i], open ? offered[i] : 0));
        ptop = fmax(ptop, p95[i]);
    }
    law = fit_law(c, tps, model, &uf);
    for (size_t i = 0; law && i < n; i++)
        ttop = fmax(ttop, model[i]);
    ttop = round_up(ttop * 1.05);
    ptop = round_up(ptop * 1.05);
    fprintf(out,
            "<figure class=\"chart\"><figcaption>Throughput and p95 against the load of each "
            "step (the knee)</figcaption>\n<svg viewBox=\"0 0 %d %d\" width=\"100%%\" "
            "role=\"img\" aria-label=\"throughput and p95 by step load\" "
            "font-size=\"11\">\n",
            CAPACITY_CHART_W, CAPACITY_CHART_H);
    for (int k = 0; k <= CAPACITY_CHART_TICKS; k++) {
        double f = (double)k / CAPACITY_CHART_TICKS, y = y_of(f, 1);
        fprintf(out,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%g</text>"
                "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%g</text>\n",
                CAPACITY_CHART_L, CAPACITY_CHART_W - CAPACITY_CHART_R, y, y, CAPACITY_CHART_L - 6,
                y + 4, CAPACITY_CHART_TPS_COLOR, ttop * f, CAPACITY_CHART_W - CAPACITY_CHART_R + 6,
                y + 4, CAPACITY_CHART_P95_COLOR, ptop * f);
    }
    /* a step whose load quern could not send: its figures are quern's own */
    for (size_t i = 0; i < n; i++)
        if (c->steps[i].injector_saturated) {
            double w = (double)(CAPACITY_CHART_W - CAPACITY_CHART_L - CAPACITY_CHART_R) / (double)n;
            fprintf(out,
                    "<rect class=\"injector\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                    "height=\"%d\" fill=\"%s\" fill-opacity=\"0.6\"><title>injector-limited: ",
                    x_of(i, n) - w / 2, CAPACITY_CHART_T, w,
                    CAPACITY_CHART_H - CAPACITY_CHART_T - CAPACITY_CHART_B,
                    CAPACITY_CHART_INJ_COLOR);
            html_esc(out, c->steps[i].injector);
            fputs("</title></rect>\n", out);
        }
    for (size_t i = 0; i < n; i++) {
        char lb[48];
        load_text(c, c->steps[i].load, lb, sizeof(lb));
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x_of(i, n),
                CAPACITY_CHART_H - CAPACITY_CHART_B + 16, lb);
    }
    fprintf(out,
            "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text><text x=\"%d\" y=\"%d\" "
            "text-anchor=\"end\" fill=\"%s\">p95 ms</text>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">load of the step (%s)</text>\n",
            4, CAPACITY_CHART_T - 6, CAPACITY_CHART_TPS_COLOR, runs ? "runs/s" : "tps",
            CAPACITY_CHART_W - 4, CAPACITY_CHART_T - 6, CAPACITY_CHART_P95_COLOR,
            (CAPACITY_CHART_L + CAPACITY_CHART_W - CAPACITY_CHART_R) / 2, CAPACITY_CHART_H - 8,
            open ? "arrivals a second" : "virtual users");
    if (c->found)
        for (size_t i = 0; i < n; i++)
            if (c->steps[i].load == c->value) {
                double x = x_of(i, n);
                fprintf(out,
                        "<line class=\"capacity\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
                        "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"2 3\"/>"
                        "<text x=\"%.1f\" y=\"%d\" fill=\"%s\">capacity</text>\n",
                        x, x, CAPACITY_CHART_T, CAPACITY_CHART_H - CAPACITY_CHART_B,
                        CAPACITY_CHART_CAP_COLOR, x + 4, CAPACITY_CHART_T + 10,
                        CAPACITY_CHART_CAP_COLOR);
                break;
            }
    if (open)
        line(out, c, offered, ttop, "#9ca3af", 1, 0, "offered", "arrivals/s");
    line(out, c, tps, ttop, CAPACITY_CHART_TPS_COLOR, 0, 1, "throughput",
         runs ? "runs/s" : "requests/s");
    if (law)
        line(out, c, model, ttop, CAPACITY_CHART_USL_COLOR, 1, 0, "USL", "tps");
    line(out, c, p95, ptop, CAPACITY_CHART_P95_COLOR, 0, 1, "p95", "ms");
    fprintf(out,
            "</svg>\n<div class=\"legend\"><span style=\"color:" CAPACITY_CHART_TPS_COLOR
            "\">&#9632; throughput (%s)</span> <span style=\"color:" CAPACITY_CHART_P95_COLOR
            "\">&#9632; p95 (ms)</span>",
            runs   ? "runs a second, as the load"
            : open ? "requests a second"
                   : "tps");
    if (open)
        fputs(" <span style=\"color:#9ca3af\">- - offered load (arrivals a second)</span>", out);
    if (law && isinf(uf.peak_n))
        fprintf(out,
                " <span class=\"usl\" style=\"color:" CAPACITY_CHART_USL_COLOR
                "\">- - the Universal Scalability Law through the steps: contention &#963; %.3f, "
                "coherency &#954; 0, no peak (R&#178; %.2f)</span>",
                uf.sigma, uf.r2);
    else if (law)
        fprintf(out,
                " <span class=\"usl\" style=\"color:" CAPACITY_CHART_USL_COLOR
                "\">- - the Universal Scalability Law through the steps: contention &#963; %.3f, "
                "coherency &#954; %.5f, peak %.1f tps at %.1f VUs (R&#178; %.2f)</span>",
                uf.sigma, uf.kappa, uf.peak_x, uf.peak_n, uf.r2);
    for (size_t i = 0; i < n; i++)
        if (c->steps[i].injector_saturated) {
            fputs(" <span style=\"background:" CAPACITY_CHART_INJ_COLOR
                  "\">&#160;&#160;</span> a step the "
                  "injector limited (its figures are quern's own)",
                  out);
            break;
        }
    fputs(" <span style=\"color:" CAPACITY_CHART_FAIL_COLOR "\">&#9679; failing step</span></div>\n"
          "</figure>\n",
          out);
}

void capacity_chart_section(FILE *out, const capacity_db_run *c)
{
    char cap[48], sb[48];
    const capacity_db_step *f = NULL;
    int known = kept_runs(c);

    for (size_t i = 0; i < c->nsteps && f == NULL; i++)
        if (!c->steps[i].passed)
            f = &c->steps[i];
    fputs("<section id=\"capacity\">\n<h2>Capacity</h2>\n<p class=\"capacity-line\">", out);
    capacity_compare_format(c, cap, sizeof(cap));
    if (c->found)
        fprintf(out, "Capacity: <b>%s</b>, the last step that passed", cap);
    else
        fputs("Capacity: <b>none</b>: even the first step failed", out);
    if (f != NULL) {
        load_text(c, f->load, sb, sizeof(sb));
        fprintf(out, "; the step at %s failed: ", sb);
        html_esc(out, f->failed);
        if (strcmp(c->limited_by, "injector") == 0) {
            fputs(", limited by the injector (", out);
            html_esc(out, f->injector);
            fputs("): a lower bound, not the server's capacity", out);
        }
    } else {
        fputs("; no step failed (the search reached MAX or the run ended first)", out);
    }
    fprintf(out, ". Each step is judged on its own whole seconds after its first %g s.</p>\n",
            (double)c->settle_us / 1e6);
    if (c->nsteps > 0)
        svg(out, c);
    fprintf(out,
            "<table class=\"steps\"><thead><tr><th>step</th><th>load</th>%s<th>tps</th>"
            "<th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>errors</th>%s<th>verdict</th>"
            "</tr></thead><tbody>\n",
            known ? "<th>runs/s</th>" : "",
            known ? "<th title=\"VUs made in the step's judged seconds, their init run "
                    "then; arrivals that waited for one\">inits (waits)</th>"
                  : "");
    for (size_t i = 0; i < c->nsteps; i++) {
        const capacity_db_step *s = &c->steps[i];
        load_text(c, s->load, sb, sizeof(sb));
        fprintf(out, "<tr><td>%zu</td><td>%s</td>", i + 1, sb);
        if (known)
            fprintf(out, "<td>%.1f</td>", s->runs_s);
        fprintf(out, "<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.2f %%</td>", s->tps,
                s->p50_ms, s->p95_ms, s->p99_ms, s->errors_pct);
        if (known)
            fprintf(out, "<td>%lld (%lld)</td>", (long long)s->inits, (long long)s->init_waits);
        fprintf(out, "<td class=\"%s\">%s", s->passed ? "better" : "worse",
                s->passed ? "passed" : "failed: ");
        html_esc(out, s->failed);
        if (s->injector_saturated) {
            fputs(" <span class=\"injector\">[injector-limited: ", out);
            html_esc(out, s->injector);
            fputs("]</span>", out);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n</section>\n", out);
}

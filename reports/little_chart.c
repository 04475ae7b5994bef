/* little_chart — the report's section on Little's law; see little_chart.h. */
#include "reports/little_chart.h"

#include <math.h>
#include <string.h>

#include "common/mem.h"
#include "reports/chart.h"
#include "store/query.h"

void little_chart_section(FILE *out, const little_row *rows, size_t n, const shade *sat)
{
    uint64_t last = n > 0 ? rows[n - 1].second : 0;
    unsigned width = (unsigned)((last + QUERY_POINTS_MAX) / QUERY_POINTS_MAX);
    size_t npts = (size_t)(last / width) + 1, judged = 0, held = 0, nbreaks = 0;
    little_row *b = xcalloc(npts, sizeof(*b));
    double *ny = xcalloc(npts, sizeof(*ny)), *py = xcalloc(npts, sizeof(*py));
    size_t brk_from[LITTLE_CHART_BREAKS_MAX], brk_to[LITTLE_CHART_BREAKS_MAX];
    little_point bp[LITTLE_CHART_BREAKS_MAX];
    int in_break = 0;

    if (width == 0)
        width = 1;
    for (size_t i = 0; i < n; i++) {
        little_row *t = &b[rows[i].second / width];
        t->length_us += rows[i].length_us;
        t->vu_us += rows[i].vu_us;
        t->runs += rows[i].runs;
        t->run_us += rows[i].run_us;
        t->wait_us += rows[i].wait_us;
    }
    for (size_t k = 0; k < npts; k++) {
        little_point p;
        b[k].second = k * width;
        little_judge(&b[k], &p);
        ny[k] = b[k].length_us > 0 ? p.n : NAN;
        py[k] = b[k].length_us > 0 && b[k].runs > 0 ? p.xrz : NAN;
        if (b[k].length_us == 0 || p.holds < 0) {
            in_break = 0;
            continue;
        }
        judged++;
        held += p.holds == 1;
        if (p.holds == 1) {
            in_break = 0;
        } else if (in_break && nbreaks > 0) {
            brk_to[nbreaks - 1] = k;
        } else if (nbreaks < LITTLE_CHART_BREAKS_MAX) {
            brk_from[nbreaks] = brk_to[nbreaks] = k;
            bp[nbreaks++] = p;
            in_break = 1;
        }
    }
    fputs("<section id=\"little\">\n<h2>Little's law</h2>\n", out);
    {
        chart_series s[2] = {{"N", "#2563eb", ny, npts, 0},
                             {"X \xc3\x97 (R + Z)", "#d97706", py, npts, 1}};
        chart c = {.title = "Little's law: N against X \xc3\x97 (R + Z)",
                   .unit = "VUs",
                   .npts = npts,
                   .width_s = width,
                   .kind = CHART_LINES,
                   .series = s,
                   .nseries = 2,
                   .shades = sat,
                   .nshades = sat != NULL};
        chart_svg(out, &c);
    }
    fputs("<p class=\"little-line\">", out);
    if (judged == 0) {
        fputs("No second with runs to judge the law by.", out);
    } else {
        fprintf(out,
                "The law held in %zu of %zu %s (N within %g %% of X \xc3\x97 (R + Z), or %g VU)",
                held, judged, width > 1 ? "points" : "seconds", LITTLE_TOL * 100, LITTLE_ABS_VUS);
        if (nbreaks == 0)
            fputs(": the run was in a steady state throughout.", out);
        else
            fputs("; it breaks at", out);
        for (size_t i = 0; i < nbreaks; i++)
            fprintf(out, "%s %llu\xe2\x80\x93%llu s (N = %.1f, X \xc3\x97 (R + Z) = %.1f)",
                    i ? "," : "", (unsigned long long)(brk_from[i] * width),
                    (unsigned long long)((brk_to[i] + 1) * width), bp[i].n, bp[i].xrz);
        if (nbreaks > 0)
            fputs(". N above X \xc3\x97 (R + Z): runs are piling up, the VUs in the system do not "
                  "complete runs as fast as their number predicts (the server, or the injector "
                  "itself, no longer keeps up; in the open model, arrivals waiting for the pool "
                  "show as late); N below it: runs draining, or a change of load. Around each "
                  "change of load the law breaks for a second or two by nature.",
                  out);
    }
    fputs("</p>\n</section>\n", out);
    xfree(b);
    xfree(ny);
    xfree(py);
}

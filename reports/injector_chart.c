/* injector_chart — the report's section on the injector's own load; see
 * injector_chart.h. */
#include "reports/injector_chart.h"

#include <math.h>

#include "common/mem.h"
#include "reports/chart.h"
#include "store/query.h"

/* Ranges of saturated seconds listed at most; the rest are counted. */
#define INJECTOR_CHART_RANGES_MAX 12

/* "12 of 40 s: 3-5 s, 9 s" : the saturated seconds as ranges. */
static void ranges(FILE *out, const injector_row *rows, size_t n)
{
    size_t nsat = 0, listed = 0, more = 0;

    for (size_t i = 0; i < n; i++)
        nsat += rows[i].saturated > 0;
    fprintf(out,
            "<p class=\"injector-line\">The injector %s: <b>%zu of %zu s</b> with a worker "
            "that did not keep up",
            nsat > 0 ? "saturated" : "kept up", nsat, n);
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        if (rows[i].saturated == 0)
            continue;
        while (j + 1 < n && rows[j + 1].saturated > 0 && rows[j + 1].second == rows[j].second + 1)
            j++;
        if (listed < INJECTOR_CHART_RANGES_MAX) {
            if (j > i)
                fprintf(out, "%s%llu-%llu s", listed ? ", " : ": ",
                        (unsigned long long)rows[i].second, (unsigned long long)rows[j].second);
            else
                fprintf(out, "%s%llu s", listed ? ", " : ": ", (unsigned long long)rows[i].second);
            listed++;
        } else {
            more++;
        }
        i = j;
    }
    if (more > 0)
        fprintf(out, " and %zu more", more);
    fputs(nsat > 0 ? ". Those seconds' figures are quern's own limit, not the server's.</p>\n"
                   : ".</p>\n",
          out);
}

/* One of the section's two half-width charts. */
static void half_chart(FILE *out, const char *title, const char *unit, size_t npts, unsigned width,
                       const chart_series *series, const shade *sat)
{
    chart c = {.title = title,
               .unit = unit,
               .npts = npts,
               .width_s = width,
               .small = 1,
               .series = series,
               .nseries = 1,
               .shades = sat,
               .nshades = sat != NULL};

    chart_svg(out, &c);
}

void injector_chart_section(FILE *out, const injector_row *rows, size_t n, const shade *sat)
{
    uint64_t last;
    unsigned width;
    size_t npts;
    double *cpu, *lag;

    if (n == 0)
        return;
    last = rows[n - 1].second;
    width = (unsigned)((last + QUERY_POINTS_MAX) / QUERY_POINTS_MAX);
    npts = (size_t)(last / width) + 1;
    cpu = xcalloc(npts, sizeof(*cpu));
    lag = xcalloc(npts, sizeof(*lag));
    for (size_t k = 0; k < npts; k++)
        cpu[k] = lag[k] = NAN;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)(rows[i].second / width);
        double c = rows[i].cpu_max_permille / 10.0, l = rows[i].lag_max_us / 1000.0;
        cpu[k] = isnan(cpu[k]) || c > cpu[k] ? c : cpu[k];
        lag[k] = isnan(lag[k]) || l > lag[k] ? l : lag[k];
    }
    fputs("<section id=\"injector\">\n<h2>The injector's own load</h2>\n", out);
    ranges(out, rows, n);
    {
        /* the saturated seconds: the bands every time chart has */
        chart_series cs[1] = {{"busiest worker's CPU", CHART_COLOR(0), cpu, npts, 0}};
        chart_series ls[1] = {{"worst event-loop lag", CHART_COLOR(1), lag, npts, 0}};
        half_chart(out, "Injector CPU (busiest worker, one core = 100 %)", "%", npts, width, cs,
                   sat);
        half_chart(out, "Injector event-loop lag (worst worker)", "ms", npts, width, ls, sat);
    }
    fputs("</section>\n", out);
    xfree(cpu);
    xfree(lag);
}

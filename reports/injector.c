/* injector — the injector's own load per second of a run; see injector.h. */
#include "reports/injector.h"

#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "reports/chart.h"

/* Seconds of one run read at most (a month of seconds). */
#define INJECTOR_ROWS_MAX (31u * 24 * 3600)
/* Ranges of saturated seconds listed at most; the rest are counted. */
#define INJECTOR_RANGES_MAX 12

int injector_write(db *d, int64_t run_id, const injector_row *row, char *err, size_t errlen)
{
    sqlite3 *sq = db_sqlite(d);
    sqlite3_stmt *st = NULL;
    int ok;

    ok = sqlite3_prepare_v3(sq,
                            "INSERT INTO injector_seconds (run_id, second, workers, saturated, "
                            "cpu_max_permille, lag_max_us) VALUES (?, ?, ?, ?, ?, ?) "
                            "ON CONFLICT (run_id, second) DO UPDATE SET "
                            "workers = workers + excluded.workers, "
                            "saturated = saturated + excluded.saturated, "
                            "cpu_max_permille = max(cpu_max_permille, excluded.cpu_max_permille), "
                            "lag_max_us = max(lag_max_us, excluded.lag_max_us)",
                            -1, 0, &st, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)row->second);
        sqlite3_bind_int64(st, 3, row->workers);
        sqlite3_bind_int64(st, 4, row->saturated);
        sqlite3_bind_int64(st, 5, row->cpu_max_permille);
        sqlite3_bind_int64(st, 6, row->lag_max_us);
        ok = sqlite3_step(st) == SQLITE_DONE;
    }
    if (!ok)
        err_set(err, errlen, "the injector's load of second %llu: %s",
                (unsigned long long)row->second, sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

int injector_load(sqlite3 *sq, int64_t run_id, injector_row **rows, size_t *n, char *err,
                  size_t errlen)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc;

    *rows = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(sq,
                           "SELECT second, workers, saturated, cpu_max_permille, lag_max_us "
                           "FROM injector_seconds WHERE run_id = ? ORDER BY second LIMIT ?",
                           -1, &st, NULL) != SQLITE_OK) {
        err_set(err, errlen, "the injector's load: %s", sqlite3_errmsg(sq));
        return -1;
    }
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, INJECTOR_ROWS_MAX);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        injector_row *r;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *rows = xreallocarray(*rows, cap, sizeof(**rows));
        }
        r = &(*rows)[(*n)++];
        r->second = (uint64_t)sqlite3_column_int64(st, 0);
        r->workers = (uint32_t)sqlite3_column_int64(st, 1);
        r->saturated = (uint32_t)sqlite3_column_int64(st, 2);
        r->cpu_max_permille = (uint32_t)sqlite3_column_int64(st, 3);
        r->lag_max_us = (uint32_t)sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        err_set(err, errlen, "the injector's load: %s", sqlite3_errmsg(sq));
        xfree(*rows);
        *rows = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}

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
        if (listed < INJECTOR_RANGES_MAX) {
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

void injector_shade(const injector_row *rows, size_t n, chart_shade *sh)
{
    for (size_t i = 0; i < n; i++) {
        chart_sat f = {.saturated = rows[i].saturated,
                       .workers = rows[i].workers,
                       .cpu_pct = rows[i].cpu_max_permille / 10.0,
                       .lag_ms = rows[i].lag_max_us / 1000.0};
        if (rows[i].saturated > 0)
            chart_shade_add(sh, rows[i].second, rows[i].second + 1, &f);
    }
}

/* One of the section's two half-width charts. */
static void half_chart(FILE *out, const char *title, const char *unit, size_t npts, unsigned width,
                       const chart_series *series, const chart_shade *sat)
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

void injector_section(FILE *out, const injector_row *rows, size_t n, const chart_shade *sat)
{
    uint64_t last;
    unsigned width;
    size_t npts;
    double *cpu, *lag;

    if (n == 0)
        return;
    last = rows[n - 1].second;
    width = (unsigned)((last + CHART_POINTS_MAX) / CHART_POINTS_MAX);
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

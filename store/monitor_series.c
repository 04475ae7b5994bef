/* monitor_series — a run's monitored hosts in chart points; see monitor_series.h. */
#include "store/monitor_series.h"

#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

static char *col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t != NULL ? xstrdup((const char *)t) : NULL;
}

/* A fraction in the database, a percentage on the page. */
static int is_fraction(const char *name)
{
    return strncmp(name, "cpu_", 4) == 0 || strcmp(name, "disk_busy") == 0;
}

static monitor_series_metric *metric_of(monitor_series_host *h, const char *name, size_t npts)
{
    for (size_t i = 0; i < h->nm; i++)
        if (strcmp(h->m[i].name, name) == 0)
            return &h->m[i];
    if (h->nm == MONITOR_SERIES_METRICS_MAX)
        return NULL;
    h->m = xreallocarray(h->m, (h->nm + 1), sizeof(*h->m));
    h->m[h->nm].name = xstrdup(name);
    h->m[h->nm].y = xmalloc((npts > 0 ? npts : 1) * sizeof(double));
    for (size_t p = 0; p < npts; p++)
        h->m[h->nm].y[p] = NAN;
    return &h->m[h->nm++];
}

int monitor_series_load(sqlite3 *sq, int64_t run_id, size_t npts, unsigned width_s,
                        monitor_series *ms, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc;

    memset(ms, 0, sizeof(*ms));
    ms->npts = npts;
    if (width_s == 0)
        width_s = 1;
    if (sqlite3_prepare_v2(sq,
                           "SELECT host_index, host, url, problem FROM monitor_hosts WHERE "
                           "run_id = ? ORDER BY host_index LIMIT ?",
                           -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, MONITOR_SERIES_HOSTS_MAX);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        monitor_series_host *h;
        ms->hosts = xreallocarray(ms->hosts, (ms->nhosts + 1), sizeof(*ms->hosts));
        h = &ms->hosts[ms->nhosts++];
        memset(h, 0, sizeof(*h));
        h->host = col_str(st, 1);
        h->url = col_str(st, 2);
        h->problem = col_str(st, 3);
        if (h->host == NULL)
            h->host = xstrdup("?");
        if (h->url == NULL)
            h->url = xstrdup("");
    }
    if (rc != SQLITE_DONE)
        goto fail;
    sqlite3_finalize(st);
    st = NULL;
    if (ms->nhosts == 0 || npts == 0)
        return 0;
    /* The hosts were read in index order, 0 first: a sample's index is its
     * position, and samples of a host not listed are ignored. */
    if (sqlite3_prepare_v2(sq,
                           "SELECT host_index, metric, second / ?, avg(value) FROM monitor_samples "
                           "WHERE run_id = ? AND second >= 0 AND second < ? GROUP BY 1, 2, 3 "
                           "ORDER BY 1, 2, 3",
                           -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, width_s);
    sqlite3_bind_int64(st, 2, run_id);
    sqlite3_bind_int64(st, 3, (int64_t)npts * width_s);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t hi = sqlite3_column_int64(st, 0), p = sqlite3_column_int64(st, 2);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        monitor_series_metric *m;
        double v = sqlite3_column_double(st, 3);
        if (hi < 0 || (uint64_t)hi >= ms->nhosts || name == NULL || p < 0 || (size_t)p >= npts)
            continue;
        m = metric_of(&ms->hosts[hi], name, npts);
        if (m != NULL)
            m->y[p] = is_fraction(name) ? v * 100.0 : v;
    }
    if (rc != SQLITE_DONE)
        goto fail;
    sqlite3_finalize(st);
    return 0;
fail:
    err_set(err, errlen, "cannot read the monitored hosts: %s", sqlite3_errmsg(sq));
    sqlite3_finalize(st);
    monitor_series_free(ms);
    return -1;
}

const double *monitor_series_get(const monitor_series *ms, size_t h, const char *name)
{
    if (h >= ms->nhosts)
        return NULL;
    for (size_t i = 0; i < ms->hosts[h].nm; i++)
        if (strcmp(ms->hosts[h].m[i].name, name) == 0)
            return ms->hosts[h].m[i].y;
    return NULL;
}

double monitor_series_mean(const double *y, size_t from, size_t to)
{
    double sum = 0;
    size_t n = 0;

    for (size_t p = from; y != NULL && p < to; p++)
        if (!isnan(y[p])) {
            sum += y[p];
            n++;
        }
    return n > 0 ? sum / (double)n : NAN;
}

void monitor_series_free(monitor_series *ms)
{
    for (size_t i = 0; i < ms->nhosts; i++) {
        monitor_series_host *h = &ms->hosts[i];
        for (size_t j = 0; j < h->nm; j++) {
            xfree(h->m[j].name);
            xfree(h->m[j].y);
        }
        xfree(h->m);
        xfree(h->host);
        xfree(h->url);
        xfree(h->problem);
    }
    xfree(ms->hosts);
    memset(ms, 0, sizeof(*ms));
}

/* monitor_series — the system under test's resources as the reports see them: the
 * monitor_hosts and monitor_samples rows of a run (store/schema.sql,
 * migration 6) grouped into the same chart points as the run's load.
 *
 * What it is for: query_run_load (store/query.h) calls monitor_series_load once
 * the run's points are known, so that `quern report` draws each host's
 * figures under the load charts on the same time axis and `quern compare`
 * overlays two runs' CPU. A point's value is the mean of the seconds of the
 * point that have a sample (NAN: none). Fractions (the cpu_* figures and
 * disk_busy, 0..1 in the database) are given in percent.
 *
 * Usage:
 *     monitor_series ms;
 *     monitor_series_load(sq, run_id, npts, width_s, &ms, err, sizeof(err));
 *     const double *cpu = monitor_series_get(&ms, 0, "cpu_busy");   // NULL: none
 *     monitor_series_free(&ms);
 */
#ifndef QUERN_MONITOR_SERIES_H
#define QUERN_MONITOR_SERIES_H

#include <stddef.h>
#include <stdint.h>

struct sqlite3;

/** Most hosts and figures per host read (more are ignored). */
#define MONITOR_SERIES_HOSTS_MAX 64
#define MONITOR_SERIES_METRICS_MAX 64

/** One figure of one host over the run's points. */
typedef struct monitor_series_metric {
    char *name; /**< owned: "cpu_busy", ..., or a --monitor-metric as given */
    double *y;  /**< owned: npts values, NAN where no sample */
} monitor_series_metric;

/** One monitored endpoint. */
typedef struct monitor_series_host {
    char *host;               /**< owned: host:port */
    char *url;                /**< owned: redacted when recorded */
    char *problem;            /**< owned: its first failure, NULL: none */
    monitor_series_metric *m; /**< owned: nm figures, by name */
    size_t nm;
} monitor_series_host;

/** The monitored hosts of a run. */
typedef struct monitor_series {
    monitor_series_host *hosts; /**< owned: nhosts, by index as given */
    size_t nhosts;
    size_t npts; /**< points of every figure */
} monitor_series;

/** Reads run_id's monitored hosts and their figures in npts points of
 *  width_s seconds into ms (emptied first). 0, or -1 with err. */
int monitor_series_load(struct sqlite3 *sq, int64_t run_id, size_t npts, unsigned width_s,
                        monitor_series *ms, char *err, size_t errlen);

/** The figure called name of host h (npts values), NULL when it has none. */
const double *monitor_series_get(const monitor_series *ms, size_t h, const char *name);

/** The mean of a figure's values in points [from, to) (NAN: none there). */
double monitor_series_mean(const double *y, size_t from, size_t to);

/** Frees what ms owns (ms itself not); an empty ms is fine. */
void monitor_series_free(monitor_series *ms);

#endif

/* monitor_db — the system under test's resources in the results database: the
 * write side of the monitor_hosts and monitor_samples tables
 * (store/schema.sql, migration 6).
 *
 * What it is for: the console (console/rundb.c) writes, from its loop,
 * each --monitor endpoint once at Go, its first problem when it has one,
 * and each scrape's figures as they come, one transaction a scrape, with
 * statements prepared once per run. The readers are store/monitor_series.h.
 *
 * Usage:
 *     monitor_db *m = monitor_db_new(d, err, sizeof(err));     // d borrowed, outlives m
 *     monitor_db_host(m, run, 0, "10.0.0.5:9100", "http://10.0.0.5:9100/metrics", err,
 * sizeof(err)); monitor_db_samples(m, run, 0, second, names, values, n, err, sizeof(err));
 *     monitor_db_problem(m, run, 0, "cannot scrape it: ...", err, sizeof(err));
 *     monitor_db_free(m);
 */
#ifndef QUERN_MONITOR_DB_H
#define QUERN_MONITOR_DB_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

/** The prepared statements of one database; opaque. */
typedef struct monitor_db monitor_db;

/** Prepares the statements on d (borrowed). NULL with err. */
monitor_db *monitor_db_new(db *d, char *err, size_t errlen);

/** Records endpoint index of run_id: its host and its URL (the caller
 *  redacts it). 0, or -1 with err. */
int monitor_db_host(monitor_db *m, int64_t run_id, unsigned index, const char *host,
                    const char *url, char *err, size_t errlen);

/** Records the endpoint's problem (the first one: its row keeps it). */
int monitor_db_problem(monitor_db *m, int64_t run_id, unsigned index, const char *problem,
                       char *err, size_t errlen);

/** Records n figures of host index in second (values NAN are skipped; a
 *  second written twice keeps the later values), in one transaction. */
int monitor_db_samples(monitor_db *m, int64_t run_id, unsigned index, int64_t second,
                       const char *const *names, const double *values, size_t n, char *err,
                       size_t errlen);

/** Finalises the statements; NULL is fine. */
void monitor_db_free(monitor_db *m);

#endif

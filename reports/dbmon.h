/* dbmon — the system under test's resources in the results database: the
 * write side of the monitor_hosts and monitor_samples tables
 * (reports/schema.sql, migration 6).
 *
 * What it is for: the console (console/record.c) writes, from its loop,
 * each --monitor endpoint once at Go, its first problem when it has one,
 * and each scrape's figures as they come, one transaction a scrape, with
 * statements prepared once per run. The readers are reports/mseries.h.
 *
 * Usage:
 *     dbmon *m = dbmon_new(d, err, sizeof(err));     // d borrowed, outlives m
 *     dbmon_host(m, run, 0, "10.0.0.5:9100", "http://10.0.0.5:9100/metrics", err, sizeof(err));
 *     dbmon_samples(m, run, 0, second, names, values, n, err, sizeof(err));
 *     dbmon_problem(m, run, 0, "cannot scrape it: ...", err, sizeof(err));
 *     dbmon_free(m);
 */
#ifndef QUERN_DBMON_H
#define QUERN_DBMON_H

#include <stddef.h>
#include <stdint.h>

#include "reports/db.h"

/** The prepared statements of one database; opaque. */
typedef struct dbmon dbmon;

/** Prepares the statements on d (borrowed). NULL with err. */
dbmon *dbmon_new(db *d, char *err, size_t errlen);

/** Records endpoint index of run_id: its host and its URL (the caller
 *  redacts it). 0, or -1 with err. */
int dbmon_host(dbmon *m, int64_t run_id, unsigned index, const char *host, const char *url,
               char *err, size_t errlen);

/** Records the endpoint's problem (the first one: its row keeps it). */
int dbmon_problem(dbmon *m, int64_t run_id, unsigned index, const char *problem, char *err,
                  size_t errlen);

/** Records n figures of host index in second (values NAN are skipped; a
 *  second written twice keeps the later values), in one transaction. */
int dbmon_samples(dbmon *m, int64_t run_id, unsigned index, int64_t second,
                  const char *const *names, const double *values, size_t n, char *err,
                  size_t errlen);

/** Finalises the statements; NULL is fine. */
void dbmon_free(dbmon *m);

#endif

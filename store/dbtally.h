/* dbtally — the script's soft checks and custom metrics in the results
 * database (tables checks and metrics, store/schema.sql): written with
 * the run's totals (db_run_end), read back by the report.
 *
 * Usage: db.c calls dbtally_write inside the end-of-run transaction;
 * dbtally_read(sq, run_id, &out) fills a dbtally for the report; free it
 * with dbtally_free. */
#ifndef QUERN_DBTALLY_H
#define QUERN_DBTALLY_H

#include <stddef.h>
#include <stdint.h>

#include "common/tally.h"

struct sqlite3;

/** One metric's row, as the report shows it. */
typedef struct dbtally_metric {
    char name[TALLY_NAME_MAX];
    char kind[16];                             /**< "counter", "gauge", "trend" */
    double total;                              /**< counter */
    double rate;                               /**< counter, per second */
    int has_value;                             /**< gauge: value, min and max mean something */
    double value;                              /**< gauge: the last set */
    uint64_t count;                            /**< trend */
    double mean, min, p50, p90, p95, p99, max; /**< trend (min, max: gauge too) */
} dbtally_metric;

/** A run's checks and metrics as stored. */
typedef struct dbtally {
    tally_check *checks; /**< owned: nchecks rows, by name */
    size_t nchecks;
    dbtally_metric *metrics; /**< owned: nmetrics rows, by name */
    size_t nmetrics;
} dbtally;

/** Writes t's checks and metrics for run_id (elapsed_s for a counter's rate)
 *  with the caller's transaction open. 0, or -1 with err. */
int dbtally_write(struct sqlite3 *sq, int64_t run_id, const tally *t, double elapsed_s, char *err,
                  size_t errlen);
/** Reads run_id's rows into *out (empty for a run without them, or from an
 *  older quern). 0, or -1 with err (out is then empty). */
int dbtally_read(struct sqlite3 *sq, int64_t run_id, dbtally *out, char *err, size_t errlen);
/** Releases what out owns; a zeroed out is fine. */
void dbtally_free(dbtally *out);

#endif

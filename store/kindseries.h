/* kindseries — a run's errors by kind as the reports see them: the
 * error_kinds rows (the totals, with each kind's example) and, for each,
 * its errors per second over the run's chart points (error_kind_seconds;
 * store/schema.sql, migration 14; common/errkinds.h says what a kind is).
 *
 * What it is for: query_run_load (store/query.h) calls kindseries_load
 * once the run's points are known; the report's "Errors by kind" section
 * (reports/kindshtml.h) draws a table and a chart per step from it.
 *
 * Usage:
 *     kindseries ks;
 *     kindseries_load(sq, run_id, npts, width_s, started_us, &ks, err, sizeof(err));
 *     for (size_t i = 0; i < ks.n; i++) ks.rows[i].count, ks.rows[i].ps[p] ...
 *     kindseries_free(&ks);
 */
#ifndef QUERN_KINDSERIES_H
#define QUERN_KINDSERIES_H

#include <stddef.h>
#include <stdint.h>

struct sqlite3;

/** One kind of one step over the run. */
typedef struct kindseries_row {
    int64_t step;  /**< step index */
    char *cls;     /**< owned: "technical" or "functional" */
    int64_t code;  /**< HTTP status, libcurl error code, or 0 */
    char *message; /**< owned: folded; "(other kinds)" for the rest */
    uint64_t count;
    int64_t first_ms, last_ms; /**< epoch milliseconds */
    char *url, *body;          /**< owned: the example's ("" none) */
    int64_t status;            /**< the example's HTTP status, 0 none */
    char *trace_id;            /**< owned: the example's trace id, NULL none */
    double *ps;                /**< owned: npts values, errors per second in each point */
} kindseries_row;

/** The kinds of a run, by step, then count (largest first). */
typedef struct kindseries {
    kindseries_row *rows; /**< owned: n */
    size_t n;
    size_t npts; /**< values of each row's ps */
} kindseries;

/** Reads the kinds of run id into ks (emptied first); a second's count
 *  goes into point second / width_s (the last point takes the seconds past
 *  npts). A run without totals (its end never written) has its kinds summed
 *  from its seconds, first and last to the second from started_us (epoch
 *  us), without examples. 0, or -1 with err set. */
int kindseries_load(struct sqlite3 *sq, int64_t id, size_t npts, unsigned width_s,
                    int64_t started_us, kindseries *ks, char *err, size_t errlen);
/** Releases what ks owns; ks may be loaded again. */
void kindseries_free(kindseries *ks);

#endif

/* little — Little's law per second of a run: stored, read back and judged.
 *
 * What it is for: in a steady system the VUs in it equal the rate of runs
 * times the time a cycle takes, N = X * (R + Z): N the VUs started and not
 * done (time-averaged over the second; in the open model a VU idle in the
 * pool is not in the system: it waits for an arrival, not for the server),
 * X the runs ended a second, R the mean run time, Z the mean pause between
 * a VU's runs (pacing, think; not the open model's idle time in the pool). Workers measure the sums
 * each second (proto/quern.proto's Interval.vu_us, run_us, wait_us), the console stores them (table
 * little, store/schema.sql) and the report draws N against X * (R + Z) (reports/little_chart.h).
 * Where they part, the system is not in steady state: runs are piling up (the server, or the
 * injector itself, no longer keeps up; in the open model arrivals wait for the pool) or draining.
 *
 * The law holds in a second when |N - X * (R + Z)| <= LITTLE_TOL * N, or
 * within LITTLE_ABS_VUS (a run or two crossing the second's edges).
 *
 * Usage:
 *     little_write(d, run_id, &row, err, sizeof(err));            // each second
 *     little_row *rows; size_t n;
 *     little_load(sq, run_id, &rows, &n, err, sizeof(err));       // xfree(rows)
 *     little_point p; little_judge(&rows[i], &p); p.holds ... */
#ifndef QUERN_LITTLE_H
#define QUERN_LITTLE_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

struct sqlite3;

/** Relative tolerance of the law in one second: 10 %. */
#define LITTLE_TOL 0.10
/** ... or this many VUs, whichever is larger. */
#define LITTLE_ABS_VUS 1.0

/** One second's sums. */
typedef struct little_row {
    uint64_t second;   /**< from the run's start */
    int64_t length_us; /**< the second's length */
    uint64_t vu_us;    /**< VUs in the system, integrated */
    uint64_t runs;     /**< runs ended */
    uint64_t run_us;   /**< their durations, summed */
    uint64_t wait_us;  /**< pauses between runs ended, summed */
} little_row;

/** One second judged. */
typedef struct little_point {
    double n;   /**< VUs in the system */
    double x;   /**< runs a second */
    double r_s; /**< mean run time, seconds (0 without runs) */
    double z_s; /**< mean pause between runs, seconds */
    double xrz; /**< X * (R + Z) */
    int holds;  /**< 1 within the tolerance; 0 broken; -1 no VU nor run: nothing to judge */
} little_point;

/** Records one second (a late part adds to the second's row). 0, or -1 with err. */
int little_write(db *d, int64_t run_id, const little_row *row, char *err, size_t errlen);

/** Reads run run_id's seconds in order into *rows (owned by the caller,
 *  xfree), *n the count (0 and NULL for a run without any). 0, or -1 with err. */
int little_load(struct sqlite3 *sq, int64_t run_id, little_row **rows, size_t *n, char *err,
                size_t errlen);

/** Judges one second. */
void little_judge(const little_row *row, little_point *out);

#endif

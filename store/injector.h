/* injector — the injector's own load per second of a run: stored and read
 * back.
 *
 * What it is for: a load test's figures are the server's only while quern
 * keeps up. Every worker measures its CPU and its event loop's lateness each
 * second (common/selfmon.h) and judges whether it kept up
 * (common/saturation.h); the console stores each second, every worker
 * together (table injector_seconds, store/schema.sql), and the report
 * draws the busiest worker's CPU and the worst loop lag beside the load, the
 * seconds a worker did not keep up marked (reports/injector_chart.h).
 *
 * Usage:
 *     injector_write(d, run_id, &row, err, sizeof(err));           // each second
 *     injector_row *rows; size_t n;
 *     injector_load(sq, run_id, &rows, &n, err, sizeof(err));      // xfree(rows)
 *     injector_shade(rows, n, &sh);        // the bands every time chart shades */
#ifndef QUERN_INJECTOR_H
#define QUERN_INJECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "common/shade.h"
#include "store/db.h"

struct sqlite3;

/** One second, every worker together. */
typedef struct injector_row {
    uint64_t second;           /**< from the run's start */
    uint32_t workers;          /**< workers that reported it */
    uint32_t saturated;        /**< of them, those that did not keep up */
    uint32_t cpu_max_permille; /**< the busiest worker's CPU, 1000 = one core */
    uint32_t lag_max_us;       /**< the worst lateness of a worker's event loop */
} injector_row;

/** Records one second (a late part adds its workers to the second's row).
 *  0, or -1 with err. */
int injector_write(db *d, int64_t run_id, const injector_row *row, char *err, size_t errlen);

/** Reads run run_id's seconds in order into *rows (owned by the caller,
 *  xfree), *n the count (0 and NULL for a run without any). 0, or -1 with err. */
int injector_load(struct sqlite3 *sq, int64_t run_id, injector_row **rows, size_t *n, char *err,
                  size_t errlen);

/** Adds the n seconds' saturated ones (sorted, as injector_load gives them)
 *  to sh as bands, each with its worst figures. */
void injector_shade(const injector_row *rows, size_t n, shade *sh);

#endif

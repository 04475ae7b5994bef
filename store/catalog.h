/* catalog — which runs a results database holds: list them, find the
 * newest, name one, pick a comparison's baseline.
 *
 * What it is for: `quern runs` lists the runs with their whole-run sums
 * (catalog_list), `report` and `compare` pick the run a command line means
 * (catalog_parse_id, catalog_find, catalog_passed) before reading it whole
 * with store/query.h. SQL lives here and in query.c only.
 *
 * Usage:
 *     catalog_row *rows; size_t n;
 *     if (catalog_list(d, NULL, 20, &rows, &n, err, sizeof(err)) == 0) { ...; catalog_free(rows,
 * n); } catalog_find(d, NULL, 0, &id, err, sizeof(err));     // the newest run, 0: none
 */
#ifndef QUERN_CATALOG_H
#define QUERN_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

/** The id of the newest run (name NULL) or of the newest run named name
 *  with an id below before (before 0: no bound), into *id; *id is 0 when
 *  there is none. 0, or -1 with err set. */
int catalog_find(db *d, const char *name, int64_t before, int64_t *id, char *err, size_t errlen);

/** Whether run id is complete into *complete: 0 when it is still running or
 *  was abandoned (its row says "running" or "abandoned"), else 1. 0, or -1
 *  with err set. */
int catalog_complete(db *d, int64_t id, int *complete, char *err, size_t errlen);

/** Parses a run id argument ("12"): > 0, or 0 when it is not one. */
int64_t catalog_parse_id(const char *s);

/** The name of run id into *name (owned by the caller: xfree), or NULL
 *  when there is no such run. 0, or -1 with err set. */
int catalog_name(db *d, int64_t id, char **name, char *err, size_t errlen);

/** The baselines a comparison of run `before` defaults to, newest first:
 *  the complete runs named name before it whose verdict passed and that no
 *  comparison found regressed (catalog_mark_regressed), at most max, into
 *  ids; how many into *n. 0, or -1 with err set. */
int catalog_passed(db *d, const char *name, int64_t before, size_t max, int64_t *ids, size_t *n,
                   char *err, size_t errlen);

/** The newest complete run before `before` (0: any) tagged key (with value,
 *  when not NULL: --tag key=value), into *out (0: none). 0, or -1 with err. */
int catalog_tagged(db *d, const char *key, const char *value, int64_t before, int64_t *out,
                   char *err, size_t errlen);

/** Records that a comparison found run id regressed (why: what was worse):
 *  it is no default baseline from then on. 0, or -1 with err set. */
int catalog_mark_regressed(db *d, int64_t id, const char *why, char *err, size_t errlen);

/** One run as `quern runs` lists it: its row and its sums over every step. */
typedef struct catalog_row {
    int64_t id;
    char *name;         /**< owned */
    char *status;       /**< owned: as stored ("?" when NULL) */
    int64_t started_us; /**< wall clock, epoch microseconds */
    int64_t vus;
    int64_t vus_peak;    /**< the most VUs at a second's end, -1 when not recorded */
    int64_t vu_pool;     /**< the open model's pool, 0 in the closed model */
    int64_t duration_us; /**< measured, or (not ended) the sum of its intervals' lengths */
    uint64_t count;      /**< samples: from step_totals, or the intervals when it did not end */
    uint64_t errors;     /**< technical and functional, counted the same way */
    uint64_t p95_us;     /**< of the merged histograms (0 when count is 0) */
} catalog_row;

/** The newest runs, newest first: those named name (NULL: all), at most
 *  limit (0: all), into *rows (owned: catalog_free) and *n. 0, or -1 with
 *  err set to SQLite's message (nothing is then returned). */
int catalog_list(db *d, const char *name, long limit, catalog_row **rows, size_t *n, char *err,
                 size_t errlen);

/** Releases the n rows of catalog_list; NULL is fine. */
void catalog_free(catalog_row *rows, size_t n);

#endif

/* series — a run's time series: its seconds grouped into chart points.
 *
 * What it is for: the charts of `quern report` and `quern compare` show a
 * run over time; query_run_load (store/query.h) calls series_load to fill
 * r->vus_ts, r->all.ts and each step's ts from the intervals and
 * step_intervals rows. The run's seconds are grouped into points of width_s seconds
 * (1 unless the run is longer than QUERY_POINTS_MAX seconds). A point's
 * counters are the sums of every step_intervals row of its seconds (late
 * rows from agents included), its percentiles come from the merged
 * histograms of those rows (never from averaged percentiles), and its rates
 * divide by the measured length of its intervals. A last point shorter than
 * half its width (the run's final, partial second) is folded into the one
 * before, so that a few samples over a few milliseconds do not show as a
 * spike.
 *
 * Usage (inside query.c, once r's row and steps are read):
 *     series_load(sq, r, nsec, err, sizeof(err));   // sets r->npts, the series
 *     ... series_free(&step->ts);
 */
#ifndef QUERN_SERIES_H
#define QUERN_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "store/query.h"

struct sqlite3;

/** Allocates the n points of each series of s, all NAN. */
void series_init(query_series *s, size_t n);

/** Releases what series_init allocated. */
void series_free(query_series *s);

/** Reads the intervals of run r->id covering nsec seconds into points of
 *  r->width_s seconds: sets r->npts and r->vus_ts, and fills r->all.ts and
 *  the ts of each of r->nsteps steps. 0, or -1 with err set. */
int series_load(struct sqlite3 *sq, query_run *r, uint64_t nsec, char *err, size_t errlen);

#endif

/* capacity_chart — the report's section of a capacity search: throughput and p95
 * against each step's load, the capacity marked.
 *
 * What it is for: a capacity search (quern run --capacity, store/capacity_db.h)
 * holds a staircase of loads; its knee is where throughput stops following
 * the load while response time climbs. The section draws one inline SVG:
 * x is each judged step's load, the left axis throughput (a line; in the
 * open model, the offered load dashed beside it), the right axis p95 (a
 * second line), a vertical line at the capacity, the failing step's points
 * in red; every point has a hover title. Below it, a line names the
 * capacity and why the search stopped, and a table lists each step's
 * figures. It reads no database.
 *
 * Usage:
 *     if (r->capacity != NULL) capacity_chart_section(out, r->capacity);   // in a page */
#ifndef QUERN_CAPACITY_CHART_H
#define QUERN_CAPACITY_CHART_H

#include <stdio.h>

#include "store/capacity_db.h"

/** Writes the section (id "capacity") for c to out. */
void capacity_chart_section(FILE *out, const capacity_db_run *c);

#endif

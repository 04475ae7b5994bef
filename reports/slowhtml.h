/* slowhtml — the report's section of each step's slowest samples.
 *
 * What it is for: a tester who sees a bad p99 wants the requests behind it.
 * The console keeps each step's N slowest samples of the run (--slowest,
 * common/slowest.h, table slowest in store/schema.sql) with their
 * latency, start, VU and, with --traceparent, the trace id the server's
 * traces know them by; this draws them as one table per step.
 *
 * Usage: slowhtml_section(out, r) after the errors (r from query_run_load). */
#ifndef QUERN_SLOWHTML_H
#define QUERN_SLOWHTML_H

#include <stdio.h>

#include "store/query.h"

/** Writes the "Slowest samples" section of r (a line saying none were kept
 *  when the run has none). */
void slowhtml_section(FILE *out, const query_run *r);

#endif

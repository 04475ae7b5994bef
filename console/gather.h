/* gather — the console's side of the result files the agents send up
 * (FilePart, see proto/quern.proto and agent/fileup.h).
 *
 * What it is for: --jtl FILE gets one JTL file for the whole run: the header
 * once, written when the run starts, then the lines of every agent appended
 * as their parts arrive (parts hold whole lines). It is opened by
 * common/ofile.h: a regular file reaches its path whole at gather_close (or
 * gather_free, with the lines so far), a FIFO or device is fed as it goes.
 * --grinder-logs DIR gets the Grinder logs of every worker, data_AGENT-N.log
 * and out_AGENT-N.log, each written at the offset its part says. Names come from the network: only
 * "data_*.log" and "out_*.log" without '/' are written, never through a
 * symbolic link.
 *
 * The JTL's grpThreads and allThreads are the run's active VUs, which only
 * the console knows: it merges every agent's seconds (proto/interval_window.h). Each
 * line comes from its worker behind a prefix (WORKERFILES_JTL_PREFIX in
 * proto/workerfiles.h) naming the second the sample was recorded in and the
 * worker's own count then; gather writes the line without it, with the
 * run's count of that second in both columns, which is exact to the
 * second, costs a table lookup per line, and needs nothing sent down to the
 * workers (shipping the run's count to every worker each second would cost
 * a message per worker per second, and would still be a second old). The
 * run's count of a second is the larger of the merged active VUs at its
 * start and at its end (so that the samples of the run's last second, at
 * whose end the VUs have stopped, still count them), and never less than
 * the sample's own worker had active. It is exact while the count holds
 * still within a second, and off by what changed within it otherwise (a
 * ramp-up, or the stop: workers' seconds start within milliseconds of each
 * other, so a worker's last, partial second may be counted with another's
 * full one, and samples recorded as the run stops may see fewer VUs than
 * were running). grpThreads is the same number:
 * seconds are not merged per scenario. A line whose second is not merged
 * yet (an agent that finished while others still run) waits, in a buffer of
 * at most GATHER_HOLD_MAX bytes; a line that finds it full, and every line
 * left at gather_close, is written with what is known then.
 *
 * Usage:
 *     g = gather_new(jtl, dir, err, sizeof(err));   // NULL: cannot create
 *     gather_second(g, second, active_vus, late);   // each merged second
 *     gather_part(g, part, err, sizeof(err));       // for each FilePart
 *     gather_close(g, err, sizeof(err)); gather_free(g); */
#ifndef QUERN_GATHER_H
#define QUERN_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/quern.pb-c.h"

typedef struct gather gather;

/** Bytes of JTL lines held at most while their second is not merged. */
#define GATHER_HOLD_MAX (8u << 20)
/** Seconds of a run whose active VUs are kept (beyond: the workers' own). */
#define GATHER_SECONDS_MAX (1u << 22)

/** Creates jtl_path (with the JTL header) and the directory grinder_dir,
 *  either may be NULL. NULL with err set if one cannot be created. */
gather *gather_new(const char *jtl_path, const char *grinder_dir, char *err, size_t errlen);
/** gather_new; traced: the run sends traceparent headers, the JTL header
 *  names the workers' last column (WORKERFILES_JTL_TRACE_COLUMN). */
gather *gather_new_traced(const char *jtl_path, const char *grinder_dir, int traced, char *err,
                          size_t errlen);
/** The console merged second (late: a late sender's part of a second handed
 *  on before) and the run had active_vus active at its end: the held JTL
 *  lines of that second are written. g may be NULL (no --jtl: nothing to
 *  do); a write error is kept for gather_close. */
void gather_second(gather *g, uint64_t second, uint32_t active_vus, int late);
/** Writes one part. 0, or -1 with err set (a refused name, a write error). */
int gather_part(gather *g, const Quern__FilePart *fp, char *err, size_t errlen);
/** JTL lines written so far (parts' newlines). */
uint64_t gather_jtl_lines(const gather *g);
/** Writes the lines still held and closes the JTL file; 0, or -1 with err
 *  set if a write failed. */
int gather_close(gather *g, char *err, size_t errlen);
/** Releases it (closing what is open); NULL is fine. */
void gather_free(gather *g);

#endif

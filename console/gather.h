/* gather — the console's side of the result files the agents send up
 * (FilePart, see proto/quern.proto and agent/fileup.h).
 *
 * What it is for: --jtl FILE gets one JTL file for the whole run: the header
 * once, written when the run starts, then the lines of every agent appended
 * as their parts arrive (parts hold whole lines). --grinder-logs DIR gets the
 * Grinder logs of every worker, data_AGENT-N.log and out_AGENT-N.log, each
 * written at the offset its part says. Names come from the network: only
 * "data_*.log" and "out_*.log" without '/' are written, never through a
 * symbolic link.
 *
 * Usage:
 *     g = gather_new(jtl, dir, err, sizeof(err));   // NULL: cannot create
 *     gather_part(g, part, err, sizeof(err));       // for each FilePart
 *     gather_close(g, err, sizeof(err)); gather_free(g); */
#ifndef QUERN_GATHER_H
#define QUERN_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/quern.pb-c.h"

typedef struct gather gather;

/** Creates jtl_path (with the JTL header) and the directory grinder_dir,
 *  either may be NULL. NULL with err set if one cannot be created. */
gather *gather_new(const char *jtl_path, const char *grinder_dir, char *err, size_t errlen);
/** Writes one part. 0, or -1 with err set (a refused name, a write error). */
int gather_part(gather *g, const Quern__FilePart *fp, char *err, size_t errlen);
/** JTL lines written so far (parts' newlines). */
uint64_t gather_jtl_lines(const gather *g);
/** Closes the JTL file; 0, or -1 with err set if a write failed. */
int gather_close(gather *g, char *err, size_t errlen);
/** Releases it (closing what is open); NULL is fine. */
void gather_free(gather *g);

#endif

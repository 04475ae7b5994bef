/* rundb — the run in the results database (store/db.h): its row at Go,
 * a row per merged second, the agents, the thresholds' verdicts, its end.
 *
 * What it is for: a failed write must neither stop the run nor pass
 * silently. rundb_failed says so once, ends the run degraded and stops
 * recording its progress (rundb_db then returns NULL), but keeps the
 * database open so that rundb_end still closes the run's row with its
 * status and the reason: a run never stays "running" in `quern runs`. */
#ifndef QUERN_RUNDB_H
#define QUERN_RUNDB_H

#include <stddef.h>
#include <stdint.h>

#include "console/monitor.h"
#include "console/thresh.h"
#include "proto/interval_sum.h"
#include "store/db.h"

struct run;

/** Opens the database of --db (none: not recording). 0 ok; -1 with err. */
int rundb_open(struct run *r, char *err, size_t errlen);
/** A write failed with err: said once, the run ends degraded. */
void rundb_failed(struct run *r, const char *err);
/** The database to write the run's progress to: NULL when not recording
 *  or after a failed write. */
db *rundb_db(const struct run *r);
/** Records the run's start (at Go: the steps are known by then). */
void rundb_begin(struct run *r);
/** Writes (or updates) a row per agent of the run. */
void rundb_agents(struct run *r);
/** A steer of the running load (console/steer.h) goes to table steers. */
void rundb_steer(struct run *r, unsigned seq, int64_t at_us, const char *kind, double value,
                 int has_value);
/** Pause seq ended at end_us from Go. */
void rundb_steer_end(struct run *r, unsigned seq, int64_t end_us);
/** Records one merged second. */
void rundb_second(struct run *r, uint64_t second, const interval_sum *sum);
/** Records the --monitor endpoints of the run (at Go, after rundb_begin). */
void rundb_monitor_hosts(struct run *r);
/** Records what the monitor handed the loop: a scrape's figures, or an
 *  endpoint's first problem (which is also logged, once). */
void rundb_monitor_item(struct run *r, const monitor_item *it);
/** Records the verdicts rs of the run's thresholds. */
void rundb_thresholds(struct run *r, const thresh_result *rs);
/** Closes the run's row: the agents, the status (*status may become
 *  "degraded" when the database failed during the run), its end and totals. */
void rundb_end(struct run *r, const char **status);
/** Records the run's verdict (a failure is logged, not fatal). */
void rundb_verdict(struct run *r, int passed, const char *why);
/** Records the VUs the run had (db_run_vus): the peak, and the open model's
 *  pool (0: closed model). */
void rundb_vus(struct run *r, uint32_t vus_peak, uint32_t vu_pool);
/** Records Little's law's sums of one merged second (a late part adds to it). */
void rundb_little(struct run *r, uint64_t second, const interval_sum *sum);
/** Records the injector's own load of one merged second, every worker
 *  together (store/injector.h; a late part adds its workers). */
void rundb_injector(struct run *r, uint64_t second, const interval_sum *sum);
/** Records the --capacity search (r->cap): its result and judged steps. */
void rundb_capacity(struct run *r);

#endif

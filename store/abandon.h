/* abandon — telling a run whose console went away from a run in progress.
 *
 * What it is for: a console writes its run's row as "running" when load
 * starts and its final status at the end. A console killed, crashed, or
 * unable to write (a full disk) leaves the row "running" for ever, which the
 * results views would then show as a real run in progress. db_run_begin
 * records the console's host name and pid, and every interval the time of
 * the write (runs.updated_us); a "running" row is abandoned when
 *   - its console ran on this host and its pid is gone, or
 *   - it was not written for more than ABANDON_STALE_US (a live console
 *     writes each second).
 * A row from an older quern (no host, pid nor update time) is judged by the
 * end of its last recorded second.
 *
 * Usage (by `quern runs`, `quern report` and `quern compare`, before they
 * read):
 *     abandon_sweep(d, clock_wall_us(), err, sizeof(err));  // writes back
 *     ...
 *     if (abandon_run(d, id, clock_wall_us(), why, sizeof(why)) == 1) ...
 * abandon_sweep marks the abandoned rows "abandoned" (status_reason says
 * why) where the database can be written; abandon_run judges one row
 * without writing, for a database that could not be written. A console
 * still alive that writes again sets its row back to "running"
 * (db_interval). */
#ifndef QUERN_ABANDON_H
#define QUERN_ABANDON_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

/** A "running" row not written for longer than this (microseconds) is
 *  abandoned, whatever its pid. */
#define ABANDON_STALE_US (30 * 1000000LL)

/** What is known of the console of a "running" row. All borrowed. */
typedef struct abandon_info {
    const char *host; /**< borrowed: console_host; NULL when not recorded */
    int64_t pid;      /**< console_pid; 0 when not recorded */
    int64_t last_us;  /**< updated_us, else the end of its last second, else its start */
} abandon_info;

/** 1 when a "running" row with what ai says has lost its console at now_us
 *  (why set to the reason: "its console (pid 123 on host h) is gone", "not
 *  written for 5 min 03 s"), else 0. */
int abandon_judge(const abandon_info *ai, int64_t now_us, char *why, size_t whylen);

/** Judges run id at now_us without writing: 1 abandoned (why set), 0 not
 *  (not running, or its console is alive), -1 with why set when the
 *  database cannot be read. */
int abandon_run(db *d, int64_t id, int64_t now_us, char *why, size_t whylen);

/** Marks every abandoned "running" row of d "abandoned", with the reason in
 *  status_reason, in one transaction. A database that cannot be written
 *  (read-only, locked for longer than the busy timeout) is left as it is:
 *  returns the number of rows marked (0 when none or when it could not
 *  write; err then says why), or -1 with err set when it cannot be read. */
int abandon_sweep(db *d, int64_t now_us, char *err, size_t errlen);

#endif

/* profile_compare — two runs' server profiles compared, for `quern compare`.
 *
 * What it is for: a run slower than its baseline is a regression; the
 * profile (quern run --profile, store/profile_db.h) says where in the server
 * it came from. For each target both runs profiled, over each run's whole
 * profile: the function whose own share of the on-CPU samples grew most,
 * when it grew by PROFILE_COMPARE_MIN_POINTS or more, and the threads' lock
 * waits (common/profdiag.h) when they grew by as much; else that nothing
 * grew. One line a target, beside the steps' verdicts.
 *
 * Usage:
 *     char line[512];
 *     int n = profile_compare_lines(d, new_id, base_id, line, sizeof(line), err, sizeof(err));
 *     if (n > 0) puts(line);    // "profile comm:srv: find_item 83.0 % of the on-CPU samples, up
 * from 12.5 %"
 */
#ifndef QUERN_PROFILE_COMPARE_H
#define QUERN_PROFILE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"

/** Points of share a function must gain to be named. */
#define PROFILE_COMPARE_MIN_POINTS 5.0

/** The lines comparing run a's profiles with run b's, '\n'-separated, into
 *  buf: how many targets both profiled (0: none, buf ""), or -1 with err. */
int profile_compare_lines(db *d, int64_t a, int64_t b, char *buf, size_t len, char *err,
                          size_t errlen);

#endif

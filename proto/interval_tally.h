/* interval_tally — a script's checks and custom metrics (common/tally.h) in an
 * Interval message (Interval.checks, Interval.metrics).
 *
 * What it is for: a worker puts its tally of the second into its Interval
 * (interval_tally_msg_set); an agent and the console add each Interval's into the
 * sum of its second (interval_tally_add_msg: interval_sum does it), and the agent puts the
 * sum into the Interval it sends up. Only what has something to say travels:
 * a check that ran, a counter or trend observed, a gauge once set.
 *
 * A receiver checks every name (printable, bounded; a metric's as
 * tally_name_ok), kind, number (finite) and histogram: a message that fails
 * is the sender's bug (the interval is dropped). Names beyond the tally's
 * bounds are dropped quietly: a sender keeps the same bounds. */
#ifndef QUERN_INTERVAL_TALLY_H
#define QUERN_INTERVAL_TALLY_H

#include <stddef.h>

#include "common/tally.h"
#include "proto/quern.pb-c.h"

/** 1 when name may name a check: 1 to TALLY_NAME_MAX - 1 bytes of UTF-8
 *  without a control character (it is shown on terminals, in the summary's
 *  JSON and in reports). */
int interval_tally_check_name_ok(const char *name);
/** Sets m's checks and metrics from t (borrowed; copied into m, which owns
 *  them: interval_tally_msg_clear, or interval_sum_msg_free, releases them). */
void interval_tally_msg_set(Quern__Interval *m, const tally *t);
/** Releases m's checks and metrics. */
void interval_tally_msg_clear(Quern__Interval *m);
/** Adds m's checks and metrics into t, the sum of one second. Returns 0, or
 *  -1 with err when one is malformed (t may hold part of it). */
int interval_tally_add_msg(tally *t, const Quern__Interval *m, char *err, size_t errlen);

#endif

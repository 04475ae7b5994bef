/* selfload — the console's own load: its CPU and event-loop lag each second,
 * judged by the rule a worker's seconds are (common/saturation.h).
 *
 * What it is for: the console merges what a thousand agents send and serves
 * the live table, the metrics and the web page from one loop. A console that
 * falls behind hands seconds on late or not at all; the requests were timed
 * by the workers all the same, so a saturated console is a warning in the
 * verdict, not a reason to call the run inconclusive (console/finish.c).
 * Its seconds are kept in an injtot of their own (agg.console: one entry,
 * agent "console"), read by the summary, the live line and the metrics.
 *
 * Usage (on the console's loop):
 *     selfload_start(&s, loop, &agg.console);   at Go
 *     ...each second the timer takes, judges and adds one second...
 *     selfload_stop(&s);                         at the end (the partial second is dropped)
 * Cost: selfmon's (a probe every 100 ms, one getrusage a second). A zeroed
 * selfload may be stopped without being started. */
#ifndef QUERN_SELFLOAD_H
#define QUERN_SELFLOAD_H

#include <ev.h>
#include <stdint.h>

#include "common/selfmon.h"
#include "console/injtot.h"

#define SELFLOAD_AGENT "console" /* the entry's agent name in its injtot */

/** The console's monitor. */
typedef struct selfload {
    selfmon mon;     /**< the CPU and loop-lag probe */
    ev_timer second; /**< fires every second from the start */
    injtot *tot;     /**< borrowed: where each judged second goes */
    uint64_t next;   /**< the number of the next second taken (1 = the first after start) */
    int running;     /**< 1 between start and stop */
} selfload;

/** Starts measuring the console on loop, its seconds added to tot. */
void selfload_start(selfload *s, struct ev_loop *loop, injtot *tot);
/** Stops the timers and frees what s holds. */
void selfload_stop(selfload *s);
/** Judges one second's figures with saturation_judge (no start lags: the
 *  console starts no request) and adds it to tot as the entry of agent
 *  SELFLOAD_AGENT, worker 0. Returns the SATURATION_* bits (0: kept up). */
unsigned selfload_add(injtot *tot, uint64_t second, const selfmon_second *m);

#endif

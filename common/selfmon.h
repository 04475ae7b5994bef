/* selfmon — a process measuring itself: its CPU and its event loop's lag.
 *
 * What it is for: quern's figures are the server's only while the worker
 * keeps up. Each second the engine asks selfmon how much CPU the process
 * used (getrusage user + system over wall time: 1000 permille = one core)
 * and how late its event loop ran: a timer due every SELFMON_PROBE_US is
 * checked against its due time when it fires, the lateness recorded in a
 * histogram (merged exactly up to the console, for a run's p99). The engine
 * judges the second with common/saturation.h. The console measures its own
 * loop the same way (console/selfload.h): a console that falls behind
 * merges late, though the workers timed every request.
 *
 * Usage (on the loop's thread):
 *     selfmon_start(&m, loop);               when the run starts
 *     each second: selfmon_take(&m, &s); ...send s...; selfmon_next(&m);
 *     selfmon_stop(&m);                      at the end (frees what it holds)
 * Cost: one timer callback and one clock read every 100 ms, one getrusage a
 * second. A zeroed selfmon may be stopped without being started. */
#ifndef QUERN_SELFMON_H
#define QUERN_SELFMON_H

#include <ev.h>
#include <stdint.h>

#include "common/hist.h"

#define SELFMON_PROBE_US 100000 /* the loop-lag probe's period */

/** The monitor of one worker's loop. */
typedef struct selfmon {
    ev_timer probe;       /**< fires every SELFMON_PROBE_US */
    struct ev_loop *loop; /**< borrowed: the worker's loop */
    int64_t due_us;       /**< monotonic time the probe is due */
    int64_t mark_us;      /**< monotonic time of the last take (or start) */
    uint64_t cpu_mark_us; /**< process CPU time at mark_us */
    uint32_t lag_max_us;  /**< worst lateness since the last take */
    hist *lag;            /**< owned: lateness samples since the last take */
    int running;          /**< 1 between start and stop */
} selfmon;

/** One second's figures; lag is borrowed from the monitor until selfmon_next. */
typedef struct selfmon_second {
    uint32_t cpu_permille;    /**< CPU time over wall time, 1000 = one core; 0 for an
                                   interval shorter than SELFMON_PROBE_US */
    uint32_t loop_lag_max_us; /**< the loop's worst lateness, the pending probe's included */
    const hist *lag;          /**< borrowed: the probe's lateness samples */
} selfmon_second;

/** Starts measuring on loop, from now. */
void selfmon_start(selfmon *m, struct ev_loop *loop);
/** Fills out with the figures since the last take (or the start). */
void selfmon_take(selfmon *m, selfmon_second *out);
/** Starts the next second: the lag samples and the maximum go back to zero. */
void selfmon_next(selfmon *m);
/** Stops the probe and frees what m holds. */
void selfmon_stop(selfmon *m);

/** The process's CPU time (user + system, every thread) in us. */
uint64_t selfmon_cpu_us(void);
/** CPU permille of cpu_us spent over wall_us (0 when wall_us <= 0), capped at
 *  UINT32_MAX. */
uint32_t selfmon_permille(uint64_t cpu_us, int64_t wall_us);

#endif

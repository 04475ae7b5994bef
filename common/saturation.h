/* saturation — when one second of one worker says the injector did not keep up.
 *
 * What it is for: a load test measures the server only while the injector
 * does what was asked; a worker whose CPU is spent or whose event loop runs
 * late starts requests late and queues them inside itself, and the response
 * times then measure quern. Each worker judges each of its seconds with
 * saturation_judge and sends the answer with its statistics; the console
 * counts the saturated seconds and the verdict (console/verdict.h) calls a
 * run with too many of them inconclusive.
 *
 * The rule, a second is saturated when any of these holds:
 *   - SATURATION_CPU: the worker used at least 90 % of a core
 *     (SATURATION_CPU_PERMILLE) and its event loop ran at least 50 ms late
 *     (SATURATION_LAG_US) at worst. CPU alone is not enough: a worker may be
 *     busy and still on time. Lag alone under 500 ms is not enough either: a
 *     short stall (a page fault, a big response parsed) does not change what
 *     was measured. Both together mean work was waiting for the CPU.
 *   - SATURATION_START: the open model's start lag, quern's own delay in
 *     starting its runs, reached 50 ms at p99 of the second. The worker
 *     measures only its own part (worker/engine/arrive.h): how late its timer took
 *     each arrival, and, for one that found a VU ready, until its run
 *     began. The time an arrival waited for a VU is not in it, whether for
 *     a new VU's init (the server's init time: init_waits) or for a VU of a
 *     full pool to come back (the server's response time filled the pool:
 *     late): neither is the worker's limit, and the verdict judges the load
 *     not sent apart.
 *   - SATURATION_BEHIND: at the second's end, the open model's timer had
 *     not yet taken an arrival due at least 200 ms before
 *     (SATURATION_BEHIND_US): the worker fell behind its own schedule,
 *     whatever its pool (a full pool queues the arrivals it takes; it does
 *     not leave them untaken);
 *   - SATURATION_STALL: the event loop ran at least 500 ms late
 *     (SATURATION_STALL_US) whatever the CPU: the worker was not scheduled
 *     (the CPU taken by another process) or held by a script, half a second
 *     in which nothing was sent or timed.
 * A saturated second is clear (saturation_clear) when one of its reasons
 * holds well past its bound: a stall or the timer behind its schedule (each
 * half a second or more already), or CPU with a loop late by twice
 * SATURATION_LAG_US, or a start lag p99 of twice SATURATION_START_US. The
 * others are marginal (a loop 51 ms late once): one marginal second alone
 * never decides a verdict (console/verdict.h).
 * Not counted: the closed model's missed pacing (a run overran its pacing:
 * the server was slow) and requests held back by --max-in-flight (a limit
 * the tester set; the summary reports it on its own line).
 *
 * Usage:
 *     saturation_in in = {.cpu_permille = 950, .loop_lag_max_us = 80000};
 *     unsigned why = saturation_judge(&in);   (0: kept up)
 *     char txt[64]; saturation_why(why, txt, sizeof(txt));
 * Pure: no clock, no state; the figures are the caller's. */
#ifndef QUERN_SATURATION_H
#define QUERN_SATURATION_H

#include <stddef.h>
#include <stdint.h>

#define SATURATION_CPU_PERMILLE 900 /**< 90 % of a core */
#define SATURATION_LAG_US 50000     /**< loop lag that counts with a busy CPU */
#define SATURATION_START_US 50000   /**< start lag p99 that counts with every arrival served */
#define SATURATION_STALL_US 500000  /**< loop lag that counts alone */
#define SATURATION_BEHIND_US 200000 /**< an arrival not taken this long after its time */

/** Bits of saturation_judge's answer. */
enum saturation_why {
    SATURATION_CPU = 1u << 0,    /**< CPU spent and the loop late */
    SATURATION_START = 1u << 1,  /**< arrivals started late with VUs free (open model) */
    SATURATION_STALL = 1u << 2,  /**< the loop stalled half a second */
    SATURATION_BEHIND = 1u << 3, /**< arrivals not taken in time (open model) */
};

/** One worker's figures for one second. */
typedef struct saturation_in {
    uint32_t cpu_permille;     /**< CPU over wall time, 1000 = one core */
    uint32_t loop_lag_max_us;  /**< the loop's worst lateness */
    uint64_t start_lag_p99_us; /**< the open model's own start lags, p99 (0: none) */
    uint64_t behind_us;        /**< how late the oldest arrival not taken yet was at the
                                    second's end (0: none waiting to be taken) */
} saturation_in;

/** The SATURATION_* bits that hold for in; 0 when the worker kept up. */
unsigned saturation_judge(const saturation_in *in);

/** 1 when a second saturated for why (saturation_judge's bits), with these
 *  figures, is clear rather than marginal (see the top). */
int saturation_clear(unsigned why, uint32_t loop_lag_max_us, uint64_t start_lag_p99_us);

/** Writes the reasons in why as words ("CPU and loop lag", "start lag",
 *  "loop stall", "behind schedule", joined by ", ") into buf of len bytes; "" for 0. */
void saturation_why(unsigned why, char *buf, size_t len);

#endif

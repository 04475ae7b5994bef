/* intend — a sample's intended start, and the two latencies measured from it.
 *
 * What it is for: a server that stalls holds back the requests a closed
 * loop would have sent, so a latency timed from each request's actual send
 * hides the stall (coordinated omission). quern times each step twice: the
 * service time, from its actual start, and the response time, from when it
 * was intended to start. A run is intended at its arrival's scheduled time
 * (the open model) or at its pacing slot (the previous run's start plus the
 * pacing); its lag, how much later it really started, is added to its first
 * sample's response time. Later samples of a run are intended when the
 * script asks for them, so their two latencies are equal, as are those of
 * runs that started on time.
 *
 * Usage (times are monotonic microseconds):
 *     v->run_lag_us = intend_lag(due_us, now);     at a run's start
 *     p->lag_us = intend_take(&v->run_lag_us);      at its first sample
 *     resp = intend_response(p->elapsed_us, p->lag_us);
 * Internal to worker/. */
#ifndef QUERN_INTEND_H
#define QUERN_INTEND_H

#include <stdint.h>

/** How late something due at due_us started at start_us: start_us - due_us,
 *  0 when it was on time or had no due time (due_us <= 0). */
int64_t intend_lag(int64_t due_us, int64_t start_us);

/** Returns *lag_us and sets it to 0: only a run's first sample inherits
 *  the run's lag. */
int64_t intend_take(int64_t *lag_us);

/** A sample's response time from its service time (negative counts as 0)
 *  and the lag of its intended start (negative counts as 0), saturating. */
uint64_t intend_response(int64_t service_us, int64_t lag_us);

#endif

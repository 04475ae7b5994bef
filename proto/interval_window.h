/* interval_window — the window of seconds being merged from several senders.
 *
 * An agent merges its workers' Interval messages, the console its agents';
 * both wait, for each second, until every live sender has reported it or a
 * grace has passed, then hand the sum on, oldest second first. Data for a
 * second already handed on (a late sender) is handed on by itself, marked
 * late, so nothing is lost.
 *
 * Usage:
 *     interval_window_init(&w, nsteps, nscens, grace_us, on_second, ud);
 *     on each Interval: interval_window_add(&w, msg, scen_names, alive, err, errlen);
 *     each second:      interval_window_flush(&w, alive, 0);
 *     at the end:       interval_window_flush(&w, 0, 1); interval_window_free(&w);
 * A zeroed interval_window may be freed without being initialised. */
#ifndef QUERN_INTERVAL_WINDOW_H
#define QUERN_INTERVAL_WINDOW_H

#include <stdint.h>

#include "proto/interval_sum.h"

#define INTERVAL_WINDOW_SLOTS 8 /* seconds being merged at once */

/** Receives one merged second; sum is borrowed for the call. */
typedef void (*interval_window_emit_fn)(void *ud, uint64_t second, const interval_sum *sum,
                                        int late);

typedef struct interval_window {
    struct {
        int used;
        int made; /**< 1: sum holds allocations (kept between seconds) */
        uint64_t second;
        int64_t first_us; /**< when its first report came */
        interval_sum sum; /**< owned once made, emptied each time the slot is used */
    } slot[INTERVAL_WINDOW_SLOTS];
    uint64_t flushed; /**< every second below this was handed on */
    size_t nsteps, nscens;
    int64_t grace_us;
    interval_window_emit_fn emit;
    void *ud; /**< borrowed: passed to emit */
} interval_window;

/** Initialises an empty window for messages of nsteps steps and nscens scenarios. */
void interval_window_init(interval_window *w, size_t nsteps, size_t nscens, int64_t grace_us,
                          interval_window_emit_fn emit, void *ud);
/** Releases what the window holds (without handing it on). */
void interval_window_free(interval_window *w);
/** Adds one sender's Interval. alive is the number of senders still
 *  reporting. Returns 0, or -1 with err when the message is malformed (the
 *  sender is broken: drop it). */
int interval_window_add(interval_window *w, const Quern__Interval *m, const char *const *scen_names,
                        unsigned alive, char *err, size_t errlen);
/** Hands on, oldest first, each second every live sender reported or that
 *  waited past the grace (and every older one); all of them when force. */
void interval_window_flush(interval_window *w, unsigned alive, int force);

#endif

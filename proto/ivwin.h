/* ivwin — the window of seconds being merged from several senders.
 *
 * An agent merges its workers' Interval messages, the console its agents';
 * both wait, for each second, until every live sender has reported it or a
 * grace has passed, then hand the sum on, oldest second first. Data for a
 * second already handed on (a late sender) is handed on by itself, marked
 * late, so nothing is lost.
 *
 * Usage:
 *     ivwin_init(&w, nsteps, nscens, grace_us, on_second, ud);
 *     on each Interval: ivwin_add(&w, msg, scen_names, alive, err, errlen);
 *     each second:      ivwin_flush(&w, alive, 0);
 *     at the end:       ivwin_flush(&w, 0, 1); ivwin_free(&w);
 * A zeroed ivwin may be freed without being initialised. */
#ifndef QUERN_IVWIN_H
#define QUERN_IVWIN_H

#include <stdint.h>

#include "proto/ivsum.h"

#define IVWIN_SLOTS 8 /* seconds being merged at once */

/** Receives one merged second; sum is borrowed for the call. */
typedef void (*ivwin_emit_fn)(void *ud, uint64_t second, const ivsum *sum, int late);

typedef struct ivwin {
    struct {
        int used;
        int made; /**< 1: sum holds allocations (kept between seconds) */
        uint64_t second;
        int64_t first_us; /**< when its first report came */
        ivsum sum;        /**< owned once made, emptied each time the slot is used */
    } slot[IVWIN_SLOTS];
    uint64_t flushed; /**< every second below this was handed on */
    size_t nsteps, nscens;
    int64_t grace_us;
    ivwin_emit_fn emit;
    void *ud; /**< borrowed: passed to emit */
} ivwin;

/** Initialises an empty window for messages of nsteps steps and nscens scenarios. */
void ivwin_init(ivwin *w, size_t nsteps, size_t nscens, int64_t grace_us, ivwin_emit_fn emit,
                void *ud);
/** Releases what the window holds (without handing it on). */
void ivwin_free(ivwin *w);
/** Adds one sender's Interval. alive is the number of senders still
 *  reporting. Returns 0, or -1 with err when the message is malformed (the
 *  sender is broken: drop it). */
int ivwin_add(ivwin *w, const Quern__Interval *m, const char *const *scen_names, unsigned alive,
              char *err, size_t errlen);
/** Hands on, oldest first, each second every live sender reported or that
 *  waited past the grace (and every older one); all of them when force. */
void ivwin_flush(ivwin *w, unsigned alive, int force);

#endif

/* inflight — a bound on the requests a worker's VUs hold at once
 * (--max-in-flight).
 *
 * Each request in flight holds a libcurl easy handle and its buffers, about
 * 9 KB in libcurl 7.88, which no connection setting makes smaller. When the
 * injector or the server cannot keep up, every VU ends up waiting for a
 * response at once, and a worker of 12,500 VUs holds 12,500 of them. With a
 * bound, a VU that needs a handle while the worker holds its share of them
 * waits in a queue, first come first served, and takes the next one that is
 * given back. Its connection, its cookies and its request stay its own: only
 * the moment the request leaves changes.
 *
 * The wait is the injector's, not the server's: it goes into the sample's
 * lag (vu.h: response time counts it, service time does not), and the
 * interval counts the requests held back and their waits, which the console
 * reports. A page's resources, a batch's requests (batch.h) and a VU that
 * already holds a handle are not held back: a VU never waits while holding
 * one, so the queue always moves.
 *
 * Internal to worker/. */
#ifndef QUERN_INFLIGHT_H
#define QUERN_INFLIGHT_H

#include <stdint.h>

struct engine;
struct vu;

/** The bound of a worker playing vu_count of vus_total VUs, when the run
 *  allows max_total requests in flight at once (0: no bound): its share,
 *  rounded up, at least 1. */
uint32_t inflight_share(uint32_t max_total, uint32_t vu_count, uint32_t vus_total);

/** Whether v, about to send a request, must wait for a handle first. If
 *  so, it is queued (v->wait = VU_SLOT) and must yield; the engine resumes
 *  it with a handle lent (v->xh set), and inflight_took then accounts the wait. */
int inflight_wait(struct vu *v);

/** A handle came back to the pool: lends handles to the VUs queued while
 *  the bound allows. Their resumption happens on the loop's next turn, never
 *  inside the caller. */
void inflight_given_back(struct engine *e);

/** v was resumed with its handle: the wait goes into its pending sample's
 *  lag (when the request is timed) and into the interval's counts. */
void inflight_took(struct vu *v);

#endif

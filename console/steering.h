/* steering — --control's commands carried out on the run's loop.
 *
 * What it is for: the endpoint (console/serve/ctlsrv.h) takes a command on its
 * HTTP thread and queues it; the loop hands it here, where the run is
 * steered: a Steer to every agent (each passes it to its workers,
 * worker/steer.h), a row in the database's steers table, a line in the
 * log; a stop ends the run as SIGTERM does. A pause's time is left out of
 * the run's duration and rates (steering_paused_us). Past the planned end,
 * or once the run is stopping, a command is logged and nothing is steered.
 *
 * Usage:
 *     steering_attach(r);            // once r->loop exists (no --control: nothing)
 *     steering_running(r, 1);        // at Go; 0 at the end (a pause under way ends)
 *     steering_paused_us(&r->steer, now), steering_vus_asked(...), steering_is_paused(...)
 * Loop thread only. */
#ifndef QUERN_STEERING_H
#define QUERN_STEERING_H

#include <stdint.h>

struct run;

/** What the commands carried out so far left. Zeroed: nothing steered. */
typedef struct steering {
    unsigned seq;          /**< steers sent */
    unsigned pause_seq;    /**< the pause under way's seq */
    int64_t pause_from_us; /**< monotonic, 0: not paused */
    int64_t paused_us;     /**< pauses ended, summed */
    uint32_t vus_asked;    /**< the last vus N carried out, 0: none */
} steering;

/** Has r->ctl's commands carried out on r->loop (r->ctl NULL: nothing). */
void steering_attach(struct run *r);

/** The run is under way (1, at Go) or over (0, at the stop or the end; a
 *  pause under way ends there): r->ctl takes commands only while it is. */
void steering_running(struct run *r, int on);

/** Microseconds the run was paused so far, the pause under way included
 *  (monotonic now). */
int64_t steering_paused_us(const steering *s, int64_t now);

/** The VUs asked for: the last vus N carried out, else planned (the
 *  run's --vus). */
uint32_t steering_vus_asked(const steering *s, uint32_t planned);

/** 1 while paused. */
int steering_is_paused(const steering *s);

#endif

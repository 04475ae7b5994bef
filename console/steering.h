/* steering — --control's commands carried out on the run's loop.
 *
 * What it is for: the endpoint (console/serve/ctlsrv.h) takes a command on its
 * HTTP thread and queues it; the loop hands it to the run's control
 * (console/control.h), which has it carried out here: a Steer to every
 * agent (each passes it to its workers, worker/engine/steer.h), a row in the
 * database's steers table, a line in the log; a stop is handed back
 * (STEERING_STOP), and the control ends the run as SIGTERM does. A pause's
 * time is left out of the run's duration and rates (steering_paused_us).
 * Past the planned end, or once the run is stopping, a command is logged
 * and nothing is steered. Steering sees the run through the steering_run
 * its control fills for each call (control_steering_view), and calls only
 * the agents (agents_send_all) and the database (rundb_steer).
 *
 * Usage:
 *     control_steering_view(r, &v);
 *     if (steering_carry(&v, cmd) == STEERING_STOP) ... stop the run ...
 *     steering_running(&v, 1);       // at Go; 0 at the end (a pause under way ends)
 *     steering_paused_us(&r->steer, now), steering_vus_asked(...), steering_is_paused(...)
 * Loop thread only. */
#ifndef QUERN_STEERING_H
#define QUERN_STEERING_H

#include <stdint.h>

#include "console/serve/ctlsrv.h"

struct run;

/** What the commands carried out so far left. Zeroed: nothing steered. */
typedef struct steering {
    unsigned seq;          /**< steers sent */
    unsigned pause_seq;    /**< the pause under way's seq */
    int64_t pause_from_us; /**< monotonic, 0: not paused */
    int64_t paused_us;     /**< pauses ended, summed */
    uint32_t vus_asked;    /**< the last vus N carried out, 0: none */
} steering;

/** The run as steering sees it, borrowed from the run for one call. */
typedef struct steering_run {
    steering *s;        /**< borrowed: what the commands carried out left */
    ctlsrv *ctl;        /**< borrowed: the --control endpoint, NULL without */
    struct run *r;      /**< borrowed: only handed on to agents_send_all and rundb_steer */
    uint64_t run_id;    /**< the run's id, on every Steer */
    int64_t go_us;      /**< Go, monotonic: a command's time counts from it */
    int64_t planned_us; /**< the planned length (--duration), 0: none */
    int under_way;      /**< 1 from Go to the end of the load */
    int stopping;       /**< a Stop was sent */
} steering_run;

/** What the run's control does after a command. */
enum steering_next {
    STEERING_GO_ON, /**< nothing more */
    STEERING_STOP,  /**< `quern ctl stop`: stop the run as SIGTERM does */
};

/** Carries out c on the run of v (nothing unless v->under_way). */
enum steering_next steering_carry(const steering_run *v, const ctlsrv_cmd *c);

/** The run is under way (1, at Go) or over (0, at the stop or the end; a
 *  pause under way ends there): v->ctl takes commands only while it is. */
void steering_running(const steering_run *v, int on);

/** Microseconds the run was paused so far, the pause under way included
 *  (monotonic now). */
int64_t steering_paused_us(const steering *s, int64_t now);

/** The VUs asked for: the last vus N carried out, else planned (the
 *  run's --vus). */
uint32_t steering_vus_asked(const steering *s, uint32_t planned);

/** 1 while paused. */
int steering_is_paused(const steering *s);

#endif

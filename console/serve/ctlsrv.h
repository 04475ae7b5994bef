/* ctlsrv — `quern run --control HOST:PORT`: the running load steered from
 * outside (quern ctl, the live page): pause, resume, vus N, rate R, stop.
 *
 * What it is for: a tester watching a run moves its load without starting
 * over, as k6's pause, resume and scale. The endpoint is console/serve/hsrv.h's
 * (libmicrohttpd on a thread of its own, its bounds and Host check); its
 * access rule is --metrics's, and more: loopback only unless --token-file,
 * and with --token-file every request must carry the token as
 * "Authorization: Bearer TOKEN", loopback or not (401 otherwise, nothing
 * changed). Only POST: a page of another site cannot send a bearer
 * header without a preflight nobody answers (no CSRF).
 *
 *   POST /pause         every VU held at its next request or sleep
 *   POST /resume
 *   POST /vus?n=N       the closed model: N VUs from now on (1..the ceiling)
 *   POST /rate?r=R      the open model: R arrivals a second ("200/s")
 *   POST /stop          as SIGTERM: the run ends, verdict stopped, exit 1
 *
 * The HTTP thread checks the request against what it knows (the model,
 * the ceiling, whether the run is under way and paused) and answers at
 * once: 200 accepted, 400 a bad argument, 409 not now (not started, over,
 * already paused, the other model), 503 too many at once; an accepted one
 * is queued and the loop, woken by an ev_async, hands it to the function
 * the run attached (console/steering.h: a Steer to every agent, a row in
 * the database's steers table, a line in the log). The endpoint never
 * reads the run: it knows only what ctlsrv_start and ctlsrv_running told it.
 *
 * Usage:
 *     if (ctlsrv_check(&o) != 0) return 2;
 *     ctlsrv *s = ctlsrv_start(&o, vus_max, open, err, sizeof(err)); // NULL: err
 *     ctlsrv_attach(s, loop, carry, arg);  // once the loop exists
 *     ctlsrv_running(s, 1);        // at Go; 0 at the end
 *     ctlsrv_stop(s); */
#ifndef QUERN_CTLSRV_H
#define QUERN_CTLSRV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#include "console/opts.h"

struct ev_loop;

/** A command taken, as the loop carries it out. */
typedef struct ctlsrv_cmd {
    int kind;     /**< Quern__Steer__Kind (proto/quern.proto), or CTLSRV_STOP */
    uint32_t vus; /**< vus N's N */
    double rate;  /**< rate R's R, arrivals a second */
} ctlsrv_cmd;

/** The kind of a stop, which is no Steer: the run ends. */
#define CTLSRV_STOP 100

/** Carries out one command taken (arg: ctlsrv_attach's), on the loop's
 *  thread, in the order they were taken. */
typedef void ctlsrv_carry_fn(void *arg, const ctlsrv_cmd *c);

/** The endpoint; opaque. */
typedef struct ctlsrv ctlsrv;

/** Checks o->control: HOST:PORT, and loopback unless --token-file. 0, or
 *  -1 after one usage line on stderr naming --control. */
int ctlsrv_check(const run_opts *o);

/** The ids a closed-model run that may be steered has (the ceiling of
 *  vus N): --max-vus when given, else 10 x --vus at most 1000, never below
 *  --vus. */
uint32_t ctlsrv_ceiling(const run_opts *o);

/** Binds o->control (reading --token-file's token when given), writes
 *  --control-port-file and serves. vus_max: the ceiling of vus N (0: the
 *  VUs cannot be steered); open: the run has an arrival rate. NULL with err. */
ctlsrv *ctlsrv_start(const run_opts *o, uint32_t vus_max, int open, char *err, size_t errlen);

/** The loop the commands are carried out on, by carry(arg, cmd), once
 *  the loop exists. NULL s is fine. */
void ctlsrv_attach(ctlsrv *s, struct ev_loop *loop, ctlsrv_carry_fn *carry, void *arg);

/** The run is under way (1, at Go) or over (0, at the stop or the end):
 *  commands are taken only while it is. Loop thread; NULL s is fine. */
void ctlsrv_running(ctlsrv *s, int on);

/** Takes the command of path ("/pause", "/vus", ...; its query in c) from
 *  a request already authorised (the live page's, console/serve/web.h) and
 *  answers it as the endpoint does. MHD's thread. */
enum MHD_Result ctlsrv_command(ctlsrv *s, struct MHD_Connection *c, const char *path);

/** Stops serving and frees s (NULL is fine). */
void ctlsrv_stop(ctlsrv *s);

#endif

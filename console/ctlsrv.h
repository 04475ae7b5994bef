/* ctlsrv — `quern run --control HOST:PORT`: the running load steered from
 * outside (quern ctl, the live page): pause, resume, vus N, rate R, stop.
 *
 * What it is for: a tester watching a run moves its load without starting
 * over, as k6's pause, resume and scale. The endpoint is console/hsrv.h's
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
 * is queued and the loop, woken by an ev_async, does it: a Steer to every
 * agent (each passes it to its workers, worker/steer.h), a row in the
 * database's steers table, a line in the log. A pause's time is left out of
 * the run's duration and rates (ctlsrv_paused_us).
 *
 * Usage:
 *     if (ctlsrv_check(&o) != 0) return 2;
 *     ctlsrv *s = ctlsrv_start(&o, vus_max, open, err, sizeof(err)); // NULL: err
 *     ctlsrv_attach(s, r);         // once r->loop exists
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

struct run;

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

/** The loop that carries out the commands (r->loop), once it exists. */
void ctlsrv_attach(ctlsrv *s, struct run *r);

/** The run is under way (1, at Go) or over (0, at the stop or the end; a
 *  pause under way ends there): commands are taken only while it is. Loop
 *  thread. */
void ctlsrv_running(ctlsrv *s, int on);

/** Microseconds the run was paused so far, the pause under way included
 *  (monotonic now); 0 for NULL. Loop thread. */
int64_t ctlsrv_paused_us(const ctlsrv *s, int64_t now);

/** The VUs asked for: the last vus N carried out, else planned (the
 *  run's --vus); NULL: planned. Loop thread. */
uint32_t ctlsrv_vus_asked(const ctlsrv *s, uint32_t planned);

/** 1 while paused (NULL: 0). */
int ctlsrv_is_paused(const ctlsrv *s);

/** Takes the command of path ("/pause", "/vus", ...; its query in c) from
 *  a request already authorised (the live page's, console/web.h) and
 *  answers it as the endpoint does. MHD's thread. */
enum MHD_Result ctlsrv_command(ctlsrv *s, struct MHD_Connection *c, const char *path);

/** Stops serving and frees s (NULL is fine). */
void ctlsrv_stop(ctlsrv *s);

#endif

/* control — the run's course, from the first registered agent to the end:
 * the start barrier, Go and Stop, merging the agents' seconds, the tick and
 * the signals.
 *
 * What it is for: run.c calls control_start once the console listens; from
 * then on the loop drives everything. The phases (run->phase):
 *   PHASE_WAIT   wait for --agents registered agents (--wait; exit 3);
 *   PHASE_START  send each its StartRun (the bundle, its share of the VUs,
 *                interleaved global indices) and wait for every Ready (60 s);
 *                the first error aborts everywhere (exit 2 or 3);
 *   PHASE_RUN    Go to all; each merged second goes to the database, the
 *                totals, the JTL's thread counts and the live line; a
 *                threshold that can no longer pass stops the run with
 *                --abort-on-fail; the run ends when every agent finished or
 *                was lost, or CONTROL_STOP_WAIT_US after a Stop (and the grace) nobody answered;
 *   PHASE_END    ev_break: run.c judges and reports.
 * SIGINT/SIGTERM stops gracefully (VUs finish their request in flight), a
 * second one at once. */
#ifndef QUERN_CONTROL_H
#define QUERN_CONTROL_H

#include "console/agents.h"
#include "console/out.h"
#include "console/steering.h"
#include "console/webfeed.h"

struct run;

#define CONTROL_READY_US 60000000      /**< the start barrier waits this long */
#define CONTROL_MERGE_GRACE_US 2000000 /**< merge a second without a late agent after this */
/* An agent judges its own workers past their time to end: 5 s, then up to
 * 60 s more for one that still sends its seconds (agent/stall.h). The
 * console waits past that, so that a busy worker is not cut by the console
 * before its agent, which sees its progress, would. */
#define CONTROL_FINISH_MARGIN_US 75000000 /**< after the planned end, wait this long at most */
#define CONTROL_STOP_WAIT_US 75000000     /**< after Stop + grace, wait this long at most */

/** Has run->ctl's commands carried out on run->loop (no --control:
 *  nothing): console/steering.h steers, a stop stops the run here. */
void control_attach(struct run *r);
/** Starts the tick and the signal watchers on run->loop, in PHASE_WAIT. */
void control_start(struct run *r);
/** Stops the watchers control_start started (safe when it did not run). */
void control_end(struct run *r);
/** run.stop_signal of a stop asked by `quern ctl stop` (console/serve/ctlsrv.h). */
#define CONTROL_STOP_CTL (-1)

/** Stops the run as SIGINT/SIGTERM do (signum, or CONTROL_STOP_CTL): the
 *  first time gracefully, its verdict stopped when before the planned end;
 *  a second time at once. */
void control_interrupt(struct run *r, int signum);
/** Sends Stop to every agent in the run (immediate: without the grace). */
void control_stop(struct run *r, const char *reason, int immediate);
/** An agent's StepsDef: the first defines the run's steps (and checks the
 *  --threshold scopes against them); the others must match it. */
void control_steps_def(struct run *r, aconn *c, const Quern__StepsDef *sd);
/** An agent's Interval, merged into the second it belongs to. */
void control_interval(struct run *r, aconn *c, const Quern__Interval *m);
/** Merges the seconds every running agent has sent (force: all of them). */
void control_flush(struct run *r, int force);
/** What agents.c hands up of an agent in the run: control_steps_def,
 *  control_interval, control_flush (run_init puts it in run.up). */
extern const agents_up control_up;
/** Fills v with the run as its --out pushes see it (console/out.h),
 *  borrowed from r until r changes. */
void control_out_view(const struct run *r, out_run *v);
/** Fills v with the run as the live page's feed sees it
 *  (console/webfeed.h), borrowed from r until r changes. */
void control_web_view(const struct run *r, webfeed_run *v);
/** Fills v with the run as steering sees it (console/steering.h),
 *  borrowed from r until r changes. */
void control_steering_view(struct run *r, steering_run *v);

#endif

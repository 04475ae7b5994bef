/* probe — the run's profiled targets on this agent: started, their seconds
 * sent up, stopped.
 *
 * What it is for: StartRun.profile names targets (agent/profiler.h) for this
 * agent to profile. A target is profiled only if the agent allows it: its
 * --profile-allow lists it (or "any"), or it is the console's own agent
 * (--same-host), which does what the console's user could do on this host
 * anyway. Each target gets a ProfileStart up (what was found, or why not:
 * a refusal never fails the run); from Go, each second done goes up as a
 * ProfileSecond, from the agent's tick; at the run's end the last ones,
 * before RunFinished.
 *
 * Usage:
 *     probe *p = probe_start(a, sr);      // NULL: nothing to profile
 *     probe_go(p, go_us);                 // the run's second 0
 *     probe_pump(p, a);                   // every tick
 *     probe_finish(p, a); probe_free(p);  // at the run's end
 * Internal to agent/. */
#ifndef QUERN_PROBE_H
#define QUERN_PROBE_H

#include <stdint.h>

#include <stddef.h>

#include "proto/quern.pb-c.h"

struct agent;
typedef struct probe probe;

/** Whether the agent's --profile-allow list (comma-separated targets, or
 *  "any") is well formed: 0, or -1 with err. */
int probe_allow_check(const char *list, char *err, size_t errlen);
/** Starts the targets of sr that a allows, each answered with a ProfileStart:
 *  NULL when sr asks for none. */
probe *probe_start(struct agent *a, const Quern__StartRun *sr);
/** The run's second 0, CLOCK_MONOTONIC us. */
void probe_go(probe *p, int64_t t0_us);
/** Sends the seconds done. */
void probe_pump(probe *p, struct agent *a);
/** Stops the profilers and sends what is left. */
void probe_finish(probe *p, struct agent *a);
/** Frees p; p may be NULL. */
void probe_free(probe *p);

#endif

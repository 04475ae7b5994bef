/* profiler — a target's processes profiled during a run, on a thread of the
 * agent: on-CPU and off-CPU stacks, named, folded by second of the run.
 *
 * What it is for: `quern run --profile comm:NAME|pid:N` (agent/agent_run.c
 * starts it when the console asks and the agent allows it). At the start it
 * finds the target's processes and threads and opens the events
 * (agent/perfev.h), so that a target that cannot be profiled is said at once;
 * then its thread reads the records, names the frames (agent/symtab.h) and
 * sums them into the second of the run they fall in:
 *   - on-CPU: samples by stack (cpu);
 *   - off-CPU: microseconds blocked by the stack the thread blocked in (off),
 *     split over the seconds it spans, a wait still going counted as it goes;
 *     one switch out in a period is sampled (the period adapts to keep
 *     PROFILER_OFF_SAMPLES a second), the others' time shared by weight;
 *   - each thread's time as running, blocked or runnable (preempted, waiting
 *     for a CPU), exactly, from the switches.
 * A second is handed over PROFILER_LATE_US after it ends, its stacks trimmed
 * to the PROFILER_STACKS heaviest of each kind (the rest as "[other]").
 * Nothing of it runs on the agent's loop: profiler_take only moves the
 * seconds done out of a locked queue.
 *
 * Usage:
 *     profiler *p;
 *     if (profiler_start(&p, &o, err, sizeof(err)) != 0) ... err: why, and the fix ...
 *     profiler_origin(p, go_us);               // the run's second 0 (CLOCK_MONOTONIC us)
 *     n = profiler_take(p, &secs);  ... each secs[i] ... profiler_seconds_free(secs, n);
 *     profiler_stop(p);                        // the rest is taken after it
 * Internal to agent/. */
#ifndef QUERN_PROFILER_H
#define QUERN_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#include "common/folded.h"

/** Stacks of each kind a second sends, the heaviest. */
#define PROFILER_STACKS 200
/** A second is complete this long after its end (records of other CPUs). */
#define PROFILER_LATE_US 400000
/** Switch-out samples a second past which one switch in two more is left
 *  unsampled (their blocked time still counted, given to the sampled
 *  stacks by weight). */
#define PROFILER_OFF_SAMPLES 1000
/** At least one switch out in this many is sampled. */
#define PROFILER_PERIOD_MAX 64
/** Most processes a comm: target may have. */
#define PROFILER_PROCS_MAX 256

/** What to profile and how. */
typedef struct profiler_opts {
    const char *target; /**< borrowed: "comm:NAME" or "pid:N" */
    unsigned freq;      /**< on-CPU samples a second of CPU time, 0: 99 */
    int dwarf;          /**< 1: every stack unwound with DWARF, not only off-CPU ones */
    int fp_only;        /**< 1: no stack copied at all, frame pointers only */
} profiler_opts;

/** One second of the run, profiled. */
typedef struct profiler_second {
    uint32_t second;      /**< of the run, from its origin */
    folded cpu;           /**< owned: on-CPU samples by stack */
    folded off;           /**< owned: microseconds blocked by stack */
    uint64_t on_us;       /**< the threads' time running */
    uint64_t off_us;      /**< blocked */
    uint64_t runnable_us; /**< preempted, waiting for a CPU */
    uint32_t threads;     /**< threads seen in it */
    uint64_t lost;        /**< records the kernel dropped */
} profiler_second;

/** What profiler_start found. */
typedef struct profiler_info {
    unsigned procs, threads, cpus;
    unsigned freq;
    int user_only; /**< the kernel's part of the time could not be sampled */
} profiler_info;

typedef struct profiler profiler;

/** Whether a target spec is well formed ("comm:NAME", NAME 1 to 15 bytes
 *  without '/', or "pid:N"): 0, or -1 with err. */
int profiler_parse(const char *target, char *err, size_t errlen);
/** Finds the target and opens its events, then starts the thread: 0 and *out,
 *  or -1 with err (no such process, no permission and its fix). */
int profiler_start(profiler **out, const profiler_opts *o, char *err, size_t errlen);
/** What was found at the start. */
profiler_info profiler_about(const profiler *p);
/** Sets the run's second 0, CLOCK_MONOTONIC us; records before it are left out. */
void profiler_origin(profiler *p, int64_t t0_us);
/** The seconds completed since the last call, into *out (owned by the
 *  caller: profiler_seconds_free): their number. */
size_t profiler_take(profiler *p, profiler_second **out);
/** Frees n seconds. */
void profiler_seconds_free(profiler_second *s, size_t n);
/** Stops the thread and closes the events; every second begun is then
 *  complete, for profiler_take; p stays valid until profiler_free. */
void profiler_stop(profiler *p);
/** Stops p if it runs and frees it; p may be NULL. */
void profiler_free(profiler *p);

#endif

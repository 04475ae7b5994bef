/* profdiag — what a server's profile says limits it: the diagnosis of a
 * capacity search's knee, or of a run, in one sentence; no I/O.
 *
 * What it is for: `quern run --profile` (console/profile.c) hands the
 * profiles of the last step that passed and the first that failed (or of a
 * run's measured part alone), and prints and stores what comes back. The
 * rules, in order, the first that holds:
 *   - lock: the threads spent PROFDIAG_LOCK_MIN or more of their time
 *     blocked in a lock (pthread_mutex_lock, rwlocks, semaphores, glibc's
 *     __lll_lock_wait), and that share grew by PROFDIAG_GROWTH_MIN or more
 *     since the step before, or holds PROFDIAG_LOCK_DOMINANT of it and did
 *     not fall (a lock that saturated before the knee): the function named
 *     is the caller of the lock that waited most;
 *   - cpu: the threads ran, or were ready to run, PROFDIAG_BUSY_MIN or more
 *     of the time of the CPUs they may use, and one function holds PROFDIAG_SELF_MIN or more of the
 * on-CPU samples (its own, not its callees');
 *   - runnable: the threads waited for a CPU PROFDIAG_LOCK_MIN or more of
 *     their time;
 *   - none: nothing dominant, said so with the heaviest figures, so that
 *     noise is never named as a cause.
 * A thread's time is exact (running, blocked, runnable, from the switches);
 * "their time" is their time at work: the waits for work (a stack whose
 * leaf is epoll_wait, accept, pthread_cond_wait...: an idle pool) are left
 * out. On-CPU shares are of samples.
 *
 * Usage:
 *     profdiag_in after = {.cpu = &w.cpu, .off = &w.off, .on_us = ..., .label = "2000/s"};
 *     profdiag d; profdiag_judge(&before_or_NULL, &after, &d);
 *     puts(d.sentence); */
#ifndef QUERN_PROFDIAG_H
#define QUERN_PROFDIAG_H

#include <stddef.h>
#include <stdint.h>

#include "common/folded.h"

#define PROFDIAG_LOCK_MIN 0.25      /* of the threads' time, blocked in a lock */
#define PROFDIAG_GROWTH_MIN 0.10    /* the lock share's growth across the knee */
#define PROFDIAG_LOCK_DOMINANT 0.50 /* a lock share that names the lock without growth */
#define PROFDIAG_BUSY_MIN 0.70      /* of the CPUs the target may run on */
#define PROFDIAG_SELF_MIN 0.30      /* of the on-CPU samples, one function's own */

/** One profile to judge. All borrowed. */
typedef struct profdiag_in {
    const folded *cpu; /**< borrowed: on-CPU samples by stack */
    const folded *off; /**< borrowed: microseconds blocked by stack */
    uint64_t on_us, off_us, runnable_us;
    double cpu_us;     /**< CPU time the target could have used: seconds x its CPUs x 1e6 */
    const char *label; /**< borrowed: its load, "2000/s", "40 VUs" */
} profdiag_in;

enum profdiag_kind { PROFDIAG_NONE, PROFDIAG_LOCK, PROFDIAG_CPU, PROFDIAG_RUNNABLE };

/** What the profile says. */
typedef struct profdiag {
    enum profdiag_kind kind;
    char function[256];  /**< the function named ("" none) */
    char lock[64];       /**< PROFDIAG_LOCK: the lock's function, "pthread_mutex_lock" */
    double share;        /**< the figure the sentence gives: lock, self or runnable share */
    double share_before; /**< the same in the step before, -1 without one */
    double lock_share;   /**< the threads' time blocked in locks */
    double busy;         /**< (on_us + runnable_us) / cpu_us, at most 1; -1 unknown */
    char top_cpu[256];   /**< the function with the most own samples */
    double top_cpu_share;
    char sentence[768];
} profdiag;

/** Whether a frame's name is a lock wait's. */
int profdiag_is_lock(const char *name, size_t len);
/** Whether a frame's name is a wait for work (epoll_wait, accept,
 *  pthread_cond_wait...), whose time the shares leave out. */
int profdiag_is_idle(const char *name, size_t len);
/** Whether a folded stack's leaf-most named frame ("[kernel]" and the like
 *  left out) is a wait for work. */
int profdiag_idle_stack(const char *frames);
/** The name of an off-CPU stack, into buf: "caller (lock)" when it holds a
 *  lock frame, else its leaf. */
void profdiag_wait_name(const char *frames, char *buf, size_t len);
/** Judges after (and before, NULL for a run alone) into *d. */
void profdiag_judge(const profdiag_in *before, const profdiag_in *after, profdiag *d);

#endif

/* lwatch — a bound on the Lua work done without yielding.
 *
 * All the VUs of a worker share one event loop: while one VU's Lua code runs
 * without yielding (no request, sleep or think time), no other VU of the
 * worker is served, no statistics go out, and the run cannot stop. A script
 * whose top level never ends holds the load the same way, in the console's
 * preflight as in a worker.
 *
 * When the limit is passed, lwatch raises a Lua error in the thread that
 * holds the loop, naming the script line; it is raised again at every
 * instruction after that, so a pcall in the loop does not swallow it. The
 * VU's phase then fails as after any Lua error; the load fails with it.
 *
 * What it costs. A Lua hook makes the VM call out at every instruction, so
 * the VUs run without one: a resume costs two stores. While engine_run runs,
 * a timer on the loop thread's CPU time (it ticks only while that thread
 * works, every LWATCH_TICK_NS) signals it; the handler notes which resume is
 * running, and when the same one has run for LWATCH_RESUME_US it hooks that
 * thread (lua_sethook may be called from a signal handler), and the hook
 * raises the error at the next instruction. Loading the script runs once,
 * so it is watched with a count hook that reads the clock every
 * LWATCH_COUNT instructions, removed when the load ends.
 *
 * Limits. Only Lua instructions are cut: a C function that blocks (a huge
 * r:xpath, a pattern that backtracks without end) is not interrupted, and is
 * cut when it returns if the limit has passed. A loop inside a coroutine the
 * script created itself is cut only when it gives control back to the VU.
 *
 * Use: lwatch_load_begin()/lwatch_load_end() around the load;
 * lwatch_timer_start() when the run starts, lwatch_timer_stop() at its end;
 * lwatch_begin()/lwatch_end() around each resume. One engine per process
 * runs at a time (the signal handler has one watch to look at). */
#ifndef QUERN_LWATCH_H
#define QUERN_LWATCH_H

#include <lua.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/** How long a VU may run Lua code without yielding. */
#define LWATCH_RESUME_US 1000000
/** How long loading the script (its top level and what it requires) may take. */
#define LWATCH_LOAD_US 10000000
/** The timer's period, in CPU time of the loop thread. */
#define LWATCH_TICK_NS 100000000L
/** VM instructions between two looks at the clock while loading. */
#define LWATCH_COUNT 1000000
#define LWATCH_MSG_MAX 300

/** The watch of one engine. Fields marked "signal" are shared with the
 *  timer's handler. */
typedef struct lwatch {
    lua_State *volatile co;      /**< borrowed, signal: the thread resumed, NULL between */
    volatile uint32_t seq;       /**< signal: resumes so far */
    volatile sig_atomic_t armed; /**< signal: the handler hooked co */
    uint32_t seen_seq;           /**< handler only: the resume it last saw */
    int64_t seen_us;             /**< handler only: when it first saw it */
    int loading;                 /**< the load is being watched */
    int64_t load_start_us;
    int tripped; /**< the limit was passed: msg is the error raised */
    timer_t timer;
    int timer_on;
    char msg[LWATCH_MSG_MAX];
} lwatch;

/** Watches the load of the script on L (the main state). */
void lwatch_load_begin(lwatch *w, lua_State *L);
/** The load ended; 1 when it was cut by the limit (the error is w->msg). */
int lwatch_load_end(lwatch *w, lua_State *L);
/** Starts the timer that watches the resumes; a failure is written to err
 *  (the run goes on unwatched) and returns -1. */
int lwatch_timer_start(lwatch *w, char *err, size_t errlen);
/** Stops it; fine if it never started. */
void lwatch_timer_stop(lwatch *w);
/** A resume of co starts. */
void lwatch_begin(lwatch *w, lua_State *co);
/** It ended; 1 when it was cut by the limit (the error is w->msg). */
int lwatch_end(lwatch *w);

#endif

/* lwatch — a bound on the Lua work done without yielding.
 *
 * All the VUs of a worker share one event loop: while one VU's Lua code runs
 * without yielding (no request, sleep or think time), no other VU of the
 * worker is served, no statistics go out, and the run cannot stop. A script
 * whose top level never ends holds the load the same way, in the console's
 * preflight as in a worker.
 *
 * lwatch puts a Lua count hook on the engine's threads: every LWATCH_COUNT VM
 * instructions it reads the clock, and when the slice being watched (one
 * resume of a VU, or the loading of the script) has run longer than its
 * limit, it raises a Lua error naming the script line: the VU's phase fails
 * as after any Lua error, and the load fails with that message. Once the
 * limit is passed the error is raised again at every instruction of the
 * slice, so a pcall in the loop does not swallow it.
 *
 * Only Lua instructions are counted: a C function that blocks (a huge
 * r:xpath, reading a big file) is not interrupted; its time counts towards
 * the limit if Lua code then runs on past it.
 *
 * Use: lwatch_attach() once on the main state, lwatch_thread() on each VU
 * thread (the hook is per thread; threads a script creates inherit their
 * creator's), lwatch_begin() before the load and before each resume,
 * lwatch_end() after. */
#ifndef QUERN_LWATCH_H
#define QUERN_LWATCH_H

#include <lua.h>
#include <stdint.h>

/** VM instructions between two looks at the clock (a few milliseconds). */
#define LWATCH_COUNT 1000000
/** How long a VU may run Lua code without yielding. */
#define LWATCH_RESUME_US 1000000
/** How long loading the script (its top level and what it requires) may take. */
#define LWATCH_LOAD_US 10000000
#define LWATCH_MSG_MAX 300

enum lwatch_kind { LWATCH_LOAD, LWATCH_RESUME };

/** The slice being watched. Lives in the engine. */
typedef struct lwatch {
    lua_State *co;    /**< borrowed: the thread resumed (or the main state while loading);
                           NULL when nothing is watched */
    int64_t start_us; /**< start of the slice; 0: taken at the hook's first call */
    int64_t limit_us;
    uint8_t kind;    /**< enum lwatch_kind */
    uint8_t tripped; /**< the limit was passed: msg is the error raised */
    char msg[LWATCH_MSG_MAX];
} lwatch;

/** Files w for the hook in L's registry and hooks L (the main state). */
void lwatch_attach(lua_State *L, lwatch *w);
/** Hooks a thread the engine resumes. */
void lwatch_thread(lua_State *co);
/** Starts watching co. A resume's clock starts at the hook's first call,
 *  so that a resume costs no clock read (at most LWATCH_COUNT instructions
 *  late); the load's starts now. */
void lwatch_begin(lwatch *w, lua_State *co, enum lwatch_kind kind);
/** Stops watching; returns 1 when the limit was passed (the error that ended
 *  the slice is w->msg), 0 otherwise. */
int lwatch_end(lwatch *w);

#endif

/* lcheck — soft checks: quern.check(value, {name = fn_or_value, ...}),
 * step:check(value, set) and r:check(name, fn_or_value).
 *
 * A soft check counts a pass or a failure under its name (common/tally.h)
 * and returns whether it passed: unlike r:expect it never ends the run and
 * never makes its sample an error (as k6's check). A function is called with
 * the value and passes when it returns a true value; one that raises counts
 * as a failure, and its first error per name is logged. It must not yield
 * (make a request, sleep): that raises too.
 *
 * A name is looked up once per call in a Lua table (name -> index), filled
 * the first time the name is seen: at most TALLY_CHECKS_MAX names a run,
 * each at most TALLY_NAME_MAX - 1 bytes of UTF-8 without control characters; past
 * either, the call raises (a script error, file:line).
 *
 * Use: lcheck_register(L, idx) sets quern.check into the module table at
 * idx, lcheck_register_step step:check into the steps' methods table;
 * lcheck_resp is r:check. Internal to worker/. */
#ifndef QUERN_LCHECK_H
#define QUERN_LCHECK_H

#include <lua.h>
#include <stdint.h>

/** What the checks keep in an engine (engine_checks). */
typedef struct lcheck_state {
    uint64_t logged; /**< bit i: check i raised an error, which was logged */
    int ref;         /**< registry ref of the table check name -> index, 0: none yet */
} lcheck_state;

/** Sets quern.check into the module table at idx. */
void lcheck_register(lua_State *L, int idx);
/** Sets step:check into the steps' methods table at idx. */
void lcheck_register_step(lua_State *L, int idx);
/** r:check(name, fn_or_value): the C function of a response's method. */
int lcheck_resp(lua_State *L);

#endif

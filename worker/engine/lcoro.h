/* lcoro — the VU's coroutine: the Lua thread each VU runs its scenario's
 * init, run and finish in, and what happens when it yields or ends.
 *
 * Named for the coroutine rather than the VU: vu.h is the VU's state machine
 * (phases, waits, samples), this file is only its Lua side, the one place
 * that calls lua_resume.
 *
 * Use: lcoro_new_vu_table() once per VU (the table its functions receive);
 * at each phase lcoro_push_phase(v, "run") then lcoro_resume(v, 1); after a
 * wait (a transfer, a sleep) the engine calls lcoro_resume(v, 0). Resumes
 * run only from the event loop, never from inside libcurl. Internal to
 * worker/. */
#ifndef QUERN_LCORO_H
#define QUERN_LCORO_H

#include <stddef.h>

/* A Lua thread, lua.h's type: the header is the Lua rooms' to include. */
struct lua_State;
struct vu;

/** Creates the table given to a VU's init/run/finish (id, run, data,
 *  scenario, and the cookie methods of lcookies.h); returns its registry
 *  ref. */
int lcoro_new_vu_table(struct lua_State *L, struct vu *v);
/** Pushes the scenario's function fn and the vu table onto the VU's thread;
 *  0 when the scenario has no such function (nothing pushed). */
int lcoro_push_phase(struct vu *v, const char *fn);
/** Writes "file:line: " of the innermost Lua function of co's stack (level
 *  0 may be a C function: coroutine.yield, a pcall) into out; "" when none
 *  has a line. */
void lcoro_where(struct lua_State *co, char *out, size_t len);
/** Resumes the VU's thread with nargs values on it, and handles the outcome:
 *  a yield waits, a return or an error ends the phase. */
void lcoro_resume(struct vu *v, int nargs);

#endif

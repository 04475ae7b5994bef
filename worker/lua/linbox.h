/* linbox — a VU's wait on an inbox (inbox.h), its Lua side: the coroutine's
 * yield until the inbox moves on or the VU's timer runs out, the script's
 * call for the next message, and what that call returns when none came.
 * Every stream object waits through these (lstream.h); the inbox itself,
 * the queue and the wake, has no Lua header.
 *
 * Use (in a stream method, then its continuation):
 *     return linbox_next(L, &c->in, v, us, VU_SSENEXT, CTX_NEXT, next_k);
 *     ... next_k: inbox_wait_done(&c->in); m = inbox_pop(&c->in);
 *     if (m == NULL) return linbox_none(L, &c->in);
 * Internal to worker/. */
#ifndef QUERN_LINBOX_H
#define QUERN_LINBOX_H

#include <lua.h>
#include <stdint.h>

#include "worker/plugs/inbox.h"

struct vu;

/** From a Lua function of v's, v idle: v waits on b, at most us (the VU's
 *  timer, marked what: an enum vu_wait), and its coroutine yields; k runs
 *  when b moved on or the time ran out. Returns lua_yieldk's. */
int linbox_wait(lua_State *L, inbox *b, struct vu *v, int64_t us, int what, lua_KContext ctx,
                lua_KFunction k);
/** A script's call for the next message, none in and b open: a Lua error
 *  when v already waits for something, a halt when v is halting
 *  (lapi_halt), else linbox_wait. */
int linbox_next(lua_State *L, inbox *b, struct vu *v, int64_t us, int what, lua_KContext ctx,
                lua_KFunction k);
/** For a script's call that got no message: pushes nil and why, "timeout"
 *  while b is open, else "closed" (b NULL: its stream is gone); returns 2. */
int linbox_none(lua_State *L, const inbox *b);
#endif

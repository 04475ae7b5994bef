/* lsse — server-sent events from Lua: step:sse(url, opts) and the stream
 * object it returns (s:next, s:close, s.last_id, s.status, s.retry).
 *
 * step:sse yields the VU until the answer's headers are in (sse.h); they
 * are the step's sample, timed like a request, and a refused answer (not
 * 2xx, not text/event-stream, no connection) is a technical error raised as
 * a failed check is. s:next yields until an event, its timeout or the
 * stream's end. The VU's streams close when its phase (init, run, finish)
 * ends.
 *
 * Use: lsse_register() when the Step metatable is made (lquern.h).
 * Internal to worker/. */
#ifndef QUERN_LSSE_H
#define QUERN_LSSE_H

#include <lua.h>

/** Registers step:sse into the methods table at index methods, and creates
 *  the streams' metatable. */
void lsse_register(lua_State *L, int methods);

#endif

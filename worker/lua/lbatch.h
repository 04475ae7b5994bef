/* lbatch — several requests at once from Lua: step:batch(list, opts) and
 * http.batch(list, opts) (docs/scenarios.md, "Batches").
 *
 * Each entry of the list is { method, url, opts, step = s }: the same
 * method, URL and options as step:request (lhttp.h). Every entry is checked
 * and its request built before any is sent, so that a bad one raises at the
 * script's line with nothing sent; then the requests go out together
 * (batch.h), the VU yields once, and the continuation returns their
 * responses (lresponse.h) in the order given. The values libcurl points at (URL,
 * body, options) are kept in a table on the suspended coroutine's stack.
 *
 * Use: lbatch_register() beside the step request methods (lhttp_register);
 * lbatch_open_field() on the `quern.http` table (lhttp_open). Internal to
 * worker/. */
#ifndef QUERN_LBATCH_H
#define QUERN_LBATCH_H

#include <lua.h>

/** Sets step:batch into the methods table at the top of the stack. */
void lbatch_register(lua_State *L);
/** Sets http.batch into the module table at the top of the stack. */
void lbatch_open_field(lua_State *L);

#endif

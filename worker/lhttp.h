/* lhttp — HTTP requests from Lua: the request methods of steps
 * (step:get(url, opts), ..., step:request(method, url, opts)) and the
 * `quern.http` module (the same, untimed).
 *
 * A request sets the VU's easy handle up, adds it to the engine's multi handle
 * and yields the VU's coroutine; the engine resumes it when the transfer
 * completes and the continuation returns a response object (lresp.h). Strings
 * given to libcurl (URL, body) stay on the suspended coroutine's stack, so they
 * live as long as the transfer without a copy.
 *
 * Use: lhttp_register() when the Step metatable is made (lquern.h);
 * lhttp_open as the loader of "quern.http" (lscript.h). Internal to
 * worker/. */
#ifndef QUERN_LHTTP_H
#define QUERN_LHTTP_H

#include <lua.h>

/** Registers the step request methods into the methods table at index
 *  methods, and creates the responses' metatable (lresp.h). */
void lhttp_register(lua_State *L, int methods);
/** Loader of `quern.http`. */
int lhttp_open(lua_State *L);
/** 1 when key is an option of an HTTP request (step:get(url, opts) and the
 *  others): what a request checks when it is made, and what `quern check`
 *  reads in the script's text before any request (agent/preflight.h). */
int lhttp_option_known(const char *key);

#endif

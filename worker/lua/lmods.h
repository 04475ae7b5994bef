/* lmods — the protocols written in Lua on the socket API (lsock.h), shipped
 * with quern: worker/lua/mods/NAME.lua, compiled in by the Makefile as
 * NAME_lua[], and found by require "quern.NAME".
 *
 * What it is for: a Redis client (or PostgreSQL's) is Lua a tester could have written (and
 * can read, copy and change: docs/protocols.md); compiled in, it needs no
 * file beside the script and goes to the agents with the binary.
 *
 * Use: lmods_preload(L) once, with package.preload at the top of the stack.
 * Internal to worker/. */
#ifndef QUERN_LMODS_H
#define QUERN_LMODS_H

#include <lua.h>
#include <stddef.h>

extern const char redis_lua[];
extern const size_t redis_lua_len;
extern const char pg_lua[];
extern const size_t pg_lua_len;
extern const char mqtt_lua[];
extern const size_t mqtt_lua_len;

/** Sets package.preload["quern.NAME"] for each module, the table at the top
 *  of L's stack. */
void lmods_preload(lua_State *L);
/** The source of module name ("quern.redis"), *len bytes; NULL if none. */
const char *lmods_source(const char *name, size_t *len);
/** The name of the i-th module ("quern.redis"), NULL past the last: what
 *  the tests run over, so that a module added is a module tested. */
const char *lmods_name(size_t i);

#endif

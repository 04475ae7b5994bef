/* luastate — a Lua state for the unit tests of a binding that registers into
 * the quern table: the standard libraries and a global table quern the
 * binding's register function fills, and a script run in such a state, a
 * failed Lua assert or error failing the calling test with its message.
 * Link tests/unit/luastate.c. */
#ifndef QUERN_TESTS_LUASTATE_H
#define QUERN_TESTS_LUASTATE_H

#include <lua.h>

/* A binding's register function: its functions into the table at idx. */
typedef void luastate_register(lua_State *L, int idx);

/* A new state with reg's functions in the global quern (lua_close it). */
lua_State *luastate_new(luastate_register *reg);

/* Runs script in a new state of reg's, then closes it. */
void luastate_run(luastate_register *reg, const char *script);

#endif

/* luastate — a Lua state for a binding's unit tests (luastate.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>

#include "tests/unit/luastate.h"

lua_State *luastate_new(luastate_register *reg)
{
    lua_State *L = luaL_newstate();

    luaL_openlibs(L);
    lua_newtable(L);
    reg(L, -1);
    lua_setglobal(L, "quern");
    return L;
}

void luastate_run(luastate_register *reg, const char *script)
{
    lua_State *L = luastate_new(reg);

    if (luaL_dostring(L, script) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    lua_close(L);
}

/* fuzz_setupdata — what StartRun carries as setup_data, as each worker
 * decodes it into its VUs' read-only vu.setup (worker/setupdata).
 *
 * Input: the JSON text. Checks: setupdata_decode pushes one table or nothing
 * with a message; every table in it, at any depth, refuses a write with
 * "vu.setup is read-only" and keeps its value; pairs visits what # and
 * ipairs count; nothing is left on the stack. */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "worker/lua/setupdata.h"
#include "tests/fuzz/fuzz_util.h"

static lua_State *L;

/* Walks the read-only table in a Lua function, at most 4096 tables. */
static const char walk[] =
    "local t = ...\n"
    "local seen = 0\n"
    "local function visit(x, depth)\n"
    "  seen = seen + 1\n"
    "  if seen > 4096 or depth > 70 then return end\n"
    "  local ok, err = pcall(function() x.__fuzz_key = 1 end)\n"
    "  assert(not ok and err:find('vu.setup is read-only', 1, true), 'a write passed')\n"
    "  assert(x.__fuzz_key == nil, 'a write stuck')\n"
    "  local n = #x\n"
    "  assert((n == 0 or x[n] ~= nil) and x[n + 1] == nil, '# is no border')\n"
    "  for i, v in ipairs(x) do assert(x[i] == v, 'ipairs and a read differ') end\n"
    "  for k, v in pairs(x) do\n"
    "    assert(x[k] == v, 'pairs and a read differ')\n"
    "    if type(v) == 'table' then visit(v, depth + 1) end\n"
    "  end\n"
    "end\n"
    "visit(t, 0)\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[ERR_MAX];
    int top;

    if (L == NULL) {
        L = luaL_newstate();
        luaL_openlibs(L);
    }
    top = lua_gettop(L);
    err[0] = '\0';
    if (!setupdata_decode(L, (const char *)data, size, err, sizeof(err))) {
        fuzz_check(lua_gettop(L) == top && err[0] != '\0');
        return 0;
    }
    fuzz_check(lua_gettop(L) == top + 1 && lua_type(L, -1) == LUA_TTABLE);
    fuzz_check(luaL_loadstring(L, walk) == LUA_OK);
    lua_insert(L, -2);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        fuzz_check(0);
    }
    lua_settop(L, top);
    lua_gc(L, LUA_GCSTEP, 0);
    return 0;
}

/* fuzz_ljson — the JSON decoder glue (worker/ljson): r:json() turns a
 * server's answer into Lua values, and json.encode turns them back.
 *
 * Input: the JSON text. Checks: ljson_decode pushes exactly one value or
 * nothing with a message; a value decoded with quern.json.null always
 * encodes, to text that decodes again, and that second value encodes to text
 * of the same length (object members may come in another order: Lua tables
 * keep none); decoded with null as nil (r:json()), it encodes or is refused
 * with a Lua error, never a crash. */
#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "common/err.h"
#include "worker/lua/ljson.h"
#include "tests/fuzz/fuzz_util.h"

static lua_State *L;

/* encode(value at 1) -> the JSON text, under pcall. */
static int encode(lua_State *Ls)
{
    ljson_encode(Ls, 1);
    return 1;
}

/* Encodes the value on top into a new string pushed on top; 0 if refused
 * (the message is pushed instead). */
static int encode_top(void)
{
    lua_pushcfunction(L, encode);
    lua_pushvalue(L, -2);
    return lua_pcall(L, 1, 1, 0) == LUA_OK;
}

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
    if (!ljson_decode(L, (const char *)data, size, LJSON_NULL, err, sizeof(err))) {
        fuzz_check(lua_gettop(L) == top && err[0] != '\0');
        return 0;
    }
    fuzz_check(lua_gettop(L) == top + 1);
    fuzz_check(encode_top());
    {
        size_t n1, n2;
        const char *s1 = lua_tolstring(L, -1, &n1);
        fuzz_check(s1 != NULL);
        fuzz_check(ljson_decode(L, s1, n1, LJSON_NULL, err, sizeof(err)) == 1);
        fuzz_check(encode_top());
        fuzz_check(lua_tolstring(L, -1, &n2) != NULL);
        fuzz_check(n1 == n2); /* the same members, perhaps in another order */
    }
    lua_settop(L, top);
    if (ljson_decode(L, (const char *)data, size, 0, err, sizeof(err))) {
        encode_top(); /* holes where nulls were: refusing is allowed */
        lua_settop(L, top);
    }
    lua_gc(L, LUA_GCSTEP, 0);
    return 0;
}

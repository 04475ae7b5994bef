/* Unit tests for worker/setupdata: what setup returns, encoded as JSON
 * (values kept, what JSON cannot carry refused, the 1 MiB bound), decoded
 * into read-only tables (reads, #, pairs and ipairs work; writes, nested or
 * not, raise "vu.setup is read-only" at the writer's line; rawset and
 * setmetatable do not reach the data). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/lua/setupdata.h"

/* Encodes the value the chunk returns; rc of setupdata_encode. */
static int encode_chunk(lua_State *L, const char *chunk, char **json, size_t *len, char *err,
                        size_t errlen)
{
    int top = lua_gettop(L), rc;

    if (luaL_dostring(L, chunk) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    rc = setupdata_encode(L, -1, json, len, err, errlen);
    assert_int_equal(lua_gettop(L), top + 1); /* the stack as it was, and the value */
    lua_settop(L, top);
    return rc;
}

static void test_round_trip(void **state)
{
    lua_State *L = luaL_newstate();
    char *json, err[ERR_MAX];
    size_t len;
    static const char script[] =
        "local d = ...\n"
        "assert(d.S.token == 'tok-1' and d.S.n == 42 and d.S.pi == 1.5 and d.S.yes == true)\n"
        "assert(d.S.no == false and d.S.nested.deep.x == 'y')\n"
        "assert(#d.S.list == 3 and d.S.list[3] == 'c')\n"
        "local seen = {}\n"
        "for i, v in ipairs(d.S.list) do seen[#seen + 1] = i .. v end\n"
        "assert(table.concat(seen, ',') == '1a,2b,3c')\n"
        "local keys = 0\n"
        "for k, v in pairs(d.S) do keys = keys + 1 end\n"
        "assert(keys == 7, 'pairs saw ' .. keys)\n";

    luaL_openlibs(L);
    assert_int_equal(encode_chunk(L,
                                  "return { S = { token = 'tok-1', n = 42, pi = 1.5, yes = true, "
                                  "no = false, nested = { deep = { x = 'y' } }, "
                                  "list = { 'a', 'b', 'c' } } }",
                                  &json, &len, err, sizeof(err)),
                     0);
    assert_int_equal(strlen(json), len);
    assert_int_equal(luaL_loadstring(L, script), LUA_OK);
    assert_int_equal(setupdata_decode(L, json, len, err, sizeof(err)), 1);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    xfree(json);
    lua_close(L);
}

static void test_read_only(void **state)
{
    lua_State *L = luaL_newstate();
    char err[ERR_MAX];
    static const char json[] = "{\"S\":{\"x\":0,\"t\":{\"y\":0},\"l\":[1,2]}}";
    static const char script[] =
        "local d = ...\n"
        "local function try(f) local ok, e = pcall(f); assert(not ok); return e end\n"
        "local e = try(function() d.S.x = 1 end)\n"
        "assert(e == '(load):3: vu.setup is read-only', e)\n"
        "e = try(function() d.S.t.y = 1 end)\n"
        "assert(e:find('(load):5: vu.setup is read-only', 1, true), e)\n"
        "e = try(function() d.S.new = 1 end)\n"
        "assert(e:find('read-only', 1, true), e)\n"
        "try(function() d.S.l[3] = 3 end)\n"
        "try(function() table.insert(d.S.l, 3) end)\n"
        "try(function() setmetatable(d.S, nil) end)\n"
        "assert(getmetatable(d.S) == false)\n"
        "rawset(d.S, 'x', 9)\n" /* reaches the proxy only */
        "local f, s = pairs(d.S)\n"
        "assert(s == d.S, 'pairs hands out the real table')\n"
        "assert(d.S.x == 9 and d.S.t.y == 0 and #d.S.l == 2)\n";

    luaL_openlibs(L);
    assert_int_equal(luaL_loadbuffer(L, script, strlen(script), "=(load)"), LUA_OK);
    assert_int_equal(setupdata_decode(L, json, strlen(json), err, sizeof(err)), 1);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    lua_close(L);
}

static void test_refused(void **state)
{
    lua_State *L = luaL_newstate();
    char *json, err[ERR_MAX];
    size_t len;

    luaL_openlibs(L);
    assert_int_equal(encode_chunk(L, "return { f = print }", &json, &len, err, sizeof(err)), -1);
    assert_null(json);
    assert_non_null(strstr(err, "cannot encode a function"));
    assert_int_equal(
        encode_chunk(L, "return { co = coroutine.create(print) }", &json, &len, err, sizeof(err)),
        -1);
    assert_int_equal(
        encode_chunk(L, "local t = {} t.t = t return t", &json, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "a cycle: the table contains itself"));
    /* 1 MiB and a little more, as JSON */
    assert_int_equal(
        encode_chunk(L, "return { s = string.rep('x', 1048576) }", &json, &len, err, sizeof(err)),
        -1);
    assert_non_null(strstr(err, "more than 1048576 (1 MiB)"));
    assert_int_equal(
        encode_chunk(L, "return { s = string.rep('x', 1048000) }", &json, &len, err, sizeof(err)),
        0);
    assert_true(len <= SETUPDATA_MAX);
    xfree(json);

    assert_int_equal(setupdata_decode(L, "{\"S\":", 5, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "not JSON"));
    assert_int_equal(setupdata_decode(L, "[1,2]", 5, err, sizeof(err)), 1); /* arrays are tables */
    lua_pop(L, 1);
    assert_int_equal(setupdata_decode(L, "\"s\"", 3, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "not a JSON object"));
    assert_int_equal(lua_gettop(L), 0);
    lua_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

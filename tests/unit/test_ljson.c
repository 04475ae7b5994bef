/* Unit tests for worker/ljson: quern.json.null and the array and object
 * markers both ways, decode -> encode round trips, r:json()'s nil for null,
 * encode's and decode's errors (the path of the bad value, the line and
 * column of bad text) and the nesting bound. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#include "common/err.h"
#include "worker/lua/ljson.h"

#include "tests/unit/luastate.h"

static void run(const char *script)
{
    luastate_run(ljson_register, script);
}

static void test_round_trips(void **state)
{
    run("local J = quern.json\n"
        "local function rt(s) return J.encode(J.decode(s), { sort_keys = true }) end\n"
        "assert(rt('{\"a\":null,\"b\":[]}') == '{\"a\":null,\"b\":[]}')\n"
        "local nested = '{\"n\":null,\"s\":\"\\\\u0000é\","
        "\"x\":[1,null,{\"e\":{},\"y\":[],\"z\":[[null],{}]}]}'\n"
        "assert(rt(nested) == nested, rt(nested))\n"
        "assert(rt('[]') == '[]' and rt('{}') == '{}' and rt('null') == 'null')\n"
        "assert(rt('[null,null]') == '[null,null]')\n"
        "assert(rt('9007199254740993') == '9007199254740993')\n"
        "assert(rt('{\"1\":2}') == '{\"1\":2}')\n"
        /* a decoded table may be changed and sent back: its kind stays */
        "local t = J.decode('{\"items\":[],\"meta\":{}}')\n"
        "t.items[1] = 'a'\n"
        "assert(J.encode(t, { sort_keys = true }) == '{\"items\":[\"a\"],\"meta\":{}}')\n");
}

static void test_null(void **state)
{
    run("local J = quern.json\n"
        "assert(type(J.null) == 'userdata' and tostring(J.null) == 'null')\n"
        "assert(J.decode('null') == J.null)\n"
        "local a = J.decode('[1,null,3]')\n"
        "assert(#a == 3 and a[2] == J.null)\n"
        "local o = J.decode('{\"a\":null}')\n"
        "assert(o.a == J.null and next(o) == 'a')\n"
        /* null = false: nil, as r:json() by default */
        "o = J.decode('{\"a\":null,\"b\":1}', { null = false })\n"
        "assert(o.a == nil and o.b == 1)\n"
        "assert(J.decode('null', { null = false }) == nil)\n"
        "assert(J.encode(J.null) == 'null')\n"
        "assert(J.encode({ a = J.null }) == '{\"a\":null}')\n"
        "assert(J.encode({ J.null, 2 }) == '[null,2]')\n"
        "assert(not pcall(setmetatable, J.null, {}))\n");
}

static void test_markers(void **state)
{
    run("local J = quern.json\n"
        "assert(J.encode(J.array{}) == '[]')\n"
        "assert(J.encode(J.object{}) == '{}')\n"
        "assert(J.encode({}) == '{}')\n" /* an empty plain table, as before */
        "assert(J.encode(J.array()) == '[]' and J.encode(J.object()) == '{}')\n"
        "assert(J.encode({ 1, 2, 3 }) == '[1,2,3]')\n"
        "assert(J.encode({ 1, nil, 3 }) == '[1,null,3]')\n"
        "assert(J.encode(J.array{ nil, nil, 'x' }) == '[null,null,\"x\"]')\n"
        "assert(J.encode(J.object{ [1] = 'x' }) == '{\"1\":\"x\"}')\n"
        "assert(J.encode(J.object{ [2.5] = 'x' }) == '{\"2.5\":\"x\"}')\n"
        "assert(J.encode({ a = J.array{}, b = J.object{ J.array{ {} } } }, { sort_keys = true })"
        "       == '{\"a\":[],\"b\":{\"1\":[{}]}}')\n"
        "local t = {}\n"
        "assert(J.array(t) == t and J.object(t) == t)\n" /* same table, marker switched */
        "assert(J.encode(t) == '{}')\n"
        "assert(getmetatable(J.decode('[]')) == getmetatable(J.array{}))\n"
        "assert(getmetatable(J.decode('{}')) == getmetatable(J.object{}))\n"
        "local ok, err = pcall(J.array, setmetatable({}, {}))\n"
        "assert(not ok and err:find('metatable of its own'), err)\n"
        "assert(J.encode({ a = 1 }, { pretty = true }) == '{\\n  \"a\": 1\\n}')\n"
        "assert(J.encode({ b = 1, a = 2, c = 3 }, { sort_keys = true }) == "
        "'{\"a\":2,\"b\":1,\"c\":3}')\n"
        "ok, err = pcall(J.encode, 1, { indent = 2 })\n"
        "assert(not ok and err:find('unknown option \"indent\"'), err)\n"
        "assert(J.encode('a\"\\n') == '\"a\\\\\"\\\\n\"' and J.encode(true) == 'true')\n"
        "assert(J.encode(1.5) == '1.5' and J.encode(-3) == '-3')\n"
        /* the fewest digits that read back exactly */
        "assert(J.encode({ 0.1, 2.5, 1e300 }) == '[0.1,2.5,1e300]')\n"
        "assert(J.decode(J.encode(1/3)) == 1/3 and J.decode(J.encode(0.1 + 0.2)) == 0.1 + 0.2)\n");
}

static void test_encode_errors(void **state)
{
    run("local J = quern.json\n"
        "local function err(v, want)\n"
        "  local ok, e = pcall(J.encode, v)\n"
        "  assert(not ok, 'encoded: ' .. want)\n"
        "  assert(e:find(want, 1, true), e .. ' lacks ' .. want)\n"
        "end\n"
        "err({ a = { b = { print } } }, 'quern.json.encode: $.a.b[1]: cannot encode a function')\n"
        "err({ x = 0/0 }, '$.x: NaN and infinity')\n"
        "err({ 1, 2, math.huge }, '$[3]: NaN and infinity')\n"
        "err({ s = 'a\\255' }, '$.s: a string that is not UTF-8')\n"
        "err({ ['a b'] = { f = print } }, '$[\"a b\"].f: cannot encode a function')\n"
        "err({ io.stdout }, '$[1]: cannot encode a userdata')\n"
        "err(J.object{ [3] = { print } }, '$[3][1]: cannot encode a function')\n"
        "err({ [string.rep('k', 50)] = print }, '$[\"' .. string.rep('k', 40) .. '...\"]: "
        "cannot')\n"
        "err({ 1, a = 2 }, '$: a table with both array indices and string keys')\n"
        "err({ x = { [0] = 1 } }, '$.x: key 0 is neither a string nor an array index')\n"
        "err({ [true] = 1 }, '$: a boolean key is neither')\n"
        "err(J.array{ 1, a = 2 }, '$: a string key in a quern.json.array')\n"
        "err({ [100] = 1 }, '$: an array of 1 values up to index 100, more than half holes')\n"
        "err({ ['\\255'] = 1 }, 'a key that is not UTF-8')\n"
        "local t = { list = {} }\n"
        "t.list[1] = t\n"
        "err(t, '$.list[1]: a cycle: the table contains itself')\n"
        "local deep = {}\n"
        "local d = deep\n"
        "for i = 1, 200 do d.n = {} d = d.n end\n"
        "err(deep, 'nested deeper than 128')\n"
        /* the same table twice, not nested in itself, is no cycle */
        "local s = { 1 }\n"
        "assert(J.encode({ s, s }) == '[[1],[1]]')\n"
        /* a request body's errors: the same, named json */
        "local ok, e = pcall(J.encode, { f = print })\n"
        "assert(e:find('^quern.json.encode: '))\n");
}

/* The request body encoder, as lhttp.c calls it. */
static int body_encode(lua_State *L)
{
    ljson_encode(L, 1);
    return 1;
}

static void test_body_encode(void **state)
{
    lua_State *L = luastate_new(ljson_register);

    lua_pushcfunction(L, body_encode);
    assert_int_equal(luaL_dostring(L, "return { a = quern.json.null, b = quern.json.array{} }"),
                     LUA_OK);
    assert_int_equal(lua_pcall(L, 1, 1, 0), LUA_OK);
    /* members in the table's order: either is right */
    assert_true(strcmp(lua_tostring(L, -1), "{\"a\":null,\"b\":[]}") == 0 ||
                strcmp(lua_tostring(L, -1), "{\"b\":[],\"a\":null}") == 0);
    lua_pop(L, 1);
    lua_pushcfunction(L, body_encode);
    assert_int_equal(luaL_dostring(L, "return { x = { print } }"), LUA_OK);
    assert_int_not_equal(lua_pcall(L, 1, 1, 0), LUA_OK);
    assert_string_equal(lua_tostring(L, -1), "json: $.x[1]: cannot encode a function");
    lua_pop(L, 1);
    assert_int_equal(lua_gettop(L), 0);
    lua_close(L);
}

static void test_decode_errors(void **state)
{
    lua_State *L = luastate_new(ljson_register);
    char err[ERR_MAX];
    char deep[600];

    assert_int_equal(ljson_decode(L, "{\"a\":}", 6, 0, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "(line 1, column 6)"));
    assert_int_equal(lua_gettop(L), 0);
    assert_int_equal(ljson_decode(L, "[1,\n2,]", 7, LJSON_NULL, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "(line 2, column 3)"));
    assert_int_equal(lua_gettop(L), 0);
    /* 128 levels decode, 129 do not */
    memset(deep, '[', 129);
    memset(deep + 129, ']', 129);
    assert_int_equal(ljson_decode(L, deep + 1, 256, 0, err, sizeof(err)), 1);
    lua_pop(L, 1);
    assert_int_equal(ljson_decode(L, deep, 258, 0, err, sizeof(err)), 0);
    assert_string_equal(err, "nested deeper than 128");
    assert_int_equal(lua_gettop(L), 0);
    /* r:json()'s default: null is nil, the key gone */
    assert_int_equal(ljson_decode(L, "{\"a\":null}", 10, 0, err, sizeof(err)), 1);
    lua_pushnil(L);
    assert_int_equal(lua_next(L, -2), 0);
    lua_pop(L, 1);
    if (luaL_dostring(L, "local ok, e = pcall(quern.json.decode, '{\"a\":1,}')\n"
                         "assert(not ok and e:find('^quern.json.decode: .*line 1, column 8'), e)\n"
                         "ok, e = pcall(quern.json.decode, 'x', { nulls = true })\n"
                         "assert(not ok and e:find('unknown option \"nulls\"'), e)\n") != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    lua_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips), cmocka_unit_test(test_null),
        cmocka_unit_test(test_markers),     cmocka_unit_test(test_encode_errors),
        cmocka_unit_test(test_body_encode), cmocka_unit_test(test_decode_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

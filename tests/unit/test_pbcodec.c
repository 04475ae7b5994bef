/* Unit tests for worker/pbcodec over tests/e2e/scripts/grpc/types.proto: known
 * encodings byte for byte (varint, zigzag, fixed, packed and unpacked),
 * every scalar type's extremes round-tripped, maps, nested messages, oneof,
 * enums by name and number, defaults, unknown fields skipped, and the
 * errors (unknown field, wrong type, range, truncated input, depth). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "worker/lua/pbcodec.h"

static pbschema *schema;

static int setup(void **state)
{
    static uint8_t set[8192];
    char err[ERR_MAX];
    size_t n;
    FILE *f = fopen("tests/unit/data/pb/types.pb", "rb");

    if (f == NULL)
        return -1;
    n = fread(set, 1, sizeof(set), f);
    fclose(f);
    schema = pbschema_new();
    return pbschema_add(schema, set, n, err, sizeof(err));
}

static int teardown(void **state)
{
    pbschema_free(schema);
    return 0;
}

/* enc(table [, message]) -> bytes, or nil and the message */
static int l_enc(lua_State *L)
{
    char err[ERR_MAX];
    pbbuf b = {0};
    int m = pbschema_msg(schema, luaL_optstring(L, 2, "qt.All"));

    if (pbcodec_encode(L, 1, schema, m, &b, err, sizeof(err)) != 0) {
        pbbuf_free(&b);
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushlstring(L, (const char *)b.p, b.len);
    pbbuf_free(&b);
    return 1;
}

/* dec(bytes [, message]) -> table, or nil and the message */
static int l_dec(lua_State *L)
{
    char err[ERR_MAX];
    size_t n;
    const char *p = luaL_checklstring(L, 1, &n);
    int m = pbschema_msg(schema, luaL_optstring(L, 2, "qt.All"));
    int top = lua_gettop(L);

    if (pbcodec_decode(L, schema, m, (const uint8_t *)p, n, err, sizeof(err)) != 0) {
        assert_int_equal(lua_gettop(L), top);
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    assert_int_equal(lua_gettop(L), top + 1);
    return 1;
}

static const char prelude[] =
    "function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) "
    "end)) end\n"
    "function same(a, b, path)\n"
    "  path = path or 'msg'\n"
    "  if type(a) ~= type(b) then error(path .. ': ' .. tostring(a) .. ' vs ' .. tostring(b)) end\n"
    "  if type(a) ~= 'table' then\n"
    "    if a ~= b then error(path .. ': ' .. tostring(a) .. ' vs ' .. tostring(b)) end\n"
    "    return\n"
    "  end\n"
    "  for k, v in pairs(a) do same(v, b[k], path .. '.' .. tostring(k)) end\n"
    "  for k, v in pairs(b) do if a[k] == nil then error(path .. '.' .. tostring(k) .. ' extra') "
    "end end\n"
    "end\n"
    "function rt(t) local b = assert(enc(t)); return assert(dec(b)) end\n"
    "function sub(t, d) for k, v in pairs(d) do same(v, t[k], k) end end\n"
    "function varint(n) local s = '' repeat local b = n & 0x7f n = n >> 7 "
    "if n ~= 0 then b = b | 0x80 end s = s .. string.char(b) until n == 0 return s end\n";

static void run(const char *script)
{
    lua_State *L = luaL_newstate();

    luaL_openlibs(L);
    lua_register(L, "enc", l_enc);
    lua_register(L, "dec", l_dec);
    if (luaL_dostring(L, prelude) != LUA_OK || luaL_dostring(L, script) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    lua_close(L);
}

static void test_known_bytes(void **state)
{
    run("assert(hex(enc{f_int32 = 150}) == '289601')\n"
        "assert(hex(enc{f_int32 = -1}) == '28ffffffffffffffffff01')\n"
        "assert(hex(enc{f_sint32 = -1}) == '880101')\n"
        "assert(hex(enc{f_sint64 = 1}) == '900102')\n"
        "assert(hex(enc{f_fixed32 = 1}) == '3d01000000')\n"
        "assert(hex(enc{f_sfixed64 = -2}) == '8101feffffffffffffff')\n"
        "assert(hex(enc{f_float = 1.5}) == '150000c03f')\n"
        "assert(hex(enc{f_double = 1}) == '09000000000000f03f')\n"
        "assert(hex(enc{f_bool = true}) == '4001')\n"
        "assert(hex(enc{f_string = 'hi'}) == '4a026869')\n"
        "assert(hex(enc{f_enum = 'GREEN'}) == '7002')\n"
        "assert(hex(enc{f_enum = 'NEG'}) == '70fdffffffffffffffff01')\n"
        "assert(hex(enc{inner = {i = 1}}) == '9a01021001')\n"
        "assert(hex(enc{r_int32 = {1, 2, 3}}) == 'a20103010203')\n"
        "assert(hex(enc{r_unpacked = {1, 2}}) == 'a80101a80102')\n"
        "assert(hex(enc{r_string = {'a', 'b'}}) == 'b20101'..'61'..'b20101'..'62')\n"
        "assert(hex(enc{m_str = {k = 7}}) == 'd20105'..'0a016b'..'1007')\n"
        "assert(enc{} == '')\n"
        "assert(enc({}, 'qt.Empty') == '')\n");
}

static void test_extremes(void **state)
{
    run("local t = {\n"
        "  f_int64 = math.mininteger, f_uint64 = -1, f_int32 = -2147483648,\n"
        "  f_fixed64 = -1, f_fixed32 = 4294967295, f_uint32 = 4294967295,\n"
        "  f_sfixed32 = -2147483648, f_sfixed64 = math.mininteger,\n"
        "  f_sint32 = -2147483648, f_sint64 = math.mininteger,\n"
        "  f_double = -1.25e300, f_float = 0.25, f_bool = false, f_string = 'é\\0x',\n"
        "  f_bytes = '\\0\\1\\255', f_enum = 'RED'}\n"
        "sub(rt(t), t)\n"
        "t = {f_int64 = math.maxinteger, f_int32 = 2147483647, f_sint32 = 2147483647,\n"
        "  f_sint64 = math.maxinteger, f_sfixed64 = math.maxinteger, f_sfixed32 = 2147483647,\n"
        "  f_uint64 = math.maxinteger, f_bool = true}\n"
        "sub(rt(t), t)\n"
        "assert(rt{f_float = 0.1}.f_float ~= 0.1)  -- a float keeps 24 bits\n"
        "assert(math.abs(rt{f_float = 0.1}.f_float - 0.1) < 1e-7)\n"
        "assert(rt{f_double = 2.0}.f_double == 2.0 and math.type(rt{f_int64 = 3}.f_int64) == "
        "'integer')\n"
        "assert(rt{f_int32 = 3.0}.f_int32 == 3)  -- an integral float is taken\n");
}

static void test_structures(void **state)
{
    run("local t = {r_int32 = {1, -1, 300}, r_unpacked = {5, 6}, r_string = {'x', '', 'z'},\n"
        "  r_inner = {{s = 'a'}, {i = 2}}, r_enum = {'RED', 'NEG', 2}, r_double = {1.5, -0},\n"
        "  m_str = {a = 1, b = math.mininteger}, m_inner = {[3] = {s = 'three'}, [-1] = {}},\n"
        "  inner = {s = 'in', i = -5}, child = {child = {f_string = 'deep'}}, opt = 0}\n"
        "local r = rt(t)\n"
        "same(r.r_int32, t.r_int32) same(r.r_unpacked, t.r_unpacked)\n"
        "same(r.r_string, t.r_string)\n"
        "same(r.r_enum, {'RED', 'NEG', 'GREEN'})\n"
        "same(r.r_double, {1.5, 0.0})\n"
        "same(r.r_inner, {{s = 'a', i = 0}, {s = '', i = 2}})\n"
        "same(r.m_str, t.m_str)\n"
        "same(r.m_inner, {[3] = {s = 'three', i = 0}, [-1] = {s = '', i = 0}})\n"
        "same(r.inner, {s = 'in', i = -5})\n"
        "assert(r.child.child.f_string == 'deep' and r.child.child.child == nil)\n"
        "assert(r.opt == 0)\n"
        /* defaults of the fields without presence; nil for those with */
        "local e = assert(dec(''))\n"
        "assert(e.f_int32 == 0 and e.f_uint64 == 0 and e.f_string == '' and e.f_bool == false)\n"
        "assert(e.f_enum == 'COLOR_UNSET' and e.f_double == 0.0)\n"
        "same(e.r_int32, {}) same(e.m_str, {})\n"
        "assert(e.inner == nil and e.opt == nil and e.o_name == nil and e.child == nil)\n"
        /* oneof: the last member on the wire wins */
        "local b = enc{o_name = 'n'} .. enc{o_id = 4}\n"
        "local o = dec(b) assert(o.o_name == nil and o.o_id == 4)\n"
        "o = dec(enc{o_id = 4} .. enc{o_inner = {s = 'q'}})\n"
        "assert(o.o_id == nil and o.o_inner.s == 'q')\n"
        /* a singular message twice is merged; a scalar twice, the last kept */
        "o = dec(enc{inner = {s = 'a'}} .. enc{inner = {i = 3}} .. enc{f_int32 = 1} .. "
        "enc{f_int32 = 2})\n"
        "assert(o.inner.s == 'a' and o.inner.i == 3 and o.f_int32 == 2)\n"
        /* packed and unpacked are each read whatever the field declares */
        "same(dec('\\xa0\\x01\\x07\\xa0\\x01\\x08').r_int32, {7, 8})\n"
        "same(dec('\\xaa\\x01\\x02\\x07\\x08').r_unpacked, {7, 8})\n"
        /* enums: a number the schema does not know stays a number */
        "assert(dec(enc{f_enum = 99}).f_enum == 99 and dec(enc{f_enum = 2}).f_enum == 'GREEN')\n"
        /* fields the schema does not know are skipped, whatever their type */
        "local unk = '\\xa0\\x06\\x05' .. '\\xaa\\x06\\x03abc' .. '\\xa5\\x06\\1\\2\\3\\4' .. "
        "'\\xa1\\x06' .. string.rep('\\0', 8)\n"
        "o = assert(dec(unk .. enc{f_int32 = 9} .. unk)) assert(o.f_int32 == 9)\n");
}

static void test_errors(void **state)
{
    run("local function refused(t, pat, m)\n"
        "  local b, err = enc(t, m)\n"
        "  assert(b == nil, 'accepted')\n"
        "  assert(err:find(pat, 1, true), err)\n"
        "end\n"
        "refused({nope = 1}, \"unknown field 'nope' in qt.All\")\n"
        "refused({inner = {zz = 1}}, \"unknown field 'zz' in qt.Inner\")\n"
        "refused({[1] = 2}, 'field names are strings')\n"
        "refused({f_int32 = 'x'}, \"field 'f_int32' of qt.All: an integer expected, got string\")\n"
        "refused({f_int32 = 1.5}, 'fraction')\n"
        "refused({f_int32 = 2147483648}, '32-bit signed')\n"
        "refused({f_uint32 = -1}, '32-bit unsigned')\n"
        "refused({f_fixed32 = 4294967296}, '32-bit unsigned')\n"
        "refused({f_sint32 = -2147483649}, '32-bit signed')\n"
        "refused({f_bool = 1}, 'a boolean expected')\n"
        "refused({f_string = 5}, 'a string expected')\n"
        "refused({f_double = 'x'}, 'a number expected')\n"
        "refused({f_enum = 'BLUE'}, 'BLUE is not a value of qt.Color')\n"
        "refused({inner = 5}, 'a table expected')\n"
        "refused({r_int32 = 5}, 'a table (list) expected')\n"
        "refused({r_int32 = {1, 'x'}}, 'an integer expected')\n"
        "refused({m_str = {k = 'v'}}, 'an integer expected')\n"
        "refused({m_str = {[1] = 1}}, 'a string expected')\n"
        "local deep = {} local c = deep for i = 1, 70 do c.child = {} c = c.child end\n"
        "refused(deep, 'nested deeper')\n"
        /* decoding: truncated anywhere, wrong wire type, too deep */
        "local full = enc{f_string = 'hello', inner = {s = 'x'}, r_int32 = {1, 2}, f_int64 = -1}\n"
        "for n = 1, #full - 1 do\n"
        "  local t, err = dec(full:sub(1, n))\n"
        "  if t == nil then assert(err:find('qt.'), err) end\n"
        "end\n"
        "local t, err = dec(full:sub(1, #full - 1)) assert(t == nil and err:find('truncated'))\n"
        "t, err = dec('\\x4a\\x05hi') assert(t == nil and err:find('truncated'))\n"
        "t, err = dec('\\x28\\x96') assert(t == nil)\n"
        "t, err = dec('\\x2d\\0\\0\\0\\0') assert(t == nil and err:find('qt.All.f_int32: wire "
        "type'))\n"
        "t, err = dec('\\xa2\\x01\\x01\\x96') assert(t == nil and err:find('truncated packed'))\n"
        "t, err = dec('\\x0b') assert(t == nil)\n"
        "local d = '' for i = 1, 70 do d = '\\x82\\x02' .. varint(#d) .. d end\n"
        "t, err = dec(d) assert(t == nil and err:find('too deep'), err)\n"
        "d = '' for i = 1, 60 do d = '\\x82\\x02' .. varint(#d) .. d end\n"
        "assert(dec(d))\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_bytes),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_structures),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

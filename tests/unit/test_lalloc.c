/* Unit tests for worker/lalloc: a Lua state past its limit raises "not
 * enough memory" where it allocates, and stays usable. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "worker/lua/lalloc.h"

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

#define LIMIT (4u << 20)

static const char grow[] = "local t = {} for i = 1, 1e7 do t[i] = {i} end return #t";

/* Runs chunk protected; returns the status and leaves the message in msg. */
static int run(lua_State *L, const char *chunk, char *msg, size_t len)
{
    int st = luaL_loadstring(L, chunk);
    if (st == LUA_OK)
        st = lua_pcall(L, 0, 1, 0);
    err_set(msg, len, "%s", lua_tostring(L, -1) != NULL ? lua_tostring(L, -1) : "");
    lua_pop(L, 1);
    return st;
}

static void test_limit_raises_and_state_survives(void **state)
{
    lalloc la = {.limit = LIMIT};
    lua_State *L;
    char msg[256];
    (void)state;

    L = lua_newstate(lalloc_fn, &la);
    assert_non_null(L);
    luaL_openlibs(L);
    lalloc_enforce(&la, 1);
    assert_int_equal(run(L, grow, msg, sizeof(msg)), LUA_ERRMEM);
    assert_string_equal(msg, "not enough memory");
    assert_true(la.refused > 0);
    assert_true(la.peak <= LIMIT);
    /* The tables were garbage: the state goes on. */
    assert_int_equal(
        run(L, "local t = {} for i = 1, 1000 do t[i] = {i} end return #t", msg, sizeof(msg)),
        LUA_OK);
    assert_string_equal(msg, "1000");
    /* A string built in a buffer is refused too, as a plain error. */
    assert_int_not_equal(run(L, "return string.rep('x', 8 << 20)", msg, sizeof(msg)), LUA_OK);
    assert_non_null(strstr(msg, "not enough memory"));
    lalloc_enforce(&la, 0);
    lua_close(L);
    assert_true(la.used == 0);
}

static void test_not_enforced_grows(void **state)
{
    lalloc la = {.limit = LIMIT};
    lua_State *L = lua_newstate(lalloc_fn, &la);
    char msg[256];
    (void)state;

    luaL_openlibs(L);
    /* Outside a script's run the engine's own calls are never refused. */
    assert_int_equal(
        run(L, "local t = {} for i = 1, 200000 do t[i] = {i} end return #t", msg, sizeof(msg)),
        LUA_OK);
    assert_true(la.peak > LIMIT);
    assert_int_equal((int)la.refused, 0);
    assert_int_equal(lalloc_enforce(&la, 1), 0);
    assert_int_equal(lalloc_enforce(&la, 0), 1);
    lua_close(L);
}

/* Live data that stays near the limit fails at once: the retry after Lua's
 * collection needs an eighth of the limit free. */
static void test_retry_needs_room(void **state)
{
    lalloc la = {.limit = 1000};
    void *p;
    (void)state;

    la.enforce = 1;
    la.used = 950;
    assert_null(lalloc_fn(&la, NULL, LUA_TTABLE, 100)); /* past the limit */
    la.used = 900;                                      /* the collection freed a little */
    assert_null(lalloc_fn(&la, NULL, LUA_TTABLE, 100)); /* the same asking: 1000 > 875 */
    assert_int_equal((int)la.refused, 2);
    /* Another asking that fits is not a retry: it passes. */
    p = lalloc_fn(&la, NULL, LUA_TSTRING, 50);
    assert_non_null(p);
    assert_int_equal((int)la.used, 950);
    /* A shrink never fails, even past the limit. */
    la.used = 2000;
    p = lalloc_fn(&la, p, 50, 20);
    assert_non_null(p);
    lalloc_fn(&la, p, 20, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_raises_and_state_survives),
        cmocka_unit_test(test_not_enforced_grows),
        cmocka_unit_test(test_retry_needs_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

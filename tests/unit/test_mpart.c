/* Unit tests for worker/mpart: multipart bodies built from Lua tables, each
 * file read once however many bodies name it, and the errors raised. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "worker/lua/mpart.h"

static char dir[64];

static int setup(void **state)
{
    char p[128];
    FILE *f;

    snprintf(dir, sizeof(dir), "/tmp/test_mpart.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof(p), "%s/a.txt", dir);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("file-bytes", f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    char p[128];

    snprintf(p, sizeof(p), "%s/a.txt", dir);
    unlink(p);
    rmdir(dir);
    return 0;
}

/* Stack: 1 table, 2 easy (light userdata). Leaves the userdata. */
static int call_push(lua_State *L)
{
    mpart_push(L, 1, lua_touserdata(L, 2), dir);
    return 1;
}

/* Builds the body of the Lua table src; NULL or the error. */
static const char *build(lua_State *L, CURL *h, const char *src)
{
    static char msg[512];
    char chunk[512];

    lua_pushcfunction(L, call_push);
    snprintf(chunk, sizeof(chunk), "return %s", src);
    assert_int_equal(luaL_dostring(L, chunk), LUA_OK);
    lua_pushlightuserdata(L, h);
    if (lua_pcall(L, 2, 1, 0) == LUA_OK) {
        lua_pop(L, 1); /* the GC frees the body */
        return NULL;
    }
    err_set(msg, sizeof(msg), "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return msg;
}

static void test_files_read_once(void **state)
{
    lua_State *L = luaL_newstate();
    CURL *h = curl_easy_init();

    for (int i = 0; i < 3; i++)
        assert_null(
            build(L, h, "{ who = 'x', n = 3, f = { path = 'a.txt', type = 'text/plain' } }"));
    assert_int_equal(mpart_files_read(L), 1);
    assert_null(build(L, h, "{ g = { path = 'a.txt', name = 'other.txt' } }"));
    assert_int_equal(mpart_files_read(L), 1);
    lua_gc(L, LUA_GCCOLLECT, 0);
    curl_easy_cleanup(h);
    lua_close(L);
}

static void test_errors(void **state)
{
    static const char *const bad[][2] = {
        {"{ f = { path = 'missing.bin' } }", "multipart.f: cannot read"},
        {"{ f = { name = 'x' } }", "multipart.f: a file is"},
        {"{ f = { path = 'a.txt', type = 1 } }", "type must be a string"},
        {"{ f = true }", "multipart.f: a string, a number or a file"},
        {"{ [1] = 'x' }", "field names must be strings"},
        {"{ f = { path = '/' } }", "not a regular file"},
    };
    lua_State *L = luaL_newstate();
    CURL *h = curl_easy_init();

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *err = build(L, h, bad[i][0]);
        if (err == NULL || strstr(err, bad[i][1]) == NULL)
            fail_msg("%s: got \"%s\", want \"%s\"", bad[i][0], err ? err : "(none)", bad[i][1]);
    }
    assert_int_equal(mpart_files_read(L), 0);
    lua_gc(L, LUA_GCCOLLECT, 0);
    curl_easy_cleanup(h);
    lua_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_read_once),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

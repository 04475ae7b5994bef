/* Unit tests for worker/lua/lmods: each module compiled in is the file it
 * was built from, loads through require, and passes its parser test
 * (tests/unit/data/NAME_parser_test.lua), run here on the compiled-in
 * source so that no module ships untested and no lua5.4 binary is needed. */
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

#include "worker/lua/lmods.h"

/* "quern.redis" -> "redis" */
static const char *short_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto out;
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
        goto out;
    }
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
out:
    fclose(f);
    return buf;
}

/* os.exit inside a parser test: an error the runner reads back, so that the
 * test's verdict reaches cmocka instead of ending the process. */
static int test_exit(lua_State *L)
{
    int ok = lua_isnoneornil(L, 1) || (lua_isboolean(L, 1) && lua_toboolean(L, 1)) ||
             (lua_isinteger(L, 1) && lua_tointeger(L, 1) == 0);
    return luaL_error(L, "quern-test-exit:%s", ok ? "ok" : "failed");
}

static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();

    assert_non_null(L);
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lmods_preload(L);
    lua_pop(L, 2);
    lua_getglobal(L, "os");
    lua_pushcfunction(L, test_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
    /* what a module may take from quern when it loads (quern.mqtt its
     * clock): the worker's own is tested with the engine */
    assert_int_equal(luaL_dostring(L, "package.preload.quern = function() return { now = os.clock,"
                                      " crypto = {} } end"),
                     LUA_OK);
    return L;
}

static void test_names(void **state)
{
    size_t n = 0, len;

    (void)state;
    for (const char *name; (name = lmods_name(n)) != NULL; n++) {
        assert_int_equal(strncmp(name, "quern.", 6), 0);
        assert_non_null(lmods_source(name, &len));
        assert_true(len > 0);
    }
    assert_true(n >= 1);
    assert_null(lmods_source("quern.none", &len));
    assert_null(lmods_source("redis", &len)); /* the full name only */
}

/* What is compiled in is the file in the tree: a stale generated source
 * would test one thing and ship another. */
static void test_source_is_the_file(void **state)
{
    (void)state;
    for (size_t i = 0; lmods_name(i); i++) {
        char path[256];
        size_t len = 0, flen = 0;
        const char *src = lmods_source(lmods_name(i), &len);
        char *file;

        snprintf(path, sizeof(path), "worker/lua/mods/%s.lua", short_name(lmods_name(i)));
        file = slurp(path, &flen);
        assert_non_null(file);
        assert_int_equal(len, flen);
        assert_memory_equal(src, file, len);
        free(file);
    }
}

/* require gives each module's table once (the same table twice), with the
 * module's own chunk name in its errors. */
static void test_require(void **state)
{
    (void)state;
    for (size_t i = 0; lmods_name(i); i++) {
        lua_State *L = new_state();

        lua_getglobal(L, "require");
        lua_pushstring(L, lmods_name(i));
        if (lua_pcall(L, 1, 1, 0) != LUA_OK)
            fail_msg("require %s: %s", lmods_name(i), lua_tostring(L, -1));
        assert_int_equal(lua_type(L, -1), LUA_TTABLE);
        lua_getfield(L, -1, "connect");
        assert_int_equal(lua_type(L, -1), LUA_TFUNCTION);
        lua_pop(L, 1);
        lua_getglobal(L, "require");
        lua_pushstring(L, lmods_name(i));
        assert_int_equal(lua_pcall(L, 1, 1, 0), LUA_OK);
        assert_true(lua_rawequal(L, -1, -2));
        lua_close(L);
    }
}

/* Each module's parser test, given its file's path as arg[1] (as lua5.4
 * would) and the compiled-in module as its argument: a test that sets up
 * what the module needs first loads the file itself, the same bytes
 * (test_source_is_the_file). */
static void test_parser_tests(void **state)
{
    (void)state;
    for (size_t i = 0; lmods_name(i); i++) {
        const char *name = short_name(lmods_name(i));
        char path[256], mod[256];
        lua_State *L = new_state();
        const char *msg = "ok";
        int rc;

        snprintf(path, sizeof(path), "tests/unit/data/%s_parser_test.lua", name);
        snprintf(mod, sizeof(mod), "worker/lua/mods/%s.lua", name);
        lua_createtable(L, 1, 1);
        lua_pushstring(L, path);
        lua_rawseti(L, -2, 0);
        lua_pushstring(L, mod);
        lua_rawseti(L, -2, 1);
        lua_setglobal(L, "arg");
        if (luaL_loadfile(L, path) != LUA_OK) {
            print_message("%s\n", lua_tostring(L, -1));
            fail_msg("%s: every module has its parser test", path);
        }
        lua_getglobal(L, "require");
        lua_pushstring(L, lmods_name(i));
        if (lua_pcall(L, 1, 1, 0) != LUA_OK)
            fail_msg("require %s: %s", lmods_name(i), lua_tostring(L, -1));
        lua_pushstring(L, mod);
        rc = lua_pcall(L, 2, 0, 0);
        if (rc != LUA_OK) {
            msg = lua_tostring(L, -1);
            msg = msg && strstr(msg, "quern-test-exit:ok") ? "ok" : msg;
        }
        if (strcmp(msg, "ok") != 0)
            fail_msg("%s: %s", path, msg ? msg : "(error without a message)");
        lua_close(L);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_source_is_the_file),
        cmocka_unit_test(test_require),
        cmocka_unit_test(test_parser_tests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for worker/lcoro: a VU's coroutine resumed by the real engine
 * (a libev loop and a libcurl multi) against an HTTP server in a thread of
 * the test (tests/unit/loopsrv.h), judged by the requests it saw.
 *
 * The table a VU's functions get says its id, its run (0 in init) and its
 * scenario, and keeps vu.data from init through every run to finish; init
 * and finish run once per VU. A script error, a coroutine.yield of the
 * script's own and a Lua state out of memory (--worker-memory) each fail
 * the step under way, functional, with the script's file:line in the
 * message, and the VU goes on with its next run. lcoro_where, without the
 * loop: the innermost line of Lua code, past a C function. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/engine/engine.h"
#include "worker/engine/lcoro.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

/* Writes the script text (one %u: the server's port) for a test. */
static void write_script(char *path, size_t len, const char *text, unsigned port)
{
    char buf[2048];

    snprintf(buf, sizeof(buf), text, port);
    scriptfile_write(path, len, "lcoro", buf);
}

static void must_see(const loopsrv *s, const char *p)
{
    if (loopsrv_find(s, p) == NULL)
        fail_msg("the server never saw %s", p);
}

/* 2 VUs of 2 runs: each VU's init (run 0), runs 1 and 2 and finish reach
 * the server with its id, its run, its scenario and the count it keeps in
 * vu.data; 8 requests, no error. */
static void test_vu_table(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"CORO\", {})\n"
        "local get = sc:step(1, \"Get\")\n"
        "function sc.init(vu)\n"
        "  vu.data.n = 0\n"
        "  get:get(base .. \"/init?id=\" .. vu.id .. \"&run=\" .. vu.run)\n"
        "end\n"
        "function sc.run(vu)\n"
        "  vu.data.n = vu.data.n + 1\n"
        "  get:get(base .. \"/run?id=\" .. vu.id .. \"&run=\" .. vu.run .. \"&n=\" .. vu.data.n\n"
        "          .. \"&sc=\" .. vu.scenario)\n"
        "end\n"
        "function sc.finish(vu)\n"
        "  get:get(base .. \"/finish?id=\" .. vu.id .. \"&n=\" .. vu.data.n)\n"
        "end\n";
    char path[96], want[96];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), text, s.port);
    enginefix_cfg(&cfg, path, 2, 2);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 8);
    for (int v = 1; v <= 2; v++) {
        snprintf(want, sizeof(want), "/init?id=%d&run=0", v);
        must_see(&s, want);
        for (int r = 1; r <= 2; r++) {
            snprintf(want, sizeof(want), "/run?id=%d&run=%d&n=%d&sc=CORO", v, r, r);
            must_see(&s, want);
        }
        snprintf(want, sizeof(want), "/finish?id=%d&n=2", v);
        must_see(&s, want);
    }
    assert_int_equal(loopsrv_count(&s, "/init"), 2);
    assert_int_equal(loopsrv_count(&s, "/finish"), 2);
    assert_int_equal(f.runs, 4);
    assert_int_equal(f.steps[0].count, 8);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    enginefix_free(&f);
    unlink(path);
}

/* st's one functional error says "<script>:line: " then what. */
static void check_func(const step_stats *st, const char *path, int line, const char *what)
{
    char want[256];
    const char *base = strrchr(path, '/');

    snprintf(want, sizeof(want), "%s:%d: %s", base != NULL ? base + 1 : path, line, what);
    assert_int_equal(st->err_func, 1);
    assert_int_equal(st->err_tech, 0);
    if (strstr(st->sample_func, want) == NULL)
        fail_msg("the error says \"%s\", not \"%s\"", st->sample_func, want);
}

/* 1 VU of 4 runs: run 1 raises an error after its request to step Boom,
 * run 2 calls coroutine.yield itself after its request to step Yield, run
 * 3 runs out of a Lua state of 4 MiB after its request to step Mem. Each
 * is its step's one functional error, at the script's line; every run
 * still ends (4 runs), and run 4 reaches the server: the VU went on. */
static void test_errors_end_the_run(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"ERR\", {})\n"
        "local boom = sc:step(1, \"Boom\")\n"
        "local yield = sc:step(2, \"Yield\")\n"
        "local mem = sc:step(3, \"Mem\")\n"
        "local fine = sc:step(4, \"Fine\")\n"
        "function sc.run(vu)\n"
        "  if vu.run == 1 then boom:get(base .. \"/boom\"); error(\"boom\") end\n"     /* line 9 */
        "  if vu.run == 2 then yield:get(base .. \"/yield\"); coroutine.yield() end\n" /* 10 */
        "  if vu.run == 3 then\n"
        "    mem:get(base .. \"/mem\")\n"
        "    local s = string.rep(\"x\", 64 * 1024 * 1024)\n" /* line 13 */
        "  end\n"
        "  fine:get(base .. \"/fine?run=\" .. vu.run)\n"
        "end\n";
    char path[96];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), text, s.port);
    enginefix_cfg(&cfg, path, 1, 4);
    cfg.mem_limit = 4u << 20;
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 4);
    must_see(&s, "/boom");
    must_see(&s, "/yield");
    must_see(&s, "/mem");
    must_see(&s, "/fine?run=4");
    assert_int_equal(f.runs, 4);
    assert_int_equal(f.nsteps, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(f.steps[i].count, 1);
    check_func(&f.steps[0], path, 9, "boom");
    check_func(&f.steps[1], path, 10, "coroutine.yield outside a request or sleep");
    check_func(&f.steps[2], path, 13,
               "not enough memory (the worker's Lua state may hold 4M, --worker-memory)");
    assert_int_equal(f.steps[3].err_tech + f.steps[3].err_func, 0);
    enginefix_free(&f);
    unlink(path);
}

/* A C function called from Lua: where the Lua code is, into a global. */
static int where_here(lua_State *L)
{
    char at[128];

    lcoro_where(L, at, sizeof(at));
    lua_pushstring(L, at);
    lua_setglobal(L, "at");
    return 0;
}

/* Level 0 is the C function, with no line: the chunk's line 3 is told;
 * with no Lua function on the stack, "". */
static void test_where(void **state)
{
    static const char chunk[] = "local x = 1\n\nhere()\n";
    lua_State *L = luaL_newstate();
    char at[64] = "unset";

    lua_register(L, "here", where_here);
    assert_int_equal(luaL_loadbuffer(L, chunk, sizeof(chunk) - 1, "=t.lua"), LUA_OK);
    assert_int_equal(lua_pcall(L, 0, 0, 0), LUA_OK);
    assert_int_equal(lua_getglobal(L, "at"), LUA_TSTRING);
    assert_string_equal(lua_tostring(L, -1), "t.lua:3: ");
    lcoro_where(L, at, sizeof(at));
    assert_string_equal(at, "");
    lua_close(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vu_table),
        cmocka_unit_test(test_errors_end_the_run),
        cmocka_unit_test(test_where),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

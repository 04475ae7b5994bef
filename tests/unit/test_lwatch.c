/* Unit tests for worker/lwatch: a resume that holds the loop is cut after
 * LWATCH_RESUME_US at its line, pcall or not; a short one is left alone and
 * keeps no hook. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "worker/lua/lwatch.h"

typedef struct fixture {
    lua_State *L;
    lwatch w;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    char err[ERR_MAX];

    f->L = luaL_newstate();
    luaL_openlibs(f->L);
    /* The load files the watch in the registry; an empty chunk loads. */
    lwatch_load_begin(&f->w, f->L);
    assert_int_equal(luaL_dostring(f->L, "return"), LUA_OK);
    assert_int_equal(lwatch_load_end(&f->w, f->L), 0);
    assert_int_equal(lwatch_timer_start(&f->w, err, sizeof(err)), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;

    lwatch_timer_stop(&f->w);
    lua_close(f->L);
    free(f);
    return 0;
}

/* Resumes chunk src on a new thread under the watch; returns the status,
 * the watch's verdict in *cut, the time taken in *us. */
static int resume(fixture *f, const char *src, int *cut, int64_t *us, lua_State **co_out)
{
    lua_State *co = lua_newthread(f->L);
    int nres, st;
    int64_t t0;

    assert_int_equal(luaL_loadbuffer(co, src, strlen(src), "=held"), LUA_OK);
    t0 = clock_mono_us();
    lwatch_begin(&f->w, co);
    st = lua_resume(co, f->L, 0, &nres);
    *cut = lwatch_end(&f->w);
    *us = clock_mono_us() - t0;
    if (co_out != NULL)
        *co_out = co;
    return st;
}

static void test_busy_loop_cut_at_its_line(void **state)
{
    fixture *f = *state;
    int cut;
    int64_t us;
    lua_State *co;
    int st = resume(f, "local n = 0\nwhile true do n = n + 1 end", &cut, &us, &co);

    assert_int_equal(st, LUA_ERRRUN);
    assert_int_equal(cut, 1);
    assert_true(us >= LWATCH_RESUME_US);
    assert_true(us < 2 * LWATCH_RESUME_US);
    assert_non_null(strstr(f->w.msg, "held:2: the VU ran for more than 1 s without yielding"));
    assert_string_equal(lua_tostring(co, -1), f->w.msg);
    lua_pop(f->L, 1);
}

static void test_pcall_does_not_keep_it(void **state)
{
    fixture *f = *state;
    int cut;
    int64_t us;
    int st =
        resume(f, "while true do pcall(function() while true do end end) end", &cut, &us, NULL);

    assert_int_equal(st, LUA_ERRRUN);
    assert_int_equal(cut, 1);
    assert_true(us < 2 * LWATCH_RESUME_US);
    lua_pop(f->L, 1);
}

static void test_short_resume_left_alone(void **state)
{
    fixture *f = *state;
    int cut;
    int64_t us;
    lua_State *co;
    /* 0.3 s of work, then a yield: the watch must not cut it, nor leave a
     * hook on the thread (the VUs run without one). */
    int st = resume(f,
                    "local t = os.clock()\nwhile os.clock() - t < 0.3 do end\n"
                    "coroutine.yield()",
                    &cut, &us, &co);

    assert_int_equal(st, LUA_YIELD);
    assert_int_equal(cut, 0);
    assert_null(lua_gethook(co));
    lua_pop(f->L, 1);
}

static void test_no_resume_no_cut(void **state)
{
    fixture *f = *state;
    int64_t t0 = clock_mono_us();

    /* The loop's own C work between resumes is not a VU's. */
    while (clock_mono_us() - t0 < LWATCH_RESUME_US + 300000)
        ;
    {
        int cut;
        int64_t us;
        assert_int_equal(resume(f, "return 1", &cut, &us, NULL), LUA_OK);
        assert_int_equal(cut, 0);
    }
    lua_pop(f->L, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_busy_loop_cut_at_its_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pcall_does_not_keep_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_short_resume_left_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_resume_no_cut, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

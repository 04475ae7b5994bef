/* Unit tests for worker/lcheck: soft checks (quern.check, step:check,
 * r:check) made by running VUs on the real engine (a libev loop and a
 * libcurl multi) against an HTTP server in a thread of the test
 * (tests/unit/loopsrv.h), the counts summed over the intervals the sink got.
 *
 * 2 VUs of 3 runs: each named check counts a pass or a failure per call,
 * a function by what it returns, a value by its truth; one that raises
 * counts a failure; a set returns whether all passed, r:check its
 * one; no soft check makes its sample an error or ends the run (the VUs'
 * next requests reach the server). A name past the limit of 64 is a
 * script error at its line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/tally.h"
#include "worker/engine/engine.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

/* The check named name counted passes passes and fails failures. */
static void counted(const tally *t, const char *name, uint64_t passes, uint64_t fails)
{
    int i = tally_check_find(t, name);

    if (i < 0)
        fail_msg("no check \"%s\" was counted", name);
    if (t->checks[i].passes != passes || t->checks[i].fails != fails)
        fail_msg("check \"%s\": %llu passes, %llu fails; %llu and %llu were made", name,
                 (unsigned long long)t->checks[i].passes, (unsigned long long)t->checks[i].fails,
                 (unsigned long long)passes, (unsigned long long)fails);
}

static void play(loopsrv *s, enginefix *f, char *path, size_t len, const char *text, uint32_t vus,
                 uint32_t runs)
{
    char buf[3072];
    engine_cfg cfg;

    memset(s, 0, sizeof(*s));
    loopsrv_start(s);
    snprintf(buf, sizeof(buf), text, s->port);
    scriptfile_write(path, len, "lcheck", buf);
    enginefix_cfg(&cfg, path, vus, runs);
    enginefix_new(f, &cfg, -1, -1);
    enginefix_run(f);
    loopsrv_stop(s);
    assert_int_equal(f->status, ENGINE_COMPLETED);
    assert_true(f->run_us < WALL_MAX_US);
}

static void test_counts(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local http = require \"quern.http\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"CHECK\", {})\n"
        "local get = sc:step(1, \"Get\")\n"
        "function sc.run(vu)\n"
        "  local r = get:get(base .. \"/c?vu=\" .. vu.id .. \"&run=\" .. vu.run)\n"
        "  local all = quern.check(vu.run, {\n"
        "    [\"odd run\"] = function(n) return n %% 2 == 1 end,\n"
        "    [\"a true value\"] = true,\n"
        "  })\n"
        "  local one = r:check(\"status is 200\", function(x) return x.status == 200 end)\n"
        "  local no = r:check(\"a false value\", false)\n"
        "  get:check(r, { [\"body is ok\"] = function(x) return x.body == \"ok\" end })\n"
        "  quern.check(r, { [\"raises\"] = function() error(\"inside\") end })\n"
        "  http.get(base .. \"/report?vu=\" .. vu.id .. \"&run=\" .. vu.run .. \"&all=\" ..\n"
        "    tostring(all) .. \"&one=\" .. tostring(one) .. \"&no=\" .. tostring(no))\n"
        "end\n";
    char path[96], want[96];
    loopsrv s;
    enginefix f;

    play(&s, &f, path, sizeof(path), text, 2, 3);
    assert_int_equal(s.nreq, 12);
    for (int v = 1; v <= 2; v++)
        for (int r = 1; r <= 3; r++) {
            snprintf(want, sizeof(want), "/report?vu=%d&run=%d&all=%s&one=true&no=false", v, r,
                     r % 2 == 1 ? "true" : "false");
            if (loopsrv_find(&s, want) == NULL)
                fail_msg("the server never saw %s", want);
        }
    counted(&f.tally, "odd run", 4, 2);
    counted(&f.tally, "a true value", 6, 0);
    counted(&f.tally, "status is 200", 6, 0);
    counted(&f.tally, "a false value", 0, 6);
    counted(&f.tally, "body is ok", 6, 0);
    counted(&f.tally, "raises", 0, 6);
    assert_int_equal(f.tally.nchecks, 6);
    assert_int_equal(f.runs, 6);
    assert_int_equal(f.steps[0].count, 6);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0); /* soft: no sample fails */
    enginefix_free(&f);
    unlink(path);
}

/* 65 names in a run: the 65th is a script error at its line, counted
 * against the step; the 64 before it are counted. */
static void test_too_many_names(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"MANY\", {})\n"
                               "local get = sc:step(1, \"Get\")\n"
                               "function sc.run(vu)\n"
                               "  get:get(base .. \"/m\")\n"
                               "  for i = 1, 65 do\n"
                               "    quern.check(i, { [\"c\" .. i] = true })\n" /* line 8 */
                               "  end\n"
                               "end\n";
    char path[96];
    const char *base;
    loopsrv s;
    enginefix f;

    play(&s, &f, path, sizeof(path), text, 1, 1);
    assert_int_equal(f.tally.nchecks, TALLY_CHECKS_MAX);
    counted(&f.tally, "c64", 1, 0);
    assert_int_equal(tally_check_find(&f.tally, "c65"), -1);
    assert_int_equal(f.steps[0].err_func, 1);
    base = strrchr(path, '/') + 1;
    if (strstr(f.steps[0].sample_func, base) == NULL ||
        strstr(f.steps[0].sample_func, ":8: ") == NULL)
        fail_msg("the error \"%s\" is not at %s:8", f.steps[0].sample_func, base);
    enginefix_free(&f);
    unlink(path);
}

/* A check function that sleeps or makes a request: it cannot wait there
 * (Lua cannot yield inside the check's call), so it raises before the VU is
 * set to wait, counts a failure, and the VU goes on: its next requests reach
 * the server. (Before, the wait was armed, and every later request of the
 * VU failed with "a VU makes one request at a time".) */
static void test_wait_inside(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local http = require \"quern.http\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"WAIT\", {})\n"
        "local get = sc:step(1, \"Get\")\n"
        "function sc.run(vu)\n"
        "  local r = get:get(base .. \"/w?run=\" .. vu.run)\n"
        "  quern.check(r, { [\"sleeps\"] = function() quern.sleep(0.01) return true end })\n"
        "  quern.check(r, { [\"asks\"] = function() http.get(base .. \"/inside\") return true end "
        "})\n"
        "  http.get(base .. \"/after?run=\" .. vu.run)\n"
        "end\n";
    char path[96], want[32];
    loopsrv s;
    enginefix f;

    play(&s, &f, path, sizeof(path), text, 1, 3);
    counted(&f.tally, "sleeps", 0, 3);
    counted(&f.tally, "asks", 0, 3);
    assert_int_equal(loopsrv_count(&s, "/inside"), 0);
    for (int r = 1; r <= 3; r++) {
        snprintf(want, sizeof(want), "/after?run=%d", r);
        if (loopsrv_find(&s, want) == NULL)
            fail_msg("the server never saw %s", want);
    }
    assert_int_equal(s.nreq, 6);
    assert_int_equal(f.steps[0].count, 3);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    enginefix_free(&f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_too_many_names),
        cmocka_unit_test(test_wait_inside),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

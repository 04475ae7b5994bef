/* Unit tests for worker/engine: the worker's event loop played for real, a
 * libev loop and a libcurl multi against an HTTP server in a thread of the
 * test (tests/unit/loopsrv.h), quern's figures held against what the server
 * saw.
 *
 * N VUs of M runs send N x M requests, one per VU and run, and the
 * intervals the sink got count the same; a run bounded by its runs or its
 * duration ends by itself and engine_run returns; pacing and think time
 * space the requests the server sees; a stop asked while a request is in
 * flight lets it complete and be counted, then every VU runs its finish.
 * Timings are judged by lower bounds only (these machines are shared): no
 * test waits a fixed time for what it can see. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/engine/engine.h"
#include "worker/engine/engine_int.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

/* Writes the script text (one %u: the server's port) for a test. */
static void write_script(char *path, size_t len, const char *name, const char *text, unsigned port)
{
    char buf[2048];

    snprintf(buf, sizeof(buf), text, port);
    scriptfile_write(path, len, name, buf);
}

/* 3 VUs of 4 runs: 12 requests at the server, one for each VU and run;
 * the engine's intervals say 12 runs, 12 samples, 12 requests, 3 VUs
 * started, none active at the end, numbered 0, 1, ... */
static void test_runs_counted(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"COUNT\", {})\n"
                               "local hit = sc:step(1, \"Hit\")\n"
                               "function sc.run(vu)\n"
                               "  hit:get(base .. \"/hit?vu=\" .. vu.id .. \"&run=\" .. vu.run)\n"
                               "end\n";
    char path[96], want[64];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), "engine", text, s.port);
    enginefix_cfg(&cfg, path, 3, 4);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_int_equal(f.e->done, 3); /* every VU did its runs: that ended the loop */
    assert_true(f.run_us < WALL_MAX_US);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 12);
    for (int v = 1; v <= 3; v++)
        for (int r = 1; r <= 4; r++) {
            snprintf(want, sizeof(want), "/hit?vu=%d&run=%d", v, r);
            if (loopsrv_find(&s, want) == NULL)
                fail_msg("the server never saw %s", want);
        }
    assert_int_equal(f.nsteps, 1);
    assert_int_equal(f.runs, 12);
    assert_int_equal(f.steps[0].count, 12);
    assert_int_equal(f.steps[0].requests, 12);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    assert_int_equal(f.vus_started, 3);
    assert_int_equal(f.active_end, 0);
    assert_true(f.intervals >= 1); /* at least the last, partial one */
    assert_true(f.seconds_in_order);
    enginefix_free(&f);
    unlink(path);
}

/* No bound on the runs, a duration of 300 ms: the run ends by itself after
 * it, and each request the server saw is one sample (those in flight at
 * the end complete within the grace). */
static void test_duration_ends(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"TIMED\", { think = \"20ms\" })\n"
                               "local tick = sc:step(1, \"Tick\")\n"
                               "function sc.run(vu)\n"
                               "  tick:get(base .. \"/tick\")\n"
                               "end\n";
    char path[96];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), "engine", text, s.port);
    enginefix_cfg(&cfg, path, 2, 0);
    cfg.duration_us = 300000;
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us >= 300000);
    assert_true(f.run_us < WALL_MAX_US);
    assert_true(s.nreq >= 2); /* each VU ran */
    assert_int_equal(f.steps[0].count, loopsrv_count(&s, "/tick"));
    assert_int_equal(f.steps[0].requests, s.nreq);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    assert_int_equal(f.vus_started, 2);
    assert_int_equal(f.active_end, 0);
    enginefix_free(&f);
    unlink(path);
}

/* A pacing of 200 ms: the 3 runs of one VU reach the server at least
 * 150 ms apart (the first request's connect is all the slack), and the
 * engine counts the two slots it paced, none missed. */
static void test_pacing_spaces_runs(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"PACED\", { pacing = \"200ms\" })\n"
                               "local hit = sc:step(1, \"Hit\")\n"
                               "function sc.run(vu)\n"
                               "  hit:get(base .. \"/p?run=\" .. vu.run)\n"
                               "end\n";
    char path[96];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), "engine", text, s.port);
    enginefix_cfg(&cfg, path, 1, 3);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us >= 400000);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 3);
    assert_string_equal(s.log[0].path, "/p?run=1");
    assert_string_equal(s.log[1].path, "/p?run=2");
    assert_string_equal(s.log[2].path, "/p?run=3");
    for (int i = 1; i < 3; i++)
        if (s.log[i].at_us - s.log[i - 1].at_us < 150000)
            fail_msg("runs %d and %d %lld us apart, the pacing is 200 ms", i, i + 1,
                     (long long)(s.log[i].at_us - s.log[i - 1].at_us));
    assert_int_equal(f.runs, 3);
    assert_int_equal(f.pace_asked_us, 400000);
    assert_int_equal(f.missed_pacing, 0);
    enginefix_free(&f);
    unlink(path);
}

/* A think time of 100 ms, no pacing: it goes between the steps of a run
 * and between one run's last step and the next one's first, so each of
 * the 4 requests reaches the server at least 100 ms after the one before
 * (90 here: a timer's rounding). */
static void test_think_spaces_steps(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"THINK\", { think = \"100ms\" })\n"
                               "local one = sc:step(1, \"One\")\n"
                               "local two = sc:step(2, \"Two\")\n"
                               "function sc.run(vu)\n"
                               "  one:get(base .. \"/t?run=\" .. vu.run .. \"&step=1\")\n"
                               "  two:get(base .. \"/t?run=\" .. vu.run .. \"&step=2\")\n"
                               "end\n";
    static const char *const order[] = {"/t?run=1&step=1", "/t?run=1&step=2", "/t?run=2&step=1",
                                        "/t?run=2&step=2"};
    char path[96];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), "engine", text, s.port);
    enginefix_cfg(&cfg, path, 1, 2);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(s.log[i].path, order[i]);
    for (int i = 1; i < 4; i++)
        if (s.log[i].at_us - s.log[i - 1].at_us < 90000)
            fail_msg("%s came %lld us after %s, the think time is 100 ms", order[i],
                     (long long)(s.log[i].at_us - s.log[i - 1].at_us), order[i - 1]);
    assert_int_equal(f.steps[0].count, 2);
    assert_int_equal(f.steps[1].count, 2);
    enginefix_free(&f);
    unlink(path);
}

/* A stop asked while VU 1's request is in flight (the server holds it and
 * tells the test, whose stop releases it): that request completes and is
 * counted without error, each VU then runs its finish (one /finish each),
 * engine_run returns ENGINE_STOPPED long before the duration, and each
 * step's samples are the requests the server saw for it. */
static void test_stop_ends_vus(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"STOP\", { think = \"10ms\" })\n"
                               "local tick = sc:step(1, \"Tick\")\n"
                               "local hold = sc:step(2, \"Held\")\n"
                               "local fin = sc:step(3, \"Finish\")\n"
                               "function sc.run(vu)\n"
                               "  if vu.id == 1 and vu.run == 3 then\n"
                               "    hold:get(base .. \"/hold\")\n"
                               "  else\n"
                               "    tick:get(base .. \"/run?vu=\" .. vu.id)\n"
                               "  end\n"
                               "end\n"
                               "function sc.finish(vu)\n"
                               "  fin:get(base .. \"/finish?vu=\" .. vu.id)\n"
                               "end\n";
    char path[96];
    int ask[2], told[2];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    assert_int_equal(pipe(ask), 0);
    assert_int_equal(pipe(told), 0);
    memset(&s, 0, sizeof(s));
    s.notify_fd = ask[1];
    s.release_fd = told[0];
    loopsrv_start(&s);
    write_script(path, sizeof(path), "engine", text, s.port);
    enginefix_cfg(&cfg, path, 2, 0);
    cfg.duration_us = 8000000; /* the stop comes first, or the test fails */
    enginefix_new(&f, &cfg, ask[0], told[1]);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_STOPPED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(f.e->done, 2);
    assert_int_equal(loopsrv_count(&s, "/hold"), 1);
    assert_non_null(loopsrv_find(&s, "/finish?vu=1"));
    assert_non_null(loopsrv_find(&s, "/finish?vu=2"));
    assert_int_equal(loopsrv_count(&s, "/finish"), 2);
    assert_int_equal(f.steps[0].count, loopsrv_count(&s, "/run"));
    assert_int_equal(f.steps[1].count, 1); /* the request in flight at the stop */
    assert_int_equal(f.steps[2].count, 2);
    for (int i = 0; i < 3; i++)
        assert_int_equal(f.steps[i].err_tech + f.steps[i].err_func, 0);
    assert_int_equal(f.active_end, 0);
    enginefix_free(&f);
    unlink(path);
    close(ask[0]);
    close(ask[1]);
    close(told[0]);
    close(told[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_counted),       cmocka_unit_test(test_duration_ends),
        cmocka_unit_test(test_pacing_spaces_runs), cmocka_unit_test(test_think_spaces_steps),
        cmocka_unit_test(test_stop_ends_vus),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

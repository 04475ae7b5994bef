/* Unit tests for worker/steer: the load steered on the real engine (a libev
 * loop and a libcurl multi) against an HTTP server in a thread of the test
 * (tests/unit/loopsrv.h), as worker/wproc.c steers it from the console.
 *
 * Each test steers at one moment it can see: the server holds a request
 * and tells the test (its /hold), whose ctl callback, on the engine's loop,
 * steers and then releases the request. A pause holds the VU's next request
 * or its think time until the resume (a timer of the test on the engine's
 * loop, the pause's length), moves the planned end by the pause, says how
 * long it was in the intervals, and leaves it out of the samples' times;
 * vus N starts the VUs waiting dormant up to N, or sends those beyond it
 * dormant at their run's end, and the run ends when the rest are done;
 * rate R sets the open model's arrivals from then on. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <ev.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/hist.h"
#include "worker/engine/engine.h"
#include "worker/engine/engine_int.h"
#include "worker/engine/steer.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */
#define PAUSE_S 0.25        /* how long a test pauses */

/* What a test steers at its /hold, and the pipes it is told by. */
enum how { PAUSE, VUS, RATE };
static struct steering {
    enum how how;
    uint32_t vus;       /* VUS: the number asked */
    double rate;        /* RATE: the rate asked */
    int ask[2];         /* the server writes [1] at /hold; the engine watches [0] */
    int told[2];        /* a byte on [1] answers the /hold */
    ev_timer resume;    /* PAUSE: the resume, on the engine's loop */
    int steered;        /* ctl ran */
    int64_t resumed_us; /* when the resume ran (monotonic), 0 before */
} g;

static void on_resume(struct ev_loop *loop, ev_timer *w, int revents)
{
    enginefix *f = w->data;

    steer_resume(f->e);
    g.resumed_us = clock_mono_us();
}

/* The engine's ctl: the server holds the /hold request; steer, then let
 * it answer. Once. */
static int on_hold(void *ud)
{
    enginefix *f = ud;
    char b;

    assert_int_equal(read(g.ask[0], &b, 1), 1);
    g.steered = 1;
    if (g.how == PAUSE) {
        steer_pause(f->e);
        ev_timer_init(&g.resume, on_resume, PAUSE_S, 0.);
        g.resume.data = f;
        ev_timer_start(f->e->loop, &g.resume);
    } else if (g.how == VUS) {
        assert_int_equal(steer_vus(f->e, 0, g.vus), 0);
    } else {
        assert_int_equal(steer_rate(f->e, clock_mono_us() - f->e->load_t0_us, g.rate), 0);
    }
    assert_int_equal(write(g.told[1], "!", 1), 1);
    return -1;
}

/* The server and the script (its text's one %u, the port), the engine
 * made from cfg with the test's ctl: steering by how at the /hold. */
static void start(loopsrv *s, enginefix *f, engine_cfg *cfg, char *path, size_t len,
                  const char *text, enum how how)
{
    char buf[2048];

    memset(&g, 0, sizeof(g));
    g.how = how;
    assert_int_equal(pipe(g.ask), 0);
    assert_int_equal(pipe(g.told), 0);
    memset(s, 0, sizeof(*s));
    s->notify_fd = g.ask[1];
    s->release_fd = g.told[0];
    loopsrv_start(s);
    snprintf(buf, sizeof(buf), text, s->port);
    scriptfile_write(path, len, "steer", buf);
    cfg->script = path;
    cfg->ctl = on_hold;
    cfg->ctl_fd = g.ask[0];
    enginefix_new(f, cfg, -1, -1);
}

static void finish(loopsrv *s, enginefix *f, const char *path)
{
    enginefix_free(f);
    unlink(path);
    for (int i = 0; i < 2; i++) {
        close(g.ask[i]);
        close(g.told[i]);
    }
}

static const loopsrv_req *must_find(const loopsrv *s, const char *p)
{
    const loopsrv_req *r = loopsrv_find(s, p);

    if (r == NULL)
        fail_msg("the server never saw %s", p);
    return r;
}

/* One VU for 300 ms with a think time of 50 ms: its first run's request
 * is held while the test pauses for 250 ms (then, when again is 1, comes a
 * second request of the same sample, a step:time block, with no think
 * time between), then it ticks. The next request (next_path) reaches the
 * server only after the pause (and the think time before it, if any, all
 * of it after the resume); the run ends after its duration and the pause;
 * the intervals count the pause, and no sample's time counts it. */
static void pause_resume(int again, const char *next_path)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local http = require \"quern.http\"\n"
                               "local base = \"http://127.0.0.1:%%u\"\n"
                               "local sc = quern.scenario(\"PAUSE\", { think = \"50ms\" })\n"
                               "local hold = sc:step(1, \"Held\")\n"
                               "local tick = sc:step(2, \"Tick\")\n"
                               "function sc.run(vu)\n"
                               "  if vu.run == 1 then\n"
                               "    hold:time(function()\n"
                               "      http.get(base .. \"/hold\")\n"
                               "      if %s then http.get(base .. \"/after\") end\n"
                               "    end)\n"
                               "  else tick:get(base .. \"/tick?run=\" .. vu.run) end\n"
                               "end\n";
    char tmpl[1024], path[96];
    const int64_t pause_us = (int64_t)(PAUSE_S * 1e6);
    const loopsrv_req *held, *next;
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    snprintf(tmpl, sizeof(tmpl), text, again ? "true" : "false");
    enginefix_cfg(&cfg, NULL, 1, 0);
    cfg.duration_us = 300000;
    start(&s, &f, &cfg, path, sizeof(path), tmpl, PAUSE);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(g.steered && g.resumed_us > 0);
    assert_int_equal(f.e->paused, 0);
    if (f.run_us < 300000 + pause_us)
        fail_msg("the run took %lld us: its 300 ms and the pause, 250 ms, would be more",
                 (long long)f.run_us);
    assert_true(f.run_us < WALL_MAX_US);
    held = must_find(&s, "/hold");
    next = must_find(&s, next_path);
    if (next->at_us - held->at_us < pause_us)
        fail_msg("%s came %lld us after the request the pause began in; it is 250 ms", next_path,
                 (long long)(next->at_us - held->at_us));
    if (!again && next->at_us - g.resumed_us < 40000)
        fail_msg("%s came %lld us after the resume: the think time, 50 ms, went by in the pause",
                 next_path, (long long)(next->at_us - g.resumed_us));
    if (f.paused_us < (uint64_t)pause_us - 5000 || f.paused_us > 2000000)
        fail_msg("the intervals say %llu us paused, the pause was 250 ms",
                 (unsigned long long)f.paused_us);
    assert_int_equal(f.steps[0].count, 1); /* in flight at the pause: it completed */
    assert_int_equal(f.steps[0].requests, again ? 2 : 1);
    assert_int_equal(f.steps[1].count, loopsrv_count(&s, "/tick"));
    assert_true(f.steps[1].count >= 1);
    for (int i = 0; i < 2; i++) {
        if (hist_max(f.steps[i].hist) >= (uint64_t)pause_us - 50000)
            fail_msg("a sample of step %d took %llu us: the pause is in it", i + 1,
                     (unsigned long long)hist_max(f.steps[i].hist));
        assert_int_equal(f.steps[i].err_tech + f.steps[i].err_func, 0);
    }
    finish(&s, &f, path);
}

/* The VU's next request waits for the resume. */
static void test_pause_holds_request(void **state)
{
    pause_resume(1, "/after");
}

/* A think time waits for the resume, its time then. */
static void test_pause_holds_think(void **state)
{
    pause_resume(0, "/tick?run=2");
}

/* 3 VUs of 2 runs, 1 active at the start: VU 1's first request is the
 * first the server sees; at it, vus 3: VUs 2 and 3 start then, each does its
 * 2 runs, and the run ends when all are done. */
static void test_vus_up(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"UP\", {})\n"
                               "local get = sc:step(1, \"Get\")\n"
                               "function sc.run(vu)\n"
                               "  if vu.id == 1 and vu.run == 1 then get:get(base .. \"/hold\")\n"
                               "  else get:get(base .. \"/v?vu=\" .. vu.id .. \"&run=\" .. vu.run) "
                               "end\n"
                               "end\n";
    char path[96], p[64];
    const loopsrv_req *held;
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    enginefix_cfg(&cfg, NULL, 3, 2);
    cfg.active_vus = 1;
    start(&s, &f, &cfg, path, sizeof(path), text, VUS);
    g.vus = 3;
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(g.steered);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 6);
    held = must_find(&s, "/hold");
    assert_ptr_equal(held, &s.log[0]); /* VUs 2 and 3 waited, dormant */
    must_find(&s, "/v?vu=1&run=2");
    for (int v = 2; v <= 3; v++)
        for (int r = 1; r <= 2; r++) {
            snprintf(p, sizeof(p), "/v?vu=%d&run=%d", v, r);
            must_find(&s, p);
        }
    assert_int_equal(f.runs, 6);
    assert_int_equal(f.vus_started, 3);
    assert_int_equal(f.e->done, 3);
    assert_int_equal(f.e->ndormant, 0);
    assert_int_equal(f.steps[0].count, 6);
    finish(&s, &f, path);
}

/* 2 VUs of 3 runs, a think time of 200 ms: at VU 1's first request, vus 1.
 * VU 2 ends the run it is in and goes dormant: its first, or its second
 * if its first request's answer came before the steering (the think time
 * is the start of the next run), not its third; VU 1 does its 3; then the
 * run ends by itself, VU 2 running only its finish. */
static void test_vus_down(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"DOWN\", { think = \"200ms\" })\n"
                               "local get = sc:step(1, \"Get\")\n"
                               "function sc.run(vu)\n"
                               "  if vu.id == 1 and vu.run == 1 then get:get(base .. \"/hold\")\n"
                               "  else get:get(base .. \"/v?vu=\" .. vu.id .. \"&run=\" .. vu.run) "
                               "end\n"
                               "end\n";
    char path[96];
    unsigned n2;
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    enginefix_cfg(&cfg, NULL, 2, 3);
    cfg.active_vus = 2;
    start(&s, &f, &cfg, path, sizeof(path), text, VUS);
    g.vus = 1;
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(g.steered);
    assert_true(f.run_us < WALL_MAX_US);
    must_find(&s, "/hold");
    must_find(&s, "/v?vu=1&run=2");
    must_find(&s, "/v?vu=1&run=3");
    must_find(&s, "/v?vu=2&run=1");
    n2 = loopsrv_count(&s, "/v?vu=2");
    if (n2 > 2)
        fail_msg("VU 2 did %u runs of 3, its last one at most after vus 1", n2);
    assert_int_equal(s.nreq, 3 + n2);
    assert_int_equal(f.runs, 3 + n2);
    assert_int_equal(f.e->done, 2); /* the dormant one too, at the end: its finish */
    assert_int_equal(f.active_end, 0);
    finish(&s, &f, path);
}

/* The open model at 2 arrivals a second for 500 ms, steered at the first
 * arrival's request (due at once) to 80 a second: the rest of the run
 * brings some 40 arrivals, not 1. */
static void test_rate_set(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"RATE\", {})\n"
                               "local get = sc:step(1, \"Get\")\n"
                               "local first = true\n"
                               "function sc.run(vu)\n"
                               "  if first then first = false; get:get(base .. \"/hold\")\n"
                               "  else get:get(base .. \"/a\") end\n"
                               "end\n";
    const rate_stage rs[] = {{0, 2.}, {500000, 2.}};
    char path[96];
    unsigned n;
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    enginefix_cfg(&cfg, NULL, 8, 0);
    cfg.rate_stages = rs;
    cfg.nrate_stages = 2;
    cfg.duration_us = 500000;
    cfg.arrival_stripes = 1;
    cfg.max_lag_us = 1000000;
    start(&s, &f, &cfg, path, sizeof(path), text, RATE);
    g.rate = 80.;
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(g.steered);
    assert_true(f.run_us < WALL_MAX_US);
    n = loopsrv_count(&s, "/a");
    if (n < 20 || n > 42)
        fail_msg("%u arrivals after the rate went to 80 a second for the rest of 500 ms", n);
    assert_int_equal(f.steps[0].count, s.nreq);
    assert_int_equal(f.runs, s.nreq);
    finish(&s, &f, path);
}

/* Nothing to steer: vus N on a run that has not asked for it (no
 * active_vus), rate R on the closed model; each refused, -1. */
static void test_refused(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local sc = quern.scenario(\"NONE\", {})\n"
                               "function sc.run(vu) end\n";
    char path[96];
    enginefix f;
    engine_cfg cfg;

    scriptfile_write(path, sizeof(path), "steer", text);
    enginefix_cfg(&cfg, path, 2, 1);
    enginefix_new(&f, &cfg, -1, -1);
    assert_int_equal(steer_vus(f.e, 0, 1), -1);
    assert_int_equal(steer_rate(f.e, 0, 10.), -1);
    enginefix_free(&f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pause_holds_request),
        cmocka_unit_test(test_pause_holds_think),
        cmocka_unit_test(test_vus_up),
        cmocka_unit_test(test_vus_down),
        cmocka_unit_test(test_rate_set),
        cmocka_unit_test(test_refused),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

/* Unit tests for worker/lmetric: custom metrics (quern.metric.counter,
 * .gauge, .trend) declared as the script loads and recorded by running VUs
 * on the real engine (a libev loop and a libcurl multi) against an HTTP
 * server in a thread of the test (tests/unit/loopsrv.h), the values summed
 * over the intervals the sink got.
 *
 * 2 VUs of 3 runs: a counter totals what was added (once per request the
 * server saw), a counter declared twice under one name is one, a gauge
 * keeps its last value and the least and most set, a trend every value.
 * Recording a value of the wrong kind or sign, with a method the kind has
 * not, or declaring from a VU raises; declaring a name again with another
 * kind fails the script's load at its line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/tally.h"
#include "worker/engine/engine.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

static const tally_metric *metric(const tally *t, const char *name, enum tally_kind kind)
{
    int i = tally_metric_find(t, name);

    if (i < 0)
        fail_msg("no metric %s was counted", name);
    assert_int_equal(t->metrics[i].kind, kind);
    return &t->metrics[i];
}

static void test_recorded(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local http = require \"quern.http\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"METRIC\", {})\n"
        "local get = sc:step(1, \"Get\")\n"
        "local hits = quern.metric.counter(\"hits\")\n"
        "local hits2 = quern.metric.counter(\"hits\")\n"
        "local runs = quern.metric.counter(\"run_sum\")\n"
        "local depth = quern.metric.gauge(\"depth\")\n"
        "local size = quern.metric.trend(\"size\")\n"
        "local function raises(what, f, ...)\n"
        "  local ok, e = pcall(f, ...)\n"
        "  return tostring(not ok and e:find(what, 1, true) ~= nil)\n"
        "end\n"
        "function sc.run(vu)\n"
        "  local r = get:get(base .. \"/m?vu=\" .. vu.id .. \"&run=\" .. vu.run)\n"
        "  hits:add()\n"
        "  runs:add(vu.run)\n"
        "  depth:set(vu.id * 10 + vu.run)\n"
        "  size:add(#r.body * vu.run)\n"
        "  if vu.id == 1 and vu.run == 1 then\n"
        "    hits2:add(100)\n"
        "    http.get(base .. \"/e?neg=\" ..\n"
        "      raises(\"metric hits: -1.0 is not a finite, non-negative number\", hits.add, "
        "hits, "
        "-1)\n"
        "      .. \"&set=\" .. raises(\"metric hits is a counter: it has no set\", hits.set, hits, "
        "1)\n"
        "      .. \"&nan=\" .. raises(\"is not a finite number\", depth.set, depth, 0 / 0)\n"
        "      .. \"&decl=\" .. raises(\"declared when the script loads, not from a VU\",\n"
        "                             quern.metric.counter, \"x\"))\n"
        "  end\n"
        "end\n";
    char path[96], buf[3072];
    const tally_metric *m;
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    snprintf(buf, sizeof(buf), text, s.port);
    scriptfile_write(path, sizeof(path), "lmetric", buf);
    enginefix_cfg(&cfg, path, 2, 3);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(s.nreq, 7);
    if (loopsrv_find(&s, "/e?neg=true&set=true&nan=true&decl=true") == NULL)
        for (unsigned i = 0; i < s.nreq; i++)
            if (strncmp(s.log[i].path, "/e?", 3) == 0)
                fail_msg("a bad record or declaration did not raise its error: %s", s.log[i].path);
    assert_int_equal(f.tally.nmetrics, 4);
    m = metric(&f.tally, "hits", TALLY_COUNTER);
    assert_true(m->sum == (double)loopsrv_count(&s, "/m?") + 100.);
    m = metric(&f.tally, "run_sum", TALLY_COUNTER);
    assert_true(m->sum == 12.); /* 2 x (1 + 2 + 3) */
    assert_int_equal(m->n, 6);
    m = metric(&f.tally, "depth", TALLY_GAUGE);
    assert_true(m->has_value);
    assert_true(m->min == 11. && m->max == 23.);
    assert_true(m->value == 13. || m->value == 23.); /* the last set: either VU's last run */
    m = metric(&f.tally, "size", TALLY_TREND);
    assert_true(tally_trend_stat(m, "count", 0) == 6.);
    assert_true(tally_trend_stat(m, "min", 0) == 2.); /* "ok" in run 1 */
    assert_true(tally_trend_stat(m, "max", 0) == 6.);
    assert_true(tally_trend_stat(m, "mean", 0) == 4.);
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    enginefix_free(&f);
    unlink(path);
}

/* A name declared again with another kind: engine_new fails at the line. */
static void test_kind_clash(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local sc = quern.scenario(\"CLASH\", {})\n"
                               "local a = quern.metric.counter(\"orders\")\n"
                               "local b = quern.metric.trend(\"orders\")\n"
                               "function sc.run(vu) end\n";
    char path[96], err[ERR_MAX], want[160];
    const char *base;
    engine_cfg cfg;

    base = scriptfile_write(path, sizeof(path), "lmetric", text);
    enginefix_cfg(&cfg, path, 1, 1);
    assert_null(engine_new(&cfg, err, sizeof(err)));
    snprintf(want, sizeof(want), "%s:4: metric orders is a counter already, not a trend", base);
    if (strstr(err, want) == NULL)
        fail_msg("engine_new says \"%s\", not \"%s\"", err, want);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded),
        cmocka_unit_test(test_kind_clash),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

/* Unit tests for worker/vureq, the VU's own request as a plug: on the real
 * engine (a libev loop, a libcurl multi) against an HTTP server in a thread
 * of the test (tests/unit/loopsrv.h), every request of a step is its sample,
 * a 500 and a connection closed unanswered are the step's technical errors
 * with their reasons, an untimed request is no sample, and the script goes
 * on after each; and the plug takes the VU's own handle only, last of the
 * engine's table. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/hist.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/plugs/vureq.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */
#define RUNS 3

static void test_samples_and_errors(void **state)
{
    static const char text[] = "local quern = require \"quern\"\n"
                               "local http = require \"quern.http\"\n"
                               "local base = \"http://127.0.0.1:%u\"\n"
                               "local sc = quern.scenario(\"REQ\", {})\n"
                               "local ok = sc:step(1, \"Ok\")\n"
                               "local bad = sc:step(2, \"Bad\")\n"
                               "local gone = sc:step(3, \"Gone\")\n"
                               "function sc.run(vu)\n"
                               "  ok:get(base .. \"/ok\")\n"
                               "  bad:get(base .. \"/500\")\n"
                               "  gone:get(base .. \"/close\")\n"
                               "  http.get(base .. \"/untimed\")\n"
                               "end\n";
    char path[96], buf[1024];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    snprintf(buf, sizeof(buf), text, s.port);
    scriptfile_write(path, sizeof(path), "vureq", buf);
    enginefix_cfg(&cfg, path, 1, RUNS);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);
    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    assert_int_equal(f.runs, RUNS); /* the script went on after each error */

    assert_int_equal(f.nsteps, 3);
    assert_int_equal(f.steps[0].count, RUNS);
    assert_int_equal(f.steps[0].count, loopsrv_count(&s, "/ok"));
    assert_int_equal(f.steps[0].err_tech + f.steps[0].err_func, 0);
    assert_int_equal(f.steps[1].count, loopsrv_count(&s, "/500"));
    assert_int_equal(f.steps[1].err_tech, RUNS);
    assert_string_equal(f.steps[1].sample_tech, "HTTP status 500");
    /* libcurl sends a request again, once, on a fresh connection when a
     * reused one closes unanswered: one sample, the server saw it twice */
    assert_int_equal(f.steps[2].count, RUNS);
    assert_true(loopsrv_count(&s, "/close") >= RUNS);
    assert_int_equal(f.steps[2].err_tech, RUNS);
    assert_true(f.steps[2].sample_tech[0] != '\0');
    /* the untimed requests reached the server and are no step's */
    assert_int_equal(loopsrv_count(&s, "/untimed"), RUNS);
    assert_int_equal(f.steps[0].requests + f.steps[1].requests,
                     loopsrv_count(&s, "/ok") + loopsrv_count(&s, "/500"));
    assert_int_equal(hist_count(f.steps[0].hist), RUNS);
    enginefix_free(&f);
}

/* The plug is asked last and takes the VU's own handle only: not another
 * handle, not any when the VU holds none (neither is touched). */
static void test_own_handle_only(void **state)
{
    vu v;
    xh x;
    CURL *mine = curl_easy_init(), *other = curl_easy_init();

    assert_ptr_equal(plugs[nplugs - 1], &vureq_plug);
    memset(&v, 0, sizeof(v));
    memset(&x, 0, sizeof(x));
    assert_int_equal(vureq_plug.xfer_done(&v, other, CURLE_OK), 0);
    x.easy = mine;
    v.xh = &x;
    assert_int_equal(vureq_plug.xfer_done(&v, other, CURLE_OK), 0);
    assert_int_equal(plugs_xfer_done(&v, other, CURLE_OK), 0);
    curl_easy_cleanup(mine);
    curl_easy_cleanup(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_and_errors),
        cmocka_unit_test(test_own_handle_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

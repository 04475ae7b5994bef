/* Unit tests for worker/lbatch: step:batch and http.batch in a running VU,
 * the real engine (a libev loop and a libcurl multi) against an HTTP server
 * in a thread of the test (tests/unit/loopsrv.h), judged by the requests
 * it saw.
 *
 * 1 VU of 2 runs. A batch of 3 sends them at once, each on a connection of
 * its own (kept for the next run's batch), and returns their responses in
 * order; by default each is a sample of its entry's step, else of the
 * batch's; with sample = "batch" the batch is one sample, its requests all
 * of theirs, its error the one that failed; a bad entry raises at the
 * script's line with nothing sent; http.batch's requests are counted in no
 * step. */
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

#include "tests/unit/enginefix.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

#define WALL_MAX_US 5000000 /* every run here ends well within this */

static const loopsrv_req *must_find(const loopsrv *s, const char *p)
{
    const loopsrv_req *r = loopsrv_find(s, p);

    if (r == NULL)
        fail_msg("the server never saw %s", p);
    return r;
}

static void test_batches(void **state)
{
    static const char text[] =
        "local quern = require \"quern\"\n"
        "local http = require \"quern.http\"\n"
        "local base = \"http://127.0.0.1:%u\"\n"
        "local sc = quern.scenario(\"BATCH\", {})\n"
        "local a, b, c = sc:step(1, \"A\"), sc:step(2, \"B\"), sc:step(3, \"C\")\n"
        "function sc.run(vu)\n"
        "  local q = \"?run=\" .. vu.run\n"
        "  local rs = a:batch({ { \"GET\", base .. \"/e/1\" .. q }, { \"GET\", base .. \"/e/2\" .. "
        "q "
        "},\n"
        "                       { \"GET\", base .. \"/e/3\" .. q, step = b } })\n"
        "  local w = c:batch({ { \"GET\", base .. \"/w\" .. q }, { \"GET\", base .. \"/500\" .. q "
        "} "
        "},\n"
        "                    { sample = \"batch\" })\n"
        "  local ok, e = pcall(a.batch, a, { { \"GET\", base .. \"/never\" }, { \"get\", base .. "
        "\"/no\" } })\n"
        "  local un = http.batch({ { \"GET\", base .. \"/u/1\" }, { \"GET\", base .. \"/u/2\" } "
        "})\n"
        "  http.get(base .. \"/report\" .. q .. \"&n=\" .. #rs .. \"&st=\" .. rs[1].status .. "
        "rs[2].status\n"
        "    .. rs[3].status .. \"&body=\" .. rs[1].body .. \"&w=\" .. w[1].status .. w[2].status\n"
        "    .. \"&bad=\" .. tostring(not ok and e:find(\"batch entry 2\", 1, true) ~= nil)\n"
        "    .. \"&un=\" .. #un)\n"
        "end\n";
    char path[96], buf[3072], p[64];
    unsigned conn[3];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    snprintf(buf, sizeof(buf), text, s.port);
    scriptfile_write(path, sizeof(path), "lbatch", buf);
    enginefix_cfg(&cfg, path, 1, 2);
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    loopsrv_stop(&s);

    assert_int_equal(f.status, ENGINE_COMPLETED);
    assert_true(f.run_us < WALL_MAX_US);
    must_find(&s, "/report?run=1&n=3&st=200200200&body=ok&w=200500&bad=true&un=2");
    must_find(&s, "/report?run=2&n=3&st=200200200&body=ok&w=200500&bad=true&un=2");
    assert_int_equal(loopsrv_count(&s, "/never"), 0); /* the bad batch sent nothing */
    assert_int_equal(loopsrv_count(&s, "/no"), 0);
    assert_int_equal(loopsrv_count(&s, "/e/"), 6);
    assert_int_equal(loopsrv_count(&s, "/u/"), 4);
    assert_int_equal(s.nreq, 6 + 4 + 4 + 2);
    /* at once: run 1's 3 on 3 connections, which run 2's reuse */
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "/e/%d?run=1", i + 1);
        conn[i] = must_find(&s, p)->conn;
    }
    assert_true(conn[0] != conn[1] && conn[1] != conn[2] && conn[0] != conn[2]);
    assert_int_equal(s.accepted, 3);
    /* each: A's 2 a run, B's 1; the batch's one sample of C a run, with
     * both its requests and the 500's error */
    assert_int_equal(f.steps[0].count, 4);
    assert_int_equal(f.steps[0].requests, 4);
    assert_int_equal(f.steps[1].count, 2);
    assert_int_equal(f.steps[1].requests, 2);
    assert_int_equal(f.steps[2].count, 2);
    assert_int_equal(f.steps[2].requests, 4);
    assert_int_equal(f.steps[2].err_tech, 2);
    if (strstr(f.steps[2].sample_tech, "HTTP status 500") == NULL)
        fail_msg("the batch's error says \"%s\"", f.steps[2].sample_tech);
    for (int i = 0; i < 2; i++)
        assert_int_equal(f.steps[i].err_tech + f.steps[i].err_func, 0);
    enginefix_free(&f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

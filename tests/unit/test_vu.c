/* Unit tests for worker/vu: a VU's life on the real engine (a libev loop and
 * a libcurl multi) against an HTTP server in a thread of the test
 * (tests/unit/loopsrv.h), judged by what the server saw.
 *
 * A VU's cookies persist from one run to the next (the server sets one in
 * run 1 and sees it in run 2), each VU has its own though the VUs share
 * their transfer handles, and cookies = "reset" empties the jar; a request
 * that fails (the server closes without answering, a refused port, a 500)
 * is a technical error with its cause, libcurl's or the status; a VU keeps
 * its one connection across its runs, and two VUs do not share one.
 *
 * Without the loop: what a transfer or a stream's opening adds to its
 * sample (vu_sample_add: a step:time block keeps its own time, a stream
 * with no answer yet counts its wait), and the handle a stream is given
 * (vu_stream_easy). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "worker/engine/engine.h"
#include "worker/engine/engine_int.h"
#include "worker/engine/vu.h"

#include "tests/unit/enginefix.h"
#include "tests/unit/loopask.h"
#include "tests/unit/loopsrv.h"
#include "tests/unit/scriptfile.h"

/* The script of one step ("Get") that gets base .. path in each run, the
 * server's port and the scenario's options (a Lua table's fields) given. */
static void write_script(char *path, size_t len, unsigned port, const char *opts, const char *req)
{
    char buf[1024];

    snprintf(buf, sizeof(buf),
             "local quern = require \"quern\"\n"
             "local base = \"http://127.0.0.1:%u\"\n"
             "local sc = quern.scenario(\"VU\", { %s })\n"
             "local get = sc:step(1, \"Get\")\n"
             "function sc.run(vu)\n"
             "  get:get(base .. %s)\n"
             "end\n",
             port, opts, req);
    scriptfile_write(path, len, "vu", buf);
}

/* Plays vus VUs of runs runs of the script in f, to the end. */
static void play(enginefix *f, const char *path, uint32_t vus, uint32_t runs)
{
    engine_cfg cfg;

    enginefix_cfg(&cfg, path, vus, runs);
    enginefix_new(f, &cfg, -1, -1);
    enginefix_run(f);
    assert_int_equal(f->status, ENGINE_COMPLETED);
}

static const loopsrv_req *must_find(const loopsrv *s, const char *p)
{
    const loopsrv_req *r = loopsrv_find(s, p);

    if (r == NULL)
        fail_msg("the server never saw %s", p);
    return r;
}

/* 2 VUs of 2 runs passing one transfer handle between them (a bound of one
 * request in flight: they take turns), so that the cookies must follow the
 * VU, not the handle: each VU's run 2 carries exactly the cookie the server
 * set in its run 1, not the other's; and each VU's requests still come on
 * its own connection. */
static void test_cookies_kept_per_vu(void **state)
{
    char path[96], p[64];
    const loopsrv_req *first[2];
    loopsrv s;
    enginefix f;
    engine_cfg cfg;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "", "\"/cookie?vu=\" .. vu.id .. \"&run=\" .. vu.run");
    enginefix_cfg(&cfg, path, 2, 2);
    cfg.max_in_flight = 1;
    enginefix_new(&f, &cfg, -1, -1);
    enginefix_run(&f);
    assert_int_equal(f.status, ENGINE_COMPLETED);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 4);
    assert_int_equal(s.cookies, 2); /* once each, in run 1 */
    assert_int_equal(s.accepted, 2);
    for (int v = 1; v <= 2; v++) {
        const loopsrv_req *second;
        snprintf(p, sizeof(p), "/cookie?vu=%d&run=1", v);
        first[v - 1] = must_find(&s, p);
        assert_string_equal(first[v - 1]->cookie, "");
        assert_string_not_equal(first[v - 1]->set, "");
        snprintf(p, sizeof(p), "/cookie?vu=%d&run=2", v);
        second = must_find(&s, p);
        assert_string_equal(second->cookie, first[v - 1]->set);
        assert_int_equal(second->conn, first[v - 1]->conn);
    }
    assert_string_not_equal(first[0]->set, first[1]->set);
    assert_int_not_equal(first[0]->conn, first[1]->conn);
    assert_int_equal(f.steps[0].count, 4);
    assert_int_equal(f.steps[0].err_tech, 0);
    enginefix_free(&f);
    unlink(path);
}

/* cookies = "reset": run 2 starts with an empty jar, so it carries no
 * cookie and gets a new one. */
static void test_cookies_reset(void **state)
{
    char path[96];
    loopsrv s;
    enginefix f;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "cookies = \"reset\"", "\"/cookie?run=\" .. vu.run");
    play(&f, path, 1, 2);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 2);
    assert_string_equal(must_find(&s, "/cookie?run=1")->set, "k1=1");
    assert_string_equal(must_find(&s, "/cookie?run=2")->cookie, "");
    assert_string_equal(must_find(&s, "/cookie?run=2")->set, "k2=1");
    enginefix_free(&f);
    unlink(path);
}

/* The step's one sample is a technical error with msg in its message and
 * code (a CURLcode, an HTTP status) as its kind's. */
static void check_technical(const enginefix *f, const char *msg, int32_t code)
{
    const step_stats *st = &f->steps[0];

    assert_int_equal(st->count, 1);
    assert_int_equal(st->requests, 1);
    assert_int_equal(st->err_tech, 1);
    assert_int_equal(st->err_func, 0);
    if (strstr(st->sample_tech, msg) == NULL)
        fail_msg("the error says \"%s\", not \"%s\"", st->sample_tech, msg);
    assert_non_null(st->kinds);
    assert_int_equal(st->kinds->n, 1);
    assert_int_equal(st->kinds->k[0].technical, 1);
    assert_int_equal(st->kinds->k[0].code, code);
    assert_int_equal(st->kinds->k[0].count, 1);
}

/* The server reads the request and closes the connection: libcurl's
 * "Empty reply from server", CURLE_GOT_NOTHING. */
static void test_empty_reply_is_technical(void **state)
{
    char path[96];
    loopsrv s;
    enginefix f;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "", "\"/close\"");
    play(&f, path, 1, 1);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 1);
    check_technical(&f, "Empty reply from server", CURLE_GOT_NOTHING);
    enginefix_free(&f);
    unlink(path);
}

/* A port bound but not listening refuses the connection: libcurl's
 * CURLE_COULDNT_CONNECT, the system's cause in its message. */
static void test_refused_is_technical(void **state)
{
    int fd;
    char path[96];
    enginefix f;

    write_script(path, sizeof(path), loopask_refusing_port(&fd), "", "\"/\"");
    play(&f, path, 1, 1);
    close(fd);

    check_technical(&f, "Connection refused", CURLE_COULDNT_CONNECT);
    enginefix_free(&f);
    unlink(path);
}

/* A 500 is an answer, but a technical error: "HTTP status 500", kind 500. */
static void test_status_500_is_technical(void **state)
{
    char path[96];
    loopsrv s;
    enginefix f;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "", "\"/500\"");
    play(&f, path, 1, 1);
    loopsrv_stop(&s);

    check_technical(&f, "HTTP status 500", 500);
    enginefix_free(&f);
    unlink(path);
}

/* 2 VUs of 3 runs: the server accepts 2 connections, all of a VU's
 * requests come on its own, and the engine counts 2 new connections. */
static void test_connection_reused(void **state)
{
    char path[96], p[64];
    unsigned conn[2] = {0, 0};
    loopsrv s;
    enginefix f;

    memset(&s, 0, sizeof(s));
    loopsrv_start(&s);
    write_script(path, sizeof(path), s.port, "", "\"/c?vu=\" .. vu.id .. \"&run=\" .. vu.run");
    play(&f, path, 2, 3);
    loopsrv_stop(&s);

    assert_int_equal(s.nreq, 6);
    assert_int_equal(s.accepted, 2);
    for (int v = 1; v <= 2; v++)
        for (int r = 1; r <= 3; r++) {
            const loopsrv_req *q;
            snprintf(p, sizeof(p), "/c?vu=%d&run=%d", v, r);
            q = must_find(&s, p);
            if (r == 1)
                conn[v - 1] = q->conn;
            else if (q->conn != conn[v - 1])
                fail_msg("%s came on connection %u, run 1 on %u", p, q->conn, conn[v - 1]);
        }
    assert_int_not_equal(conn[0], conn[1]);
    assert_int_equal(f.steps[0].count, 6);
    assert_int_equal(f.steps[0].new_conns, 2);
    assert_int_equal(f.steps[0].err_tech, 0);
    enginefix_free(&f);
    unlink(path);
}

static xfer_figures figures(void)
{
    xfer_figures f = {.elapsed_us = 5000,
                      .dns_us = 10,
                      .connect_us = 20,
                      .tls_us = 30,
                      .ttfb_us = 4000,
                      .bytes_in = 300,
                      .bytes_out = 100,
                      .new_conns = 1,
                      .requests = 2};
    return f;
}

static void test_adds_up(void **state)
{
    sample p;
    xfer_figures f = figures();

    memset(&p, 0, sizeof(p));
    vu_sample_add(&p, &f, 0);
    vu_sample_add(&p, &f, 0);
    assert_int_equal(p.bytes_in, 600);
    assert_int_equal(p.bytes_out, 200);
    assert_int_equal(p.dns, 20);
    assert_int_equal(p.connect, 40);
    assert_int_equal(p.tls, 60);
    assert_int_equal(p.ttfb, 8000);
    assert_int_equal(p.new_conns, 2);
    assert_int_equal(p.requests, 4);
    assert_int_equal(p.elapsed_us, 5000); /* the last transfer's time, not a sum */
}

static void test_block_times_itself(void **state)
{
    sample p;
    xfer_figures f = figures();

    memset(&p, 0, sizeof(p));
    p.in_block = 1;
    p.elapsed_us = 77;
    vu_sample_add(&p, &f, clock_mono_us() - 1000000);
    assert_int_equal(p.elapsed_us, 77);
    assert_int_equal(p.bytes_in, 300); /* the figures still add up */
}

static void test_no_answer_yet(void **state)
{
    sample p;
    xfer_figures f = figures();
    int64_t start = clock_mono_us() - 2000000; /* a stream opened 2 s ago */

    f.elapsed_us = 0;
    memset(&p, 0, sizeof(p));
    vu_sample_add(&p, &f, start);
    assert_true(p.elapsed_us >= 2000000 && p.elapsed_us < 60000000);
    /* with no start given, no time is made up */
    memset(&p, 0, sizeof(p));
    vu_sample_add(&p, &f, 0);
    assert_int_equal(p.elapsed_us, 0);
    /* a time known is kept whatever the start */
    f.elapsed_us = 1234;
    vu_sample_add(&p, &f, start);
    assert_int_equal(p.elapsed_us, 1234);
}

static void test_stream_easy(void **state)
{
    engine e;
    vu v;
    char errbuf[CURL_ERROR_SIZE];
    const char *const addrs[] = {"127.0.0.1"};
    vu *got = NULL;
    CURL *easy;

    memset(&e, 0, sizeof(e));
    memset(&v, 0, sizeof(v));
    e.no_env_proxy = 1;
    e.cfg.source_addrs = addrs;
    e.cfg.nsource_addrs = 1;
    v.eng = &e;
    v.gid = 1;
    easy = vu_stream_easy(&v, "https://127.0.0.1:1/", NULL, NULL, errbuf);
    assert_non_null(easy);
    /* the engine finds the VU of a finished transfer by it */
    assert_int_equal(curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&got), CURLE_OK);
    assert_ptr_equal(got, &v);
    curl_easy_cleanup(easy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cookies_kept_per_vu),
        cmocka_unit_test(test_cookies_reset),
        cmocka_unit_test(test_empty_reply_is_technical),
        cmocka_unit_test(test_refused_is_technical),
        cmocka_unit_test(test_status_500_is_technical),
        cmocka_unit_test(test_connection_reused),
        cmocka_unit_test(test_adds_up),
        cmocka_unit_test(test_block_times_itself),
        cmocka_unit_test(test_no_answer_yet),
        cmocka_unit_test(test_stream_easy),
    };
    int rc;

    alarm(60); /* an engine that never returns fails the test, not the build */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

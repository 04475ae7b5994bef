/* Unit tests for worker/vu's transfer figures: what a transfer or a stream's
 * opening adds to its sample (vu_sample_add: a step:time block keeps its
 * own time, a stream with no answer yet counts its wait), and the handle a
 * stream is given (vu_stream_easy), on an engine with no loop. The VU's
 * life on the loop is tested by the e2e tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/clock.h"
#include "worker/engine_int.h"
#include "worker/vu.h"

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
        cmocka_unit_test(test_adds_up),
        cmocka_unit_test(test_block_times_itself),
        cmocka_unit_test(test_no_answer_yet),
        cmocka_unit_test(test_stream_easy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

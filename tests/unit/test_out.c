/* The push outputs' machinery: the flags' checks; a receiver that refuses
 * every push (a port nobody listens on) while pushes come faster than they
 * fail: the queue keeps OUT_QUEUE_MAX, the oldest are dropped, every push
 * is counted sent or lost, and the end waits OUT_END_WAIT_MS at most; a
 * JSON lines file gets every push, in order. Includes out.c for its
 * queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "console/out.c"
#include "common/err.h"

static run_opts opts(const char **out, size_t nout)
{
    run_opts o;

    memset(&o, 0, sizeof(o));
    o.script = "plan.lua";
    o.vus = 1;
    o.out = out;
    o.nout = nout;
    return o;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_check(void **state)
{
    const char *good[] = {"jsonl=x.jsonl", "influxdb=http://h/write?db=q",
                          "prometheus-rw=https://h/api/v1/write"};
    const char *bad1[] = {"influx=http://h/"}, *bad2[] = {"influxdb=h:8086/write"},
               *bad3[] = {"jsonl="};
    const char *hdr_bad[] = {"no colon"};
    run_opts o = opts(good, 3);

    assert_int_equal(out_check(&o), 0);
    o = opts(bad1, 1);
    assert_int_equal(out_check(&o), -1);
    o = opts(bad2, 1);
    assert_int_equal(out_check(&o), -1);
    o = opts(bad3, 1);
    assert_int_equal(out_check(&o), -1);
    o = opts(good, 1);
    o.out_header = hdr_bad;
    o.nout_header = 1;
    assert_int_equal(out_check(&o), -1);
}

static void test_refused_and_bounded(void **state)
{
    const char *out[] = {"influxdb=http://127.0.0.1:1/write?db=q"};
    run_opts o = opts(out, 1);
    out_run v = {0}; /* no totals: the steps never came */
    char err[ERR_MAX];
    outs *s = out_start(&o, err, sizeof(err));
    output *op;
    double t0;

    assert_non_null(s);
    op = &s->o[0];
    for (int i = 0; i < 40; i++)
        enqueue(op, xstrdup("m v=1i 1\n"), 9, 0, 0);
    pthread_mutex_lock(&op->mu);
    assert_true(op->n <= OUT_QUEUE_MAX);
    assert_true(op->lost >= 40 - OUT_QUEUE_MAX - 1);
    pthread_mutex_unlock(&op->mu);
    t0 = now_s();
    out_end(s, &v);
    assert_true(now_s() - t0 < OUT_END_WAIT_MS / 1000.0 + 1.5);
    assert_int_equal(op->sent, 0);
    assert_int_equal(op->lost, 40);
    assert_int_equal(op->lost_seconds, 40);
    assert_int_equal(op->lost_final, 0);
    assert_int_equal(op->n, 0);
    out_free(s);
}

static void test_jsonl_in_order(void **state)
{
    char path[] = "/tmp/quern-test-out-XXXXXX", got[64] = "";
    int fd = mkstemp(path);
    char spec[64];
    const char *out[] = {spec};
    run_opts o = opts(out, 1);
    out_run v = {0};
    char err[ERR_MAX];
    outs *s;
    FILE *f;

    assert_true(fd >= 0);
    close(fd);
    snprintf(spec, sizeof(spec), "jsonl=%s", path);
    s = out_start(&o, err, sizeof(err));
    assert_non_null(s);
    enqueue(&s->o[0], xstrdup("1\n"), 2, 0, 0);
    enqueue(&s->o[0], xstrdup("2\n"), 2, 0, 0);
    enqueue(&s->o[0], xstrdup("end\n"), 4, 1, 0);
    out_end(s, &v);
    assert_int_equal(s->o[0].sent, 3);
    assert_int_equal(s->o[0].lost, 0);
    out_free(s);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fread(got, 1, sizeof(got) - 1, f), 8);
    fclose(f);
    assert_string_equal(got, "1\n2\nend\n");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_refused_and_bounded),
        cmocka_unit_test(test_jsonl_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

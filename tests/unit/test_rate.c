/* Unit tests for common/rate: rates, rate stages, due times, stripes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/rate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S 1000000ll

static double rate_ok(const char *s)
{
    char err[ERR_MAX] = "";
    double r = -1;

    if (rate_parse(s, 0, &r, err, sizeof(err)) != 0)
        fail_msg("rate_parse(\"%s\") failed: %s", s, err);
    return r;
}

static void rate_fails(const char *s, int zero_ok, const char *want)
{
    char err[ERR_MAX] = "";
    double r = -1;

    assert_int_equal(rate_parse(s, zero_ok, &r, err, sizeof(err)), -1);
    if (strstr(err, want) == NULL)
        fail_msg("rate_parse(\"%s\"): \"%s\" lacks \"%s\"", s, err, want);
}

/* A window's counts said so that they add up, whichever way they are off. */
static void test_counts_text(void **state)
{
    char b[256];
    rate_counts c = {.scheduled = 800, .started = 598, .late = 3, .init_waits = 12};

    assert_string_equal(rate_counts_text(&c, b, sizeof(b)),
                        "800 arrivals due: 598 started (3 late, 12 after a new VU's init), 0 "
                        "dropped, 202 still waiting");
    c.dropped = 207; /* 805 ended: 5 due before the window */
    c.inits = 14;
    assert_string_equal(rate_counts_text(&c, b, sizeof(b)),
                        "800 arrivals due: 598 started (3 late, 12 after a new VU's init), 207 "
                        "dropped, 5 of them due before; 14 VU(s) made, their init run then");
    c.dropped = 202;
    c.inits = 0;
    assert_null(strstr(rate_counts_text(&c, b, sizeof(b)), "waiting"));
    assert_null(strstr(b, "before"));
    assert_int_equal(strlen(rate_counts_text(&c, b, 20)), 19); /* bounded */
}

static void test_parse(void **state)
{
    char err[ERR_MAX];
    double r;
    (void)state;
    assert_true(rate_ok("200/s") == 200);
    assert_true(rate_ok("30/m") == 0.5);
    assert_true(rate_ok("0.5/s") == 0.5);
    assert_true(rate_ok("7200/h") == 2);
    rate_fails("0/s", 0, "above 0/s");
    rate_fails("5/x", 0, "unit after '/' is s, m or h");
    rate_fails("200", 0, "is not a rate");
    rate_fails("/s", 0, "is not a rate");
    rate_fails("abc/s", 0, "is not a rate");
    rate_fails("1e9/s", 0, "at most");
    rate_fails("-1/s", 1, "is not a rate");
    assert_int_equal(rate_parse("0/s", 1, &r, err, sizeof(err)), 0);
    assert_true(r == 0);
}

static size_t stages_ok(const char *s, rate_stage *st)
{
    char err[ERR_MAX] = "";
    size_t n = 99;

    if (rate_stages_parse(s, st, RATE_STAGES_MAX, &n, err, sizeof(err)) != 0)
        fail_msg("rate_stages_parse(\"%s\") failed: %s", s, err);
    return n;
}

static void test_stages(void **state)
{
    rate_stage st[8];
    char err[ERR_MAX], buf[256];
    size_t n;
    (void)state;
    n = stages_ok("10s:100/s,30s:100/s,10s:0/s", st);
    assert_int_equal(n, 3);
    assert_int_equal(rate_total_us(st, n), 50 * S);
    /* From 0: a climb of 10 s to 100/s is 500 arrivals, 3000 held, 500 down. */
    assert_true(fabs(rate_expected(st, n, 10 * S) - 500) < 1e-6);
    assert_int_equal(rate_total(st, n), 4000);
    assert_true(fabs(rate_at(st, n, 5 * S) - 50) < 1e-9);
    assert_true(fabs(rate_at(st, n, 45 * S) - 50) < 1e-9);
    assert_string_equal(rate_stages_format(st, n, buf, sizeof(buf)), "10s:100/s,30s:100/s,10s:0/s");
    assert_int_equal(rate_stages_parse("10s:0/s", st, 8, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "start no run"));
    assert_int_equal(rate_stages_parse("10s", st, 8, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "is not D:R"));
    assert_int_equal(rate_stages_parse("10s:5/x", st, 8, &n, err, sizeof(err)), -1);
    assert_int_equal(rate_stages_parse("10s:5/s,,1s:1/s", st, 8, &n, err, sizeof(err)), -1);
    assert_int_equal(rate_stages_parse("", st, 8, &n, err, sizeof(err)), -1);
}

static void test_due_constant(void **state)
{
    rate_stage st[2] = {{0, 200}, {20 * S, 200}};
    (void)state;
    assert_int_equal(rate_total(st, 2), 4000);
    assert_int_equal(rate_due(st, 2, 0), 0);
    assert_int_equal(rate_due(st, 2, 1), 5000);
    assert_int_equal(rate_due(st, 2, 200), 1 * S);
    assert_int_equal(rate_due(st, 2, 3999), 20 * S - 5000);
    assert_int_equal(rate_due(st, 2, 4000), -1);
    /* 30/m for 1m: 30 arrivals, 2 s apart. */
    st[0].per_s = st[1].per_s = 0.5;
    st[1].dur_us = 60 * S;
    assert_int_equal(rate_total(st, 2), 30);
    assert_int_equal(rate_due(st, 2, 29), 58 * S);
}

static void test_due_ramp(void **state)
{
    rate_stage st[2] = {{10 * S, 100}, {10 * S, 100}};
    int64_t prev = -1;
    (void)state;
    /* A climb from 0 to 100/s over 10 s: L(t) = 5 t^2, arrival k at sqrt(k/5). */
    assert_int_equal(rate_total(st, 2), 1500);
    for (uint64_t k = 0; k < 1500; k++) {
        int64_t at = rate_due(st, 2, k);
        double want = k <= 500 ? sqrt((double)k / 5) : 10 + (double)(k - 500) / 100;
        assert_true(at >= prev);
        assert_true(fabs((double)at / 1e6 - want) < 2e-6);
        prev = at;
    }
    /* Down again: 100/s to 0 over 10 s. */
    {
        rate_stage dn[2] = {{0, 100}, {10 * S, 0}};
        assert_int_equal(rate_total(dn, 2), 500);
        assert_int_equal(rate_due(dn, 2, 0), 0);
        assert_true(rate_due(dn, 2, 499) < 10 * S);
        assert_true(llabs(rate_due(dn, 2, 375) - 5 * S) < 2);
    }
}

/* Every stripe's cursor together gives the global stream, each arrival once,
 * at the same due time as rate_due. */
static void test_stripes(void **state)
{
    rate_stage st[3] = {{3 * S, 50}, {4 * S, 200}, {3 * S, 0}};
    uint64_t all = rate_total(st, 3);
    (void)state;
    for (uint32_t W = 1; W <= 7; W++) {
        uint64_t sum = 0;
        for (uint32_t w = 0; w < W; w++) {
            rate_cursor c;
            int64_t at;
            uint64_t k = w, got = 0;
            rate_cursor_init(&c, st, 3, w, W);
            while (rate_cursor_next(&c, &at) == 0) {
                assert_int_equal(at, rate_due(st, 3, k));
                k += W;
                got++;
            }
            assert_int_equal(got, rate_stripe_total(st, 3, w, W));
            sum += got;
        }
        assert_int_equal(sum, all);
    }
    /* Two stripes at 100/s each interleave into one even 200/s stream. */
    {
        rate_stage c2[2] = {{0, 200}, {1 * S, 200}};
        rate_cursor a, b;
        int64_t ta, tb;
        rate_cursor_init(&a, c2, 2, 0, 2);
        rate_cursor_init(&b, c2, 2, 1, 2);
        for (int i = 0; i < 100; i++) {
            assert_int_equal(rate_cursor_next(&a, &ta), 0);
            assert_int_equal(rate_cursor_next(&b, &tb), 0);
            assert_int_equal(tb - ta, 5000);
        }
        assert_int_equal(rate_cursor_next(&a, &ta), -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),        cmocka_unit_test(test_stages),
        cmocka_unit_test(test_due_constant), cmocka_unit_test(test_due_ramp),
        cmocka_unit_test(test_stripes),      cmocka_unit_test(test_counts_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

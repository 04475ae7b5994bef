/* Unit tests for common/capacity: the staircase, its stages and the seconds judged. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/capacity.h"
#include "common/err.h"

#include <string.h>

#define S 1000000ll

static void parse_ok(const char *s, capacity_plan *p)
{
    char err[ERR_MAX] = "";

    if (capacity_parse(s, p, err, sizeof(err)) != 0)
        fail_msg("capacity_parse(\"%s\") failed: %s", s, err);
}

static void parse_fails(const char *s, const char *want)
{
    capacity_plan p;
    char err[ERR_MAX] = "";

    if (capacity_parse(s, &p, err, sizeof(err)) != -1)
        fail_msg("capacity_parse(\"%s\") accepted it", s);
    if (strstr(err, want) == NULL)
        fail_msg("capacity_parse(\"%s\"): error \"%s\" lacks \"%s\"", s, err, want);
}

static void test_parse(void **state)
{
    capacity_plan p;
    char buf[CAPACITY_LOAD_MAX];

    (void)state;
    parse_ok("100/s:100/s:30s:2000/s", &p);
    assert_int_equal(p.open, 1);
    assert_true(p.start == 100 && p.step == 100 && p.max == 2000);
    assert_int_equal(p.hold_us, 30 * S);
    assert_int_equal(p.nsteps, 20);
    assert_string_equal(capacity_format(&p, capacity_load(&p, 19), buf, sizeof(buf)), "2000/s");
    assert_string_equal(capacity_unit(&p), "/s");
    parse_ok("10:10:1m", &p);
    assert_int_equal(p.open, 0);
    assert_int_equal(p.nsteps, CAPACITY_STEPS_MAX);
    assert_string_equal(capacity_format(&p, capacity_load(&p, 2), buf, sizeof(buf)), "30");
    assert_string_equal(capacity_unit(&p), "vus");
    parse_ok("10:20:2s:75", &p); /* 10, 30, 50, 70: MAX is not a step of its own */
    assert_int_equal(p.nsteps, 4);
    parse_ok("5:5:2s:5", &p);
    assert_int_equal(p.nsteps, 1);
    parse_fails("100/s:10:30s", "all be rates");
    parse_fails("100/s:100/s", "START:STEP:HOLD");
    parse_fails("1:1:1s:2:3", "START:STEP:HOLD");
    parse_fails("1::1s", "START:STEP:HOLD");
    parse_fails("0:1:1s", "START");
    parse_fails("x:1:1s", "START");
    parse_fails("1:0/s:1s", "STEP");
    parse_fails("1:1:500ms", "1s at least");
    parse_fails("1:1:abc", "HOLD");
    parse_fails("10:1:2s:5", "below START");
    parse_fails("1:1:2s:1000", "more than 100");
}

static void test_stages(void **state)
{
    capacity_plan p;
    stage st[2 * CAPACITY_STEPS_MAX];
    char err[ERR_MAX];
    size_t n;
    int64_t start, leave;

    (void)state;
    parse_ok("10:5:2s:20", &p);
    n = capacity_stages(&p, st);
    assert_int_equal(n, 6);
    assert_int_equal(stages_check(st, n, err, sizeof(err)), 0);
    assert_int_equal(stages_total_us(st, n), 6 * S);
    /* zero-length stages jump: the load is the step's from its first instant */
    assert_true(stages_target(st, n, 0) == 10);
    assert_true(stages_target(st, n, 2 * S - 1) == 10);
    assert_true(stages_target(st, n, 2 * S) == 15);
    assert_true(stages_target(st, n, 5 * S) == 20);
    assert_int_equal(stages_ids(st, n), 20);
    /* the 11th VU starts with the second step, at once */
    assert_int_equal(stages_id_times(st, n, 11, &start, &leave), 0);
    assert_int_equal(start, 2 * S);
    assert_int_equal(leave, -1);
    assert_int_equal(stages_id_times(st, n, 20, &start, &leave), 0);
    assert_int_equal(start, 4 * S);
}

static void test_rate_stages(void **state)
{
    capacity_plan p;
    rate_stage st[2 * CAPACITY_STEPS_MAX];
    char err[ERR_MAX];
    size_t n;

    (void)state;
    parse_ok("100/s:100/s:2s:300/s", &p);
    n = capacity_rate_stages(&p, st);
    assert_int_equal(n, 6);
    assert_int_equal(rate_stages_check(st, n, err, sizeof(err)), 0);
    /* 2 s at 100/s, 2 s at 200/s, 2 s at 300/s */
    assert_int_equal(rate_total(st, n), 1200);
    assert_true(rate_at(st, n, S) == 100);
    assert_true(rate_at(st, n, 3 * S) == 200);
    assert_int_equal(rate_due(st, n, 0), 0);
    /* arrival 200 is due as the first step ends (rate.c keeps it inside that stage) */
    assert_in_range(rate_due(st, n, 200), 2 * S - 1, 2 * S);
    assert_int_equal(rate_due(st, n, 202), 2 * S + 10000);
    assert_in_range(rate_due(st, n, 600), 4 * S - 1, 4 * S);
    assert_int_equal(rate_due(st, n, 603), 4 * S + 10000);
    assert_int_equal(rate_due(st, n, 1200), -1);
}

static void test_seconds(void **state)
{
    capacity_plan p;
    size_t i = 99;
    int last = -1;

    (void)state;
    parse_ok("1:1:3s:3", &p);
    /* step 0 is [0, 3): second 0 settles, 1 and 2 are judged, 2 last */
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 0, &i, &last), -1);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 1, &i, &last), 0);
    assert_int_equal(i, 0);
    assert_int_equal(last, 0);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 2, &i, &last), 0);
    assert_int_equal(last, 1);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 3, &i, &last), -1);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 5, &i, &last), 0);
    assert_int_equal(i, 1);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 9, &i, &last), -1); /* past it */
    assert_int_equal(capacity_second(&p, 0, 3, &i, &last), 0);
    /* a step of 2.5 s: a second that straddles two steps counts for none */
    parse_ok("1:1:2500ms:3", &p);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 1, &i, &last), 0);
    assert_int_equal(last, 1);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 2, &i, &last), -1);
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 3, &i, &last), -1); /* 3.0 < 3.5 */
    assert_int_equal(capacity_second(&p, CAPACITY_SETTLE_US, 4, &i, &last), 0);
    assert_int_equal(i, 1);
}

static void test_settle(void **state)
{
    capacity_plan p;
    char err[ERR_MAX] = "";

    (void)state;
    parse_ok("1:1:2s:3", &p);
    assert_int_equal(capacity_check_settle(&p, CAPACITY_SETTLE_US, err, sizeof(err)), 0);
    assert_int_equal(capacity_check_settle(&p, 0, err, sizeof(err)), 0);
    assert_int_equal(capacity_check_settle(&p, 1500000, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no whole second"));
    assert_int_equal(capacity_check_settle(&p, -1, err, sizeof(err)), -1);
    parse_ok("1:1:2500ms:3", &p); /* step 1 is [2.5, 5): only [4, 5) once settled */
    assert_int_equal(capacity_check_settle(&p, CAPACITY_SETTLE_US, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),       cmocka_unit_test(test_stages),
        cmocka_unit_test(test_rate_stages), cmocka_unit_test(test_seconds),
        cmocka_unit_test(test_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

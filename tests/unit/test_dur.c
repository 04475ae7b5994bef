/* Unit tests for common/dur. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/dur.h"
#include "common/err.h"

#include <string.h>

/* Parses s, asserting success and returning the result. */
static int64_t parse_ok(const char *s)
{
    char err[ERR_MAX] = "";
    int64_t us = -42;
    if (dur_parse(s, &us, err, sizeof(err)) != 0)
        fail_msg("dur_parse(\"%s\") failed: %s", s, err);
    return us;
}

/* Parses s, asserting failure with an error containing want; *us untouched. */
static void parse_fails(const char *s, const char *want)
{
    char err[ERR_MAX] = "";
    int64_t us = -42;
    if (dur_parse(s, &us, err, sizeof(err)) != -1)
        fail_msg("dur_parse(\"%s\") accepted it as %lld", s, (long long)us);
    assert_int_equal(us, -42);
    if (strstr(err, want) == NULL)
        fail_msg("dur_parse(\"%s\"): error \"%s\" lacks \"%s\"", s, err, want);
}

static void test_parse_units(void **state)
{
    assert_int_equal(parse_ok("500us"), 500);
    assert_int_equal(parse_ok("250ms"), 250000);
    assert_int_equal(parse_ok("2s"), 2000000);
    assert_int_equal(parse_ok("2m"), 120000000);
    assert_int_equal(parse_ok("1h"), 3600000000LL);
    assert_int_equal(parse_ok("0s"), 0);
    assert_int_equal(parse_ok("0us"), 0);
}

static void test_parse_compound(void **state)
{
    assert_int_equal(parse_ok("1m30s"), 90000000);
    assert_int_equal(parse_ok("1h2m3s4ms"), 3723004000LL);
    assert_int_equal(parse_ok("1h2m3s4ms5us"), 3723004005LL);
    assert_int_equal(parse_ok("1s500ms"), 1500000);
    /* the same unit twice adds up */
    assert_int_equal(parse_ok("1s1s"), 2000000);
}

static void test_parse_fractions(void **state)
{
    assert_int_equal(parse_ok("1.5s"), 1500000);
    assert_int_equal(parse_ok(".5s"), 500000);
    assert_int_equal(parse_ok("0.25ms"), 250);
    assert_int_equal(parse_ok("1.5h"), 5400000000LL);
    assert_int_equal(parse_ok("1.5m30s"), 120000000);
    assert_int_equal(parse_ok("0.000001s"), 1);
    /* below a microsecond is truncated */
    assert_int_equal(parse_ok("1.5us"), 1);
    assert_int_equal(parse_ok("0.0000009s"), 0);
    /* an hour needs more than 10 fraction digits to be exact */
    assert_int_equal(parse_ok("0.0000000002777777777777778h"), 1);
    /* many digits are fine */
    assert_int_equal(parse_ok("1.00000000000000000000000000000001s"), 1000000);
}

static void test_parse_bare_seconds(void **state)
{
    assert_int_equal(parse_ok("10"), 10000000);
    assert_int_equal(parse_ok("0.5"), 500000);
    assert_int_equal(parse_ok("0"), 0);
    assert_int_equal(parse_ok("1."), 1000000);
}

static void test_parse_whitespace(void **state)
{
    assert_int_equal(parse_ok("  2s"), 2000000);
    assert_int_equal(parse_ok("2s \t\n"), 2000000);
    assert_int_equal(parse_ok(" 10 "), 10000000);
}

static void test_parse_limits(void **state)
{
    assert_int_equal(parse_ok("9223372036854775807us"), INT64_MAX);
    parse_fails("9223372036854775808us", "too large");
    parse_fails("99999999999999999999999s", "too large");
    assert_int_equal(parse_ok("2562047788h"), 2562047788LL * 3600000000LL);
    parse_fails("2562047789h", "too large");
    parse_fails("2000000000h2000000000h", "too large");
    parse_fails("9223372036854775807us1us", "too large");
}

static void test_parse_errors(void **state)
{
    char err[ERR_MAX];
    int64_t us = 7;

    /* the exact message for the common mistake */
    assert_int_equal(dur_parse("2x", &us, err, sizeof(err)), -1);
    assert_string_equal(err, "bad duration \"2x\": unknown unit \"x\" (use us, ms, s, m, h)");
    assert_int_equal(us, 7);

    parse_fails("", "empty");
    parse_fails("   ", "empty");
    parse_fails(NULL, "empty");
    parse_fails("-1s", "negative");
    parse_fails(" -5 ", "negative");
    parse_fails("1m30", "missing unit after \"30\"");
    parse_fails("5sec", "unknown unit \"sec\"");
    parse_fails("1e3s", "unknown unit \"e\"");
    parse_fails("1S", "unknown unit \"S\"");
    parse_fails("s", "expected a number at \"s\"");
    parse_fails(".", "expected a number");
    parse_fails("1s-2s", "unexpected \"-2s\"");
    parse_fails("+1s", "expected a number");
    parse_fails("1s junk", "unexpected \" junk\"");
    parse_fails("1 s", "unexpected \" s\"");
    parse_fails("1..5s", "unexpected");
    parse_fails("1s,", "unexpected \",\"");
}

static void test_parse_err_buffer(void **state)
{
    int64_t us = 3;
    char small[8];

    /* a NULL or tiny error buffer is fine */
    assert_int_equal(dur_parse("bogus", &us, NULL, 0), -1);
    memset(small, 'z', sizeof(small));
    assert_int_equal(dur_parse("bogus", &us, small, sizeof(small)), -1);
    assert_int_equal(strlen(small), sizeof(small) - 1);
    assert_int_equal(us, 3);
}

/* Formats us, asserting the text. */
static void format_is(int64_t us, const char *want)
{
    char buf[DUR_FORMAT_MAX];
    char *r = dur_format(us, buf, sizeof(buf));
    assert_ptr_equal(r, buf);
    assert_string_equal(buf, want);
}

static void test_format(void **state)
{
    format_is(0, "0s");
    format_is(1, "1us");
    format_is(500, "500us");
    format_is(999, "999us");
    format_is(1000, "1ms");
    format_is(1500, "1.5ms");
    format_is(1234, "1.234ms");
    format_is(1001, "1.001ms");
    format_is(250000, "250ms");
    format_is(2000000, "2s");
    format_is(1500000, "1.5s");
    format_is(2000001, "2.000001s");
    format_is(59999999, "59.999999s");
    format_is(60000000, "1m0s");
    format_is(90000000, "1m30s");
    format_is(90500000, "1m30.5s");
    format_is(120000000, "2m0s");
    format_is(3600000000LL, "1h0m0s");
    format_is(3605000000LL, "1h0m5s");
    format_is(3723004000LL, "1h2m3.004s");
    format_is(-1500, "-1.5ms");
    format_is(-90000000, "-1m30s");
    format_is(INT64_MAX, "2562047788h0m54.775807s");
    format_is(INT64_MIN, "-2562047788h0m54.775808s");
}

static void test_format_small_buffer(void **state)
{
    char buf[4];
    memset(buf, 'z', sizeof(buf));
    dur_format(90000000, buf, sizeof(buf));
    assert_string_equal(buf, "1m3");

    /* len 0: buf untouched */
    buf[0] = 'q';
    assert_ptr_equal(dur_format(5, buf, 0), buf);
    assert_int_equal(buf[0], 'q');
}

static void test_round_trip(void **state)
{
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* spread over many magnitudes */
        int64_t us = (int64_t)((x >> 1) >> (x % 63));
        char buf[DUR_FORMAT_MAX];
        dur_format(us, buf, sizeof(buf));
        assert_int_equal(parse_ok(buf), us);
    }
}

/* The live display's clock: rounded to the second, padded fields. */
static void test_clock(void **state)
{
    char buf[DUR_FORMAT_MAX];

    (void)state;
    assert_string_equal(dur_clock(0, buf, sizeof(buf)), "0s");
    assert_string_equal(dur_clock(-5000000, buf, sizeof(buf)), "0s");
    assert_string_equal(dur_clock(499999, buf, sizeof(buf)), "0s");
    assert_string_equal(dur_clock(500000, buf, sizeof(buf)), "1s");
    assert_string_equal(dur_clock(42000000, buf, sizeof(buf)), "42s");
    assert_string_equal(dur_clock(59600000, buf, sizeof(buf)), "1m00s");
    assert_string_equal(dur_clock(63000000, buf, sizeof(buf)), "1m03s");
    assert_string_equal(dur_clock(3599000000LL, buf, sizeof(buf)), "59m59s");
    assert_string_equal(dur_clock(7500000000LL, buf, sizeof(buf)), "2h05m00s");
}

/* The pages' prose: a decimal below a minute, padded fields above. */
static void test_prose(void **state)
{
    char buf[DUR_FORMAT_MAX];

    (void)state;
    assert_string_equal(dur_prose(-1, buf, sizeof(buf)), "-");
    assert_string_equal(dur_prose(0, buf, sizeof(buf)), "0.0 s");
    assert_string_equal(dur_prose(3000000, buf, sizeof(buf)), "3.0 s");
    assert_string_equal(dur_prose(59940000, buf, sizeof(buf)), "59.9 s");
    assert_string_equal(dur_prose(125000000, buf, sizeof(buf)), "2 min 05 s");
    assert_string_equal(dur_prose(3720000000LL, buf, sizeof(buf)), "1 h 02 min");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_units),
        cmocka_unit_test(test_parse_compound),
        cmocka_unit_test(test_parse_fractions),
        cmocka_unit_test(test_parse_bare_seconds),
        cmocka_unit_test(test_parse_whitespace),
        cmocka_unit_test(test_parse_limits),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_err_buffer),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_small_buffer),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_prose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

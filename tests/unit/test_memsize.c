/* Unit tests for common/memsize. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/memsize.h"

#include <string.h>

static uint64_t parse_ok(const char *s)
{
    char err[ERR_MAX] = "";
    uint64_t b = 42;
    if (memsize_parse(s, &b, err, sizeof(err)) != 0)
        fail_msg("memsize_parse(\"%s\") failed: %s", s, err);
    return b;
}

static void parse_fails(const char *s, const char *want)
{
    char err[ERR_MAX] = "";
    uint64_t b = 42;
    if (memsize_parse(s, &b, err, sizeof(err)) != -1)
        fail_msg("memsize_parse(\"%s\") accepted it as %llu", s, (unsigned long long)b);
    assert_true(b == 42);
    if (strstr(err, want) == NULL)
        fail_msg("memsize_parse(\"%s\"): \"%s\" does not say \"%s\"", s, err, want);
}

static void test_units(void **state)
{
    (void)state;
    assert_true(parse_ok("100") == 100);
    assert_true(parse_ok("64K") == 64ull << 10);
    assert_true(parse_ok("256M") == 256ull << 20);
    assert_true(parse_ok("256m") == 256ull << 20);
    assert_true(parse_ok("2G") == 2ull << 30);
    assert_true(parse_ok("2GB") == 2ull << 30);
    assert_true(parse_ok("2GiB") == 2ull << 30);
    assert_true(parse_ok("1T") == 1ull << 40);
}

static void test_refused(void **state)
{
    (void)state;
    parse_fails("", "not an amount of memory");
    parse_fails("M", "not an amount of memory");
    parse_fails("-1M", "not an amount of memory");
    parse_fails("1.5G", "not an amount of memory");
    parse_fails("12Q", "not an amount of memory");
    parse_fails("12MBs", "not an amount of memory");
    parse_fails(" 12M", "not an amount of memory");
    parse_fails("0", "not an amount of memory");
    parse_fails("99999999999999999999", "too large");
    parse_fails("17000000T", "too large");
}

static void test_worker_default(void **state)
{
    (void)state;
    /* 75 % shared by the workers */
    assert_true(memsize_worker_default(16ull << 30, 4) == 3ull << 30);
    assert_true(memsize_worker_default(16ull << 30, 0) == 12ull << 30);
    /* a floor, a ceiling, and a value when the host says nothing */
    assert_true(memsize_worker_default(1ull << 30, 64) == MEMSIZE_DEFAULT_MIN);
    assert_true(memsize_worker_default(1ull << 50, 1) == MEMSIZE_WORKER_MAX);
    assert_true(memsize_worker_default(0, 2) == MEMSIZE_DEFAULT_UNKNOWN);
    /* this host's memory is readable on Linux */
    assert_true(memsize_host_total() > (16ull << 20));
}

static void test_format(void **state)
{
    char buf[MEMSIZE_FORMAT_MAX];
    (void)state;
    assert_string_equal(memsize_format(256ull << 20, buf, sizeof(buf)), "256M");
    assert_string_equal(memsize_format(1536ull << 10, buf, sizeof(buf)), "1536K");
    assert_string_equal(memsize_format(100, buf, sizeof(buf)), "100");
    assert_string_equal(memsize_format(1ull << 40, buf, sizeof(buf)), "1T");
    assert_string_equal(memsize_format(1ull << 50, buf, sizeof(buf)), "1024T");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_worker_default),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

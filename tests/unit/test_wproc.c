/* wproc_vu_share: the VU ranges a worker gets from its agent are checked
 * before anything is sized from them: empty, overlapping, repeated,
 * decreasing, unevenly spaced, out-of-bounds and huge ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "worker/wproc.h"

#define MAXR 8

/* Runs wproc_vu_share over n (first, count) pairs given as 2n integers. */
static int share(uint32_t *first, uint32_t *stride, uint32_t *count, char *err, size_t n, ...)
{
    Quern__VuRange r[MAXR], *p[MAXR];
    va_list ap;

    assert_true(n <= MAXR);
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        Quern__VuRange z = QUERN__VU_RANGE__INIT;
        r[i] = z;
        r[i].first = va_arg(ap, uint32_t);
        r[i].count = va_arg(ap, uint32_t);
        p[i] = &r[i];
    }
    va_end(ap);
    err[0] = '\0';
    return wproc_vu_share(p, n, first, stride, count, err, 256);
}

static void test_empty(void **state)
{
    uint32_t f = 9, s = 9, c = 9;
    char err[ERR_MAX];

    assert_int_equal(wproc_vu_share(NULL, 0, &f, &s, &c, err, sizeof(err)), 0);
    assert_int_equal(c, 0);
    assert_int_equal(s, 1);
    /* Ranges of no VUs are skipped, even one that would be out of bounds. */
    assert_int_equal(share(&f, &s, &c, err, 3, 0u, 0u, 5u, 0u, UINT32_MAX, 0u), 0);
    assert_int_equal(c, 0);
}

static void test_progressions(void **state)
{
    uint32_t f, s, c;
    char err[ERR_MAX];

    assert_int_equal(share(&f, &s, &c, err, 1, 5u, 3u), 0);
    assert_true(f == 5 && s == 1 && c == 3);
    /* The agent's interleaved split: one VU per range. */
    assert_int_equal(share(&f, &s, &c, err, 3, 2u, 1u, 5u, 1u, 8u, 1u), 0);
    assert_true(f == 2 && s == 3 && c == 3);
    /* Adjacent ranges make one run. */
    assert_int_equal(share(&f, &s, &c, err, 3, 1u, 1u, 2u, 3u, 5u, 2u), 0);
    assert_true(f == 1 && s == 1 && c == 6);
    /* A single VU: stride 1. */
    assert_int_equal(share(&f, &s, &c, err, 2, 0u, 0u, 7u, 1u), 0);
    assert_true(f == 7 && s == 1 && c == 1);
    /* The last index there is. */
    assert_int_equal(share(&f, &s, &c, err, 1, UINT32_MAX, 1u), 0);
    assert_true(f == UINT32_MAX && c == 1);
}

static void test_overlapping_and_repeated(void **state)
{
    uint32_t f, s, c;
    char err[ERR_MAX];

    assert_int_equal(share(&f, &s, &c, err, 2, 1u, 3u, 2u, 2u), -1);
    assert_non_null(strstr(err, "not evenly spaced at 2"));
    /* The same VU twice: a zero stride. */
    assert_int_equal(share(&f, &s, &c, err, 2, 7u, 1u, 7u, 1u), -1);
    assert_non_null(strstr(err, "not increasing at 7"));
    assert_int_equal(share(&f, &s, &c, err, 2, 5u, 1u, 3u, 1u), -1);
    assert_non_null(strstr(err, "not increasing at 3"));
    assert_int_equal(share(&f, &s, &c, err, 3, 1u, 1u, 2u, 1u, 2u, 1u), -1);
    assert_non_null(strstr(err, "not evenly spaced at 2"));
}

static void test_uneven(void **state)
{
    uint32_t f, s, c;
    char err[ERR_MAX];

    assert_int_equal(share(&f, &s, &c, err, 3, 1u, 1u, 3u, 1u, 4u, 1u), -1);
    assert_non_null(strstr(err, "not evenly spaced at 4"));
    /* A stride of 3, then a range of consecutive VUs. */
    assert_int_equal(share(&f, &s, &c, err, 2, 1u, 1u, 4u, 2u), -1);
    assert_non_null(strstr(err, "not evenly spaced at 5"));
    /* Consecutive VUs, then a gap. */
    assert_int_equal(share(&f, &s, &c, err, 2, 1u, 2u, 9u, 1u), -1);
    assert_non_null(strstr(err, "not evenly spaced at 9"));
}

static void test_out_of_bounds(void **state)
{
    uint32_t f, s, c;
    char err[ERR_MAX];

    /* VU indices start at 1. */
    assert_int_equal(share(&f, &s, &c, err, 1, 0u, 1u), -1);
    assert_non_null(strstr(err, "out of bounds"));
    /* A range past the last index. */
    assert_int_equal(share(&f, &s, &c, err, 1, UINT32_MAX, 2u), -1);
    assert_non_null(strstr(err, "out of bounds"));
    assert_int_equal(share(&f, &s, &c, err, 1, 2u, UINT32_MAX), -1);
    assert_non_null(strstr(err, "out of bounds"));
}

/* Every index there is, in one range or in two: read at once, not VU by VU
 * (an agent's message must not hold the worker for seconds). */
static void test_huge(void **state)
{
    uint32_t f, s, c;
    char err[ERR_MAX];
    clock_t t0 = clock();

    assert_int_equal(share(&f, &s, &c, err, 1, 1u, UINT32_MAX), 0);
    assert_true(f == 1 && s == 1 && c == UINT32_MAX);
    assert_int_equal(share(&f, &s, &c, err, 2, 1u, 1u << 31, (1u << 31) + 1, UINT32_MAX >> 1), 0);
    assert_true(f == 1 && s == 1 && c == UINT32_MAX);
    assert_true(clock() - t0 < CLOCKS_PER_SEC / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_progressions),
        cmocka_unit_test(test_overlapping_and_repeated),
        cmocka_unit_test(test_uneven),
        cmocka_unit_test(test_out_of_bounds),
        cmocka_unit_test(test_huge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

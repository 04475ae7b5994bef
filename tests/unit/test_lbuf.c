/* Unit tests for common/lbuf: a bounded line never written past its end. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/lbuf.h"

static void test_fits(void **state)
{
    char buf[32];
    lbuf b = {buf, 0, sizeof(buf)};

    lbuf_put(&b, "GET ", 4);
    lbuf_fmt(&b, "%d %s", 200, "ok");
    assert_int_equal(b.len, 10);
    assert_memory_equal(buf, "GET 200 ok", 10);
}

static void test_cut(void **state)
{
    char buf[16];
    lbuf b = {buf, 0, 8};

    memset(buf, 'x', sizeof(buf));
    lbuf_put(&b, "0123", 4);
    lbuf_fmt(&b, "%s", "456789");
    assert_int_equal(b.len, 8);
    assert_memory_equal(buf, "01234567", 8);
    assert_int_equal(buf[8], 'x'); /* nothing past cap */
    lbuf_put(&b, "z", 1);
    lbuf_fmt(&b, "%d", 1);
    assert_int_equal(b.len, 8);
    assert_int_equal(buf[8], 'x');
}

/* A formatted piece longer than LBUF_FMT_MAX keeps its first bytes. */
static void test_long_piece(void **state)
{
    static char big[LBUF_FMT_MAX * 2], out[LBUF_FMT_MAX * 2];
    lbuf b = {out, 0, sizeof(out)};

    memset(big, 'a', sizeof(big) - 1);
    lbuf_fmt(&b, "%s", big);
    assert_int_equal(b.len, LBUF_FMT_MAX - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_long_piece),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

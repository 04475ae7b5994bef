/* Unit tests for worker/traceid: the traceparent line's format, no zero
 * ids, no repeat over a million, the parse of a script's own header. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/wire/traceid.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

static int lower_hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

static void test_format(void **state)
{
    traceid_gen g;
    char line[TRACEID_LINE_LEN + 1], id[TRACEID_HEX_LEN + 1];

    traceid_init(&g);
    for (int i = 0; i < 1000; i++) {
        traceid_line(&g, line, id);
        assert_int_equal(strlen(line), TRACEID_LINE_LEN);
        assert_memory_equal(line, "traceparent: 00-", 16);
        assert_true(lower_hex(line + 16, 32));
        assert_int_equal(line[48], '-');
        assert_true(lower_hex(line + 49, 16));
        assert_string_equal(line + 65, "-01");
        assert_int_equal(strlen(id), TRACEID_HEX_LEN);
        assert_memory_equal(id, line + 16, 32);
        assert_true(strspn(line + 16, "0") < 32);
        assert_true(strspn(line + 49, "0") < 16);
    }
}

/* A state whose draws start with zeros would give a zero id: it is drawn
 * again. Seeds near each other still give unrelated ids. */
static void test_no_zero_and_seeds(void **state)
{
    traceid_gen a, b;
    char la[TRACEID_LINE_LEN + 1], lb[TRACEID_LINE_LEN + 1], ia[33], ib[33];

    traceid_seed(&a, 1);
    traceid_seed(&b, 2);
    traceid_line(&a, la, ia);
    traceid_line(&b, lb, ib);
    assert_string_not_equal(ia, ib);
    traceid_seed(&a, 0);
    traceid_line(&a, la, ia);
    assert_true(strspn(ia, "0") < 32);
}

static int cmp16(const void *x, const void *y)
{
    return memcmp(x, y, 16);
}

static int cmp8(const void *x, const void *y)
{
    return memcmp(x, y, 8);
}

static int unhex(char c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* A million trace ids (and parent ids), none twice. */
static void test_no_repeat(void **state)
{
    enum { N = 1000000 };
    uint8_t *ids = xmalloc((size_t)N * 16), *par = xmalloc((size_t)N * 8);
    traceid_gen g;
    char line[TRACEID_LINE_LEN + 1], id[TRACEID_HEX_LEN + 1];
    size_t dup = 0;

    traceid_init(&g);
    for (size_t i = 0; i < N; i++) {
        traceid_line(&g, line, id);
        for (int k = 0; k < 16; k++)
            ids[i * 16 + k] = (uint8_t)(unhex(id[2 * k]) << 4 | unhex(id[2 * k + 1]));
        for (int k = 0; k < 8; k++)
            par[i * 8 + k] = (uint8_t)(unhex(line[49 + 2 * k]) << 4 | unhex(line[50 + 2 * k]));
    }
    qsort(ids, N, 16, cmp16);
    for (size_t i = 1; i < N; i++)
        dup += memcmp(ids + (i - 1) * 16, ids + i * 16, 16) == 0;
    assert_int_equal(dup, 0);
    /* 64-bit parents: a repeat among 1e6 has odds of about 3e-8 */
    qsort(par, N, 8, cmp8);
    for (size_t i = 1; i < N; i++)
        dup += memcmp(par + (i - 1) * 8, par + i * 8, 8) == 0;
    assert_int_equal(dup, 0);
    xfree(ids);
    xfree(par);
}

static void test_parse(void **state)
{
    char id[TRACEID_HEX_LEN + 1];

    assert_int_equal(traceid_parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", id),
                     0);
    assert_string_equal(id, "0af7651916cd43dd8448eb211c80319c");
    assert_int_equal(
        traceid_parse("  00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00 ", id), 0);
    assert_string_equal(id, "0af7651916cd43dd8448eb211c80319c");
    static const char *const bad[] = {
        "",
        "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01",
        "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
        "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-",
        "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0g",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(traceid_parse(bad[i], id), -1);
        assert_string_equal(id, "");
    }
    assert_int_equal(traceid_parse(NULL, id), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_no_zero_and_seeds),
        cmocka_unit_test(test_no_repeat),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

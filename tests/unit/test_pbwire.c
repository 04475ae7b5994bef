/* Unit tests for worker/pbwire: varints, each wire type, truncation and
 * the refused wire types. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/wire/pbwire.h"

static void test_fields(void **state)
{
    /* 1: varint 150; 2: "hi"; 3: fixed32 1; 4: fixed64 2 */
    static const uint8_t in[] = {0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i', 0x1d, 1, 0, 0,
                                 0,    0x21, 2,    0,    0,    0,   0,   0,    0, 0};
    pbwire r = {in, in + sizeof(in)};
    pbwire_field f;

    assert_int_equal(pbwire_next(&r, &f), 1);
    assert_int_equal(f.num, 1);
    assert_int_equal(f.wt, 0);
    assert_int_equal(f.v, 150);
    assert_int_equal(pbwire_next(&r, &f), 1);
    assert_int_equal(f.wt, 2);
    assert_int_equal(f.n, 2);
    assert_memory_equal(f.p, "hi", 2);
    assert_int_equal(pbwire_next(&r, &f), 1);
    assert_int_equal(f.wt, 5);
    assert_int_equal(f.v, 1);
    assert_int_equal(pbwire_next(&r, &f), 1);
    assert_int_equal(f.wt, 1);
    assert_int_equal(f.v, 2);
    assert_int_equal(pbwire_next(&r, &f), 0);
}

static int one(const uint8_t *p, size_t n)
{
    pbwire r = {p, p + n};
    pbwire_field f;
    return pbwire_next(&r, &f);
}

static void test_bad(void **state)
{
    static const uint8_t trunc_varint[] = {0x08, 0x96};
    static const uint8_t trunc_len[] = {0x12, 0x05, 'a'};
    static const uint8_t trunc_fixed[] = {0x1d, 1, 0};
    static const uint8_t group[] = {0x0b};
    static const uint8_t zero[] = {0x00, 0x01};
    static const uint8_t long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t max64[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0x01};
    pbwire r = {max64, max64 + sizeof(max64)};
    pbwire_field f;

    assert_int_equal(one(trunc_varint, sizeof(trunc_varint)), -1);
    assert_int_equal(one(trunc_len, sizeof(trunc_len)), -1);
    assert_int_equal(one(trunc_fixed, sizeof(trunc_fixed)), -1);
    assert_int_equal(one(group, sizeof(group)), -1);
    assert_int_equal(one(zero, sizeof(zero)), -1);
    assert_int_equal(one(long_varint, sizeof(long_varint)), -1);
    assert_int_equal(pbwire_next(&r, &f), 1);
    assert_true(f.v == UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for worker/vshare: one share per group of VUs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/wire/vshare.h"

static void test_one_share_per_group(void **state)
{
    vshare_set s = {0};
    CURLSH *a = vshare_get(&s, 0);

    assert_non_null(a);
    assert_ptr_equal(vshare_get(&s, VSHARE_GROUP - 1), a);
    assert_ptr_not_equal(vshare_get(&s, VSHARE_GROUP), a);
    /* far groups grow the table; the first group's share stays */
    assert_non_null(vshare_get(&s, 100000));
    assert_ptr_equal(vshare_get(&s, 1), a);
    assert_true(s.n > 100000 / VSHARE_GROUP);
    vshare_free(&s);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_share_per_group),
    };
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for record/strtab.c: keys found again after the table grows,
 * copied, and told apart from absent ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/strtab.h"

static void test_put_get(void **state)
{
    strtab t = {0};
    char key[32];
    int added;

    (void)state;
    assert_null(strtab_get(&t, "x"));
    for (size_t i = 0; i < 100000; i++) {
        snprintf(key, sizeof(key), "k%zu", i);
        *strtab_put(&t, key, &added) = i * 3;
        assert_true(added);
    }
    strcpy(key, "k5"); /* the table holds its own copy */
    key[1] = 'z';
    assert_int_equal(t.n, 100000);
    for (size_t i = 0; i < 100000; i += 7) {
        snprintf(key, sizeof(key), "k%zu", i);
        assert_non_null(strtab_get(&t, key));
        assert_int_equal(*strtab_get(&t, key), i * 3);
    }
    assert_int_equal(*strtab_put(&t, "k42", &added), 126);
    assert_false(added);
    assert_int_equal(t.n, 100000);
    assert_null(strtab_get(&t, "k100000"));
    assert_null(strtab_get(&t, ""));
    *strtab_put(&t, "", NULL) = 7;
    assert_int_equal(*strtab_get(&t, ""), 7);
    strtab_free(&t);
    assert_null(strtab_get(&t, "k1"));
    strtab_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

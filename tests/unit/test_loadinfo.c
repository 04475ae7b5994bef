/* Unit tests for common/loadinfo: a property is recorded once, where it was
 * first asked for, a later default or optional kept; feeders keep their
 * columns; the record is bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/loadinfo.h"

static void test_props(void **state)
{
    loadinfo li = {0};

    (void)state;
    loadinfo_add_prop(&li, "password", "s.lua:3", NULL, 0);
    loadinfo_add_prop(&li, "base_url", "s.lua:4", "http://h", 0);
    loadinfo_add_prop(&li, "password", "s.lua:9", "x", 1);
    assert_int_equal(li.nprops, 2);
    assert_string_equal(li.props[0].where, "s.lua:3");
    assert_string_equal(li.props[0].dflt, "x");
    assert_int_equal(li.props[0].optional, 1);
    assert_string_equal(li.props[1].dflt, "http://h");
    loadinfo_free(&li);
    assert_int_equal(li.nprops, 0);
    loadinfo_free(&li);
    loadinfo_free(NULL);
}

static void test_csv_and_bound(void **state)
{
    loadinfo li = {0};
    const char *cols[] = {"user", "password"};
    char name[32];

    (void)state;
    loadinfo_add_csv(&li, "users.csv", "s.lua:5", cols, 2);
    loadinfo_add_csv(&li, "raw.csv", "s.lua:6", NULL, 0);
    assert_int_equal(li.ncsvs, 2);
    assert_string_equal(li.csvs[0].cols[1], "password");
    assert_int_equal(li.csvs[1].ncols, 0);
    for (int i = 0; i < LOADINFO_MAX + 10; i++) {
        snprintf(name, sizeof(name), "p%d", i);
        loadinfo_add_prop(&li, name, "s.lua:1", NULL, 0);
    }
    assert_int_equal(li.nprops, LOADINFO_MAX);
    loadinfo_free(&li);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_props),
        cmocka_unit_test(test_csv_and_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

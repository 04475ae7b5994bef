/* Unit tests for store/dbopts: the --db, --name and --tag options. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "common/err.h"
#include "common/props.h"
#include "store/dbopts.h"

static void test_opts(void **state)
{
    db_opts o = {0};
    char err[ERR_MAX], buf[64];

    assert_true(db_opts_flag("--db"));
    assert_true(db_opts_flag("--tag"));
    assert_false(db_opts_flag("--vus"));
    assert_string_equal(db_opts_name(&o, "dir/plan.lua", buf, sizeof(buf)), "plan");
    assert_string_equal(db_opts_name(&o, "plan", buf, sizeof(buf)), "plan");
    assert_string_equal(db_opts_name(&o, "a/.lua", buf, sizeof(buf)), ".lua");
    assert_int_equal(db_opts_set(&o, "--name", "nightly", err, sizeof(err)), 0);
    assert_string_equal(db_opts_name(&o, "dir/plan.lua", buf, sizeof(buf)), "nightly");
    assert_int_equal(db_opts_set(&o, "--tag", "env=ci", err, sizeof(err)), 0);
    assert_int_equal(db_opts_set(&o, "--tag", "build=42", err, sizeof(err)), 0);
    assert_int_equal(db_opts_set(&o, "--tag", "novalue", err, sizeof(err)), -1);
    assert_int_equal(props_count(o.tags), 2);
    unsetenv(DB_PATH_ENV);
    assert_string_equal(db_opts_path(&o), DB_PATH_DEFAULT);
    setenv(DB_PATH_ENV, "/tmp/x.db", 1);
    assert_string_equal(db_opts_path(&o), "/tmp/x.db");
    unsetenv(DB_PATH_ENV);
    assert_int_equal(db_opts_set(&o, "--db", "none", err, sizeof(err)), 0);
    assert_null(db_opts_path(&o));
    assert_int_equal(db_opts_set(&o, "--db", "", err, sizeof(err)), -1);
    db_opts_free(&o);
    db_opts_free(&o);
}

/* The messages a caller prefixes with the flag. */
static void test_opts_errors(void **state)
{
    db_opts o = {0};
    char err[ERR_MAX];

    assert_int_equal(db_opts_set(&o, "--db", "", err, sizeof(err)), -1);
    assert_string_equal(err, "an empty path (use --db none to record nothing)");
    assert_int_equal(db_opts_set(&o, "--name", "", err, sizeof(err)), -1);
    assert_string_equal(err, "the run name is empty");
    assert_int_equal(db_opts_set(&o, "--vus", "2", err, sizeof(err)), -1);
    assert_null(o.path);
    assert_null(o.name);
    assert_null(o.tags);
    db_opts_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opts),
        cmocka_unit_test(test_opts_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

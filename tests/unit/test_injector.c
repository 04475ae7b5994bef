/* Unit tests for store/injector: the injector's own load per second,
 * stored and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "store/injector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "dbfix.h"

static void test_store(void **state)
{
    fx *f = *state;
    db_run_info ri;
    char err[ERR_MAX] = "";
    injector_row a = {0, 1, 0, 420, 3000};
    injector_row late = {0, 1, 1, 990, 280000}; /* a second worker's part, after the second */
    injector_row c = {1, 2, 0, 300, 2000};
    injector_row *rows;
    size_t n;
    int64_t id;

    memset(&ri, 0, sizeof(ri));
    ri.name = "i";
    ri.script = f->script;
    ri.vus = 5;
    ri.started_us = 1700000000000000;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    assert_int_equal(injector_write(f->d, id, &a, err, sizeof(err)), 0);
    assert_int_equal(injector_write(f->d, id, &c, err, sizeof(err)), 0);
    assert_int_equal(injector_write(f->d, id, &late, err, sizeof(err)), 0);
    assert_int_equal(injector_load(db_sqlite(f->d), id, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    /* the late part adds its worker; the busiest CPU and the worst lag stay */
    assert_int_equal(rows[0].second, 0);
    assert_int_equal(rows[0].workers, 2);
    assert_int_equal(rows[0].saturated, 1);
    assert_int_equal(rows[0].cpu_max_permille, 990);
    assert_int_equal(rows[0].lag_max_us, 280000);
    assert_int_equal(rows[1].saturated, 0);
    xfree(rows);
    assert_int_equal(injector_load(db_sqlite(f->d), id + 1, &rows, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 0);
    assert_null(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_store, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for store/capacity_db: a capacity search written, read back, and its windows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "store/capacity_db.h"

#include <string.h>

#include "dbfix.h"

static int64_t begin_run(fx *f)
{
    db_run_info ri;
    char err[ERR_MAX];
    int64_t id;

    memset(&ri, 0, sizeof(ri));
    ri.name = "cap";
    ri.script = f->script;
    ri.vus = 1;
    ri.started_us = 1700000000000000;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    if (id <= 0)
        fail_msg("db_run_begin: %s", err);
    return id;
}

static void test_roundtrip(void **state)
{
    fx *f = *state;
    char err[ERR_MAX] = "";
    capacity_db_step st[3];
    capacity_db_run c, got;
    capacity_db_window w[4];
    size_t n = 99;
    int64_t id = begin_run(f), other = begin_run(f);

    memset(st, 0, sizeof(st));
    memset(&c, 0, sizeof(c));
    for (int i = 0; i < 3; i++) {
        st[i].load = 50.0 * (i + 1);
        st[i].t0_us = 2000000ll * i;
        st[i].t1_us = st[i].t0_us + 2000000;
        st[i].from_us = st[i].t0_us + 1000000;
        st[i].seconds = 1;
        st[i].count = (uint64_t)(50 * (i + 1));
        st[i].tps = st[i].load;
        st[i].p50_ms = 0.3;
        st[i].p95_ms = 0.5 + i;
        st[i].p99_ms = 0.9 + i;
        st[i].passed = i < 2;
        st[i].runs_s = i == 0 ? -1 : 25.0 * i; /* -1: not kept (an older search) */
        st[i].inits = i == 0 ? -1 : i;
        st[i].init_waits = i == 0 ? -1 : 2 * i;
    }
    st[2].errors_pct = 16.7;
    snprintf(st[2].failed, sizeof(st[2].failed), "errors<1%%: errors = 16.7 %%");
    c.found = 1;
    c.value = 100;
    snprintf(c.unit, sizeof(c.unit), "/s");
    c.settle_us = 1000000;
    c.steps = st;
    c.nsteps = 3;
    assert_int_equal(capacity_db_write(f->d, id, &c, err, sizeof(err)), 0);
    assert_int_equal(capacity_db_read(db_sqlite(f->d), id, &got, err, sizeof(err)), 1);
    assert_int_equal(got.found, 1);
    assert_true(got.value == 100);
    assert_string_equal(got.unit, "/s");
    assert_int_equal(got.settle_us, 1000000);
    assert_int_equal(got.nsteps, 3);
    assert_true(got.steps[1].load == 100 && got.steps[1].p95_ms == 1.5);
    assert_int_equal(got.steps[2].count, 150);
    assert_int_equal(got.steps[2].passed, 0);
    assert_string_equal(got.steps[2].failed, "errors<1%: errors = 16.7 %");
    assert_string_equal(got.steps[0].failed, "");
    assert_true(got.steps[0].runs_s == -1 && got.steps[0].inits == -1 &&
                got.steps[0].init_waits == -1);
    assert_true(got.steps[2].runs_s == 50 && got.steps[2].inits == 2 &&
                got.steps[2].init_waits == 4);
    capacity_db_free(&got);
    assert_int_equal(capacity_db_windows(db_sqlite(f->d), id, w, 2, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2); /* bounded by max */
    assert_int_equal(capacity_db_windows(db_sqlite(f->d), id, w, 4, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 3);
    assert_int_equal(w[2].step, 2);
    assert_int_equal(w[2].t0_us, 4000000);
    assert_int_equal(w[2].t1_us, 6000000);
    assert_int_equal(w[2].from_us, 5000000);
    assert_int_equal(w[2].passed, 0);
    /* a run without a search */
    assert_int_equal(capacity_db_read(db_sqlite(f->d), other, &got, err, sizeof(err)), 0);
    assert_int_equal(capacity_db_windows(db_sqlite(f->d), other, w, 4, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

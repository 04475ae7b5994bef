/* Unit tests for store/dbtally: a run's checks and custom metrics written
 * with its totals are read back as they were. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "store/dbtally.h"

#include <string.h>

#include "dbfix.h"

static void test_round_trip(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    db_step steps[1] = {{"SC-A-STEP-1", "home", "A"}};
    const char *scens[1] = {"A"};
    db_run_info ri;
    step_stats tot;
    tally t;
    dbtally out;
    int64_t id;
    int k, g, tr;

    memset(&ri, 0, sizeof(ri));
    ri.name = "tally";
    ri.script = f->script;
    ri.vus = 1;
    ri.started_us = 1700000000000000;
    ri.steps = steps;
    ri.nsteps = 1;
    ri.scen_names = scens;
    ri.nscens = 1;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    stats_init(&tot);
    tally_init(&t);
    t.checks[tally_check_id(&t, "status is 200")].passes = 9;
    t.checks[tally_check_id(&t, "status is 200")].fails = 1;
    k = tally_metric_def(&t, "orders", TALLY_COUNTER, err, sizeof(err));
    g = tally_metric_def(&t, "queue", TALLY_GAUGE, err, sizeof(err));
    tr = tally_metric_def(&t, "basket", TALLY_TREND, err, sizeof(err));
    tally_counter_add(&t.metrics[k], 20);
    tally_gauge_set(&t.metrics[g], 3, 1);
    tally_gauge_set(&t.metrics[g], 1, 2);
    tally_trend_add(&t.metrics[tr], 4);
    tally_trend_add(&t.metrics[tr], 8);
    {
        db_run_end_info ei = {"completed", ri.started_us + 2000000, 2000000, &tot, 1, &t};
        assert_int_equal(db_run_end(f->d, id, &ei, err, sizeof(err)), 0);
    }
    assert_int_equal(dbtally_read(db_sqlite(f->d), id, &out, err, sizeof(err)), 0);
    assert_int_equal(out.nchecks, 1);
    assert_string_equal(out.checks[0].name, "status is 200");
    assert_int_equal(out.checks[0].passes, 9);
    assert_int_equal(out.checks[0].fails, 1);
    assert_int_equal(out.nmetrics, 3); /* by name */
    assert_string_equal(out.metrics[0].name, "basket");
    assert_int_equal(out.metrics[0].count, 2);
    assert_true(out.metrics[0].mean == 6 && out.metrics[0].max == 8);
    assert_string_equal(out.metrics[1].kind, "counter");
    assert_true(out.metrics[1].total == 20 && out.metrics[1].rate == 10);
    assert_true(out.metrics[2].has_value && out.metrics[2].value == 1);
    assert_true(out.metrics[2].min == 1 && out.metrics[2].max == 3);
    dbtally_free(&out);
    tally_free(&t);
    stats_free(&tot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

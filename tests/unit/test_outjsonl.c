/* JSON lines: a second and the end, read back with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "console/outjsonl.h"

static void test_second_and_end(void **state)
{
    step_stats st;
    const char *names[] = {"SC-A-STEP-1)Log \"in\""};
    const char *scens[] = {"A"};
    out_input in = {0};
    json_t *o, *s;
    size_t len;
    char *got;

    stats_init(&st);
    stats_record(&st, 2000, 2000);
    st.count = 1;
    st.err_func = 1;
    st.bytes_in = 10;
    in.run = "nightly";
    in.run_id = 3;
    in.second = 5;
    in.nsteps = 1;
    in.steps = &st;
    in.names = names;
    in.scens = scens;
    in.vus = 2;
    got = outjsonl_render(&in, &len);
    assert_int_equal(len, strlen(got));
    assert_int_equal(got[len - 1], '\n');
    assert_null(memchr(got, '\n', len - 1));
    o = json_loads(got, 0, NULL);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "run")), "nightly");
    assert_int_equal(json_integer_value(json_object_get(o, "run_id")), 3);
    assert_int_equal(json_integer_value(json_object_get(o, "second")), 5);
    assert_int_equal(json_integer_value(json_object_get(o, "vus")), 2);
    assert_null(json_object_get(o, "arrivals"));
    assert_null(json_object_get(o, "end"));
    s = json_array_get(json_object_get(o, "steps"), 0);
    assert_string_equal(json_string_value(json_object_get(s, "step")), names[0]);
    assert_string_equal(json_string_value(json_object_get(s, "scenario")), "A");
    assert_int_equal(json_integer_value(json_object_get(s, "count")), 1);
    assert_int_equal(json_integer_value(json_object_get(s, "errors")), 1);
    assert_int_equal(json_integer_value(json_object_get(s, "err_functional")), 1);
    assert_int_equal(json_integer_value(json_object_get(s, "bytes_received")), 10);
    assert_true(json_real_value(json_object_get(s, "p95_ms")) == 2.0);
    assert_true(json_real_value(json_object_get(s, "max_ms")) == 2.0);
    json_decref(o);
    xfree(got);
    in.final = 1;
    in.has_arrivals = 1;
    in.arrivals.scheduled = 9;
    got = outjsonl_render(&in, &len);
    o = json_loads(got, 0, NULL);
    assert_true(json_is_true(json_object_get(o, "end")));
    assert_int_equal(json_integer_value(json_object_get(o, "seconds")), 5);
    assert_null(json_object_get(o, "second"));
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(o, "arrivals"), "scheduled")), 9);
    assert_null(json_object_get(o, "checks")); /* a run without any */
    json_decref(o);
    xfree(got);

    /* the script's checks and metrics, as the summary JSON has them */
    {
        tally t;
        char err[ERR_MAX];
        json_t *c, *m;
        tally_init(&t);
        t.checks[tally_check_id(&t, "status is 200")].passes = 3;
        t.checks[tally_check_id(&t, "status is 200")].fails = 1;
        tally_counter_add(&t.metrics[tally_metric_def(&t, "orders", TALLY_COUNTER, err, 128)], 8);
        in.tally = &t;
        in.seconds = 2;
        got = outjsonl_render(&in, &len);
        o = json_loads(got, 0, NULL);
        c = json_array_get(json_object_get(o, "checks"), 0);
        m = json_array_get(json_object_get(o, "metrics"), 0);
        assert_string_equal(json_string_value(json_object_get(c, "name")), "status is 200");
        assert_int_equal(json_integer_value(json_object_get(c, "fails")), 1);
        assert_true(json_real_value(json_object_get(c, "pass_pct")) == 75.0);
        assert_string_equal(json_string_value(json_object_get(m, "kind")), "counter");
        assert_true(json_real_value(json_object_get(m, "total")) == 8.0);
        assert_true(json_real_value(json_object_get(m, "rate")) == 4.0);
        json_decref(o);
        xfree(got);
        tally_free(&t);
    }
    stats_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_and_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

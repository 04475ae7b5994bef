/* Unit tests for proto/interval_tally: a worker's tally travels in an Interval,
 * packed and unpacked, and two workers' messages add up in the receiver's
 * sum exactly as the tallies merge; what a broken sender writes is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "proto/interval_tally.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "proto/interval_sum.h"

/* t packed into an Interval and unpacked again (free with
 * quern__interval__free_unpacked). */
static Quern__Interval *over_the_wire(const tally *t)
{
    Quern__Interval *m = interval_sum_msg_new(1, 0, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0), *out;
    size_t len;
    uint8_t *buf;

    interval_tally_msg_set(m, t);
    len = quern__interval__get_packed_size(m);
    buf = xmalloc(len ? len : 1);
    quern__interval__pack(m, buf);
    out = quern__interval__unpack(NULL, len, buf);
    xfree(buf);
    interval_sum_msg_free(m);
    assert_non_null(out);
    return out;
}

static void fill(tally *t, uint64_t pass, double add, double gauge, int64_t at, double v)
{
    char err[ERR_MAX];
    int c = tally_check_id(t, "status is 200");
    int unused = tally_check_id(t, "never ran");
    int k = tally_metric_def(t, "orders", TALLY_COUNTER, err, sizeof(err));
    int g = tally_metric_def(t, "queue", TALLY_GAUGE, err, sizeof(err));
    int tr = tally_metric_def(t, "basket_ms", TALLY_TREND, err, sizeof(err));

    (void)unused;
    t->checks[c].passes += pass;
    t->checks[c].fails += 1;
    tally_counter_add(&t->metrics[k], add);
    tally_gauge_set(&t->metrics[g], gauge, at);
    tally_trend_add(&t->metrics[tr], v);
}

static void test_two_workers(void **state)
{
    tally a, b;
    interval_sum s;
    Quern__Interval *ma, *mb;
    char err[ERR_MAX];
    const tally_metric *m;

    tally_init(&a);
    tally_init(&b);
    fill(&a, 9, 2, 5, 100, 12.5);
    fill(&b, 8, 3, 6, 200, 40);
    ma = over_the_wire(&a);
    mb = over_the_wire(&b);
    assert_int_equal(ma->n_checks, 1); /* a check that never ran does not travel */
    assert_int_equal(ma->n_metrics, 3);
    interval_sum_init(&s, 0, 0);
    assert_int_equal(interval_sum_add_msg(&s, ma, NULL, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, mb, NULL, err, sizeof(err)), 0);
    assert_int_equal(s.tally.nchecks, 1);
    assert_int_equal(s.tally.checks[0].passes, 17);
    assert_int_equal(s.tally.checks[0].fails, 2);
    m = &s.tally.metrics[tally_metric_find(&s.tally, "orders")];
    assert_true(m->sum == 5 && m->n == 2);
    m = &s.tally.metrics[tally_metric_find(&s.tally, "queue")];
    assert_true(m->value == 6 && m->min == 5 && m->max == 6);
    m = &s.tally.metrics[tally_metric_find(&s.tally, "basket_ms")];
    assert_int_equal(hist_count(m->h), 2);
    assert_true(tally_trend_stat(m, "max", 0) == 40);
    assert_true(tally_trend_stat(m, "mean", 0) == 26.25);
    assert_true(m->fraction); /* a's 12.5 travelled: its figures are not rounded */

    /* a gauge is sent again the next second, though not set in it */
    tally_next(&a);
    quern__interval__free_unpacked(ma, NULL);
    ma = over_the_wire(&a);
    assert_int_equal(ma->n_checks, 0);
    assert_int_equal(ma->n_metrics, 1);
    assert_string_equal(ma->metrics[0]->name, "queue");

    /* a broken sender: a bad name, a kind another sender gave another, NaN */
    free(ma->metrics[0]->name);
    ma->metrics[0]->name = strdup("no-dash");
    assert_int_equal(interval_sum_add_msg(&s, ma, NULL, err, sizeof(err)), -1);
    free(ma->metrics[0]->name);
    ma->metrics[0]->name = strdup("orders");
    assert_int_equal(interval_sum_add_msg(&s, ma, NULL, err, sizeof(err)), -1);
    free(ma->metrics[0]->name);
    ma->metrics[0]->name = strdup("queue");
    ma->metrics[0]->value = NAN;
    assert_int_equal(interval_sum_add_msg(&s, ma, NULL, err, sizeof(err)), -1);
    assert_false(interval_tally_check_name_ok("tab\there"));
    assert_false(interval_tally_check_name_ok("latin-1 \xe9t\xe9"));
    assert_false(interval_tally_check_name_ok("c1 \xc2\x85"));
    assert_true(interval_tally_check_name_ok("status is 200 ✓"));

    quern__interval__free_unpacked(ma, NULL);
    quern__interval__free_unpacked(mb, NULL);
    interval_sum_free(&s);
    tally_free(&a);
    tally_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The console's running totals (console/agg.c): the merged seconds of two
 * workers summed into exact counts per step and per scenario, their
 * histograms merged (the percentiles of the whole run, not of a second),
 * the latest second alone for the live table, the run's length and its VUs
 * (the latest, the peak); the open model's arrivals; the requests held
 * back by --max-in-flight and their waits; the load asked against sent;
 * the start lags; the script's checks and metrics, a merge the tally
 * refuses dropped with one warning however often it comes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/log.h"
#include "console/agg.h"

/* One second of two steps: step 0 n0 samples of us0, step 1 n1 of us1
 * with e1 technical errors. */
static void fill(step_stats *st, uint64_t n0, uint64_t us0, uint64_t n1, uint64_t us1, uint64_t e1)
{
    stats_reset(&st[0]);
    stats_reset(&st[1]);
    st[0].count = n0;
    hist_record_n(st[0].hist, us0, n0);
    st[1].count = n1;
    st[1].err_tech = e1;
    hist_record_n(st[1].hist, us1, n1);
}

/* Within hist's precision (half a bucket: 0.4 %). */
static void near(uint64_t got, uint64_t want)
{
    assert_true(fabs((double)got - (double)want) <= (double)want / 256.0 + 1.0);
}

static void test_add(void **state)
{
    agg a;
    step_stats *st = stats_array_new(2);
    uint64_t runs[2] = {3, 1}, missed[2] = {1, 0};

    agg_init(&a, 2, 2);
    assert_int_equal(a.intervals, 0);
    assert_int_equal(a.total[0].count, 0);
    /* 900 samples of 10 ms, then 100 of 200 ms: the run's p50 is 10 ms
     * and its p95 200 ms, from the histograms merged */
    fill(st, 900, 10000, 10, 5000, 1);
    agg_add(&a, st, runs, missed, 1000000, 20);
    fill(st, 100, 200000, 30, 7000, 2);
    agg_add(&a, st, runs, missed, 999000, 15);

    assert_int_equal(a.total[0].count, 1000);
    assert_int_equal(hist_count(a.total[0].hist), 1000);
    near(hist_percentile(a.total[0].hist, 50.0), 10000);
    near(hist_percentile(a.total[0].hist, 95.0), 200000);
    assert_int_equal(hist_max(a.total[0].hist), 200000);
    assert_int_equal(hist_min(a.total[0].hist), 10000);
    assert_int_equal(hist_sum(a.total[0].hist), 900 * 10000 + 100 * 200000);
    assert_int_equal(a.total[1].count, 40);
    assert_int_equal(a.total[1].err_tech, 3);
    /* the latest second: every step of it, none of the first */
    assert_int_equal(a.last.count, 130);
    assert_int_equal(a.last.err_tech, 2);
    assert_int_equal(hist_count(a.last.hist), 130);
    assert_int_equal(hist_min(a.last.hist), 7000);
    /* per scenario */
    assert_int_equal(a.runs[0], 6);
    assert_int_equal(a.runs[1], 2);
    assert_int_equal(a.missed_pacing[0], 2);
    assert_int_equal(a.missed_pacing[1], 0);
    /* length and VUs */
    assert_int_equal(a.intervals, 2);
    assert_int_equal(a.elapsed_us, 1999000);
    assert_int_equal(a.last_length_us, 999000);
    assert_int_equal(a.active_vus, 15);
    assert_int_equal(a.vus_peak, 20);
    /* a second the input changes afterwards leaves the totals alone */
    fill(st, 5, 1, 5, 1, 5);
    assert_int_equal(a.total[0].count, 1000);
    agg_free(&a);
    assert_null(a.total);
    assert_int_equal(a.intervals, 0);
    stats_array_free(st, 2);
}

static void test_arrivals(void **state)
{
    agg a;
    rate_counts sec[2] = {{10, 9, 2, 1, 0, 3}, {4, 4, 0, 0, 0, 0}}, all;

    agg_init(&a, 1, 2);
    assert_int_equal(agg_arrivals_all(&a, &all), 0); /* a closed model */
    assert_int_equal(all.scheduled, 0);
    agg_add_arrivals(&a, NULL); /* a second without: nothing */
    agg_add_arrivals(&a, sec);
    agg_add_arrivals(&a, sec);
    assert_int_equal(a.arrivals[0].scheduled, 20);
    assert_int_equal(a.arrivals[0].started, 18);
    assert_int_equal(a.arrivals[0].late, 4);
    assert_int_equal(a.arrivals[0].dropped, 2);
    assert_int_equal(a.arrivals[1].scheduled, 8);
    assert_int_equal(agg_arrivals_all(&a, &all), 1);
    assert_int_equal(all.scheduled, 28);
    assert_int_equal(all.started, 26);
    assert_int_equal(all.late, 4);
    assert_int_equal(all.dropped, 2);
    assert_int_equal(all.inits, 6); /* summed like the rest */
    agg_free(&a);

    /* only drops: an open model still */
    agg_init(&a, 1, 1);
    agg_add_arrivals(&a, &(rate_counts){0, 0, 0, 3, 0, 0});
    assert_int_equal(agg_arrivals_all(&a, &all), 1);
    agg_free(&a);
}

static void test_held_delivery(void **state)
{
    agg a;

    agg_init(&a, 1, 1);
    assert_true(agg_held_mean_ms(&a) == 0.0); /* none held: no division */
    agg_add_held(&a, 4, 10000, 6000);
    agg_add_held(&a, 1, 2000, 2000);
    agg_add_held(&a, 0, 0, 0);
    assert_int_equal(a.held, 5);
    assert_int_equal(a.held_us, 12000);
    assert_int_equal(a.held_max_us, 6000); /* the longest, not the last */
    assert_true(fabs(agg_held_mean_ms(&a) - 2.4) < 1e-12);

    agg_add_delivery(&a, 10, 8, 1000000, 25000);
    agg_add_delivery(&a, 5, 5, 500000, 5000);
    assert_int_equal(a.vus_planned, 15);
    assert_int_equal(a.vus_started, 13);
    assert_int_equal(a.pace_asked_us, 1500000);
    assert_int_equal(a.pace_lost_us, 30000);
    agg_free(&a);
}

static void test_lag(void **state)
{
    agg a;
    hist *lag[2] = {hist_new(), NULL}, *empty[2] = {hist_new(), hist_new()};

    agg_init(&a, 1, 2);
    agg_add_lag(&a, NULL);
    agg_add_lag(&a, empty); /* nothing measured: nothing kept */
    assert_null(a.start_lag[0]);
    assert_null(a.start_lag[1]);
    hist_record_n(lag[0], 3000, 4);
    agg_add_lag(&a, lag);
    hist_record(lag[0], 9000);
    agg_add_lag(&a, lag);
    assert_non_null(a.start_lag[0]);
    assert_null(a.start_lag[1]);
    assert_int_equal(hist_count(a.start_lag[0]), 9); /* 4, then 4 + 1 */
    assert_int_equal(hist_max(a.start_lag[0]), 9000);
    agg_free(&a);
    hist_free(lag[0]);
    hist_free(empty[0]);
    hist_free(empty[1]);
}

/* The warnings log_msg would write, counted. */
static int warned;

static int count_warn(void *ud, enum log_level level, const char *line)
{
    if (level == LOG_WARN && strstr(line, "dropped") != NULL)
        warned++;
    return 0;
}

static void test_tally(void **state)
{
    agg a;
    tally sec, bad;
    char err[ERR_MAX];
    int c, m;

    tally_init(&sec);
    c = tally_check_id(&sec, "status is 200");
    sec.checks[c].passes = 7;
    sec.checks[c].fails = 1;
    m = tally_metric_def(&sec, "items", TALLY_COUNTER, err, sizeof(err));
    assert_true(m >= 0);
    tally_counter_add(&sec.metrics[m], 2.5);
    tally_init(&bad); /* "items" again, another kind */
    assert_true(tally_metric_def(&bad, "items", TALLY_GAUGE, err, sizeof(err)) >= 0);

    agg_init(&a, 1, 1);
    agg_add_tally(&a, &sec);
    agg_add_tally(&a, &sec);
    c = tally_check_find(&a.tally, "status is 200");
    assert_true(c >= 0);
    assert_int_equal(a.tally.checks[c].passes, 14);
    assert_int_equal(a.tally.checks[c].fails, 2);
    m = tally_metric_find(&a.tally, "items");
    assert_true(m >= 0);
    assert_true(a.tally.metrics[m].sum == 5.0);
    assert_int_equal(a.tally_warned, 0);

    warned = 0;
    log_set_sink(count_warn, NULL);
    agg_add_tally(&a, &bad);
    agg_add_tally(&a, &bad);
    log_set_sink(NULL, NULL);
    assert_int_equal(warned, 1);
    assert_int_equal(a.tally_warned, 1);
    assert_int_equal(a.tally.metrics[m].kind, TALLY_COUNTER); /* the refused one changed nothing */
    assert_true(a.tally.metrics[m].sum == 5.0);
    agg_add_tally(&a, &sec); /* and what fits still merges */
    assert_int_equal(a.tally.checks[c].passes, 21);
    agg_free(&a);
    tally_free(&sec);
    tally_free(&bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add),           cmocka_unit_test(test_arrivals),
        cmocka_unit_test(test_held_delivery), cmocka_unit_test(test_lag),
        cmocka_unit_test(test_tally),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

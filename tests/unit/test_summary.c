/* The end summary (console/summary.c) of a small known run: two steps of
 * scenario S over 2 s, step 1 with 180 samples of 10 ms, 16 of 30 ms and
 * 4 of 50 ms (p90 10 ms, p95 30 ms, p99 50 ms) and two technical errors, step 2 with 50 of 100 ms
 * and five functional errors, 40 runs of S, 3 of them late for their pacing slot. The table's rows
 * (count, errors, TPS, mean, percentiles, max), a step's name made safe for the terminal, the
 * service times shown only where they differ, the scenarios' lines, the error samples and the run's
 * line; the
 * --summary-json fields (run, tests, totals, scenarios, thresholds,
 * verdict, held_back, the open model's arrivals and pool); the JSON
 * written to a file and to a stream, and a file that cannot be written;
 * the injector's line and its JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "console/agg.h"
#include "console/delivery.h"
#include "console/summary.h"
#include "console/thresh.h"

static const char *const ids[2] = {"SC-S-STEP-1", "SC-S-STEP-2"};
static const char *const labels[2] = {"Login", "Home"};
static const char *const names[2] = {"SC-S-STEP-1)Login", "SC-S-STEP-2)Home"};
static const char *const scens[1] = {"S"};

/* The run: its totals and what the summary is told of it. */
typedef struct fx {
    agg a;
    summary_info si;
} fx;

static void fx_init(fx *x)
{
    step_stats *st = stats_array_new(2);
    uint64_t runs = 40, missed = 3;

    memset(x, 0, sizeof(*x));
    agg_init(&x->a, 2, 1);
    st[0].count = 200;
    st[0].err_tech = 2;
    hist_record_n(st[0].hist, 10000, 180);
    hist_record_n(st[0].hist, 30000, 16);
    hist_record_n(st[0].hist, 50000, 4);
    stats_note_error(&st[0], 1, "connection refused");
    st[1].count = 50;
    st[1].err_func = 5;
    hist_record_n(st[1].hist, 100000, 50);
    stats_note_error(&st[1], 0, "check \"status is 200\" failed");
    agg_add(&x->a, st, &runs, &missed, 2000000, 7);
    stats_array_free(st, 2);
    x->si.status = "completed";
    x->si.name = "nightly";
    x->si.vus = 7;
    x->si.vu_ids = 7;
    x->si.step_ids = ids;
    x->si.step_labels = labels;
    x->si.step_names = names;
    x->si.scen_names = scens;
}

/* What summary_print writes for x (xfree it). */
static char *table(const fx *x)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    summary_print(out, &x->a, &x->si);
    fclose(out);
    return buf;
}

/* The figures of the table's row named name: count, errors, TPS, mean and
 * percentiles. */
typedef struct row {
    unsigned long long count, tech, func;
    double tps, mean, p50, p90, p95, p99, max;
} row;

static row row_of(const char *text, const char *name)
{
    char at[64];
    const char *line;
    row r;

    snprintf(at, sizeof(at), "\n%s ", name);
    line = strstr(text, at);
    assert_non_null(line);
    assert_int_equal(sscanf(line + strlen(at), "%llu %llu %llu %lf %lf %lf %lf %lf %lf %lf",
                            &r.count, &r.tech, &r.func, &r.tps, &r.mean, &r.p50, &r.p90, &r.p95,
                            &r.p99, &r.max),
                     10);
    return r;
}

/* Within hist's precision, half a bucket (0.4 %), and the table's rounding. */
static void near(double got, double want)
{
    assert_true(fabs(got - want) <= want / 256.0 + 0.01);
}

static void test_table(void **state)
{
    fx x;
    char *t;
    row r;

    fx_init(&x);
    t = table(&x);
    assert_non_null(strstr(t, "\nTest "));
    assert_non_null(strstr(t, " Count Tech.err Func.err       TPS  Mean(ms)"));
    r = row_of(t, "SC-S-STEP-1)Login");
    assert_int_equal(r.count, 200);
    assert_int_equal(r.tech, 2);
    assert_int_equal(r.func, 0);
    near(r.tps, 100.0);
    near(r.mean, 12.4);
    near(r.p50, 10.0);
    near(r.p90, 10.0);
    near(r.p95, 30.0);
    near(r.p99, 50.0);
    near(r.max, 50.0);
    r = row_of(t, "SC-S-STEP-2)Home");
    assert_int_equal(r.count, 50);
    assert_int_equal(r.func, 5);
    near(r.tps, 25.0);
    near(r.p99, 100.0);
    r = row_of(t, "Totals");
    assert_int_equal(r.count, 250);
    assert_int_equal(r.tech, 2);
    assert_int_equal(r.func, 5);
    near(r.tps, 125.0);
    near(r.max, 100.0);
    assert_null(strstr(t, "Service time")); /* every start on time */
    assert_non_null(strstr(t, "\nScenario S: 40 runs, 3 missed pacing\n"));
    assert_null(strstr(t, "arrivals")); /* the closed model */
    assert_non_null(strstr(t, "\nSC-S-STEP-1: technical error, e.g. connection refused\n"));
    assert_non_null(strstr(t, "\nSC-S-STEP-2: functional error, e.g. check \"status is 200\""));
    assert_non_null(strstr(t, "\nRun completed: 2.0 s, 7 VUs\n"));
    xfree(t);
    /* arrivals all dropped: the open model still */
    agg_add_arrivals(&x.a, &(rate_counts){0, 0, 0, 3, 0, 0});
    t = table(&x);
    assert_non_null(strstr(t, "\nScenario S: arrivals 0 scheduled, 0 started, 0 late (waited for "
                              "a VU of a full pool), 0 waited for a new VU's init, 3 dropped; 0 "
                              "VU(s) made during the load (their init run then)\n"));
    xfree(t);
    agg_free(&x.a);
}

/* A name from a script cannot move the terminal's cursor; a pause is said;
 * the open model's arrivals and pool. */
static void test_table_more(void **state)
{
    fx x;
    const char *const evil[2] = {"SC-S-STEP-1)\x1b[2JLogin", "SC-S-STEP-2)Home"};
    rate_counts arr = {120, 110, 6, 10, 0, 0};
    delivery d = {0};
    char *t;

    fx_init(&x);
    x.si.step_names = evil;
    x.si.paused_us = 1500000;
    agg_add_arrivals(&x.a, &arr);
    x.si.vu_pool = 50;
    x.si.vus_peak = 12;
    d.asked = 120;
    d.sent = 110;
    d.dropped = 10;
    d.late = 6;
    d.share = 10.0 / 120.0;
    x.si.load = &d;
    t = table(&x);
    assert_null(strchr(t, '\x1b'));
    assert_non_null(strstr(t, "Login"));
    assert_non_null(strstr(t, "\nScenario S: arrivals 120 scheduled, 110 started, 6 late (waited "
                              "for a VU of a full pool), 0 waited for a new VU's init, 10 "
                              "dropped; 0 VU(s) made during the load (their init run then)\n"));
    assert_non_null(strstr(t, "\nLoad: 120 arrivals asked, 110 sent, 10 dropped (8 %), 6 late\n"));
    assert_non_null(
        strstr(t, "\nRun completed: 2.0 s, VUs: pool peak 12 of 50 (1.5 s paused, left out)\n"));
    xfree(t);
    agg_free(&x.a);
}

/* Late starts: the service times, from each request's actual start, get a
 * table of their own for the step where they differ. */
static void test_table_service(void **state)
{
    agg a;
    step_stats *st = stats_array_new(2);
    uint64_t runs = 1, missed = 0;
    summary_info si = {.status = "completed",
                       .vus = 1,
                       .step_ids = ids,
                       .step_labels = labels,
                       .step_names = names,
                       .scen_names = scens};
    char *t = NULL, *svc;
    size_t len = 0;
    FILE *out;
    row r;

    agg_init(&a, 2, 1);
    st[0].count = 10;
    for (int i = 0; i < 10; i++)
        stats_record(&st[0], 50000, 5000); /* waited 45 ms to start */
    st[1].count = 10;
    for (int i = 0; i < 10; i++)
        stats_record(&st[1], 8000, 8000);
    agg_add(&a, st, &runs, &missed, 1000000, 1);
    out = open_memstream(&t, &len);
    summary_print(out, &a, &si);
    fclose(out);
    svc = strstr(t, "\nService time, from each request's actual start (where it differs by more "
                    "than 10 %):\n");
    assert_non_null(svc);
    r = row_of(svc, "SC-S-STEP-1)Login");
    near(r.p50, 5.0);
    assert_null(strstr(svc, "SC-S-STEP-2)Home")); /* the same: not shown again */
    r = row_of(t, "SC-S-STEP-1)Login");           /* the main table: response times */
    near(r.p50, 50.0);
    xfree(t);
    stats_array_free(st, 2);
    agg_free(&a);
}

static const json_t *get(const json_t *o, const char *path)
{
    char buf[128], *tok, *save = NULL;
    const json_t *v = o;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, ".", &save); tok != NULL; tok = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, (size_t)atoi(tok)) : json_object_get(v, tok);
    assert_non_null(v);
    return v;
}

static double num(const json_t *o, const char *path)
{
    return json_number_value(get(o, path));
}

static const char *str(const json_t *o, const char *path)
{
    const char *s = json_string_value(get(o, path));

    assert_non_null(s);
    return s;
}

static void test_json(void **state)
{
    fx x;
    thresh *th[2];
    thresh_result res[2];
    const char *const src[2] = {NULL, "plan.lua:3"};
    char err[ERR_MAX];
    json_t *j;

    fx_init(&x);
    th[0] = thresh_parse("p95<500ms", err, sizeof(err));
    th[1] = thresh_parse("errors<1%", err, sizeof(err));
    assert_non_null(th[0]);
    assert_non_null(th[1]);
    for (int i = 0; i < 2; i++)
        thresh_eval(th[i], &x.a, ids, names, 2.0, &res[i]);
    x.si.thresholds = (const struct thresh *const *)th;
    x.si.threshold_results = res;
    x.si.threshold_sources = src;
    x.si.nthresholds = 2;
    x.si.verdict_passed = 0;
    x.si.verdict = "failed: 1 threshold";
    x.si.run_id = 42;
    x.si.started_us = 1700000000000000;
    j = summary_json(&x.a, &x.si);

    assert_int_equal(json_integer_value(get(j, "run.id")), 42);
    assert_string_equal(str(j, "run.name"), "nightly");
    assert_string_equal(str(j, "run.status"), "completed");
    assert_string_equal(str(j, "run.started_at"), "2023-11-14T22:13:20.000Z");
    assert_int_equal(json_integer_value(get(j, "run.vus")), 7);
    assert_int_equal(json_integer_value(get(j, "run.vus_peak")), 7);
    assert_true(fabs(num(j, "run.duration_s") - 2.0) < 1e-9);
    assert_true(num(j, "run.paused_s") == 0.0);
    assert_null(json_object_get(get(j, "run"), "held_back"));
    assert_null(json_object_get(get(j, "run"), "vu_pool"));
    assert_null(json_object_get(get(j, "run"), "injector"));

    assert_int_equal(json_array_size(get(j, "tests")), 2);
    assert_string_equal(str(j, "tests.0.id"), "SC-S-STEP-1");
    assert_string_equal(str(j, "tests.0.label"), "Login");
    assert_string_equal(str(j, "tests.0.name"), "SC-S-STEP-1)Login");
    assert_int_equal(json_integer_value(get(j, "tests.0.count")), 200);
    assert_int_equal(json_integer_value(get(j, "tests.0.errors.technical")), 2);
    assert_int_equal(json_integer_value(get(j, "tests.0.errors.functional")), 0);
    assert_string_equal(str(j, "tests.0.errors.samples.technical"), "connection refused");
    assert_true(fabs(num(j, "tests.0.tps") - 100.0) < 1e-9);
    near(num(j, "tests.0.mean_ms"), 12.4);
    near(num(j, "tests.0.p50_ms"), 10.0);
    near(num(j, "tests.0.p90_ms"), 10.0);
    near(num(j, "tests.0.p95_ms"), 30.0);
    near(num(j, "tests.0.p99_ms"), 50.0);
    near(num(j, "tests.0.min_ms"), 10.0);
    near(num(j, "tests.0.max_ms"), 50.0);
    near(num(j, "tests.0.service.p95_ms"), 30.0); /* the same times without late starts */
    assert_int_equal(json_integer_value(get(j, "tests.1.errors.functional")), 5);
    assert_true(fabs(num(j, "tests.1.tps") - 25.0) < 1e-9);

    assert_int_equal(json_integer_value(get(j, "totals.count")), 250);
    assert_int_equal(json_integer_value(get(j, "totals.errors.technical")), 2);
    assert_int_equal(json_integer_value(get(j, "totals.errors.functional")), 5);
    assert_true(fabs(num(j, "totals.error_pct") - 2.8) < 1e-9);
    assert_true(fabs(num(j, "totals.tps") - 125.0) < 1e-9);
    near(num(j, "totals.max_ms"), 100.0);

    assert_string_equal(str(j, "scenarios.0.name"), "S");
    assert_int_equal(json_integer_value(get(j, "scenarios.0.runs")), 40);
    assert_int_equal(json_integer_value(get(j, "scenarios.0.missed_pacing")), 3);
    assert_null(json_object_get(get(j, "scenarios.0"), "arrivals"));

    assert_string_equal(str(j, "thresholds.0.expr"), "p95<500ms");
    assert_string_equal(str(j, "thresholds.0.source"), "cli");
    assert_true(json_is_true(get(j, "thresholds.0.passed")));
    near(num(j, "thresholds.0.measured"), 100.0);
    assert_true(num(j, "thresholds.0.limit") == 500.0);
    assert_string_equal(str(j, "thresholds.0.unit"), "ms");
    assert_string_equal(str(j, "thresholds.1.source"), "plan.lua:3");
    assert_false(json_is_true(get(j, "thresholds.1.passed"))); /* 2.8 % errors */
    assert_string_equal(str(j, "thresholds.1.description"), res[1].desc);
    assert_false(json_is_true(get(j, "verdict.passed")));
    assert_string_equal(str(j, "verdict.reason"), "failed: 1 threshold");
    json_decref(j);

    /* no database, no verdict; held back and the open model */
    x.si.run_id = 0;
    x.si.verdict = NULL;
    x.si.max_in_flight = 8;
    agg_add_held(&x.a, 4, 10000, 6000);
    x.si.vu_pool = 50;
    x.si.vus_peak = 12;
    agg_add_arrivals(&x.a, &(rate_counts){120, 110, 6, 10, 0, 0});
    j = summary_json(&x.a, &x.si);
    assert_true(json_is_null(get(j, "run.id")));
    assert_null(json_object_get(j, "verdict"));
    assert_int_equal(json_integer_value(get(j, "run.max_in_flight")), 8);
    assert_int_equal(json_integer_value(get(j, "run.held_back.requests")), 4);
    assert_true(fabs(num(j, "run.held_back.wait_mean_ms") - 2.5) < 1e-9);
    assert_true(fabs(num(j, "run.held_back.wait_max_ms") - 6.0) < 1e-9);
    assert_int_equal(json_integer_value(get(j, "run.vu_pool")), 50);
    assert_int_equal(json_integer_value(get(j, "run.vus_peak")), 12);
    assert_int_equal(json_integer_value(get(j, "scenarios.0.arrivals.scheduled")), 120);
    assert_int_equal(json_integer_value(get(j, "scenarios.0.arrivals.dropped")), 10);
    json_decref(j);
    thresh_free(th[0]);
    thresh_free(th[1]);
    agg_free(&x.a);
}

/* The file and the stream hold the same summary; a path that cannot be
 * written says so. */
static void test_write(void **state)
{
    fx x;
    char dir[] = "/tmp/quern-summary-XXXXXX", path[64], bad[96], err[ERR_MAX], *buf = NULL;
    size_t len = 0;
    json_error_t e;
    json_t *f, *s;
    FILE *out;

    fx_init(&x);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.json", dir);
    assert_int_equal(summary_write_json(path, &x.a, &x.si, err, sizeof(err)), 0);
    f = json_load_file(path, 0, &e);
    assert_non_null(f);
    assert_int_equal(json_integer_value(get(f, "totals.count")), 250);
    out = open_memstream(&buf, &len);
    assert_int_equal(summary_dump_json(out, &x.a, &x.si, err, sizeof(err)), 0);
    fclose(out);
    assert_true(len > 0 && buf[len - 1] == '\n');
    s = json_loads(buf, 0, &e);
    assert_non_null(s);
    assert_true(json_equal(f, s));
    json_decref(f);
    json_decref(s);
    xfree(buf);
    snprintf(bad, sizeof(bad), "%s/no-such-folder/s.json", dir);
    assert_int_equal(summary_write_json(bad, &x.a, &x.si, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot write"));
    assert_non_null(strstr(err, "no-such-folder"));
    unlink(path);
    rmdir(dir);
    agg_free(&x.a);
}

/* What summary_print_injector writes for a (xfree it). */
static char *injector(const agg *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    summary_print_injector(out, a);
    fclose(out);
    return buf;
}

static void test_injector(void **state)
{
    agg a;
    interval_sum_load l = {
        .agent = "a1", .worker = 0, .cpu_permille = 430, .loop_lag_max_us = 2000};
    char *t;
    json_t *j;

    agg_init(&a, 1, 1);
    t = injector(&a);
    assert_string_equal(t, ""); /* nothing measured: nothing said */
    xfree(t);
    injtot_add(&a.inj, 0, &l, 1, 0);
    t = injector(&a);
    assert_non_null(strstr(t, "\nInjector: kept up (CPU max 43 %"));
    xfree(t);
    l.saturated = 1;
    l.cpu_permille = 1000;
    injtot_add(&a.inj, 1, &l, 1, 0);
    t = injector(&a);
    assert_non_null(strstr(t, "\nInjector: saturated 1 of 2 s ("));
    assert_non_null(strstr(t, "a1"));
    xfree(t);
    j = summary_injector_json(&a);
    assert_int_equal(json_integer_value(get(j, "saturated_s")), 1);
    assert_int_equal(json_integer_value(get(j, "measured_s")), 2);
    assert_true(fabs(num(j, "cpu_max_pct") - 100.0) < 1e-9);
    assert_string_equal(str(j, "workers.0.agent"), "a1");
    assert_int_equal(json_integer_value(get(j, "workers.0.saturated_s")), 1);
    assert_true(fabs(num(j, "workers.0.loop_lag_max_ms") - 2.0) < 1e-9);
    assert_null(json_object_get(j, "console"));
    json_decref(j);
    agg_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),         cmocka_unit_test(test_table_more),
        cmocka_unit_test(test_table_service), cmocka_unit_test(test_json),
        cmocka_unit_test(test_write),         cmocka_unit_test(test_injector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

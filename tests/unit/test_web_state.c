/* The --web page's state: the live table's numbers of a known second, the
 * totals moving from one second to the next, the charts' history paired
 * when full (rates averaged, percentiles the larger), a late second, the
 * final summary, text that is not UTF-8, a run whose steps are not
 * known yet, and the injector's state: the latest second's worst worker
 * and the seconds it was saturated in, shaded on the charts. The .c is included to read the history
 * it keeps. */
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

#include "console/serve/web_state.c"

/* A run of nsteps steps whose seconds the test fills through st. */
typedef struct fx {
    agg a;
    step_stats *st;
    size_t nsteps;
    const char *names[3];
    web_state *w;
} fx;

static void fx_init(fx *x, size_t nsteps)
{
    memset(x, 0, sizeof(*x));
    x->nsteps = nsteps;
    agg_init(&x->a, nsteps, 1);
    x->st = stats_array_new(nsteps);
    x->names[0] = "SC-A-STEP-1)Login";
    x->names[1] = "SC-A-STEP-2)Page";
    x->w = web_state_new();
}

/* One second: step i gets n[i] samples of us[i] microseconds. */
static void fx_second(fx *x, const uint64_t *n, const uint64_t *us, uint32_t vus, int late)
{
    uint64_t runs = 1, missed = 0;

    for (size_t i = 0; i < x->nsteps; i++) {
        stats_reset(&x->st[i]);
        x->st[i].count = n[i];
        hist_record_n(x->st[i].hist, us[i], n[i]);
    }
    agg_add(&x->a, x->st, &runs, &missed, late ? 0 : 1000000, vus);
    web_state_add(x->w, &x->a, late);
}

static json_t *fx_render(fx *x, const json_t *summary)
{
    web_state_agent ag = {"local", "host1", "running", 10, 100, 42, 3};
    web_state_threshold th = {"p95<500ms", 1, "p95 of all steps = 10 ms, limit < 500 ms"};
    web_state_input in = {"nightly", x->names, &x->a, x->st, 10,      30000000,
                          &ag,       1,        &th,   1,     summary, 0};
    size_t len = 0;
    char *text = web_state_render(x->w, &in, &len);
    json_error_t e;
    json_t *j;

    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    j = json_loads(text, 0, &e);
    assert_non_null(j);
    xfree(text);
    return j;
}

static void fx_free(fx *x)
{
    web_state_free(x->w);
    stats_array_free(x->st, x->nsteps);
    agg_free(&x->a);
}

static double num(const json_t *o, const char *path)
{
    char buf[128], *tok, *save = NULL;
    const json_t *v = o;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, ".", &save); tok != NULL; tok = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, (size_t)atoi(tok)) : json_object_get(v, tok);
    assert_non_null(v);
    return json_number_value(v);
}

static void test_live_table(void **state)
{
    fx x;
    uint64_t n[2] = {100, 50}, us[2] = {10000, 40000};
    json_t *j;

    fx_init(&x, 2);
    fx_second(&x, n, us, 10, 0);
    j = fx_render(&x, NULL);
    assert_string_equal(json_string_value(json_object_get(j, "run")), "nightly");
    assert_false(json_is_true(json_object_get(j, "final")));
    assert_true(json_is_null(json_object_get(j, "summary")));
    assert_true(fabs(num(j, "elapsed_s") - 1.0) < 1e-9);
    assert_true(fabs(num(j, "planned_s") - 30.0) < 1e-9);
    assert_int_equal((int)num(j, "vus"), 10);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "steps"), 1), "name")),
        "SC-A-STEP-2)Page");
    assert_true(fabs(num(j, "steps.0.tps") - 100.0) < 1e-9);
    assert_true(fabs(num(j, "steps.1.tps") - 50.0) < 1e-9);
    assert_true(fabs(num(j, "steps.0.mean_ms") - 10.0) < 0.1);
    assert_true(fabs(num(j, "steps.1.p95_ms") - 40.0) < 0.4);
    assert_true(fabs(num(j, "steps.1.p99_ms") - 40.0) < 0.4);
    assert_int_equal((int)num(j, "total.count"), 150);
    assert_true(fabs(num(j, "total.tps") - 150.0) < 1e-9);
    assert_true(fabs(num(j, "total.p95_ms") - 40.0) < 0.4);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(j, "agents"), 0), "state")),
                        "running");
    /* an agent's VUs active now, beside the slots of a steered ceiling */
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(json_object_get(j, "agents"), 0), "vus")),
        10);
    assert_int_equal(json_integer_value(
                         json_object_get(json_array_get(json_object_get(j, "agents"), 0), "slots")),
                     100);
    assert_true(json_is_true(
        json_object_get(json_array_get(json_object_get(j, "thresholds"), 0), "passed")));
    for (size_t i = 0; i < 4; i++) {
        static const char *const k[4] = {"throughput", "latency", "errors", "vus"};
        const char *svg = json_string_value(json_object_get(json_object_get(j, "charts"), k[i]));
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<svg"));
    }
    json_decref(j);
    fx_free(&x);
}

/* The next second: its own rates and errors, the totals grow. */
static void test_next_second(void **state)
{
    fx x;
    uint64_t n[2] = {100, 50}, us[2] = {10000, 40000};
    json_t *j;

    fx_init(&x, 2);
    fx_second(&x, n, us, 10, 0);
    stats_reset(&x.st[0]);
    stats_reset(&x.st[1]);
    x.st[0].count = 30;
    x.st[0].err_tech = 4;
    x.st[0].err_func = 1;
    hist_record_n(x.st[0].hist, 20000, 30);
    {
        uint64_t runs = 1, missed = 0;
        agg_add(&x.a, x.st, &runs, &missed, 1000000, 7);
        web_state_add(x.w, &x.a, 0);
    }
    j = fx_render(&x, NULL);
    assert_true(fabs(num(j, "steps.0.tps") - 30.0) < 1e-9);
    assert_true(fabs(num(j, "steps.1.tps")) < 1e-9);
    assert_true(
        json_is_null(json_object_get(json_array_get(json_object_get(j, "steps"), 1), "p95_ms")));
    assert_int_equal((int)num(j, "steps.0.tech"), 4);
    assert_int_equal((int)num(j, "steps.0.tech_total"), 4);
    assert_int_equal((int)num(j, "steps.0.func"), 1);
    assert_int_equal((int)num(j, "steps.0.count"), 130);
    assert_int_equal((int)num(j, "total.count"), 180);
    assert_true(fabs(num(j, "elapsed_s") - 2.0) < 1e-9);
    assert_int_equal((int)num(j, "vus"), 7);
    assert_int_equal(x.w->npts, 2);
    assert_true(fabs(x.w->y[S_RPS][0] - 150.0) < 1e-9);
    assert_true(fabs(x.w->y[S_RPS][1] - 30.0) < 1e-9);
    assert_true(fabs(x.w->y[S_TECH][1] - 4.0) < 1e-9);
    assert_true(fabs(x.w->y[S_VUS][1] - 7.0) < 1e-9);
    json_decref(j);
    fx_free(&x);
}

/* Full: pairs of points become one, twice as long; rates are averaged and
 * a pair's percentile is the larger of the two. */
static void test_history_pairs(void **state)
{
    fx x;
    unsigned width;

    fx_init(&x, 1);
    for (uint64_t s = 0; s < WEB_STATE_POINTS; s++) {
        uint64_t n[1] = {s + 1}, us[1] = {s % 2 ? 30000 : 10000};
        fx_second(&x, n, us, (uint32_t)s, 0);
    }
    assert_int_equal(web_state_points(x.w, &width), WEB_STATE_POINTS / 2);
    assert_int_equal(width, 2);
    assert_true(fabs(x.w->y[S_RPS][0] - 1.5) < 1e-9);   /* (1 + 2) / 2 */
    assert_true(fabs(x.w->y[S_RPS][10] - 21.5) < 1e-9); /* (21 + 22) / 2 */
    assert_true(fabs(x.w->y[S_P95][0] - 30.0) < 0.3);   /* the larger of 10 and 30 ms */
    assert_true(fabs(x.w->y[S_VUS][0] - 1.0) < 1e-9);
    /* the next point covers two seconds, its percentile from both; the
     * charts are drawn again when it closes, not before */
    {
        uint64_t n[1] = {10}, us1[1] = {5000}, us2[1] = {50000};
        const json_t *drawn = x.w->charts;
        assert_non_null(drawn);
        fx_second(&x, n, us1, 1, 0);
        assert_int_equal(web_state_points(x.w, &width), WEB_STATE_POINTS / 2);
        assert_ptr_equal(x.w->charts, drawn);
        fx_second(&x, n, us2, 1, 0);
        assert_ptr_not_equal(x.w->charts, drawn);
        assert_int_equal(web_state_points(x.w, &width), WEB_STATE_POINTS / 2 + 1);
        assert_true(fabs(x.w->y[S_RPS][WEB_STATE_POINTS / 2] - 10.0) < 1e-9);
        assert_true(fabs(x.w->y[S_P50][WEB_STATE_POINTS / 2] - 5.0) < 0.05);
        assert_true(fabs(x.w->y[S_P99][WEB_STATE_POINTS / 2] - 50.0) < 0.5);
    }
    fx_free(&x);
}

/* A late second adds its counts to the point being filled, not a point. */
static void test_late_second(void **state)
{
    fx x;
    uint64_t n[1] = {8}, us[1] = {1000};

    fx_init(&x, 1);
    fx_second(&x, n, us, 1, 0);
    fx_second(&x, n, us, 1, 1);
    assert_int_equal(x.w->npts, 1);
    assert_int_equal(x.w->count, 8);
    assert_true(x.w->any);
    fx_second(&x, n, us, 1, 0);
    assert_int_equal(x.w->npts, 2);
    assert_true(fabs(x.w->y[S_RPS][1] - 16.0) < 1e-9);
    /* the run's last second may be short: its rate is over its length */
    {
        uint64_t runs = 1, missed = 0;
        agg_add(&x.a, x.st, &runs, &missed, 250000, 1);
        web_state_add(x.w, &x.a, 0);
    }
    assert_true(fabs(x.w->y[S_RPS][2] - 32.0) < 1e-9); /* 8 in 0.25 s */
    fx_free(&x);
}

static void test_final_summary(void **state)
{
    fx x;
    uint64_t n[2] = {5, 5}, us[2] = {1000, 2000};
    json_t *sum =
        json_pack("{s:[{s:s,s:i}],s:{s:b,s:s}}", "tests", "name", "SC-A-STEP-1)Login", "count", 5,
                  "verdict", "passed", 1, "reason", "passed: every threshold");
    json_t *j;

    fx_init(&x, 2);
    fx_second(&x, n, us, 2, 0);
    n[0] = 15;
    us[0] = 3000;
    fx_second(&x, n, us, 2, 0);
    j = fx_render(&x, sum);
    assert_true(json_is_true(json_object_get(j, "final")));
    /* once over, the rows are the whole run's */
    assert_true(fabs(num(j, "steps.0.tps") - 10.0) < 1e-9); /* 20 in 2 s */
    assert_true(fabs(num(j, "steps.0.p95_ms") - 3.0) < 0.03);
    assert_true(fabs(num(j, "total.tps") - 15.0) < 1e-9); /* 30 in 2 s */
    assert_true(fabs(num(j, "total.mean_ms") - (5 * 1.0 + 15 * 3.0 + 10 * 2.0) / 30) < 0.05);
    assert_int_equal((int)num(j, "total.tech"), 0);
    assert_int_equal((int)num(j, "summary.tests.0.count"), 5);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(j, "summary"), "verdict"), "reason")),
                        "passed: every threshold");
    json_decref(j);
    assert_int_equal(sum->refcount, 1); /* borrowed, not kept */
    json_decref(sum);
    fx_free(&x);
}

/* A step name from a script that is not UTF-8 still gives valid JSON. */
static void test_not_utf8(void **state)
{
    fx x;
    uint64_t n[1] = {1}, us[1] = {1000};
    json_t *j;

    fx_init(&x, 1);
    x.names[0] = "SC-A-STEP-1)bad \xff\xfe name \"<b>\"";
    fx_second(&x, n, us, 1, 0);
    j = fx_render(&x, NULL);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "steps"), 0), "name")),
        "SC-A-STEP-1)bad ?? name \"<b>\"");
    json_decref(j);
    fx_free(&x);
}

static void test_no_steps_yet(void **state)
{
    web_state *w = web_state_new();
    web_state_input in = {"r", NULL, NULL, NULL, 3, 0, NULL, 0, NULL, 0, NULL, 0};
    size_t len = 0;
    char *text = web_state_render(w, &in, &len);
    json_t *j = json_loads(text, 0, NULL);

    assert_non_null(j);
    assert_int_equal(json_array_size(json_object_get(j, "steps")), 0);
    assert_int_equal((int)num(j, "total.count"), 0);
    assert_int_equal((int)num(j, "vus_max"), 3);
    json_decref(j);
    xfree(text);
    web_state_free(w);
}

/* One second of one step whose only worker (worker 0 of agent "local")
 * kept up or not, its entry added to the injector's totals as control.c
 * does, before the page's history. */
static void fx_inj_second(fx *x, uint64_t second, int saturated)
{
    static const uint64_t n[1] = {10}, us[1] = {5000};
    uint64_t runs = 1, missed = 0;
    interval_sum_load l;

    memset(&l, 0, sizeof(l));
    snprintf(l.agent, sizeof(l.agent), "local");
    l.cpu_permille = saturated ? 1000 : 200;
    l.loop_lag_max_us = saturated ? 280000 : 2000;
    l.saturated = saturated;
    stats_reset(&x->st[0]);
    x->st[0].count = n[0];
    hist_record_n(x->st[0].hist, us[0], n[0]);
    agg_add(&x->a, x->st, &runs, &missed, 1000000, 1);
    injtot_add(&x->a.inj, second, &l, 1, 0);
    web_state_add(x->w, &x->a, 0);
}

static void test_injector(void **state)
{
    fx x;
    json_t *j, *b;
    const char *svg;

    fx_init(&x, 1);
    fx_inj_second(&x, 0, 0);
    j = fx_render(&x, NULL);
    assert_false(json_is_true(json_object_get(json_object_get(j, "injector"), "saturated")));
    assert_true(num(j, "injector.cpu_pct") == 20);
    assert_int_equal(json_array_size(json_object_get(json_object_get(j, "injector"), "bands")), 0);
    svg = json_string_value(json_object_get(json_object_get(j, "charts"), "latency"));
    assert_null(strstr(svg, "class=\"sat"));
    json_decref(j);

    fx_inj_second(&x, 1, 0);
    fx_inj_second(&x, 2, 1);
    fx_inj_second(&x, 3, 1);
    j = fx_render(&x, NULL);
    assert_true(json_is_true(json_object_get(json_object_get(j, "injector"), "saturated")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(j, "injector"), "worker")), "worker 0");
    assert_true(num(j, "injector.cpu_pct") == 100);
    assert_true(num(j, "injector.lag_ms") == 280);
    assert_true(num(j, "injector.saturated_s") == 2);
    json_decref(j);

    fx_inj_second(&x, 4, 0);
    j = fx_render(&x, NULL);
    /* still in sight a while, with the stretch's figures */
    assert_true(json_is_true(json_object_get(json_object_get(j, "injector"), "saturated")));
    assert_true(num(j, "injector.lag_ms") == 280);
    b = json_object_get(json_object_get(j, "injector"), "bands");
    assert_int_equal(json_array_size(b), 1);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(b, 0), 0)), 2);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(b, 0), 1)), 4);
    for (const char *const *k =
             (const char *const[]){"throughput", "latency", "errors", "vus", NULL};
         *k != NULL; k++) {
        svg = json_string_value(json_object_get(json_object_get(j, "charts"), *k));
        assert_non_null(svg);
        assert_non_null(strstr(svg, "<rect class=\"sat\" data-from=\"2\" data-to=\"4\""));
        assert_non_null(strstr(svg, "injector saturated 2\xe2\x80\x93"
                                    "3 s: worker 0 CPU 100 %, "
                                    "lag 280 ms</title>"));
        assert_non_null(strstr(svg, ">injector saturated</text>"));
    }
    json_decref(j);
    for (uint64_t s = 5; s < 4 + WEB_STATE_SAT_HOLD_S; s++)
        fx_inj_second(&x, s, 0);
    j = fx_render(&x, NULL);
    assert_false(json_is_true(json_object_get(json_object_get(j, "injector"), "saturated")));
    assert_true(num(j, "injector.lag_ms") == 2);
    assert_true(num(j, "injector.saturated_s") == 2);
    json_decref(j);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_table),    cmocka_unit_test(test_next_second),
        cmocka_unit_test(test_history_pairs), cmocka_unit_test(test_late_second),
        cmocka_unit_test(test_final_summary), cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_no_steps_yet),  cmocka_unit_test(test_injector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for reports/monitor_html: a run's step windows measured from its
 * points and its monitored hosts, then judged (reports/bottleneck.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reports/monitor_html.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 9

static double rps[N], tech[N], func[N], busy[N], disk[N];

/* A run of three 3 s stages, 10, 20 and 40 VUs, one monitored host. */
static void make_run(query_run *r, monitor_series_metric *m, monitor_series_host *h)
{
    memset(r, 0, sizeof(*r));
    r->npts = N;
    r->width_s = 1;
    r->vus = 40;
    r->req_stages = "3s:10,3s:20,3s:40";
    r->all.ts.rps = rps;
    r->all.ts.tech_ps = tech;
    r->all.ts.func_ps = func;
    m[0] = (monitor_series_metric){"cpu_busy", busy};
    m[1] = (monitor_series_metric){"disk_busy", disk};
    *h = (monitor_series_host){"h:9100", "http://h:9100/metrics", NULL, m, 2};
    r->mon.hosts = h;
    r->mon.nhosts = 1;
    r->mon.npts = N;
    for (int i = 0; i < N; i++) {
        tech[i] = func[i] = 0;
        disk[i] = 5;
    }
}

static void set(double *y, double a, double b, double c)
{
    for (int i = 0; i < N; i++)
        y[i] = i < 3 ? a : i < 6 ? b : c;
}

static void test_cpu_bound(void **state)
{
    query_run r;
    monitor_series_metric m[2];
    monitor_series_host h;
    monitor_html_window w[8];
    size_t n;

    make_run(&r, m, &h);
    set(rps, 100, 200, 205);
    set(busy, 40, 70, 95);
    rps[3] = 0;   /* a window's first second is left out... */
    busy[6] = 10; /* ...for the host's figures too */
    rps[0] = NAN; /* a point without a sample does not count */
    n = monitor_html_windows(&r, w, 8);
    assert_int_equal(n, 3);
    assert_true(w[1].start_s == 3 && w[1].end_s == 6);
    assert_true(w[0].w.load == 10 && w[2].w.load == 40);
    assert_true(fabs(w[0].w.tps - 100) < 1e-9);
    assert_true(fabs(w[1].w.tps - 200) < 1e-9);
    assert_true(fabs(w[2].w.cpu_pct - 95) < 1e-9);
    assert_string_equal(w[2].w.cpu_host, "h:9100");
    assert_int_equal(w[0].kind, BOTTLENECK_NOT_JUDGED);
    assert_int_equal(w[1].kind, BOTTLENECK_SCALES);
    assert_int_equal(w[2].kind, BOTTLENECK_CPU_BOUND);
    assert_non_null(strstr(w[2].why, "h:9100's CPU is 95 % busy"));
    /* the same flat throughput with idle hosts: contention */
    set(busy, 20, 25, 30);
    n = monitor_html_windows(&r, w, 8);
    assert_int_equal(w[2].kind, BOTTLENECK_CONTENTION);
    /* with a busy disk, no rule */
    set(disk, 5, 5, 80);
    n = monitor_html_windows(&r, w, 8);
    assert_int_equal(w[2].kind, BOTTLENECK_FLAT);
    /* errors first: 3 of 100 a second in the second stage */
    set(tech, 0, 2, 0);
    set(func, 0, 1, 0);
    set(rps, 100, 100, 100);
    n = monitor_html_windows(&r, w, 8);
    assert_int_equal(w[1].kind, BOTTLENECK_ERRORS);
    assert_true(fabs(w[1].w.errors_pct - 3) < 1e-9);
    assert_int_equal(n, 3);
}

static void test_no_stages(void **state)
{
    query_run r;
    monitor_series_metric m[2];
    monitor_series_host h;
    monitor_html_window w[8];

    make_run(&r, m, &h);
    r.req_stages = NULL;
    r.mon.nhosts = 0;
    set(rps, 10, 10, 10);
    assert_int_equal(monitor_html_windows(&r, w, 4), 1);
    assert_true(w[0].start_s == 0 && w[0].end_s == N);
    assert_int_equal(w[0].w.monitored, 0);
    assert_true(isnan(w[0].w.cpu_pct));
    assert_int_equal(w[0].kind, BOTTLENECK_NOT_JUDGED);
    /* a staircase: the jumps (0 s) have no window */
    r.req_stages = "0s:10,3s:10,0s:20,3s:20,0s:40,3s:40";
    r.mon.nhosts = 1;
    set(rps, 100, 150, 300);
    assert_int_equal(monitor_html_windows(&r, w, 8), 3);
    assert_true(w[1].start_s == 3 && w[1].end_s == 6 && w[1].w.load == 20);
    assert_int_equal(w[1].kind, BOTTLENECK_SCALES);
    assert_int_equal(w[2].kind, BOTTLENECK_SCALES);
    /* the open model's staircase (--capacity 50/s:50/s:3s): loads are rates */
    r.req_stages = "0s:50/s,3s:50/s,0s:100/s,3s:100/s,0s:150/s,3s:150/s";
    set(rps, 50, 100, 101);
    assert_int_equal(monitor_html_windows(&r, w, 8), 3);
    assert_true(w[1].start_s == 3 && w[1].end_s == 6 && w[1].w.load == 100);
    assert_int_equal(w[1].kind, BOTTLENECK_SCALES);
    assert_true(w[2].kind != BOTTLENECK_SCALES);
    /* more stages than windows asked for: the whole run */
    r.req_stages = "1s:1,1s:2,1s:3,1s:4,1s:5,1s:6";
    assert_int_equal(monitor_html_windows(&r, w, 4), 1);
    assert_true(w[0].end_s == N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_bound),
        cmocka_unit_test(test_no_stages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

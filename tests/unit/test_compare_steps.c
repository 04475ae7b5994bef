/* Unit tests for reports/compare_steps: steps matched by id and judged figure by
 * figure against the thresholds of reports/compare.h, then against the noise
 * of the runs' seconds and of several baselines (compare_steps_noise). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/mem.h"
#include "reports/compare_steps.h"
#include "reports/compare.h"

/* A step with n samples, tps requests per second and every percentile at
 * lat_us. */
static query_step step(const char *id, uint64_t n, double tps, uint64_t lat_us, uint64_t errs)
{
    query_step s;

    memset(&s, 0, sizeof(s));
    s.test_id = (char *)id;
    s.label = (char *)"";
    s.declared = 1;
    s.count = n;
    s.err_func = errs;
    s.tps = tps;
    s.mean_us = (double)lat_us;
    s.p50_us = s.p95_us = s.p99_us = lat_us;
    return s;
}

static void run_of(query_run *r, query_step *steps, size_t n)
{
    memset(r, 0, sizeof(*r));
    r->steps = steps;
    r->nsteps = n;
}

static void test_match_and_judge(void **state)
{
    query_step sa[3], sb[3];
    query_run a, b;
    compare_steps_row *rows;
    size_t n = 0;

    sa[0] = step("SC-S-STEP-1", 100, 50.0, 100000, 0); /* p95 100 ms: slower */
    sb[0] = step("SC-S-STEP-1", 100, 50.0, 50000, 0);
    sa[1] = step("SC-S-STEP-2", 100, 60.0, 10000, 0); /* TPS up 20 %: better */
    sb[1] = step("SC-S-STEP-2", 100, 50.0, 10000, 0);
    sa[2] = step("SC-S-STEP-3", 5, 1.0, 1000, 0);   /* too few samples */
    sb[2] = step("SC-S-STEP-4", 100, 1.0, 1000, 0); /* in B only */
    run_of(&a, sa, 3);
    run_of(&b, sb, 3);
    rows = compare_steps_match(&a, &b, COMPARE_THRESHOLD_DEFAULT, NULL, &n);
    assert_int_equal(n, 4);
    assert_string_equal(compare_steps_row_id(&rows[0]), "SC-S-STEP-1");
    assert_int_equal(rows[0].overall, COMPARE_STEPS_WORSE);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_WORSE);
    assert_int_equal(rows[0].v[COMPARE_STEPS_TPS], COMPARE_STEPS_SAME);
    assert_int_equal(rows[1].overall, COMPARE_STEPS_BETTER);
    assert_int_equal(rows[2].overall, COMPARE_STEPS_NA);
    assert_string_equal(compare_steps_na_reason(&rows[2]), "new step (not in the baseline)");
    assert_string_equal(compare_steps_row_id(&rows[3]), "SC-S-STEP-4");
    assert_string_equal(compare_steps_na_reason(&rows[3]), "not in the new run");
    xfree(rows);
}

/* WebSocket messages per second of each run's duration are shown, not
 * judged; a step without any shows none. */
static void test_messages(void **state)
{
    query_step sa[1], sb[1];
    query_run a, b;
    compare_steps_row *rows;
    size_t n = 0;
    double ma = -1, mb = -1;

    sa[0] = step("SC-S-STEP-1", 100, 50.0, 10000, 0);
    sb[0] = step("SC-S-STEP-1", 100, 50.0, 10000, 0);
    run_of(&a, sa, 1);
    run_of(&b, sb, 1);
    a.duration_us = 2000000;
    b.duration_us = 4000000;
    rows = compare_steps_match(&a, &b, COMPARE_THRESHOLD_DEFAULT, NULL, &n);
    assert_int_equal(n, 1);
    assert_int_equal(compare_steps_row_messages(&rows[0], &a, &b, &ma, &mb), 0);
    xfree(rows);
    sa[0].ws_sent = 30;
    sa[0].ws_recv = 10; /* 40 in 2 s */
    sb[0].ws_recv = 40; /* 40 in 4 s */
    rows = compare_steps_match(&a, &b, COMPARE_THRESHOLD_DEFAULT, NULL, &n);
    assert_int_equal(compare_steps_row_messages(&rows[0], &a, &b, &ma, &mb), 1);
    assert_true(ma == 20.0);
    assert_true(mb == 10.0);
    assert_int_equal(rows[0].overall, COMPARE_STEPS_SAME); /* not a judged figure */
    xfree(rows);
}

/* Sub-millisecond noise and small error-rate moves are no change. */
static void test_floors(void **state)
{
    query_step sa[1], sb[1];
    query_run a, b;
    compare_steps_row *rows;
    size_t n = 0;

    sa[0] = step("SC-S-STEP-1", 1000, 50.0, 400, 4); /* +100 % of 200 us; errors 0.4 % */
    sb[0] = step("SC-S-STEP-1", 1000, 50.0, 200, 0);
    run_of(&a, sa, 1);
    run_of(&b, sb, 1);
    rows = compare_steps_match(&a, &b, COMPARE_THRESHOLD_DEFAULT, NULL, &n);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_SAME);
    assert_int_equal(rows[0].v[COMPARE_STEPS_ERR], COMPARE_STEPS_SAME);
    assert_int_equal(rows[0].overall, COMPARE_STEPS_SAME);
    xfree(rows);
}

/* A run not complete: no verdict, and the reason given. */
static void test_incomplete(void **state)
{
    query_step sa[1], sb[1];
    query_run a, b;
    compare_steps_row *rows;
    size_t n = 0;

    sa[0] = step("SC-S-STEP-1", 100, 50.0, 100000, 0);
    sb[0] = step("SC-S-STEP-1", 100, 50.0, 50000, 0);
    run_of(&a, sa, 1);
    run_of(&b, sb, 1);
    rows = compare_steps_match(&a, &b, COMPARE_THRESHOLD_DEFAULT, "A is still running", &n);
    assert_int_equal(rows[0].overall, COMPARE_STEPS_NA);
    assert_string_equal(compare_steps_na_reason(&rows[0]), "A is still running");
    xfree(rows);
}

static void test_formats(void **state)
{
    char buf[32];

    assert_string_equal(compare_steps_fmt_delta(COMPARE_STEPS_ERR, 1.5, 0.5, buf, sizeof(buf)),
                        "+1.00 pt");
    assert_string_equal(compare_steps_fmt_delta(COMPARE_STEPS_TPS, 60, 50, buf, sizeof(buf)),
                        "+20.0%");
    assert_string_equal(compare_steps_fmt_delta(COMPARE_STEPS_P95, 1, 0, buf, sizeof(buf)), "-");
    assert_string_equal(compare_steps_fmt_metric(COMPARE_STEPS_ERR, 2.5, buf, sizeof(buf)), "2.50");
}

/* npts per-second p95 values around mid (ms), spread +-spread, into v. */
static void seconds(double *v, size_t npts, double mid, double spread, unsigned seed)
{
    for (size_t i = 0; i < npts; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = mid + spread * (((double)(seed >> 8 & 0xffff) / 65535.0) * 2.0 - 1.0);
    }
}

/* One step a run, every latency p95_ms over the run and per second in v (npts). */
static void noisy_run(query_run *r, query_step *st, double p95_ms, double *v, size_t npts)
{
    *st = step("SC-S-STEP-1", 1000, 50.0, (uint64_t)(p95_ms * 1000), 0);
    st->ts.mean_ms = st->ts.p50_ms = st->ts.p95_ms = st->ts.p99_ms = v;
    run_of(r, st, 1);
    r->npts = npts;
}

static void test_noise(void **state)
{
    static double va[60], vb[60], vc[60], vd[3], ve[3];
    query_step sa, sb, sc, sd, se;
    query_run a, b, c, d, e;
    const query_run *bases[2];
    compare_steps_row *rows;
    size_t n = 0;

    /* 30 % slower, each second too: worse, beyond the noise */
    seconds(va, 60, 26.0, 2.0, 1);
    seconds(vb, 60, 20.0, 2.0, 2);
    noisy_run(&a, &sa, 26.0, va, 60);
    noisy_run(&b, &sb, 20.0, vb, 60);
    bases[0] = &b;
    rows = compare_steps_match(&a, &b, 10.0, NULL, &n);
    compare_steps_noise(rows, n, &a, bases, 1, 10.0);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_WORSE);
    assert_true(rows[0].ci_ok[COMPARE_STEPS_P95]);
    assert_true(rows[0].ci[COMPARE_STEPS_P95].lo > 0);
    assert_false(rows[0].noisy[COMPARE_STEPS_P95]);
    xfree(rows);

    /* 15 % slower over the run, but its seconds spread as wide: within noise */
    seconds(va, 60, 23.0, 30.0, 3);
    seconds(vb, 60, 20.0, 30.0, 4);
    noisy_run(&a, &sa, 23.0, va, 60);
    rows = compare_steps_match(&a, &b, 10.0, NULL, &n);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_WORSE);
    compare_steps_noise(rows, n, &a, bases, 1, 10.0);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_SAME);
    assert_true(rows[0].noisy[COMPARE_STEPS_P95]);
    assert_int_equal(rows[0].overall, COMPARE_STEPS_SAME);
    xfree(rows);

    /* past 0 but not past the threshold with 95 % confidence: within noise */
    seconds(va, 60, 21.6, 5.0, 11);
    seconds(vb, 60, 20.0, 5.0, 12);
    noisy_run(&a, &sa, 21.6, va, 60);
    noisy_run(&b, &sb, 20.0, vb, 60);
    rows = compare_steps_match(&a, &b, 5.0, NULL, &n);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_WORSE); /* +8 % > 5 % */
    compare_steps_noise(rows, n, &a, bases, 1, 5.0);
    assert_true(rows[0].ci[COMPARE_STEPS_P95].lo > 0);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_SAME);
    assert_true(rows[0].noisy[COMPARE_STEPS_P95]);
    xfree(rows);

    /* tight seconds, but a second baseline of 24 ms: the unchanged system
     * moves that much from run to run, and 23 ms is within it */
    seconds(va, 60, 23.0, 0.5, 5);
    seconds(vb, 60, 20.0, 0.5, 6);
    seconds(vc, 60, 24.0, 0.5, 7);
    noisy_run(&a, &sa, 23.0, va, 60);
    noisy_run(&c, &sc, 24.0, vc, 60);
    bases[1] = &c;
    rows = compare_steps_match(&a, &b, 10.0, NULL, &n);
    compare_steps_noise(rows, n, &a, bases, 2, 10.0);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_SAME);
    assert_true(rows[0].noisy[COMPARE_STEPS_P95]);
    assert_int_equal(rows[0].nbases, 2);
    assert_true(rows[0].blo[COMPARE_STEPS_P95] == 20000 && rows[0].bhi[COMPARE_STEPS_P95] == 24000);
    xfree(rows);
    /* ... and 30 ms is past it */
    seconds(va, 60, 30.0, 0.5, 8);
    noisy_run(&a, &sa, 30.0, va, 60);
    rows = compare_steps_match(&a, &b, 10.0, NULL, &n);
    compare_steps_noise(rows, n, &a, bases, 2, 10.0);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_WORSE);
    xfree(rows);

    /* three seconds a run: too few for an interval, the verdict as it was */
    seconds(vd, 3, 30.0, 1.0, 9);
    seconds(ve, 3, 20.0, 1.0, 10);
    noisy_run(&d, &sd, 30.0, vd, 3);
    noisy_run(&e, &se, 20.0, ve, 3);
    bases[0] = &e;
    rows = compare_steps_match(&d, &e, 10.0, NULL, &n);
    compare_steps_noise(rows, n, &d, bases, 1, 10.0);
    assert_int_equal(rows[0].v[COMPARE_STEPS_P95], COMPARE_STEPS_WORSE);
    assert_false(rows[0].ci_ok[COMPARE_STEPS_P95]);
    assert_int_equal(rows[0].ci[COMPARE_STEPS_P95].na, 3);
    xfree(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_and_judge), cmocka_unit_test(test_floors),
        cmocka_unit_test(test_messages),        cmocka_unit_test(test_incomplete),
        cmocka_unit_test(test_formats),         cmocka_unit_test(test_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for store/query and store/series: a run written through
 * store/db read back whole, its totals (or, not ended, the sums of its
 * intervals: partial totals) and its time series. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include "store/db.h"
#include "store/query.h"

#include "tests/unit/dbfix.h"

/* Writes a run of two steps over three seconds: step 0 has 2 samples a
 * second (1 ms and 3 ms), step 1 one technical error in second 1. Ends it
 * (with totals) when end is 1. */
static int64_t write_run(fx *f, int end)
{
    static const db_step steps[2] = {{"SC-S-STEP-1", "Login", "S"}, {"SC-S-STEP-2", "Home", "S"}};
    static const char *const scens[1] = {"S"};
    db_run_info ri = {0};
    step_stats s[2], tot[2];
    uint64_t runs = 1, missed = 0;
    rate_counts arr = {4, 3, 1, 1}; /* the open model's arrivals each second */
    db_iv iv = {0};
    char err[ERR_MAX];
    int64_t id;

    ri.name = "plan";
    ri.script = f->script;
    ri.vus = 2;
    ri.started_us = 1700000000000000;
    ri.steps = steps;
    ri.nsteps = 2;
    ri.scen_names = scens;
    ri.nscens = 1;
    id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    for (int i = 0; i < 2; i++) {
        stats_init(&s[i]);
        stats_init(&tot[i]);
    }
    iv.length_us = 1000000;
    iv.active_vus = 2;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &runs;
    iv.missed = &missed;
    iv.nscens = 1;
    iv.arrivals = &arr;
    for (uint64_t sec = 0; sec < 3; sec++) {
        for (int i = 0; i < 2; i++)
            stats_reset(&s[i]);
        s[0].count = 2;
        hist_record(s[0].hist, 1000);
        hist_record(s[0].hist, 3000);
        if (sec == 1) {
            s[1].count = 1;
            s[1].err_tech = 1;
            stats_note_error(&s[1], 1, "connection refused");
            hist_record(s[1].hist, 500);
        }
        iv.second = sec;
        iv.start_us = ri.started_us + (int64_t)sec * 1000000;
        assert_int_equal(db_interval(f->d, id, &iv, err, sizeof(err)), 0);
        for (int i = 0; i < 2; i++)
            stats_merge(&tot[i], &s[i]);
    }
    if (end) {
        db_run_end_info ei = {"completed", ri.started_us + 3000000, 3000000, tot, 2, NULL};
        assert_int_equal(db_run_end(f->d, id, &ei, err, sizeof(err)), 0);
    }
    for (int i = 0; i < 2; i++) {
        stats_free(&s[i]);
        stats_free(&tot[i]);
    }
    return id;
}

static void check_figures(const query_run *r)
{
    assert_int_equal(r->nsteps, 2);
    assert_string_equal(r->steps[0].test_id, "SC-S-STEP-1");
    assert_string_equal(r->steps[1].label, "Home");
    assert_int_equal(r->steps[0].count, 6);
    assert_int_equal(r->steps[1].count, 1);
    assert_int_equal(r->steps[1].err_tech, 1);
    assert_int_equal(r->all.count, 7);
    assert_int_equal(r->all.err_tech, 1);
    assert_true(r->steps[0].min_us >= 900 && r->steps[0].min_us <= 1100);
    assert_true(r->steps[0].max_us >= 2900 && r->steps[0].max_us <= 3100);
    assert_int_equal(r->nerrors, 1);
    assert_string_equal(r->errors[0].kind, "technical");
    assert_int_equal(r->errors[0].first_second, 1);
    assert_int_equal(r->nscens, 1);
    assert_int_equal(r->scens[0].runs, 3);
    assert_int_equal(r->scens[0].arr_scheduled, 12); /* migration 5, summed like runs */
    assert_int_equal(r->scens[0].arr_started, 9);
    assert_int_equal(r->scens[0].arr_late, 3);
    assert_int_equal(r->scens[0].arr_dropped, 3);
}

/* An ended run: its totals, status, and one point a second. */
static void test_load_ended(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int missing = 1;
    int64_t id = write_run(f, 1);
    uint64_t nsec = 0;
    query_run *r;

    assert_int_equal(query_run_seconds(f->d, id, &nsec, err, sizeof(err)), 0);
    assert_int_equal(nsec, 3);
    r = query_run_load(f->d, id, 0, &missing, err, sizeof(err));
    assert_non_null(r);
    assert_int_equal(missing, 0);
    assert_string_equal(r->name, "plan");
    assert_string_equal(r->status, "completed");
    assert_int_equal(r->duration_us, 3000000);
    assert_false(query_run_incomplete(r));
    assert_true(r->steps[0].has_totals);
    check_figures(r);
    assert_int_equal(r->width_s, 1);
    assert_int_equal(r->npts, 3);
    for (size_t k = 0; k < 3; k++) {
        assert_true(fabs(r->steps[0].ts.rps[k] - 2.0) < 1e-9);
        assert_true(fabs(r->vus_ts[k] - 2.0) < 1e-9);
    }
    assert_true(isnan(r->steps[1].ts.rps[0]) || r->steps[1].ts.rps[0] == 0.0);
    assert_true(fabs(r->steps[1].ts.tech_ps[1] - 1.0) < 1e-9);
    query_run_free(r);
}

/* A run that did not end: the same figures, summed from its intervals. */
static void test_load_partial(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int64_t id = write_run(f, 0);
    query_run *r = query_run_load(f->d, id, 0, NULL, err, sizeof(err));

    assert_non_null(r);
    assert_string_equal(r->status, "running");
    assert_true(query_run_incomplete(r));
    assert_false(r->all.has_totals);
    assert_int_equal(r->elapsed_us, 3000000);
    assert_int_equal(r->duration_us, 3000000);
    check_figures(r);
    query_run_free(r);
}

/* Points two seconds wide: the last, a single second, still a point of its
 * own (it is not shorter than half the width). */
static void test_load_width(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int64_t id = write_run(f, 1);
    query_run *r = query_run_load(f->d, id, 2, NULL, err, sizeof(err));

    assert_non_null(r);
    assert_int_equal(r->width_s, 2);
    assert_int_equal(r->npts, 2);
    assert_true(fabs(r->all.ts.rps[0] - 2.5) < 1e-9);
    query_run_free(r);
}

static void test_load_missing(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int missing = 0;

    assert_null(query_run_load(f->d, 42, 0, &missing, err, sizeof(err)));
    assert_int_equal(missing, 1);
    query_run_free(NULL);
}

/* The readers' open: a missing file is exit status 2, and nothing is made. */
static void test_open_missing(void **state)
{
    fx *f = *state;
    char p[160];
    int rc = 0;

    snprintf(p, sizeof(p), "%s/none.db", f->dir);
    assert_null(query_open("report", p, &rc));
    assert_int_equal(rc, 2);
    assert_int_not_equal(access(p, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_ended, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_load_partial, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_load_width, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_load_missing, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_open_missing, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include "common/mem.h"
#include "store/db.h"
#include "store/query.h"

#include "tests/unit/dbfix.h"
#include "tests/unit/runfix.h"

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
    int64_t id = runfix_write(f->d, f->script, "plan", "Home", 1);
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
    int64_t id = runfix_write(f->d, f->script, "plan", "Home", 0);
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
    int64_t id = runfix_write(f->d, f->script, "plan", "Home", 1);
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

/* Unit tests for store/runverdict: the verdict of a run as the readers
 * show it, stored or judged, and its text cut to a width. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include <sys/wait.h>

#include "common/clock.h"
#include "store/abandon.h"
#include "store/db.h"
#include "store/runverdict.h"
#include "store/schema.h"

#include "tests/unit/dbfix.h"
#include "tests/unit/runfix.h"

/* The console's verdict is stored, and decides what the views show. */
static void test_run_verdict(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    db *d = db_open(f->path, err, sizeof(err));
    db_threshold t = {"p95<500ms", "cli", 0, 1, 612.5, 500, "ms", "p95 = 612.5 ms"};
    runverdict v;
    int64_t id;

    assert_non_null(d);
    id = runfix_begin(d, f->script, NULL);
    assert_int_equal(runverdict_load(d, id, "completed", 10, 0, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "passed");
    assert_int_equal(runverdict_load(d, id, "completed", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "failed: 3 errors");
    assert_int_equal(
        db_run_verdict(d, id, 1, "3 errors, allowed (--allow-errors)", err, sizeof(err)), 0);
    assert_int_equal(runverdict_load(d, id, "completed", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_int_equal(v.kind, RUNVERDICT_PASSED);
    assert_int_equal(
        db_run_verdict(d, id, 0, "3 errors and no threshold about errors", err, sizeof(err)), 0);
    assert_int_equal(runverdict_load(d, id, "completed", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "failed: 3 errors and no threshold about errors");
    /* the console's own line, as recorded: said once */
    assert_int_equal(db_run_verdict(d, id, 0, "failed: the run is degraded: an agent was lost", err,
                                    sizeof(err)),
                     0);
    assert_int_equal(runverdict_load(d, id, "degraded", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "failed: the run is degraded: an agent was lost");
    assert_int_equal(
        db_run_verdict(d, id, 0, "inconclusive: the injector saturated", err, sizeof(err)), 0);
    assert_int_equal(runverdict_load(d, id, "completed", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "inconclusive: the injector saturated");
    assert_int_equal(v.kind, RUNVERDICT_FAILED);
    assert_int_equal(db_thresholds(d, id, &t, 1, err, sizeof(err)), 0);
    assert_int_equal(runverdict_load(d, id, "completed", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "failed: p95<500ms");
    assert_int_equal(runverdict_load(d, id, "abandoned", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_string_equal(v.text, "failed: abandoned");
    assert_int_equal(runverdict_load(d, id, "running", 10, 3, 0, &v, err, sizeof(err)), 0);
    assert_int_equal(v.kind, RUNVERDICT_PENDING);
    db_close(d);
}

/* A verdict naming many thresholds is shortened: as many as fit. */
static void test_verdict_short(void **state)
{
    static const char *const failed[3] = {"SC-CONSULTATION-PROFIL-STEP-2: p99<1s", "p95<500ms",
                                          "errors<1%"};
    runverdict_in in = {0};
    runverdict v;

    in.status = "completed";
    in.nthresholds = 4;
    in.failed = failed;
    in.nfailed = 3;
    runverdict_decide(&in, 0, &v);
    assert_string_equal(v.text, "failed: SC-CONSULTATION-PROFIL-STEP-2: p99<1s, p95<500ms, "
                                "errors<1%");
    runverdict_decide(&in, 60, &v);
    assert_string_equal(v.text, "failed: SC-CONSULTATION-PROFIL-STEP-2: p99<1s +2 more");
    runverdict_decide(&in, 30, &v);
    assert_true(strlen(v.text) <= 30);
    assert_non_null(strstr(v.text, "failed: SC-"));
    in.status = "aborted";
    in.nfailed = 0;
    runverdict_decide(&in, 0, &v);
    assert_string_equal(v.text, "failed: aborted");
    in.status = "completed";
    in.nthresholds = 0;
    runverdict_decide(&in, 0, &v);
    assert_string_equal(v.text, "failed: no sample");
    in.count = 5;
    runverdict_decide(&in, 0, &v);
    assert_string_equal(v.text, "passed");
    assert_int_equal(v.kind, RUNVERDICT_PASSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_run_verdict, setup, teardown),
        cmocka_unit_test(test_verdict_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

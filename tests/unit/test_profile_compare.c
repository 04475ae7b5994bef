/* Unit tests for reports/profile_compare: the function whose share grew
 * between two runs named, the lock waits that grew, nothing named when
 * nothing grew, and runs without a common profiled target left out. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "reports/profile_compare.h"
#include "store/profile_db.h"

#include "tests/unit/dbfix.h"

static int64_t begin(fx *f)
{
    db_run_info ri = {0};
    char err[ERR_MAX];

    ri.name = "plan";
    ri.script = f->script;
    ri.vus = 1;
    ri.started_us = 1700000000000000;
    int64_t id = db_run_begin(f->d, &ri, err, sizeof(err));
    assert_true(id > 0);
    return id;
}

/* A run profiling comm:srv: find samples in find_item, the rest in parse;
 * lock_us blocked in seq_next's mutex over 1 s of 4 threads. */
static int64_t profiled(fx *f, const char *target, uint64_t find, uint64_t lock_us)
{
    char err[ERR_MAX];
    int64_t id = begin(f);
    profile_db *p = profile_db_new(f->d, err, sizeof(err));
    profile_target_row found = {.procs = 1, .threads = 4, .freq = 99, .cpus = 1};
    profile_db_stack cpu[2] = {{"main;serve;find_item", find}, {"main;serve;parse", 100 - find}};
    profile_db_stack off[1] = {{"main;serve;seq_next;pthread_mutex_lock", lock_us}};
    profile_db_sec sec = {.second = 0,
                          .cpu = cpu,
                          .ncpu = 2,
                          .off = off,
                          .noff = lock_us > 0,
                          .on_us = 4000000 - lock_us,
                          .off_us = lock_us,
                          .threads = 4};

    assert_non_null(p);
    assert_int_equal(profile_db_target(p, id, target, "local", 1, NULL, &found, err, sizeof(err)),
                     0);
    assert_int_equal(profile_db_second(p, id, target, &sec, err, sizeof(err)), 0);
    profile_db_free(p);
    return id;
}

static void test_grew(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], buf[1024];
    int64_t base = profiled(f, "comm:srv", 12, 0), now = profiled(f, "comm:srv", 83, 2000000);

    assert_int_equal(profile_compare_lines(f->d, now, base, buf, sizeof(buf), err, sizeof(err)), 1);
    assert_non_null(
        strstr(buf, "profile comm:srv: find_item 83.0 % of the on-CPU samples, up from 12.0 %"));
    assert_non_null(strstr(buf, "lock waits 50 % of the threads' time, up from 0 %"));
    /* the other way round, parse grew and the lock waits fell */
    assert_int_equal(profile_compare_lines(f->d, base, now, buf, sizeof(buf), err, sizeof(err)), 1);
    assert_non_null(strstr(buf, "parse 88.0 % of the on-CPU samples, up from 17.0 %"));
    assert_null(strstr(buf, "lock"));
    /* the same profile: nothing grew */
    int64_t again = profiled(f, "comm:srv", 83, 2000000);
    assert_int_equal(profile_compare_lines(f->d, again, now, buf, sizeof(buf), err, sizeof(err)),
                     1);
    assert_non_null(strstr(buf, "no function's share of the on-CPU samples grew by 5 points"));
}

static void test_no_common(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], buf[256];
    int64_t a = profiled(f, "comm:a", 50, 0), b = profiled(f, "comm:b", 50, 0), c = begin(f);

    assert_int_equal(profile_compare_lines(f->d, a, b, buf, sizeof(buf), err, sizeof(err)), 0);
    assert_string_equal(buf, "");
    assert_int_equal(profile_compare_lines(f->d, a, c, buf, sizeof(buf), err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_grew, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_no_common, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for store/profile_db: a run's profile written second by
 * second and read back as windows: stacks stored once, values summed over
 * the window only, the targets' rows, and a run with none. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/err.h"
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

static uint64_t value_of(const folded *f, const char *s)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->e[i].frames, s) == 0)
            return f->e[i].value;
    return 0;
}

static void test_round_trip(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    int64_t id = begin(f);
    profile_db *p = profile_db_new(f->d, err, sizeof(err));
    profile_target_row found = {.procs = 2, .threads = 9, .freq = 99, .cpus = 1}, rows[4];
    profile_window w;

    assert_non_null(p);
    assert_int_equal(
        profile_db_target(p, id, "comm:srv", "local", 1, NULL, &found, err, sizeof(err)), 0);
    assert_int_equal(
        profile_db_target(p, id, "comm:x@b", "b", 0, "not allowed", &found, err, sizeof(err)), 0);
    for (int s = 0; s < 4; s++) {
        profile_db_stack cpu[2] = {{"main;work;find_item", (uint64_t)(10 + s)}, {"main;work", 1}};
        profile_db_stack off[1] = {{"main;seq_next;pthread_mutex_lock", 1000}};
        profile_db_sec sec = {.second = s,
                              .cpu = cpu,
                              .ncpu = 2,
                              .off = off,
                              .noff = 1,
                              .on_us = 500000,
                              .off_us = 1000,
                              .runnable_us = 7,
                              .threads = (uint32_t)(3 + s),
                              .lost = s == 2};
        assert_int_equal(profile_db_second(p, id, "comm:srv", &sec, err, sizeof(err)), 0);
    }
    /* a second sent twice adds up */
    profile_db_stack again[1] = {{"main;work;find_item", 100}};
    profile_db_sec sec = {.second = 3, .cpu = again, .ncpu = 1, .on_us = 1};
    assert_int_equal(profile_db_second(p, id, "comm:srv", &sec, err, sizeof(err)), 0);
    profile_db_free(p);

    assert_int_equal(profile_db_targets(f->d, id, rows, 4, err, sizeof(err)), 2);
    assert_string_equal(rows[0].target, "comm:srv");
    assert_int_equal(rows[0].ok, 1);
    assert_int_equal(rows[0].threads, 9);
    assert_int_equal(rows[0].cpus, 1);
    assert_string_equal(rows[1].error, "not allowed");
    assert_int_equal(rows[1].ok, 0);

    /* seconds 1 and 2 only */
    assert_int_equal(profile_db_window(f->d, id, "comm:srv", 1, 3, &w, err, sizeof(err)), 0);
    assert_int_equal(w.seconds, 2);
    assert_int_equal(value_of(&w.cpu, "main;work;find_item"), 11 + 12);
    assert_int_equal(value_of(&w.cpu, "main;work"), 2);
    assert_int_equal(value_of(&w.off, "main;seq_next;pthread_mutex_lock"), 2000);
    assert_int_equal(w.on_us, 1000000);
    assert_int_equal(w.runnable_us, 14);
    assert_int_equal(w.lost, 1);
    assert_int_equal(w.threads_max, 5);
    profile_window_free(&w);
    assert_int_equal(profile_db_window(f->d, id, "comm:srv", 3, 4, &w, err, sizeof(err)), 0);
    assert_int_equal(value_of(&w.cpu, "main;work;find_item"), 113);
    profile_window_free(&w);
    /* a target with no seconds: an empty window */
    assert_int_equal(profile_db_window(f->d, id, "comm:other", 0, 10, &w, err, sizeof(err)), 0);
    assert_int_equal(w.seconds, 0);
    assert_int_equal(w.cpu.n, 0);
    profile_window_free(&w);
}

static void test_none(void **state)
{
    fx *f = *state;
    char err[ERR_MAX];
    profile_target_row rows[2];
    int64_t id = begin(f);

    assert_int_equal(profile_db_targets(f->d, id, rows, 2, err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_none, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

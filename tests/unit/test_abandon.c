/* Unit tests for store/abandon: a run left running by a console that is
 * gone (its pid ended here, or it stopped writing) is judged and marked
 * abandoned, and runs again when its console writes. */
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
#include "tests/unit/sqlone.h"

/* The pid of a process that has ended. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();

    if (pid == 0)
        _exit(0);
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

/* A row left "running" by a console that is gone is abandoned: its pid is
 * dead on this host, or it was not written for longer than the bound. */
static void test_abandoned(void **state)
{
    fx *f = *state;
    char err[ERR_MAX], why[256], sql[256], buf[256];
    db *d = db_open(f->path, err, sizeof(err));
    step_stats s[2];
    uint64_t zero = 0;
    db_iv iv = {0};
    sqlite3 *sq;
    int64_t live, dead, stale, done, now = clock_wall_us();
    pid_t gone = dead_pid();

    assert_non_null(d);
    sq = db_sqlite(d);
    live = runfix_begin(d, f->script, NULL); /* this process: alive, just written */
    dead = runfix_begin(d, f->script, NULL);
    stale = runfix_begin(d, f->script, NULL);
    done = runfix_begin(d, f->script, NULL);
    snprintf(sql, sizeof(sql), "UPDATE runs SET console_pid = %d WHERE id = %lld", (int)gone,
             (long long)dead);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
    snprintf(sql, sizeof(sql),
             "UPDATE runs SET console_host = 'elsewhere', updated_us = %lld WHERE id = %lld",
             (long long)(now - ABANDON_STALE_US - 1000000), (long long)stale);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);
    snprintf(sql, sizeof(sql), "UPDATE runs SET status = 'completed' WHERE id = %lld",
             (long long)done);
    assert_int_equal(sqlite3_exec(sq, sql, NULL, NULL, NULL), SQLITE_OK);

    assert_int_equal(abandon_run(d, live, now, why, sizeof(why)), 0);
    assert_int_equal(abandon_run(d, done, now, why, sizeof(why)), 0);
    assert_int_equal(abandon_run(d, dead, now, why, sizeof(why)), 1);
    snprintf(buf, sizeof(buf), "pid %d", (int)gone);
    assert_non_null(strstr(why, buf));
    assert_int_equal(abandon_run(d, stale, now, why, sizeof(why)), 1);
    assert_non_null(strstr(why, "stopped writing"));
    /* Written back: two rows marked, with the reason. */
    assert_int_equal(abandon_sweep(d, now, err, sizeof(err)), 2);
    snprintf(sql, sizeof(sql), "SELECT status || ' ' || status_reason FROM runs WHERE id = %lld",
             (long long)dead);
    sqlone_text(sq, sql, buf, sizeof(buf));
    assert_non_null(strstr(buf, "abandoned its console (pid "));
    sqlone_text(sq, "SELECT group_concat(status, ' ') FROM (SELECT status FROM runs ORDER BY id)",
                buf, sizeof(buf));
    assert_string_equal(buf, "running abandoned abandoned completed");
    assert_int_equal(abandon_sweep(d, now, err, sizeof(err)), 0);
    /* A console that was only slow writes again: its run is running again. */
    stats_init(&s[0]);
    stats_init(&s[1]);
    iv.length_us = 1000000;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &zero;
    iv.missed = &zero;
    iv.nscens = 1;
    assert_int_equal(db_interval(d, stale, &iv, err, sizeof(err)), 0);
    snprintf(sql, sizeof(sql),
             "SELECT status || ' ' || (status_reason IS NULL) FROM runs WHERE id = %lld",
             (long long)stale);
    sqlone_text(sq, sql, buf, sizeof(buf));
    assert_string_equal(buf, "running 1");
    stats_free(&s[0]);
    stats_free(&s[1]);
    db_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_abandoned, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

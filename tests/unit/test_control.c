/* The run's course (console/control.c) on a run of two agents whose links
 * are closed (what is sent to them goes nowhere), driven by calls, not by
 * the loop: the first StepsDef defines the steps and their scenarios and
 * begins the totals with the metrics the script declares, a scope that
 * matches no step is a usage error, another agent's different steps fail
 * the start; a second is merged once both agents sent it (or forced), its
 * time less what was paused, a late one adding counts and no time, each
 * agent's requests and errors counted, another run's interval ignored;
 * --abort-on-fail stops at a threshold that can no longer pass; a first
 * interrupt stops gracefully, remembering the signal only before the
 * planned end, a second one aborts; a stop keeps the first one's time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/mem.h"
#include "console/control.h"
#include "console/run.h"
#include "proto/interval_sum.h"

#define RUN_ID 77

static char *argv0[] = {"run", NULL};

static aconn *add_conn(run *r, const char *name)
{
    aconn *c = xcalloc(1, sizeof(*c));

    c->r = r;
    c->link.fd = -1;
    c->state = AC_AGENT;
    c->in_run = 1;
    c->ready = 1;
    snprintf(c->name, sizeof(c->name), "%s", name);
    r->conns = xreallocarray(r->conns, r->nconns + 1, sizeof(*r->conns));
    r->conns[r->nconns++] = c;
    r->running_known = 0;
    return c;
}

static int setup(void **state)
{
    run *r = xcalloc(1, sizeof(*r));

    run_init(r, 1, argv0);
    r->o.quiet = 1;
    r->o.vus = 4;
    r->o.duration_us = 20000000;
    r->run_id = RUN_ID;
    r->phase = PHASE_RUN;
    add_conn(r, "a1");
    add_conn(r, "a2");
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    run *r = *state;

    log_set_before(NULL, NULL); /* the live display goes with the run */
    run_free(r);
    xfree(r);
    return 0;
}

/* A StepsDef of n steps: ids[i], labels "L<i>", scenarios scen[i]. */
static void steps_def(run *r, aconn *c, size_t n, const char *const *ids, const char *const *scen)
{
    Quern__StepsDef sd = QUERN__STEPS_DEF__INIT;
    Quern__StepDef s[4], *sp[4];
    char labels[4][8];

    for (size_t i = 0; i < n; i++) {
        quern__step_def__init(&s[i]);
        snprintf(labels[i], sizeof(labels[i]), "L%zu", i);
        s[i].index = (uint32_t)i;
        s[i].id = (char *)ids[i];
        s[i].label = labels[i];
        s[i].scenario = (char *)scen[i];
        sp[i] = &s[i];
    }
    sd.run_id = RUN_ID;
    sd.steps = sp;
    sd.n_steps = n;
    control_steps_def(r, c, &sd);
}

static const char *const ids3[3] = {"SC-A-STEP-1", "SC-A-STEP-2", "SC-B-STEP-1"};
static const char *const scen3[3] = {"A", "A", "B"};

/* Agent c's interval for second: step 0 n samples of 10 ms, err of them
 * technical errors; one run of A; paused_us of it paused. */
static void interval(run *r, aconn *c, uint64_t run_id, uint64_t second, uint64_t n, uint64_t err,
                     uint64_t paused_us)
{
    step_stats *st = stats_array_new(3);
    uint64_t runs[2] = {1, 0}, missed[2] = {0, 0};
    const char *scens[2] = {"A", "B"};
    Quern__Interval *m;

    st[0].count = n;
    st[0].err_tech = err;
    hist_record_n(st[0].hist, 10000, n);
    m = interval_sum_msg_new(run_id, second, st, 3, runs, missed, scens, 2, 2, 0, 0);
    m->paused_us = paused_us;
    control_interval(r, c, m);
    interval_sum_msg_free(m);
    stats_array_free(st, 3);
}

static void test_steps_def(void **state)
{
    run *r = *state;
    const char *const other[3] = {"SC-A-STEP-1", "SC-A-STEP-2", "SC-C-STEP-1"};
    char err[ERR_MAX];
    int m;

    assert_true(tally_metric_def(&r->decl, "basket", TALLY_COUNTER, err, sizeof(err)) >= 0);
    steps_def(r, r->conns[0], 3, ids3, scen3);
    assert_int_equal(r->start_error, 0);
    assert_true(r->have_agg);
    assert_int_equal(r->nsteps, 3);
    assert_int_equal(r->nscens, 2); /* A once */
    assert_string_equal(r->scen_names[0], "A");
    assert_string_equal(r->scen_names[1], "B");
    assert_string_equal(r->ids[2], "SC-B-STEP-1");
    assert_string_equal(r->labels[1], "L1");
    assert_string_equal(r->names[1], "SC-A-STEP-2)L1");
    assert_int_equal(r->agg.nsteps, 3);
    assert_int_equal(r->agg.nscens, 2);
    assert_non_null(r->live);
    assert_true(r->conns[0]->steps_ok);
    m = tally_metric_find(&r->agg.tally, "basket"); /* declared: in the totals already */
    assert_true(m >= 0);
    assert_int_equal(r->agg.tally.metrics[m].n, 0);

    /* the same steps again: fine; others: the start fails, naming the agent */
    steps_def(r, r->conns[1], 3, ids3, scen3);
    assert_int_equal(r->start_error, 0);
    assert_true(r->conns[1]->steps_ok);
    assert_int_equal(r->nsteps, 3);
    add_conn(r, "odd");
    steps_def(r, r->conns[2], 3, other, scen3);
    assert_int_equal(r->start_error, 3);
    assert_non_null(strstr(r->start_msg, "agent odd loaded different steps"));
    steps_def(r, r->conns[2], 2, ids3, scen3); /* fewer: the first error stays */
    assert_int_equal(r->start_error, 3);
}

static void test_scope_unknown(void **state)
{
    run *r = *state;
    char err[ERR_MAX];

    r->o.th = xcalloc(1, sizeof(*r->o.th));
    r->o.th[0] = thresh_parse("SC-Z-*:p95<100ms", err, sizeof(err));
    assert_non_null(r->o.th[0]);
    r->o.nth = 1;
    steps_def(r, r->conns[0], 3, ids3, scen3);
    assert_int_equal(r->start_error, 2); /* a usage error: nothing was sent yet */
    assert_int_equal(strncmp(r->start_msg, "--threshold ", 12), 0);
    assert_non_null(strstr(r->start_msg, "SC-Z-*"));
}

static void test_merge(void **state)
{
    run *r = *state;

    steps_def(r, r->conns[0], 3, ids3, scen3);
    steps_def(r, r->conns[1], 3, ids3, scen3);
    interval(r, r->conns[0], RUN_ID, 0, 100, 2, 0);
    assert_int_equal(r->agg.intervals, 0); /* a2 has not sent second 0 yet */
    assert_int_equal(r->conns[0]->requests, 100);
    assert_int_equal(r->conns[0]->errors, 2);
    interval(r, r->conns[1], RUN_ID, 0, 50, 0, 0);
    assert_int_equal(r->agg.intervals, 1);
    assert_int_equal(r->agg.total[0].count, 150);
    assert_int_equal(r->agg.total[0].err_tech, 2);
    assert_int_equal(hist_count(r->agg.total[0].hist), 150);
    assert_int_equal(r->agg.runs[0], 2);
    assert_int_equal(r->agg.active_vus, 4); /* 2 each */
    assert_int_equal(r->agg.elapsed_us, 1000000);
    assert_int_equal(r->conns[1]->requests, 50);

    /* another run's interval: nothing */
    interval(r, r->conns[0], RUN_ID + 1, 1, 999, 9, 0);
    assert_int_equal(r->conns[0]->requests, 100);
    control_flush(r, 1);
    assert_int_equal(r->agg.intervals, 1);

    /* a second 400 ms of which were paused: 600 ms of the load's time */
    interval(r, r->conns[0], RUN_ID, 1, 10, 0, 400000);
    interval(r, r->conns[1], RUN_ID, 1, 10, 0, 300000); /* its workers paused later */
    assert_int_equal(r->agg.intervals, 2);
    assert_int_equal(r->agg.elapsed_us, 1600000);
    assert_int_equal(r->agg.paused_us, 400000); /* the longest: a time, not a count */

    /* a2 silent on second 2: forced out with a1's alone */
    interval(r, r->conns[0], RUN_ID, 2, 7, 0, 0);
    control_flush(r, 0);
    assert_int_equal(r->agg.intervals, 2);
    control_flush(r, 1);
    assert_int_equal(r->agg.intervals, 3);
    assert_int_equal(r->agg.total[0].count, 177);
    assert_int_equal(r->agg.elapsed_us, 2600000);

    /* a2's second 2 comes late: its counts, no time */
    interval(r, r->conns[1], RUN_ID, 2, 3, 0, 0);
    assert_int_equal(r->agg.total[0].count, 180);
    assert_int_equal(r->agg.elapsed_us, 2600000);
    assert_int_equal(r->stop_us, 0);
}

/* --abort-on-fail: "count<100" fails for good once 150 samples came. */
static void test_abort_on_fail(void **state)
{
    run *r = *state;
    char err[ERR_MAX];

    r->o.abort_on_fail = 1;
    r->o.th = xcalloc(2, sizeof(*r->o.th));
    r->o.th[0] = thresh_parse("count<100", err, sizeof(err));
    r->o.th[1] = thresh_parse("count<1", err, sizeof(err)); /* a default: judged at the end */
    r->o.nth = 2;
    r->nth_user = 1;
    steps_def(r, r->conns[0], 3, ids3, scen3);
    interval(r, r->conns[0], RUN_ID, 0, 60, 0, 0);
    interval(r, r->conns[1], RUN_ID, 0, 30, 0, 0);
    assert_int_equal(r->threshold_stop, 0); /* 90 < 100 so far */
    interval(r, r->conns[0], RUN_ID, 1, 60, 0, 0);
    interval(r, r->conns[1], RUN_ID, 1, 0, 0, 0);
    assert_int_equal(r->threshold_stop, 1);
    assert_int_equal(r->interrupted, 1);
    assert_true(r->stop_us > 0);
    assert_int_equal(r->stop_signal, 0); /* not a signal's stop */
}

static void test_interrupt(void **state)
{
    run *r = *state;
    int64_t before, after;

    r->go_us = clock_mono_us() - 2000000; /* 2 s into 20 */
    before = clock_mono_us();
    control_interrupt(r, SIGTERM);
    after = clock_mono_us();
    assert_int_equal(r->interrupted, 1);
    assert_int_equal(r->aborted, 0);
    assert_int_equal(r->stop_signal, SIGTERM);
    assert_true(r->stop_signal_us >= 2000000 && r->stop_signal_us <= 2000000 + (after - before));
    assert_true(r->stop_us >= before && r->stop_us <= after);
    /* a second: at once, waiting 2 s at most */
    control_interrupt(r, SIGINT);
    after = clock_mono_us();
    assert_int_equal(r->aborted, 1);
    assert_int_equal(r->stop_signal, SIGTERM); /* the first one's */
    assert_true(r->stop_us <= after - r->o.grace_us - CONTROL_STOP_WAIT_US + 2000000);
    assert_true(r->stop_us >= before - r->o.grace_us - CONTROL_STOP_WAIT_US + 2000000);
}

/* After the planned end a stop is no signal's; before Go, no stop sent. */
static void test_interrupt_late_or_early(void **state)
{
    run *r = *state;

    r->o.duration_us = 1000000;
    r->go_us = clock_mono_us() - 2000000;
    control_interrupt(r, CONTROL_STOP_CTL);
    assert_int_equal(r->interrupted, 1);
    assert_int_equal(r->stop_signal, 0);
    assert_true(r->stop_us > 0);

    r->interrupted = 0;
    r->stop_us = 0;
    r->o.duration_us = 20000000;
    r->phase = PHASE_WAIT;
    control_interrupt(r, SIGINT);
    assert_int_equal(r->interrupted, 1);
    assert_int_equal(r->stop_signal, 0);
    assert_int_equal(r->stop_us, 0); /* the tick ends the wait */

    r->interrupted = 0;
    r->phase = PHASE_START;
    control_interrupt(r, CONTROL_STOP_CTL);
    assert_int_equal(r->stop_signal, CONTROL_STOP_CTL);
    assert_int_equal(r->stop_signal_us, 0);
    assert_int_equal(r->stop_us, 0);
}

/* A stop keeps the time of the first one: the grace counts from there. */
static void test_stop_keeps_first(void **state)
{
    run *r = *state;
    int64_t first;

    control_stop(r, "first", 0);
    assert_true(r->stop_us > 0);
    r->stop_us -= 1000000; /* as if it came a second ago */
    first = r->stop_us;
    control_stop(r, "again", 1);
    assert_int_equal(r->stop_us, first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_steps_def, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scope_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_on_fail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupt_late_or_early, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_keeps_first, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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
 * planned end, a second one aborts; a stop keeps the first one's time.
 * Then through the loop's tick, with agents on socket pairs: StartRun to
 * each once all registered, VU ids interleaved by their workers; Go once
 * every one is ready; the end once each finished or was lost; a failed
 * start stopped at once everywhere; the wait ended by an interrupt or its
 * time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ev.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/hist.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/props.h"
#include "console/control.h"
#include "console/run.h"
#include "proto/frame.h"
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

/* The course through the loop's tick: a run of two registered agents
 * (workers 2 and 1) on socket pairs, the test reading what the console sent
 * them at the other ends. */
typedef struct lfx {
    run r;
    int far[2];          /* the agents' ends */
    frame_reader *rd[2]; /* owned: what each got */
} lfx;

static void on_msg(peer *l, const Quern__Envelope *env, void *ud)
{
}

static void on_close(peer *l, const char *why, void *ud)
{
}

static int setup_loop(void **state)
{
    lfx *x = xcalloc(1, sizeof(*x));
    run *r = &x->r;

    run_init(r, 1, argv0);
    r->o.quiet = 1;
    r->o.agents = 2;
    r->o.vus = 5;
    r->o.vu_ids = 5;
    r->o.script = "plan.lua";
    r->p = props_new();
    r->loop = ev_loop_new(EVFLAG_AUTO);
    for (int i = 0; i < 2; i++) {
        int sv[2];
        aconn *c;
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
        c = add_conn(r, i == 0 ? "a1" : "a2");
        c->in_run = c->ready = 0;
        c->workers = i == 0 ? 2 : 1;
        c->last_rx_us = clock_mono_us() + 3600000000LL; /* never silent in the test */
        peer_init(&c->link, r->loop, sv[0], 1 << 20, 1 << 20, on_msg, on_close, c);
        x->far[i] = sv[1];
        x->rd[i] = frame_reader_new(1 << 20);
    }
    control_start(r);
    *state = x;
    return 0;
}

static int teardown_loop(void **state)
{
    lfx *x = *state;

    x->r.o.script = NULL;
    run_free(&x->r);
    for (int i = 0; i < 2; i++) {
        close(x->far[i]);
        frame_reader_free(x->rd[i]);
    }
    xfree(x);
    return 0;
}

/* Runs the loop's ticks until the run reaches phase (at most 50: 5 s). */
static void until_phase(run *r, enum run_phase phase)
{
    for (int i = 0; i < 50 && r->phase != phase; i++)
        ev_run(r->loop, EVRUN_ONCE);
    assert_int_equal(r->phase, phase);
}

/* The next message of kind body agent i got, pings skipped (owned:
 * frame_env_free), or NULL. */
static Quern__Envelope *got(lfx *x, int i, Quern__Envelope__BodyCase body)
{
    char err[ERR_MAX];
    Quern__Envelope *env = NULL;

    while (frame_reader_read_fd(x->rd[i], x->far[i], err, sizeof(err)) > 0)
        ;
    while (frame_reader_next(x->rd[i], &env, err, sizeof(err)) == 1) {
        if (env->body_case == body)
            return env;
        frame_env_free(env, NULL);
    }
    return NULL;
}

static void test_course(void **state)
{
    lfx *x = *state;
    run *r = &x->r;
    Quern__Envelope *e0, *e1;
    const Quern__StartRun *s0, *s1;

    /* both registered: each gets its StartRun, VU ids interleaved by its
     * workers over blocks of 3 (a1 1-2 and 4-5, a2 3) */
    until_phase(r, PHASE_START);
    e0 = got(x, 0, QUERN__ENVELOPE__BODY_START_RUN);
    e1 = got(x, 1, QUERN__ENVELOPE__BODY_START_RUN);
    assert_non_null(e0);
    assert_non_null(e1);
    s0 = e0->start_run;
    s1 = e1->start_run;
    assert_true(r->run_id != 0);
    assert_true(s0->run_id == r->run_id && s1->run_id == r->run_id);
    assert_int_equal(s0->vus_total, 5);
    assert_int_equal(s0->workers, 2);
    assert_int_equal(s1->workers, 1);
    assert_int_equal(s0->n_vu_ranges, 2);
    assert_int_equal(s0->vu_ranges[0]->first, 1);
    assert_int_equal(s0->vu_ranges[0]->count, 2);
    assert_int_equal(s0->vu_ranges[1]->first, 4);
    assert_int_equal(s0->vu_ranges[1]->count, 2);
    assert_int_equal(s1->n_vu_ranges, 1);
    assert_int_equal(s1->vu_ranges[0]->first, 3);
    assert_int_equal(s1->vu_ranges[0]->count, 1);
    assert_int_equal(r->conns[0]->vus, 4);
    assert_int_equal(r->conns[1]->vus, 1);
    assert_true(r->conns[0]->in_run && r->conns[1]->in_run);
    assert_string_equal(r->conns[0]->status, "running");
    frame_env_free(e0, NULL);
    frame_env_free(e1, NULL);

    /* Go only once every agent is ready */
    r->conns[0]->ready = 1;
    ev_run(r->loop, EVRUN_ONCE);
    ev_run(r->loop, EVRUN_ONCE);
    assert_int_equal(r->phase, PHASE_START);
    assert_null(got(x, 0, QUERN__ENVELOPE__BODY_GO));
    r->conns[1]->ready = 1;
    until_phase(r, PHASE_RUN);
    assert_true(r->go_us > 0 && r->go_wall_us > 0);
    for (int i = 0; i < 2; i++) {
        Quern__Envelope *g = got(x, i, QUERN__ENVELOPE__BODY_GO);
        assert_non_null(g);
        assert_true(g->go->run_id == r->run_id);
        frame_env_free(g, NULL);
    }

    /* the end once every agent finished or was lost */
    r->conns[0]->finished = 1;
    r->running_known = 0;
    ev_run(r->loop, EVRUN_ONCE);
    ev_run(r->loop, EVRUN_ONCE);
    assert_int_equal(r->phase, PHASE_RUN);
    r->conns[1]->lost = 1;
    r->running_known = 0;
    until_phase(r, PHASE_END);
    assert_int_equal(r->phase, PHASE_END);
    assert_true(r->end_us >= r->go_us);
    assert_int_equal(r->start_error, 0);
}

/* A start that fails (here the steps of an agent): an immediate Stop to
 * every agent in the run, and the end. */
static void test_start_fails(void **state)
{
    lfx *x = *state;
    run *r = &x->r;
    Quern__Envelope *e;

    until_phase(r, PHASE_START);
    r->start_error = 3;
    until_phase(r, PHASE_END);
    assert_int_equal(r->phase, PHASE_END);
    for (int i = 0; i < 2; i++) {
        e = got(x, i, QUERN__ENVELOPE__BODY_STOP);
        assert_non_null(e);
        assert_true(e->stop->immediate);
        assert_string_equal(e->stop->reason, "start aborted");
        frame_env_free(e, NULL);
    }
}

/* Waiting for agents: an interrupt, or the wait over, ends it. */
static void test_wait_ends(void **state)
{
    lfx *x = *state;
    run *r = &x->r;

    r->o.agents = 3; /* one more than will come */
    r->interrupted = 1;
    until_phase(r, PHASE_END);
    assert_int_equal(r->phase, PHASE_END);
    assert_int_equal(r->start_error, 3);
    assert_string_equal(r->start_msg, "interrupted while waiting for agents");
    assert_null(got(x, 0, QUERN__ENVELOPE__BODY_START_RUN));

    r->interrupted = 0;
    r->start_error = 0;
    r->o.wait_us = 1;
    control_start(r);
    until_phase(r, PHASE_END);
    assert_int_equal(r->phase, PHASE_END);
    assert_int_equal(r->start_error, 3);
    assert_non_null(strstr(r->start_msg, "only 2 of 3 agent(s) connected within"));
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
        cmocka_unit_test_setup_teardown(test_course, setup_loop, teardown_loop),
        cmocka_unit_test_setup_teardown(test_start_fails, setup_loop, teardown_loop),
        cmocka_unit_test_setup_teardown(test_wait_ends, setup_loop, teardown_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

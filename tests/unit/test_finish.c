/* The end of a run (console/finish.c) on a run with no database and no
 * agent connected: two steps of scenario S, 150 samples over 2 s of load
 * (2.5 s from Go to the end, 0.5 s of it paused), an agent in its table.
 * What the screen, --summary-json and --junit say must agree: the status
 * (completed, stopped by a signal, aborted by an agent, degraded), the
 * run's length without its pause, each threshold judged with its source,
 * the verdict and its exit status; the held-back line; a summary file that
 * cannot be written fails the run with a message; a run that could not
 * start gets one failed JUnit case "start". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "console/finish.h"
#include "console/run.h"
#include "console/thresh.h"

#define SAID_MAX (64 * 1024)

typedef struct fx {
    run r;
    char dir[64], json[96], junit[96], outf[96], errf[96];
    char said[SAID_MAX]; /* what finish wrote on stdout */
    char warned[4096];   /* and on stderr */
} fx;

static char *argv0[] = {"run", NULL};

static void add_thresh(run *r, const char *expr, const char *src)
{
    char err[ERR_MAX];
    thresh *t = thresh_parse(expr, err, sizeof(err));

    assert_non_null(t);
    r->o.th = xreallocarray(r->o.th, r->o.nth + 1, sizeof(*r->o.th));
    r->th_src = xreallocarray(r->th_src, r->o.nth + 1, sizeof(*r->th_src));
    r->th_src[r->o.nth] = src != NULL ? xstrdup(src) : NULL;
    r->o.th[r->o.nth++] = t;
}

static int setup(void **state)
{
    fx *x = xcalloc(1, sizeof(*x));
    static const char *const ids[2] = {"SC-S-STEP-1", "SC-S-STEP-2"};
    static const char *const labels[2] = {"Login", "Home"};
    step_stats *st = stats_array_new(2);
    uint64_t runs = 30, missed = 0;
    aconn *c = xcalloc(1, sizeof(*c));
    run *r = &x->r;

    *state = x;
    snprintf(x->dir, sizeof(x->dir), "/tmp/quern-finish-XXXXXX");
    assert_non_null(mkdtemp(x->dir));
    snprintf(x->json, sizeof(x->json), "%s/s.json", x->dir);
    snprintf(x->junit, sizeof(x->junit), "%s/junit.xml", x->dir);
    snprintf(x->outf, sizeof(x->outf), "%s/out", x->dir);
    snprintf(x->errf, sizeof(x->errf), "%s/err", x->dir);
    run_init(r, 1, argv0);
    r->o.script = "/tmp/nightly.lua";
    r->o.vus = 5;
    r->o.vu_ids = 5;
    r->o.duration_us = 20000000;
    r->o.summary_json = x->json;
    r->o.junit = x->junit;
    r->nsteps = 2;
    r->nscens = 1;
    r->ids = xcalloc(2, sizeof(char *));
    r->labels = xcalloc(2, sizeof(char *));
    r->names = xcalloc(2, sizeof(char *));
    r->scen_names = xcalloc(1, sizeof(char *));
    r->scen_names[0] = xstrdup("S");
    for (size_t i = 0; i < 2; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s)%s", ids[i], labels[i]);
        r->ids[i] = xstrdup(ids[i]);
        r->labels[i] = xstrdup(labels[i]);
        r->names[i] = xstrdup(name);
    }
    agg_init(&r->agg, 2, 1);
    r->have_agg = 1;
    st[0].count = 100;
    hist_record_n(st[0].hist, 10000, 100);
    st[1].count = 50;
    hist_record_n(st[1].hist, 20000, 50);
    agg_add(&r->agg, st, &runs, &missed, 2000000, 5);
    stats_array_free(st, 2);
    r->agg.paused_us = 500000;
    r->go_us = 1000000;
    r->end_us = 3500000;
    c->r = r;
    c->link.fd = -1;
    c->state = AC_AGENT;
    c->in_run = c->ready = c->finished = 1;
    snprintf(c->name, sizeof(c->name), "agent-one");
    snprintf(c->status, sizeof(c->status), "completed");
    c->vus = 5;
    c->requests = 150;
    r->conns = xcalloc(1, sizeof(*r->conns));
    r->conns[0] = c;
    r->nconns = 1;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;

    x->r.o.script = NULL;
    x->r.o.summary_json = NULL;
    x->r.o.junit = NULL;
    run_free(&x->r);
    unlink(x->json);
    unlink(x->junit);
    unlink(x->outf);
    unlink(x->errf);
    rmdir(x->dir);
    xfree(x);
    return 0;
}

/* The whole of a small file into buf (len bytes, NUL-ended). */
static void slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n;

    assert_non_null(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Runs fn(r) with stdout and stderr caught in x->said and x->warned. */
static void caught(fx *x, void (*fn)(fx *x))
{
    int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
    FILE *o, *e;

    fflush(stdout);
    fflush(stderr);
    o = fopen(x->outf, "w");
    e = fopen(x->errf, "w");
    assert_non_null(o);
    assert_non_null(e);
    dup2(fileno(o), STDOUT_FILENO);
    dup2(fileno(e), STDERR_FILENO);
    fn(x);
    fflush(stdout);
    fflush(stderr);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    close(out);
    close(err);
    fclose(o);
    fclose(e);
    slurp(x->outf, x->said, sizeof(x->said));
    slurp(x->errf, x->warned, sizeof(x->warned));
}

static void do_finish(fx *x)
{
    finish_run(&x->r);
}

static json_t *summary(const fx *x)
{
    json_error_t e;
    json_t *j = json_load_file(x->json, 0, &e);

    assert_non_null(j);
    return j;
}

static const json_t *get(const json_t *o, const char *path)
{
    char buf[128], *tok, *save = NULL;
    const json_t *v = o;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, ".", &save); tok != NULL; tok = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, (size_t)atoi(tok)) : json_object_get(v, tok);
    assert_non_null(v);
    return v;
}

static const char *str(const json_t *o, const char *path)
{
    const char *s = json_string_value(get(o, path));

    assert_non_null(s);
    return s;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;

    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

static void test_completed(void **state)
{
    fx *x = *state;
    char xml[SAID_MAX];
    json_t *j;

    add_thresh(&x->r, "p95<500ms", NULL);
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_OK);
    assert_int_equal(x->r.agg.elapsed_us, 2000000); /* Go to the end, less the pause */
    assert_non_null(strstr(x->said, "\nRun completed: 2.0 s, 5 VUs (0.5 s paused, left out)\n"));
    assert_non_null(strstr(x->said, "\nAgents:\n"));
    assert_non_null(strstr(x->said, "agent-one"));
    assert_non_null(strstr(x->said, "\nThresholds:\n  PASS  p95<500ms"));
    assert_non_null(strstr(x->said, "\nVerdict: passed"));
    assert_null(strstr(x->said, "Held back"));
    assert_string_equal(x->warned, "");
    j = summary(x);
    assert_string_equal(str(j, "run.status"), "completed");
    assert_string_equal(str(j, "run.name"), "nightly");
    assert_true(fabs(json_number_value(get(j, "run.duration_s")) - 2.0) < 1e-9);
    assert_true(fabs(json_number_value(get(j, "run.paused_s")) - 0.5) < 1e-9);
    assert_true(fabs(json_number_value(get(j, "tests.0.tps")) - 50.0) < 1e-9);
    assert_string_equal(str(j, "thresholds.0.source"), "cli");
    assert_true(json_is_true(get(j, "thresholds.0.passed")));
    assert_true(json_is_true(get(j, "verdict.passed")));
    assert_int_equal(strncmp(str(j, "verdict.reason"), "passed", 6), 0);
    json_decref(j);
    slurp(x->junit, xml, sizeof(xml));
    assert_int_equal(count(xml, "<testcase"), 3); /* two steps, one threshold */
    assert_non_null(strstr(xml, "name=\"threshold p95&lt;500ms\""));
    assert_null(strstr(xml, "<failure"));
}

static void test_threshold_failed(void **state)
{
    fx *x = *state;
    char xml[SAID_MAX];
    json_t *j;

    add_thresh(&x->r, "p95<500ms", NULL);
    add_thresh(&x->r, "p95<5ms", "plan.lua:7");
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_FAILED);
    assert_non_null(strstr(x->said, "\n  PASS  p95<500ms"));
    assert_non_null(strstr(x->said, "\n  FAIL  p95<5ms"));
    assert_non_null(strstr(x->said, " (plan.lua:7)\n"));
    assert_non_null(strstr(x->said, "\nVerdict: failed"));
    j = summary(x);
    assert_string_equal(str(j, "run.status"), "completed");
    assert_false(json_is_true(get(j, "thresholds.1.passed")));
    assert_string_equal(str(j, "thresholds.1.source"), "plan.lua:7");
    assert_false(json_is_true(get(j, "verdict.passed")));
    assert_non_null(strstr(str(j, "verdict.reason"), "p95<5ms"));
    json_decref(j);
    slurp(x->junit, xml, sizeof(xml));
    assert_int_equal(count(xml, "<failure"), 1);
    assert_non_null(strstr(xml, "name=\"threshold p95&lt;5ms\""));
}

/* A SIGTERM before the planned end: stopped, and never a pass. */
static void test_stopped(void **state)
{
    fx *x = *state;
    json_t *j;

    x->r.interrupted = 1;
    x->r.stop_signal = SIGTERM;
    x->r.stop_signal_us = 1500000;
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_FAILED);
    assert_non_null(strstr(x->said, "\nRun stopped: 2.0 s"));
    j = summary(x);
    assert_string_equal(str(j, "run.status"), "stopped");
    assert_false(json_is_true(get(j, "verdict.passed")));
    assert_non_null(strstr(str(j, "verdict.reason"), "SIGTERM at 1.5 s of 20s"));
    json_decref(j);

    /* with --stopped-ok it is judged on what it did */
    x->r.o.stopped_ok = 1;
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_OK);
}

/* An agent that aborted its run aborts the run; a degraded run says so. */
static void test_aborted_degraded(void **state)
{
    fx *x = *state;
    json_t *j;

    snprintf(x->r.conns[0]->status, sizeof(x->r.conns[0]->status), "aborted");
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_START);
    j = summary(x);
    assert_string_equal(str(j, "run.status"), "aborted");
    json_decref(j);

    snprintf(x->r.conns[0]->status, sizeof(x->r.conns[0]->status), "completed");
    x->r.degraded = 1;
    err_set(x->r.degraded_why, sizeof(x->r.degraded_why), "results not recorded");
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_FAILED);
    assert_non_null(strstr(x->said, "\nRun degraded: "));
    j = summary(x);
    assert_string_equal(str(j, "run.status"), "degraded");
    assert_non_null(strstr(str(j, "verdict.reason"), "results not recorded"));
    json_decref(j);
}

static void test_held_back(void **state)
{
    fx *x = *state;

    x->r.o.max_in_flight = 4;
    agg_add_held(&x->r.agg, 10, 25000, 9000);
    caught(x, do_finish);
    assert_non_null(strstr(x->said, "\nHeld back: 10 requests waited for one of the "
                                    "--max-in-flight 4 to end (mean 2.5 ms, longest 9.0 ms)"));
}

/* A summary that cannot be written: the run fails, saying why. */
static void test_summary_unwritable(void **state)
{
    fx *x = *state;
    char bad[128];

    snprintf(bad, sizeof(bad), "%s/no-such-folder/s.json", x->dir);
    x->r.o.summary_json = bad;
    caught(x, do_finish);
    assert_int_equal(x->r.rc, RUN_EXIT_START);
    assert_non_null(strstr(x->warned, "quern run: --summary-json: cannot write "));
    assert_non_null(strstr(x->warned, "no-such-folder"));
    x->r.o.summary_json = x->json;
}

static void do_start_failed(fx *x)
{
    finish_start_failed(&x->r, "no agent registered within 60s");
}

static void test_start_failed(void **state)
{
    fx *x = *state;
    char xml[SAID_MAX];

    caught(x, do_start_failed);
    slurp(x->junit, xml, sizeof(xml));
    assert_int_equal(count(xml, "<testcase"), 1);
    assert_non_null(strstr(xml, "name=\"start\""));
    assert_non_null(strstr(xml, "classname=\"quern.nightly\""));
    assert_non_null(strstr(xml, "<failure message=\"no agent registered within 60s\""));
    assert_int_equal(access(x->json, F_OK), -1); /* nothing else */
    unlink(x->junit);
    x->r.o.junit = NULL; /* without --junit: nothing */
    caught(x, do_start_failed);
    assert_int_equal(access(x->junit, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_completed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threshold_failed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stopped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aborted_degraded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_held_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_start_failed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

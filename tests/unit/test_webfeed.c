/* The run's state handed to the live page (console/webfeed.c), read back from
 * a real --web server on 127.0.0.1 port 0 at /state.json: nothing before
 * the steps are known; each merged second the agents (those in the run or
 * registered, each with its state), the thresholds judged on the totals so
 * far, the VUs asked for (a vus N's once one came), the planned length and
 * a pause; a late second not rendered; at the end the summary and the
 * verdicts the summary gave, and nothing changes the page after that. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "console/control.h"
#include "console/run.h"
#include "console/summary.h"
#include "console/thresh.h"
#include "console/webfeed.h"

#include "tests/unit/loopask.h"

/* A run of two steps with its page served, four connections and two
 * thresholds, one that holds (p95<500ms) and one that does not (p95<5ms)
 * on seconds of 10 ms samples. */
typedef struct fx {
    run r;
    char dir[64], portf[96];
    unsigned port;
    step_stats *st; /* owned: the second handed */
} fx;

static char *argv0[] = {"run", NULL};

static void add_conn(run *r, const char *name, enum aconn_state state, int in_run, int ready,
                     int finished, int lost)
{
    aconn *c = xcalloc(1, sizeof(*c));

    c->r = r;
    c->link.fd = -1;
    c->state = state;
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->host, sizeof(c->host), "host-%s", name);
    c->in_run = in_run;
    c->ready = ready;
    c->finished = finished;
    c->lost = lost;
    c->vus = 30; /* the slots given: a steered ceiling */
    c->active = 3;
    c->requests = 40;
    c->errors = 2;
    r->conns = xreallocarray(r->conns, r->nconns + 1, sizeof(*r->conns));
    r->conns[r->nconns++] = c;
}

static void add_thresh(run *r, const char *expr)
{
    char err[ERR_MAX];
    thresh *t = thresh_parse(expr, err, sizeof(err));

    assert_non_null(t);
    r->o.th = xreallocarray(r->o.th, r->o.nth + 1, sizeof(*r->o.th));
    r->o.th[r->o.nth++] = t;
}

static int setup(void **state)
{
    fx *x = xcalloc(1, sizeof(*x));
    char err[ERR_MAX];
    static const char *const ids[2] = {"SC-S-STEP-1", "SC-S-STEP-2"};
    static const char *const labels[2] = {"Login", "Home"};
    FILE *f;

    *state = x;
    snprintf(x->dir, sizeof(x->dir), "/tmp/quern-webfeed-XXXXXX");
    assert_non_null(mkdtemp(x->dir));
    snprintf(x->portf, sizeof(x->portf), "%s/port", x->dir);
    run_init(&x->r, 1, argv0);
    x->r.o.script = "/tmp/nightly.lua";
    x->r.o.web = "127.0.0.1:0";
    x->r.o.web_port_file = x->portf;
    x->r.o.vus = 7;
    x->r.o.duration_us = 30000000;
    x->r.web = web_start(&x->r.o, err, sizeof(err));
    assert_non_null(x->r.web);
    f = fopen(x->portf, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%u", &x->port), 1);
    fclose(f);
    x->r.nsteps = 2;
    x->r.nscens = 1;
    x->r.ids = xcalloc(2, sizeof(char *));
    x->r.labels = xcalloc(2, sizeof(char *));
    x->r.names = xcalloc(2, sizeof(char *));
    for (size_t i = 0; i < 2; i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s)%s", ids[i], labels[i]);
        x->r.ids[i] = xstrdup(ids[i]);
        x->r.labels[i] = xstrdup(labels[i]);
        x->r.names[i] = xstrdup(name);
    }
    add_conn(&x->r, "reg", AC_AGENT, 0, 0, 0, 0);   /* registered, not in the run */
    add_conn(&x->r, "start", AC_AGENT, 1, 0, 0, 0); /* given the run, not ready */
    add_conn(&x->r, "run", AC_AGENT, 1, 1, 0, 0);   /* running */
    add_conn(&x->r, "done", AC_AGENT, 1, 1, 1, 0);  /* finished */
    add_conn(&x->r, "gone", AC_AGENT, 1, 1, 0, 1);  /* lost */
    add_conn(&x->r, "hello", AC_PROOF, 0, 0, 0, 0); /* not an agent yet: not shown */
    add_thresh(&x->r, "p95<500ms");
    add_thresh(&x->r, "p95<5ms");
    x->st = stats_array_new(2);
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;

    stats_array_free(x->st, 2);
    x->r.o.web = NULL;
    x->r.o.web_port_file = NULL;
    x->r.o.script = NULL;
    run_free(&x->r);
    unlink(x->portf);
    rmdir(x->dir);
    xfree(x);
    return 0;
}

/* The steps become known: the run's totals begin. */
static void steps_known(fx *x)
{
    agg_init(&x->r.agg, 2, 1);
    x->r.have_agg = 1;
}

/* The feed handed the run as its control hands it (control_web_view). */
static void feed_second(fx *x, const step_stats *st, int late)
{
    webfeed_run v;

    control_web_view(&x->r, &v);
    webfeed_second(&v, st, late);
}

/* The same at the end. */
static void feed_final(fx *x, const summary_info *si)
{
    webfeed_run v;

    control_web_view(&x->r, &v);
    webfeed_final(&v, si);
}

/* One merged second: step 0 n samples of 10 ms, step 1 none; handed. */
static void second(fx *x, uint64_t n, int late)
{
    uint64_t runs = 1, missed = 0;

    stats_reset(&x->st[0]);
    stats_reset(&x->st[1]);
    x->st[0].count = n;
    hist_record_n(x->st[0].hist, 10000, n);
    agg_add(&x->r.agg, x->st, &runs, &missed, late ? 0 : 1000000, 7);
    feed_second(x, x->st, late);
}

/* GET /state.json, parsed. */
static json_t *page_state(const fx *x)
{
    char req[256], *buf = xmalloc(1 << 20), *body;
    json_error_t e;
    json_t *j;

    snprintf(req, sizeof(req),
             "GET /state.json HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
             x->port);
    loopask(x->port, req, buf, 1 << 20);
    assert_int_equal(strncmp(buf, "HTTP/1.1 200", 12), 0);
    body = strstr(buf, "\r\n\r\n");
    assert_non_null(body);
    j = json_loads(body + 4, 0, &e);
    assert_non_null(j);
    xfree(buf);
    return j;
}

static const json_t *at(const json_t *j, const char *key, size_t i)
{
    const json_t *v = json_array_get(json_object_get(j, key), i);

    assert_non_null(v);
    return v;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    assert_non_null(s);
    return s;
}

/* Before the steps are known nothing is handed: the page keeps its empty state. */
static void test_not_yet(void **state)
{
    fx *x = *state;
    json_t *j;

    feed_second(x, NULL, 0);
    feed_final(x, &(summary_info){.status = "aborted"});
    j = page_state(x);
    assert_true(json_is_null(json_object_get(j, "run")));
    assert_int_equal(json_array_size(json_object_get(j, "steps")), 0);
    json_decref(j);
}

static void test_second(void **state)
{
    fx *x = *state;
    const json_t *a;
    json_t *j;

    steps_known(x);
    second(x, 100, 0);
    j = page_state(x);
    assert_string_equal(str(j, "run"), "nightly");
    assert_false(json_is_true(json_object_get(j, "final")));
    assert_false(json_is_true(json_object_get(j, "paused")));
    assert_int_equal(json_integer_value(json_object_get(j, "vus_max")), 7);
    assert_true(fabs(json_number_value(json_object_get(j, "planned_s")) - 30.0) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(j, "elapsed_s")) - 1.0) < 1e-9);
    assert_string_equal(str(at(j, "steps", 0), "name"), "SC-S-STEP-1)Login");
    assert_true(fabs(json_number_value(json_object_get(at(j, "steps", 0), "tps")) - 100.0) < 1e-9);
    /* the agents: the one still in its handshake left out, in order */
    assert_int_equal(json_array_size(json_object_get(j, "agents")), 5);
    {
        static const char *const st[5] = {"registered", "starting", "running", "finished", "lost"};
        for (size_t i = 0; i < 5; i++)
            assert_string_equal(str(at(j, "agents", i), "state"), st[i]);
    }
    a = at(j, "agents", 2);
    assert_string_equal(str(a, "name"), "run");
    assert_string_equal(str(a, "host"), "host-run");
    assert_int_equal(json_integer_value(json_object_get(a, "vus")), 3); /* active, not the slots */
    assert_int_equal(json_integer_value(json_object_get(a, "slots")), 30);
    assert_int_equal(json_integer_value(json_object_get(a, "requests")), 40);
    assert_int_equal(json_integer_value(json_object_get(a, "errors")), 2);
    /* the thresholds, judged on the totals so far */
    assert_int_equal(json_array_size(json_object_get(j, "thresholds")), 2);
    assert_string_equal(str(at(j, "thresholds", 0), "expr"), "p95<500ms");
    assert_true(json_is_true(json_object_get(at(j, "thresholds", 0), "passed")));
    assert_false(json_is_true(json_object_get(at(j, "thresholds", 1), "passed")));
    assert_non_null(strstr(str(at(j, "thresholds", 1), "desc"), "p95"));
    assert_true(json_is_null(json_object_get(j, "summary")));
    json_decref(j);
}

/* A vus N and a pause show; a late second is charted, not rendered. */
static void test_steered_and_late(void **state)
{
    fx *x = *state;
    json_t *j;

    steps_known(x);
    second(x, 100, 0);
    x->r.steer.vus_asked = 12;
    x->r.steer.pause_from_us = 1;
    second(x, 50, 0);
    j = page_state(x);
    assert_int_equal(json_integer_value(json_object_get(j, "vus_max")), 12);
    assert_true(json_is_true(json_object_get(j, "paused")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "total"), "count")),
                     150);
    json_decref(j);
    second(x, 1000, 1);
    j = page_state(x);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "total"), "count")),
                     150);
    json_decref(j);
}

/* The end: the summary's verdicts (here the reverse of what the totals
 * say), the summary itself, and the page fixed from then on. */
static void test_final(void **state)
{
    fx *x = *state;
    thresh_result res[2] = {{0}, {0}};
    const char *const ids[2] = {"SC-S-STEP-1", "SC-S-STEP-2"};
    const char *const labels[2] = {"Login", "Home"};
    const char *const names[2] = {"SC-S-STEP-1)Login", "SC-S-STEP-2)Home"};
    const char *const scens[1] = {"S"};
    summary_info si = {0};
    json_t *j;

    steps_known(x);
    second(x, 100, 0);
    res[0].passed = 0;
    snprintf(res[0].desc, sizeof(res[0].desc), "given at the end 0");
    res[1].passed = 1;
    snprintf(res[1].desc, sizeof(res[1].desc), "given at the end 1");
    si.status = "completed";
    si.name = "nightly";
    si.vus = 7;
    si.vu_ids = 7;
    si.step_ids = ids;
    si.step_labels = labels;
    si.step_names = names;
    si.scen_names = scens;
    si.thresholds = (const struct thresh *const *)x->r.o.th;
    si.threshold_results = res;
    si.nthresholds = 2;
    si.verdict_passed = 0;
    si.verdict = "failed: a threshold";
    feed_final(x, &si);
    j = page_state(x);
    assert_true(json_is_true(json_object_get(j, "final")));
    assert_false(json_is_true(json_object_get(at(j, "thresholds", 0), "passed")));
    assert_string_equal(str(at(j, "thresholds", 0), "desc"), "given at the end 0");
    assert_true(json_is_true(json_object_get(at(j, "thresholds", 1), "passed")));
    assert_true(json_is_object(json_object_get(j, "summary")));
    assert_string_equal(str(json_object_get(json_object_get(j, "summary"), "run"), "status"),
                        "completed");
    json_decref(j);
    /* nothing after: a second more leaves the page as the end left it */
    second(x, 100, 0);
    j = page_state(x);
    assert_true(json_is_true(json_object_get(j, "final")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "total"), "count")),
                     100);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_not_yet, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second, setup, teardown),
        cmocka_unit_test_setup_teardown(test_steered_and_late, setup, teardown),
        cmocka_unit_test_setup_teardown(test_final, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

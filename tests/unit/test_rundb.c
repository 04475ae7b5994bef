/* The run in the results database (console/rundb.c), read back through the
 * reports' queries (store/query.h): a run of two steps of scenario S and an
 * agent, begun at Go with its steps and scenario, its agent's row, two
 * merged seconds, its thresholds' verdicts with their sources, its end with
 * the totals, its verdict and its VUs; without a database every call does
 * nothing; a failed write said once, the run degraded and its progress no
 * longer recorded, while its end still closes the row with the reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/hist.h"
#include "common/log.h"
#include "console/run.h"
#include "console/rundb.h"
#include "store/query.h"

#include "tests/unit/dbfix.h"

static char *argv0[] = {"run", NULL};

/* A run recording into f's database (borrowed: the fixture closes it). */
static void run_new(run *r, fx *f)
{
    static const char *const ids[2] = {"SC-S-STEP-1", "SC-S-STEP-2"};
    static const char *const labels[2] = {"Login", "Home"};
    aconn *c = xcalloc(1, sizeof(*c));

    run_init(r, 1, argv0);
    r->o.script = f->script;
    r->o.vus = 3;
    r->o.duration_us = 2000000;
    r->p = props_new();
    r->db = f->d;
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
    c->r = r;
    c->link.fd = -1;
    c->state = AC_AGENT;
    c->in_run = 1;
    c->workers = 2;
    c->vus = 3;
    snprintf(c->name, sizeof(c->name), "agent-one");
    snprintf(c->host, sizeof(c->host), "host-one");
    snprintf(c->status, sizeof(c->status), "running");
    r->conns = xcalloc(1, sizeof(*r->conns));
    r->conns[0] = c;
    r->nconns = 1;
}

static void run_done(run *r)
{
    r->db = NULL; /* the fixture's */
    r->o.script = NULL;
    run_free(r);
}

/* One merged second: step 0 n samples of 2 ms; merged into the totals too. */
static void second(run *r, uint64_t sec, uint64_t n)
{
    interval_sum s;

    interval_sum_init(&s, 2, 1);
    s.steps[0].count = n;
    hist_record_n(s.steps[0].hist, 2000, n);
    s.runs[0] = n;
    s.active_vus = 3;
    rundb_second(r, sec, &s);
    agg_add(&r->agg, s.steps, s.runs, s.missed, 1000000, 3);
    interval_sum_free(&s);
}

static query_run *load(fx *f, int64_t id)
{
    char err[ERR_MAX];
    int missing = 0;
    query_run *q = query_run_load(f->d, id, 1, &missing, err, sizeof(err));

    if (q == NULL)
        fail_msg("query_run_load: %s", err);
    return q;
}

static void test_recorded(void **state)
{
    fx *f = *state;
    run r;
    char err[ERR_MAX];
    thresh_result rs[1] = {{0}};
    const char *status = "completed";
    query_run *q;

    run_new(&r, f);
    r.o.th = xcalloc(1, sizeof(*r.o.th));
    r.o.th[0] = thresh_parse("p95<500ms", err, sizeof(err));
    r.o.nth = 1;
    r.th_src = xcalloc(1, sizeof(*r.th_src));
    r.th_src[0] = xstrdup("plan.lua:4");
    rundb_begin(&r);
    assert_true(r.db_run > 0);
    assert_true(r.db_start_us > 0);
    q = load(f, r.db_run);
    assert_string_equal(q->status, "running");
    assert_null(q->ended_at);
    assert_string_equal(q->name, "plan");
    assert_int_equal(q->nsteps, 2);
    assert_string_equal(q->steps[1].test_id, "SC-S-STEP-2");
    assert_string_equal(q->steps[1].label, "Home");
    assert_string_equal(q->steps[0].scenario, "S"); /* from its id */
    assert_int_equal(q->nagents, 1);
    assert_string_equal(q->agents[0].name, "agent-one");
    assert_string_equal(q->agents[0].host, "host-one");
    assert_int_equal(q->agents[0].workers, 2);
    assert_int_equal(q->req_duration_us, 2000000);
    query_run_free(q);

    second(&r, 0, 10);
    second(&r, 1, 30);
    thresh_eval(r.o.th[0], &r.agg, (const char *const *)r.ids, (const char *const *)r.names, 2,
                &rs[0]);
    rundb_thresholds(&r, rs);
    r.conns[0]->requests = 40;
    snprintf(r.conns[0]->status, sizeof(r.conns[0]->status), "completed");
    rundb_vus(&r, 3, 0);
    rundb_end(&r, &status);
    assert_string_equal(status, "completed");
    rundb_verdict(&r, 1, "passed: every threshold");

    q = load(f, r.db_run);
    assert_string_equal(q->status, "completed");
    assert_non_null(q->ended_at);
    assert_int_equal(q->steps[0].count, 40);
    assert_int_equal(q->steps[1].count, 0);
    assert_int_equal(q->vus_peak, 3);
    assert_int_equal(q->agents[0].requests, 40);
    assert_string_equal(q->agents[0].status, "completed");
    assert_int_equal(q->nscens, 1);
    assert_int_equal(q->scens[0].runs, 40);
    assert_int_equal(q->nthresholds, 1);
    assert_string_equal(q->thresholds[0].expr, "p95<500ms");
    assert_string_equal(q->thresholds[0].source, "plan.lua:4");
    assert_true(q->thresholds[0].passed);
    assert_string_equal(q->thresholds[0].unit, "ms");
    assert_string_equal(q->run_verdict, "passed");
    assert_string_equal(q->run_verdict_reason, "passed: every threshold");
    query_run_free(q);
    run_done(&r);
}

static void test_no_database(void **state)
{
    fx *f = *state;
    run r;
    const char *status = "completed";

    run_new(&r, f);
    r.db = NULL;
    assert_null(rundb_db(&r));
    rundb_begin(&r);
    assert_int_equal(r.db_run, 0);
    second(&r, 0, 10);
    rundb_thresholds(&r, NULL);
    rundb_end(&r, &status);
    rundb_verdict(&r, 1, "passed");
    assert_string_equal(status, "completed");
    assert_int_equal(r.degraded, 0);
    run_done(&r);
}

static int said;

static int count_errors(void *ud, enum log_level level, const char *line)
{
    said += level == LOG_ERROR && strstr(line, "results database: disk full") != NULL;
    return 0;
}

/* A failed write: said once, degraded, nothing more recorded, yet the row
 * is closed with the reason. */
static void test_failed(void **state)
{
    fx *f = *state;
    run r;
    const char *status = "completed";
    query_run *q;

    run_new(&r, f);
    rundb_begin(&r);
    second(&r, 0, 10);
    said = 0;
    log_set_sink(count_errors, NULL);
    rundb_failed(&r, "disk full");
    rundb_failed(&r, "disk full");
    log_set_sink(NULL, NULL);
    assert_int_equal(said, 1);
    assert_true(r.degraded);
    assert_string_equal(r.degraded_why, "results database: disk full");
    assert_null(rundb_db(&r));
    second(&r, 1, 30); /* not recorded */
    rundb_verdict(&r, 1, "passed");
    rundb_end(&r, &status);
    assert_string_equal(status, "degraded");

    q = load(f, r.db_run);
    assert_non_null(q->ended_at); /* never left "running" */
    assert_string_not_equal(q->status, "running");
    assert_non_null(q->status_reason);
    assert_non_null(strstr(q->status_reason, "disk full"));
    assert_null(q->run_verdict);
    assert_int_equal(q->elapsed_us, 1000000); /* only the second before the failure */
    query_run_free(q);
    run_done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recorded, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_no_database, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_failed, setup_open, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* finish — the end of a run: summary, thresholds, verdict, outputs; see
 * finish.h. */
#include "console/finish.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"
#include "common/mem.h"
#include "console/agents.h"
#include "console/blame.h"
#include "console/control.h"
#include "console/delivery.h"
#include "console/gather.h"
#include "console/jcases.h"
#include "console/rundb.h"
#include "console/run.h"
#include "console/summary.h"
#include "console/verdict.h"
#include "console/webfeed.h"
#include "reports/junit.h"

static size_t print_thresholds(run *r, thresh_result *rs)
{
    double el = (double)r->agg.elapsed_us / 1e6;
    size_t failed = 0;

    fprintf(stdout, "\nThresholds%s:\n",
            r->cap != NULL ? " (a capacity search: on the step that decided it)" : "");
    for (size_t i = 0; i < r->o.nth; i++) {
        const char *src = r->th_src != NULL ? r->th_src[i] : NULL;
        if (r->cap == NULL || !capacity_search_result(r->cap, i, &rs[i]))
            rollwin_eval(r->roll, i, r->o.th[i], &r->agg, (const char *const *)r->ids,
                         (const char *const *)r->names, el, &rs[i]);
        failed += !rs[i].passed;
        fprintf(stdout, "  %s  %-40s %s%s%s%s\n", rs[i].passed ? "PASS" : "FAIL", r->o.th[i]->expr,
                rs[i].desc, src != NULL ? " (" : "", src != NULL ? src : "",
                src != NULL ? ")" : "");
    }
    return failed;
}

/* --junit: a test case per step and per threshold (rs, NULL when none), or
 * one failed case when the run could not start (start_msg). */
static void write_junit(run *r, const thresh_result *rs, const char *start_msg, int inj_failed,
                        const char *inj_why, const char *stopped_why, const verdict *cap)
{
    /* not ERR_MAX: --junit's path and why it cannot be written (tests/lint/errrule.allow) */
    char name[256], err[1024];
    jcases j;
    double el = (double)r->agg.elapsed_us / 1e6;
    int rc;

    if (r->o.junit == NULL)
        return;
    db_opts_name(&r->o.db, r->o.script, name, sizeof(name));
    if (start_msg != NULL) {
        junit_case c;
        char cls[300];
        memset(&c, 0, sizeof(c));
        snprintf(cls, sizeof(cls), "quern.%s", name);
        c.classname = cls;
        c.name = "start";
        c.failed = 1;
        c.failure_message = start_msg;
        rc = junit_write(r->o.junit, name, &c, 1, 0.0, err, sizeof(err));
    } else {
        jcases_build(&j, name, &r->agg, (const char *const *)r->ids, (const char *const *)r->names,
                     el, (const thresh *const *)r->o.th, rs, rs != NULL ? r->o.nth : 0);
        jcases_add_injector(&j, &r->agg, inj_failed, inj_why);
        if (stopped_why != NULL)
            jcases_add_stopped(&j, stopped_why);
        if (cap != NULL)
            jcases_add_capacity(&j, cap->passed, cap->why);
        rc = junit_write(r->o.junit, name, j.cases, j.n, el, err, sizeof(err));
        jcases_free(&j);
    }
    if (rc != 0) {
        fprintf(stderr, "quern run: --junit: %s\n", err);
        r->rc = RUN_EXIT_START;
    }
}

/* The load asked against the load sent (console/delivery.h), and the open
 * model's pool, into si. */
static void finish_delivery(run *r, summary_info *si, delivery *dl)
{
    delivery_in in;
    uint32_t closed = r->o.closed_vus;

    memset(&in, 0, sizeof(in));
    in.open = agg_arrivals_all(&r->agg, &in.arrivals);
    in.pool = !in.open                          ? 0
              : r->o.max_vus >= r->pool_workers ? r->o.max_vus
                                                : r->pool_workers; /* a VU a worker at least */
    in.pool_peak = r->agg.vus_peak > closed ? r->agg.vus_peak - closed : 0;
    for (size_t i = 0; i < r->nscens; i++) {
        in.runs += r->agg.runs[i];
        in.missed_pacing += r->agg.missed_pacing[i];
    }
    in.pace_asked_us = r->agg.pace_asked_us;
    in.pace_lost_us = r->agg.pace_lost_us;
    in.vus_planned = r->agg.vus_planned;
    in.vus_started = r->agg.vus_started;
    in.saturated =
        verdict_saturated(r->agg.inj.saturated_s, r->agg.inj.clear_s, r->agg.inj.measured_s);
    delivery_compute(&in, dl);
    si->load = dl;
    si->vu_pool = in.pool;
    si->vus_peak = in.pool_peak;
}

/* Whose delay made the first failed threshold fail, the one the verdict
 * names (console/blame.h), into b and vi: the verdict's rule 4 reads it. */
static void first_failed_blame(const run *r, const thresh_result *rs, blame *b, verdict_in *vi)
{
    for (size_t i = 0; i < r->o.nth; i++) {
        if (rs[i].passed)
            continue;
        blame_threshold(r->o.th[i], &r->agg, (const char *const *)r->ids,
                        (const char *const *)r->names, (double)r->agg.elapsed_us / 1e6, b);
        vi->blame_injector = b->who == BLAME_INJECTOR;
        vi->why_blame = b->why; /* "" when not a response-time threshold */
        return;
    }
}

/* The run's end status: "aborted", "degraded", "stopped" or "completed"
 * (an agent that aborted its share aborts the run, unless it was stopped). */
static const char *end_status(const run *r)
{
    const char *status = r->aborted || r->threshold_stop ? "aborted"
                         : r->degraded                   ? "degraded"
                         : r->interrupted                ? "stopped"
                                                         : "completed";

    for (size_t i = 0; i < r->nconns; i++)
        if (r->conns[i]->in_run && !r->conns[i]->lost &&
            strcmp(r->conns[i]->status, "aborted") == 0 && !r->interrupted)
            status = "aborted";
    return status;
}

/* The summary's description of the run (its name into run_name). */
static void describe_run(const run *r, summary_info *si, const char *status, char *run_name,
                         size_t len)
{
    memset(si, 0, sizeof(*si));
    si->status = status;
    si->run_id = r->db_run > 0 ? (long long)r->db_run : 0;
    si->name = db_opts_name(&r->o.db, r->o.script, run_name, len);
    si->started_us = r->go_wall_us;
    si->vus = r->o.vus;
    if (r->o.nrate_stages == 0)
        si->vus_steered = r->steer.vus_asked;
    si->paused_us = r->agg.paused_us;
    si->vu_ids = r->o.vu_ids;
    si->step_ids = (const char *const *)r->ids;
    si->step_labels = (const char *const *)r->labels;
    si->step_names = (const char *const *)r->names;
    si->scen_names = (const char *const *)r->scen_names;
    si->max_in_flight = r->o.max_in_flight;
}

/* What stopped the run, for the verdict: "SIGINT at 4.2 s of 10s". */
static void stop_reason(const run *r, char *out, size_t len)
{
    char of[DUR_FORMAT_MAX];
    int n = snprintf(out, len, "%s at %.1f s",
                     r->stop_signal == CONTROL_STOP_CTL ? "quern ctl stop"
                     : r->stop_signal == SIGTERM        ? "SIGTERM"
                                                        : "SIGINT",
                     (double)r->stop_signal_us / 1e6);

    if (r->o.duration_us > 0 && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, " of %s", dur_format(r->o.duration_us, of, sizeof(of)));
}

/* The verdict's inputs: how the run ended, the thresholds' results rs, the
 * injector, the load delivered (dl), the evidence of the first failed
 * threshold (into bl); vi points into why_stop and why_sat (its buffers). */
static void judge_inputs(const run *r, const char *status, const thresh_result *rs,
                         const delivery *dl, blame *bl, verdict_in *vi, char *why_stop,
                         size_t stop_len, char *why_sat, size_t sat_len)
{
    memset(vi, 0, sizeof(*vi));
    vi->aborted = strcmp(status, "aborted") == 0 && !r->threshold_stop;
    vi->threshold_stop = r->threshold_stop;
    vi->stopped = r->stop_signal != 0;
    vi->stopped_ok = r->o.stopped_ok;
    if (vi->stopped) {
        stop_reason(r, why_stop, stop_len);
        vi->why_stopped = why_stop;
    }
    vi->degraded = r->degraded;
    vi->allow_loss = r->o.allow_loss;
    vi->loss_only = r->degraded_why[0] == '\0';
    vi->why_degraded = r->degraded_why;
    vi->ts = (const thresh *const *)r->o.th;
    vi->rs = rs;
    vi->sources = (const char *const *)r->th_src;
    vi->nt = r->cap != NULL ? 0 : r->o.nth; /* a capacity search: each step was judged */
    /* a capacity search judges the injector on each step's own seconds
     * (capacity_search_step_injector), not over the whole run */
    vi->saturated_s = r->cap != NULL ? 0 : r->agg.inj.saturated_s;
    vi->measured_s = r->agg.inj.measured_s;
    vi->clear_s = r->cap != NULL ? 0 : r->agg.inj.clear_s;
    vi->allow_saturation = r->o.allow_saturation;
    if (r->cap == NULL)
        first_failed_blame(r, rs, bl, vi);
    if (r->agg.inj.saturated_s > 0 && injtot_worst(&r->agg.inj) != NULL) {
        injtot_describe(injtot_worst(&r->agg.inj), why_sat, sat_len);
        vi->why_saturated = why_sat;
    }
    for (size_t i = 0; i < r->nsteps; i++)
        vi->samples += r->agg.total[i].count;
    for (size_t i = 0; i < r->nscens; i++)
        vi->runs += r->agg.runs[i];
    /* a capacity search judges what each step sent (capacity_search_step_injector) */
    vi->undelivered_share = r->cap != NULL ? 0 : dl->share;
    vi->why_undelivered = dl->why;
}

/* The console times nothing: late merging does not change the figures (a
 * lost agent or second is judged as such, rule 4), so its saturation is a
 * warning, not a verdict. */
static void warn_console(const run *r)
{
    if (!verdict_saturated(r->agg.console.saturated_s, r->agg.console.clear_s,
                           r->agg.console.measured_s))
        return;
    fprintf(stdout,
            "Warning: the console was saturated in %llu of %llu s (CPU max %.0f %%, loop lag "
            "p99 %.0f ms): its live figures came late; the workers timed every request, so "
            "the verdict stands.\n",
            (unsigned long long)r->agg.console.saturated_s,
            (unsigned long long)r->agg.console.measured_s,
            (double)injtot_cpu_max(&r->agg.console) / 10.,
            (double)injtot_lag_p99_us(&r->agg.console) / 1e3);
}

/* The files the run ends with: the gathered results, --summary-json. A
 * failure is said and makes the exit status RUN_EXIT_START. */
static void write_outputs(run *r, const summary_info *si)
{
    /* not ERR_MAX: the run's messages, as long as run_load's (tests/lint/errrule.allow) */
    char err[2048];

    if (r->gather != NULL && gather_close(r->gather, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: %s\n", err);
        r->rc = RUN_EXIT_START;
    }
    if (r->o.summary_json != NULL &&
        (r->json_out != NULL
             ? summary_dump_json(r->json_out, &r->agg, si, err, sizeof(err))
             : summary_write_json(r->o.summary_json, &r->agg, si, err, sizeof(err))) != 0) {
        fprintf(stderr, "quern run: --summary-json: %s\n", err);
        r->rc = RUN_EXIT_START;
    }
}

void finish_run(run *r)
{
    summary_info si;
    const char *status;
    thresh_result *rs; /* owned: the thresholds' verdicts */
    verdict_in vi;
    verdict v;
    delivery dl;
    blame bl;
    char why_sat[INTERVAL_SUM_LOAD_NAME + 96], why_stop[96], run_name[256];
    json_t *cap_json = NULL;  /* owned: the summary's "capacity" */
    json_t *prof_json = NULL; /* owned: the summary's "profile" */
    char diag[768];
    webfeed_run wv;

    capacity_search_end(r->cap, (const thresh *const *)r->o.th, r->nth_user,
                        (const char *const *)r->ids, (const char *const *)r->names);
    rollwin_end(r->roll);
    /* the time paused (quern ctl pause) is no time of the load's: the time
     * the workers held it, which the console's own clock of the commands
     * overstates by however late a pause reached them */
    r->agg.elapsed_us = r->end_us - r->go_us - r->agg.paused_us;
    for (size_t i = 0; i < r->nsteps; i++) /* the sums kept SLOWEST_MAX */
        if (r->agg.total[i].slow != NULL)
            slowest_trim(r->agg.total[i].slow, r->o.slowest);
    status = end_status(r);
    describe_run(r, &si, status, run_name, sizeof(run_name));
    finish_delivery(r, &si, &dl);
    rundb_vus(r, si.vu_pool > 0 ? si.vus_peak : r->agg.vus_peak, si.vu_pool);
    rundb_end(r, &status);
    si.status = status;
    summary_print(stdout, &r->agg, &si);
    if (r->agg.held > 0)
        fprintf(stdout,
                "\nHeld back: %llu requests waited for one of the --max-in-flight %u to end "
                "(mean %.1f ms, longest %.1f ms); their response times count the wait.\n",
                (unsigned long long)r->agg.held, r->o.max_in_flight, agg_held_mean_ms(&r->agg),
                (double)r->agg.held_max_us / 1e3);
    summary_print_injector(stdout, &r->agg);
    if (!r->o.embedded)
        agents_breakdown(r, stdout);
    rs = xcalloc(r->o.nth + 1, sizeof(*rs));
    if (r->o.nth > 0) {
        print_thresholds(r, rs);
        rundb_thresholds(r, rs);
        si.thresholds = (const thresh *const *)r->o.th;
        si.threshold_results = rs;
        si.threshold_sources = (const char *const *)r->th_src;
        si.nthresholds = r->o.nth;
    }
    judge_inputs(r, status, rs, &dl, &bl, &vi, why_stop, sizeof(why_stop), why_sat,
                 sizeof(why_sat));
    verdict_decide(&vi, &v);
    if (r->cap != NULL) {
        capacity_search_print(r->cap, stdout);
        capacity_search_verdict(r->cap, &v);
        cap_json = capacity_search_json(r->cap);
        si.capacity = cap_json;
        rundb_capacity(r);
    }
    profile_end pe = {.d = rundb_db(r),
                      .db_run = r->db_run,
                      .cap = r->cap,
                      .end_s = (r->end_us - r->go_us) / 1000000 + 1};
    for (size_t i = 0; i < r->agg.nsteps; i++)
        pe.requests += r->agg.total[i].count;
    prof_json = profile_finish(r->profile, &pe, stdout, diag, sizeof(diag));
    si.profile = prof_json;
    if (diag[0] != '\0' && cap_json != NULL) {
        json_object_set_new(cap_json, "diagnosis", json_string(diag));
        if (strlen(v.why) + strlen(diag) + 16 < sizeof(v.why))
            err_append(v.why, sizeof(v.why), "; the profile: %s", diag);
    }
    r->rc = v.rc;
    rundb_verdict(r, v.passed, v.why);
    si.verdict_passed = v.passed;
    si.verdict_allowed = v.allowed;
    si.verdict = v.why;
    fprintf(stdout, "\nVerdict: %s\n", v.why);
    warn_console(r);
    write_junit(r, rs, NULL,
                v.inconclusive && (verdict_saturated(vi.saturated_s, vi.clear_s, vi.measured_s) ||
                                   vi.blame_injector),
                v.why, vi.stopped && !vi.stopped_ok ? v.why : NULL, r->cap != NULL ? &v : NULL);
    write_outputs(r, &si);
    control_web_view(r, &wv);
    webfeed_final(&wv, &si);
    xfree(rs);
    json_decref(cap_json);
    json_decref(prof_json);
}

void finish_start_failed(run *r, const char *msg)
{
    write_junit(r, NULL, msg, 0, NULL, NULL, NULL);
}

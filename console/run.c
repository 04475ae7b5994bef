/* run — `quern run`: one test run from its options to its exit status; see
 * run.h. */
#include "console/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/memsize.h"
#include "console/control.h"
#include "console/finish.h"
#include "console/preview.h"
#include "console/rundb.h"
#include "console/threshtally.h"
#include "console/scan.h"
#include "console/serve/hsrv.h"
#include "console/verdict.h"
#include "proto/auth.h"
#include "agent/preflight.h"
#include "agent/runchk.h"
#include "agent/setuprun.h"

/* Adds the thresholds the script declared (quern.threshold, a scenario's
 * thresholds option) after those of the command line, each checked against
 * the script's steps: a bad one is a script error ("file:line: threshold
 * ...") before anything is sent. Workers keep them but never use them. */
static int script_thresholds(run *r, const preflight *pf, char *err, size_t errlen)
{
    const char **ids = xcalloc(pf->nsteps + 1, sizeof(*ids));
    const char **names = xcalloc(pf->nsteps + 1, sizeof(*names));
    char msg[1024];
    int rc = -1;

    const char *dflt[2];
    size_t ndflt;

    r->th_src = xcalloc(r->o.nth + pf->nthresholds + 3, sizeof(*r->th_src));
    for (size_t i = 0; i < r->o.nth; i++)
        if (threshtally_check(r->o.th[i], &pf->metrics, msg, sizeof(msg)) != 0) {
            err_set(err, errlen, "quern run: --threshold %s", msg);
            goto out;
        }
    for (size_t i = 0; i < pf->nsteps; i++) {
        ids[i] = pf->steps[i].id;
        names[i] = pf->steps[i].name;
    }
    for (size_t i = 0; i < pf->nthresholds; i++) {
        const preflight_threshold *st = &pf->thresholds[i];
        thresh *t = thresh_parse(st->expr, msg, sizeof(msg));
        if (t == NULL) {
            err_set(err, errlen, "%s: threshold %s", st->where, msg);
            goto out;
        }
        r->o.th = xreallocarray(r->o.th, (r->o.nth + 1), sizeof(*r->o.th));
        r->th_src[r->o.nth] = xstrdup(st->where);
        r->o.th[r->o.nth++] = t;
        if (thresh_check_scope(t, ids, names, pf->nsteps, msg, sizeof(msg)) != 0 ||
            threshtally_check(t, &pf->metrics, msg, sizeof(msg)) != 0) {
            err_set(err, errlen, "%s: threshold %s", st->where, msg);
            goto out;
        }
    }
    r->nth_user = r->o.nth;
    for (size_t i = 0; r->o.cap != NULL && i < r->o.nth; i++)
        if (r->o.th[i]->window_s > 0) {
            err_set(err, errlen,
                    "quern run: --capacity judges each step on its own seconds: threshold '%s' "
                    "has a window (write it without [D])",
                    r->o.th[i]->expr);
            goto out;
        }
    if (r->o.cap != NULL && r->nth_user == 0) {
        err_set(err, errlen,
                "quern run: --capacity needs a threshold to judge each step: --threshold EXPR "
                "(e.g. 'p95<500ms', 'errors<1%%') or quern.threshold in %s",
                r->o.script);
        goto out;
    }
    /* a capacity search is judged by its steps on the thresholds given, no default one */
    ndflt = r->o.cap != NULL ? 0
                             : verdict_defaults((const thresh *const *)r->o.th, r->o.nth,
                                                r->o.allow_errors, pf->nsteps, dflt);
    for (size_t i = 0; i < ndflt; i++) {
        r->o.th = xreallocarray(r->o.th, (r->o.nth + 1), sizeof(*r->o.th));
        r->th_src[r->o.nth] = xstrdup(VERDICT_DEFAULT);
        r->o.th[r->o.nth++] = thresh_parse(dflt[i], msg, sizeof(msg));
    }
    rc = 0;
out:
    xfree(ids);
    xfree(names);
    return rc;
}

/* Loads the script here first, as every worker will: a broken script is
 * reported with its own file:line and nothing is sent to any agent. */
static int script_preflight(run *r, char *err, size_t errlen)
{
    preflight pf;
    int rc;
    /* The console's own copy of the script is bounded as a worker's is. */
    uint64_t mem =
        r->o.worker_memory ? r->o.worker_memory : memsize_worker_default(memsize_host_total(), 1);

    if (preflight_load(r->o.script, r->p, r->o.vu_ids, mem, &pf, err, errlen) != 0)
        return -1;
    r->nwarnings = scan_script(r->o.script, &pf, stderr);
    rc = opts_scen_stages(&r->o, pf.has_shared, pf.staged_ids, pf.staged_max, pf.stages_us, err,
                          errlen);
    if (rc == 0)
        rc = opts_scen_rate(&r->o, pf.rate_stages, pf.nrate_stages, pf.rate_const, pf.rate_closed,
                            pf.rate_err, err, errlen);
    if (rc == 0)
        rc = script_thresholds(r, &pf, err, errlen);
    r->decl = pf.metrics; /* the run's totals start with them (control.c) */
    memset(&pf.metrics, 0, sizeof(pf.metrics));
    r->has_setup = pf.has_setup;
    r->has_teardown = pf.has_teardown;
    r->made = pf.made; /* shipped with the folder (run_main) */
    memset(&pf.made, 0, sizeof(pf.made));
    if (rc == 0 && r->keep_pf) {
        r->pf = xmalloc(sizeof(*r->pf));
        *r->pf = pf;
    } else {
        preflight_free(&pf);
    }
    return rc;
}

int run_load(run *r, const props *over, char *err, size_t errlen, int *is_script)
{
    *is_script = 0;
    if (access(r->o.script, R_OK) != 0) {
        err_set(err, errlen, "cannot read script %s: %s", r->o.script, strerror(errno));
        return -1;
    }
    r->p = opts_load_props(r->o.script, r->o.props_file, over, err, errlen);
    if (r->p == NULL)
        return -1;
    /* what every agent checks (agent/runchk.h): refused here, the script's
     * check and every worker's load see the same properties */
    if (props_count(r->p) > RUNCHK_PROPS_MAX) {
        err_set(err, errlen, "%zu properties, more than the %u an agent takes", props_count(r->p),
                RUNCHK_PROPS_MAX);
        return -1;
    }
    for (size_t i = 0; i < props_count(r->p); i++)
        if (strlen(props_key(r->p, i)) > RUNCHK_NAME_MAX ||
            strlen(props_value(r->p, i)) > RUNCHK_VALUE_MAX) {
            err_set(err, errlen,
                    "property %.64s: longer than an agent takes (a name of %u bytes, a value "
                    "of %u)",
                    props_key(r->p, i), RUNCHK_NAME_MAX, RUNCHK_VALUE_MAX);
            return -1;
        }
    if (script_preflight(r, err, errlen) != 0) {
        *is_script = 1;
        return -1;
    }
    return 0;
}

/* Packs the script's folder, never with this run's own files; for the
 * local agent by path only, so that no size is too big (proto/bundle.h). */
static int pack_bundle(run *r, char *err, size_t errlen)
{
    const char *own[OPTS_OWN_FILES_MAX], *secret[1] = {r->o.token_file};
    bundle_opts bo = {own, opts_own_files(&r->o, own), secret, 1, r->o.embedded};

    return bundle_pack(r->o.script, &bo, &r->bundle, err, errlen);
}

/* sc.setup and sc.teardown run here, once for the whole run, with what
 * the console's own check of the script may hold (agent/setuprun.h). */
static void setup_cfg(const run *r, setuprun_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->script = r->o.script;
    c->props = r->p;
    c->mem_limit =
        r->o.worker_memory ? r->o.worker_memory : memsize_worker_default(memsize_host_total(), 1);
    c->resolve = (const char *const *)r->o.resolve;
    c->nresolve = r->o.nresolve;
    c->handle_signals = 1; /* a Ctrl-C stops it, as it stops the load */
}

/* Every VU ended (or the run never started): teardown, unless the tester
 * aborted the run (a second interrupt asks to leave now). Its error is
 * reported; the run's verdict is what its load did. */
static void run_teardown(run *r)
{
    setuprun_cfg c;
    /* not ERR_MAX: a script's error, whole (tests/lint/errrule.allow) */
    char err[2048];

    if (r->has_teardown == 0 || r->aborted)
        return;
    control_end(r); /* its signal watchers: the teardown's loop takes the signals */
    setup_cfg(r, &c);
    if (setuprun_teardown(&c, r->setup_data, r->setup_len, err, sizeof(err)) != 0)
        log_msg(LOG_ERROR, "%s", err);
}

void run_free(run *r)
{
    agents_free(r);
    interval_window_free(&r->win);
    live_free(r->live);
    capacity_search_free(r->cap);
    rollwin_free(r->roll);
    for (size_t i = 0; r->th_src != NULL && i < r->o.nth; i++)
        xfree(r->th_src[i]);
    xfree(r->th_src);
    tally_free(&r->decl);
    out_free(r->outs); /* its threads read the options */
    r->outs = NULL;
    opts_free(&r->o);
    bundle_free(&r->bundle);
    bundle_free(&r->made);
    for (size_t i = 0; r->ids != NULL && i < r->nsteps; i++) {
        xfree(r->ids[i]);
        xfree(r->labels[i]);
        xfree(r->names[i]);
    }
    for (size_t i = 0; r->scen_names != NULL && i < r->nscens; i++)
        xfree(r->scen_names[i]);
    xfree(r->ids);
    xfree(r->labels);
    xfree(r->names);
    xfree(r->scen_names);
    xfree(r->setup_data);
    preflight_free(r->pf);
    xfree(r->pf);
    if (r->have_agg)
        agg_free(&r->agg);
    ctlsrv_stop(r->ctl); /* before the loop its wake-up is on */
    if (r->loop != NULL) {
        control_end(r);
        ev_io_stop(r->loop, &r->accept_io);
        ev_loop_destroy(r->loop);
    }
    if (r->lfd >= 0)
        close(r->lfd);
    auth_token_free(r->token, r->token_len);
    props_free(r->p);
    monitor_db_free(
        r->monitor_db); /* its statements first: the database closes only without them */
    profile_free(r->profile);
    db_close(r->db);
    gather_free(r->gather);
    metrics_stop(r->metrics, 0);
    monitor_stop(r->monitor);
    web_stop(r->web);
    if (r->json_out != NULL)
        fclose(r->json_out);
}

void run_init(run *r, int argc, char **argv)
{
    memset(r, 0, sizeof(*r));
    opts_init(&r->o, argc, argv);
    r->lfd = -1;
    r->rc = RUN_EXIT_USAGE;
    r->up = &control_up;
}

/* --summary-json -: standard output carries the JSON alone, for a pipe;
 * every other line of the run goes to stderr (the fd kept is not
 * inherited). 0, or -1 with the reason in err. */
static int json_to_stdout(run *r, char *err, size_t len)
{
    int fd;

    if (r->o.summary_json == NULL || strcmp(r->o.summary_json, "-") != 0)
        return 0;
    fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || (r->json_out = fdopen(fd, "w")) == NULL ||
        dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        if (fd >= 0 && r->json_out == NULL)
            close(fd);
        err_set(err, len, "--summary-json -: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The run's own servers and pushes, as its flags ask: --metrics, --out,
 * --web, --control, and the embedded agent's token. -1 with the reason in
 * err and r->rc RUN_EXIT_START when one cannot start; else 0, r->rc left
 * RUN_EXIT_USAGE. */
static int start_servers(run *r, char *err, size_t len)
{
    r->rc = RUN_EXIT_START;
    if (r->o.metrics != NULL && (r->metrics = metrics_start(&r->o, err, len)) == NULL)
        return -1;
    if (r->o.nout > 0 && (r->outs = out_start(&r->o, err, len)) == NULL)
        return -1;
    if (r->o.web != NULL && (r->web = web_start(&r->o, err, len)) == NULL)
        return -1;
    if (r->o.control != NULL) {
        /* vus N: the closed model, --vus or --stages (not a scenario's own
         * stages, nor a capacity search) */
        if (r->o.nrate_stages == 0 && r->o.staged_ids == 0 && r->o.cap == NULL)
            r->ctl_vus_max = ctlsrv_ceiling(&r->o);
        r->ctl = ctlsrv_start(&r->o, r->ctl_vus_max, r->o.nrate_stages > 0 && r->o.cap == NULL, err,
                              len);
        if (r->ctl == NULL)
            return -1;
    }
    if (r->o.embedded) {
        if (local_token(&r->la, &r->token, &r->token_len, err, len) != 0)
            return -1;
        r->o.token_file = r->la.token_path;
    }
    r->rc = RUN_EXIT_USAGE;
    return 0;
}

/* After the summary: the pushes' totals (at most OUT_END_WAIT_MS for those
 * pending), the last /metrics, and the servers kept a moment so that a last
 * scrape sees the final counts and a page the summary. */
static void end_outputs(run *r)
{
    out_run ov;

    control_out_view(r, &ov);
    out_end(r->outs, &ov);
    if (r->have_agg)
        metrics_update(r->metrics, &r->agg, (const char *const *)r->ids,
                       (const char *const *)r->names, r->o.th, r->o.nth);
    hsrv_linger(r->metrics != NULL || r->web != NULL ? r->o.metrics_linger_us : 0);
    metrics_stop(r->metrics, 0);
    r->metrics = NULL;
}

int run_main(int argc, char **argv)
{
    run r;
    props *over = props_new();
    /* not ERR_MAX: a script's error, whole, or "results database: " and dberr[1900]
     * (tests/lint/errrule.allow) */
    char err[2048];
    int is_script;

    run_init(&r, argc, argv);
    if (opts_parse(&r.o, argc, argv, over) != 0 || metrics_check(&r.o) != 0 ||
        web_check(&r.o) != 0 || out_check(&r.o) != 0 || ctlsrv_check(&r.o) != 0)
        goto out;
    if (json_to_stdout(&r, err, sizeof(err)) != 0)
        goto fail;
    if (run_load(&r, over, err, sizeof(err), &is_script) != 0) {
        if (!is_script)
            goto fail;
        fprintf(stderr, "%s\n", err); /* file:line: message, as the script's own */
        err_set(r.start_msg, sizeof(r.start_msg), "%s", err);
        goto out;
    }
    if (start_servers(&r, err, sizeof(err)) != 0)
        goto fail;
    if (r.o.token_file != NULL && r.token == NULL &&
        auth_read_token_file(r.o.token_file, &r.token, &r.token_len, err, sizeof(err)) != 0)
        goto fail;
    if (pack_bundle(&r, err, sizeof(err)) != 0)
        goto fail;
    for (size_t i = 0; i < r.made.nfiles; i++)
        if (bundle_add(&r.bundle, r.made.files[i]->path, r.made.files[i]->data.data,
                       r.made.files[i]->data.len, err, sizeof(err)) != 0)
            goto fail;
    if (r.has_setup > 0) {
        setuprun_cfg c;
        setup_cfg(&r, &c);
        if (setuprun_setup(&c, &r.setup_data, &r.setup_len, err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err); /* file:line: message; no agent got anything */
            err_set(r.start_msg, sizeof(r.start_msg), "%s", err);
            goto out;
        }
    }
    r.rc = RUN_EXIT_START;
    if (rundb_open(&r, err, sizeof(err)) != 0)
        goto fail;
    r.profile = profile_new(r.o.profile, r.o.nprofile, r.o.profile_freq, r.o.profile_stacks);
    if (r.o.jtl != NULL || r.o.grinder_dir != NULL) {
        r.gather = gather_new_traced(r.o.jtl, r.o.grinder_dir, r.o.traceparent, err, sizeof(err));
        if (r.gather == NULL)
            goto fail;
    }
    if (agents_listen(&r, err, sizeof(err)) != 0) {
        r.rc = r.o.token_file == NULL ? RUN_EXIT_USAGE : RUN_EXIT_START;
        goto fail;
    }
    if (r.o.embedded && local_agent_start(&r.la, r.port, r.o.workers, err, sizeof(err)) != 0)
        goto fail;
    r.loop = ev_loop_new(EVFLAG_AUTO);
    control_attach(&r);
    web_set_control(r.web, r.ctl);
    agents_watch(&r);
    control_start(&r);
    ev_run(r.loop, 0);
    live_finish(r.live);
    log_set_before(NULL, NULL);
    run_teardown(&r);
    if (r.start_error != 0) {
        fprintf(stderr, "quern run: the run could not start: %s\n", r.start_msg);
        r.rc = r.start_error == 2 ? RUN_EXIT_USAGE : RUN_EXIT_START;
        goto out;
    }
    finish_run(&r);
    end_outputs(&r);
    goto out;
fail:
    /* A run that cannot go on: one line, and a failed --junit case. */
    fprintf(stderr, "quern run: %s\n", err);
    err_set(r.start_msg, sizeof(r.start_msg), "%s", err);
out:
    if (r.start_msg[0] != '\0')
        finish_start_failed(&r, r.start_msg);
    local_agent_stop(&r.la);
    run_free(&r);
    props_free(over);
    return r.rc;
}

int run_check(int argc, char **argv)
{
    run r;
    props *over = props_new();
    /* not ERR_MAX: a script's error, whole (as quern run) (tests/lint/errrule.allow) */
    char err[2048];
    int is_script, rc = RUN_EXIT_USAGE;

    run_init(&r, argc, argv);
    r.keep_pf = 1;
    if (opts_parse(&r.o, argc, argv, over) != 0)
        goto out;
    if (run_load(&r, over, err, sizeof(err), &is_script) != 0) {
        preview_refused(err, is_script);
        goto out;
    }
    preview_print(
        &(preview_input){&r.o, r.pf, (const char *const *)r.th_src, &r.decl, r.p, r.nwarnings});
    rc = RUN_EXIT_OK;
out:
    run_free(&r);
    props_free(over);
    return rc;
}

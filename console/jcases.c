/* jcases — a run's JUnit test cases; see jcases.h. */
#include "console/jcases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/mem.h"

/* Keeps s (owned) in j; returns it. */
static const char *keep(jcases *j, char *s)
{
    j->strs[j->nstrs++] = s;
    return s;
}

/* The step's counts, rates and percentiles, for <system-out>. */
static char *step_report(const step_stats *s, double elapsed_s)
{
    const hist *h = s->hist;
    uint64_t errors = s->err_tech + s->err_func;
    char b[8][32], tt[48] = "", tf[48] = "";

    if (s->trace_tech[0]) /* the request's trace id (--traceparent) */
        snprintf(tt, sizeof(tt), " (trace %s)", s->trace_tech);
    if (s->trace_func[0])
        snprintf(tf, sizeof(tf), " (trace %s)", s->trace_func);
    return xasprintf(
        "count %llu, errors %llu (technical %llu, functional %llu), error rate %s %%\n"
        "tps %s/s, mean %s ms, p50 %s ms, p90 %s ms, p95 %s ms, p99 %s ms, max %s "
        "ms\n%s%s%s%s%s%s%s%s",
        (unsigned long long)s->count, (unsigned long long)errors, (unsigned long long)s->err_tech,
        (unsigned long long)s->err_func,
        thresh_num(s->count ? (double)errors * 100.0 / (double)s->count : 0.0, b[0], sizeof(b[0])),
        thresh_num(elapsed_s > 0 ? (double)s->count / elapsed_s : 0.0, b[1], sizeof(b[1])),
        thresh_num(hist_mean(h) / 1000.0, b[2], sizeof(b[2])),
        thresh_num((double)hist_percentile(h, 50) / 1000.0, b[3], sizeof(b[3])),
        thresh_num((double)hist_percentile(h, 90) / 1000.0, b[4], sizeof(b[4])),
        thresh_num((double)hist_percentile(h, 95) / 1000.0, b[5], sizeof(b[5])),
        thresh_num((double)hist_percentile(h, 99) / 1000.0, b[6], sizeof(b[6])),
        thresh_num((double)hist_max(h) / 1000.0, b[7], sizeof(b[7])),
        s->sample_tech[0] ? "technical error, e.g. " : "", s->sample_tech, tt,
        s->sample_tech[0] ? "\n" : "", s->sample_func[0] ? "functional error, e.g. " : "",
        s->sample_func, tf, s->sample_func[0] ? "\n" : "");
}

/* The step's kinds of errors with their counts, by count: "; by kind: 72
 * technical 503 HTTP status 503, 5 ..."; "" when it has none. */
static void kinds_text(const step_stats *s, char *buf, size_t len)
{
    const errkind *rows[ERRKIND_ROWS];
    size_t n = errkinds_sorted(s->kinds, rows), at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%llu %s %d %s",
                         i ? ", " : "; by kind: ", (unsigned long long)rows[i]->count,
                         errkinds_class(rows[i]), (int)rows[i]->code, rows[i]->msg);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/* The step's errors, their classes and the first of each, and its kinds,
 * on one line. */
static char *step_errors(const step_stats *s)
{
    char kinds[ERRKIND_ROWS * (ERRKIND_MSG_MAX + 40)];

    kinds_text(s, kinds, sizeof(kinds));
    return xasprintf(
        "%llu error(s) in %llu sample(s): %llu technical%s%s%s, %llu functional%s%s%s%s",
        (unsigned long long)(s->err_tech + s->err_func), (unsigned long long)s->count,
        (unsigned long long)s->err_tech, s->sample_tech[0] ? " (first: " : "", s->sample_tech,
        s->sample_tech[0] ? ")" : "", (unsigned long long)s->err_func,
        s->sample_func[0] ? " (first: " : "", s->sample_func, s->sample_func[0] ? ")" : "", kinds);
}

/* Why step s (id, name) fails, one reason per line, or NULL: each failed
 * scoped threshold covering it, and its errors when a failed threshold about
 * errors (scoped or not) covers it and it had errors of that kind. */
static char *step_failures(size_t *nfailed, const step_stats *s, const char *id, const char *name,
                           const thresh *const *ts, const thresh_result *rs, size_t nt)
{
    char *text = NULL, *more;
    int errors_failed = 0;

    *nfailed = 0;
    for (size_t k = 0; k < nt; k++) {
        if (rs[k].passed || !thresh_covers(ts[k], id, name))
            continue;
        if (thresh_about_errors(ts[k]))
            errors_failed |= ts[k]->metric == THRESH_ERR_TECH   ? s->err_tech > 0
                             : ts[k]->metric == THRESH_ERR_FUNC ? s->err_func > 0
                                                                : s->err_tech + s->err_func > 0;
        if (ts[k]->scope == NULL)
            continue;
        more = xasprintf("%s%sthreshold '%s' failed: %s", text ? text : "", text ? "\n" : "",
                         ts[k]->expr, rs[k].desc);
        xfree(text);
        text = more;
        (*nfailed)++;
    }
    if (errors_failed) {
        char *e = step_errors(s);
        more = xasprintf("%s%s%s", e, text ? "\n" : "", text ? text : "");
        xfree(e);
        xfree(text);
        text = more;
        (*nfailed)++;
    }
    return text;
}

void jcases_build(jcases *out, const char *run_name, const agg *a, const char *const *step_ids,
                  const char *const *step_names, double elapsed_s, const thresh *const *ts,
                  const thresh_result *rs, size_t nt)
{
    const char *classname;
    size_t c = 0;

    memset(out, 0, sizeof(*out));
    out->n = a->nsteps + nt;
    out->cases = xcalloc(out->n ? out->n : 1, sizeof(*out->cases));
    out->strs = xcalloc(1 + 4 * out->n, sizeof(*out->strs));
    classname = keep(out, xasprintf("quern.%s", run_name != NULL ? run_name : "run"));

    for (size_t i = 0; i < a->nsteps; i++, c++) {
        const step_stats *s = &a->total[i];
        const char *name = step_names != NULL ? step_names[i] : NULL;
        junit_case *jc = &out->cases[c];
        size_t nfailed;
        char *failures = step_failures(&nfailed, s, step_ids[i], name, ts, rs, nt);

        jc->classname = classname;
        jc->name = keep(out, xstrdup(name != NULL ? name : step_ids[i]));
        jc->time_s = hist_mean(s->hist) / 1e6;
        jc->system_out = keep(out, step_report(s, elapsed_s));
        if (failures != NULL) {
            jc->failed = 1;
            jc->failure_type = "threshold";
            jc->failure_text = keep(out, failures);
            /* The first reason: the errors when they are one. */
            jc->failure_message =
                nfailed == 1
                    ? jc->failure_text
                    : keep(out, xasprintf("%.*s (and %zu more)", (int)strcspn(failures, "\n"),
                                          failures, nfailed - 1));
        }
    }
    for (size_t k = 0; k < nt; k++, c++) {
        junit_case *jc = &out->cases[c];

        jc->classname = classname;
        jc->name = keep(out, xasprintf("threshold %s", ts[k]->expr));
        if (rs[k].passed) {
            jc->system_out = keep(out, xasprintf("passed: %s\n", rs[k].desc));
        } else {
            jc->failed = 1;
            jc->failure_type = "threshold";
            jc->failure_message = keep(out, xstrdup(rs[k].desc));
            jc->failure_text =
                keep(out, xasprintf("threshold '%s' failed: %s\n%llu samples in %zu step(s)\n",
                                    ts[k]->expr, rs[k].desc, (unsigned long long)rs[k].samples,
                                    rs[k].nsteps));
        }
    }
}

/* One more case after jcases_build's, named name, zeroed; the caller fills
 * it and counts it (j->n++). */
static junit_case *next_case(jcases *j, const char *name)
{
    junit_case *jc;

    /* strs holds at most 1 + 4 per case: room for this one's too */
    j->cases = xreallocarray(j->cases, (j->n + 1), sizeof(*j->cases));
    j->strs = xreallocarray(j->strs, (1 + 4 * (j->n + 1)), sizeof(*j->strs));
    jc = &j->cases[j->n];
    memset(jc, 0, sizeof(*jc));
    jc->classname = j->strs[0]; /* jcases_build keeps the classname first */
    jc->name = name;
    return jc;
}

void jcases_add_injector(jcases *j, const agg *a, int failed, const char *why)
{
    const injtot *t = &a->inj;
    junit_case *jc;

    if (t->saturated_s == 0)
        return; /* kept up: nothing to show */
    jc = next_case(j, "injector");
    jc->system_out =
        keep(j, xasprintf("saturated %llu of %llu measured seconds\n",
                          (unsigned long long)t->saturated_s, (unsigned long long)t->measured_s));
    if (failed) {
        jc->failed = 1;
        jc->failure_type = "inconclusive";
        jc->failure_message = keep(j, xstrdup(why != NULL ? why : "the injector saturated"));
    }
    j->n++;
}

void jcases_add_stopped(jcases *j, const char *why)
{
    junit_case *jc;

    jc = next_case(j, "stopped");
    jc->failed = 1;
    jc->failure_type = "stopped";
    jc->failure_message = keep(j, xstrdup(why));
    j->n++;
}

void jcases_add_capacity(jcases *j, int passed, const char *why)
{
    junit_case *jc;

    jc = next_case(j, "capacity");
    jc->system_out = keep(j, xasprintf("%s\n", why));
    if (!passed) {
        jc->failed = 1;
        jc->failure_type = "capacity";
        jc->failure_message = keep(j, xstrdup(why));
    }
    j->n++;
}

void jcases_free(jcases *j)
{
    for (size_t i = 0; i < j->nstrs; i++)
        xfree(j->strs[i]);
    xfree(j->strs);
    xfree(j->cases);
    memset(j, 0, sizeof(*j));
}

#include "reports/report.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/opttab.h"
#include "store/abandon.h"
#include "store/catalog.h"
#include "common/cli.h"
#include "store/dbopts.h"
#include "reports/html.h"
#include "reports/profile_html.h"
#include "store/query.h"
#include "reports/report_html.h"

/* What the command line asked. */
typedef struct report_args {
    const char *path;   /* borrowed: --db (NULL: the default) */
    const char *outp;   /* borrowed: -o (NULL: quern-report-RUN.html) */
    const char *runarg; /* borrowed: RUN as given (NULL: the latest) */
    int64_t id;         /* RUN's id; 0: the latest */
} report_args;

/* The options and their help: one table. */
static const opttab_row report_rows[] = {
    {NULL, 0, 0, NULL,
     "usage: quern report [RUN] [--db FILE] [-o FILE]\n\n"
     "Writes one self-contained HTML file (it opens offline: no script, no external\n"
     "style or font) for run RUN of the results database, by default the latest run:\n"
     "summary, charts of throughput, response-time percentiles (p50/p95/p99), errors\n"
     "(technical and functional) and active VUs over time, the same per step, then\n"
     "the step, agent, error and scenario tables and the run's settings (requested\n"
     "VUs, duration, ramp-up, runs per VU, the command line with secrets redacted).\n"
     "Its verdict heads the page (passed, or failed and why), with each threshold's:\n"
     "expression, where it was declared, measured value, limit, PASS or FAIL. A run\n"
     "left running by a console that is gone is shown abandoned and incomplete.\n\n"
     "options:",
     OPTTAB_NONE},
    {"db", required_argument, 'd', "--db FILE",
     "results database (default ./quern-results.db, or $QUERN_DB)", OPTTAB_STR(report_args, path)},
    {"output", required_argument, 'o', "-o FILE", "output file (default quern-report-RUN.html)",
     OPTTAB_STR(report_args, outp)},
    {"help", no_argument, 'h', NULL, NULL, OPTTAB_NONE},
    {NULL, 0, 0, NULL,
     "\nexit status: 0 written; 2 usage error or unknown run; 3 the database cannot\n"
     "be read or the file cannot be written.",
     OPTTAB_NONE},
};
static const opttab report_tab = {report_rows, sizeof(report_rows) / sizeof(report_rows[0]), 15,
                                  .shorts = "ho:", .refuse_empty = 1};

void report_usage(FILE *out)
{
    opttab_usage(&report_tab, out);
}

/* opttab_parse's handler of one flag or argument. */
static int report_opt(void *ctx, int val, const char *flag, const char *v, char *err, size_t errlen)
{
    report_args *a = ctx;

    (void)flag;
    if (opttab_plain(&report_tab, val, v, a))
        return 0;
    if (val == 'h') {
        report_usage(stdout);
        return OPTTAB_DONE;
    }
    if (a->runarg != NULL) {
        err_set(err, errlen, "one run only, got a second: %s", v);
        return -1;
    }
    a->runarg = v;
    a->id = catalog_parse_id(v);
    if (a->id <= 0) {
        err_set(err, errlen, "\"%s\" is not a run id (quern runs lists them)", v);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- command */

/* What the page is written from. */
typedef struct report_page {
    const query_run *r;       /* borrowed */
    const profile_html *prof; /* borrowed: NULL when the run profiled nothing */
} report_page;

static void report_write(FILE *out, const void *arg)
{
    const report_page *p = arg;

    report_html_write_profile(out, p->r, p->prof);
}

int report_main(int argc, char **argv)
{
    report_args a = {0};
    const char *path, *outp;
    db_opts dbo = {0};
    db *d = NULL;
    int open_rc;
    query_run *r = NULL;
    profile_html *prof = NULL;
    report_page page;
    int64_t id = 0;
    /* not ERR_MAX: the database's path and SQLite's message (tests/lint/errrule.allow) */
    char err[1024], def[64];
    int rc = 3, missing = 0;
    int prc = opttab_parse(&report_tab, argc, argv, report_opt, &a, err, sizeof(err));

    if (prc != 0)
        return prc > 0 ? 0 : cli_usage_err("report", "%s", err);
    path = a.path;
    outp = a.outp;
    id = a.id;
    dbo.path = path;
    path = db_opts_path(&dbo);
    if (path == NULL)
        return cli_usage_err("report", "%s", "--db none: no database to read");
    d = query_open("report", path, &open_rc);
    if (d == NULL)
        return open_rc;
    /* Best effort: query_run_load judges the row itself when this cannot write. */
    abandon_sweep(d, clock_wall_us(), err, sizeof(err));
    if (id == 0) {
        if (catalog_find(d, NULL, 0, &id, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern report: %s: %s\n", path, err);
            goto out;
        }
        if (id == 0) {
            fprintf(stderr, "quern report: no run in %s\n", path);
            rc = 2;
            goto out;
        }
    }
    r = query_run_load(d, id, 0, &missing, err, sizeof(err));
    if (r == NULL) {
        fprintf(stderr, "quern report: %s: %s\n", path, err);
        rc = missing ? 2 : 3;
        goto out;
    }
    if (profile_html_load(d, r, &prof, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern report: %s: %s\n", path, err);
        goto out;
    }
    if (outp == NULL) {
        snprintf(def, sizeof(def), "quern-report-%lld.html", (long long)id);
        outp = def;
    }
    page.r = r;
    page.prof = prof;
    if (html_write_file(outp, report_write, &page, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern report: %s\n", err);
        goto out;
    }
    printf("report of run %lld written to %s\n", (long long)id, outp);
    rc = 0;
out:
    profile_html_free(prof);
    query_run_free(r);
    db_close(d);
    return rc;
}

#include "reports/report.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/opttab.h"
#include "reports/abandon.h"
#include "reports/catalog.h"
#include "common/cli.h"
#include "reports/dbopts.h"
#include "reports/html.h"
#include "reports/query.h"
#include "reports/rhtml.h"

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
     "results database (default ./quern-results.db, or $QUERN_DB)", OPTTAB_NONE},
    {"output", required_argument, 'o', "-o FILE", "output file (default quern-report-RUN.html)",
     OPTTAB_NONE},
    {"help", no_argument, 'h', NULL, NULL, OPTTAB_NONE},
    {NULL, 0, 0, NULL,
     "\nexit status: 0 written; 2 usage error or unknown run; 3 the database cannot\n"
     "be read or the file cannot be written.",
     OPTTAB_NONE},
};
static const opttab report_tab = {report_rows, sizeof(report_rows) / sizeof(report_rows[0]), 15};

void report_usage(FILE *out)
{
    opttab_usage(&report_tab, out);
}

/* ---------------------------------------------------------------- command */

static void report_write(FILE *out, const void *arg)
{
    const query_run *r = arg;

    rhtml_write(out, r);
}

int report_main(int argc, char **argv)
{
    const char *path = NULL, *outp = NULL, *runarg = NULL;
    db_opts dbo = {0};
    db *d = NULL;
    int open_rc;
    query_run *r = NULL;
    int64_t id = 0;
    /* not ERR_MAX: the database's path and SQLite's message (tests/lint/errrule.allow) */
    char err[1024], def[64];
    int rc = 3, missing = 0, c;
    struct option lopts[sizeof(report_rows) / sizeof(report_rows[0]) + 1];

    opttab_longopts(&report_tab, lopts);
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then starts afresh (a caller may have parsed before) */
    while ((c = getopt_long(argc, argv, "-:ho:", lopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            report_usage(stdout);
            return 0;
        case 'd':
        case 'o':
            if (optarg[0] == '\0')
                return cli_usage_err("report", "%s needs a value", cli_flag(argv, optind, optarg));
            if (c == 'd')
                path = optarg;
            else
                outp = optarg;
            break;
        case ':':
            return cli_usage_err("report", "%s needs a value", cli_flag(argv, optind, NULL));
        case 1:
            if (runarg != NULL)
                return cli_usage_err("report", "one run only, got a second: %s", optarg);
            runarg = optarg;
            id = catalog_parse_id(optarg);
            if (id <= 0)
                return cli_usage_err("report", "\"%s\" is not a run id (quern runs lists them)",
                                     optarg);
            break;
        default:
            return cli_usage_err("report", "unknown option %s", cli_flag(argv, optind, NULL));
        }
    }
    if (optind > 1 && strcmp(argv[optind - 1], "--") == 0)
        return cli_usage_err("report", "unknown option %s", "--");
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
    if (outp == NULL) {
        snprintf(def, sizeof(def), "quern-report-%lld.html", (long long)id);
        outp = def;
    }
    if (html_write_file(outp, report_write, r, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern report: %s\n", err);
        goto out;
    }
    printf("report of run %lld written to %s\n", (long long)id, outp);
    rc = 0;
out:
    query_run_free(r);
    db_close(d);
    return rc;
}

#include "reports/runs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/dur.h"
#include "common/err.h"
#include "common/opttab.h"
#include "common/mem.h"
#include "common/termsafe.h"
#include "store/abandon.h"
#include "store/catalog.h"
#include "common/cli.h"
#include "store/dbopts.h"
#include "store/query.h"
#include "store/runverdict.h"

#define RUNS_LIMIT_DEFAULT 20
#define RUNS_NAME_WIDTH_MAX 40
#define RUNS_VERDICT_WIDTH_MAX 48
#define RUNS_COLS 10

/* What the command was asked. */
typedef struct runs_opts {
    const char *path; /* borrowed: --db (NULL: the default) */
    const char *name; /* borrowed: --name */
    long limit;
} runs_opts;

/* The options and their help: one table. */
static const opttab_row runs_rows[] = {
    {NULL, 0, 0, NULL,
     "usage: quern runs [--db FILE] [--name NAME] [--limit K]\n\n"
     "Lists the runs recorded in the results database, newest first: id, name,\n"
     "start (local time), duration, VUs, status, TPS, p95 and error rate, all\n"
     "over the whole run and every step, and the verdict: passed, or failed and\n"
     "why (the thresholds that failed, or the rule that failed the run).\n\n"
     "A run left \"running\" by a console that is gone (its process ended on this\n"
     "host, or it wrote nothing for 30 s) is shown, and marked in the database,\n"
     "as abandoned.\n\n"
     "options:",
     OPTTAB_NONE},
    {"db", required_argument, 'd', "--db FILE",
     "results database (default ./quern-results.db, or $QUERN_DB)", OPTTAB_STR(runs_opts, path)},
    {"name", required_argument, 'n', "--name NAME", "only the runs of that name",
     OPTTAB_STR(runs_opts, name)},
    {"limit", required_argument, 'l', "--limit K", "at most K runs (default 20; 0: all)",
     OPTTAB_NONE},
    {"help", no_argument, 'h', NULL, NULL, OPTTAB_NONE},
};
static const opttab runs_tab = {runs_rows, sizeof(runs_rows) / sizeof(runs_rows[0]), 15,
                                .shorts = "h", .unknown = "unknown argument %s"};

void runs_usage(FILE *out)
{
    opttab_usage(&runs_tab, out);
}

/* opttab_parse's handler of one flag or argument. */
static int runs_opt(void *ctx, int val, const char *flag, const char *v, char *err, size_t errlen)
{
    runs_opts *o = ctx;
    char *end;

    (void)flag;
    if (opttab_plain(&runs_tab, val, v, o))
        return 0;
    switch (val) {
    case 'h':
        runs_usage(stdout);
        return OPTTAB_DONE;
    case 'l':
        errno = 0;
        o->limit = strtol(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || o->limit < 0) {
            err_set(err, errlen, "--limit: \"%s\" is not a whole number", v);
            return -1;
        }
        return 0;
    default: /* OPTTAB_ARG: this command takes none */
        err_set(err, errlen, "unknown argument %s", v);
        return -1;
    }
}

/* Parses argv into o: 0 to go on, else the exit status (help: 0, usage
 * error: 2) in *exit_rc and -1. */
static int runs_parse(int argc, char **argv, runs_opts *o, int *exit_rc)
{
    /* not ERR_MAX: a usage error quotes the value given (tests/lint/errrule.allow) */
    char err[1024];
    int rc;

    o->path = o->name = NULL;
    o->limit = RUNS_LIMIT_DEFAULT;
    *exit_rc = 0;
    rc = opttab_parse(&runs_tab, argc, argv, runs_opt, o, err, sizeof(err));
    if (rc < 0)
        *exit_rc = cli_usage_err("runs", "%s", err);
    return rc == 0 ? 0 : -1;
}

/* One line of the table, formatted. */
typedef struct runs_line {
    char id[24], name[RUNS_NAME_WIDTH_MAX + 1], start[32], dur[DUR_FORMAT_MAX], vus[16];
    char status[16], tps[24], p95[24], errs[24], verdict[RUNS_VERDICT_WIDTH_MAX + 1];
} runs_line;

/* A duration to a tenth of a second, to the second from a minute on. */
static void fmt_duration(int64_t us, char *buf, size_t len)
{
    int64_t q = us < 60000000 ? 100000 : 1000000;

    if (us < 0)
        snprintf(buf, len, "-");
    else
        dur_format((us + q / 2) / q * q, buf, len);
}

static void fmt_start(int64_t us, char *buf, size_t len)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;

    localtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* Formats row r (its status already judged, its verdict v) into l. */
static void runs_format(const catalog_row *r, const char *status, const runverdict *v, runs_line *l)
{
    /* What the database holds is shown, never acted on by the terminal. */
    snprintf(l->id, sizeof(l->id), "%lld", (long long)r->id);
    termsafe(r->name, l->name, sizeof(l->name));
    fmt_start(r->started_us, l->start, sizeof(l->start));
    fmt_duration(r->duration_us, l->dur, sizeof(l->dur));
    if (r->vu_pool > 0 && r->vus_peak >= 0) /* the open model: its pool's peak of its size */
        snprintf(l->vus, sizeof(l->vus), "%lld/%lld", (long long)r->vus_peak,
                 (long long)r->vu_pool);
    else
        snprintf(l->vus, sizeof(l->vus), "%lld", (long long)r->vus);
    termsafe(status, l->status, sizeof(l->status));
    termsafe(v->text, l->verdict, sizeof(l->verdict));
    if (r->duration_us > 0)
        snprintf(l->tps, sizeof(l->tps), "%.1f", (double)r->count * 1e6 / (double)r->duration_us);
    else
        snprintf(l->tps, sizeof(l->tps), "-");
    if (r->count > 0) {
        snprintf(l->p95, sizeof(l->p95), "%.1f", (double)r->p95_us / 1000.0);
        snprintf(l->errs, sizeof(l->errs), "%.2f%%", 100.0 * (double)r->errors / (double)r->count);
    } else {
        snprintf(l->p95, sizeof(l->p95), "-");
        snprintf(l->errs, sizeof(l->errs), "-");
    }
}

/* Prints the table, each column as wide as its widest cell. */
static void runs_print(const runs_line *lines, size_t n)
{
    int w[RUNS_COLS] = {2, 4, 5, 8, 3, 6, 3, 7, 7, 7};

    for (size_t i = 0; i < n; i++) {
        const runs_line *l = &lines[i];
        const char *cells[RUNS_COLS] = {l->id,     l->name, l->start, l->dur,  l->vus,
                                        l->status, l->tps,  l->p95,   l->errs, l->verdict};
        for (int k = 0; k < RUNS_COLS; k++)
            if ((int)strlen(cells[k]) > w[k])
                w[k] = (int)strlen(cells[k]);
    }
    printf("%*s  %-*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %*s  %s\n", w[0], "ID", w[1], "NAME", w[2],
           "START", w[3], "DURATION", w[4], "VUS", w[5], "STATUS", w[6], "TPS", w[7], "P95(ms)",
           w[8], "ERRORS", "VERDICT");
    for (size_t i = 0; i < n; i++) {
        const runs_line *l = &lines[i];
        printf("%*s  %-*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %*s  %s\n", w[0], l->id, w[1], l->name,
               w[2], l->start, w[3], l->dur, w[4], l->vus, w[5], l->status, w[6], l->tps, w[7],
               l->p95, w[8], l->errs, l->verdict);
    }
}

int runs_main(int argc, char **argv)
{
    runs_opts o;
    db_opts dbo = {0};
    const char *path;
    db *d = NULL;
    catalog_row *rows = NULL;
    runs_line *lines = NULL;
    size_t nrows = 0;
    int rc = 3;
    char err[ERR_MAX];

    if (runs_parse(argc, argv, &o, &rc) != 0)
        return rc;
    rc = 3;
    dbo.path = o.path;
    path = db_opts_path(&dbo);
    if (path == NULL)
        return cli_usage_err("runs", "%s", "--db none: no database to read");
    d = query_open("runs", path, &rc);
    if (d == NULL)
        return rc;
    rc = 3;
    /* Best effort: a database that cannot be written is judged row by row. */
    if (abandon_sweep(d, clock_wall_us(), err, sizeof(err)) < 0 ||
        catalog_list(d, o.name, o.limit, &rows, &nrows, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern runs: %s: %s\n", path, err);
        goto out;
    }
    if (nrows == 0) {
        char nm[TERMSAFE_MAX];
        if (o.name != NULL)
            printf("no run named %s in %s\n", termsafe(o.name, nm, sizeof(nm)), path);
        else
            printf("no run in %s\n", path);
        rc = 0;
        goto out;
    }
    lines = xcalloc(nrows, sizeof(*lines));
    for (size_t i = 0; i < nrows; i++) {
        const catalog_row *r = &rows[i];
        const char *status = r->status;
        runverdict v;
        char why[256];

        if (strcmp(status, "running") == 0 &&
            abandon_run(d, r->id, clock_wall_us(), why, sizeof(why)) == 1)
            status = "abandoned";
        if (runverdict_load(d, r->id, status, r->count, r->errors, RUNS_VERDICT_WIDTH_MAX, &v, err,
                            sizeof(err)) != 0) {
            fprintf(stderr, "quern runs: %s: %s\n", path, err);
            goto out;
        }
        runs_format(r, status, &v, &lines[i]);
    }
    runs_print(lines, nrows);
    rc = 0;
out:
    xfree(lines);
    catalog_free(rows, nrows);
    db_close(d);
    return rc;
}

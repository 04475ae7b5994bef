#include "reports/compare.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"
#include "common/lbuf.h"
#include "common/opttab.h"
#include "common/clock.h"
#include "common/mem.h"
#include "common/termsafe.h"
#include "store/abandon.h"
#include "reports/capacity_compare.h"
#include "reports/profile_compare.h"
#include "store/catalog.h"
#include "reports/chart.h"
#include "reports/compare_html.h"
#include "common/cli.h"
#include "reports/compare_steps.h"
#include "store/dbopts.h"
#include "reports/html.h"
#include "store/query.h"

#define THRESHOLD_MAX 1000.0 /* percent */

#define NOTE_MAX 512 /* bytes of the note on the runs' different loads */

/* The options and their help: one table (the help's first paragraphs,
 * which give the comparison's constants, are printed before it). */
static const opttab_row compare_rows[] = {
    {NULL, 0, 0, NULL, "options:", OPTTAB_NONE},
    {"db", required_argument, 'd', "--db FILE",
     "results database (default ./quern-results.db,\nor $QUERN_DB)", OPTTAB_NONE},
    {"output", required_argument, 'o', "-o FILE", "the HTML page (default quern-compare-A-B.html)",
     OPTTAB_NONE},
    {"fail-on-regression", required_argument, 'f', "--fail-on-regression P%",
     "significance threshold, and exit 1 when a step\nis worse (a CI build step fails); A is then\n"
     "marked regressed, never a default baseline",
     OPTTAB_NONE},
    {"baseline", required_argument, 'b', "--baseline SPEC",
     "last-passed (the default): the newest passed run\nof A's name before A, never a regressed "
     "one;\nRUN_ID; or tag:KEY[=VALUE], the newest run\nbefore A so tagged (--tag)",
     OPTTAB_NONE},
    {"baselines", required_argument, 'n', "--baselines N",
     "the N newest passed runs (1 to 20): their\nspread is the noise of the unchanged system",
     OPTTAB_NONE},
    {"help", no_argument, 'h', NULL, NULL, OPTTAB_NONE},
    {NULL, 0, 0, NULL,
     "\nexit status: 0 no regression; 1 a step regressed (--fail-on-regression);\n"
     "2 usage error, unknown run or no baseline; 3 the database cannot be read or\n"
     "the page cannot be written.",
     OPTTAB_NONE},
};
static const opttab compare_tab = {compare_rows, sizeof(compare_rows) / sizeof(compare_rows[0]), 26,
                                   .shorts = "ho:", .refuse_empty = 1};

void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: quern compare [A [B]] [--db FILE] [-o FILE] [--fail-on-regression P%%]\n"
            "                     [--baseline last-passed|RUN_ID|tag:KEY[=VALUE]] [--baselines N]\n"
            "\n"
            "Compares run A (the new one) with run B (the baseline), step by step: TPS,\n"
            "mean, p50, p95, p99 and error rate of both runs with their deltas, and a\n"
            "verdict per step: worse, better or no significant change. A defaults to the\n"
            "latest run; B to the latest passed run before A with the same name as A,\n"
            "never a failed one nor one a comparison found regressed (--baseline).\n"
            "\n"
            "A change is significant when TPS or a latency moved by more than %g %% (or\n"
            "the --fail-on-regression value) of the baseline, a latency also by more than\n"
            "%g ms, or the error rate by more than %g percentage points. A step is worse\n"
            "when one of its figures is significantly worse (lower TPS, higher latency or\n"
            "error rate), better when none is worse and one is better. Steps are matched\n"
            "by id; one with fewer than %d samples in either run is not compared.\n"
            "\n"
            "A change past the threshold must also be beyond the noise: the 95 %% interval\n"
            "of the shift of A's per-second figures over the baselines' (Hodges-Lehmann,\n"
            "at least %d seconds a side) past the threshold, and with --baselines N, A's\n"
            "figure beyond every baseline's. Otherwise it is \"within noise\", shown with\n"
            "its interval and the baselines' range.\n"
            "\n"
            "Both runs' verdicts are shown; when their requested VUs, duration, ramp-up or\n"
            "runs per VU differ, a note says so beside each verdict (\"worse (note: A ran\n"
            "50 VUs, B 100)\"). A run still running or abandoned is not judged, and is\n"
            "never the default baseline.\n"
            "\n"
            "Two capacity searches (quern run --capacity) are compared by their capacity:\n"
            "\"capacity fell from 300/s to 200/s\" (by more than the threshold, or none\n"
            "found where B had one) is a regression for --fail-on-regression.\n"
            "\n"
            "It also writes an HTML page with the table and both runs overlaid on the same\n"
            "charts (throughput and p95 over the elapsed time).\n"
            "\n",
            COMPARE_THRESHOLD_DEFAULT, COMPARE_LATENCY_FLOOR_US / 1000.0, COMPARE_ERROR_POINTS,
            COMPARE_SAMPLES_MIN, NOISE_SECONDS_MIN);
    opttab_usage(&compare_tab, out);
}

/* ------------------------------------------------------------------- text */

/* One line per incomplete run: what it is and why. */
static void print_incomplete(FILE *out, const query_run *r, const char *role)
{
    char b[32], why[TERMSAFE_MAX];

    if (!query_run_incomplete(r))
        return;
    fprintf(out, "note: run %lld (%s) is %s", (long long)r->id, role,
            r->abandoned ? "abandoned, incomplete" : "still running");
    if (r->abandoned && r->status_reason != NULL)
        fprintf(out, ": %s", termsafe(r->status_reason, why, sizeof(why)));
    fprintf(out, "; its figures cover only the %s it recorded\n",
            dur_prose(r->elapsed_us, b, sizeof(b)));
}

static void print_text(FILE *out, const query_run *a, const query_run *b,
                       const compare_steps_row *rows, size_t n, double thr, const char *note,
                       const query_run *const *bases, size_t nbases)
{
    char va[32], vb[32], dl[32], hb[24], ha[24], t[32], ns[256];
    double ma, mb;
    char nm[TERMSAFE_MAX], st[TERMSAFE_MAX], vd[TERMSAFE_MAX], lb[TERMSAFE_MAX];

    /* Every string from the database is shown, never acted on by the terminal. */
    fprintf(out, "new:      run %lld \"%s\", started %s, %s, verdict %s\n", (long long)a->id,
            termsafe(a->name, nm, sizeof(nm)), html_time(a->started_us, t, sizeof(t)),
            termsafe(a->status, st, sizeof(st)), termsafe(a->verdict.text, vd, sizeof(vd)));
    fprintf(out, "baseline: run %lld \"%s\", started %s, %s, verdict %s\n", (long long)b->id,
            termsafe(b->name, nm, sizeof(nm)), html_time(b->started_us, t, sizeof(t)),
            termsafe(b->status, st, sizeof(st)), termsafe(b->verdict.text, vd, sizeof(vd)));
    if (nbases > 1) {
        fprintf(out, "baselines: %zu runs,", nbases);
        for (size_t i = 0; i < nbases; i++)
            fprintf(out, " %lld", (long long)bases[i]->id);
        fprintf(out, " (the newest shown; their seconds and their spread are the noise)\n");
    }
    print_incomplete(out, a, "A");
    print_incomplete(out, b, "B");
    if (note[0] != '\0')
        fprintf(out, "note: the runs had different loads: %s\n", note);
    fprintf(out,
            "significant: TPS or latency beyond %g%% (latency also beyond %g ms), error rate "
            "beyond %g points\n",
            thr, COMPARE_LATENCY_FLOOR_US / 1000.0, COMPARE_ERROR_POINTS);
    if (strcmp(a->script_hash, b->script_hash) != 0)
        fprintf(out, "note: the script changed between the runs (SHA-256 differs)\n");
    snprintf(hb, sizeof(hb), "baseline #%lld", (long long)b->id);
    snprintf(ha, sizeof(ha), "new #%lld", (long long)a->id);
    for (size_t i = 0; i < n; i++) {
        const compare_steps_row *row = &rows[i];
        termsafe(compare_steps_row_id(row), nm, sizeof(nm));
        if (compare_steps_row_label(row)[0] != '\0')
            fprintf(out, "\n%s (%s): ", nm, termsafe(compare_steps_row_label(row), lb, sizeof(lb)));
        else
            fprintf(out, "\n%s: ", nm);
        if (row->overall == COMPARE_STEPS_NA) {
            fprintf(out, "%s\n", termsafe(compare_steps_na_reason(row), lb, sizeof(lb)));
            continue;
        }
        if (note[0] != '\0' &&
            (row->overall == COMPARE_STEPS_WORSE || row->overall == COMPARE_STEPS_BETTER))
            fprintf(out, "%s (note: %s)\n", compare_steps_verdict_text[row->overall], note);
        else
            fprintf(out, "%s\n", compare_steps_verdict_text[row->overall]);
        fprintf(out, "  %-10s %14s %14s %12s\n", "", hb, ha, "delta");
        for (int m = 0; m < COMPARE_STEPS_COUNT; m++) {
            fprintf(out, "  %-10s %14s %14s %12s", compare_steps_metric_name[m],
                    compare_steps_fmt_metric(m, row->vb[m], vb, sizeof(vb)),
                    compare_steps_fmt_metric(m, row->va[m], va, sizeof(va)),
                    compare_steps_fmt_delta(m, row->va[m], row->vb[m], dl, sizeof(dl)));
            if (row->v[m] == COMPARE_STEPS_WORSE || row->v[m] == COMPARE_STEPS_BETTER)
                fprintf(out, "  %s", compare_steps_verdict_text[row->v[m]]);
            if (compare_steps_fmt_noise(row, m, ns, sizeof(ns))[0] != '\0')
                fprintf(out, "%s%s", row->noisy[m] ? "  " : " ", ns);
            fputc('\n', out);
        }
        if (compare_steps_row_messages(row, a, b, &ma, &mb))
            fprintf(out, "  %-10s %14s %14s %12s\n", "messages/s",
                    compare_steps_fmt_metric(COMPARE_STEPS_TPS, mb, vb, sizeof(vb)),
                    compare_steps_fmt_metric(COMPARE_STEPS_TPS, ma, va, sizeof(va)),
                    compare_steps_fmt_delta(COMPARE_STEPS_TPS, ma, mb, dl, sizeof(dl)));
    }
}

/* ---------------------------------------------------------------- command */

/* html_write_file's writer of the page. */
static void page_emit(FILE *out, const void *arg)
{
    compare_html_write(out, arg);
}

/* The runs' capacity searches (reports/capacity_compare.h): one line, and 1 when the
 * capacity fell and --fail-on-regression was given. */
static int compare_capacity(const query_run *a, const query_run *b, double thr, int fail_on)
{
    char line[256];
    enum capacity_compare_verdict v =
        capacity_compare_judge(a->capacity, b->capacity, thr, line, sizeof(line));

    if (line[0] != '\0')
        printf("%s\n", line);
    if (fail_on && v == CAPACITY_COMPARE_WORSE) {
        printf("regression: the capacity fell\n");
        return 1;
    }
    return 0;
}

/* "10%", "10", "2.5%": a percentage in (0, THRESHOLD_MAX]. -1 if not. */
static double parse_pct(const char *s)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s)
        return -1;
    if (*end == '%')
        end++;
    if (*end != '\0' || !(v > 0) || v > THRESHOLD_MAX)
        return -1;
    return v;
}

/* What the command line asked. */
typedef struct compare_args {
    const char *path;   /* borrowed: --db (NULL: the default) */
    const char *outp;   /* borrowed: -o (NULL: quern-compare-A-B.html) */
    const char *ids[2]; /* borrowed: A and B as given */
    int64_t id[2];      /* their ids */
    size_t nids;
    double thr; /* --fail-on-regression's percentage, or the default */
    int fail_on;
    const char *baseline; /* borrowed: --baseline (NULL: last-passed) */
    size_t nbases;        /* --baselines (default 1) */
} compare_args;

/* opttab_parse's handler of one flag or argument. */
static int compare_opt(void *ctx, int val, const char *flag, const char *v, char *err,
                       size_t errlen)
{
    compare_args *a = ctx;

    (void)flag;
    switch (val) {
    case 'h':
        compare_usage(stdout);
        return OPTTAB_DONE;
    case 'd':
        a->path = v;
        return 0;
    case 'o':
        a->outp = v;
        return 0;
    case 'b':
        a->baseline = v;
        return 0;
    case 'n': {
        char *end;
        long k = strtol(v, &end, 10);
        if (*end != '\0' || k < 1 || k > COMPARE_BASELINES_MAX) {
            err_set(err, errlen, "--baselines: \"%s\" is not a whole number from 1 to %d", v,
                    COMPARE_BASELINES_MAX);
            return -1;
        }
        a->nbases = (size_t)k;
        return 0;
    }
    case 'f':
        a->thr = parse_pct(v);
        if (a->thr < 0) {
            err_set(err, errlen, "--fail-on-regression: \"%s\" is not a percentage such as 10%%",
                    v);
            return -1;
        }
        a->fail_on = 1;
        return 0;
    default: /* OPTTAB_ARG: a run */
        if (a->nids == 2) {
            err_set(err, errlen, "two runs at most, got a third: %s", v);
            return -1;
        }
        a->ids[a->nids] = v;
        a->id[a->nids] = catalog_parse_id(v);
        if (a->id[a->nids] <= 0) {
            err_set(err, errlen, "\"%s\" is not a run id (quern runs lists them)", v);
            return -1;
        }
        a->nids++;
        return 0;
    }
}

/* The baselines of A (id, named name) that the command line asks for into
 * ids (COMPARE_BASELINES_MAX), how many into *n: B when given, else
 * --baseline (last-passed by default, RUN_ID, tag:KEY[=VALUE]) and
 * --baselines. COMPARE_EXIT_OK; COMPARE_EXIT_USAGE with the message
 * printed (usage, none found); COMPARE_EXIT_ERROR with err (the database). */
static enum compare_exit find_baselines(db *d, const compare_args *args, const char *name,
                                        const char *path, int64_t *ids, size_t *n, char *err,
                                        size_t errlen)
{
    const char *spec = args->baseline != NULL ? args->baseline : "last-passed";
    char nm[TERMSAFE_MAX];

    *n = 0;
    if (args->nids == 2) {
        if (args->baseline != NULL || args->nbases > 1) {
            fprintf(stderr, "quern compare: give B or --baseline/--baselines, not both\n");
            return COMPARE_EXIT_USAGE;
        }
        ids[(*n)++] = args->id[1];
        return COMPARE_EXIT_OK;
    }
    if (strcmp(spec, "last-passed") == 0) {
        if (catalog_passed(d, name, args->id[0], args->nbases > 0 ? args->nbases : 1, ids, n, err,
                           errlen) != 0)
            return COMPARE_EXIT_ERROR;
        if (*n == 0) {
            fprintf(stderr,
                    "quern compare: run %lld (\"%s\") has no earlier passed run of the same "
                    "name in %s (a failed or regressed run is no baseline): give the baseline "
                    "run B, or --baseline RUN_ID\n",
                    (long long)args->id[0], termsafe(name, nm, sizeof(nm)), path);
            return COMPARE_EXIT_USAGE;
        }
        return COMPARE_EXIT_OK;
    }
    if (args->nbases > 1) {
        fprintf(stderr, "quern compare: --baselines goes with --baseline last-passed\n");
        return COMPARE_EXIT_USAGE;
    }
    if (strncmp(spec, "tag:", 4) == 0 && spec[4] != '\0') {
        char key[128];
        const char *eq = strchr(spec + 4, '=');
        size_t kn = eq != NULL ? (size_t)(eq - spec - 4) : strlen(spec + 4);
        snprintf(key, sizeof(key), "%.*s", (int)kn, spec + 4);
        if (catalog_tagged(d, key, eq != NULL ? eq + 1 : NULL, args->id[0], &ids[0], err, errlen) !=
            0)
            return COMPARE_EXIT_ERROR;
        if (ids[0] == 0) {
            fprintf(stderr, "quern compare: no complete run before run %lld is tagged %s in %s\n",
                    (long long)args->id[0], termsafe(spec + 4, nm, sizeof(nm)), path);
            return COMPARE_EXIT_USAGE;
        }
        *n = 1;
        return COMPARE_EXIT_OK;
    }
    ids[0] = catalog_parse_id(spec);
    if (ids[0] <= 0) {
        fprintf(
            stderr,
            "quern compare: --baseline: \"%s\" is not last-passed, a run id or tag:KEY[=VALUE]\n",
            termsafe(spec, nm, sizeof(nm)));
        return COMPARE_EXIT_USAGE;
    }
    *n = 1;
    return COMPARE_EXIT_OK;
}

/* What regressed in rows, into buf (NUL-terminated, cut to fit):
 * "SC-X-STEP-2 (p95 +70.1%), ...". */
static void regression_text(const compare_steps_row *rows, size_t n, char *buf, size_t len)
{
    lbuf b = {buf, 0, len - 1};

    for (size_t i = 0; i < n; i++) {
        if (rows[i].overall != COMPARE_STEPS_WORSE)
            continue;
        lbuf_fmt(&b, "%s%s (", b.len > 0 ? ", " : "", compare_steps_row_id(&rows[i]));
        for (int m = 0, first = 1; m < COMPARE_STEPS_COUNT; m++)
            if (rows[i].v[m] == COMPARE_STEPS_WORSE) {
                char dl[32];
                lbuf_fmt(&b, "%s%s %s", first ? "" : ", ", compare_steps_metric_short[m],
                         compare_steps_fmt_delta(m, rows[i].va[m], rows[i].vb[m], dl, sizeof(dl)));
                first = 0;
            }
        lbuf_put(&b, ")", 1);
    }
    buf[b.len] = '\0';
}

/* The runs of the command line, found in d (at path): A's id into args->id[0]
 * (the latest run when none was given), its baselines' into ids (their
 * count into *n), B's into args->id[1]. COMPARE_EXIT_OK; COMPARE_EXIT_USAGE
 * with the message printed (an unknown run, no baseline);
 * COMPARE_EXIT_ERROR with err (the database). */
static enum compare_exit find_runs(db *d, compare_args *args, const char *path, int64_t *ids,
                                   size_t *n, char *err, size_t errlen)
{
    char *name_a = NULL, *name_b = NULL;
    enum compare_exit rc = COMPARE_EXIT_ERROR;

    if (args->nids == 0) {
        if (catalog_find(d, NULL, 0, &args->id[0], err, errlen) != 0)
            goto out;
        if (args->id[0] == 0) {
            fprintf(stderr, "quern compare: no run in %s\n", path);
            rc = COMPARE_EXIT_USAGE;
            goto out;
        }
    }
    if (catalog_name(d, args->id[0], &name_a, err, errlen) != 0)
        goto out;
    if (name_a == NULL) {
        fprintf(stderr, "quern compare: no run %s in %s (quern runs lists them)\n", args->ids[0],
                path);
        rc = COMPARE_EXIT_USAGE;
        goto out;
    }
    rc = find_baselines(d, args, name_a, path, ids, n, err, errlen);
    if (rc != COMPARE_EXIT_OK)
        goto out;
    rc = COMPARE_EXIT_ERROR;
    args->id[1] = ids[0];
    if (catalog_name(d, args->id[1], &name_b, err, errlen) != 0)
        goto out;
    if (name_b == NULL) {
        fprintf(stderr, "quern compare: no run %lld in %s (quern runs lists them)\n",
                (long long)args->id[1], path);
        rc = COMPARE_EXIT_USAGE;
        goto out;
    }
    rc = COMPARE_EXIT_OK;
out:
    xfree(name_a);
    xfree(name_b);
    return rc;
}

/* Loads A (id) and its n baselines (ids) into *a and bases, bucketed with
 * one width for every run, so that their points line up on the charts
 * (into *width). 0; -1 with err (the database): what was loaded is the
 * caller's to free either way. */
static int load_runs(db *d, int64_t id, const int64_t *ids, size_t n, query_run **a,
                     query_run **bases, unsigned *width, char *err, size_t errlen)
{
    uint64_t sb, smax;

    if (query_run_seconds(d, id, &smax, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (query_run_seconds(d, ids[i], &sb, err, errlen) != 0)
            return -1;
        if (sb > smax)
            smax = sb;
    }
    *width = (unsigned)((smax + QUERY_POINTS_MAX - 1) / QUERY_POINTS_MAX);
    if (*width == 0)
        *width = 1;
    *a = query_run_load(d, id, *width, NULL, err, errlen);
    if (*a == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        bases[i] = query_run_load(d, ids[i], *width, NULL, err, errlen);
        if (bases[i] == NULL)
            return -1;
    }
    return 0;
}

/* The comparison of a with its nbases baselines (bases[0] is B), loaded
 * with width seconds a point: the table, the page, the verdict, and with
 * --fail-on-regression a regressed A marked so in d. COMPARE_EXIT_OK,
 * COMPARE_EXIT_WORSE, or COMPARE_EXIT_ERROR when the page cannot be
 * written (said on stderr); err is the caller's buffer for the reasons. */
static enum compare_exit compare_report(db *d, const compare_args *args, const query_run *a,
                                        const query_run *const *bases, size_t nbases,
                                        unsigned width, char *err, size_t errlen)
{
    const query_run *b = bases[0];
    const char *outp = args->outp;
    double thr = args->thr;
    size_t nrows = 0, worse = 0, better = 0, same = 0;
    compare_steps_row *rows;
    compare_html_page pg;
    enum compare_exit rc = COMPARE_EXIT_ERROR;
    char def[96], note[NOTE_MAX], why[160], nm[TERMSAFE_MAX];

    rows = compare_steps_match(a, b, thr, compare_steps_incomplete_why(a, b, why, sizeof(why)),
                               &nrows);
    compare_steps_noise(rows, nrows, a, bases, nbases, thr);
    compare_steps_load_note(a, b, note, sizeof(note));
    print_text(stdout, a, b, rows, nrows, thr, note, bases, nbases);
    pg = (compare_html_page){a,     b,   rows, nrows, thr, a->npts > b->npts ? a->npts : b->npts,
                             width, note};
    if (outp == NULL) {
        snprintf(def, sizeof(def), "quern-compare-%lld-%lld.html", (long long)a->id,
                 (long long)b->id);
        outp = def;
    }
    if (html_write_file(outp, page_emit, &pg, err, errlen) != 0) {
        fprintf(stderr, "quern compare: %s\n", err);
        goto out;
    }
    for (size_t i = 0; i < nrows; i++) {
        worse += rows[i].overall == COMPARE_STEPS_WORSE;
        better += rows[i].overall == COMPARE_STEPS_BETTER;
        same += rows[i].overall == COMPARE_STEPS_SAME;
    }
    printf("\nverdict: %zu step%s worse, %zu better, %zu without significant change", worse,
           worse == 1 ? "" : "s", better, same);
    if (note[0] != '\0' && worse + better > 0)
        printf(" (note: %s)", note);
    if (compare_steps_incomplete_why(a, b, why, sizeof(why)) != NULL)
        printf(" (%s)", termsafe(why, nm, sizeof(nm)));
    printf("\n");
    printf("comparison written to %s\n", outp);
    rc = COMPARE_EXIT_OK;
    if (compare_capacity(a, b, thr, args->fail_on) != 0)
        rc = COMPARE_EXIT_WORSE;
    {
        char lines[2048];
        if (profile_compare_lines(d, a->id, b->id, lines, sizeof(lines), err, errlen) < 0)
            fprintf(stderr, "quern compare: the profiles: %s\n", err);
        for (char *l = lines, *nl; lines[0] != '\0' && l != NULL; l = nl) {
            nl = strchr(l, '\n');
            if (nl != NULL)
                *nl++ = '\0';
            printf("%s\n", termsafe(l, nm, sizeof(nm)));
        }
    }
    if (args->fail_on && worse > 0) {
        char what[512];
        regression_text(rows, nrows, what, sizeof(what));
        printf("regression beyond %g%%: %s\n", thr, termsafe(what, nm, sizeof(nm)));
        /* a regressed run is never the next build's default baseline */
        if (catalog_mark_regressed(d, a->id, what, err, errlen) != 0)
            fprintf(stderr, "quern compare: cannot mark run %lld regressed: %s\n", (long long)a->id,
                    err);
        else
            printf("run %lld marked regressed: it is no default baseline\n", (long long)a->id);
        rc = COMPARE_EXIT_WORSE;
    }
out:
    xfree(rows);
    return rc;
}

int compare_main(int argc, char **argv)
{
    compare_args args = {.thr = COMPARE_THRESHOLD_DEFAULT};
    const char *path;
    int rc = COMPARE_EXIT_ERROR;
    db_opts dbo = {0};
    db *d = NULL;
    int open_rc;
    query_run *a = NULL;
    query_run *bases[COMPARE_BASELINES_MAX] = {NULL}; /* owned: bases[0] is B */
    int64_t base_ids[COMPARE_BASELINES_MAX];
    size_t nbases = 0;
    unsigned width;
    /* not ERR_MAX: the database's path and SQLite's message (tests/lint/errrule.allow) */
    char err[1024];
    int prc = opttab_parse(&compare_tab, argc, argv, compare_opt, &args, err, sizeof(err));

    if (prc != 0)
        return prc > 0 ? COMPARE_EXIT_OK : cli_usage_err("compare", "%s", err);
    dbo.path = args.path;
    path = db_opts_path(&dbo);
    if (path == NULL)
        return cli_usage_err("compare", "%s", "--db none: no database to read");
    d = query_open("compare", path, &open_rc);
    if (d == NULL)
        return open_rc;
    /* Best effort: query_run_load judges each run itself when this cannot write. */
    abandon_sweep(d, clock_wall_us(), err, sizeof(err));
    rc = find_runs(d, &args, path, base_ids, &nbases, err, sizeof(err));
    if (rc == COMPARE_EXIT_ERROR)
        goto dberr;
    if (rc != COMPARE_EXIT_OK)
        goto out;
    if (load_runs(d, args.id[0], base_ids, nbases, &a, bases, &width, err, sizeof(err)) != 0)
        goto dberr;
    rc = compare_report(d, &args, a, (const query_run *const *)bases, nbases, width, err,
                        sizeof(err));
    goto out;
dberr:
    fprintf(stderr, "quern compare: %s: %s\n", path, err);
    rc = COMPARE_EXIT_ERROR;
out:
    query_run_free(a);
    for (size_t i = 0; i < nbases; i++)
        query_run_free(bases[i]);
    db_close(d);
    return rc;
}

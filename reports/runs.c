#include "reports/runs.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/hist.h"
#include "common/mem.h"
#include "reports/abandon.h"
#include "reports/query.h"
#include "reports/runverdict.h"

#define RUNS_LIMIT_DEFAULT 20
#define RUNS_NAME_WIDTH_MAX 40
#define RUNS_VERDICT_WIDTH_MAX 48

void runs_usage(FILE *out)
{
    fputs("usage: quern runs [--db FILE] [--name NAME] [--limit K]\n"
          "\n"
          "Lists the runs recorded in the results database, newest first: id, name,\n"
          "start (local time), duration, VUs, status, TPS, p95 and error rate, all\n"
          "over the whole run and every step, and the verdict: passed, or failed and\n"
          "why (the thresholds that failed, or the rule that failed the run).\n"
          "\n"
          "A run left \"running\" by a console that is gone (its process ended on this\n"
          "host, or it wrote nothing for 30 s) is shown, and marked in the database,\n"
          "as abandoned.\n"
          "\n"
          "options:\n"
          "  --db FILE      results database (default ./quern-results.db, or $QUERN_DB)\n"
          "  --name NAME    only the runs of that name\n"
          "  --limit K      at most K runs (default 20; 0: all)\n",
          out);
}

/* One line of the table, formatted. */
typedef struct runs_row {
    char id[24], name[RUNS_NAME_WIDTH_MAX + 1], start[32], dur[32], vus[16], status[16];
    char tps[24], p95[24], errs[24], verdict[RUNS_VERDICT_WIDTH_MAX + 1];
} runs_row;

/* What a run did over all its steps. */
typedef struct runs_sum {
    uint64_t count, errors;
    hist *h; /**< owned */
} runs_sum;

/* Adds the rows of st (count, errors, histogram BLOB) for run id into s. */
static int sum_rows(sqlite3_stmt *st, int64_t id, runs_sum *s)
{
    int rc;

    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const void *blob = sqlite3_column_blob(st, 2);
        s->count += (uint64_t)sqlite3_column_int64(st, 0);
        s->errors += (uint64_t)sqlite3_column_int64(st, 1);
        if (blob != NULL)
            hist_merge_encoded(s->h, blob, (size_t)sqlite3_column_bytes(st, 2));
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void fmt_duration(int64_t us, char *buf, size_t len)
{
    int64_t s = us / 1000000;

    if (us < 0)
        snprintf(buf, len, "-");
    else if (s < 60)
        snprintf(buf, len, "%.1fs", (double)us / 1e6);
    else if (s < 3600)
        snprintf(buf, len, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
    else
        snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
}

static void fmt_start(int64_t us, char *buf, size_t len)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;

    localtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static int usage_err(const char *fmt, const char *arg)
{
    fprintf(stderr, "quern runs: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see quern help runs)\n");
    return 2;
}

int runs_main(int argc, char **argv)
{
    const char *path = NULL, *name = NULL;
    long limit = RUNS_LIMIT_DEFAULT;
    db_opts dbo = {0};
    db *d = NULL;
    int open_rc;
    sqlite3 *sq;
    sqlite3_stmt *list = NULL, *totals = NULL, *partial = NULL, *elapsed = NULL;
    runs_row *rows = NULL;
    size_t nrows = 0;
    runs_sum sum = {0, 0, NULL};
    int w[10] = {2, 4, 5, 8, 3, 6, 3, 7, 7, 7};
    int rc = 3, step;
    char err[512];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            runs_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--db") != 0 && strcmp(a, "--name") != 0 && strcmp(a, "--limit") != 0)
            return usage_err("unknown argument %s", a);
        if (i + 1 >= argc)
            return usage_err("%s needs a value", a);
        if (strcmp(a, "--db") == 0) {
            path = argv[++i];
        } else if (strcmp(a, "--name") == 0) {
            name = argv[++i];
        } else {
            char *end;
            errno = 0;
            limit = strtol(argv[++i], &end, 10);
            if (errno != 0 || end == argv[i] || *end != '\0' || limit < 0)
                return usage_err("--limit: \"%s\" is not a whole number", argv[i]);
        }
    }
    dbo.path = path;
    path = db_opts_path(&dbo);
    if (path == NULL)
        return usage_err("%s", "--db none: no database to read");
    d = query_open("runs", path, &open_rc);
    if (d == NULL)
        return open_rc;
    sq = db_sqlite(d);
    /* Best effort: a database that cannot be written is judged row by row. */
    if (abandon_sweep(d, clock_wall_us(), err, sizeof(err)) < 0) {
        fprintf(stderr, "quern runs: %s: %s\n", path, err);
        goto out;
    }
    if (sqlite3_prepare_v2(sq,
                           "SELECT id, name, started_us, duration_us, vus, status FROM runs "
                           "WHERE ?1 IS NULL OR name = ?1 ORDER BY id DESC LIMIT ?2",
                           -1, &list, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT count, err_tech + err_func, histogram FROM step_totals "
                           "WHERE run_id = ?",
                           -1, &totals, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT count, err_tech + err_func, histogram FROM step_intervals "
                           "WHERE run_id = ?",
                           -1, &partial, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(sq,
                           "SELECT coalesce(sum(length_us), 0) FROM intervals "
                           "WHERE run_id = ?",
                           -1, &elapsed, NULL) != SQLITE_OK) {
        fprintf(stderr, "quern runs: %s: %s\n", path, sqlite3_errmsg(sq));
        goto out;
    }
    if (name != NULL)
        sqlite3_bind_text(list, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(list, 2, limit > 0 ? limit : -1);
    sum.h = hist_new();
    while ((step = sqlite3_step(list)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(list, 0), dur;
        const char *status = (const char *)sqlite3_column_text(list, 5);
        runs_row *r;
        size_t lens[10];
        runverdict v;
        char why[256];

        sum.count = sum.errors = 0;
        hist_reset(sum.h);
        if (sum_rows(totals, id, &sum) != 0)
            goto sqlerr;
        if (sum.count == 0 && sum_rows(partial, id, &sum) != 0) /* not ended */
            goto sqlerr;
        if (sqlite3_column_type(list, 3) != SQLITE_NULL) {
            dur = sqlite3_column_int64(list, 3);
        } else {
            sqlite3_bind_int64(elapsed, 1, id);
            if (sqlite3_step(elapsed) != SQLITE_ROW)
                goto sqlerr;
            dur = sqlite3_column_int64(elapsed, 0);
            sqlite3_reset(elapsed);
        }
        rows = xrealloc(rows, (nrows + 1) * sizeof(*rows));
        r = &rows[nrows++];
        snprintf(r->id, sizeof(r->id), "%lld", (long long)id);
        snprintf(r->name, sizeof(r->name), "%s", (const char *)sqlite3_column_text(list, 1));
        fmt_start(sqlite3_column_int64(list, 2), r->start, sizeof(r->start));
        fmt_duration(dur, r->dur, sizeof(r->dur));
        snprintf(r->vus, sizeof(r->vus), "%lld", (long long)sqlite3_column_int64(list, 4));
        snprintf(r->status, sizeof(r->status), "%s", status != NULL ? status : "?");
        if (strcmp(r->status, "running") == 0 &&
            abandon_run(d, id, clock_wall_us(), why, sizeof(why)) == 1)
            snprintf(r->status, sizeof(r->status), "abandoned");
        if (runverdict_load(d, id, r->status, sum.count, sum.errors, RUNS_VERDICT_WIDTH_MAX, &v,
                            err, sizeof(err)) != 0) {
            fprintf(stderr, "quern runs: %s: %s\n", path, err);
            goto out;
        }
        snprintf(r->verdict, sizeof(r->verdict), "%s", v.text);
        if (dur > 0)
            snprintf(r->tps, sizeof(r->tps), "%.1f", (double)sum.count * 1e6 / (double)dur);
        else
            snprintf(r->tps, sizeof(r->tps), "-");
        if (sum.count > 0) {
            snprintf(r->p95, sizeof(r->p95), "%.1f", (double)hist_percentile(sum.h, 95) / 1000.0);
            snprintf(r->errs, sizeof(r->errs), "%.2f%%",
                     100.0 * (double)sum.errors / (double)sum.count);
        } else {
            snprintf(r->p95, sizeof(r->p95), "-");
            snprintf(r->errs, sizeof(r->errs), "-");
        }
        lens[0] = strlen(r->id);
        lens[1] = strlen(r->name);
        lens[2] = strlen(r->start);
        lens[3] = strlen(r->dur);
        lens[4] = strlen(r->vus);
        lens[5] = strlen(r->status);
        lens[6] = strlen(r->tps);
        lens[7] = strlen(r->p95);
        lens[8] = strlen(r->errs);
        lens[9] = strlen(r->verdict);
        for (int k = 0; k < 10; k++)
            if ((int)lens[k] > w[k])
                w[k] = (int)lens[k];
    }
    if (step != SQLITE_DONE)
        goto sqlerr;
    if (nrows == 0) {
        if (name != NULL)
            printf("no run named %s in %s\n", name, path);
        else
            printf("no run in %s\n", path);
        rc = 0;
        goto out;
    }
    printf("%*s  %-*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %*s  %s\n", w[0], "ID", w[1], "NAME", w[2],
           "START", w[3], "DURATION", w[4], "VUS", w[5], "STATUS", w[6], "TPS", w[7], "P95(ms)",
           w[8], "ERRORS", "VERDICT");
    for (size_t i = 0; i < nrows; i++) {
        const runs_row *r = &rows[i];
        printf("%*s  %-*s  %-*s  %*s  %*s  %-*s  %*s  %*s  %*s  %s\n", w[0], r->id, w[1], r->name,
               w[2], r->start, w[3], r->dur, w[4], r->vus, w[5], r->status, w[6], r->tps, w[7],
               r->p95, w[8], r->errs, r->verdict);
    }
    rc = 0;
    goto out;
sqlerr:
    fprintf(stderr, "quern runs: %s: %s\n", path, sqlite3_errmsg(sq));
out:
    hist_free(sum.h);
    xfree(rows);
    sqlite3_finalize(list);
    sqlite3_finalize(totals);
    sqlite3_finalize(partial);
    sqlite3_finalize(elapsed);
    db_close(d);
    return rc;
}

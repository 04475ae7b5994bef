#include "worker/wire/glog.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/version.h"
#include "worker/wire/scen.h"

int glog_open(glog *g, const char *data_path, const char *out_path, const char *process, char *err,
              size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->data.fd = -1;
    snprintf(g->process, sizeof(g->process), "%s", process != NULL ? process : "local-0");
    if (data_path != NULL) {
        if (wfile_open(&g->data, data_path, WFILE_BUF_BYTES, err, errlen) != 0)
            return -1;
        wfile_append(&g->data, GLOG_DATA_HEADER "\n", sizeof(GLOG_DATA_HEADER "\n") - 1);
    }
    if (out_path != NULL)
        g->out_path = xstrdup(out_path);
    return 0;
}

void glog_begin(glog *g, size_t nsteps)
{
    xfree(g->st);
    g->st = xcalloc(nsteps ? nsteps : 1, sizeof(*g->st));
    g->nsteps = nsteps;
}

void glog_sample(glog *l, const glog_rec *s)
{
    if (l->start_wall_us == 0 || s->start_ms * 1000 < l->start_wall_us)
        l->start_wall_us = s->start_ms * 1000;
    if (l->st != NULL && s->step < l->nsteps) {
        glog_stat *g = &l->st[s->step];
        double ms = (double)s->elapsed_ms;
        if (s->ok) {
            g->tests++;
            g->sum_ms += ms;
            g->sumsq_ms += ms * ms;
            g->bytes += (double)s->bytes_in;
            g->dns_ms += (double)s->dns_us / 1000.;
            g->conn_ms += (double)(s->dns_us + s->connect_us) / 1000.;
            g->ttfb_ms += (double)s->ttfb_us / 1000.;
        } else {
            g->errors++;
        }
        if (s->status >= 400)
            g->resp_errors++;
    }
    if (l->data.fd >= 0) {
        char *out = wfile_reserve(&l->data);
        if (out != NULL) {
            int n =
                snprintf(out, WFILE_LINE_MAX,
                         "%u, %u, %zu, %" PRId64 ", %" PRId64 ", %d, %d, %" PRIu64 ", %d, %" PRIu64
                         ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
                         s->thread, s->run, s->step + 1, s->start_ms, s->elapsed_ms, s->ok ? 0 : 1,
                         s->status, s->bytes_in, s->status >= 400 ? 1 : 0, s->dns_us / 1000,
                         (s->dns_us + s->connect_us) / 1000, s->ttfb_us / 1000, s->new_conns);
            wfile_commit(&l->data, n > 0 ? (size_t)n : 0);
        }
    }
}

/* ---------------------------------------------------------------- the out_ log */

/* One column of the table: 13 wide, and always 2 spaces before the next, so
 * that splitting on two or more spaces finds it. */
static void col(FILE *f, const char *s)
{
    size_t n = strlen(s);
    fprintf(f, "%s%*s", s, (int)(n + 2 > 13 ? 2 : 13 - n), "");
}

static void colf(FILE *f, double v)
{
    char tmp[48];
    snprintf(tmp, sizeof(tmp), "%.2f", v);
    col(f, tmp);
}

static void row(FILE *f, const char *id, const glog_stat *g, double secs)
{
    char tmp[48];
    double n = (double)g->tests;
    double mean = n > 0 ? g->sum_ms / n : 0., var = n > 0 ? g->sumsq_ms / n - mean * mean : 0.;

    col(f, id);
    snprintf(tmp, sizeof(tmp), "%" PRIu64, g->tests);
    col(f, tmp);
    snprintf(tmp, sizeof(tmp), "%" PRIu64, g->errors);
    col(f, tmp);
    colf(f, mean);
    colf(f, var > 0 ? sqrt(var) : 0.);
    colf(f, secs > 0 ? n / secs : 0.);
    colf(f, n > 0 ? g->bytes / n : 0.);
    colf(f, secs > 0 ? g->bytes / secs : 0.);
    snprintf(tmp, sizeof(tmp), "%" PRIu64, g->resp_errors);
    col(f, tmp);
    colf(f, n > 0 ? g->dns_ms / n : 0.);
    colf(f, n > 0 ? g->conn_ms / n : 0.);
    snprintf(tmp, sizeof(tmp), "%.2f", n > 0 ? g->ttfb_ms / n : 0.);
    fputs(tmp, f);
}

/* "2013-01-05 11:06:13,412 INFO  HOST-N: " */
static void stamp(FILE *f, const glog *l, int64_t wall_us)
{
    time_t t = (time_t)(wall_us / 1000000);
    struct tm tm;
    char d[32];

    localtime_r(&t, &tm);
    strftime(d, sizeof(d), "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(f, "%s,%03d INFO  %s: ", d, (int)(wall_us / 1000 % 1000), l->process);
}

static int write_out(glog *l, const scen_set *ss, int64_t elapsed_us, char *err, size_t errlen)
{
    FILE *f = fopen(l->out_path, "we");
    double secs = (double)elapsed_us / 1e6;
    glog_stat tot;
    int64_t now = clock_wall_us();

    if (f == NULL) {
        err_set(err, errlen, "%s: %s", l->out_path, strerror(errno));
        return -1;
    }
    memset(&tot, 0, sizeof(tot));
    stamp(f, l, l->start_wall_us ? l->start_wall_us : now);
    fprintf(f, "The Grinder 3 worker log format, written by quern %s\n", QUERN_VERSION);
    stamp(f, l, l->start_wall_us ? l->start_wall_us : now);
    fprintf(f, "start time is %" PRId64 " ms since Epoch\n",
            (l->start_wall_us ? l->start_wall_us : now) / 1000);
    stamp(f, l, now);
    fprintf(f, "elapsed time is %" PRId64 " ms\n", elapsed_us / 1000);
    stamp(f, l, now);
    fputs("Final statistics for this process:\n", f);
    stamp(f, l, now);
    fputs("\n"
          "             Tests        Errors       Mean Test    Test Time    TPS          Mean  "
          "       Response     Response     Mean time to Mean time to Mean time to \n"
          "                                       Time (ms)    Standard                  "
          "response     bytes per    errors       resolve host establish    first byte   \n"
          "                                                    Deviation                 length "
          "      second                                 connection                \n"
          "                                                    (ms)                              "
          "                                                                      \n"
          "\n",
          f);
    for (size_t i = 0; i < l->nsteps && i < ss->nsteps; i++) {
        const glog_stat *g = &l->st[i];
        char id[32], name[512];
        if (g->tests + g->errors == 0)
            continue;
        snprintf(id, sizeof(id), "Test %zu", i + 1);
        row(f, id, g, secs);
        /* The plugin splits on two spaces and strips quotes: keep neither. */
        snprintf(name, sizeof(name), "%s", ss->steps[i]->name);
        for (char *c = name; *c != '\0'; c++) {
            if (*c == '"')
                *c = '\'';
            else if (*c == ' ' && c[1] == ' ')
                *c = '_';
        }
        fprintf(f, "%*s\"%s\"\n", 8, "", name);
        tot.tests += g->tests;
        tot.errors += g->errors;
        tot.resp_errors += g->resp_errors;
        tot.sum_ms += g->sum_ms;
        tot.sumsq_ms += g->sumsq_ms;
        tot.bytes += g->bytes;
        tot.dns_ms += g->dns_ms;
        tot.conn_ms += g->conn_ms;
        tot.ttfb_ms += g->ttfb_ms;
    }
    fputs("\n", f);
    row(f, "Totals", &tot, secs);
    fputs("\n\n"
          "  Tests resulting in error only contribute to the Errors column.          \n"
          "  Statistics for individual tests can be found in the data file, including\n"
          "  (possibly incomplete) statistics for erroneous tests. Composite tests   \n"
          "  are marked with () and not included in the totals.                      \n"
          "\n",
          f);
    if (ferror(f) || fclose(f) != 0) {
        err_set(err, errlen, "%s: write failed", l->out_path);
        return -1;
    }
    return 0;
}

int glog_end(glog *g, const scen_set *ss, int64_t elapsed_us, char *err, size_t errlen)
{
    int rc = 0;

    if (g->data.fd >= 0 && wfile_close(&g->data) != 0) {
        err_set(err, errlen, "Grinder data log: %s", strerror(g->data.err));
        rc = -1;
    }
    if (g->out_path != NULL && write_out(g, ss, elapsed_us, err, errlen) != 0)
        rc = -1;
    return rc;
}

void glog_close(glog *g)
{
    wfile_close(&g->data);
    xfree(g->out_path);
    g->out_path = NULL;
    xfree(g->st);
    g->st = NULL;
    g->nsteps = 0;
}

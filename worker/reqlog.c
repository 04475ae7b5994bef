#include "worker/reqlog.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/lbuf.h"
#include "common/clock.h"
#include "common/mem.h"
#include "common/redact.h"
#include "worker/engine_int.h"
#include "common/version.h"
#include "worker/scen.h"
#include "worker/vu.h"

/* ---------------------------------------------------------------- the buffered file */

int reqlog_file_open(reqlog_file *f, const char *path, size_t cap, char *err, size_t errlen)
{
    memset(f, 0, sizeof(*f));
    f->fd = -1;
    if (cap < REQLOG_LINE_MAX) {
        snprintf(err, errlen, "%s: buffer too small", path);
        return -1;
    }
    f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    f->buf = xmalloc(cap);
    f->cap = cap;
    return 0;
}

int reqlog_file_flush(reqlog_file *f)
{
    size_t off = 0;

    if (f->fd < 0 || f->err != 0) {
        f->len = 0;
        return f->err != 0 ? -1 : 0;
    }
    while (off < f->len) {
        ssize_t n = write(f->fd, f->buf + off, f->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->err = n < 0 ? errno : EIO;
            f->len = 0;
            return -1;
        }
        off += (size_t)n;
    }
    f->flushes++;
    f->len = 0;
    return 0;
}

char *reqlog_file_reserve(reqlog_file *f)
{
    if (f->fd < 0 || f->err != 0) {
        f->dropped++;
        return NULL;
    }
    if (f->cap - f->len < REQLOG_LINE_MAX && reqlog_file_flush(f) != 0) {
        f->dropped++;
        return NULL;
    }
    return f->buf + f->len;
}

void reqlog_file_commit(reqlog_file *f, size_t n)
{
    f->len += n < REQLOG_LINE_MAX ? n : REQLOG_LINE_MAX;
    f->lines++;
}

void reqlog_file_append(reqlog_file *f, const char *p, size_t n)
{
    while (n > 0 && f->fd >= 0 && f->err == 0) {
        size_t room = f->cap - f->len, k = n < room ? n : room;
        memcpy(f->buf + f->len, p, k);
        f->len += k;
        p += k;
        n -= k;
        if (f->len == f->cap && reqlog_file_flush(f) != 0)
            return;
    }
}

int reqlog_file_close(reqlog_file *f)
{
    int rc = 0;

    if (f->fd >= 0) {
        rc = reqlog_file_flush(f);
        if (close(f->fd) != 0 && rc == 0) {
            f->err = errno;
            rc = -1;
        }
        f->fd = -1;
    }
    xfree(f->buf);
    f->buf = NULL;
    f->len = f->cap = 0;
    return f->err != 0 ? -1 : rc;
}

/* ---------------------------------------------------------------- formatting */

/* A CSV field cut to at most max bytes of output. */
static void csv_field(lbuf *w, const char *s, size_t max)
{
    size_t room = w->cap - w->len;
    w->len += reqlog_csv_field(w->p + w->len, room < max ? room : max, s);
}

size_t reqlog_csv_field(char *out, size_t room, const char *s)
{
    size_t n = 0;
    int quote;

    if (s == NULL)
        return 0;
    quote = strpbrk(s, ",\"\r\n") != NULL;
    if (!quote) {
        n = strlen(s);
        if (n > room)
            n = room;
        memcpy(out, s, n);
        return n;
    }
    if (room < 2)
        return 0;
    out[n++] = '"';
    for (; *s != '\0'; s++) {
        size_t need = *s == '"' ? 2 : 1;
        if (n + need + 1 > room) /* keep room for the closing quote */
            break;
        out[n++] = *s;
        if (*s == '"')
            out[n++] = '"';
    }
    out[n++] = '"';
    return n;
}

size_t reqlog_jtl_line(char *out, size_t room, const reqlog_jtl *r, size_t *threads_at)
{
    lbuf w = {out, 0, room};

    /* Budgets keep the line under REQLOG_LINE_MAX whatever the strings. */
    lbuf_fmt(&w, "%" PRId64 ",%" PRId64 ",", r->start_ms, r->elapsed_ms);
    csv_field(&w, r->label, 600);
    lbuf_put(&w, ",", 1);
    csv_field(&w, r->code, 200);
    lbuf_put(&w, ",", 1);
    csv_field(&w, r->message, 400);
    lbuf_put(&w, ",", 1);
    csv_field(&w, r->thread, 300);
    lbuf_fmt(&w, ",text,%s,", r->success ? "true" : "false");
    csv_field(&w, r->failure, 400);
    lbuf_fmt(&w, ",%" PRIu64 ",%" PRIu64 ",", r->bytes, r->sent);
    if (threads_at != NULL)
        *threads_at = w.len;
    lbuf_fmt(&w, "%u,%u,", r->grp, r->all);
    csv_field(&w, r->url, 1100);
    lbuf_fmt(&w, ",%" PRId64 ",0,%" PRId64 "\n", r->latency_ms, r->connect_ms);
    if (w.len == w.cap) /* cut: the line still ends */
        w.p[w.len - 1] = '\n';
    return w.len;
}

/* ---------------------------------------------------------------- the worker's logs */

/* What the last transfers of one VU left for its pending sample. */
typedef struct vslot {
    uint32_t seq; /**< the sample they belong to */
    int status, curl_rc;
    char url[REQLOG_URL_MAX];
} vslot;

/* A step's totals for the out_ table (successful samples, but errors). */
typedef struct gstat {
    uint64_t tests, errors, resp_errors;
    double sum_ms, sumsq_ms, bytes, dns_ms, conn_ms, ttfb_ms;
} gstat;

struct reqlog {
    reqlog_cfg cfg;
    reqlog_file jtl, data;
    char *out_path; /**< owned: NULL when no out_ log */
    char agent[128], process[160];
    vslot *slots; /**< owned: one per VU of the worker */
    uint32_t vu_first, vu_stride, vu_count;
    gstat *g; /**< owned: one per step */
    size_t nsteps;
    int64_t start_wall_us; /**< first sample, for the out_ log */
};

reqlog *reqlog_new(const reqlog_cfg *cfg, char *err, size_t errlen)
{
    reqlog *l = xcalloc(1, sizeof(*l));

    l->jtl.fd = l->data.fd = -1;
    snprintf(l->agent, sizeof(l->agent), "%s", cfg->agent != NULL ? cfg->agent : "local");
    snprintf(l->process, sizeof(l->process), "%s", cfg->process != NULL ? cfg->process : "local-0");
    l->cfg = *cfg;
    l->cfg.agent = l->cfg.process = NULL; /* copied above */
    if (cfg->jtl_path != NULL &&
        reqlog_file_open(&l->jtl, cfg->jtl_path, REQLOG_BUF_BYTES, err, errlen) != 0)
        goto fail;
    if (cfg->data_path != NULL) {
        if (reqlog_file_open(&l->data, cfg->data_path, REQLOG_BUF_BYTES, err, errlen) != 0)
            goto fail;
        reqlog_file_append(&l->data, REQLOG_GRINDER_HEADER "\n",
                           sizeof(REQLOG_GRINDER_HEADER "\n") - 1);
    }
    if (cfg->out_path != NULL)
        l->out_path = xstrdup(cfg->out_path);
    l->cfg.jtl_path = l->cfg.data_path = l->cfg.out_path = NULL;
    return l;
fail:
    reqlog_free(l);
    return NULL;
}

void reqlog_begin(reqlog *l, size_t nsteps, uint32_t vu_first, uint32_t vu_stride,
                  uint32_t vu_count)
{
    xfree(l->slots);
    xfree(l->g);
    l->slots = xcalloc(vu_count ? vu_count : 1, sizeof(*l->slots));
    l->g = xcalloc(nsteps ? nsteps : 1, sizeof(*l->g));
    l->nsteps = nsteps;
    l->vu_first = vu_first;
    l->vu_stride = vu_stride ? vu_stride : 1;
    l->vu_count = vu_count;
}

static uint32_t vu_local(const reqlog *l, const vu *v)
{
    return v->gid >= l->vu_first ? (v->gid - l->vu_first) / l->vu_stride : 0;
}

static vslot *slot_of(reqlog *l, const vu *v)
{
    uint32_t i = vu_local(l, v);
    return l->slots != NULL && i < l->vu_count ? &l->slots[i] : NULL;
}

static const char *reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 101:
        return "Switching Protocols";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 206:
        return "Partial Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 303:
        return "See Other";
    case 304:
        return "Not Modified";
    case 307:
        return "Temporary Redirect";
    case 308:
        return "Permanent Redirect";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "";
    }
}

static int64_t to_wall_ms(const engine *e, int64_t mono_us)
{
    return (e->t0_wall_us + (mono_us - e->t0_us)) / 1000;
}

/* Writes one JTL line; code and message come from status or the curl error. */
static void jtl_write(reqlog *l, vu *v, reqlog_jtl *r, int status, int curl_rc, const char *cmsg)
{
    char code[96], msg[256], thread[192], fail[VU_MSG_MAX + 64];
    char line[REQLOG_LINE_MAX - REQLOG_JTL_PREFIX_MAX];
    char *out = reqlog_file_reserve(&l->jtl);
    size_t n, at = 0;
    int k;

    if (out == NULL)
        return;
    if (status > 0) {
        snprintf(code, sizeof(code), "%d", status);
        snprintf(msg, sizeof(msg), "%s", reason(status));
    } else {
        char tmp[sizeof(msg)];
        snprintf(code, sizeof(code), "Non HTTP response code: %s",
                 curl_easy_strerror((CURLcode)curl_rc));
        snprintf(tmp, sizeof(tmp), "Non HTTP response message: %s", cmsg);
        redact_url(tmp, msg, sizeof(msg));
    }
    if (r->failure[0] != '\0') { /* an error's message may name a URL */
        redact_url(r->failure, fail, sizeof(fail));
        r->failure = fail;
    }
    snprintf(thread, sizeof(thread), "%s %u-%u", l->agent, l->cfg.worker + 1, v->gid);
    r->code = code;
    r->message = msg;
    r->thread = thread;
    /* The worker's count, and what the console needs to write the run's
     * (see REQLOG_JTL_PREFIX): the second the sample counts in. */
    r->grp = r->all = v->eng->active;
    n = reqlog_jtl_line(line, sizeof(line), r, &at);
    k = snprintf(out, REQLOG_JTL_PREFIX_MAX, REQLOG_JTL_PREFIX, v->eng->second, v->eng->active, at);
    if (k <= 0 || (size_t)k >= REQLOG_JTL_PREFIX_MAX)
        return;
    memcpy(out + k, line, n);
    reqlog_file_commit(&l->jtl, (size_t)k + n);
}

void reqlog_xfer(reqlog *l, vu *v)
{
    const xfer_result *x = &v->x;
    const sample *p = &v->pend;
    const char *url = NULL;
    char buf[REQLOG_URL_MAX];
    long redirects = 0;
    vslot *s;

    /* The URL as written: its password redacted once per URL by the cache. */
    curl_easy_getinfo(v->xh->easy, CURLINFO_EFFECTIVE_URL, &url);
    curl_easy_getinfo(v->xh->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    url = urlc_shown(v->url, url != NULL ? url : "", redirects, buf, sizeof(buf));
    if (p->step >= 0 && v->xfer_timed) {
        s = slot_of(l, v);
        if (s == NULL)
            return;
        if (s->seq != p->seq || p->err == SAMPLE_OK) {
            /* The first error's status is the sample's, as its message is. */
            s->status = x->status;
            s->curl_rc = x->curl_rc;
        }
        s->seq = p->seq;
        snprintf(s->url, sizeof(s->url), "%s", url);
        return;
    }
    if (l->jtl.fd >= 0) {
        /* An untimed request: its line now, labelled with its path. */
        char label[256] = "http", fail[VU_MSG_MAX] = "";
        const char *a = strstr(url, "://"), *b;
        int ok = x->curl_rc == CURLE_OK && x->status < 400;
        reqlog_jtl r;

        a = a != NULL ? strchr(a + 3, '/') : NULL;
        if (a != NULL) {
            b = a + strcspn(a, "?#");
            snprintf(label, sizeof(label), "%.*s", (int)(b - a < 255 ? b - a : 255), a);
        }
        if (x->curl_rc != CURLE_OK)
            snprintf(fail, sizeof(fail), "%s",
                     v->xh->errbuf[0] ? v->xh->errbuf : curl_easy_strerror((CURLcode)x->curl_rc));
        else if (x->status >= 400)
            snprintf(fail, sizeof(fail), "HTTP status %d", x->status);
        memset(&r, 0, sizeof(r));
        r.start_ms = to_wall_ms(v->eng, x->start_us);
        r.elapsed_ms = x->elapsed_us / 1000;
        r.label = label;
        r.success = ok;
        r.failure = fail;
        r.bytes = x->bytes_in;
        r.sent = x->bytes_out;
        r.url = url;
        r.latency_ms = x->ttfb_us / 1000;
        r.connect_ms = (x->dns_us + x->connect_us + x->tls_us) / 1000;
        jtl_write(l, v, &r, x->status, x->curl_rc, fail);
    }
}

void reqlog_sample(reqlog *l, vu *v)
{
    const sample *p = &v->pend;
    vslot *s = slot_of(l, v);
    int status = 0, curl_rc = 0, ok = p->err == SAMPLE_OK;
    const char *url = "";
    int64_t start_ms = to_wall_ms(v->eng, p->start_us);
    int64_t el_ms = p->elapsed_us > 0 ? p->elapsed_us / 1000 : 0;
    step *st;

    if (p->step < 0 || (size_t)p->step >= v->eng->scens.nsteps)
        return;
    st = v->eng->scens.steps[p->step];
    if (s != NULL && s->seq == p->seq) {
        status = s->status;
        curl_rc = s->curl_rc;
        url = s->url;
    }
    if (l->start_wall_us == 0 || start_ms * 1000 < l->start_wall_us)
        l->start_wall_us = start_ms * 1000;
    if (l->jtl.fd >= 0) {
        reqlog_jtl r;
        memset(&r, 0, sizeof(r));
        r.start_ms = start_ms;
        r.elapsed_ms = el_ms;
        r.label = st->name;
        r.success = ok;
        r.failure = ok ? "" : p->msg;
        r.bytes = p->bytes_in;
        r.sent = p->bytes_out;
        r.url = url;
        r.latency_ms = (int64_t)p->ttfb / 1000;
        r.connect_ms = (int64_t)(p->dns + p->connect + p->tls) / 1000;
        jtl_write(l, v, &r, status, curl_rc, p->msg);
    }
    if (l->g != NULL && (size_t)p->step < l->nsteps) {
        gstat *g = &l->g[p->step];
        double ms = (double)el_ms;
        if (ok) {
            g->tests++;
            g->sum_ms += ms;
            g->sumsq_ms += ms * ms;
            g->bytes += (double)p->bytes_in;
            g->dns_ms += (double)p->dns / 1000.;
            g->conn_ms += (double)(p->dns + p->connect) / 1000.;
            g->ttfb_ms += (double)p->ttfb / 1000.;
        } else {
            g->errors++;
        }
        if (status >= 400)
            g->resp_errors++;
    }
    if (l->data.fd >= 0) {
        char *out = reqlog_file_reserve(&l->data);
        if (out != NULL) {
            int n =
                snprintf(out, REQLOG_LINE_MAX,
                         "%u, %u, %d, %" PRId64 ", %" PRId64 ", %d, %d, %" PRIu64 ", %d, %" PRIu64
                         ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
                         vu_local(l, v), v->run > 0 ? v->run - 1 : 0, st->index + 1, start_ms,
                         el_ms, ok ? 0 : 1, status, p->bytes_in, status >= 400 ? 1 : 0,
                         p->dns / 1000, (p->dns + p->connect) / 1000, p->ttfb / 1000, p->new_conns);
            reqlog_file_commit(&l->data, n > 0 ? (size_t)n : 0);
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

static void row(FILE *f, const char *id, const gstat *g, double secs)
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
static void stamp(FILE *f, const reqlog *l, int64_t wall_us)
{
    time_t t = (time_t)(wall_us / 1000000);
    struct tm tm;
    char d[32];

    localtime_r(&t, &tm);
    strftime(d, sizeof(d), "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(f, "%s,%03d INFO  %s: ", d, (int)(wall_us / 1000 % 1000), l->process);
}

static int write_out(reqlog *l, const scen_set *ss, int64_t elapsed_us, char *err, size_t errlen)
{
    FILE *f = fopen(l->out_path, "we");
    double secs = (double)elapsed_us / 1e6;
    gstat tot;
    int64_t now = clock_wall_us();

    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", l->out_path, strerror(errno));
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
        const gstat *g = &l->g[i];
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
        snprintf(err, errlen, "%s: write failed", l->out_path);
        return -1;
    }
    return 0;
}

int reqlog_end(reqlog *l, const scen_set *ss, int64_t elapsed_us, char *err, size_t errlen)
{
    int rc = 0;

    if (l->jtl.fd >= 0 && reqlog_file_close(&l->jtl) != 0) {
        snprintf(err, errlen, "JTL: %s", strerror(l->jtl.err));
        rc = -1;
    }
    if (l->data.fd >= 0 && reqlog_file_close(&l->data) != 0) {
        snprintf(err, errlen, "Grinder data log: %s", strerror(l->data.err));
        rc = -1;
    }
    if (l->out_path != NULL && write_out(l, ss, elapsed_us, err, errlen) != 0)
        rc = -1;
    return rc;
}

void reqlog_free(reqlog *l)
{
    if (l == NULL)
        return;
    reqlog_file_close(&l->jtl);
    reqlog_file_close(&l->data);
    xfree(l->out_path);
    xfree(l->slots);
    xfree(l->g);
    xfree(l);
}

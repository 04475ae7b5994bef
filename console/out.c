/* out — the push outputs of `quern run --out`; see out.h. */
#include "console/out.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/ofile.h"
#include "common/redact.h"
#include "console/outinflux.h"
#include "console/outjsonl.h"
#include "console/outprw.h"

enum kind { KIND_JSONL, KIND_INFLUX, KIND_PRW };

static const char *const kind_names[] = {"jsonl", "influxdb", "prometheus-rw"};

/* One rendered push waiting to go. */
typedef struct push {
    void *body; /* owned */
    size_t len;
    int final;     /* the totals, not a second */
    int64_t ts_ms; /* remote write: body is the text, encoded when sent, stamped ts_ms */
} push;

/* One output and its sending thread. */
typedef struct output {
    enum kind kind;
    const char *target; /* borrowed from argv */
    char shown[512];    /* target, redacted: what messages say */
    ofile file;         /* jsonl's file (file.path NULL: none) */
    FILE *f;            /* owned by file: its stream */
    pthread_t thread;
    int started;
    pthread_mutex_t mu;  /* guards what follows */
    pthread_cond_t cond; /* a push queued, the queue drained, or stopping */
    push q[OUT_QUEUE_MAX];
    size_t head, n;
    int busy;     /* the thread is sending one */
    int stopping; /* send what is queued, then end */
    int abort;    /* end now: the end's wait is over */
    uint64_t sent, lost, lost_seconds, lost_final;
    int64_t last_ts_ms; /* the last push's stamp: each is stamped after it */
    char last_err[ERR_MAX];
    const struct curl_slist *headers; /* borrowed: the outs' */
    const char *run;                  /* borrowed: the outs' run name */
    const props *tags;                /* borrowed: --tag (the options outlive the thread) */
} output;

struct outs {
    output o[OUT_MAX];
    size_t n;
    struct curl_slist *headers;     /* owned: --out-header lines */
    struct curl_slist *prw_headers; /* owned: them and remote write's own */
    char run[256];
    uint32_t vus_max;
};

static int kind_of(const char *spec, const char **target)
{
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(kind_names[k]);
        if (strncmp(spec, kind_names[k], n) == 0 && spec[n] == '=' && spec[n + 1] != '\0') {
            *target = spec + n + 1;
            return k;
        }
    }
    return -1;
}

const char *out_redact(const char *url, char *buf, size_t buflen)
{
    redact_url(url, buf, buflen);
    return buf;
}

int out_check(const run_opts *o)
{
    for (size_t i = 0; i < o->nout; i++) {
        const char *t;
        int k = kind_of(o->out[i], &t);
        if (k < 0) {
            fprintf(stderr,
                    "quern run: --out %s: expected jsonl=FILE, influxdb=URL or "
                    "prometheus-rw=URL\n",
                    o->out[i]);
            return -1;
        }
        if (k != KIND_JSONL && strncmp(t, "http://", 7) != 0 && strncmp(t, "https://", 8) != 0) {
            char shown[512];
            fprintf(stderr, "quern run: --out %s=%s: the URL must be http:// or https://\n",
                    kind_names[k], out_redact(t, shown, sizeof(shown)));
            return -1;
        }
    }
    for (size_t i = 0; i < o->nout_header; i++) {
        const char *h = o->out_header[i], *c = strchr(h, ':');
        if (c == NULL || c == h || strpbrk(h, "\r\n") != NULL) {
            fprintf(stderr, "quern run: --out-header: expected 'Name: value' on one line\n");
            return -1;
        }
    }
    return 0;
}

/* Ends a try once the end's wait is over. */
static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    output *op = ud;
    int stop;

    (void)dt, (void)dn, (void)ut, (void)un;
    pthread_mutex_lock(&op->mu);
    stop = op->abort;
    pthread_mutex_unlock(&op->mu);
    return stop;
}

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
    (void)p, (void)ud;
    return size * n;
}

/* One try of an HTTP push: 0 when the receiver took it (2xx). */
static int post(output *op, CURL *h, const push *p, char *err, size_t errlen)
{
    long status = 0;
    CURLcode rc;

    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, op->target);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, p->body);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)p->len);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, op->headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)OUT_TRY_MS);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)OUT_TRY_MS);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, op);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    rc = curl_easy_perform(h);
    if (rc != CURLE_OK) {
        err_set(err, errlen, "%s", curl_easy_strerror(rc));
        return -1;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299) {
        err_set(err, errlen, "HTTP status %ld", status);
        return -1;
    }
    return 0;
}

/* Sends p (up to OUT_TRIES tries, 200 ms apart): 0 when it went. */
static int send_one(output *op, CURL *h, const push *p, char *err, size_t errlen)
{
    if (op->kind == KIND_JSONL) {
        if (fwrite(p->body, 1, p->len, op->f) != p->len || fflush(op->f) != 0) {
            err_set(err, errlen, "%s", strerror(errno));
            return -1;
        }
        return 0;
    }
    for (int t = 0; t < OUT_TRIES; t++) {
        int stop;
        if (post(op, h, p, err, errlen) == 0)
            return 0;
        pthread_mutex_lock(&op->mu);
        stop = op->abort;
        pthread_mutex_unlock(&op->mu);
        if (stop)
            return -1;
        if (t + 1 < OUT_TRIES)
            nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    }
    return -1;
}

static void count_lost(output *op, const push *p)
{
    op->lost++;
    if (p->final)
        op->lost_final = 1;
    else
        op->lost_seconds++;
}

static void *sender(void *ud)
{
    output *op = ud;
    CURL *h = op->kind == KIND_JSONL ? NULL : curl_easy_init();

    pthread_mutex_lock(&op->mu);
    for (;;) {
        push p;
        char err[ERR_MAX] = "";
        int ok;
        while (op->n == 0 && !op->stopping && !op->abort)
            pthread_cond_wait(&op->cond, &op->mu);
        if (op->abort || op->n == 0)
            break;
        p = op->q[op->head];
        op->head = (op->head + 1) % OUT_QUEUE_MAX;
        op->n--;
        op->busy = 1;
        pthread_mutex_unlock(&op->mu);
        if (op->kind == KIND_PRW) { /* encoded here: it costs several times the text */
            size_t len = 0;
            uint8_t *pb = outprw_encode(p.body, op->run, op->tags, p.ts_ms, &len);
            xfree(p.body);
            p.body = pb;
            p.len = len;
            err_set(err, sizeof(err), "a push would pass %u bytes", OUT_PUSH_MAX);
        }
        ok = p.body != NULL && send_one(op, h, &p, err, sizeof(err)) == 0;
        xfree(p.body);
        pthread_mutex_lock(&op->mu);
        op->busy = 0;
        if (ok) {
            op->sent++;
        } else {
            count_lost(op, &p);
            /* an abort at the end's deadline keeps the receiver's own failure */
            if (!op->abort || op->last_err[0] == '\0')
                err_set(op->last_err, sizeof(op->last_err), "%s",
                        op->abort ? "the end's wait was over" : err);
        }
        pthread_cond_broadcast(&op->cond);
    }
    pthread_mutex_unlock(&op->mu);
    if (h != NULL)
        curl_easy_cleanup(h);
    return NULL;
}

/* The "Authorization: Bearer TOKEN" line of --out-token-file into line
 * (linelen bytes): 0, or -1 with a message in err. */
static int token_header(const char *path, char *line, size_t linelen, char *err, size_t errlen)
{
    char tok[OUT_TOKEN_MAX + 2];
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL) {
        err_set(err, errlen, "--out-token-file %s: %s", path, strerror(errno));
        return -1;
    }
    n = fread(tok, 1, sizeof(tok) - 1, f);
    fclose(f);
    tok[n] = '\0';
    while (n > 0 && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
        tok[--n] = '\0';
    if (n == 0 || n > OUT_TOKEN_MAX || strpbrk(tok, "\r\n") != NULL) {
        err_set(err, errlen, "--out-token-file %s: expected one line of 1 to %d bytes", path,
                OUT_TOKEN_MAX);
        return -1;
    }
    snprintf(line, linelen, "Authorization: Bearer %s", tok);
    memset(tok, 0, sizeof(tok));
    return 0;
}

outs *out_start(const run_opts *o, char *err, size_t errlen)
{
    outs *s;

    err[0] = '\0';
    if (o->nout == 0)
        return NULL;
    s = xcalloc(1, sizeof(*s));
    db_opts_name(&o->db, o->script, s->run, sizeof(s->run));
    s->vus_max = o->vus;
    for (size_t i = 0; i < o->nout_header; i++) {
        s->headers = curl_slist_append(s->headers, o->out_header[i]);
        s->prw_headers = curl_slist_append(s->prw_headers, o->out_header[i]);
    }
    if (o->out_token_file != NULL) {
        char line[OUT_TOKEN_MAX + 32];
        if (token_header(o->out_token_file, line, sizeof(line), err, errlen) != 0) {
            out_free(s);
            return NULL;
        }
        s->headers = curl_slist_append(s->headers, line);
        s->prw_headers = curl_slist_append(s->prw_headers, line);
        memset(line, 0, sizeof(line));
    }
    s->headers = curl_slist_append(s->headers, "Content-Type: text/plain; charset=utf-8");
    s->prw_headers = curl_slist_append(s->prw_headers, "Content-Encoding: snappy");
    s->prw_headers = curl_slist_append(s->prw_headers, "Content-Type: application/x-protobuf");
    s->prw_headers = curl_slist_append(s->prw_headers, "X-Prometheus-Remote-Write-Version: 0.1.0");
    s->prw_headers = curl_slist_append(s->prw_headers, "User-Agent: quern");
    for (size_t i = 0; i < o->nout; i++) {
        output *op = &s->o[s->n];
        const char *t;
        op->kind = (enum kind)kind_of(o->out[i], &t);
        op->target = t;
        out_redact(t, op->shown, sizeof(op->shown));
        op->headers = op->kind == KIND_PRW ? s->prw_headers : s->headers;
        op->run = s->run;
        op->tags = o->db.tags;
        pthread_mutex_init(&op->mu, NULL);
        pthread_cond_init(&op->cond, NULL);
        s->n++;
        if (op->kind == KIND_JSONL) {
            char oerr[ERR_MAX];
            if (ofile_open(&op->file, t, OFILE_REPLACE, oerr, sizeof(oerr)) != 0) {
                err_set(err, errlen, "--out jsonl=%s", oerr);
                out_free(s);
                return NULL;
            }
            op->f = ofile_stream(&op->file);
            if (op->f == NULL) {
                err_set(err, errlen, "--out jsonl=%s: %s", op->shown, strerror(errno));
                out_free(s);
                return NULL;
            }
        }
        if (pthread_create(&op->thread, NULL, sender, op) != 0) {
            err_set(err, errlen, "--out: cannot start a thread");
            out_free(s);
            return NULL;
        }
        op->started = 1;
        log_msg(LOG_INFO, "--out %s=%s", kind_names[op->kind], op->shown);
    }
    return s;
}

/* Queues body (owned); past OUT_QUEUE_MAX the oldest is dropped. */
static void enqueue(output *op, void *body, size_t len, int final, int64_t ts_ms)
{
    pthread_mutex_lock(&op->mu);
    if (body == NULL) {
        push p = {NULL, 0, final, 0};
        count_lost(op, &p);
        err_set(op->last_err, sizeof(op->last_err), "a push would pass %u bytes", OUT_PUSH_MAX);
    } else {
        if (op->n == OUT_QUEUE_MAX) {
            push *old = &op->q[op->head];
            count_lost(op, old);
            err_set(op->last_err, sizeof(op->last_err), "%d pushes pending", OUT_QUEUE_MAX);
            xfree(old->body);
            op->head = (op->head + 1) % OUT_QUEUE_MAX;
            op->n--;
        }
        /* Two seconds merged in one tick (agents late) are pushed in the
         * same millisecond: a receiver refuses a series' second sample at
         * one timestamp (Prometheus: HTTP 400), so each push is stamped
         * after the one before. */
        if (ts_ms <= op->last_ts_ms)
            ts_ms = op->last_ts_ms + 1;
        op->last_ts_ms = ts_ms;
        op->q[(op->head + op->n) % OUT_QUEUE_MAX] = (push){body, len, final, ts_ms};
        op->n++;
    }
    pthread_cond_broadcast(&op->cond);
    pthread_mutex_unlock(&op->mu);
}

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Renders in for every output and queues it. */
static void push_all(outs *s, const out_input *in)
{
    for (size_t i = 0; i < s->n; i++) {
        output *op = &s->o[i];
        size_t len = 0;
        void *body;
        if (op->kind == KIND_JSONL)
            body = outjsonl_render(in, &len);
        else if (op->kind == KIND_INFLUX)
            body = outinflux_render(in, &len);
        else
            body = outprw_text(in, &len);
        if (body != NULL && len > OUT_PUSH_MAX) {
            xfree(body);
            body = NULL;
        }
        enqueue(op, body, len, in->final, in->now_ns / 1000000);
    }
}

/* The input common to a second and the end; scens is filled here
 * (v->nsteps entries). */
static void input_init(const outs *s, const out_run *v, out_input *in, const char **scens)
{
    memset(in, 0, sizeof(*in));
    in->run = s->run;
    in->run_id = v->run_id;
    in->nsteps = v->nsteps;
    in->names = v->names;
    for (size_t i = 0; i < v->nsteps; i++) {
        scens[i] = "";
        /* "SC-<scenario>-STEP-<n>" names its scenario */
        for (size_t j = 0; j < v->nscens; j++) {
            size_t n = strlen(v->scen_names[j]);
            if (strncmp(v->ids[i], "SC-", 3) == 0 &&
                strncmp(v->ids[i] + 3, v->scen_names[j], n) == 0 &&
                strncmp(v->ids[i] + 3 + n, "-STEP-", 6) == 0)
                scens[i] = v->scen_names[j];
        }
    }
    in->scens = scens;
    in->tags = v->tags;
    in->a = v->a;
    in->vus_max = s->vus_max;
    in->now_ns = now_ns();
}

void out_second(outs *s, const out_run *v, uint64_t second, const interval_sum *sum, int late)
{
    const char **scens;
    out_input in;

    if (s == NULL)
        return;
    scens = xcalloc(v->nsteps + 1, sizeof(*scens));
    input_init(s, v, &in, scens);
    in.second = second;
    in.late = late;
    in.steps = sum->steps;
    in.vus = sum->active_vus;
    for (size_t i = 0; sum->arrivals != NULL && i < sum->nscens; i++)
        rate_counts_add(&in.arrivals, &sum->arrivals[i]);
    in.has_arrivals = agg_arrivals_all(v->a, &(rate_counts){0});
    in.tally = &sum->tally;
    in.seconds = 1;
    push_all(s, &in);
    xfree(scens);
}

/* Waits until op's queue is empty and its thread idle, or deadline. */
static void drain(output *op, const struct timespec *deadline)
{
    pthread_mutex_lock(&op->mu);
    op->stopping = 1;
    pthread_cond_broadcast(&op->cond);
    while ((op->n > 0 || op->busy) &&
           pthread_cond_timedwait(&op->cond, &op->mu, deadline) != ETIMEDOUT)
        ;
    op->abort = 1;
    pthread_cond_broadcast(&op->cond);
    pthread_mutex_unlock(&op->mu);
}

/* Stops op's thread; what is still queued is lost. */
static void stop(output *op)
{
    if (op->started)
        pthread_join(op->thread, NULL);
    op->started = 0;
    while (op->n > 0) {
        count_lost(op, &op->q[op->head]);
        xfree(op->q[op->head].body);
        op->head = (op->head + 1) % OUT_QUEUE_MAX;
        op->n--;
    }
}

void out_end(outs *s, const out_run *v)
{
    struct timespec deadline;

    if (s == NULL)
        return;
    if (v->a != NULL) {
        const char **scens = xcalloc(v->nsteps + 1, sizeof(*scens));
        out_input in;
        input_init(s, v, &in, scens);
        in.final = 1;
        in.second = v->a->intervals;
        in.steps = v->a->total;
        in.vus = v->a->active_vus;
        in.has_arrivals = agg_arrivals_all(v->a, &in.arrivals);
        in.tally = &v->a->tally;
        in.seconds = (double)v->a->elapsed_us / 1e6;
        push_all(s, &in);
        xfree(scens);
    }
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += OUT_END_WAIT_MS / 1000;
    for (size_t i = 0; i < s->n; i++)
        drain(&s->o[i], &deadline);
    for (size_t i = 0; i < s->n; i++) {
        output *op = &s->o[i];
        stop(op);
        if (op->lost > 0)
            log_msg(LOG_WARN,
                    "--out %s=%s: %" PRIu64 " of %" PRIu64 " pushes lost (%" PRIu64
                    " seconds%s; last: %s)",
                    kind_names[op->kind], op->shown, op->lost, op->lost + op->sent,
                    op->lost_seconds, op->lost_final ? " and the totals" : "",
                    op->last_err[0] != '\0' ? op->last_err : "not sent in time");
    }
}

void out_free(outs *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        output *op = &s->o[i];
        pthread_mutex_lock(&op->mu);
        op->abort = 1;
        pthread_cond_broadcast(&op->cond);
        pthread_mutex_unlock(&op->mu);
        stop(op);
        if (op->file.path != NULL) {
            /* kept whole, what was sent so far, even after a failure */
            char oerr[ERR_MAX];
            if (ofile_commit(&op->file, oerr, sizeof(oerr)) != 0)
                log_msg(LOG_WARN, "--out jsonl=%s", oerr);
        }
        pthread_cond_destroy(&op->cond);
        pthread_mutex_destroy(&op->mu);
    }
    curl_slist_free_all(s->headers);
    curl_slist_free_all(s->prw_headers);
    xfree(s);
}

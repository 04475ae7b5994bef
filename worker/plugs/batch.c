#include "worker/plugs/batch.h"

#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/engine/lcoro.h"
#include "worker/engine/lifecycle.h"
#include "worker/plugs/pageres.h"
#include "worker/plugs/reqlog.h"
#include "worker/wire/urlc.h"

batch *batch_prepare(vu *v, size_t n, enum batch_mode mode)
{
    batch *b = v->batch;

    if (b == NULL) {
        b = v->batch = xcalloc(1, sizeof(*b));
        b->v = v;
    }
    batch_finalize(b);
    /* The VU's own handle saves its cookies, which the batch's handles
     * then start from (vu_attach). */
    vu_release(v);
    if (v->jar_reset) {
        xfree(v->jar);
        v->jar = NULL;
        v->jar_gen++;
        v->jar_reset = 0;
    }
    if (n > b->cap) {
        b->it = xreallocarray(b->it, n, sizeof(*b->it));
        b->busy = xrealloc(b->busy, n);
        b->cap = n;
    }
    for (size_t i = 0; i < b->n; i++) {
        xfree(b->it[i].shown);
        b->it[i].shown = NULL;
    }
    memset(b->it, 0, n * sizeof(*b->it));
    memset(b->busy, 0, n);
    for (size_t i = 0; i < n; i++)
        b->it[i].s.step = -1;
    b->n = n;
    b->left = 0;
    b->mode = (uint8_t)mode;
    b->seq = mode == BATCH_ONE && v->pend.step >= 0 ? v->pend.seq : 0;
    b->err_item = -1;
    b->first_us = 0;
    return b;
}

void batch_take(batch *b, size_t i)
{
    xh *x = xh_get(b->v->eng);

    vu_attach(b->v, x);
    xh_begin(x);
    b->it[i].x = x;
}

void batch_set_url(batch *b, size_t i, const char *urlstr)
{
    batch_item *r = &b->it[i];

    r->urlstr = urlstr;
    r->origin_len = pageres_origin_len(urlstr);
    r->origin = (uint32_t)i;
    /* Once per batch, so that the pump counts by index, not by string. */
    for (size_t j = 0; j < i; j++) {
        const batch_item *o = &b->it[j];
        if (o->origin_len == r->origin_len && strncasecmp(o->urlstr, urlstr, r->origin_len) == 0) {
            r->origin = o->origin;
            break;
        }
    }
}

/* The sample item i adds to, NULL when untimed. */
static sample *batch_item_sample(batch *b, batch_item *r)
{
    vu *v = b->v;

    if (b->mode == BATCH_EACH)
        return r->s.step >= 0 ? &r->s : NULL;
    if (b->mode == BATCH_ONE && v->pend.step >= 0 && v->pend.seq == b->seq)
        return &v->pend;
    return NULL;
}

/* Item i is over (rc: how); its handle stays lent until batch_release. */
static void batch_item_done(batch *b, size_t i, CURLcode rc)
{
    batch_item *r = &b->it[i];
    sample *p = batch_item_sample(b, r);
    int had = p != NULL && p->err != SAMPLE_OK;

    r->how = BATCH_DONE;
    b->left--;
    vu_collect(b->v, r->x, r->url, rc, &r->res, p);
    if (b->mode == BATCH_ONE && p != NULL && !had && p->status_err)
        b->err_item = (int)i;
    if (p != NULL && engine_config(b->v->eng)->reqlog != NULL) {
        /* Others of the batch are noted before its sample is recorded, or
         * its error becomes the sample's later: its URL is kept for then
         * (batch_finalize, batch_accept). */
        const char *eff = NULL;
        long redirects = 0;
        char buf[REQLOG_URL_MAX];
        curl_easy_getinfo(r->x->easy, CURLINFO_EFFECTIVE_URL, &eff);
        curl_easy_getinfo(r->x->easy, CURLINFO_REDIRECT_COUNT, &redirects);
        r->shown = xstrdup(urlc_shown(r->url, eff != NULL ? eff : "", redirects, buf, sizeof(buf)));
    }
}

/* Starts the queued requests whose origin has room, in order. */
static void batch_pump(batch *b)
{
    engine *e = b->v->eng;

    for (size_t i = 0; i < b->n; i++) {
        batch_item *r = &b->it[i];
        if (r->how != BATCH_QUEUED || b->busy[r->origin] >= PAGERES_PER_HOST)
            continue;
        r->res.start_us = clock_mono_us();
        if (b->first_us == 0)
            b->first_us = r->res.start_us;
        if (r->s.step >= 0)
            r->s.start_us = r->res.start_us;
        if (curl_multi_add_handle(engine_multi(e), r->x->easy) != CURLM_OK) {
            err_set(r->x->errbuf, sizeof(r->x->errbuf), "cannot start the transfer");
            batch_item_done(b, i, CURLE_FAILED_INIT);
            continue;
        }
        r->how = BATCH_INFLIGHT;
        b->busy[r->origin]++;
    }
}

/* The last request is in: the batch's sample gets its time. */
static void batch_end(batch *b)
{
    vu *v = b->v;

    if (b->mode == BATCH_ONE && b->seq != 0 && v->pend.seq == b->seq && !v->pend.in_block &&
        b->first_us != 0) {
        v->pend.start_us = b->first_us; /* the requests built, the first one sent */
        v->pend.elapsed_us = clock_mono_us() - b->first_us;
    }
    b->kept = b->mode == BATCH_EACH;
}

void batch_start(batch *b)
{
    b->left = b->n;
    batch_pump(b);
    if (b->left == 0)
        batch_end(b);
}

/* What a batch set on a handle that others do not set again. */
static void batch_handle_back(xh *x)
{
    curl_easy_setopt(x->easy, CURLOPT_MIMEPOST, NULL); /* its body goes with the GC */
    curl_easy_setopt(x->easy, CURLOPT_FRESH_CONNECT, 0L);
}

/* Setup or teardown: a request that failed ends it, as a single one does
 * (lifecycle.h), judged as the VU's last transfer. Returns 1 when it did. */
static int batch_life_failed(batch *b)
{
    vu *v = b->v;
    size_t i;
    xh *x;

    for (i = 0; i < b->n; i++)
        if (b->it[i].res.curl_rc != CURLE_OK || b->it[i].res.status >= 400)
            break;
    if (i == b->n)
        return 0;
    x = b->it[i].x;
    b->it[i].x = NULL;
    batch_handle_back(x);
    batch_release(b);
    v->x = b->it[i].res;
    v->xh = x; /* the VU's now: its phase's end gives it back */
    return lifecycle_xfer_failed(v);
}

/* A transfer finished: when it is one of b's, handles it and returns 1
 * (the VU is resumed when it was the last); else 0. b may be NULL. */
static int xfer_done(batch *b, CURL *easy, CURLcode rc)
{
    vu *v;
    size_t i;

    if (b == NULL || b->left == 0)
        return 0;
    for (i = 0; i < b->n; i++)
        if (b->it[i].how == BATCH_INFLIGHT && b->it[i].x->easy == easy)
            break;
    if (i == b->n)
        return 0;
    v = b->v;
    curl_multi_remove_handle(engine_multi(v->eng), easy);
    b->busy[b->it[i].origin]--;
    batch_item_done(b, i, rc);
    batch_pump(b);
    if (b->left > 0)
        return 1;
    batch_end(b);
    /* As vu_xfer_resume, each request judged as a single one. */
    v->wait = VU_IDLE;
    if (engine_config(v->eng)->life != ENGINE_LIFE_LOAD && batch_life_failed(b))
        return 1;
    if (v->abandon) {
        v->abandon = 0;
        v->halting = 1; /* the script checks the responses, then halts */
    }
    lcoro_resume(v, 0); /* b may be reused from here: not touched after */
    return 1;
}

void batch_release(batch *b)
{
    engine *e = b->v->eng;

    for (size_t i = 0; i < b->n; i++) {
        batch_item *r = &b->it[i];
        if (r->x != NULL) {
            batch_handle_back(r->x);
            xh_put(e, r->x);
            r->x = NULL;
        }
        curl_slist_free_all(r->hdrs);
        r->hdrs = NULL;
        r->urlstr = NULL;
    }
}

void batch_finalize(batch *b)
{
    vu *v;
    sample keep;

    if (b == NULL || !b->kept)
        return;
    b->kept = 0;
    v = b->v;
    /* vu_record records v->pend: each sample goes through it in turn. */
    keep = v->pend;
    for (size_t i = 0; i < b->n; i++) {
        if (b->it[i].s.step < 0 || b->it[i].how != BATCH_DONE)
            continue;
        v->pend = b->it[i].s;
        if (b->it[i].shown != NULL)
            reqlog_note(engine_config(v->eng)->reqlog, v, &v->pend, b->it[i].res.status,
                        b->it[i].res.curl_rc, b->it[i].shown);
        vu_record(v);
    }
    v->pend = keep;
}

sample *batch_sample(batch *b, uint32_t seq)
{
    if (b == NULL || !b->kept || seq == 0)
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        if (b->it[i].s.step >= 0 && b->it[i].s.seq == seq)
            return &b->it[i].s;
    return NULL;
}

static void sample_clear_err(sample *s)
{
    s->err = SAMPLE_OK;
    s->status_err = 0;
    s->code = 0;
    s->msg[0] = '\0';
}

void batch_accept(batch *b, sample *s, size_t i)
{
    if (b == NULL || i >= b->n || b->mode != BATCH_ONE || b->seq != s->seq) {
        sample_clear_err(s); /* the response's own sample */
        return;
    }
    b->it[i].accepted = 1;
    if (b->err_item != (int)i)
        return; /* the sample's error is another request's */
    sample_clear_err(s);
    b->err_item = -1;
    if (b->v != NULL && b->v->ex_seq == s->seq)
        b->v->ex_seq = 0; /* the example was the accepted request's */
    for (size_t j = 0; j < b->n; j++) {
        const batch_item *r = &b->it[j];
        if (r->how != BATCH_DONE)
            continue;
        if (r->res.curl_rc != CURLE_OK) {
            if (b->v != NULL && engine_config(b->v->eng)->reqlog != NULL && r->shown != NULL)
                reqlog_note(engine_config(b->v->eng)->reqlog, b->v, s, r->res.status,
                            r->res.curl_rc, r->shown);
            s->err = SAMPLE_TECH;
            s->code = r->res.curl_rc;
            err_set(s->msg, sizeof(s->msg), "%s", curl_easy_strerror((CURLcode)r->res.curl_rc));
            return;
        }
        if (r->res.status >= 400 && !r->accepted) {
            if (b->v != NULL && engine_config(b->v->eng)->reqlog != NULL && r->shown != NULL)
                reqlog_note(engine_config(b->v->eng)->reqlog, b->v, s, r->res.status,
                            r->res.curl_rc,
                            r->shown); /* before the error: its status becomes the line's */
            s->err = SAMPLE_TECH;
            s->status_err = 1;
            s->code = r->res.status;
            err_set(s->msg, sizeof(s->msg), "HTTP status %d", r->res.status);
            b->err_item = (int)j;
            return;
        }
    }
}

void batch_abort(batch *b)
{
    if (b == NULL || b->left == 0)
        return; /* none in flight: a finished batch's samples stay pending */
    for (size_t i = 0; i < b->n; i++) {
        batch_item *r = &b->it[i];
        if (r->how == BATCH_INFLIGHT)
            curl_multi_remove_handle(engine_multi(b->v->eng), r->x->easy);
        r->how = BATCH_DONE;
        r->s.step = -1; /* not completed: not a sample */
    }
    b->left = 0;
    b->kept = 0;
    batch_release(b);
}

void batch_free(batch *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->n; i++) {
        batch_item *r = &b->it[i];
        if (r->x != NULL) {
            /* The engine's pool is gone by now: the handle goes with the batch. */
            curl_multi_remove_handle(engine_multi(b->v->eng), r->x->easy);
            xh_free(r->x);
        }
        curl_slist_free_all(r->hdrs);
        xfree(r->shown);
    }
    xfree(b->it);
    xfree(b->busy);
    xfree(b);
}

static int plug_xfer_done(vu *v, CURL *easy, CURLcode rc)
{
    return xfer_done(v->batch, easy, rc);
}

static void plug_abort(vu *v)
{
    batch_abort(v->batch);
}

static void plug_finalize(vu *v)
{
    batch_finalize(v->batch);
}

static void plug_free(vu *v)
{
    batch_free(v->batch);
    v->batch = NULL;
}

const plug batch_plug = {.name = "batch",
                         .xfer_done = plug_xfer_done,
                         .vu_abort = plug_abort,
                         .vu_finalize = plug_finalize,
                         .vu_free = plug_free};

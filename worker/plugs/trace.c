#include "worker/plugs/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/err.h"
#include "common/lbuf.h"
#include "common/utf8.h"
#include "common/mem.h"
#include "common/redact.h"
#include "worker/engine/engine.h"
#include "worker/wire/scen.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"

/* What one traced VU's transfer in flight left for its printout. */
typedef struct tslot {
    char method[16];
    size_t req_len;
    char req[TRACE_REQ_MAX]; /**< the request headers libcurl sent */
} tslot;

struct trace {
    unsigned mode;
    uint32_t nslots;
    tslot **slots; /**< owned: one per VU of the engine, each owned, made when first traced */
};

trace *trace_new(unsigned mode, uint32_t vu_count)
{
    trace *t;

    if (mode == 0)
        return NULL;
    t = xcalloc(1, sizeof(*t));
    t->mode = mode;
    t->nslots = vu_count;
    t->slots = xcalloc(vu_count ? vu_count : 1, sizeof(*t->slots));
    return t;
}

void trace_free(trace *t)
{
    if (t == NULL)
        return;
    for (uint32_t i = 0; i < t->nslots; i++)
        xfree(t->slots[i]);
    xfree(t->slots);
    xfree(t);
}

/* The slot of v if v is traced (made on first use), else NULL. */
static tslot *slot_of(trace *t, const vu *v, int make)
{
    size_t i = engine_vu_slot(v->eng, v);

    if (i >= t->nslots || (t->mode == 1 && v->gid != 1))
        return NULL;
    if (t->slots[i] == NULL && make)
        t->slots[i] = xcalloc(1, sizeof(**t->slots));
    return t->slots[i];
}

/* libcurl's debug callback: the request headers, as sent. */
static int on_debug(CURL *easy, curl_infotype type, char *data, size_t size, void *ud)
{
    tslot *s = ud;

    if (type == CURLINFO_HEADER_OUT) {
        size_t room = sizeof(s->req) - s->req_len;
        if (size > room)
            size = room;
        memcpy(s->req + s->req_len, data, size);
        s->req_len += size;
    }
    return 0;
}

void trace_request(trace *t, vu *v, CURL *easy, const char *method)
{
    tslot *s = slot_of(t, v, 1);

    if (s == NULL) {
        curl_easy_setopt(easy, CURLOPT_VERBOSE, 0L);
        return;
    }
    snprintf(s->method, sizeof(s->method), "%s", method);
    s->req_len = 0;
    curl_easy_setopt(easy, CURLOPT_DEBUGFUNCTION, on_debug);
    curl_easy_setopt(easy, CURLOPT_DEBUGDATA, s);
    curl_easy_setopt(easy, CURLOPT_VERBOSE, 1L);
}

/* ---------------------------------------------------------------- the printout */

static void headers(lbuf *o, const char *mark, const char *p, size_t n)
{
    const char *end = p + n;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol != NULL ? eol : end;
        size_t len = (size_t)(le - p);

        if (len > 0 && p[len - 1] == '\r')
            len--;
        lbuf_put(o, mark, strlen(mark));
        if ((len > 14 && strncasecmp(p, "Authorization:", 14) == 0) ||
            (len > 20 && strncasecmp(p, "Proxy-Authorization:", 20) == 0)) {
            /* "Authorization: Basic ***": the scheme, not the credentials */
            const char *v = memchr(p, ':', len) + 1, *sp;
            while (v < p + len && *v == ' ')
                v++;
            sp = memchr(v, ' ', (size_t)(p + len - v));
            lbuf_put(o, p, (size_t)((sp != NULL ? sp : v) - p));
            lbuf_put(o, sp != NULL ? " ***" : "***", sp != NULL ? 4 : 3);
        } else {
            /* A header may hold a URL (Location, Referer). */
            char line[2048], shown[2048 + 64];
            snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
                     p);
            redact_url(line, shown, sizeof(shown));
            lbuf_put(o, shown, strlen(shown));
        }
        lbuf_put(o, "\n", 1);
        p = le + 1;
    }
}

/* Writes o to stderr, whole unless stderr is closed. */
static void out(const lbuf *o)
{
    for (size_t done = 0; done < o->len;) {
        ssize_t n = write(STDERR_FILENO, o->p + done, o->len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* stderr closed: nothing more to do */
        done += (size_t)n;
    }
}

static double ms(int64_t us)
{
    return (double)us / 1000.;
}

void trace_response(trace *t, vu *v, CURLcode rc)
{
    tslot *s = slot_of(t, v, 0);
    static char buf[TRACE_OUT_MAX];
    lbuf o = {buf, 0, sizeof(buf)};
    const xfer_result *x = &v->x;
    const char *eff = NULL, *url, *sname = "untimed";
    char ubuf[2048];
    long redirects = 0;
    size_t body, nshow, off = 0;

    if (s == NULL)
        return;
    curl_easy_getinfo(v->xh->easy, CURLINFO_EFFECTIVE_URL, &eff);
    curl_easy_getinfo(v->xh->easy, CURLINFO_REDIRECT_COUNT, &redirects);
    url = urlc_shown(v->url, eff != NULL ? eff : "", redirects, ubuf, sizeof(ubuf));
    if (v->xfer_timed && v->pend.step >= 0 && (size_t)v->pend.step < engine_scens(v->eng)->nsteps)
        sname = engine_scens(v->eng)->steps[v->pend.step]->name;
    lbuf_fmt(&o, "--- VU %u, run %u, %s: %s %s%s%s\n", v->gid, v->run, sname, s->method, url,
             x->trace_id[0] != '\0' ? ", trace " : "", x->trace_id);
    headers(&o, "> ", s->req, s->req_len);
    if (x->status > 0) {
        headers(&o, "< ", v->xh->hdr.p != NULL ? v->xh->hdr.p : "", v->xh->hdr.len);
        body = v->xh->body.len + v->xh->body_dropped;
        /* At most TRACE_BODY_MAX bytes, cut between characters. */
        nshow = utf8_cut(v->xh->body.p, v->xh->body.len, TRACE_BODY_MAX);
        for (size_t i = 0; i < nshow; i++) {
            /* Bytes a terminal would take as commands are shown as '.'. */
            unsigned char c = (unsigned char)v->xh->body.p[i];
            char ch = c >= 0x20 && c != 0x7f ? (char)c : c == '\n' || c == '\t' ? (char)c : '.';
            lbuf_put(&o, &ch, 1);
            off = i + 1;
        }
        if (off > 0 && v->xh->body.p[off - 1] != '\n')
            lbuf_put(&o, "\n", 1);
        if (body > off)
            lbuf_fmt(&o, "[... %zu more bytes of the body]\n", body - off);
        lbuf_fmt(&o, "--- %d", x->status);
    } else {
        char err[ERR_MAX];
        redact_url(v->xh->errbuf[0] ? v->xh->errbuf : curl_easy_strerror(rc), err, sizeof(err));
        lbuf_fmt(&o, "--- no response: %s (curl error %d)", err, (int)rc);
    }
    lbuf_fmt(&o,
             " in %.2f ms (dns %.2f, connect %.2f, tls %.2f, ttfb %.2f, total %.2f ms), %" PRIu64
             " bytes in, %" PRIu64 " out\n",
             ms(x->fig.elapsed_us), ms(x->fig.dns_us), ms(x->fig.connect_us), ms(x->fig.tls_us),
             ms(x->fig.ttfb_us), ms(x->fig.elapsed_us), x->fig.bytes_in, x->fig.bytes_out);
    out(&o);
}

void trace_ws(trace *t, vu *v, const char *what, const char *mark, const char *text, size_t len)
{
    static char buf[TRACE_OUT_MAX];
    lbuf o = {buf, 0, sizeof(buf)};
    const char *sname = "untimed";

    if (t == NULL || slot_of(t, v, 1) == NULL)
        return;
    if (v->pend.step >= 0 && (size_t)v->pend.step < engine_scens(v->eng)->nsteps)
        sname = engine_scens(v->eng)->steps[v->pend.step]->name;
    lbuf_fmt(&o, "--- VU %u, run %u, %s: WebSocket %s\n", v->gid, v->run, sname, what);
    if (text != NULL)
        headers(&o, mark, text, len < TRACE_BODY_MAX ? len : TRACE_BODY_MAX);
    out(&o);
}

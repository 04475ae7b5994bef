/* web — the live page of `quern run --web`; see web.h. */
#include "console/web.h"

#include <jansson.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"
#include "console/agents.h"
#include "console/hsrv.h"
#include "console/run.h"
#include "console/summary.h"
#include "console/thresh.h"
#include "console/webpage.h"
#include "console/wstate.h"
#include "reports/html.h"

/* What the page may do: nothing from elsewhere, nothing sent elsewhere. */
#define PAGE_CSP                                                                                   \
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "                  \
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "              \
    "frame-ancestors 'none'"

struct web {
    hsrv srv;
    pthread_mutex_t mu; /* guards state and len */
    char *state;        /* owned: what /state.json gets */
    size_t len;
    char *page; /* owned: the whole page, built once */
    size_t page_len;
    char *cookie;         /* owned: WEB_COOKIE's value (the token in hex), NULL on loopback */
    char *set_cookie;     /* owned: the Set-Cookie header that "/?token=" sends */
    char cookie_name[32]; /* WEB_COOKIE and the port */
    wstate *hist;         /* owned: the charts' history */
    char run[256];        /* the run's name */
    int final;            /* web_final rendered the summary: no more updates */
    int too_big_logged;
};

int web_check(const run_opts *o)
{
    return hsrv_check("--web", o->web, o->token_file);
}

/* The common headers of every answer: no caching, no sniffing, no referrer. */
static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *ctype,
                              const char *body, size_t len, const char *hname, const char *hval)
{
    const char *hdrs[] = {"Cache-Control",
                          "no-store",
                          "X-Content-Type-Options",
                          "nosniff",
                          "Referrer-Policy",
                          "no-referrer",
                          "Content-Security-Policy",
                          PAGE_CSP,
                          hname,
                          hval,
                          NULL};

    return hsrv_reply(c, status, ctype, body, len, hdrs);
}

static enum MHD_Result answer_plain(struct MHD_Connection *c, unsigned status, const char *msg,
                                    const char *hname, const char *hval)
{
    return answer(c, status, "text/plain; charset=utf-8", msg, strlen(msg), hname, hval);
}

/* 1 when the request may see the run: no token needed, or its bearer
 * header or its cookie carries it. */
static int allowed(const web *w, struct MHD_Connection *c)
{
    const char *bearer, *ck;

    if (w->cookie == NULL)
        return 1;
    bearer =
        hsrv_bearer(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    if (bearer != NULL && hsrv_token_ok(&w->srv, bearer))
        return 1;
    ck = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, w->cookie_name);
    return ck != NULL && strlen(ck) == strlen(w->cookie) &&
           CRYPTO_memcmp(ck, w->cookie, strlen(w->cookie)) == 0;
}

static enum MHD_Result refuse(struct MHD_Connection *c)
{
    return answer_plain(c, MHD_HTTP_UNAUTHORIZED,
                        "this page needs the token of --token-file: open /?token=TOKEN once\n",
                        MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"quern\"");
}

/* MHD's access handler, on its thread: answers at the first call. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_cls)
{
    web *w = cls;
    enum MHD_Result ret;
    int page = strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0;

    if (!page && strcmp(url, "/state.json") != 0)
        return answer_plain(c, MHD_HTTP_NOT_FOUND, "not found: the page is at /\n", NULL, NULL);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return answer_plain(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: read-only\n",
                            MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (page && w->cookie != NULL) {
        const char *tok = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
        if (tok != NULL) {
            /* the cookie carries the token from now on, and the redirect
             * takes it out of the address bar */
            const char *hdrs[] = {
                "Set-Cookie", w->set_cookie,     "Location",    "/", "Cache-Control",
                "no-store",   "Referrer-Policy", "no-referrer", NULL};
            if (!hsrv_token_ok(&w->srv, tok))
                return refuse(c);
            return hsrv_reply(c, MHD_HTTP_SEE_OTHER, "text/plain; charset=utf-8", "", 0, hdrs);
        }
    }
    if (!allowed(w, c))
        return refuse(c);
    if (page)
        return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", w->page, w->page_len, NULL, NULL);
    pthread_mutex_lock(&w->mu);
    ret = answer(c, MHD_HTTP_OK, "application/json", w->state, w->len, NULL, NULL);
    pthread_mutex_unlock(&w->mu);
    return ret;
}

/* The page: the reports' frame and stylesheet, then webpage.html. */
static int build_page(web *w)
{
    FILE *f = open_memstream(&w->page, &w->page_len);
    char title[300];

    if (f == NULL)
        return -1;
    snprintf(title, sizeof(title), "quern: %s (live)", w->run);
    html_head(f, title);
    fwrite(webpage_html, 1, webpage_html_len, f);
    html_foot(f);
    if (ferror(f) != 0) {
        fclose(f);
        return -1;
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* Swaps state (owned, len bytes) in; the previous one is freed. */
static void publish(web *w, char *state, size_t len)
{
    char *old;

    if (state == NULL) {
        if (!w->too_big_logged)
            log_msg(LOG_WARN, "--web: the state would pass %u bytes: serving the last one",
                    WSTATE_TEXT_MAX);
        w->too_big_logged = 1;
        return;
    }
    pthread_mutex_lock(&w->mu);
    old = w->state;
    w->state = state;
    w->len = len;
    pthread_mutex_unlock(&w->mu);
    xfree(old);
}

static const char *conn_state(const aconn *c)
{
    if (c->lost)
        return "lost";
    if (c->finished)
        return "finished";
    if (c->in_run && c->ready)
        return "running";
    if (c->in_run)
        return "starting";
    return "registered";
}

/* Renders r (second: its latest second per step, NULL: none; summary: the
 * final one, NULL while running; rs: the thresholds' verdicts, NULL:
 * evaluated here on the totals so far). */
static void render(web *w, const run *r, const step_stats *second, const json_t *summary,
                   const thresh_result *rs)
{
    wstate_input in;
    wstate_agent *ag = xcalloc(r->nconns + 1, sizeof(*ag));
    wstate_threshold *th = xcalloc(r->o.nth + 1, sizeof(*th));
    thresh_result *ev = rs == NULL ? xcalloc(r->o.nth + 1, sizeof(*ev)) : NULL;
    double el = r->have_agg ? (double)r->agg.elapsed_us / 1e6 : 0.0;
    size_t len = 0;
    char *text;

    memset(&in, 0, sizeof(in));
    in.run = w->run;
    in.steps = (const char *const *)r->names;
    in.a = r->have_agg ? &r->agg : NULL;
    in.second = second;
    in.vus_max = r->o.vus;
    in.planned_us = r->o.duration_us;
    for (size_t i = 0; i < r->nconns; i++) {
        const aconn *c = r->conns[i];
        if (c->state != AC_AGENT && !c->in_run)
            continue;
        ag[in.nagents++] =
            (wstate_agent){c->name, c->host, conn_state(c), c->vus, c->requests, c->errors};
    }
    in.agents = ag;
    for (size_t i = 0; i < r->o.nth && r->have_agg; i++) {
        const thresh_result *res = rs != NULL ? &rs[i] : &ev[i];
        if (rs == NULL)
            thresh_eval(r->o.th[i], &r->agg, (const char *const *)r->ids,
                        (const char *const *)r->names, el, &ev[i]);
        th[in.nth++] = (wstate_threshold){r->o.th[i]->expr, res->passed, res->desc};
    }
    in.th = th;
    in.summary = summary;
    text = wstate_render(w->hist, &in, &len);
    publish(w, text, len);
    xfree(ag);
    xfree(th);
    xfree(ev);
}

web *web_start(const run_opts *o, char *err, size_t errlen)
{
    web *w = xcalloc(1, sizeof(*w));
    static const char empty[] = "{\"run\":null,\"final\":false,\"steps\":[]}";

    pthread_mutex_init(&w->mu, NULL);
    db_opts_name(&o->db, o->script, w->run, sizeof(w->run));
    w->hist = wstate_new();
    w->state = xstrdup(empty);
    w->len = strlen(empty);
    if (build_page(w) != 0) {
        snprintf(err, errlen, "--web: cannot build the page");
        goto fail;
    }
    if (hsrv_start(&w->srv, "--web", o->web, o->token_file, o->web_port_file, on_request, w, "/",
                   err, errlen) != 0)
        goto fail;
    if (w->srv.token != NULL) {
        size_t n = w->srv.token_len, cap = 2 * n + 64;
        w->cookie = xmalloc(2 * n + 1);
        for (size_t i = 0; i < n; i++)
            snprintf(w->cookie + 2 * i, 3, "%02x", (unsigned char)w->srv.token[i]);
        w->set_cookie = xmalloc(cap);
        snprintf(w->cookie_name, sizeof(w->cookie_name), "%s%u", WEB_COOKIE, w->srv.port);
        snprintf(w->set_cookie, cap, "%s=%s; Path=/; HttpOnly; SameSite=Strict", w->cookie_name,
                 w->cookie);
    }
    return w;
fail:
    web_stop(w);
    return NULL;
}

void web_update(web *w, const run *r, const step_stats *second, int late)
{
    if (w == NULL || w->final || !r->have_agg)
        return;
    wstate_add(w->hist, &r->agg, late);
    if (!late)
        render(w, r, second, NULL, NULL);
}

void web_final(web *w, const run *r, const summary_info *si)
{
    json_t *sum;

    if (w == NULL || !r->have_agg)
        return;
    sum = summary_json(&r->agg, si);
    render(w, r, NULL, sum, si->nthresholds > 0 ? si->threshold_results : NULL);
    json_decref(sum);
    w->final = 1;
}

void web_stop(web *w)
{
    if (w == NULL)
        return;
    hsrv_stop(&w->srv);
    pthread_mutex_destroy(&w->mu);
    xfree(w->state);
    free(w->page); /* open_memstream's: malloc'd by libc */
    if (w->cookie != NULL) {
        OPENSSL_cleanse(w->cookie, strlen(w->cookie));
        OPENSSL_cleanse(w->set_cookie, strlen(w->set_cookie));
    }
    xfree(w->cookie);
    xfree(w->set_cookie);
    wstate_free(w->hist);
    xfree(w);
}

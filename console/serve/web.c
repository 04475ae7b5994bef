/* web — the live page of `quern run --web`; see web.h. */
#include "console/serve/web.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "console/serve/ctlsrv.h"
#include "console/serve/hsrv.h"
#include "console/serve/webpage.h"
#include "console/serve/web_state.h"
#include "proto/auth.h"
#include "reports/html.h"

/* The header the page's controls carry their secret in: a page of another
 * site cannot send it without a preflight nobody answers. */
#define CTL_HEADER "X-Quern-Control"

/* What the page may do: nothing from elsewhere, nothing sent elsewhere. */
/* Most bytes of the page (its frame, stylesheet and script: some 20 KiB),
 * built once: past it --web refuses to start rather than serve a cut page. */
#define WEB_PAGE_MAX (1u << 20)

#define PAGE_CSP                                                                                   \
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "                  \
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "              \
    "frame-ancestors 'none'"

struct web {
    hsrv srv;
    pthread_mutex_t mu; /* guards state and len */
    char *state;        /* owned: what /state.json gets */
    size_t len;
    char *page; /* owned: the whole page, built once (at most WEB_PAGE_MAX bytes) */
    size_t page_len;
    char *cookie;    /* owned: WEB_COOKIE's value, WEB_SECRET_LEN random bytes in hex made for
                        this run (never the token), before the server starts */
    web_state *hist; /* owned: the charts' history */
    char run[256];   /* the run's name */
    int final;       /* web_final rendered the summary: no more updates */
    char *ctl_key;   /* owned: with --control and --token-file, the secret (hex, as the cookie's)
                        the page's controls send as CTL_HEADER; NULL: a read-only page */
    char *ctl_token; /* owned: --token-file's token, when the page's address needs none
                        (loopback) but its controls do; NULL otherwise */
    size_t ctl_token_len;
    ctlsrv *ctl; /* borrowed, under mu: where the page's commands go, once set */
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
    char name[48];

    if (w->srv.token == NULL)
        return 1;
    bearer =
        hsrv_bearer(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    if (bearer != NULL && hsrv_token_ok(&w->srv, bearer))
        return 1;
    snprintf(name, sizeof(name), "%s%u", WEB_COOKIE, w->srv.port);
    ck = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, name);
    return ck != NULL && strlen(ck) == strlen(w->cookie) &&
           CRYPTO_memcmp(ck, w->cookie, strlen(w->cookie)) == 0;
}

/* 1 when tok, a "?token=" value as MHD decoded it, is the token. MHD turns
 * a '+' into a space, so a token with '+' typed as is arrives with spaces:
 * it is compared as given and with every space a '+' again (both always,
 * in constant time). */
/* tok (NUL-terminated) is want (len bytes), in constant time. */
static int same_secret(const char *tok, const char *want, size_t len)
{
    return strlen(tok) == len && CRYPTO_memcmp(tok, want, len) == 0;
}

static int param_token_ok(const web *w, const char *tok)
{
    size_t n = strlen(tok);
    char *plus = xstrdup(tok);
    int ok;

    for (size_t i = 0; i < n; i++)
        if (plus[i] == ' ')
            plus[i] = '+';
    if (w->srv.token != NULL) {
        ok = hsrv_token_ok(&w->srv, tok);
        ok |= hsrv_token_ok(&w->srv, plus);
    } else {
        ok = same_secret(tok, w->ctl_token, w->ctl_token_len);
        ok |= same_secret(plus, w->ctl_token, w->ctl_token_len);
    }
    OPENSSL_cleanse(plus, n);
    xfree(plus);
    return ok;
}

static enum MHD_Result refuse(struct MHD_Connection *c)
{
    return answer_plain(c, MHD_HTTP_UNAUTHORIZED,
                        "this page needs the token of --token-file: open /?token=TOKEN once\n",
                        MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"quern\"");
}

/* "/?token=TOKEN": the cookie carries the run's secret from now on, and
 * the redirect takes the token out of the address bar. With --control the
 * redirect's fragment gives the page its controls' secret (never sent to
 * a server, never the token; the page keeps it in the tab and clears the
 * address); a loopback page needs no cookie, only that. */
static enum MHD_Result token_once(const web *w, struct MHD_Connection *c, const char *tok)
{
    char set[2 * WEB_SECRET_LEN + 128], loc[2 * WEB_SECRET_LEN + 8];
    const char *hdrs[] = {"Location",
                          loc,
                          "Cache-Control",
                          "no-store",
                          "Referrer-Policy",
                          "no-referrer",
                          "Set-Cookie",
                          set,
                          NULL};
    enum MHD_Result ret;

    if (!param_token_ok(w, tok))
        return refuse(c);
    snprintf(loc, sizeof(loc), "/%s%s", w->ctl_key != NULL ? "#k=" : "",
             w->ctl_key != NULL ? w->ctl_key : "");
    if (w->srv.token != NULL)
        snprintf(set, sizeof(set), "%s%u=%s; Path=/; HttpOnly; SameSite=Strict", WEB_COOKIE,
                 w->srv.port, w->cookie);
    else
        hdrs[6] = NULL; /* nothing to remember: the page is open */
    ret = hsrv_reply(c, MHD_HTTP_SEE_OTHER, "text/plain; charset=utf-8", "", 0, hdrs);
    OPENSSL_cleanse(set, sizeof(set));
    OPENSSL_cleanse(loc, sizeof(loc));
    return ret;
}

/* POST /control/COMMAND from the page's controls: their secret in
 * CTL_HEADER (a cookie alone is not enough: a form of another site would
 * send it), then the command as --control takes it. */
static enum MHD_Result control(web *w, struct MHD_Connection *c, const char *url,
                               const char *method)
{
    const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, CTL_HEADER);
    ctlsrv *ctl;

    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        return answer_plain(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: POST\n",
                            MHD_HTTP_HEADER_ALLOW, "POST");
    if (key == NULL || !same_secret(key, w->ctl_key, strlen(w->ctl_key)))
        return answer_plain(c, MHD_HTTP_UNAUTHORIZED,
                            "the controls need the page opened with /?token=TOKEN\n", NULL, NULL);
    pthread_mutex_lock(&w->mu);
    ctl = w->ctl;
    pthread_mutex_unlock(&w->mu);
    if (ctl == NULL)
        return answer_plain(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not ready yet\n", NULL, NULL);
    return ctlsrv_command(ctl, c, url + strlen("/control"));
}

/* MHD's access handler, on its thread: answers at the first call. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_cls)
{
    web *w = cls;
    enum MHD_Result ret;
    int page = strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0;

    if (w->ctl_key != NULL && strncmp(url, "/control/", 9) == 0)
        return control(w, c, url, method);
    if (!page && strcmp(url, "/state.json") != 0)
        return answer_plain(c, MHD_HTTP_NOT_FOUND, "not found: the page is at /\n", NULL, NULL);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return answer_plain(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: read-only\n",
                            MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (page && (w->srv.token != NULL || w->ctl_token != NULL)) {
        const char *tok = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
        if (tok != NULL)
            return token_once(w, c, tok);
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

/* The page: the reports' frame and stylesheet, then webpage.html; 0, or -1
 * when it would pass WEB_PAGE_MAX. */
static int build_page(web *w)
{
    dbuf b;
    FILE *f;
    char title[300];
    int rc;

    dbuf_init(&b, WEB_PAGE_MAX);
    f = dbuf_stream(&b);
    if (f == NULL)
        return -1;
    snprintf(title, sizeof(title), "quern: %s (live)", w->run);
    html_head(f, title);
    fwrite(webpage_html, 1, webpage_html_len, f);
    html_foot(f);
    rc = fclose(f) == 0 && !b.refused ? 0 : -1;
    if (rc == 0)
        w->page = dbuf_take(&b, &w->page_len);
    dbuf_free(&b);
    return rc;
}

/* Swaps state (owned, len bytes) in; the previous one is freed. */
static void publish(web *w, char *state, size_t len)
{
    char *old;

    if (state == NULL) {
        if (!w->too_big_logged)
            log_msg(LOG_WARN, "--web: the state would pass %u bytes: serving the last one",
                    WEB_STATE_TEXT_MAX);
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

/* Renders in, with the run's name, and swaps it in. */
static void render(web *w, const web_state_input *in)
{
    web_state_input x = *in;
    size_t len = 0;
    char *text;

    x.run = w->run;
    text = web_state_render(w->hist, &x, &len);
    publish(w, text, len);
}

/* The cookie's value: a secret of this run's, so that the cookie, which a
 * browser also sends to every other server on this host (cookies are
 * scoped by host, not port), gives away nothing that lets anyone pose as
 * the console to an agent. 0, or -1 if the random generator failed. */
static int make_secret(char **out)
{
    unsigned char raw[WEB_SECRET_LEN];
    int rc = -1;

    *out = xmalloc(2 * WEB_SECRET_LEN + 1);
    (*out)[0] = '\0';
    if (RAND_bytes(raw, (int)sizeof(raw)) != 1)
        goto out;
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(*out + 2 * i, 3, "%02x", raw[i]);
    rc = 0;
out:
    OPENSSL_cleanse(raw, sizeof(raw));
    return rc;
}

web *web_start(const run_opts *o, char *err, size_t errlen)
{
    web *w = xcalloc(1, sizeof(*w));
    static const char empty[] = "{\"run\":null,\"final\":false,\"steps\":[]}";

    pthread_mutex_init(&w->mu, NULL);
    db_opts_name(&o->db, o->script, w->run, sizeof(w->run));
    w->hist = web_state_new();
    w->state = xstrdup(empty);
    w->len = strlen(empty);
    if (build_page(w) != 0) {
        err_set(err, errlen, "--web: cannot build the page: it would pass %u bytes", WEB_PAGE_MAX);
        goto fail;
    }
    /* before the server starts: its thread reads it */
    if (make_secret(&w->cookie) != 0 ||
        (o->control != NULL && o->token_file != NULL && make_secret(&w->ctl_key) != 0)) {
        err_set(err, errlen, "--web: cannot make a random secret for the cookie");
        goto fail;
    }
    /* the token that opens the controls, where the page needs none */
    if (w->ctl_key != NULL && !hsrv_needs_token(o->web) &&
        auth_read_token_file(o->token_file, &w->ctl_token, &w->ctl_token_len, err, errlen) != 0)
        goto fail;
    if (hsrv_start(&w->srv, "--web", o->web, o->token_file, o->web_port_file, on_request, w, "/",
                   err, errlen) != 0)
        goto fail;
    return w;
fail:
    web_stop(w);
    return NULL;
}

int web_open(const web *w)
{
    return w != NULL && !w->final;
}

void web_second(web *w, const agg *a, int late)
{
    if (!web_open(w))
        return;
    web_state_add(w->hist, a, late);
}

void web_show(web *w, const web_state_input *in)
{
    if (web_open(w))
        render(w, in);
}

void web_final(web *w, const web_state_input *in)
{
    if (w == NULL)
        return;
    render(w, in);
    w->final = 1;
}

void web_set_control(web *w, ctlsrv *ctl)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->mu);
    w->ctl = ctl;
    pthread_mutex_unlock(&w->mu);
}

void web_stop(web *w)
{
    if (w == NULL)
        return;
    hsrv_stop(&w->srv);
    pthread_mutex_destroy(&w->mu);
    xfree(w->state);
    xfree(w->page);
    if (w->cookie != NULL)
        OPENSSL_cleanse(w->cookie, 2 * WEB_SECRET_LEN + 1);
    xfree(w->cookie);
    if (w->ctl_key != NULL)
        OPENSSL_cleanse(w->ctl_key, 2 * WEB_SECRET_LEN + 1);
    xfree(w->ctl_key);
    auth_token_free(w->ctl_token, w->ctl_token_len);
    web_state_free(w->hist);
    xfree(w);
}

/* metrics — the Prometheus endpoint of `quern run --metrics`; see metrics.h. */
#include "console/serve/metrics.h"

#include <pthread.h>
#include <string.h>

#include "common/log.h"
#include "common/mem.h"
#include "console/prom.h"
#include "console/serve/hsrv.h"

struct metrics {
    hsrv srv;           /* the server, its token */
    pthread_mutex_t mu; /* guards text and len */
    char *text;         /* owned: what a scrape gets */
    size_t len;
    char run[256];    /* the run's name */
    uint32_t vus_max; /* the VUs asked for: --vus, then metrics_steered's */
    int paused;       /* metrics_steered's */
    int too_big_logged;
};

int metrics_check(const run_opts *o)
{
    return hsrv_check("--metrics", o->metrics, o->token_file);
}

static enum MHD_Result reply_plain(struct MHD_Connection *c, unsigned status, const char *msg,
                                   const char *hname, const char *hval)
{
    const char *hdrs[] = {hname, hval, NULL};

    return hsrv_reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg), hdrs);
}

/* 1 when the request carries "Authorization: Bearer TOKEN" with m's token. */
static int authorized(const metrics *m, struct MHD_Connection *c)
{
    return hsrv_token_ok(&m->srv, hsrv_bearer(MHD_lookup_connection_value(
                                      c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION)));
}

/* MHD's access handler, on its thread: answers at the first call. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_cls)
{
    metrics *m = cls;
    enum MHD_Result ret;

    if (strcmp(url, "/metrics") != 0)
        return reply_plain(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL,
                           NULL);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return reply_plain(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n",
                           MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (!authorized(m, c))
        return reply_plain(c, MHD_HTTP_UNAUTHORIZED, "a bearer token is required\n",
                           MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"quern\"");
    pthread_mutex_lock(&m->mu);
    ret = hsrv_reply(c, MHD_HTTP_OK, PROM_CONTENT_TYPE, m->text, m->len, NULL);
    pthread_mutex_unlock(&m->mu);
    return ret;
}

/* Swaps text (owned, len bytes) in; the previous text is freed. */
static void publish(metrics *m, char *text, size_t len)
{
    char *old;

    pthread_mutex_lock(&m->mu);
    old = m->text;
    m->text = text;
    m->len = len;
    pthread_mutex_unlock(&m->mu);
    xfree(old);
}

metrics *metrics_start(const run_opts *o, char *err, size_t errlen)
{
    metrics *m = xcalloc(1, sizeof(*m));

    pthread_mutex_init(&m->mu, NULL);
    db_opts_name(&o->db, o->script, m->run, sizeof(m->run));
    m->vus_max = o->vus;
    metrics_update(m, NULL, NULL, NULL, NULL, 0);
    if (hsrv_start(&m->srv, "--metrics", o->metrics, o->token_file, o->metrics_port_file,
                   on_request, m, "/metrics", err, errlen) != 0) {
        metrics_stop(m, 0);
        return NULL;
    }
    return m;
}

void metrics_steered(metrics *m, uint32_t vus_max, int paused)
{
    if (m == NULL)
        return;
    m->vus_max = vus_max;
    m->paused = paused;
}

void metrics_update(metrics *m, const agg *a, const char *const *step_ids,
                    const char *const *step_names, thresh *const *th, size_t nth)
{
    prom_threshold *pt;
    prom_input in;
    char *text;
    size_t len = 0;

    if (m == NULL)
        return;
    pt = xcalloc(nth + 1, sizeof(*pt));
    for (size_t i = 0; i < nth; i++) {
        thresh_result r;
        pt[i].expr = th[i]->expr;
        pt[i].passed = a != NULL &&
                       thresh_eval(th[i], a, step_ids, step_names, (double)a->elapsed_us / 1e6, &r);
    }
    in.run = m->run;
    in.steps = step_names;
    in.a = a;
    in.vus_max = m->vus_max;
    in.paused = m->paused;
    in.th = pt;
    in.nth = nth;
    text = prom_render(&in, &len);
    xfree(pt);
    if (text == NULL) {
        if (!m->too_big_logged)
            log_msg(LOG_WARN, "--metrics: the text would pass %u bytes: serving the last one",
                    PROM_TEXT_MAX);
        m->too_big_logged = 1;
        return;
    }
    publish(m, text, len);
}

void metrics_stop(metrics *m, int64_t linger_us)
{
    if (m == NULL)
        return;
    if (m->srv.d != NULL)
        hsrv_linger(linger_us);
    hsrv_stop(&m->srv);
    pthread_mutex_destroy(&m->mu);
    xfree(m->text);
    xfree(m);
}

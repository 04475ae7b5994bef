/* ctlsrv — the --control endpoint of `quern run`; see ctlsrv.h. */
#include "console/serve/ctlsrv.h"

#include <ev.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/rate.h"
#include "console/serve/hsrv.h"
#include "proto/auth.h"
#include "proto/quern.pb-c.h"

/* Commands taken and not yet carried out by the loop: a few at most, as a
 * person types them; past that, 503. */
#define CTLSRV_QUEUE 16
/* The ceiling of vus N by default: --vus times this, at most CTLSRV_VUS_DEFAULT_MAX. */
#define CTLSRV_VUS_FACTOR 10u
#define CTLSRV_VUS_DEFAULT_MAX 1000u

struct ctlsrv {
    hsrv srv;
    pthread_mutex_t mu; /* guards q, qn, running, paused, stopping */
    ctlsrv_cmd q[CTLSRV_QUEUE];
    size_t qn;
    int running;  /* between Go and the end */
    int paused;   /* as the commands taken left it */
    int stopping; /* a stop was taken */
    char *token;  /* owned: --token-file's, which every command must carry; NULL: none (loopback) */
    size_t token_len;
    uint32_t vus_max;
    int open;
    ev_async wake;          /* the HTTP thread wakes the loop */
    struct ev_loop *loop;   /* borrowed, once attached */
    ctlsrv_carry_fn *carry; /* carries a command out, on the loop */
    void *carry_arg;        /* borrowed: carry's argument */
};

int ctlsrv_check(const run_opts *o)
{
    return hsrv_check("--control", o->control, o->token_file);
}

uint32_t ctlsrv_ceiling(const run_opts *o)
{
    uint64_t n;

    if (o->given & OPTS_GIVEN_MAX_VUS)
        n = o->max_vus;
    else {
        n = (uint64_t)o->vus * CTLSRV_VUS_FACTOR;
        if (n > CTLSRV_VUS_DEFAULT_MAX)
            n = CTLSRV_VUS_DEFAULT_MAX;
    }
    return n < o->vus ? o->vus : (uint32_t)n;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *msg)
{
    const char *hdrs[] = {"Cache-Control", "no-store", NULL, NULL, NULL};

    if (status == MHD_HTTP_UNAUTHORIZED) {
        hdrs[2] = MHD_HTTP_HEADER_WWW_AUTHENTICATE;
        hdrs[3] = "Bearer realm=\"quern\"";
    }
    return hsrv_reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg), hdrs);
}

/* Reads the request into cmd: 0, or an HTTP status with its message in msg. */
static unsigned parse(ctlsrv *s, struct MHD_Connection *c, const char *url, ctlsrv_cmd *cmd,
                      char *msg, size_t msglen)
{
    memset(cmd, 0, sizeof(*cmd));
    if (strcmp(url, "/pause") == 0) {
        cmd->kind = QUERN__STEER__KIND__PAUSE;
    } else if (strcmp(url, "/resume") == 0) {
        cmd->kind = QUERN__STEER__KIND__RESUME;
    } else if (strcmp(url, "/stop") == 0) {
        cmd->kind = CTLSRV_STOP;
    } else if (strcmp(url, "/vus") == 0) {
        const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "n");
        char *end = NULL;
        unsigned long n = v != NULL && v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0;
        cmd->kind = QUERN__STEER__KIND__VUS;
        if (s->vus_max == 0) {
            err_set(msg, msglen,
                    "vus: this run's VUs cannot be steered (the open model, a scenario's "
                    "own stages or a capacity search): use rate\n");
            return MHD_HTTP_CONFLICT;
        }
        if (end == NULL || *end != '\0' || n < 1 || n > s->vus_max) {
            err_set(msg, msglen,
                    "vus: N must be a whole number from 1 to %u (the run's ceiling, "
                    "--max-vus)\n",
                    s->vus_max);
            return MHD_HTTP_BAD_REQUEST;
        }
        cmd->vus = (uint32_t)n;
    } else if (strcmp(url, "/rate") == 0) {
        const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "r");
        char err[ERR_MAX];
        cmd->kind = QUERN__STEER__KIND__RATE;
        if (!s->open) {
            err_set(msg, msglen,
                    "rate: this run has no arrival rate (the closed model): use vus\n");
            return MHD_HTTP_CONFLICT;
        }
        if (v == NULL || rate_parse(v, 1, &cmd->rate, err, sizeof(err)) != 0) {
            err_set(msg, msglen, "rate: %s\n", v == NULL ? "give R, e.g. 200/s" : err);
            return MHD_HTTP_BAD_REQUEST;
        }
    } else {
        err_set(msg, msglen, "not found: POST /pause, /resume, /vus?n=N, /rate?r=R or /stop\n");
        return MHD_HTTP_NOT_FOUND;
    }
    return 0;
}

/* Under mu: whether cmd may be taken now; 0, or a status with msg. */
static unsigned admit(ctlsrv *s, const ctlsrv_cmd *cmd, char *msg, size_t msglen)
{
    if (!s->running || s->stopping) {
        err_set(msg, msglen, "%s\n",
                s->stopping ? "the run is stopping"
                            : "the run is not under way (not started yet, "
                              "or over)");
        return MHD_HTTP_CONFLICT;
    }
    if (cmd->kind == QUERN__STEER__KIND__PAUSE && s->paused) {
        err_set(msg, msglen, "the run is paused already\n");
        return MHD_HTTP_CONFLICT;
    }
    if (cmd->kind == QUERN__STEER__KIND__RESUME && !s->paused) {
        err_set(msg, msglen, "the run is not paused\n");
        return MHD_HTTP_CONFLICT;
    }
    if (s->qn == CTLSRV_QUEUE) {
        err_set(msg, msglen, "too many commands at once: try again\n");
        return MHD_HTTP_SERVICE_UNAVAILABLE;
    }
    return 0;
}

enum MHD_Result ctlsrv_command(ctlsrv *s, struct MHD_Connection *c, const char *path)
{
    ctlsrv_cmd cmd;
    char msg[256];
    unsigned status = parse(s, c, path, &cmd, msg, sizeof(msg));

    if (status != 0)
        return reply(c, status, msg);
    pthread_mutex_lock(&s->mu);
    status = admit(s, &cmd, msg, sizeof(msg));
    if (status == 0) {
        s->q[s->qn++] = cmd;
        if (cmd.kind == QUERN__STEER__KIND__PAUSE || cmd.kind == QUERN__STEER__KIND__RESUME)
            s->paused = cmd.kind == QUERN__STEER__KIND__PAUSE;
        if (cmd.kind == CTLSRV_STOP)
            s->stopping = 1;
    }
    pthread_mutex_unlock(&s->mu);
    if (status != 0)
        return reply(c, status, msg);
    /* running, so attached: loop is set */
    ev_async_send(s->loop, &s->wake);
    return reply(c, MHD_HTTP_OK, "ok\n");
}

/* MHD's access handler, on its thread: answers at the first call. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **req_cls)
{
    ctlsrv *s = cls;
    const char *bearer;

    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
        const char *hdrs[] = {MHD_HTTP_HEADER_ALLOW, "POST", NULL};
        static const char body[] = "method not allowed: the commands are POST requests\n";
        return hsrv_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", body,
                          sizeof(body) - 1, hdrs);
    }
    bearer =
        hsrv_bearer(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    if (s->token != NULL && (bearer == NULL || strlen(bearer) != s->token_len ||
                             CRYPTO_memcmp(bearer, s->token, s->token_len) != 0))
        return reply(c, MHD_HTTP_UNAUTHORIZED, "a bearer token is required (--token-file)\n");
    return ctlsrv_command(s, c, url);
}

ctlsrv *ctlsrv_start(const run_opts *o, uint32_t vus_max, int open, char *err, size_t errlen)
{
    ctlsrv *s = xcalloc(1, sizeof(*s));

    pthread_mutex_init(&s->mu, NULL);
    s->vus_max = vus_max;
    s->open = open;
    /* With --token-file the token is asked on loopback too: steering is
     * more than reading. Read before the server's thread starts. */
    if ((o->token_file != NULL &&
         auth_read_token_file(o->token_file, &s->token, &s->token_len, err, errlen) != 0) ||
        hsrv_start(&s->srv, "--control", o->control, o->token_file, o->control_port_file,
                   on_request, s, "/", err, errlen) != 0) {
        ctlsrv_stop(s);
        return NULL;
    }
    if (s->token != NULL)
        log_msg(LOG_INFO, "control: every command must carry the token of --token-file");
    return s;
}

static void on_wake(struct ev_loop *loop, ev_async *w, int revents)
{
    ctlsrv *s = w->data;
    ctlsrv_cmd q[CTLSRV_QUEUE];
    size_t n;

    pthread_mutex_lock(&s->mu);
    n = s->qn;
    memcpy(q, s->q, n * sizeof(*q));
    s->qn = 0;
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n; i++)
        s->carry(s->carry_arg, &q[i]);
}

void ctlsrv_attach(ctlsrv *s, struct ev_loop *loop, ctlsrv_carry_fn *carry, void *arg)
{
    if (s == NULL)
        return;
    s->loop = loop;
    s->carry = carry;
    s->carry_arg = arg;
    ev_async_init(&s->wake, on_wake);
    s->wake.data = s;
    ev_async_start(loop, &s->wake);
}

void ctlsrv_running(ctlsrv *s, int on)
{
    if (s == NULL)
        return;
    pthread_mutex_lock(&s->mu);
    s->running = on;
    pthread_mutex_unlock(&s->mu);
}

void ctlsrv_stop(ctlsrv *s)
{
    if (s == NULL)
        return;
    hsrv_stop(&s->srv); /* its thread first: nothing calls on_request past this */
    if (s->loop != NULL)
        ev_async_stop(s->loop, &s->wake);
    auth_token_free(s->token, s->token_len);
    pthread_mutex_destroy(&s->mu);
    xfree(s);
}

/* The --web page server (console/serve/web.c) over HTTP. On 127.0.0.1 port
 * 0: the page at / and /index.html with its headers (no caching, the
 * content security policy), the state at /state.json as the loop last
 * rendered it (under the server's own run name), nothing changed after the
 * final state, 405 for other methods, 404 elsewhere. On a non-loopback
 * address (as tests/e2e/web.sh binds it) the token's rules: 401 without
 * it, the bearer header, "/?token=" once (its '+' typed as is too) setting
 * the cookie of a secret made for the run (never the token) and
 * redirecting to "/", the cookie then enough, a wrong cookie or one named
 * for another port not. With --control on loopback: "/?token=" hands the
 * controls' secret in the redirect's fragment, no cookie; POST
 * /control/COMMAND needs that secret in its header, 503 before the
 * endpoint is set, then the command reaches the loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ev.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "console/serve/ctlsrv.h"
#include "console/serve/web.h"
#include "proto/quern.pb-c.h"

#include "tests/unit/loopask.h"

/* A '+' in it: a query decodes it to a space. */
#define TOKEN "a-web+token-of-the-tests-0123456789"
#define ANSWER_MAX (512 * 1024)

typedef struct fx {
    char dir[64], portf[96], tokf[96], ctlportf[96];
    run_opts o;
    web *w;
    unsigned port;
    char *buf; /* owned: the latest answer */
} fx;

static char *argv0[] = {"run", NULL};

static int setup(void **state)
{
    fx *x = xcalloc(1, sizeof(*x));
    FILE *f;

    *state = x;
    snprintf(x->dir, sizeof(x->dir), "/tmp/quern-web-XXXXXX");
    assert_non_null(mkdtemp(x->dir));
    snprintf(x->portf, sizeof(x->portf), "%s/port", x->dir);
    snprintf(x->ctlportf, sizeof(x->ctlportf), "%s/ctlport", x->dir);
    snprintf(x->tokf, sizeof(x->tokf), "%s/token", x->dir);
    f = fopen(x->tokf, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", TOKEN);
    fclose(f);
    chmod(x->tokf, 0600);
    opts_init(&x->o, 1, argv0);
    x->o.script = "/tmp/nightly.lua";
    x->o.web_port_file = x->portf;
    x->buf = xmalloc(ANSWER_MAX);
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;

    web_stop(x->w);
    x->o.script = NULL;
    x->o.web = NULL;
    x->o.web_port_file = NULL;
    x->o.token_file = NULL;
    x->o.control = NULL;
    x->o.control_port_file = NULL;
    opts_free(&x->o);
    unlink(x->portf);
    unlink(x->ctlportf);
    unlink(x->tokf);
    rmdir(x->dir);
    xfree(x->buf);
    xfree(x);
    return 0;
}

static void start(fx *x, const char *addr)
{
    char err[ERR_MAX];
    FILE *f;

    x->o.web = addr;
    x->w = web_start(&x->o, err, sizeof(err));
    assert_non_null(x->w);
    f = fopen(x->portf, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%u", &x->port), 1);
    fclose(f);
    assert_true(web_open(x->w));
}

/* Sends method path with the extra header lines hdr ("" none); the answer
 * into x->buf, its status returned. */
static int ask(fx *x, const char *method, const char *path, const char *hdr)
{
    char req[1024];
    int status = 0;

    snprintf(req, sizeof(req),
             "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%sConnection: close\r\n\r\n", method, path,
             x->port, hdr);
    loopask(x->port, req, x->buf, ANSWER_MAX);
    sscanf(x->buf, "HTTP/1.1 %d", &status);
    return status;
}

/* The value of header name in x->buf, copied into out (len bytes); 0, or
 * -1 when the answer has none. */
static int header(const fx *x, const char *name, char *out, size_t len)
{
    char at[64];
    const char *h, *end;

    snprintf(at, sizeof(at), "\r\n%s: ", name);
    h = strstr(x->buf, at);
    if (h == NULL)
        return -1;
    h += strlen(at);
    end = strstr(h, "\r\n");
    assert_non_null(end);
    snprintf(out, len, "%.*s", (int)(end - h), h);
    return 0;
}

/* GET /state.json, parsed. */
static json_t *state_json(fx *x)
{
    const char *body;
    json_error_t e;
    json_t *j;

    assert_int_equal(ask(x, "GET", "/state.json", ""), 200);
    body = strstr(x->buf, "\r\n\r\n");
    assert_non_null(body);
    j = json_loads(body + 4, 0, &e);
    assert_non_null(j);
    return j;
}

static void test_open(void **state)
{
    fx *x = *state;
    char v[512];
    agg a;
    step_stats *st = stats_array_new(1);
    uint64_t runs = 1, missed = 0;
    const char *names[1] = {"SC-S-STEP-1)Login"};
    web_state_input in = {0};
    json_t *j, *sum;

    start(x, "127.0.0.1:0");
    assert_int_equal(ask(x, "GET", "/", ""), 200);
    assert_int_equal(header(x, "Content-Type", v, sizeof(v)), 0);
    assert_string_equal(v, "text/html; charset=utf-8");
    assert_int_equal(header(x, "Cache-Control", v, sizeof(v)), 0);
    assert_string_equal(v, "no-store");
    assert_int_equal(header(x, "Content-Security-Policy", v, sizeof(v)), 0);
    assert_non_null(strstr(v, "default-src 'none'"));
    assert_non_null(strstr(v, "frame-ancestors 'none'"));
    assert_non_null(strstr(x->buf, "quern: nightly (live)"));
    assert_int_equal(ask(x, "GET", "/index.html", ""), 200);
    assert_int_equal(ask(x, "HEAD", "/", ""), 200);
    /* no token needed, none asked for: "?token=" is only the page */
    assert_int_equal(ask(x, "GET", "/?token=anything", ""), 200);
    /* the state before anything was rendered */
    assert_int_equal(ask(x, "GET", "/state.json", ""), 200);
    assert_int_equal(header(x, "Content-Type", v, sizeof(v)), 0);
    assert_string_equal(v, "application/json");
    assert_non_null(strstr(x->buf, "\r\n\r\n{\"run\":null,\"final\":false,\"steps\":[]}"));
    /* only GET and HEAD, only the page and its state */
    assert_int_equal(ask(x, "POST", "/state.json", "Content-Length: 0\r\n"), 405);
    assert_int_equal(header(x, "Allow", v, sizeof(v)), 0);
    assert_string_equal(v, "GET, HEAD");
    assert_int_equal(ask(x, "GET", "/state", ""), 404);
    assert_int_equal(ask(x, "GET", "/control/pause", ""), 404); /* no controls */
    assert_int_equal(ask(x, "POST", "/control/pause", "Content-Length: 0\r\n"), 404);

    /* a second rendered: the server's run name, whatever the input says */
    agg_init(&a, 1, 1);
    st[0].count = 77;
    hist_record_n(st[0].hist, 10000, 77);
    agg_add(&a, st, &runs, &missed, 1000000, 3);
    web_second(x->w, &a, 0);
    in.run = "another";
    in.steps = names;
    in.a = &a;
    in.second = st;
    in.vus_max = 3;
    web_show(x->w, &in);
    j = state_json(x);
    assert_string_equal(json_string_value(json_object_get(j, "run")), "nightly");
    assert_false(json_is_true(json_object_get(j, "final")));
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "steps"), 0), "name")),
        "SC-S-STEP-1)Login");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "total"), "count")), 77);
    json_decref(j);

    /* the final state stays */
    sum = json_pack("{s:s}", "verdict", "passed");
    in.summary = sum;
    web_final(x->w, &in);
    assert_false(web_open(x->w));
    in.vus_max = 99;
    in.summary = NULL;
    web_show(x->w, &in);
    web_second(x->w, &a, 0);
    j = state_json(x);
    assert_true(json_is_true(json_object_get(j, "final")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(j, "summary"), "verdict")), "passed");
    assert_int_equal(json_integer_value(json_object_get(j, "vus_max")), 3);
    json_decref(j);
    json_decref(sum);
    /* no --web: nothing */
    assert_false(web_open(NULL));
    web_second(NULL, &a, 0);
    web_show(NULL, &in);
    web_final(NULL, &in);
    web_set_control(NULL, NULL);
    web_stop(NULL);
    stats_array_free(st, 1);
    agg_free(&a);
}

static void test_token(void **state)
{
    fx *x = *state;
    char v[512], cookie[256], hdr[512], other[300];
    const char *val;

    x->o.token_file = x->tokf;
    start(x, "0.0.0.0:0");
    assert_int_equal(ask(x, "GET", "/", ""), 401);
    assert_int_equal(header(x, "WWW-Authenticate", v, sizeof(v)), 0);
    assert_string_equal(v, "Bearer realm=\"quern\"");
    assert_null(strstr(x->buf, "quern: nightly"));
    assert_int_equal(ask(x, "GET", "/state.json", ""), 401);
    assert_int_equal(ask(x, "GET", "/state.json", "Authorization: Bearer " TOKEN "x\r\n"), 401);
    assert_int_equal(ask(x, "GET", "/state.json", "Authorization: Bearer " TOKEN "\r\n"), 200);
    assert_int_equal(ask(x, "GET", "/", "Authorization: Bearer " TOKEN "\r\n"), 200);
    /* a wrong token once: no cookie */
    assert_int_equal(ask(x, "GET", "/?token=a-web+token", ""), 401);
    assert_int_equal(header(x, "Set-Cookie", v, sizeof(v)), -1);
    /* the token once, '+' as is: the cookie, and the token out of the address */
    assert_int_equal(ask(x, "GET", "/?token=" TOKEN, ""), 303);
    assert_int_equal(header(x, "Location", v, sizeof(v)), 0);
    assert_string_equal(v, "/");
    assert_int_equal(header(x, "Set-Cookie", cookie, sizeof(cookie)), 0);
    snprintf(v, sizeof(v), "%s%u=", WEB_COOKIE, x->port);
    assert_int_equal(strncmp(cookie, v, strlen(v)), 0);
    assert_non_null(strstr(cookie, "; HttpOnly"));
    assert_non_null(strstr(cookie, "; SameSite=Strict"));
    assert_null(strstr(cookie, "token"));
    val = cookie + strlen(v);
    assert_int_equal(strcspn(val, ";"), 2 * WEB_SECRET_LEN);
    assert_int_equal(strspn(val, "0123456789abcdef"), 2 * WEB_SECRET_LEN);
    /* and as the query spells '+' */
    assert_int_equal(ask(x, "GET", "/?token=a-web%2Btoken-of-the-tests-0123456789", ""), 303);
    /* the cookie opens the page and its state */
    snprintf(hdr, sizeof(hdr), "Cookie: %.*s\r\n", (int)strcspn(cookie, ";"), cookie);
    assert_int_equal(ask(x, "GET", "/state.json", hdr), 200);
    assert_int_equal(ask(x, "GET", "/", hdr), 200);
    /* a wrong secret, a longer one, the token as the cookie, another port's
     * cookie: no */
    snprintf(other, sizeof(other), "Cookie: %s%u=%.*s\r\n", WEB_COOKIE, x->port, 2 * WEB_SECRET_LEN,
             "0000000000000000000000000000000000000000000000000000000000000000");
    assert_int_equal(ask(x, "GET", "/state.json", other), 401);
    snprintf(other, sizeof(other), "Cookie: %s%u=%.*s0\r\n", WEB_COOKIE, x->port,
             2 * WEB_SECRET_LEN, val); /* the secret and more */
    assert_int_equal(ask(x, "GET", "/state.json", other), 401);
    snprintf(other, sizeof(other), "Cookie: %s%u=%s\r\n", WEB_COOKIE, x->port, TOKEN);
    assert_int_equal(ask(x, "GET", "/state.json", other), 401);
    snprintf(other, sizeof(other), "Cookie: %s%u=%.*s\r\n", WEB_COOKIE, x->port + 1,
             2 * WEB_SECRET_LEN, val);
    assert_int_equal(ask(x, "GET", "/state.json", other), 401);
}

/* The commands the loop was handed. */
typedef struct taken {
    ctlsrv_cmd c[4];
    size_t n;
} taken;

static void take(void *arg, const ctlsrv_cmd *c)
{
    taken *t = arg;

    if (t->n < 4)
        t->c[t->n++] = *c;
}

static void test_controls(void **state)
{
    fx *x = *state;
    char v[512], hdr[256], err[ERR_MAX];
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    taken t = {0};
    ctlsrv *ctl;

    x->o.token_file = x->tokf;
    x->o.control = "127.0.0.1:0";
    x->o.control_port_file = x->ctlportf;
    start(x, "127.0.0.1:0");
    /* loopback: the page is open, its controls are not */
    assert_int_equal(ask(x, "GET", "/", ""), 200);
    assert_int_equal(ask(x, "GET", "/?token=wrong", ""), 401);
    assert_int_equal(ask(x, "GET", "/?token=" TOKEN, ""), 303);
    assert_int_equal(header(x, "Set-Cookie", v, sizeof(v)), -1); /* nothing to remember */
    assert_int_equal(header(x, "Location", v, sizeof(v)), 0);
    assert_int_equal(strncmp(v, "/#k=", 4), 0);
    assert_int_equal(strlen(v + 4), 2 * WEB_SECRET_LEN);
    assert_null(strstr(v, TOKEN));
    snprintf(hdr, sizeof(hdr), "X-Quern-Control: %s\r\nContent-Length: 0\r\n", v + 4);

    assert_int_equal(ask(x, "POST", "/control/pause", "Content-Length: 0\r\n"), 401);
    assert_int_equal(
        ask(x, "POST", "/control/pause", "X-Quern-Control: 00\r\nContent-Length: 0\r\n"), 401);
    assert_int_equal(ask(x, "POST", "/control/pause",
                         "Authorization: Bearer " TOKEN "\r\nContent-Length: 0\r\n"),
                     401); /* the token is not the controls' secret */
    assert_int_equal(ask(x, "GET", "/control/pause", hdr), 405);
    assert_int_equal(ask(x, "POST", "/control/pause", hdr), 503); /* no endpoint yet */

    ctl = ctlsrv_start(&x->o, 20, 0, err, sizeof(err));
    assert_non_null(ctl);
    ctlsrv_attach(ctl, loop, take, &t);
    web_set_control(x->w, ctl);
    assert_int_equal(ask(x, "POST", "/control/pause", hdr), 409); /* not under way */
    ctlsrv_running(ctl, 1);
    assert_int_equal(ask(x, "POST", "/control/pause", hdr), 200);
    assert_int_equal(ask(x, "POST", "/control/vus?n=7", hdr), 200);
    ev_run(loop, EVRUN_NOWAIT);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.c[0].kind, QUERN__STEER__KIND__PAUSE);
    assert_int_equal(t.c[1].kind, QUERN__STEER__KIND__VUS);
    assert_int_equal(t.c[1].vus, 7);
    web_set_control(x->w, NULL);
    ctlsrv_stop(ctl);
    ev_loop_destroy(loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_controls, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

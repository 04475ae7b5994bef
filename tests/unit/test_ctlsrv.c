/* The --control endpoint (console/serve/ctlsrv.c) on a real loopback server: the
 * ceiling of vus N; the token asked on loopback too when there is a token
 * file (401 without it or with another); only POST; a bad argument named
 * (400); the other model, a run not under way, a pause twice refused (409);
 * a command taken (200) while the run is under way, and handed to the
 * loop in the order taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include <ev.h>

#include "console/serve/ctlsrv.h"
#include "proto/quern.pb-c.h"

#include "tests/unit/loopask.h"

#define TOKEN "a-token-of-the-control-test-0123456789"

/* POSTs (or GETs) path with the bearer tok (NULL: none) to 127.0.0.1:port:
 * the answer's status. */
static int ask(unsigned port, const char *method, const char *path, const char *tok)
{
    char req[512], buf[2048];
    int status = 0;

    snprintf(req, sizeof(req),
             "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Length: 0\r\n%s%s%s"
             "Connection: close\r\n\r\n",
             method, path, port, tok != NULL ? "Authorization: Bearer " : "",
             tok != NULL ? tok : "", tok != NULL ? "\r\n" : "");
    loopask(port, req, buf, sizeof(buf));
    sscanf(buf, "HTTP/1.1 %d", &status);
    return status;
}

static void test_ceiling(void **state)
{
    run_opts o;
    char *argv[] = {"run", NULL};

    opts_init(&o, 1, argv);
    o.vus = 5;
    assert_int_equal(ctlsrv_ceiling(&o), 50); /* 10 x --vus */
    o.vus = 400;
    assert_int_equal(ctlsrv_ceiling(&o), 1000); /* at most 1000 */
    o.vus = 2000;
    assert_int_equal(ctlsrv_ceiling(&o), 2000); /* never below --vus */
    o.given |= OPTS_GIVEN_MAX_VUS;
    o.max_vus = 3000;
    o.vus = 5;
    assert_int_equal(ctlsrv_ceiling(&o), 3000); /* --max-vus when given */
}

/* The commands the loop was handed, in order. */
typedef struct taken {
    ctlsrv_cmd c[8];
    size_t n;
} taken;

static void take(void *arg, const ctlsrv_cmd *c)
{
    taken *t = arg;

    if (t->n < 8)
        t->c[t->n++] = *c;
}

static void test_serve(void **state)
{
    char dir[] = "/tmp/quern-ctlsrv-XXXXXX", tokf[64], portf[64], err[ERR_MAX],
         *argv[] = {"run", NULL};
    unsigned port = 0;
    run_opts o;
    struct ev_loop *loop;
    taken t = {0};
    ctlsrv *s;
    FILE *f;

    assert_non_null(mkdtemp(dir));
    snprintf(tokf, sizeof(tokf), "%s/token", dir);
    snprintf(portf, sizeof(portf), "%s/port", dir);
    f = fopen(tokf, "w");
    fprintf(f, "%s\n", TOKEN);
    fclose(f);
    chmod(tokf, 0600);
    opts_init(&o, 1, argv);
    o.control = "127.0.0.1:0";
    o.control_port_file = portf;
    o.token_file = tokf;
    s = ctlsrv_start(&o, 20, 0, err, sizeof(err));
    assert_non_null(s);
    f = fopen(portf, "r");
    assert_int_equal(fscanf(f, "%u", &port), 1);
    fclose(f);
    loop = ev_loop_new(EVFLAG_AUTO);
    ctlsrv_attach(s, loop, take, &t);

    /* the token, on loopback too */
    assert_int_equal(ask(port, "POST", "/pause", NULL), 401);
    assert_int_equal(ask(port, "POST", "/pause", TOKEN "x"), 401);
    assert_int_equal(ask(port, "GET", "/pause", TOKEN), 405);
    assert_int_equal(ask(port, "POST", "/nothing", TOKEN), 404);
    /* arguments checked before anything else */
    assert_int_equal(ask(port, "POST", "/vus?n=0", TOKEN), 400);
    assert_int_equal(ask(port, "POST", "/vus?n=21", TOKEN), 400); /* past the ceiling */
    assert_int_equal(ask(port, "POST", "/vus?n=ten", TOKEN), 400);
    assert_int_equal(ask(port, "POST", "/rate?r=200/s", TOKEN), 409); /* the closed model */
    /* not under way yet */
    assert_int_equal(ask(port, "POST", "/pause", TOKEN), 409);
    ctlsrv_running(s, 1);
    assert_int_equal(ask(port, "POST", "/vus?n=20", TOKEN), 200);
    assert_int_equal(ask(port, "POST", "/resume", TOKEN), 409); /* not paused */
    assert_int_equal(ask(port, "POST", "/pause", TOKEN), 200);
    assert_int_equal(ask(port, "POST", "/pause", TOKEN), 409); /* paused already */
    assert_int_equal(ask(port, "POST", "/resume", TOKEN), 200);
    assert_int_equal(ask(port, "POST", "/stop", TOKEN), 200);
    assert_int_equal(ask(port, "POST", "/vus?n=3", TOKEN), 409); /* stopping */
    /* the loop is handed the four taken, in order, and nothing else */
    ev_run(loop, EVRUN_NOWAIT);
    assert_int_equal(t.n, 4);
    assert_int_equal(t.c[0].kind, QUERN__STEER__KIND__VUS);
    assert_int_equal(t.c[0].vus, 20);
    assert_int_equal(t.c[1].kind, QUERN__STEER__KIND__PAUSE);
    assert_int_equal(t.c[2].kind, QUERN__STEER__KIND__RESUME);
    assert_int_equal(t.c[3].kind, CTLSRV_STOP);
    ctlsrv_stop(s);
    ev_loop_destroy(loop);
    o.token_file = NULL;
    o.control = NULL;
    o.control_port_file = NULL;
    opts_free(&o);
    unlink(tokf);
    unlink(portf);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ceiling),
        cmocka_unit_test(test_serve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* quern ctl (console/ctl.c) against a real --control endpoint
 * (console/serve/ctlsrv.h) on 127.0.0.1 port 0 with a token file: each
 * usage error refused with exit 2 and one line naming the fault, before
 * anything is sent; a token missing or not the run's (401), a console
 * that does not answer, an argument the console refuses (400): exit 2; a
 * command refused now (409: not under way, the other model): exit 1 with
 * the reason; a command taken: exit 0, and it reaches the run's loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "console/ctl.h"
#include "console/serve/ctlsrv.h"
#include "proto/quern.pb-c.h"

#include "tests/unit/loopask.h"
#include "tests/unit/optcall.h"

#define TOKEN "a-token-of-the-ctl-test-0123456789"

static int call_ctl(void *arg)
{
    optcall *c = arg;

    return ctl_main(c->argc, c->argv);
}

/* quern ctl with the arguments up to a NULL: what it returned and said
 * (optcall_free it). */
static optcall *ctl(optcall *c, const char *first, ...)
{
    va_list ap;

    va_start(ap, first);
    optcall_args(c, "ctl", first, ap);
    va_end(ap);
    optcall_run(c, call_ctl, c);
    return c;
}

/* Fails unless the call returned rc with want in what it said. */
static void said(optcall *c, int rc, const char *want)
{
    if (c->rc != rc || strstr(c->said, want) == NULL)
        fail_msg("exit %d, said \"%s\"; wanted exit %d and \"%s\"", c->rc, c->said, rc, want);
    optcall_free(c);
}

static void test_usage(void **state)
{
    optcall c;

    said(ctl(&c, "pause", NULL), 2, "give --console HOST:PORT");
    said(ctl(&c, "--console", NULL), 2, "--console needs a value");
    said(ctl(&c, "--console", "http://127.0.0.1:1", "pause", NULL), 2, "give --console HOST:PORT");
    said(ctl(&c, "--console", "127.0.0.1", "pause", NULL), 2, "give --console HOST:PORT");
    said(ctl(&c, "--console", "127.0.0.1:1", NULL), 2, "give a command");
    said(ctl(&c, "--console", "127.0.0.1:1", "--bogus", "pause", NULL), 2,
         "unknown option --bogus");
    said(ctl(&c, "--console", "127.0.0.1:1", "jump", NULL), 2, "unknown command \"jump\"");
    said(ctl(&c, "--console", "127.0.0.1:1", "vus", NULL), 2, "vus takes one argument");
    said(ctl(&c, "--console", "127.0.0.1:1", "pause", "now", NULL), 2, "pause takes no argument");
    said(ctl(&c, "--console", "127.0.0.1:1", "vus", "ten", NULL), 2,
         "\"ten\" is not a number of VUs");
    said(ctl(&c, "--console", "127.0.0.1:1", "vus", "0", NULL), 2, "\"0\" is not a number of VUs");
    said(ctl(&c, "--console", "127.0.0.1:1", "vus", "5x", NULL), 2, "\"5x\" is not a number");
    said(ctl(&c, "--console", "127.0.0.1:1", "rate", "fast", NULL), 2, "rate R: ");
    said(ctl(&c, "--console", "127.0.0.1:1", "--token-file", "/nonexistent/tok", "pause", NULL), 2,
         "--token-file: ");
}

/* A port bound but not listening: nobody answers there. */
static void test_unreachable(void **state)
{
    int fd;
    char addr[64];
    optcall c;

    snprintf(addr, sizeof(addr), "127.0.0.1:%u", loopask_refusing_port(&fd));
    ctl(&c, "--console", addr, "pause", NULL);
    assert_int_equal(c.rc, 2);
    assert_non_null(strstr(c.said, "cannot reach the console at --console "));
    assert_non_null(strstr(c.said, addr));
    optcall_free(&c);
    close(fd);
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

static void write_token(const char *path, const char *tok)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fprintf(f, "%s\n", tok);
    fclose(f);
    chmod(path, 0600);
}

static void test_console(void **state)
{
    char dir[] = "/tmp/quern-ctl-XXXXXX", tokf[64], badf[64], portf[64], addr[64], err[ERR_MAX],
         *argv[] = {"run", NULL};
    unsigned port = 0;
    run_opts o;
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    taken t = {0};
    ctlsrv *s;
    optcall c;
    FILE *f;

    assert_non_null(mkdtemp(dir));
    snprintf(tokf, sizeof(tokf), "%s/token", dir);
    snprintf(badf, sizeof(badf), "%s/other", dir);
    snprintf(portf, sizeof(portf), "%s/port", dir);
    write_token(tokf, TOKEN);
    write_token(badf, TOKEN "-not");
    opts_init(&o, 1, argv);
    o.control = "127.0.0.1:0";
    o.control_port_file = portf;
    o.token_file = tokf;
    s = ctlsrv_start(&o, 20, 0, err, sizeof(err));
    assert_non_null(s);
    f = fopen(portf, "r");
    assert_int_equal(fscanf(f, "%u", &port), 1);
    fclose(f);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
    ctlsrv_attach(s, loop, take, &t);

    said(ctl(&c, "--console", addr, "pause", NULL), 2, "it asks for a token: give --token-file");
    said(ctl(&c, "--console", addr, "--token-file", badf, "pause", NULL), 2,
         "--token-file is not the run's token");
    said(ctl(&c, "--console", addr, "--token-file", tokf, "pause", NULL), 1, "refused (409): ");
    ctlsrv_running(s, 1);
    said(ctl(&c, "--console", addr, "--token-file", tokf, "pause", NULL), 0, "");
    said(ctl(&c, "--console", addr, "--token-file", tokf, "vus", "7", NULL), 0, "");
    said(ctl(&c, "--console", addr, "--token-file", tokf, "vus", "21", NULL), 2, "quern ctl: ");
    said(ctl(&c, "--console", addr, "--token-file", tokf, "rate", "200/s", NULL), 1,
         "refused (409): ");
    said(ctl(&c, "--console", addr, "--token-file", tokf, "stop", NULL), 0, "");
    ev_run(loop, EVRUN_NOWAIT);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.c[0].kind, QUERN__STEER__KIND__PAUSE);
    assert_int_equal(t.c[1].kind, QUERN__STEER__KIND__VUS);
    assert_int_equal(t.c[1].vus, 7);
    assert_int_equal(t.c[2].kind, CTLSRV_STOP);

    ctlsrv_stop(s);
    ev_loop_destroy(loop);
    o.token_file = NULL;
    o.control = NULL;
    o.control_port_file = NULL;
    opts_free(&o);
    unlink(tokf);
    unlink(badf);
    unlink(portf);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_console),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

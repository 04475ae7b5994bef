/* quern check (run_check, console/runcmd.h, which prints through console/preview.c) on a script
 * file, its stdout and stderr caught: a script that can run says so and prints its scenario and
 * steps with their test ids, the load the flags give, the thresholds (the script's and the
 * defaults), the metrics it declares, the properties it asks for (given, the default, a secret
 * masked) and those given that it does not ask for, its warnings counted; a broken script exits 2
 * with its file:line, a bad flag exits 2 naming it. Whether a check sends nothing is
 * tests/e2e/check.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mem.h"
#include "console/runcmd.h"

#include "tests/unit/scriptfile.h"

#define SAID_MAX (64 * 1024)

/* One call: what it returned, wrote on stdout and on stderr. */
typedef struct call {
    int rc;
    char out[SAID_MAX], said[SAID_MAX];
} call;

static void slurp(FILE *f, char *buf, size_t len)
{
    size_t n;

    rewind(f);
    n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* quern check with the arguments up to a NULL, into *c. */
static void check(call *c, const char *first, ...)
{
    char *argv[16];
    int argc = 0, out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
    FILE *o = tmpfile(), *e = tmpfile();
    va_list ap;

    argv[argc++] = "check";
    va_start(ap, first);
    for (const char *s = first; s != NULL && argc < 15; s = va_arg(ap, const char *))
        argv[argc++] = (char *)s;
    va_end(ap);
    argv[argc] = NULL;
    assert_non_null(o);
    assert_non_null(e);
    fflush(stdout);
    fflush(stderr);
    dup2(fileno(o), STDOUT_FILENO);
    dup2(fileno(e), STDERR_FILENO);
    optind = 0; /* getopt afresh: an earlier call parsed too */
    c->rc = run_check(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    close(out);
    close(err);
    slurp(o, c->out, sizeof(c->out));
    slurp(e, c->said, sizeof(c->said));
}

static const char script[] = "local quern = require \"quern\"\n"
                             "local base = quern.property(\"base_url\", \"http://127.0.0.1:1\")\n"
                             "local pw = quern.property(\"password\")\n"
                             "local sc = quern.scenario(\"SHOP\", { pacing = \"2s\" })\n"
                             "sc:step(1, \"Login\")\n"
                             "sc:step(2, \"Pay\")\n"
                             "quern.threshold(\"p95<500ms\")\n"
                             "quern.metric.counter(\"basket\")\n"
                             "function sc.run(vu) end\n";

static void test_can_start(void **state)
{
    char path[96], want[160];
    call *c = xcalloc(1, sizeof(*c));

    scriptfile_write(path, sizeof(path), "preview", script);
    check(c, path, "--vus", "3", "--duration", "10s", "-p", "password=hunter2", "-p", "extra=1",
          NULL);
    if (c->rc != 0)
        fail_msg("exit %d: %s", c->rc, c->said);
    snprintf(want, sizeof(want), "%s: the run can start (nothing was sent)\n", path);
    assert_non_null(strstr(c->out, want));
    assert_non_null(strstr(c->out, "scenario SHOP"));
    assert_non_null(strstr(c->out, ", pacing 2s"));
    assert_non_null(strstr(c->out, "  SC-SHOP-STEP-1"));
    assert_non_null(strstr(c->out, "SC-SHOP-STEP-2"));
    assert_non_null(strstr(c->out, "Pay"));
    assert_non_null(strstr(c->out, "load: 3 VUs"));
    assert_non_null(strstr(c->out, " for 10s"));
    assert_non_null(strstr(c->out, "thresholds:\n  p95<500ms"));
    assert_non_null(strstr(c->out, ".lua:7\n")); /* where the script gave it */
    assert_non_null(strstr(c->out, "  errors<=0%                               default\n"));
    assert_non_null(strstr(c->out, "  count>=1                                 default\n"));
    assert_non_null(strstr(c->out, "metrics:\n  basket"));
    assert_non_null(strstr(c->out, "counter"));
    assert_non_null(strstr(c->out, "properties:\n"));
    assert_non_null(strstr(c->out, "  base_url             = http://127.0.0.1:1"));
    assert_non_null(strstr(c->out, "the default"));
    assert_non_null(strstr(c->out, "  password             = ***  "));
    assert_null(strstr(c->out, "hunter2")); /* a secret, masked */
    assert_null(strstr(c->said, "hunter2"));
    assert_non_null(strstr(c->out, "given, not asked for when the script loads: extra"));
    /* its steps are never used: warned, and the run can start still */
    assert_non_null(strstr(c->out, "\n2 warnings\n"));
    assert_non_null(strstr(c->said, ":5: warning: step SC-SHOP-STEP-1 (\"Login\") is declared and "
                                    "never used"));
    unlink(path);
    xfree(c);
}

static void test_refused(void **state)
{
    char path[96], want[128];
    const char *base;
    call *c = xcalloc(1, sizeof(*c));

    base = scriptfile_write(path, sizeof(path), "preview",
                            "local quern = require \"quern\"\n"
                            "local sc = quern.scenario(\"SHOP\", {})\n"
                            "sc:step(1, \"Login\"\n"
                            "function sc.run(vu) end\n");
    check(c, path, NULL);
    assert_int_equal(c->rc, 2);
    snprintf(want, sizeof(want), "%s:", base);
    assert_non_null(strstr(c->said, want));
    assert_null(strstr(c->out, "the run can start"));
    unlink(path);

    scriptfile_write(path, sizeof(path), "preview", script);
    check(c, path, "--vus", "none", NULL);
    assert_int_equal(c->rc, 2);
    assert_non_null(strstr(c->said, "--vus"));
    assert_null(strstr(c->out, "the run can start"));
    check(c, "/nonexistent/plan.lua", NULL);
    assert_int_equal(c->rc, 2);
    assert_non_null(strstr(c->said, "/nonexistent/plan.lua"));
    unlink(path);
    xfree(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_can_start),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

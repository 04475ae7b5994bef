/* Unit tests for agent/agentopt: quern agent's flags into the agent (the
 * console's host and port, workers, name, worker memory, --same-host), their
 * defaults, and each bad flag refused with one line on stderr that names it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "common/mem.h"

#include "tests/unit/optcall.h"

/* One parse of "agent" and the arguments. */
typedef struct parsed {
    agent a;
    const char *token_file; /**< borrowed from call.argv */
    optcall call;
} parsed;

static int parse_call(void *arg)
{
    parsed *p = arg;

    return agentopt_parse(&p->a, p->call.argc, p->call.argv, &p->token_file);
}

static void parse(parsed *p, const char *first, ...)
{
    va_list ap;

    memset(p, 0, sizeof(*p));
    va_start(ap, first);
    optcall_args(&p->call, "agent", first, ap);
    va_end(ap);
    optcall_run(&p->call, parse_call, p);
}

static void parsed_free(parsed *p)
{
    xfree((char *)p->a.host); /* agent.c frees it so */
    optcall_free(&p->call);
}

static void test_values(void **state)
{
    parsed p;

    parse(&p, "--console", "10.0.0.5:7000", "--token-file", "t.tok", "--workers", "3", "--name",
          "inj1", "--worker-memory", "256M", "--same-host", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_string_equal(p.a.host, "10.0.0.5");
    assert_string_equal(p.a.port, "7000");
    assert_string_equal(p.token_file, "t.tok");
    assert_int_equal(p.a.workers, 3);
    assert_string_equal(p.a.name, "inj1");
    assert_int_equal(p.a.lua_mem, 256ull << 20);
    assert_int_equal(p.a.same_host, 1);
    assert_null(p.a.work_dir); /* $TMPDIR or /tmp */
    assert_string_equal(p.call.said, "");
    parsed_free(&p);
}

static void test_defaults(void **state)
{
    parsed p;
    char host[sizeof(p.a.name)] = "";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    gethostname(host, sizeof(host) - 1);
    parse(&p, "--token-file=t.tok", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_string_equal(p.a.host, "127.0.0.1");
    assert_string_equal(p.a.port, "6372");
    assert_int_equal(p.a.workers, cores > 0 ? (unsigned)cores : 1);
    assert_string_equal(p.a.name, host);
    assert_int_equal(p.a.lua_mem, 0); /* from the host's memory */
    assert_int_equal(p.a.same_host, 0);
    parsed_free(&p);
    /* an IPv6 console: the port after the last colon */
    parse(&p, "--console", "[::1]:7001", "--token-file", "t", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_string_equal(p.a.host, "[::1]");
    assert_string_equal(p.a.port, "7001");
    parsed_free(&p);
}

static void refused(const char *want, const char *a1, const char *a2, const char *a3,
                    const char *a4)
{
    parsed p;

    parse(&p, a1, a2, a3, a4, NULL);
    optcall_assert_refused(&p.call, want);
    parsed_free(&p);
}

static void test_errors(void **state)
{
    refused("quern agent: --workers: \"0\" is not a number from 1", "--workers", "0",
            "--token-file", "t");
    refused("--workers: \"3x\" is not a number", "--workers", "3x", "--token-file", "t");
    refused("--workers: \"\" is not a number", "--workers", "", "--token-file", "t");
    refused("--worker-memory: \"1M\" is not from 16M to 1T", "--worker-memory", "1M",
            "--token-file", "t");
    refused("quern agent: --worker-memory: ", "--worker-memory", "lots", "--token-file", "t");
    refused("--name must have 1 to", "--name", "", "--token-file", "t");
    refused("--console wants HOST:PORT, got \"nohost\"", "--console", "nohost", "--token-file",
            "t");
    refused("--console wants HOST:PORT, got \":80\"", "--console", ":80", "--token-file", "t");
    refused("--console wants HOST:PORT, got \"h:\"", "--console", "h:", "--token-file", "t");
    refused("--token-file is required", "--console", "h:1", NULL, NULL);
    refused("unknown option --bogus (see quern agent --help)", "--bogus", "--token-file", "t",
            NULL);
    refused("unknown option extra", "--token-file", "t", "extra", NULL);
    refused("--console needs a value", "--token-file", "t", "--console", NULL);
}

static void test_name_bound(void **state)
{
    parsed p;
    char longname[sizeof(p.a.name) + 1];

    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    parse(&p, "--name", longname, "--token-file", "t", NULL);
    optcall_assert_refused(&p.call, "--name must have 1 to 127 characters");
    parsed_free(&p);
    longname[sizeof(p.a.name) - 1] = '\0'; /* 127: the most */
    parse(&p, "--name", longname, "--token-file", "t", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_string_equal(p.a.name, longname);
    parsed_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_name_bound),
    };
    unsetenv("TMPDIR"); /* the default work folder, /tmp, as the agent checks it */
    return cmocka_run_group_tests(tests, NULL, NULL);
}

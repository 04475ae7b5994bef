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

#define ARGS_MAX 16

/* One parse of "agent" and the arguments, its stderr kept in said. */
typedef struct parsed {
    agent a;
    const char *token_file;   /**< borrowed from argv */
    char *argv[ARGS_MAX + 1]; /**< owned strings */
    int argc;
    int rc;
    char said[1024]; /**< what agentopt_parse wrote on stderr */
} parsed;

static void parse(parsed *p, const char *first, ...)
{
    va_list ap;
    FILE *tmp = tmpfile();
    int saved = dup(STDERR_FILENO);
    size_t n;

    memset(p, 0, sizeof(*p));
    p->argv[p->argc++] = xstrdup("agent");
    va_start(ap, first);
    for (const char *s = first; s != NULL && p->argc < ARGS_MAX; s = va_arg(ap, const char *))
        p->argv[p->argc++] = xstrdup(s);
    va_end(ap);
    assert_non_null(tmp);
    fflush(stderr);
    dup2(fileno(tmp), STDERR_FILENO);
    p->rc = agentopt_parse(&p->a, p->argc, p->argv, &p->token_file);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    n = fread(p->said, 1, sizeof(p->said) - 1, tmp);
    p->said[n] = '\0';
    fclose(tmp);
}

static void parsed_free(parsed *p)
{
    xfree((char *)p->a.host); /* agent.c frees it so */
    for (int i = 0; i < p->argc; i++)
        xfree(p->argv[i]);
}

/* The parse fails with one line on stderr holding want. */
static void assert_refused(parsed *p, const char *want)
{
    assert_int_equal(p->rc, -1);
    if (strstr(p->said, want) == NULL)
        fail_msg("stderr \"%s\" lacks \"%s\"", p->said, want);
    assert_non_null(strchr(p->said, '\n'));
    assert_string_equal(strchr(p->said, '\n'), "\n");
}

static void test_values(void **state)
{
    parsed p;

    parse(&p, "--console", "10.0.0.5:7000", "--token-file", "t.tok", "--workers", "3", "--name",
          "inj1", "--worker-memory", "256M", "--same-host", NULL);
    assert_int_equal(p.rc, 0);
    assert_string_equal(p.a.host, "10.0.0.5");
    assert_string_equal(p.a.port, "7000");
    assert_string_equal(p.token_file, "t.tok");
    assert_int_equal(p.a.workers, 3);
    assert_string_equal(p.a.name, "inj1");
    assert_int_equal(p.a.lua_mem, 256ull << 20);
    assert_int_equal(p.a.same_host, 1);
    assert_null(p.a.work_dir); /* $TMPDIR or /tmp */
    assert_string_equal(p.said, "");
    parsed_free(&p);
}

static void test_defaults(void **state)
{
    parsed p;
    char host[sizeof(p.a.name)] = "";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    gethostname(host, sizeof(host) - 1);
    parse(&p, "--token-file=t.tok", NULL);
    assert_int_equal(p.rc, 0);
    assert_string_equal(p.a.host, "127.0.0.1");
    assert_string_equal(p.a.port, "6372");
    assert_int_equal(p.a.workers, cores > 0 ? (unsigned)cores : 1);
    assert_string_equal(p.a.name, host);
    assert_int_equal(p.a.lua_mem, 0); /* from the host's memory */
    assert_int_equal(p.a.same_host, 0);
    parsed_free(&p);
    /* an IPv6 console: the port after the last colon */
    parse(&p, "--console", "[::1]:7001", "--token-file", "t", NULL);
    assert_int_equal(p.rc, 0);
    assert_string_equal(p.a.host, "[::1]");
    assert_string_equal(p.a.port, "7001");
    parsed_free(&p);
}

static void refused(const char *want, const char *a1, const char *a2, const char *a3,
                    const char *a4)
{
    parsed p;

    parse(&p, a1, a2, a3, a4, NULL);
    assert_refused(&p, want);
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
    assert_refused(&p, "--name must have 1 to 127 characters");
    parsed_free(&p);
    longname[sizeof(p.a.name) - 1] = '\0'; /* 127: the most */
    parse(&p, "--name", longname, "--token-file", "t", NULL);
    assert_int_equal(p.rc, 0);
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

/* Unit tests for console/opts: quern run's flags parsed into run_opts (both
 * --flag VALUE and --flag=VALUE, the script anywhere, -p into the overrides),
 * what they imply when left out, and each bad flag refused with one line on
 * stderr that names it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/mem.h"
#include "common/props.h"
#include "console/opts.h"

#include "tests/unit/optcall.h"

/* One parse of argv ("run" first). */
typedef struct parsed {
    run_opts o;
    props *over;  /**< owned: the -p overrides */
    optcall call; /**< its argv: the copy opts borrows from */
} parsed;

static int parse_call(void *arg)
{
    parsed *p = arg;

    return opts_parse(&p->o, p->call.argc, p->call.argv, p->over);
}

static void parse(parsed *p, const char *first, ...)
{
    va_list ap;

    memset(p, 0, sizeof(*p));
    va_start(ap, first);
    optcall_args(&p->call, "run", first, ap);
    va_end(ap);
    p->over = props_new();
    opts_init(&p->o, p->call.argc, p->call.argv);
    optcall_run(&p->call, parse_call, p);
}

static void parsed_free(parsed *p)
{
    opts_free(&p->o);
    props_free(p->over);
    optcall_free(&p->call);
}

/* The parse fails with one line on stderr holding want. */
static void refused(const char *want, const char *first, ...);

static void test_defaults(void **state)
{
    parsed p;

    parse(&p, "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_string_equal(p.o.script, "s.lua");
    assert_int_equal(p.o.vus, 1);
    assert_int_equal(p.o.runs, 1); /* neither --duration nor --runs: one run */
    assert_int_equal(p.o.duration_us, 0);
    assert_int_equal(p.o.grace_us, 5000000);
    assert_int_equal(p.o.embedded, 1); /* no --agents nor --listen: a local agent */
    assert_string_equal(p.o.listen, "127.0.0.1:0");
    assert_int_equal(p.o.agents, 1);
    assert_int_equal(p.o.vu_ids, 1);
    assert_string_equal(p.call.said, "");
    parsed_free(&p);
}

static void test_values(void **state)
{
    parsed p;

    /* the script between flags, both value forms, a short flag, -p */
    parse(&p, "--vus", "5", "s.lua", "--duration=1m30s", "-q", "-p", "host=example.test",
          "--workers", "2", "--listen", "127.0.0.1:7000", "--resolve", "a.test:443:127.0.0.1",
          NULL);
    assert_int_equal(p.call.rc, 0);
    assert_string_equal(p.o.script, "s.lua");
    assert_int_equal(p.o.vus, 5);
    assert_int_equal(p.o.duration_us, 90000000);
    assert_int_equal(p.o.runs, 0); /* a duration: no run count implied */
    assert_int_equal(p.o.quiet, 1);
    assert_int_equal(p.o.workers, 2);
    assert_int_equal(p.o.embedded, 0);
    assert_string_equal(p.o.listen, "127.0.0.1:7000");
    assert_int_equal(p.o.nresolve, 1);
    assert_string_equal(p.o.resolve[0], "a.test:443:127.0.0.1");
    assert_string_equal(props_get(p.over, "host"), "example.test");
    assert_int_equal(p.o.vu_ids, 5);
    parsed_free(&p);
}

static void test_stages(void **state)
{
    parsed p;

    parse(&p, "--stages", "10s:4,20s:2", "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_int_equal(p.o.nstages, 2);
    assert_int_equal(p.o.vus, 4);                /* the largest target */
    assert_int_equal(p.o.duration_us, 30000000); /* their length */
    assert_int_equal(p.o.runs, 0);
    parsed_free(&p);
}

static void test_trace(void **state)
{
    parsed p;

    parse(&p, "-v", "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_int_equal(p.o.trace, 1);
    assert_int_equal(p.o.quiet, 1); /* the live display would write over the trace */
    parsed_free(&p);
    parse(&p, "--trace=all", "--vus", "3", "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_int_equal(p.o.trace, 2);
    assert_string_equal(p.call.said, "");
    parsed_free(&p);
    parse(&p, "--trace", "--vus", "3", "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_non_null(strstr(p.call.said, "--trace traces VU 1 only of 3"));
    parsed_free(&p);
}

static void test_ramp_warning(void **state)
{
    parsed p;

    /* VU k starts k * 10s / 10: 0..4 s start within the 5 s */
    parse(&p, "--vus", "10", "--ramp-up", "10s", "--duration", "5s", "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    assert_non_null(strstr(p.call.said, "only 5 of the 10 VUs will start"));
    parsed_free(&p);
}

static void refused(const char *want, const char *first, ...)
{
    parsed p;
    const char *a[OPTCALL_ARGS_MAX];
    int n = 0;
    va_list ap;

    va_start(ap, first);
    for (const char *s = first; s != NULL && n < OPTCALL_ARGS_MAX - 1; s = va_arg(ap, const char *))
        a[n++] = s;
    va_end(ap);
    while (n < OPTCALL_ARGS_MAX)
        a[n++] = NULL;
    parse(&p, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
          a[13], a[14], NULL);
    optcall_assert_refused(&p.call, want);
    parsed_free(&p);
}

static void test_errors(void **state)
{
    refused("quern run: --vus: \"0\" is not a whole number from 1 to 10000000", "--vus", "0",
            "s.lua", NULL);
    refused("--vus: \"5x\" is not a whole number", "--vus=5x", "s.lua", NULL);
    refused("--runs: \"-1\" is not a whole number", "--runs", "-1", "s.lua", NULL);
    refused("--vus needs a value", "s.lua", "--vus", NULL);
    refused("unknown option --bogus", "--bogus=1", "s.lua", NULL);
    refused("unknown option -Z", "-Z", "s.lua", NULL);
    refused("--quiet takes no value", "--quiet=1", "s.lua", NULL);
    refused("one script only, got also \"b.lua\"", "a.lua", "b.lua", NULL);
    refused("no script given", "--vus", "2", NULL);
    refused("quern run: --duration: ", "--duration", "soon", "s.lua", NULL);
    refused("--stages and --vus cannot be used together", "--stages", "10s:4", "--vus", "3",
            "s.lua", NULL);
    refused("--rate needs --duration", "--rate", "10/s", "s.lua", NULL);
    refused("--rate and --runs cannot be used together", "--rate", "10/s", "--duration", "10s",
            "--runs", "2", "s.lua", NULL);
    refused("--trace=some: the only value is \"all\"", "--trace=some", "s.lua", NULL);
    refused("--source-addrs: \"nope\" is not an IP address", "--source-addrs", "127.0.0.1,nope",
            "s.lua", NULL);
    refused("--monitor-metric needs --monitor", "--monitor-metric", "up", "s.lua", NULL);
    refused("--max-lag: the lag must be above 0", "--max-lag", "0s", "s.lua", NULL);
    refused("quern run: --resolve: ", "--resolve", "quern.test:nope", "s.lua", NULL);
}

static void test_own_files(void **state)
{
    parsed p;
    const char *f[OPTS_OWN_FILES_MAX];
    size_t n;
    int jtl = 0, sum = 0;

    parse(&p, "--jtl", "r.jtl", "--summary-json", "s.json", "s.lua", NULL);
    assert_int_equal(p.call.rc, 0);
    n = opts_own_files(&p.o, f);
    for (size_t i = 0; i < n; i++) {
        jtl += strcmp(f[i], "r.jtl") == 0;
        sum += strcmp(f[i], "s.json") == 0;
    }
    assert_int_equal(jtl, 1); /* never shipped to the agents */
    assert_int_equal(sum, 1);
    parsed_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),     cmocka_unit_test(test_values),
        cmocka_unit_test(test_stages),       cmocka_unit_test(test_trace),
        cmocka_unit_test(test_ramp_warning), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_own_files),
    };
    /* a CI box's default would hide nothing here, but keep the parse the same everywhere */
    unsetenv(OPTS_ALLOW_SATURATION_ENV);
    return cmocka_run_group_tests(tests, NULL, NULL);
}

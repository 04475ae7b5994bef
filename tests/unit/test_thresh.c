/* Unit tests for console/thresh: parsing, evaluation, --abort-on-fail. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "console/thresh.h"
#include "console/threshtally.h"

#include <math.h>
#include <string.h>

#define MS 1000ULL
#define S 1000000ULL

/* ---- helpers */

static thresh *parse_ok(const char *expr)
{
    char err[ERR_MAX] = "";
    thresh *t = thresh_parse(expr, err, sizeof(err));
    if (t == NULL)
        fail_msg("thresh_parse(\"%s\") failed: %s", expr, err);
    return t;
}

static void parse_fails(const char *expr, const char *want)
{
    char err[ERR_MAX] = "";
    thresh *t = thresh_parse(expr, err, sizeof(err));
    if (t != NULL) {
        thresh_free(t);
        fail_msg("thresh_parse(\"%s\") accepted it", expr);
    }
    if (strstr(err, want) == NULL)
        fail_msg("thresh_parse(\"%s\"): error \"%s\" lacks \"%s\"", expr, err, want);
}

/* Three steps, as a script declaring two scenarios would have them. */
static const char *const ids[] = {"SC-A-STEP-1", "SC-A-STEP-2", "SC-B-STEP-1"};
static const char *const names[] = {"SC-A-STEP-1)home", "SC-A-STEP-2)search", "SC-B-STEP-1)login"};

/* One step's content for a hand-built interval. */
typedef struct fill {
    uint64_t us; /* latency recorded n times */
    uint64_t n;
    uint64_t us2; /* a second latency recorded n2 times */
    uint64_t n2;
    uint64_t err_tech, err_func;
} fill;

/* a gets one interval of length_s seconds where step i holds f[i]. */
static void build(agg *a, const fill f[3], double length_s)
{
    step_stats steps[3];
    uint64_t runs[1] = {1}, missed[1] = {0};

    agg_init(a, 3, 1);
    for (size_t i = 0; i < 3; i++) {
        stats_init(&steps[i]);
        hist_record_n(steps[i].hist, f[i].us, f[i].n);
        hist_record_n(steps[i].hist, f[i].us2, f[i].n2);
        steps[i].count = f[i].n + f[i].n2;
        steps[i].err_tech = f[i].err_tech;
        steps[i].err_func = f[i].err_func;
    }
    agg_add(a, steps, runs, missed, (int64_t)(length_s * 1e6), 10);
    for (size_t i = 0; i < 3; i++)
        stats_free(&steps[i]);
}

/* Parses expr, evaluates it on a over elapsed_s and returns the verdict. */
static int eval(const char *expr, const agg *a, double elapsed_s, thresh_result *r)
{
    thresh *t = parse_ok(expr);
    int passed = thresh_eval(t, a, ids, names, elapsed_s, r);
    assert_int_equal(passed, r->passed);
    thresh_free(t);
    return passed;
}

static void assert_desc(const thresh_result *r, const char *want)
{
    if (strcmp(r->desc, want) != 0)
        fail_msg("desc \"%s\", want \"%s\"", r->desc, want);
}

/* ---- parsing */

static void test_parse_latency(void **state)
{
    thresh *t = parse_ok("p95<500ms");
    assert_int_equal(t->metric, THRESH_PERCENTILE);
    assert_true(t->pct == 95.0);
    assert_int_equal(t->op, THRESH_LT);
    assert_int_equal(t->limit_us, 500 * MS);
    assert_null(t->scope);
    assert_string_equal(t->expr, "p95<500ms");
    thresh_free(t);

    t = parse_ok("p99<=1s");
    assert_int_equal(t->op, THRESH_LE);
    assert_int_equal(t->limit_us, S);
    thresh_free(t);

    t = parse_ok("mean<200ms");
    assert_int_equal(t->metric, THRESH_MEAN);
    assert_int_equal(t->limit_us, 200 * MS);
    thresh_free(t);

    t = parse_ok("avg<200ms");
    assert_int_equal(t->metric, THRESH_MEAN);
    thresh_free(t);

    t = parse_ok("max<2s");
    assert_int_equal(t->metric, THRESH_MAX);
    assert_int_equal(t->limit_us, 2 * S);
    thresh_free(t);

    /* a bare number is milliseconds, fractions allowed */
    t = parse_ok("p50<100");
    assert_int_equal(t->limit_us, 100 * MS);
    thresh_free(t);
    t = parse_ok("p99.9<0.5");
    assert_true(t->pct == 99.9);
    assert_int_equal(t->limit_us, 500);
    thresh_free(t);

    t = parse_ok("p0>=1m30s");
    assert_true(t->pct == 0.0);
    assert_int_equal(t->op, THRESH_GE);
    assert_int_equal(t->limit_us, 90 * S);
    thresh_free(t);

    t = parse_ok("p100>250us");
    assert_true(t->pct == 100.0);
    assert_int_equal(t->op, THRESH_GT);
    assert_int_equal(t->limit_us, 250);
    thresh_free(t);

    /* white space around the parts, kept out of expr's ends */
    t = parse_ok("  p95 <  500ms ");
    assert_int_equal(t->limit_us, 500 * MS);
    assert_string_equal(t->expr, "p95 <  500ms");
    thresh_free(t);
}

static void test_parse_errors(void **state)
{
    thresh *t = parse_ok("errors<1%");
    assert_int_equal(t->metric, THRESH_ERRORS);
    assert_int_equal(t->limit_pct_e9, 1000000000ULL);
    thresh_free(t);

    t = parse_ok("errors.technical<0.5%");
    assert_int_equal(t->metric, THRESH_ERR_TECH);
    assert_int_equal(t->limit_pct_e9, 500000000ULL);
    thresh_free(t);

    t = parse_ok("errors.functional<=1%");
    assert_int_equal(t->metric, THRESH_ERR_FUNC);
    assert_int_equal(t->op, THRESH_LE);
    thresh_free(t);

    t = parse_ok("errors < 0.001 %");
    assert_int_equal(t->limit_pct_e9, 1000000ULL);
    thresh_free(t);

    t = parse_ok("errors<100%");
    assert_int_equal(t->limit_pct_e9, 100000000000ULL);
    thresh_free(t);

    t = parse_ok("errors<=0%");
    assert_int_equal(t->limit_pct_e9, 0);
    thresh_free(t);

    t = parse_ok("errors<.5%");
    assert_int_equal(t->limit_pct_e9, 500000000ULL);
    thresh_free(t);
}

static void test_parse_tps_count(void **state)
{
    thresh *t = parse_ok("tps>100");
    assert_int_equal(t->metric, THRESH_TPS);
    assert_int_equal(t->op, THRESH_GT);
    assert_true(t->limit_tps == 100.0);
    thresh_free(t);

    t = parse_ok("tps>=12.5/s");
    assert_true(t->limit_tps == 12.5);
    thresh_free(t);

    t = parse_ok("count>=1000");
    assert_int_equal(t->metric, THRESH_COUNT);
    assert_int_equal(t->op, THRESH_GE);
    assert_int_equal(t->limit_count, 1000);
    thresh_free(t);

    t = parse_ok("count<18446744073709551615");
    assert_int_equal(t->limit_count, UINT64_MAX);
    thresh_free(t);
}

static void test_parse_scope(void **state)
{
    thresh *t = parse_ok("SC-CONSULTATION-PROFIL-STEP-2: p99<1s");
    assert_string_equal(t->scope, "SC-CONSULTATION-PROFIL-STEP-2");
    assert_int_equal(t->metric, THRESH_PERCENTILE);
    assert_true(t->pct == 99.0);
    assert_int_equal(t->limit_us, S);
    thresh_free(t);

    t = parse_ok("SC-*-STEP-1: p95<300ms");
    assert_string_equal(t->scope, "SC-*-STEP-1");
    thresh_free(t);

    t = parse_ok("  SC-X-STEP-[12]  :errors<1%");
    assert_string_equal(t->scope, "SC-X-STEP-[12]");
    assert_int_equal(t->metric, THRESH_ERRORS);
    thresh_free(t);

    /* the scope ends at the last ':' */
    t = parse_ok("*)a:b: count>0");
    assert_string_equal(t->scope, "*)a:b");
    thresh_free(t);
}

static void test_parse_bad(void **state)
{
    static const struct {
        const char *expr, *want;
    } cases[] = {
        {"p95<abc", "'p95<abc': \"abc\" is not a duration"},
        {"p95<500xs", "\"500xs\" is not a duration"},
        {"p95<-5ms", "\"-5ms\" is not a duration"},
        {"p95<500ms extra", "\"500ms extra\" is not a duration"},
        {"p95<1.2.3", "\"1.2.3\" is not a duration"},
        {"", "empty threshold"},
        {"   ", "empty threshold"},
        {"p95", "'p95': no comparison after \"p95\""},
        {"p95<", "'p95<': no limit"},
        {"p95< ", "no limit"},
        {"p95=500ms", "\"=\" is not a comparison (use <, <=, > or >=)"},
        {"p95==500ms", "\"==\" is not a comparison"},
        {"p95!=500ms", "\"!=\" is not a comparison"},
        {"p95 500ms", "unexpected \"500ms\" after \"p95\""},
        {"p101<1s", "a percentile is from p0 to p100"},
        {"p<1s", "unknown metric \"p\""},
        {"p9x<1s", "unknown metric \"p9x\""},
        {"latency<1s", "unknown metric \"latency\""},
        {"P95<1s", "unknown metric \"P95\""},
        {"<1s", "no metric before the operator"},
        {": p95<1s", "nothing before ':'"},
        {"errors<1", "'errors<1': \"1\" is not a percentage"},
        {"errors<abc%", "\"abc%\" is not a percentage"},
        {"errors<%", "\"%\" is not a percentage"},
        {"errors<-1%", "\"-1%\" is not a percentage"},
        {"errors<101%", "an error rate is from 0% to 100%"},
        {"errors<100.5%", "from 0% to 100%"},
        {"errors<99999999999999999999%", "from 0% to 100%"},
        {"errors<0.0000000001%", "more than 9 decimals"},
        {"tps>fast", "\"fast\" is not a rate"},
        {"tps>-1", "\"-1\" is not a rate"},
        {"count>=1e3", "\"1e3\" is not a whole number"},
        {"count>=-5", "\"-5\" is not a whole number"},
        {"count>=2.5", "\"2.5\" is not a whole number"},
        {"count>99999999999999999999", "is not a whole number"},
    };
    char big[THRESH_EXPR_MAX + 10];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        parse_fails(cases[i].expr, cases[i].want);
    parse_fails(NULL, "empty threshold");
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    parse_fails(big, "longer than 512 bytes");
    /* a NULL error buffer is fine */
    assert_null(thresh_parse("p95<abc", NULL, 0));
    thresh_free(NULL);
}

/* ---- evaluation */

static void test_eval_percentile_boundary(void **state)
{
    fill f[3] = {{500 * MS, 100, 0, 0, 0, 0}, {0}, {0}};
    thresh_result r;
    agg a;

    build(&a, f, 10);
    /* every sample is 500 ms: p95 is exactly 500 ms */
    assert_false(eval("SC-A-STEP-1: p95<500ms", &a, 10, &r));
    assert_true(r.measured == 500.0);
    assert_true(r.limit == 500.0);
    assert_int_equal(r.samples, 100);
    assert_int_equal(r.nsteps, 1);
    assert_desc(&r, "p95 of SC-A-STEP-1 = 500 ms, limit < 500 ms");
    assert_true(eval("SC-A-STEP-1: p95<=500ms", &a, 10, &r));
    assert_true(eval("SC-A-STEP-1: p95<500.001", &a, 10, &r));
    assert_false(eval("SC-A-STEP-1: p95<=499.999", &a, 10, &r));
    assert_true(eval("SC-A-STEP-1: p95>=0.5s", &a, 10, &r));
    assert_false(eval("SC-A-STEP-1: p95>0.5s", &a, 10, &r));
    assert_desc(&r, "p95 of SC-A-STEP-1 = 500 ms, limit > 500 ms");
    agg_free(&a);
}

static void test_eval_mean_max(void **state)
{
    /* 100 ms and 300 ms: mean exactly 200 ms, max exactly 300 ms */
    fill f[3] = {{100 * MS, 50, 300 * MS, 50, 0, 0}, {0}, {0}};
    thresh_result r;
    agg a;

    build(&a, f, 10);
    assert_false(eval("mean<200ms", &a, 10, &r));
    assert_true(r.measured == 200.0);
    assert_desc(&r, "mean of all steps = 200 ms, limit < 200 ms");
    assert_true(eval("mean<=200ms", &a, 10, &r));
    assert_true(eval("avg<200.001", &a, 10, &r));
    assert_false(eval("max<300ms", &a, 10, &r));
    assert_true(r.measured == 300.0);
    assert_true(eval("max<=300ms", &a, 10, &r));
    assert_true(eval("max<0.3001s", &a, 10, &r));
    /* p50 is the lower value, p51 the upper (nearest rank) */
    assert_true(eval("p50<=100.4", &a, 10, &r));
    assert_false(eval("p51<=100.4", &a, 10, &r));
    agg_free(&a);
}

/* service.pN, service.mean, service.max: the service times; the plain
 * metrics stay the response times. */
static void test_service(void **state)
{
    step_stats steps[3];
    uint64_t runs[1] = {1}, missed[1] = {0};
    thresh_result r;
    agg a;

    agg_init(&a, 3, 1);
    for (size_t i = 0; i < 3; i++)
        stats_init(&steps[i]);
    /* step 1: 90 on time at 10 ms, 10 that waited 2 s before a 20 ms service */
    for (int i = 0; i < 90; i++)
        stats_record(&steps[0], 10 * MS, 10 * MS);
    for (int i = 0; i < 10; i++)
        stats_record(&steps[0], 2020 * MS, 20 * MS);
    steps[0].count = 100;
    /* step 3: on time, 30 ms */
    stats_record(&steps[2], 30 * MS, 30 * MS);
    steps[2].count = 1;
    agg_add(&a, steps, runs, missed, 10000000, 10);
    for (size_t i = 0; i < 3; i++)
        stats_free(&steps[i]);

    assert_false(eval("p95<1s", &a, 10, &r));
    assert_true(eval("service.p95<1s", &a, 10, &r));
    assert_desc(&r, "service.p95 of all steps = 20.032 ms, limit < 1000 ms");
    assert_true(eval("service.max<=30ms", &a, 10, &r)); /* merged with step 3 */
    assert_false(eval("SC-A-STEP-1: service.max<20ms", &a, 10, &r));
    assert_true(eval("SC-B-STEP-1: service.p99<=30ms", &a, 10, &r)); /* on time: the same */
    assert_true(eval("SC-A-STEP-1: service.mean<=11ms", &a, 10, &r));
    assert_false(eval("SC-A-STEP-1: mean<=11ms", &a, 10, &r));
    parse_fails("service.errors<1%", "service. goes with pN, mean or max");
    parse_fails("service.service.p95<1s", "unknown metric");
    parse_fails("service.<1s", "unknown metric");
    agg_free(&a);
}

static void test_eval_merged(void **state)
{
    /* no scope: all steps merged, histograms included */
    fill f[3] = {{10 * MS, 100, 0, 0, 0, 0}, {S, 100, 0, 0, 0, 0}, {0}};
    thresh_result r;
    agg a;

    build(&a, f, 10);
    assert_true(eval("p50<10.1", &a, 10, &r));
    /* a percentile is within 0.4 % of the true value */
    assert_true(fabs(r.measured - 10.0) <= 10.0 / 256);
    assert_int_equal(r.samples, 200);
    assert_int_equal(r.nsteps, 3);
    assert_false(eval("p50<10ms", &a, 10, &r));
    assert_true(eval("p95>=1s", &a, 10, &r));
    assert_desc(&r, "p95 of all steps = 1000 ms, limit >= 1000 ms");
    assert_false(eval("p95<1s", &a, 10, &r));
    assert_true(eval("mean<=505ms", &a, 10, &r));
    assert_false(eval("mean<505ms", &a, 10, &r));
    assert_true(eval("count>=200", &a, 10, &r));
    assert_false(eval("count>200", &a, 10, &r));
    agg_free(&a);
}

static void test_eval_errors(void **state)
{
    /* 200 samples, 1 technical and 1 functional error: 1 % exactly */
    fill f[3] = {{MS, 100, 0, 0, 1, 0}, {MS, 100, 0, 0, 0, 1}, {0}};
    thresh_result r;
    agg a;

    build(&a, f, 10);
    assert_false(eval("errors<1%", &a, 10, &r));
    assert_true(r.measured == 1.0);
    assert_true(r.limit == 1.0);
    assert_desc(&r, "errors of all steps = 1 % (2 of 200), limit < 1 %");
    assert_true(eval("errors<=1%", &a, 10, &r));
    assert_true(eval("errors<1.000000001%", &a, 10, &r));
    assert_false(eval("errors.technical<0.5%", &a, 10, &r));
    assert_desc(&r, "errors.technical of all steps = 0.5 % (1 of 200), limit < 0.5 %");
    assert_true(eval("errors.technical<=0.5%", &a, 10, &r));
    assert_true(eval("errors.functional<=0.5%", &a, 10, &r));
    assert_false(eval("errors.functional<0.5%", &a, 10, &r));
    /* scoped: step 1 has 1 technical error of 100 */
    assert_false(eval("SC-A-STEP-1: errors<1%", &a, 10, &r));
    assert_true(eval("SC-A-STEP-1: errors.functional<1%", &a, 10, &r));
    assert_true(eval("SC-A-STEP-1: errors<1.5%", &a, 10, &r));
    agg_free(&a);

    /* 1 of 1000 is exactly 0.1 %, which is not exact in binary */
    fill g[3] = {{MS, 1000, 0, 0, 1, 0}, {0}, {0}};
    build(&a, g, 10);
    assert_true(eval("errors<=0.1%", &a, 10, &r));
    assert_false(eval("errors<0.1%", &a, 10, &r));
    assert_true(eval("errors>=0.1%", &a, 10, &r));
    assert_false(eval("errors>0.1%", &a, 10, &r));
    agg_free(&a);
}

static void test_eval_tps_count(void **state)
{
    fill f[3] = {{MS, 600, 0, 0, 0, 0}, {MS, 400, 0, 0, 0, 0}, {0}};
    thresh_result r;
    agg a;

    build(&a, f, 10);
    /* 1000 samples in 10 s */
    assert_false(eval("tps>100", &a, 10, &r));
    assert_true(r.measured == 100.0);
    assert_desc(&r, "tps of all steps = 100/s (1000 in 10 s), limit > 100/s");
    assert_true(eval("tps>=100", &a, 10, &r));
    assert_true(eval("tps>99.9", &a, 10, &r));
    assert_true(eval("tps<=100/s", &a, 10, &r));
    assert_true(eval("tps>100", &a, 9.5, &r));
    assert_true(eval("SC-A-STEP-1: tps>=60", &a, 10, &r));
    assert_false(eval("SC-A-STEP-1: tps>60", &a, 10, &r));
    /* no elapsed time: no rate */
    assert_false(eval("tps>0", &a, 0, &r));
    assert_true(r.measured == 0.0);

    assert_true(eval("count>=1000", &a, 10, &r));
    assert_desc(&r, "count of all steps = 1000, limit >= 1000");
    assert_false(eval("count>1000", &a, 10, &r));
    assert_true(eval("count<1001", &a, 10, &r));
    assert_false(eval("count<1000", &a, 10, &r));
    assert_true(eval("SC-A-STEP-2: count<=400", &a, 10, &r));
    agg_free(&a);
}

static void test_eval_globs(void **state)
{
    fill f[3] = {{10 * MS, 10, 0, 0, 0, 0}, {20 * MS, 20, 0, 0, 0, 0}, {30 * MS, 30, 0, 0, 0, 0}};
    thresh_result r;
    char err[ERR_MAX];
    thresh *t;
    agg a;

    build(&a, f, 10);
    /* SC-A-STEP-1 and SC-B-STEP-1 */
    assert_true(eval("SC-*-STEP-1: count>=40", &a, 10, &r));
    assert_int_equal(r.nsteps, 2);
    assert_int_equal(r.samples, 40);
    assert_desc(&r, "count of SC-*-STEP-1 (2 steps) = 40, limit >= 40");
    assert_true(eval("SC-*-STEP-1: max<=30ms", &a, 10, &r));
    assert_false(eval("SC-*-STEP-1: p50<30ms", &a, 10, &r));
    assert_true(eval("SC-*-STEP-1: p25<=10.1", &a, 10, &r));
    assert_false(eval("SC-*-STEP-1: p26<=10.1", &a, 10, &r));
    /* the whole scenario A */
    assert_true(eval("SC-A-*: count<=30", &a, 10, &r));
    assert_int_equal(r.nsteps, 2);
    assert_true(eval("SC-?-STEP-[2]: count>=20", &a, 10, &r));
    assert_int_equal(r.nsteps, 1);
    /* display names match too */
    assert_true(eval("*)login: count>=30", &a, 10, &r));
    assert_desc(&r, "count of SC-B-STEP-1 = 30, limit >= 30");
    assert_true(eval("*: count>=60", &a, 10, &r));
    assert_int_equal(r.nsteps, 3);
    /* an exact id is a glob too; case matters */
    assert_false(eval("sc-a-step-1: count>0", &a, 10, &r));

    /* a glob that matches no step fails, with a clear description */
    assert_false(eval("SC-Z-*: p95<1s", &a, 10, &r));
    assert_int_equal(r.nsteps, 0);
    assert_desc(&r, "p95 of SC-Z-*: no step matches \"SC-Z-*\"");
    assert_false(eval("SC-Z-*: count>=0", &a, 10, &r));

    t = parse_ok("SC-Z-*: p95<1s");
    assert_int_equal(thresh_check_scope(t, ids, names, 3, err, sizeof(err)), -1);
    assert_string_equal(err, "'SC-Z-*: p95<1s': no step matches \"SC-Z-*\" "
                             "(steps are named like SC-A-STEP-1)");
    thresh_free(t);
    t = parse_ok("*)search: p95<1s");
    assert_int_equal(thresh_check_scope(t, ids, names, 3, err, sizeof(err)), 0);
    assert_int_equal(thresh_check_scope(t, ids, NULL, 3, err, sizeof(err)), -1);
    assert_true(thresh_covers(t, "SC-A-STEP-2", "SC-A-STEP-2)search"));
    assert_false(thresh_covers(t, "SC-A-STEP-2", NULL));
    thresh_free(t);
    t = parse_ok("p95<1s");
    assert_int_equal(thresh_check_scope(t, ids, names, 0, err, sizeof(err)), 0);
    assert_true(thresh_covers(t, "anything", NULL));
    thresh_free(t);
    agg_free(&a);
}

static void test_eval_no_samples(void **state)
{
    fill f[3] = {{0}, {0}, {0}};
    thresh_result r;
    agg a;

    build(&a, f, 10);
    /* a response time or error rate that could not be measured is no pass */
    assert_false(eval("p95<1s", &a, 10, &r));
    assert_desc(&r, "p95 of all steps: no samples, limit < 1000 ms");
    assert_false(eval("SC-A-STEP-1: mean>=0", &a, 10, &r));
    assert_false(eval("errors<=100%", &a, 10, &r));
    assert_desc(&r, "errors of all steps: no samples, limit <= 100 %");
    /* counts and rates are measured as 0 */
    assert_true(eval("count<1", &a, 10, &r));
    assert_true(eval("tps<=0", &a, 10, &r));
    assert_false(eval("count>0", &a, 10, &r));
    agg_free(&a);

    /* no step at all */
    agg_init(&a, 0, 0);
    assert_false(eval("p95<1s", &a, 10, &r));
    assert_true(eval("count<=0", &a, 10, &r));
    assert_false(eval("SC-A-STEP-1: count<=0", &a, 10, &r));
    agg_free(&a);
}

static void test_eval_accumulates(void **state)
{
    /* thresh_eval reads the totals: two intervals add up */
    step_stats s;
    uint64_t runs = 0, missed = 0;
    thresh_result r;
    agg a;

    agg_init(&a, 1, 1);
    stats_init(&s);
    hist_record_n(s.hist, 100 * MS, 99);
    s.count = 99;
    agg_add(&a, &s, &runs, &missed, 1000000, 1);
    stats_reset(&s);
    hist_record(s.hist, 5 * S);
    s.count = 1;
    s.err_tech = 1;
    agg_add(&a, &s, &runs, &missed, 1000000, 1);
    stats_free(&s);
    assert_true(eval("p99<101ms", &a, 2, &r));
    assert_false(eval("p99.5<101ms", &a, 2, &r));
    assert_false(eval("max<5s", &a, 2, &r));
    assert_true(eval("errors<=1%", &a, 2, &r));
    assert_true(eval("tps>=50", &a, 2, &r));
    agg_free(&a);
}

/* The open model's arrivals, counts of every scenario together. */
static void test_arrivals(void **state)
{
    step_stats s;
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    rate_counts arr[2] = {{100, 90, 20, 10, 0, 0}, {50, 50, 5, 0, 0, 0}};
    thresh_result r;
    thresh *t;
    agg a;

    agg_init(&a, 1, 2);
    stats_init(&s);
    s.count = 140;
    hist_record_n(s.hist, 10 * MS, 140);
    agg_add(&a, &s, runs, missed, 1000000, 1);
    agg_add_arrivals(&a, arr);
    stats_free(&s);
    t = parse_ok("arrivals.dropped<=0");
    assert_int_equal(t->metric, THRESH_ARR_DROPPED);
    assert_int_equal(t->limit_count, 0);
    thresh_free(t);
    assert_false(eval("arrivals.dropped<=0", &a, 1, &r));
    assert_string_equal(r.desc, "arrivals.dropped of every scenario = 10, limit <= 0");
    assert_true(eval("arrivals.late<30", &a, 1, &r));
    assert_false(eval("arrivals.late<25", &a, 1, &r));
    assert_true(eval("arrivals.scheduled>=150", &a, 1, &r));
    assert_true(eval("arrivals.started>=140", &a, 1, &r));
    parse_fails("SC-X-STEP-1: arrivals.late<1", "without a scope");
    parse_fails("arrivals.late<1%", "");
    agg_free(&a);
}

/* ---- --abort-on-fail */

/* thresh_can_still_pass for expr on result r after elapsed_s. */
static int can_pass(const char *expr, int passed, uint64_t samples, size_t nsteps, double elapsed_s)
{
    thresh *t = parse_ok(expr);
    thresh_result r;
    int rc;

    memset(&r, 0, sizeof(r));
    r.passed = passed;
    r.samples = samples;
    r.nsteps = nsteps;
    rc = thresh_can_still_pass(t, &r, elapsed_s);
    thresh_free(t);
    return rc;
}

static void test_can_still_pass(void **state)
{
    /* passing now: may still pass */
    assert_true(can_pass("p95<1s", 1, 1000, 3, 60));
    /* recoverable metrics wait for 10 s and 100 samples */
    assert_true(can_pass("p95<1s", 0, 1000, 3, 9.9));
    assert_true(can_pass("p95<1s", 0, 99, 3, 60));
    assert_false(can_pass("p95<1s", 0, 100, 3, 10));
    assert_false(can_pass("mean<1s", 0, 100, 3, 10));
    assert_false(can_pass("errors<1%", 0, 500, 3, 30));
    assert_true(can_pass("errors<1%", 0, 0, 3, 30));
    assert_false(can_pass("p95>1s", 0, 500, 3, 30));
    assert_false(can_pass("tps<100", 0, 500, 3, 30));
    assert_true(can_pass("tps<100", 0, 500, 3, 5));
    /* tps> and count> never abort: they may still grow */
    assert_true(can_pass("tps>100", 0, 100000, 3, 3600));
    assert_true(can_pass("tps>=100", 0, 100000, 3, 3600));
    assert_true(can_pass("count>1000", 0, 10, 3, 3600));
    assert_true(can_pass("count>=1000", 0, 10, 3, 3600));
    assert_true(can_pass("max>1s", 0, 10000, 3, 3600));
    /* count and max only grow: a failed "<" is final at once */
    assert_false(can_pass("count<1000", 0, 1001, 3, 0.5));
    assert_false(can_pass("count<=1000", 0, 1001, 3, 0.5));
    assert_false(can_pass("max<2s", 0, 1, 3, 0.5));
    assert_false(can_pass("SC-A-*: max<=2s", 0, 1, 2, 0.5));
    /* a scope that matches nothing never will */
    assert_false(can_pass("SC-Z-*: p95<1s", 0, 0, 0, 0));
    assert_false(can_pass("SC-Z-*: count>1", 0, 0, 0, 0));
}

static void test_abort_on_partial_data(void **state)
{
    /* the way run.c uses it: evaluate the totals so far, then decide */
    fill f[3] = {{2 * S, 150, 0, 0, 0, 0}, {0}, {0}};
    thresh *t = parse_ok("p95<500ms");
    thresh_result r;
    agg a;

    build(&a, f, 12);
    assert_false(thresh_eval(t, &a, ids, names, 12, &r));
    assert_false(thresh_can_still_pass(t, &r, 12));
    assert_true(thresh_can_still_pass(t, &r, 8));
    thresh_free(t);
    agg_free(&a);
}

/* Units, and whether a verdict measured anything (NULL in the database). */
static void test_unit_and_measured(void **state)
{
    static const struct {
        const char *expr;
        const char *unit;
    } units[] = {{"p95<1s", "ms"},
                 {"mean<1", "ms"},
                 {"max<1", "ms"},
                 {"errors<1%", "%"},
                 {"errors.functional<1%", "%"},
                 {"tps>1", "/s"},
                 {"count>1", ""}};
    fill empty[3] = {{0}, {0}, {0}}, some[3] = {{10 * MS, 5, 0, 0, 0, 0}, {0}, {0}};
    thresh_result r;
    thresh *t;
    agg a;

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        t = parse_ok(units[i].expr);
        assert_string_equal(thresh_unit(t), units[i].unit);
        thresh_free(t);
    }
    build(&a, empty, 10);
    t = parse_ok("p95<1s");
    thresh_eval(t, &a, ids, names, 10, &r);
    assert_false(thresh_measured(t, &r)); /* no sample */
    thresh_free(t);
    t = parse_ok("count<1");
    thresh_eval(t, &a, ids, names, 10, &r);
    assert_true(thresh_measured(t, &r)); /* a count of 0 is a measure */
    thresh_free(t);
    agg_free(&a);
    build(&a, some, 10);
    t = parse_ok("SC-A-STEP-1: p95<1s");
    thresh_eval(t, &a, ids, names, 10, &r);
    assert_true(thresh_measured(t, &r));
    thresh_free(t);
    t = parse_ok("SC-A-STEP-2: p95<1s");
    thresh_eval(t, &a, ids, names, 10, &r);
    assert_false(thresh_measured(t, &r)); /* that step had no sample */
    thresh_free(t);
    t = parse_ok("SC-Z-*: count>=0");
    thresh_eval(t, &a, ids, names, 10, &r);
    assert_false(thresh_measured(t, &r)); /* no step in scope */
    thresh_free(t);
    agg_free(&a);
}

/* ---- soft checks and custom metrics (console/threshtally.h) */

static void test_checks_and_metrics(void **state)
{
    agg a;
    thresh_result r;
    thresh *t;
    char err[ERR_MAX];
    int c, k, g, tr;
    fill f[3] = {{1000, 10, 0, 0, 0, 0}, {0}, {0}};

    build(&a, f, 10);
    /* a name runs to the last '}', a ':' inside it is no scope */
    t = parse_ok("checks{a: b}>=99.5%");
    assert_int_equal(t->metric, THRESH_CHECKS);
    assert_string_equal(t->name, "a: b");
    assert_null(t->scope);
    thresh_free(t);
    t = parse_ok("metric{basket}:p99.9<200");
    assert_string_equal(t->field, "p99.9");
    assert_true(t->pct == 99.9 && t->limit_val == 200);
    thresh_free(t);
    parse_fails("checks{x}.rate>1%", "a check has no field");
    parse_fails("metric{x}.p101<3", "not a metric's field");
    parse_fails("metric{x-y}>3", "is not a metric name");
    parse_fails("metric{x}>3ms", "is not a number");
    parse_fails("checks>=101%", "0% to 100%");

    /* nothing recorded: every one fails */
    assert_false(eval("checks>=0%", &a, 10, &r));
    assert_desc(&r, "checks: no check ran, limit >= 0 %");
    assert_false(eval("metric{orders}>=0", &a, 10, &r));

    c = tally_check_id(&a.tally, "status is 200");
    a.tally.checks[c].passes = 9;
    a.tally.checks[c].fails = 1;
    a.tally.checks[tally_check_id(&a.tally, "body")].passes = 10;
    assert_true(eval("checks>=95%", &a, 10, &r)); /* 19 of 20 */
    assert_desc(&r, "checks = 95 % (19 of 20 passed), limit >= 95 %");
    assert_false(eval("checks>95%", &a, 10, &r));
    assert_false(eval("checks{status is 200}>=90.000000001%", &a, 10, &r));
    assert_true(eval("checks{status is 200}>=90%", &a, 10, &r));
    assert_false(eval("checks{no such}>=0%", &a, 10, &r));
    assert_desc(&r, "checks{no such}: no such check ran, limit >= 0 %");

    k = tally_metric_def(&a.tally, "orders", TALLY_COUNTER, err, sizeof(err));
    g = tally_metric_def(&a.tally, "queue", TALLY_GAUGE, err, sizeof(err));
    tr = tally_metric_def(&a.tally, "basket", TALLY_TREND, err, sizeof(err));
    tally_counter_add(&a.tally.metrics[k], 30);
    tally_gauge_set(&a.tally.metrics[g], 7, 1);
    tally_gauge_set(&a.tally.metrics[g], 2, 2);
    for (int i = 1; i <= 100; i++)
        tally_trend_add(&a.tally.metrics[tr], i);
    assert_true(eval("metric{orders}>=30", &a, 10, &r));
    assert_desc(&r, "metric{orders}.total = 30, limit >= 30");
    assert_true(eval("metric{orders}.rate>=3", &a, 10, &r));
    assert_true(eval("metric{queue}<3", &a, 10, &r));
    assert_true(eval("metric{queue}.max>=7", &a, 10, &r));
    assert_true(eval("metric{basket}.p95<=95.5", &a, 10, &r));
    assert_true(eval("metric{basket}.count>=100", &a, 10, &r));
    assert_false(eval("metric{basket}<1000", &a, 10, &r)); /* a trend has no default */
    assert_desc(&r, "metric{basket} is a trend: it has no default field (say which)");
    assert_false(eval("metric{orders}.p95<1", &a, 10, &r));

    /* before the run: the metrics the script declares */
    t = parse_ok("metric{orders}.rate>1");
    assert_int_equal(threshtally_check(t, &a.tally, err, sizeof(err)), 0);
    thresh_free(t);
    t = parse_ok("metric{nope}>1");
    assert_int_equal(threshtally_check(t, &a.tally, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "the script declares no metric nope"));
    thresh_free(t);
    t = parse_ok("metric{queue}.p95>1");
    assert_int_equal(threshtally_check(t, &a.tally, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "queue is a gauge, which has no p95"));
    thresh_free(t);
    t = parse_ok("checks>1%");
    assert_int_equal(threshtally_check(t, &a.tally, err, sizeof(err)), 0);
    thresh_free(t);
    agg_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_latency),      cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_tps_count),    cmocka_unit_test(test_parse_scope),
        cmocka_unit_test(test_parse_bad),          cmocka_unit_test(test_eval_percentile_boundary),
        cmocka_unit_test(test_eval_mean_max),      cmocka_unit_test(test_service),
        cmocka_unit_test(test_eval_merged),        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_eval_tps_count),     cmocka_unit_test(test_eval_globs),
        cmocka_unit_test(test_eval_no_samples),    cmocka_unit_test(test_eval_accumulates),
        cmocka_unit_test(test_can_still_pass),     cmocka_unit_test(test_abort_on_partial_data),
        cmocka_unit_test(test_unit_and_measured),  cmocka_unit_test(test_arrivals),
        cmocka_unit_test(test_checks_and_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

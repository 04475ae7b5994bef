/* Prometheus text: the exact output of a small run, label escaping,
 * cumulative buckets that never decrease and end at +Inf == _count, and
 * histogram_quantile over the buckets within 30 % of the exact HDR
 * percentile for several distributions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "console/prom.h"

/* The le values, as the text must spell them. */
static const char *const les[PROM_NBOUNDS] = {
    "0.0001", "0.000125", "0.00016", "0.0002", "0.00025", "0.00032", "0.0004", "0.0005", "0.00063",
    "0.0008", "0.001",    "0.00125", "0.0016", "0.002",   "0.0025",  "0.0032", "0.004",  "0.005",
    "0.0063", "0.008",    "0.01",    "0.0125", "0.016",   "0.02",    "0.025",  "0.032",  "0.04",
    "0.05",   "0.063",    "0.08",    "0.1",    "0.125",   "0.16",    "0.2",    "0.25",   "0.32",
    "0.4",    "0.5",      "0.63",    "0.8",    "1",       "1.25",    "1.6",    "2",      "2.5",
    "3.2",    "4",        "5",       "6.3",    "8",       "10",      "12.5",   "16",     "20",
    "25",     "32",       "40",      "50",     "63",      "80",
};

/* A one-second agg of nsteps steps, filled by the caller through st. */
typedef struct fx {
    agg a;
    step_stats *st;
    size_t nsteps;
} fx;

static void fx_init(fx *x, size_t nsteps)
{
    x->nsteps = nsteps;
    agg_init(&x->a, nsteps, 1);
    x->st = stats_array_new(nsteps);
}

static void fx_add(fx *x, uint32_t vus)
{
    uint64_t runs = 1, missed = 0;
    agg_add(&x->a, x->st, &runs, &missed, 1000000, vus);
}

static void fx_free(fx *x)
{
    stats_array_free(x->st, x->nsteps);
    agg_free(&x->a);
}

static void test_seconds_spelling(void **state)
{
    char buf[32];
    for (size_t i = 0; i < PROM_NBOUNDS; i++)
        assert_string_equal(prom_seconds(prom_bounds_us[i], buf, sizeof(buf)), les[i]);
    assert_string_equal(prom_seconds(0, buf, sizeof(buf)), "0");
    assert_string_equal(prom_seconds(2001050, buf, sizeof(buf)), "2.00105");
    assert_string_equal(prom_seconds(1, buf, sizeof(buf)), "0.000001");
}

/* The lines of one step's classic histogram of three samples whose reported
 * values are a, b and c (ascending), summing to sum seconds. */
static void put_hist(FILE *f, const char *name, uint64_t a, uint64_t b, uint64_t c, const char *sum)
{
    for (size_t i = 0; i < PROM_NBOUNDS; i++) {
        uint64_t x = prom_bounds_us[i];
        int n = x < a ? 0 : x < b ? 1 : x < c ? 2 : 3;
        fprintf(f, "%s_bucket{run=\"nightly\",step=\"SC-A-STEP-1)Login\",le=\"%s\"} %d\n", name,
                les[i], n);
    }
    fprintf(f,
            "%s_bucket{run=\"nightly\",step=\"SC-A-STEP-1)Login\",le=\"+Inf\"} 3\n"
            "%s_sum{run=\"nightly\",step=\"SC-A-STEP-1)Login\"} %s\n"
            "%s_count{run=\"nightly\",step=\"SC-A-STEP-1)Login\"} 3\n",
            name, name, sum, name);
}

static void test_exact_output(void **state)
{
    fx x;
    const char *names[] = {"SC-A-STEP-1)Login"};
    prom_threshold th[] = {{"p95<500ms", 1}, {"errors<=0%", 0}};
    prom_input in = {"nightly", names, NULL, 10, th, 2, 0};
    char *want, *got;
    size_t len, wlen = 0;
    FILE *f;

    fx_init(&x, 1);
    x.st[0].count = 3;
    x.st[0].err_tech = 1;
    x.st[0].err_func = 2;
    x.st[0].bytes_in = 300;
    x.st[0].bytes_out = 120;
    x.st[0].requests = 11;
    hist_record(x.st[0].hist, 150);     /* its own bucket */
    hist_record(x.st[0].hist, 900);     /* bucket [900, 904), reported 902 */
    hist_record(x.st[0].hist, 2000000); /* the max */
    fx_add(&x, 7);
    in.a = &x.a;

    f = open_memstream(&want, &wlen);
    fputs("# HELP quern_requests_total Samples completed (successes and errors), per step.\n"
          "# TYPE quern_requests_total counter\n"
          "quern_requests_total{run=\"nightly\",step=\"SC-A-STEP-1)Login\"} 3\n"
          "# HELP quern_http_requests_total HTTP requests sent, per step: redirects, digest "
          "round trips and a page's resources each count one.\n"
          "# TYPE quern_http_requests_total counter\n"
          "quern_http_requests_total{run=\"nightly\",step=\"SC-A-STEP-1)Login\"} 11\n"
          "# HELP quern_errors_total Samples that failed, per step and kind (technical: "
          "transport or status; functional: a check or the script).\n"
          "# TYPE quern_errors_total counter\n"
          "quern_errors_total{run=\"nightly\",step=\"SC-A-STEP-1)Login\",kind=\"technical\"} 1\n"
          "quern_errors_total{run=\"nightly\",step=\"SC-A-STEP-1)Login\",kind=\"functional\"} 2\n"
          "# HELP quern_bytes_received_total Bytes received (headers and bodies), per step.\n"
          "# TYPE quern_bytes_received_total counter\n"
          "quern_bytes_received_total{run=\"nightly\",step=\"SC-A-STEP-1)Login\"} 300\n"
          "# HELP quern_bytes_sent_total Bytes sent (request lines, headers, bodies), per step.\n"
          "# TYPE quern_bytes_sent_total counter\n"
          "quern_bytes_sent_total{run=\"nightly\",step=\"SC-A-STEP-1)Login\"} 120\n"
          "# HELP quern_latency_seconds Response time of the samples, per step (from the "
          "merged HDR histograms).\n"
          "# TYPE quern_latency_seconds histogram\n",
          f);
    put_hist(f, "quern_latency_seconds", 150, 902, 2000000, "2.00105");
    fputs("# HELP quern_service_seconds Service time of the samples, from their actual start, per "
          "step (from the merged HDR histograms).\n"
          "# TYPE quern_service_seconds histogram\n",
          f);
    put_hist(f, "quern_service_seconds", 150, 902, 2000000, "2.00105"); /* nothing late */
    fputs("# HELP quern_vus Active virtual users, every agent and worker together.\n"
          "# TYPE quern_vus gauge\n"
          "quern_vus{run=\"nightly\"} 7\n"
          "# HELP quern_vus_max Virtual users asked for (--vus, or quern ctl vus N).\n"
          "# TYPE quern_vus_max gauge\n"
          "quern_vus_max{run=\"nightly\"} 10\n"
          "# HELP quern_paused 1 while quern ctl pause holds the load, else 0.\n"
          "# TYPE quern_paused gauge\n"
          "quern_paused{run=\"nightly\"} 0\n"
          "# HELP quern_threshold_passed 1 when the threshold passes on the totals so far, "
          "else 0.\n"
          "# TYPE quern_threshold_passed gauge\n"
          "quern_threshold_passed{run=\"nightly\",expr=\"p95<500ms\"} 1\n"
          "quern_threshold_passed{run=\"nightly\",expr=\"errors<=0%\"} 0\n",
          f);
    fclose(f);
    got = prom_render(&in, &len);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(len, strlen(want));
    xfree(got);
    free(want);
    fx_free(&x);
}

/* A late sample: quern_service_seconds shows its service time where
 * quern_latency_seconds shows its response time; an open run's arrivals. */
static void test_service_and_arrivals(void **state)
{
    fx x;
    const char *names[] = {"SC-A-STEP-1)Login"};
    prom_input in = {"nightly", names, NULL, 10, NULL, 0, 0};
    rate_counts arr = {.scheduled = 9, .started = 7, .late = 3, .dropped = 2};
    size_t len;
    char *got, *svc;

    fx_init(&x, 1);
    stats_record(&x.st[0], 2000000, 150); /* waited 2 s for its start */
    fx_add(&x, 1);
    in.a = &x.a;
    got = prom_render(&in, &len);
    assert_null(strstr(got, "quern_arrivals_total")); /* a closed run: none */
    assert_non_null(strstr(got, "quern_latency_seconds_sum{run=\"nightly\",step=\"SC-A-STEP-1)"
                                "Login\"} 2\n"));
    svc = strstr(got, "# TYPE quern_service_seconds histogram\n");
    assert_non_null(svc);
    assert_non_null(strstr(svc, "quern_service_seconds_bucket{run=\"nightly\",step=\"SC-A-STEP-1)"
                                "Login\",le=\"0.0002\"} 1\n"));
    assert_non_null(strstr(svc, "quern_service_seconds_sum{run=\"nightly\",step=\"SC-A-STEP-1)"
                                "Login\"} 0.00015\n"));
    assert_non_null(strstr(got, "quern_latency_seconds_bucket{run=\"nightly\",step=\"SC-A-STEP-1)"
                                "Login\",le=\"0.0002\"} 0\n"));
    xfree(got);
    agg_add_arrivals(&x.a, &arr);
    got = prom_render(&in, &len);
    assert_non_null(strstr(got, "# TYPE quern_arrivals_total counter\n"
                                "quern_arrivals_total{run=\"nightly\",state=\"scheduled\"} 9\n"
                                "quern_arrivals_total{run=\"nightly\",state=\"started\"} 7\n"
                                "quern_arrivals_total{run=\"nightly\",state=\"late\"} 3\n"
                                "quern_arrivals_total{run=\"nightly\",state=\"dropped\"} 2\n"));
    assert_null(strstr(got, "quern_held_back")); /* none held back: none */
    xfree(got);
    agg_add_held(&x.a, 3, 4500000, 2000000);
    got = prom_render(&in, &len);
    assert_non_null(strstr(got, "# TYPE quern_held_back_total counter\n"
                                "quern_held_back_total{run=\"nightly\"} 3\n"));
    assert_non_null(strstr(got, "# TYPE quern_held_back_seconds_total counter\n"
                                "quern_held_back_seconds_total{run=\"nightly\"} 4.5\n"));
    xfree(got);
    fx_free(&x);
}

/* Errors by code: a family of their own, only once a run has some. */
static void test_errors_by_code(void **state)
{
    fx x;
    const char *names[] = {"S"};
    prom_input in = {"r", names, NULL, 1, NULL, 0, 0};
    size_t len;
    char *got;

    fx_init(&x, 1);
    fx_add(&x, 1);
    in.a = &x.a;
    got = prom_render(&in, &len);
    assert_null(strstr(got, "quern_errors_by_code_total"));
    xfree(got);
    x.st[0].count = 3;
    x.st[0].err_tech = 3;
    stats_note_kind(&x.st[0], 1, 500, "HTTP status 500", 1, NULL);
    stats_note_kind(&x.st[0], 1, 28, "Operation timed out after 1 ms", 2, NULL);
    stats_note_kind(&x.st[0], 1, 28, "Operation timed out after 2 ms with 5 bytes", 3, NULL);
    fx_add(&x, 1);
    got = prom_render(&in, &len);
    /* by count, then first seen: the 500 came first; code 28's two kinds summed */
    assert_non_null(strstr(got,
                           "# TYPE quern_errors_by_code_total counter\n"
                           "quern_errors_by_code_total{run=\"r\",step=\"S\",kind=\"technical\","
                           "code=\"500\"} 1\n"
                           "quern_errors_by_code_total{run=\"r\",step=\"S\",kind=\"technical\","
                           "code=\"28\"} 2\n"));
    xfree(got);
    fx_free(&x);
}

static void test_no_steps_yet(void **state)
{
    prom_input in = {"r", NULL, NULL, 3, NULL, 0, 0};
    size_t len;
    char *got = prom_render(&in, &len);

    assert_non_null(
        strstr(got, "# TYPE quern_http_requests_total counter\n# HELP quern_errors_total"));
    assert_non_null(strstr(got, "quern_vus{run=\"r\"} 0\n"));
    assert_non_null(strstr(got, "quern_vus_max{run=\"r\"} 3\n"));
    assert_non_null(strstr(got, "quern_paused{run=\"r\"} 0\n"));
    xfree(got);
    in.paused = 1; /* quern ctl pause */
    got = prom_render(&in, &len);
    assert_non_null(strstr(got, "quern_paused{run=\"r\"} 1\n"));
    xfree(got);
}

static void test_label_escaping(void **state)
{
    fx x;
    const char *names[] = {"SC-Q-STEP-1)say \"hi\"\\n\nnext"};
    prom_threshold th[] = {{"SC-Q-*: p95<\"1s\"", 1}};
    prom_input in = {"a\\b\"c\nd", names, NULL, 1, th, 1, 0};
    size_t len;
    char *got;

    fx_init(&x, 1);
    fx_add(&x, 1);
    in.a = &x.a;
    got = prom_render(&in, &len);
    assert_non_null(strstr(got, "quern_requests_total{run=\"a\\\\b\\\"c\\nd\","
                                "step=\"SC-Q-STEP-1)say \\\"hi\\\"\\\\n\\nnext\"} 0\n"));
    assert_non_null(strstr(got, "expr=\"SC-Q-*: p95<\\\"1s\\\"\"} 1\n"));
    /* every sample is one line: no raw newline inside a label */
    for (char *l = got; *l != '\0'; l = strchr(l, '\n') + 1)
        assert_true(l[0] == '#' || strncmp(l, "quern_", 6) == 0);
    xfree(got);
    fx_free(&x);
}

/* The buckets of step 0 read back from the text: cum[PROM_NBOUNDS] is +Inf;
 * *count is _count. */
static void read_buckets(const char *text, uint64_t *cum, uint64_t *count)
{
    const char *p = text;
    size_t n = 0;
    while ((p = strstr(p, "quern_latency_seconds_bucket{")) != NULL) {
        const char *v = strchr(p, '}') + 2;
        cum[n++] = strtoull(v, NULL, 10);
        p = v;
    }
    assert_int_equal(n, PROM_NBOUNDS + 1);
    p = strstr(text, "quern_latency_seconds_count{");
    assert_non_null(p);
    *count = strtoull(strchr(p, '}') + 2, NULL, 10);
}

/* histogram_quantile as Prometheus computes it (linear within a bucket, 0
 * as the first bucket's lower bound, the last finite bound above it). */
static double quantile(double q, const uint64_t *cum)
{
    double rank = q * (double)cum[PROM_NBOUNDS];
    size_t b = 0;
    while (b < PROM_NBOUNDS && (double)cum[b] < rank)
        b++;
    if (b == PROM_NBOUNDS)
        return (double)prom_bounds_us[PROM_NBOUNDS - 1] / 1e6;
    double lo = b == 0 ? 0 : (double)prom_bounds_us[b - 1] / 1e6;
    double hi = (double)prom_bounds_us[b] / 1e6;
    double below = b == 0 ? 0 : (double)cum[b - 1];
    if (cum[b] == below)
        return hi;
    return lo + (hi - lo) * (rank - below) / ((double)cum[b] - below);
}

enum shape { UNIFORM, LOGNORMAL, EXPONENTIAL, BIMODAL, CONSTANT, WIDE };

static uint64_t draw(enum shape s)
{
    double u = drand48();
    switch (s) {
    case UNIFORM:
        return 1000 + (uint64_t)(u * 9000); /* 1 to 10 ms */
    case LOGNORMAL: {
        double g = sqrt(-2 * log(1 - u)) * cos(2 * M_PI * drand48());
        return (uint64_t)(50000 * exp(0.6 * g)); /* around 50 ms */
    }
    case EXPONENTIAL:
        return 100 + (uint64_t)(-200000 * log(1 - u)); /* mean 200 ms */
    case BIMODAL:
        return u < 0.9 ? 2000 + (uint64_t)(drand48() * 500)
                       : 400000 + (uint64_t)(drand48() * 200000);
    case CONSTANT:
        return 3300;
    case WIDE:
        return (uint64_t)(100 * pow(10, u * 5.7)); /* 100 us to 50 s, log-uniform */
    }
    return 0;
}

static void test_buckets_and_quantiles(void **state)
{
    const double qs[] = {0.5, 0.9, 0.95, 0.99};
    const char *names[] = {"SC-D-STEP-1)d"};

    srand48(15);
    for (int s = UNIFORM; s <= WIDE; s++) {
        fx x;
        prom_input in = {"q", names, NULL, 1, NULL, 0, 0};
        uint64_t cum[PROM_NBOUNDS + 1], count;
        size_t len;
        char *got;

        fx_init(&x, 1);
        for (int i = 0; i < 20000; i++)
            hist_record(x.st[0].hist, draw((enum shape)s));
        x.st[0].count = 20000;
        fx_add(&x, 1);
        in.a = &x.a;
        got = prom_render(&in, &len);
        read_buckets(got, cum, &count);
        for (size_t i = 1; i <= PROM_NBOUNDS; i++)
            assert_true(cum[i] >= cum[i - 1]);
        assert_int_equal(cum[PROM_NBOUNDS], count);
        assert_int_equal(count, 20000);
        for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
            double exact = (double)hist_percentile(x.a.total[0].hist, qs[i] * 100) / 1e6;
            double est = quantile(qs[i], cum);
            if (fabs(est - exact) > 0.3 * exact)
                fail_msg("shape %d q %.2f: histogram_quantile %.6f s, exact %.6f s", s, qs[i], est,
                         exact);
        }
        xfree(got);
        fx_free(&x);
    }
}

/* The workers' own load: a gauge pair per (agent, worker) from its latest
 * second, and the saturated seconds; none before a worker reported. */
/* WebSocket messages: counters of their own, absent from a run without any. */
static void test_websocket(void **state)
{
    fx x;
    const char *names[] = {"SC-W-STEP-1)chat", "SC-W-STEP-2)http"};
    prom_input in = {"w", names, NULL, 1, NULL, 0, 0};
    size_t len;
    char *got;

    fx_init(&x, 2);
    in.a = &x.a;
    fx_add(&x, 1);
    got = prom_render(&in, &len);
    assert_null(strstr(got, "quern_websocket"));
    xfree(got);
    x.st[0].ws_sent = 4;
    x.st[0].ws_recv = 5;
    x.st[0].ws_bytes_sent = 40;
    x.st[0].ws_bytes_recv = 51;
    fx_add(&x, 1);
    got = prom_render(&in, &len);
    assert_non_null(strstr(got, "quern_websocket_messages_sent_total{run=\"w\",step=\"SC-W-STEP-1)"
                                "chat\"} 4\n"));
    assert_non_null(strstr(got, "quern_websocket_messages_received_total{run=\"w\",step=\"SC-W-"
                                "STEP-1)chat\"} 5\n"));
    assert_non_null(strstr(got, "quern_websocket_bytes_sent_total{run=\"w\",step=\"SC-W-STEP-1)"
                                "chat\"} 40\n"));
    assert_non_null(strstr(got, "quern_websocket_bytes_received_total{run=\"w\",step=\"SC-W-"
                                "STEP-2)http\"} 0\n"));
    xfree(got);
    fx_free(&x);
}

static void test_checks_and_metrics(void **state)
{
    fx x;
    const char *names[] = {"SC-A-STEP-1)Login"};
    prom_input in = {"m", names, NULL, 1, NULL, 0, 0};
    char err[ERR_MAX];
    size_t len;
    char *got;
    int c, k, g, tr;

    fx_init(&x, 1);
    in.a = &x.a;
    fx_add(&x, 1);
    got = prom_render(&in, &len);
    assert_null(strstr(got, "quern_checks_total"));
    assert_null(strstr(got, "quern_metric_"));
    xfree(got);
    c = tally_check_id(&x.a.tally, "status \"200\"");
    x.a.tally.checks[c].passes = 9;
    x.a.tally.checks[c].fails = 1;
    k = tally_metric_def(&x.a.tally, "orders", TALLY_COUNTER, err, sizeof(err));
    g = tally_metric_def(&x.a.tally, "queue", TALLY_GAUGE, err, sizeof(err));
    tr = tally_metric_def(&x.a.tally, "basket", TALLY_TREND, err, sizeof(err));
    tally_counter_add(&x.a.tally.metrics[k], 12);
    tally_gauge_set(&x.a.tally.metrics[g], 2.5, 1);
    tally_trend_add(&x.a.tally.metrics[tr], 4);
    tally_trend_add(&x.a.tally.metrics[tr], 6);
    got = prom_render(&in, &len);
    assert_non_null(strstr(got, "# TYPE quern_checks_total counter\n"));
    assert_non_null(strstr(
        got, "quern_checks_total{run=\"m\",check=\"status \\\"200\\\"\",result=\"pass\"} 9\n"));
    assert_non_null(strstr(
        got, "quern_checks_total{run=\"m\",check=\"status \\\"200\\\"\",result=\"fail\"} 1\n"));
    assert_non_null(strstr(got, "# TYPE quern_metric_orders_total counter\n"
                                "quern_metric_orders_total{run=\"m\"} 12\n"));
    assert_non_null(
        strstr(got, "# TYPE quern_metric_queue gauge\nquern_metric_queue{run=\"m\"} 2.5\n"));
    assert_non_null(strstr(got, "# TYPE quern_metric_basket summary\n"));
    assert_non_null(strstr(got, "quern_metric_basket{run=\"m\",quantile=\"0.99\"} 6\n"));
    assert_non_null(strstr(got, "quern_metric_basket_sum{run=\"m\"} 10\n"));
    assert_non_null(strstr(got, "quern_metric_basket_count{run=\"m\"} 2\n"));
    xfree(got);
    fx_free(&x);
}

static void test_injector(void **state)
{
    fx x;
    const char *names[] = {"SC-A-STEP-1)Login"};
    prom_input in = {"nightly", names, NULL, 10, NULL, 0, 0};
    interval_sum_load l[2];
    size_t len;
    char *got;

    (void)state;
    fx_init(&x, 1);
    in.a = &x.a;
    got = prom_render(&in, &len);
    assert_null(strstr(got, "quern_injector"));
    xfree(got);
    memset(l, 0, sizeof(l));
    snprintf(l[0].agent, sizeof(l[0].agent), "east");
    snprintf(l[1].agent, sizeof(l[1].agent), "east");
    l[1].worker = 1;
    l[0].cpu_permille = 1000;
    l[0].loop_lag_max_us = 280000;
    l[0].saturated = 1;
    l[1].cpu_permille = 430;
    l[1].loop_lag_max_us = 2000;
    injtot_add(&x.a.inj, 0, l, 2, 0);
    l[0].cpu_permille = 950;
    injtot_add(&x.a.inj, 1, l, 2, 0);
    got = prom_render(&in, &len);
    assert_non_null(strstr(got,
                           "# TYPE quern_injector_cpu_ratio gauge\n"
                           "quern_injector_cpu_ratio{run=\"nightly\",agent=\"east\",worker=\"0\"} "
                           "0.950\n"
                           "quern_injector_cpu_ratio{run=\"nightly\",agent=\"east\",worker=\"1\"} "
                           "0.430\n"));
    assert_non_null(strstr(got, "quern_injector_loop_lag_seconds{run=\"nightly\",agent=\"east\","
                                "worker=\"0\"} 0.28\n"));
    assert_non_null(strstr(got, "# TYPE quern_injector_saturated_seconds_total counter\n"
                                "quern_injector_saturated_seconds_total{run=\"nightly\"} 2\n"));
    xfree(got);
    /* the console's own second (console/selfload.h): role="console" */
    snprintf(l[0].agent, sizeof(l[0].agent), "console");
    l[0].cpu_permille = 120;
    l[0].loop_lag_max_us = 600000;
    injtot_add(&x.a.console, 1, l, 1, 0);
    got = prom_render(&in, &len);
    assert_non_null(
        strstr(got, "quern_injector_cpu_ratio{run=\"nightly\",role=\"console\"} 0.120\n"));
    assert_non_null(
        strstr(got, "quern_injector_loop_lag_seconds{run=\"nightly\",role=\"console\"} 0.6\n"));
    assert_non_null(strstr(got, "quern_injector_saturated_seconds_total{run=\"nightly\"} 2\n"
                                "quern_injector_saturated_seconds_total{run=\"nightly\",role="
                                "\"console\"} 1\n"));
    xfree(got);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seconds_spelling),
        cmocka_unit_test(test_exact_output),
        cmocka_unit_test(test_no_steps_yet),
        cmocka_unit_test(test_label_escaping),
        cmocka_unit_test(test_errors_by_code),
        cmocka_unit_test(test_buckets_and_quantiles),
        cmocka_unit_test(test_service_and_arrivals),
        cmocka_unit_test(test_injector),
        cmocka_unit_test(test_websocket),
        cmocka_unit_test(test_checks_and_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

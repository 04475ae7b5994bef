/* The --metrics endpoint (console/serve/metrics.c) on a real server, scraped
 * over HTTP: on 127.0.0.1 port 0, an empty run served from the start (the
 * port file written, --vus as quern_vus_max), the totals of each update
 * with the thresholds evaluated on them, what quern ctl steered shown from
 * the next update on, 404 elsewhere and 405 for other methods; on a
 * non-loopback address (as tests/e2e/prometheus.sh binds it) the bearer
 * token of --token-file asked for every scrape (401 without it, with
 * another, or as a cookie); a token file that cannot be read refused at
 * the start. */
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
#include "common/hist.h"
#include "common/mem.h"
#include "console/prom.h"
#include "console/serve/metrics.h"

#include "tests/unit/loopask.h"

#define TOKEN "a-token-of-the-metrics-test-0123456789"
#define ANSWER_MAX (256 * 1024)

/* A folder for the port and token files, and the options naming them. */
typedef struct fx {
    char dir[64], portf[96], tokf[96];
    run_opts o;
    metrics *m;
    unsigned port;
} fx;

static char *argv0[] = {"run", NULL};

static int setup(void **state)
{
    fx *x = xcalloc(1, sizeof(*x));
    FILE *f;

    *state = x;
    snprintf(x->dir, sizeof(x->dir), "/tmp/quern-metrics-XXXXXX");
    assert_non_null(mkdtemp(x->dir));
    snprintf(x->portf, sizeof(x->portf), "%s/port", x->dir);
    snprintf(x->tokf, sizeof(x->tokf), "%s/token", x->dir);
    f = fopen(x->tokf, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", TOKEN);
    fclose(f);
    chmod(x->tokf, 0600);
    opts_init(&x->o, 1, argv0);
    x->o.script = "/tmp/nightly.lua";
    x->o.metrics_port_file = x->portf;
    x->o.vus = 5;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;

    metrics_stop(x->m, 0);
    x->o.script = NULL;
    x->o.metrics = NULL;
    x->o.metrics_port_file = NULL;
    x->o.token_file = NULL;
    opts_free(&x->o);
    unlink(x->portf);
    unlink(x->tokf);
    rmdir(x->dir);
    xfree(x);
    return 0;
}

static void start(fx *x, const char *addr)
{
    char err[ERR_MAX];
    FILE *f;

    x->o.metrics = addr;
    x->m = metrics_start(&x->o, err, sizeof(err));
    assert_non_null(x->m);
    f = fopen(x->portf, "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%u", &x->port), 1);
    fclose(f);
    assert_true(x->port > 0);
}

/* Sends method path with the extra header lines hdr ("" none); the whole
 * answer into buf (ANSWER_MAX bytes), its status returned. */
static int ask(const fx *x, const char *method, const char *path, const char *hdr, char *buf)
{
    char req[512];
    int status = 0;

    snprintf(req, sizeof(req),
             "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%sConnection: close\r\n\r\n", method, path,
             x->port, hdr);
    loopask(x->port, req, buf, ANSWER_MAX);
    sscanf(buf, "HTTP/1.1 %d", &status);
    return status;
}

static void test_scrape(void **state)
{
    fx *x = *state;
    char *buf = xmalloc(ANSWER_MAX);
    agg a;
    step_stats *st = stats_array_new(1);
    uint64_t runs = 1, missed = 0;
    const char *ids[1] = {"SC-S-STEP-1"}, *names[1] = {"SC-S-STEP-1)Login"};
    char err[ERR_MAX];
    thresh *th[2] = {thresh_parse("p95<500ms", err, sizeof(err)),
                     thresh_parse("p95<5ms", err, sizeof(err))};

    start(x, "127.0.0.1:0");
    /* before the steps are known: an empty run, --vus asked */
    assert_int_equal(ask(x, "GET", "/metrics", "", buf), 200);
    assert_non_null(strstr(buf, "Content-Type: " PROM_CONTENT_TYPE "\r\n"));
    assert_non_null(strstr(buf, "\nquern_vus_max{run=\"nightly\"} 5\n"));
    assert_non_null(strstr(buf, "\nquern_vus{run=\"nightly\"} 0\n"));
    assert_null(strstr(buf, "quern_requests_total{"));

    /* a second of 100 samples of 10 ms, 3 of them technical errors */
    agg_init(&a, 1, 1);
    st[0].count = 100;
    st[0].err_tech = 3;
    hist_record_n(st[0].hist, 10000, 100);
    agg_add(&a, st, &runs, &missed, 1000000, 4);
    metrics_update(x->m, &a, ids, names, th, 2);
    assert_int_equal(ask(x, "GET", "/metrics", "", buf), 200);
    assert_non_null(
        strstr(buf, "\nquern_requests_total{run=\"nightly\",step=\"SC-S-STEP-1)Login\"} 100\n"));
    assert_non_null(strstr(
        buf,
        "\nquern_errors_total{run=\"nightly\",step=\"SC-S-STEP-1)Login\",kind=\"technical\"} 3\n"));
    assert_non_null(strstr(
        buf, "\nquern_latency_seconds_count{run=\"nightly\",step=\"SC-S-STEP-1)Login\"} 100\n"));
    assert_non_null(strstr(buf, "\nquern_vus{run=\"nightly\"} 4\n"));
    assert_non_null(
        strstr(buf, "\nquern_threshold_passed{run=\"nightly\",expr=\"p95<500ms\"} 1\n"));
    assert_non_null(strstr(buf, "\nquern_threshold_passed{run=\"nightly\",expr=\"p95<5ms\"} 0\n"));
    assert_non_null(strstr(buf, "\nquern_paused{run=\"nightly\"} 0\n"));

    /* quern ctl: shown from the next update on */
    metrics_steered(x->m, 12, 1);
    assert_int_equal(ask(x, "GET", "/metrics", "", buf), 200);
    assert_non_null(strstr(buf, "\nquern_vus_max{run=\"nightly\"} 5\n"));
    agg_add(&a, st, &runs, &missed, 1000000, 4);
    metrics_update(x->m, &a, ids, names, th, 2);
    assert_int_equal(ask(x, "GET", "/metrics", "", buf), 200);
    assert_non_null(strstr(buf, "\nquern_vus_max{run=\"nightly\"} 12\n"));
    assert_non_null(strstr(buf, "\nquern_paused{run=\"nightly\"} 1\n"));
    assert_non_null(
        strstr(buf, "\nquern_requests_total{run=\"nightly\",step=\"SC-S-STEP-1)Login\"} 200\n"));

    /* HEAD too; nothing else, nowhere else */
    assert_int_equal(ask(x, "HEAD", "/metrics", "", buf), 200);
    assert_int_equal(ask(x, "POST", "/metrics", "Content-Length: 0\r\n", buf), 405);
    assert_non_null(strstr(buf, "Allow: GET, HEAD\r\n"));
    assert_int_equal(ask(x, "GET", "/", "", buf), 404);
    assert_int_equal(ask(x, "GET", "/metrics/x", "", buf), 404);

    /* no --metrics: nothing to do */
    metrics_update(NULL, &a, ids, names, th, 2);
    metrics_steered(NULL, 1, 1);
    metrics_stop(NULL, 0);
    thresh_free(th[0]);
    thresh_free(th[1]);
    stats_array_free(st, 1);
    agg_free(&a);
    xfree(buf);
}

/* A non-loopback address: the bearer token for every scrape. */
static void test_token(void **state)
{
    fx *x = *state;
    char *buf = xmalloc(ANSWER_MAX);

    x->o.token_file = x->tokf;
    start(x, "0.0.0.0:0");
    assert_int_equal(ask(x, "GET", "/metrics", "", buf), 401);
    assert_non_null(strstr(buf, "WWW-Authenticate: Bearer realm=\"quern\"\r\n"));
    assert_null(strstr(buf, "quern_vus"));
    assert_int_equal(ask(x, "GET", "/metrics", "Authorization: Bearer " TOKEN "x\r\n", buf), 401);
    assert_int_equal(ask(x, "GET", "/metrics", "Authorization: Bearer a-token\r\n", buf), 401);
    assert_int_equal(ask(x, "GET", "/metrics", "Authorization: Basic " TOKEN "\r\n", buf), 401);
    assert_int_equal(ask(x, "GET", "/metrics", "Cookie: token=" TOKEN "\r\n", buf), 401);
    assert_int_equal(ask(x, "GET", "/metrics", "Authorization: Bearer " TOKEN "\r\n", buf), 200);
    assert_non_null(strstr(buf, "\nquern_vus_max{run=\"nightly\"} 5\n"));
    xfree(buf);
}

/* A token file that is not there: no server, the reason in err. */
static void test_no_token_file(void **state)
{
    fx *x = *state;
    char err[ERR_MAX] = "";

    x->o.metrics = "0.0.0.0:0";
    x->o.token_file = "/nonexistent/quern-token";
    assert_null(metrics_start(&x->o, err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent/quern-token"));
    assert_int_equal(access(x->portf, F_OK), -1); /* no port file either */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_scrape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_token_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for console/monitor: real scrapes of a small HTTP server (a
 * good exporter, malformed text, a 404, an answer too large) and of a port
 * nobody listens on; each problem comes once, the good figures keep coming. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "console/monitor.h"

#include <curl/curl.h>
#include <math.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console/monitor_host.h"

static char *big; /* MONITOR_BODY_MAX + 1 bytes of comments */
static int served;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **con_cls)
{
    char text[512];
    struct MHD_Response *r;
    unsigned status = MHD_HTTP_OK;
    enum MHD_Result rc;

    if (strcmp(url, "/good") == 0) {
        int n = __atomic_add_fetch(&served, 1, __ATOMIC_SEQ_CST);
        /* a CPU busy 1 s in 4 whatever the time between scrapes */
        snprintf(text, sizeof(text),
                 "# TYPE node_cpu_seconds_total counter\n"
                 "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} %d\n"
                 "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} %d\n"
                 "node_load1 0.5\napp_requests_total{code=\"200\"} %d\n",
                 10 + n, 100 + 3 * n, 40 * n);
        r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
    } else if (strcmp(url, "/bad") == 0) {
        r = MHD_create_response_from_buffer(12, "hello world\n", MHD_RESPMEM_PERSISTENT);
    } else if (strcmp(url, "/big") == 0) {
        r = MHD_create_response_from_buffer(MONITOR_BODY_MAX + 1, big, MHD_RESPMEM_PERSISTENT);
    } else {
        status = MHD_HTTP_NOT_FOUND;
        r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
    }
    rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

typedef struct got {
    int figures[8];
    int problems[8];
    char problem[8][600];
    double busy, load, reqs;
} got;

static void on_item(void *ud, const monitor_item *it)
{
    got *g = ud;

    assert_true(it->host < 8);
    if (it->problem != NULL) {
        g->problems[it->host]++;
        snprintf(g->problem[it->host], sizeof(g->problem[0]), "%s", it->problem);
        return;
    }
    assert_int_equal(it->nv, MONITOR_HOST_FIXED + 1);
    g->figures[it->host]++;
    g->busy = it->v[MONITOR_HOST_CPU_BUSY];
    g->load = it->v[MONITOR_HOST_LOAD1];
    g->reqs = it->v[MONITOR_HOST_FIXED];
}

static void test_scrapes(void **state)
{
    struct MHD_Daemon *d;
    const union MHD_DaemonInfo *info;
    char urls[4][128], err[ERR_MAX];
    const char *u[4];
    monitor_expo_sel sel;
    monitor *m;
    got g;

    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL,
                         NULL, on_request, NULL, MHD_OPTION_END);
    assert_non_null(d);
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(urls[0], sizeof(urls[0]), "http://127.0.0.1:%u/good", info->port);
    snprintf(urls[1], sizeof(urls[1]), "http://127.0.0.1:%u/bad", info->port);
    snprintf(urls[2], sizeof(urls[2]), "http://127.0.0.1:%u/none", info->port);
    snprintf(urls[3], sizeof(urls[3]), "http://127.0.0.1:1/metrics");
    for (int i = 0; i < 4; i++)
        u[i] = urls[i];
    assert_int_equal(monitor_expo_sel_parse("app_requests_total", &sel, err, sizeof(err)), 0);
    memset(&g, 0, sizeof(g));
    m = monitor_start(u, 4, &sel, 1, err, sizeof(err));
    assert_non_null(m);
    /* a scrape a second: wait for two figures of the good one and a
     * problem of each other, then two more seconds (15 s at most: a loaded
     * machine, valgrind) in which no problem may come again */
    for (int i = 0, extra = -1; i < 150 && extra != 0; i++) {
        usleep(100000);
        assert_int_equal(monitor_drain(m, on_item, &g), 0);
        if (extra > 0)
            extra--;
        else if (extra < 0 && g.figures[0] >= 2 && g.problems[1] && g.problems[2] && g.problems[3])
            extra = 20;
    }
    monitor_stop(m);
    MHD_stop_daemon(d);
    assert_true(g.figures[0] >= 2);
    /* Under valgrind a first scrape may pass the timeout (its code is
     * translated as it first runs): said once, and the figures resume. */
    if (g.problems[0] != 0 && strstr(g.problem[0], "timed out") == NULL)
        fail_msg("the good endpoint failed: %s", g.problem[0]);
    assert_true(fabs(g.busy - 0.25) < 1e-9);
    assert_true(fabs(g.load - 0.5) < 1e-9);
    assert_true(g.reqs > 0); /* a counter selector: a rate */
    for (int h = 1; h <= 3; h++) {
        assert_int_equal(g.problems[h], 1); /* once, though every scrape failed */
        assert_int_equal(g.figures[h], 0);
    }
    assert_non_null(strstr(g.problem[1], "not Prometheus text: line 1: "));
    assert_non_null(strstr(g.problem[2], "HTTP status 404"));
    assert_non_null(strstr(g.problem[3], "cannot scrape it: "));
    assert_true(served >= 3);
}

/* An answer past MONITOR_BODY_MAX is cut and said once. Under valgrind,
 * whose threads take turns, reading 4 MB may pass the timeout first: either
 * way the scrape is bounded. */
static void test_too_big(void **state)
{
    struct MHD_Daemon *d;
    const union MHD_DaemonInfo *info;
    char url[128], err[ERR_MAX];
    const char *u[1] = {url};
    monitor *m;
    got g;

    big = malloc(MONITOR_BODY_MAX + 1);
    memset(big, '#', MONITOR_BODY_MAX + 1);
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL,
                         NULL, on_request, NULL, MHD_OPTION_END);
    assert_non_null(d);
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/big", info->port);
    memset(&g, 0, sizeof(g));
    m = monitor_start(u, 1, NULL, 0, err, sizeof(err));
    assert_non_null(m);
    for (int i = 0; i < 150 && g.problems[0] == 0; i++) {
        usleep(100000);
        monitor_drain(m, on_item, &g);
    }
    sleep(1); /* one more scrape, which must not be said again */
    monitor_drain(m, on_item, &g);
    monitor_stop(m);
    MHD_stop_daemon(d);
    free(big);
    assert_int_equal(g.problems[0], 1);
    assert_int_equal(g.figures[0], 0);
    if (strstr(g.problem[0], "larger than 4194304 bytes") == NULL &&
        strstr(g.problem[0], "timed out") == NULL)
        fail_msg("%s", g.problem[0]);
}

static void test_urls(void **state)
{
    char err[ERR_MAX], host[128];

    assert_int_equal(monitor_check_url("http://10.0.0.5:9100/metrics", err, sizeof(err)), 0);
    assert_int_equal(monitor_check_url("https://h/m", err, sizeof(err)), 0);
    assert_int_equal(monitor_check_url("ftp://h/m", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "http://"));
    assert_int_equal(monitor_check_url("http:///m", err, sizeof(err)), -1);
    assert_int_equal(monitor_check_url("http://h/a b", err, sizeof(err)), -1);
    assert_string_equal(monitor_host_of("http://u:pw@10.0.0.5:9100/metrics", host, sizeof(host)),
                        "10.0.0.5:9100");
    assert_string_equal(monitor_host_of("https://[::1]:9100", host, sizeof(host)), "[::1]:9100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_scrapes),
        cmocka_unit_test(test_too_big),
    };
    int rc;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}

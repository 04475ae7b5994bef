/* Unit tests for console/monitor_host: a host's figures from two scrapes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "console/monitor_host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void scrape(monitor_host_scrape *s, const char *text, const monitor_expo_sel *sels,
                   size_t nsel)
{
    char err[ERR_MAX];

    monitor_host_scrape_init(s, sels, nsel);
    if (monitor_expo_parse(text, strlen(text), monitor_host_add, s, err, sizeof(err)) != 0)
        fail_msg("%s", err);
}

/* Two CPUs; between the scrapes (2 s): 4 CPU-seconds in all, of which user
 * 1.0, system 0.6, iowait 0.2, steal 0.2, idle 1.6, nice 0.4. */
static const char *const A = "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 10\n"
                             "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 10\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"system\"} 5\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"iowait\"} 1\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} 1\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 100\n"
                             "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 100\n"
                             "node_cpu_seconds_total{cpu=\"1\",mode=\"nice\"} 3\n"
                             "node_load1 1.5\n"
                             "node_memory_MemTotal_bytes 1000\n"
                             "node_memory_MemAvailable_bytes 400\n"
                             "node_network_receive_bytes_total{device=\"lo\"} 1e9\n"
                             "node_network_receive_bytes_total{device=\"eth0\"} 1000\n"
                             "node_network_transmit_bytes_total{device=\"eth0\"} 500\n"
                             "node_disk_io_time_seconds_total{device=\"vda\"} 10\n"
                             "node_disk_io_time_seconds_total{device=\"vdb\"} 20\n"
                             "app_pool_active{pool=\"db\"} 7\n"
                             "app_pool_active{pool=\"web\"} 9\n"
                             "app_gc_seconds_total 4\n";
static const char *const B = "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 10.5\n"
                             "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 10.5\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"system\"} 5.6\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"iowait\"} 1.2\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"steal\"} 1.2\n"
                             "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 100.8\n"
                             "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 100.8\n"
                             "node_cpu_seconds_total{cpu=\"1\",mode=\"nice\"} 3.4\n"
                             "node_load1 2.5\n"
                             "node_memory_MemTotal_bytes 1000\n"
                             "node_memory_MemAvailable_bytes 300\n"
                             "node_network_receive_bytes_total{device=\"lo\"} 9e9\n"
                             "node_network_receive_bytes_total{device=\"eth0\"} 3000\n"
                             "node_network_transmit_bytes_total{device=\"eth0\"} 1500\n"
                             "node_disk_io_time_seconds_total{device=\"vda\"} 10.5\n"
                             "node_disk_io_time_seconds_total{device=\"vdb\"} 21.8\n"
                             "app_pool_active{pool=\"db\"} 8\n"
                             "app_pool_active{pool=\"web\"} 9\n"
                             "app_gc_seconds_total 4.5\n";

static void test_node(void **state)
{
    static monitor_host_scrape a, b;
    monitor_expo_sel sels[3];
    double v[MONITOR_HOST_FIXED + 3];
    char err[ERR_MAX];

    assert_int_equal(
        monitor_expo_sel_parse("app_pool_active{pool=\"db\"}", &sels[0], err, sizeof(err)), 0);
    assert_int_equal(monitor_expo_sel_parse("app_gc_seconds_total", &sels[1], err, sizeof(err)), 0);
    assert_int_equal(monitor_expo_sel_parse("app_absent", &sels[2], err, sizeof(err)), 0);
    scrape(&a, A, sels, 3);
    scrape(&b, B, sels, 3);
    monitor_host_derive(&a, &b, 2.0, v);
    NEAR(v[MONITOR_HOST_CPU_USER], 1.0 / 4);
    NEAR(v[MONITOR_HOST_CPU_SYSTEM], 0.6 / 4);
    NEAR(v[MONITOR_HOST_CPU_IOWAIT], 0.2 / 4);
    NEAR(v[MONITOR_HOST_CPU_STEAL], 0.2 / 4);
    NEAR(v[MONITOR_HOST_CPU_BUSY],
         1.0 - (1.6 + 0.2) / 4); /* nice counts as busy, iowait does not */
    NEAR(v[MONITOR_HOST_LOAD1], 2.5);
    NEAR(v[MONITOR_HOST_MEM_USED], 700);
    NEAR(v[MONITOR_HOST_NET_RX], 1000); /* lo left out */
    NEAR(v[MONITOR_HOST_NET_TX], 500);
    NEAR(v[MONITOR_HOST_DISK_BUSY], 0.9);  /* the busiest device */
    NEAR(v[MONITOR_HOST_FIXED + 0], 8);    /* a gauge: the last value, its label matched */
    NEAR(v[MONITOR_HOST_FIXED + 1], 0.25); /* a counter: a rate */
    assert_true(isnan(v[MONITOR_HOST_FIXED + 2]));
    assert_string_equal(monitor_host_name(MONITOR_HOST_CPU_BUSY), "cpu_busy");
    assert_string_equal(monitor_host_name(MONITOR_HOST_DISK_BUSY), "disk_busy");
}

static void test_missing(void **state)
{
    static monitor_host_scrape a, b;
    double v[MONITOR_HOST_FIXED];

    /* loopback only: no network figures; no CPU series: no CPU figures */
    scrape(&a, "node_network_receive_bytes_total{device=\"lo\"} 1\nnode_load1 1\n", NULL, 0);
    scrape(&b, "node_network_receive_bytes_total{device=\"lo\"} 9\nnode_load1 2\n", NULL, 0);
    monitor_host_derive(&a, &b, 1.0, v);
    assert_true(isnan(v[MONITOR_HOST_NET_RX]));
    assert_true(isnan(v[MONITOR_HOST_CPU_BUSY]));
    assert_true(isnan(v[MONITOR_HOST_MEM_USED]));
    assert_true(isnan(v[MONITOR_HOST_DISK_BUSY]));
    NEAR(v[MONITOR_HOST_LOAD1], 2);
    /* a counter that went back (the exporter restarted): no rate */
    scrape(&a, A, NULL, 0);
    scrape(&b,
           "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1\n"
           "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 500\n"
           "node_network_receive_bytes_total{device=\"eth0\"} 10\n"
           "node_network_transmit_bytes_total{device=\"eth0\"} 10\n",
           NULL, 0);
    monitor_host_derive(&a, &b, 1.0, v);
    assert_true(isnan(v[MONITOR_HOST_CPU_BUSY]));
    assert_true(isnan(v[MONITOR_HOST_NET_RX]));
}

/* Values near DBL_MAX whose sums, rates or differences overflow, and NaN
 * or +Inf samples: each such figure is none (NAN), never an infinity, and
 * the finite ones beside them stay. */
static void test_not_finite(void **state)
{
    static monitor_host_scrape a, b;
    monitor_expo_sel sels[3];
    double v[MONITOR_HOST_FIXED + 3];
    char err[ERR_MAX];

    assert_int_equal(monitor_expo_sel_parse("app_big", &sels[0], err, sizeof(err)), 0);
    assert_int_equal(monitor_expo_sel_parse("app_big_total", &sels[1], err, sizeof(err)), 0);
    assert_int_equal(monitor_expo_sel_parse("app_odd", &sels[2], err, sizeof(err)), 0);
    scrape(&a,
           "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 0\n"
           "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 0\n"
           "node_network_receive_bytes_total{device=\"eth0\"} 0\n"
           "node_network_transmit_bytes_total{device=\"eth0\"} 0\n"
           "node_disk_io_time_seconds_total{device=\"vda\"} 0\n"
           "node_disk_io_time_seconds_total{device=\"vdb\"} 0\n"
           "app_big_total 0\n",
           sels, 3);
    scrape(&b,
           "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 1.7e308\n"
           "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1.7e308\n"
           "node_load1 NaN\n"
           "node_memory_MemTotal_bytes 1.7e308\n"
           "node_memory_MemAvailable_bytes -1.7e308\n"
           "node_network_receive_bytes_total{device=\"eth0\"} 1.7e308\n"
           "node_network_transmit_bytes_total{device=\"eth0\"} +Inf\n"
           "node_disk_io_time_seconds_total{device=\"vda\"} 1.7e308\n"
           "node_disk_io_time_seconds_total{device=\"vdb\"} 0.25\n"
           "app_big{i=\"1\"} 1.7e308\n"
           "app_big{i=\"2\"} 1.7e308\n"
           "app_big_total 1.7e308\n"
           "app_odd NaN\n"
           "app_odd +Inf\n",
           sels, 3);
    monitor_host_derive(&a, &b, 0.5, v);
    for (size_t i = 0; i < MONITOR_HOST_FIXED + 3; i++)
        if (!isnan(v[i]) && !isfinite(v[i]))
            fail_msg("figure %zu is %g", i, v[i]);
    assert_true(isnan(v[MONITOR_HOST_CPU_BUSY]));  /* every mode's sum overflows */
    assert_true(isnan(v[MONITOR_HOST_LOAD1]));     /* a NaN sample */
    assert_true(isnan(v[MONITOR_HOST_MEM_USED]));  /* a difference that overflows */
    assert_true(isnan(v[MONITOR_HOST_NET_RX]));    /* a rate that overflows */
    NEAR(v[MONITOR_HOST_NET_TX], 0);               /* the +Inf sample skipped */
    NEAR(v[MONITOR_HOST_DISK_BUSY], 0.5);          /* vda's rate overflows: vdb is the busiest */
    assert_true(isnan(v[MONITOR_HOST_FIXED + 0])); /* a gauge summed past DBL_MAX */
    assert_true(isnan(v[MONITOR_HOST_FIXED + 1])); /* a counter's rate past DBL_MAX */
    assert_true(isnan(v[MONITOR_HOST_FIXED + 2])); /* only NaN and +Inf samples */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_not_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

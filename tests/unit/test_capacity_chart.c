/* Unit tests for reports/capacity_chart: the knee's section, its units. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reports/capacity_chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section of a search of two open-model steps, as a string (free it). */
static char *section(double runs_s0)
{
    capacity_db_step st[2];
    capacity_db_run c;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    memset(st, 0, sizeof(st));
    memset(&c, 0, sizeof(c));
    for (int i = 0; i < 2; i++) {
        st[i].load = 100.0 * (i + 1);
        st[i].seconds = 3;
        st[i].tps = 3 * st[i].load; /* three requests a run */
        st[i].runs_s = i == 0 ? runs_s0 : 180;
        st[i].inits = i == 0 ? 0 : 7;
        st[i].init_waits = i == 0 ? 0 : 2;
        st[i].passed = i == 0;
    }
    snprintf(st[1].failed, sizeof(st[1].failed), "p95<100ms: p95 = 340 ms");
    c.found = 1;
    c.value = 100;
    snprintf(c.unit, sizeof(c.unit), "/s");
    c.steps = st;
    c.nsteps = 2;
    capacity_chart_section(out, &c);
    fclose(out);
    return buf;
}

/* The open model's load is arrivals a second: its throughput is drawn in
 * runs a second beside it, never in requests (three times as many here). */
static void test_open_units(void **state)
{
    char *s = section(100);

    (void)state;
    assert_non_null(strstr(s, "<title>throughput at 200/s: 180.0 runs/s</title>"));
    assert_null(strstr(s, "600.0 /s"));
    assert_non_null(strstr(s, "runs a second, as the load"));
    assert_non_null(strstr(s, "offered load (arrivals a second)"));
    /* the table: runs/s, and the inits of each step with the arrivals that waited */
    assert_non_null(strstr(s, "<th>runs/s</th>"));
    assert_non_null(strstr(s, "<td>180.0</td><td>600.0</td>"));
    assert_non_null(strstr(s, "<td>7 (2)</td>"));
    free(s);
    /* a search kept before runs were: its requests, said as such */
    s = section(-1);
    assert_non_null(strstr(s, "<title>throughput at 200/s: 600.0 requests/s</title>"));
    assert_null(strstr(s, "<th>runs/s</th>"));
    /* an open search's N is not in the database: no law drawn */
    assert_null(strstr(s, "Scalability Law"));
    free(s);
}

/* A closed search of 5 steps whose throughput follows the law (λ 10,
 * σ 0.1, κ 0.01): its curve is drawn through them, its figures named. */
static void test_closed_law(void **state)
{
    capacity_db_step st[5];
    capacity_db_run c;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    (void)state;
    memset(st, 0, sizeof(st));
    memset(&c, 0, sizeof(c));
    for (int i = 0; i < 5; i++) {
        double n = 5.0 * (i + 1);
        st[i].load = n;
        st[i].seconds = 3;
        st[i].tps = 10 * n / (1 + 0.1 * (n - 1) + 0.01 * n * (n - 1));
        st[i].runs_s = -1;
        st[i].passed = i < 4;
    }
    snprintf(st[4].failed, sizeof(st[4].failed), "p95<100ms: p95 = 340 ms");
    c.found = 1;
    c.value = 20;
    snprintf(c.unit, sizeof(c.unit), "vus");
    c.steps = st;
    c.nsteps = 5;
    capacity_chart_section(out, &c);
    fclose(out);
    assert_non_null(strstr(buf, "contention &#963; 0.100, coherency &#954; 0.01000, peak"));
    assert_non_null(strstr(buf, "at 9.5 VUs")); /* sqrt(0.9 / 0.01) = 9.49 */
    assert_non_null(strstr(buf, "stroke=\"#7c3aed\""));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_units),
        cmocka_unit_test(test_closed_law),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

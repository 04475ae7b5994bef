/* Unit tests for reports/profile_html: a run with a capacity search of two
 * steps (100/s passed, 200/s failed) and a profiled target whose lock wait
 * grows across the knee, written through store's writers, loaded and
 * rendered in the whole page: the tables name its functions and waits with
 * their shares, the graphs' titles carry them, the waits for work are left
 * out, each step has its graph, the knee its differential graphs and the
 * diagnosis its sentence; a target not profiled is a note; a run without a
 * search is judged whole; a run without a profile has no section. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "reports/profile_html.h"
#include "reports/report_html.h"
#include "store/capacity_db.h"
#include "store/profile_db.h"
#include "store/query.h"

#include "tests/unit/dbfix.h"
#include "tests/unit/runfix.h"

/* Seconds 0 to 5 of target comm:srv: second 5 (the failing step's judged
 * one) blocked mostly in find_item's lock, the others mostly waiting for
 * work; a target that could not be profiled beside it. */
static void write_profile(db *d, int64_t id)
{
    char err[ERR_MAX];
    profile_db *p = profile_db_new(d, err, sizeof(err));

    profile_target_row srv = {.procs = 1, .threads = 4, .freq = 99, .cpus = 1}, none = {0};

    assert_non_null(p);
    assert_int_equal(profile_db_target(p, id, "comm:srv", "a1", 1, NULL, &srv, err, sizeof(err)),
                     0);
    assert_int_equal(profile_db_target(p, id, "comm:ghost", "a1", 0, "no process named <ghost>",
                                       &none, err, sizeof(err)),
                     0);
    for (int64_t s = 0; s < 6; s++) {
        int hot = s == 5;
        profile_db_stack cpu[3] = {{"main;serve;parse", hot ? 30 : 60},
                                   {"main;serve;find_item", hot ? 150 : 20},
                                   {"main;serve;cmp<int>", 10}};
        profile_db_stack off[2] = {
            {"main;serve;epoll_wait", hot ? 100000 : 500000},
            {"main;serve;find_item;pthread_mutex_lock", hot ? 600000 : 50000}};
        profile_db_sec sec = {.second = s,
                              .cpu = cpu,
                              .ncpu = hot ? 2 : 3,
                              .off = off,
                              .noff = 2,
                              .on_us = hot ? 300000 : 400000,
                              .off_us = hot ? 700000 : 550000,
                              .threads = 4};
        assert_int_equal(profile_db_second(p, id, "comm:srv", &sec, err, sizeof(err)), 0);
    }
    profile_db_free(p);
}

/* Step 1 at 100/s judged on seconds [1, 3), step 2 at 200/s on [5, 6). */
static void write_search(db *d, int64_t id)
{
    char err[ERR_MAX];
    capacity_db_step st[2];
    capacity_db_run c;

    memset(st, 0, sizeof(st));
    memset(&c, 0, sizeof(c));
    for (int i = 0; i < 2; i++) {
        st[i].load = 100.0 * (i + 1);
        st[i].t0_us = 3000000ll * i;
        st[i].t1_us = st[i].t0_us + 3000000;
        st[i].seconds = (unsigned)(2 - i);
        st[i].passed = i == 0;
        st[i].runs_s = st[i].inits = st[i].init_waits = -1;
    }
    st[0].from_us = 1000000;
    st[1].from_us = 4500000; /* rounded up: from second 5 */
    snprintf(st[1].failed, sizeof(st[1].failed), "p95<100ms: p95 = 340 ms");
    c.found = 1;
    c.value = 100;
    snprintf(c.unit, sizeof(c.unit), "/s");
    c.settle_us = 1000000;
    c.steps = st;
    c.nsteps = 2;
    assert_int_equal(capacity_db_write(d, id, &c, err, sizeof(err)), 0);
}

/* The page of run id with its profile (*had: whether it had one); xfree it. */
static char *page(fx *f, int64_t id, int *had)
{
    char err[ERR_MAX], *buf = NULL, *text;
    size_t len = 0;
    query_run *r = query_run_load(f->d, id, 0, NULL, err, sizeof(err));
    profile_html *p = NULL;
    FILE *out;

    assert_non_null(r);
    assert_int_equal(profile_html_load(f->d, r, &p, err, sizeof(err)), 0);
    *had = p != NULL;
    out = open_memstream(&buf, &len);
    assert_non_null(out);
    report_html_write_profile(out, r, p);
    assert_int_equal(ferror(out), 0);
    fclose(out);
    profile_html_free(p);
    query_run_free(r);
    text = xstrdup(buf);
    free(buf); /* open_memstream's: malloc'd by libc */
    return text;
}

static void has(const char *s, const char *what)
{
    if (strstr(s, what) == NULL)
        fail_msg("not in the page: %s", what);
}

static void test_search(void **state)
{
    fx *f = *state;
    int64_t id = runfix_write(f->d, f->script, "plan", "Home", 1);
    int had;
    char *s;

    write_search(f->d, id);
    write_profile(f->d, id);
    s = page(f, id, &had);
    assert_true(had);
    has(s, "<a href=\"#profile\">Server profile</a>");
    has(s, "<section id=\"profile\">");
    /* after the capacity section */
    assert_true(strstr(s, "<section id=\"capacity\">") < strstr(s, "<section id=\"profile\">"));
    has(s, "<h3>Server profile: comm:srv (agent a1)</h3>");
    has(s, "630 on-CPU samples in 6 s");
    /* the functions by own samples: parse 330 of 630, find_item 250 */
    has(s, "<tr><td><code>parse</code></td><td class=\"n\">52.4 %</td><td class=\"n\">52.4 "
           "%</td><td class=\"n\">330</td></tr>");
    has(s, "<tr><td><code>find_item</code></td><td class=\"n\">39.7 %</td><td class=\"n\">"
           "39.7 %</td><td class=\"n\">250</td></tr>");
    assert_true(strstr(s, "<code>parse</code>") < strstr(s, "<code>find_item</code>"));
    /* names escaped */
    has(s, "cmp&lt;int&gt;");
    assert_null(strstr(s, "cmp<int>"));
    /* the wait, named by its lock's caller: 850 ms of the threads' 5.75 s, over 6 s */
    has(s, "<code>find_item (pthread_mutex_lock)</code></td><td class=\"n\">14.8 %</td>"
           "<td class=\"n\">141.7</td>");
    /* the waits for work are in no table and no graph: only in the note that says so */
    assert_true(strstr(s, "epoll_wait") > strstr(s, "<p class=\"note\">On-CPU: the samples"));
    /* the graphs' titles carry the shares */
    has(s, "<figcaption>On-CPU, the whole run: 630 samples in 6 s; the threads ran 40 % of "
           "their time</figcaption>");
    has(s, "<title>parse: 52.4 % (330 samples)</title>");
    has(s, "<figcaption>Off-CPU, the whole run, waits for work left out: 850 ms blocked, 15 % "
           "of the threads&#39; time</figcaption>");
    has(s, "<title>pthread_mutex_lock: 100.0 % (");
    /* a graph of each judged step, over its judged seconds */
    has(s, "On-CPU at 100/s (step 1, passed): 180 samples in 2 s; the threads ran 42 % of their "
           "time");
    has(s, "On-CPU at 200/s (step 2, failed): 180 samples in 1 s; the threads ran 30 % of their "
           "time");
    /* the knee: find_item's share grew from 40 of 180 samples to 150 of 180 */
    has(s, "On-CPU, 100/s (passed) to 200/s (failed): each frame&#39;s share of the samples");
    has(s, "<title>find_item: 83.3 % (was 22.2 %)</title>");
    has(s, "Off-CPU, 100/s to 200/s, waits for work left out");
    /* the lock's share of the time at work: 100 of 900 ms, then 600 of 900 */
    has(s, "<b>Diagnosis:</b> the server&#39;s threads spent 67 % of their time waiting on a "
           "lock in find_item (pthread_mutex_lock) at 200/s, up from 11 % at 100/s.");
    /* the target not profiled: its error, escaped */
    has(s, "comm:ghost (agent a1) was not profiled: no process named &lt;ghost&gt;.");
    assert_null(strstr(s, "<ghost>"));
    assert_null(strstr(s, "Server profile: comm:ghost"));
    xfree(s);
}

/* Without a search the run is judged whole, and there are no step graphs. */
static void test_no_search(void **state)
{
    fx *f = *state;
    int64_t id = runfix_write(f->d, f->script, "plan", "Home", 1);
    int had;
    char *s;

    write_profile(f->d, id);
    s = page(f, id, &had);
    assert_true(had);
    has(s, "<h3>Server profile: comm:srv (agent a1)</h3>");
    has(s, "<b>Diagnosis:</b> ");
    has(s, " at this load");
    assert_null(strstr(s, "Each step of the capacity search"));
    assert_null(strstr(s, "(was "));
    xfree(s);
}

static void test_no_profile(void **state)
{
    fx *f = *state;
    int64_t id = runfix_write(f->d, f->script, "plan", "Home", 1);
    int had;
    char *s;

    write_search(f->d, id);
    s = page(f, id, &had);
    assert_false(had);
    has(s, "<section id=\"capacity\">");
    assert_null(strstr(s, "id=\"profile\""));
    assert_null(strstr(s, "Server profile"));
    assert_null(strstr(s, "flame"));
    xfree(s);
}

static void test_knee(void **state)
{
    capacity_db_step st[3];
    capacity_db_run c = {.steps = st, .nsteps = 3};
    int b, a;
    int64_t s0, s1;

    (void)state;
    memset(st, 0, sizeof(st));
    st[0].passed = st[1].passed = 1;
    assert_true(profile_html_knee(&c, &b, &a));
    assert_int_equal(b, 1); /* none failed: the last two */
    assert_int_equal(a, 2);
    st[1].passed = 0;
    assert_true(profile_html_knee(&c, &b, &a));
    assert_int_equal(b, 0);
    assert_int_equal(a, 1);
    st[0].passed = 0;
    assert_true(profile_html_knee(&c, &b, &a));
    assert_int_equal(b, -1);
    assert_int_equal(a, 0);
    c.nsteps = 0;
    assert_false(profile_html_knee(&c, &b, &a));
    st[0].from_us = 2000001;
    st[0].t1_us = 5999999;
    profile_html_step_seconds(&st[0], &s0, &s1);
    assert_true(s0 == 3 && s1 == 5);
    st[0].t1_us = 3000000;
    profile_html_step_seconds(&st[0], &s0, &s1);
    assert_true(s0 == 3 && s1 == 4); /* at least one */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_search, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_no_search, setup_open, teardown),
        cmocka_unit_test_setup_teardown(test_no_profile, setup_open, teardown),
        cmocka_unit_test(test_knee),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

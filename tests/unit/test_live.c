/* The live display: plain lines every 10 s with 10 s rates, a table
 * redrawn in place, names cut to the width, rows cut to the height. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console/live.h"

/* An agg fed second by second, and a memory stream for live's output. */
typedef struct fx {
    agg a;
    step_stats *st;
    size_t nsteps;
    char *buf;
    size_t len;
    size_t seen; /* bytes of buf already looked at */
    FILE *f;
} fx;

static void fx_init(fx *x, size_t nsteps)
{
    memset(x, 0, sizeof(*x));
    agg_init(&x->a, nsteps, 1);
    x->nsteps = nsteps;
    x->st = calloc(nsteps, sizeof(*x->st));
    assert_non_null(x->st);
    for (size_t i = 0; i < nsteps; i++)
        stats_init(&x->st[i]);
    x->f = open_memstream(&x->buf, &x->len);
    assert_non_null(x->f);
}

static void fx_free(fx *x)
{
    fclose(x->f);
    free(x->buf);
    for (size_t i = 0; i < x->nsteps; i++)
        stats_free(&x->st[i]);
    free(x->st);
    agg_free(&x->a);
}

/* One second in which every step did n requests of us microseconds plus
 * slow ones of slow_us, with tech and func errors. */
static void fx_second(fx *x, uint64_t n, uint64_t us, uint64_t slow, uint64_t slow_us,
                      uint64_t tech, uint64_t func, uint32_t vus)
{
    uint64_t runs = 0, missed = 0;

    for (size_t i = 0; i < x->nsteps; i++) {
        stats_reset(&x->st[i]);
        x->st[i].count = n + slow;
        x->st[i].err_tech = tech;
        x->st[i].err_func = func;
        hist_record_n(x->st[i].hist, us, n);
        hist_record_n(x->st[i].hist, slow_us, slow);
    }
    agg_add(&x->a, x->st, &runs, &missed, 1000000, vus);
}

/* What live wrote since the last call (a NUL-terminated view into buf). */
static const char *fx_new_text(fx *x)
{
    const char *t;

    fflush(x->f);
    t = x->buf + x->seen;
    x->seen = x->len;
    return t;
}

/* Number of screen lines in a frame and the widest of them in columns
 * (ASCII frames only), escapes left out. */
static void frame_shape(const char *t, int *lines, int *widest)
{
    int col = 0;

    *lines = 0;
    *widest = 0;
    while (*t != '\0') {
        if (*t == '\033') { /* CSI: parameters, then a final letter */
            t++;
            if (*t == '[')
                t++;
            while (*t != '\0' && ((*t >= '0' && *t <= '9') || *t == ';'))
                t++;
            if (*t != '\0')
                t++;
            continue;
        }
        if (*t == '\n') {
            (*lines)++;
            col = 0;
        } else if (*t == '\r') {
            col = 0;
        } else if (++col > *widest) {
            *widest = col;
        }
        t++;
    }
}

static void test_plain_every_tenth_with_window_rates(void **state)
{
    fx x;
    live *l;
    const char *names[] = {"SC-a-STEP-1)home"};

    fx_init(&x, 1);
    l = live_new(x.f, LIVE_PLAIN, names, 1, 0);
    assert_int_equal(live_mode(l), LIVE_PLAIN);

    /* 9 fast and 1 slow request a second, one technical error. */
    for (int s = 1; s <= 9; s++) {
        fx_second(&x, 9, 1000, 1, 11000, 1, 0, 5);
        live_update(l, &x.a, x.st, 0, 0);
        assert_string_equal(fx_new_text(&x), "");
    }
    fx_second(&x, 9, 1000, 1, 11000, 1, 0, 5);
    live_update(l, &x.a, x.st, 0, 0);
    assert_string_equal(fx_new_text(&x), "[   10s] VUs 5  TPS 10.0  mean 2.0 ms  p95 11.0 ms  "
                                         "errors 10 (technical 10, functional 0)\n");

    /* The next line covers only the next 10 seconds. */
    for (int s = 11; s <= 20; s++) {
        fx_second(&x, 30, 4000, 0, 0, 0, 2, 7);
        live_update(l, &x.a, x.st, 0, 0);
        if (s < 20)
            assert_string_equal(fx_new_text(&x), "");
    }
    assert_string_equal(fx_new_text(&x), "[   20s] VUs 7  TPS 30.0  mean 4.0 ms  p95 4.0 ms  "
                                         "errors 20 (technical 0, functional 20)\n");

    /* A short tail gets its line at the end, over its own 5 seconds. */
    for (int s = 21; s <= 25; s++) {
        fx_second(&x, 20, 1000, 0, 0, 0, 0, 7);
        live_update(l, &x.a, x.st, 2, 3);
    }
    assert_string_equal(fx_new_text(&x), "");
    live_finish(l);
    assert_string_equal(fx_new_text(&x), "[   25s] VUs 7  TPS 20.0  mean 1.0 ms  p95 1.0 ms  "
                                         "errors 0 (technical 0, functional 0)  agents 2/3\n");
    live_finish(l); /* nothing left to print */
    assert_string_equal(fx_new_text(&x), "");
    live_free(l);
    fx_free(&x);
}

static void test_auto_is_plain_off_a_terminal(void **state)
{
    fx x;
    live *l;

    fx_init(&x, 0);
    l = live_new(x.f, LIVE_AUTO, NULL, 0, 0);
    assert_int_equal(live_mode(l), LIVE_PLAIN);
    live_free(l);
    fx_free(&x);
}

static void test_quiet_prints_nothing(void **state)
{
    fx x;
    live *l;
    const char *names[] = {"a"};

    fx_init(&x, 1);
    l = live_new(x.f, LIVE_QUIET, names, 1, 0);
    for (int s = 0; s < 12; s++) {
        fx_second(&x, 10, 1000, 0, 0, 0, 0, 1);
        live_update(l, &x.a, x.st, 0, 0);
    }
    live_clear(l);
    live_finish(l);
    assert_string_equal(fx_new_text(&x), "");
    live_free(l);
    live_free(NULL);
    fx_free(&x);
}

static void test_table_redraws_in_place(void **state)
{
    fx x;
    live *l;
    const char *names[] = {"SC-a-STEP-1)login", "SC-a-STEP-2)search", "SC-a-STEP-3)buy"};
    const char *t;
    char row[256];
    int lines, widest;

    fx_init(&x, 3);
    l = live_new(x.f, LIVE_TABLE, names, 3, 10000000);
    live_set_size(l, 100, 40);

    fx_second(&x, 10, 2000, 0, 0, 1, 0, 4);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    assert_memory_equal(t, "\r\033[2K[", 6); /* no cursor-up on the first frame */
    assert_non_null(strstr(t, "[##..................]  10%  1s / 10s (9s left)  VUs 4  "
                              "TPS 30.0  errors 10.00%"));
    assert_null(strstr(t, "agents")); /* a local run */
    for (int i = 0; i < 3; i++)
        assert_non_null(strstr(t, names[i]));
    frame_shape(t, &lines, &widest);
    assert_int_equal(lines, 6); /* header, titles, 3 steps, totals */
    assert_true(widest <= 99);

    fx_second(&x, 10, 2000, 0, 0, 1, 0, 4);
    live_update(l, &x.a, x.st, 1, 2);
    t = fx_new_text(&x);
    assert_memory_equal(t, "\033[6A", 4);
    assert_non_null(strstr(t, "[####................]  20%  2s / 10s (8s left)"));
    assert_non_null(strstr(t, "agents 1/2"));
    /* this second's TPS, mean and p95; errors this second and in total */
    snprintf(row, sizeof(row), "%-18s %10.1f %9.1f %9.1f %8d %10d", names[0], 10.0, 2.0, 2.0, 1, 2);
    assert_non_null(strstr(t, row));
    snprintf(row, sizeof(row), "%-18s %10.1f %9.1f %9.1f %8d %10d", "total", 30.0, 2.0, 2.0, 3, 6);
    assert_non_null(strstr(t, row));

    /* Cleared for a message: the next frame starts afresh below it. */
    live_clear(l);
    assert_string_equal(fx_new_text(&x), "\033[6A\r\033[J");
    fx_second(&x, 10, 2000, 0, 0, 0, 0, 4);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    assert_memory_equal(t, "\r\033[2K[", 6);

    /* Past the planned time the bar stays full. */
    for (int s = 0; s < 10; s++) {
        fx_second(&x, 10, 2000, 0, 0, 0, 0, 4);
        live_update(l, &x.a, x.st, 0, 0);
    }
    t = fx_new_text(&x);
    assert_non_null(strstr(t, "[####################] 100%  13s / 10s (0s left)"));
    live_finish(l);
    live_free(l);
    fx_free(&x);
}

static void test_table_without_planned_time(void **state)
{
    fx x;
    live *l;
    const char *names[] = {"a"};
    const char *t;

    fx_init(&x, 1);
    l = live_new(x.f, LIVE_TABLE, names, 1, 0);
    live_set_size(l, 100, 40);
    for (int s = 0; s < 63; s++)
        fx_second(&x, 1, 1000, 0, 0, 0, 0, 1);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    assert_non_null(strstr(t, "elapsed 1m03s  VUs 1"));
    assert_null(strstr(t, "left)"));
    live_free(l);
    fx_free(&x);
}

static void test_table_cuts_long_names_to_the_width(void **state)
{
    fx x;
    live *l;
    char name[300];
    const char *names[2] = {name, "short"};
    const char *t;
    int lines, widest;

    snprintf(name, sizeof(name), "SC-a-STEP-1)%0200d-label-end", 0);
    fx_init(&x, 2);
    l = live_new(x.f, LIVE_TABLE, names, 2, 60000000);
    live_set_size(l, 80, 40);
    fx_second(&x, 10, 2000, 0, 0, 0, 0, 4);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    frame_shape(t, &lines, &widest);
    assert_int_equal(lines, 5);
    assert_true(widest <= 79);
    /* cut in the middle: the id and the end of the label stay */
    assert_non_null(strstr(t, "SC-a-STEP-1)0...00-label-end "));
    assert_null(strstr(t, name));

    /* A narrower terminal: every line still fits. */
    live_set_size(l, 40, 40);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    frame_shape(t, &lines, &widest);
    assert_true(widest <= 39);
    live_free(l);
    fx_free(&x);
}

static void test_table_cuts_rows_to_the_height(void **state)
{
    enum { N = 50 };
    fx x;
    live *l;
    char buf[N][16], probe[64];
    const char *names[N];
    const char *t;
    int lines, widest;

    for (int i = 0; i < N; i++) {
        snprintf(buf[i], sizeof(buf[i]), "step-%02d", i);
        names[i] = buf[i];
    }
    fx_init(&x, N);
    l = live_new(x.f, LIVE_TABLE, names, N, 0);
    live_set_size(l, 100, 20);
    fx_second(&x, 10, 2000, 0, 0, 1, 0, 4);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    frame_shape(t, &lines, &widest);
    assert_int_equal(lines, 19); /* the 20th row keeps the cursor */
    assert_non_null(strstr(t, "step-14"));
    assert_null(strstr(t, "step-15"));
    assert_non_null(strstr(t, "... 35 more steps"));
    /* the totals count the hidden steps too */
    snprintf(probe, sizeof(probe), "%-8s %10.1f %9.1f %9.1f %8d %10d", "total", 500.0, 2.0, 2.0, 50,
             50);
    assert_non_null(strstr(t, probe));

    /* Taller terminal: every step, and the previous frame's 19 lines up. */
    live_set_size(l, 100, 60);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    assert_memory_equal(t, "\033[19A", 5);
    frame_shape(t, &lines, &widest);
    assert_int_equal(lines, N + 3);
    assert_non_null(strstr(t, "step-49"));
    assert_null(strstr(t, "more step"));
    live_free(l);
    fx_free(&x);
}

static void test_names_cannot_drive_the_terminal(void **state)
{
    fx x;
    live *l;
    const char *names[] = {"evil\033[2J\x9b"
                           "1m\xc2\x9b"
                           "x",
                           "caf\xc3\xa9", "bad\xc3"};
    const char *t;

    fx_init(&x, 3);
    l = live_new(x.f, LIVE_TABLE, names, 3, 0);
    live_set_size(l, 100, 40);
    fx_second(&x, 1, 1000, 0, 0, 0, 0, 1);
    live_update(l, &x.a, x.st, 0, 0);
    t = fx_new_text(&x);
    assert_null(strstr(t, "\033[2J"));
    assert_null(strchr(t, '\x9b'));
    assert_non_null(strstr(t, "evil?[2J?1m??x"));
    assert_non_null(strstr(t, "caf\xc3\xa9 ")); /* valid UTF-8 stays */
    assert_non_null(strstr(t, "bad? "));
    live_free(l);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_every_tenth_with_window_rates),
        cmocka_unit_test(test_auto_is_plain_off_a_terminal),
        cmocka_unit_test(test_quiet_prints_nothing),
        cmocka_unit_test(test_table_redraws_in_place),
        cmocka_unit_test(test_table_without_planned_time),
        cmocka_unit_test(test_table_cuts_long_names_to_the_width),
        cmocka_unit_test(test_table_cuts_rows_to_the_height),
        cmocka_unit_test(test_names_cannot_drive_the_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

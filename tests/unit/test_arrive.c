/* Unit tests for worker/arrive: the split of the pool (and of --vus) among
 * the scenarios that share an arrival rate by weight; the arrivals due by a
 * wake all taken in it, each with its own due time; the VUs kept ready. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/mem.h"
#include "worker/engine/arrive.h"

/* What arrive_take started: the due times, in order. */
typedef struct taken {
    int64_t due[2048];
    size_t n;
} taken;

static void note(void *ctx, int64_t due_us)
{
    taken *t = ctx;
    if (t->n < sizeof(t->due) / sizeof(t->due[0]))
        t->due[t->n] = due_us;
    t->n++;
}

/* An arrive holding only a schedule: R a second for 1 s, stripe of stripes. */
static void schedule(arrive *a, rate_stage *st, double per_s, uint32_t stripe, uint32_t stripes)
{
    memset(a, 0, sizeof(*a));
    st[0].dur_us = 0;
    st[0].per_s = per_s;
    st[1].dur_us = 1000000;
    st[1].per_s = per_s;
    a->st = st;
    a->nst = 2;
    a->stripes = stripes;
    rate_cursor_init(&a->cur, st, 2, stripe, stripes);
    assert_int_equal(rate_cursor_next(&a->cur, &a->next_us), 0);
}

static uint32_t sum(const uint32_t *a, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static void test_split_by_weight(void **state)
{
    double w[3] = {3, 1, 0.5};
    uint32_t out[3];

    arrive_split(w, 2, 40, out); /* 3:1 of 40 */
    assert_int_equal(out[0], 30);
    assert_int_equal(out[1], 10);
    arrive_split(w, 2, 1000, out);
    assert_int_equal(out[0], 750);
    assert_int_equal(out[1], 250);
    arrive_split(w, 3, 10, out); /* 6.67, 2.22, 1.11: largest remainder */
    assert_int_equal(sum(out, 3), 10);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 1);
}

static void test_split_at_least_one(void **state)
{
    double w[3] = {100, 1, 1};
    uint32_t out[3];

    /* 2.94, 0.03, 0.03: each still gets a VU, or its arrivals all drop */
    arrive_split(w, 3, 3, out);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 1);
    arrive_split(w, 3, 5, out);
    assert_int_equal(sum(out, 3), 5);
    assert_true(out[1] >= 1 && out[2] >= 1);
    /* fewer slots than scenarios: no more than there is */
    arrive_split(w, 3, 2, out);
    assert_int_equal(sum(out, 3), 2);
    arrive_split(w, 3, 0, out);
    assert_int_equal(sum(out, 3), 0);
}

static void test_split_one(void **state)
{
    double w[1] = {1};
    uint32_t out[1];

    arrive_split(w, 1, 17, out);
    assert_int_equal(out[0], 17);
}

static void test_take_all_due_in_one_wake(void **state)
{
    arrive a;
    rate_stage st[2];
    static taken t;

    /* 20,000/s: arrival k due at 50 k us; a wake at 5 ms (late for all but
     * the last) takes the 101 due by then at once, each at its own time. */
    schedule(&a, st, 20000, 0, 1);
    t.n = 0;
    assert_int_equal(arrive_take(&a, 5000, 256, note, &t), 101);
    assert_int_equal(t.n, 101);
    for (size_t k = 0; k < t.n; k++)
        assert_int_equal(t.due[k], (int64_t)k * 50);
    assert_int_equal(a.next_us, 5050); /* the timer's next time */
    /* nothing more is due yet: the same wake takes none */
    assert_int_equal(arrive_take(&a, 5049, 256, note, &t), 0);
    assert_int_equal(t.n, 101);
    /* the next wake goes on where it stopped, none twice, none skipped */
    assert_int_equal(arrive_take(&a, 5100, 256, note, &t), 2);
    assert_int_equal(t.due[101], 5050);
    assert_int_equal(t.due[102], 5100);
}

static void test_take_bounded_and_striped(void **state)
{
    arrive a;
    rate_stage st[2];
    static taken t;

    /* 1,000 due at once, at most 256 a wake: the rest keep their times */
    schedule(&a, st, 20000, 0, 1);
    t.n = 0;
    assert_int_equal(arrive_take(&a, 49950, 256, note, &t), 256);
    assert_int_equal(a.next_us, 256 * 50);
    assert_int_equal(arrive_take(&a, 49950, 2048, note, &t), 1000 - 256);
    for (size_t k = 0; k < t.n; k++)
        assert_int_equal(t.due[k], (int64_t)k * 50);
    /* worker 1 of 4: arrivals 1, 5, 9, ... of the run */
    schedule(&a, st, 20000, 1, 4);
    t.n = 0;
    assert_int_equal(arrive_take(&a, 1000, 256, note, &t), 5);
    assert_int_equal(t.due[0], 50);
    assert_int_equal(t.due[4], 850);
    /* a stopped arrive takes none */
    a.stopped = 1;
    assert_int_equal(arrive_take(&a, 1000000, 256, note, &t), 0);
}

/* The arrivals the schedule asked by a time are those a wake at that time
 * takes, whether or not one came: a worker behind its timer still counts
 * them as scheduled. Striped, ramped and past the end alike. */
static void test_due_by(void **state)
{
    arrive a;
    rate_stage st[2], ramp[1] = {{2000000, 1000}};
    static taken t;
    const int64_t at[] = {0, 49, 50, 5000, 5049, 333333, 999999, 1000000, 5000000};

    for (uint32_t stripes = 1; stripes <= 4; stripes += 3)
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
            schedule(&a, st, 20000, stripes - 1, stripes);
            t.n = 0;
            arrive_take(&a, at[i], 100000, note, &t);
            assert_int_equal(arrive_due_by(&a, at[i]), t.n);
        }
    assert_int_equal(arrive_due_by(&a, -1), 0);
    /* 0 to 1000/s over 2 s: L(t) = 250 t^2, 1000 in all */
    memset(&a, 0, sizeof(a));
    a.st = ramp;
    a.nst = 1;
    a.stripes = 1;
    rate_cursor_init(&a.cur, ramp, 1, 0, 1);
    assert_int_equal(rate_cursor_next(&a.cur, &a.next_us), 0);
    assert_int_equal(arrive_due_by(&a, 1000000), 251); /* arrivals 0..250 */
    assert_int_equal(arrive_due_by(&a, 9000000), 1000);
}

/* rate R at a moment: the arrivals before it as they were, then R a second
 * from it to the planned end, numbered on (each stripe keeps its own). */
static void test_restage(void **state)
{
    for (uint32_t stripes = 1; stripes <= 3; stripes++) {
        uint64_t n = 0;
        for (uint32_t w = 0; w < stripes; w++) {
            arrive a;
            taken t = {.n = 0};
            memset(&a, 0, sizeof(a));
            a.nst = 2;
            a.st = xcalloc(2, sizeof(*a.st));
            a.st[0].per_s = a.st[1].per_s = 100;
            a.st[1].dur_us = 4000000; /* 100/s for 4 s */
            a.share = 1;
            a.stripes = stripes;
            rate_cursor_init(&a.cur, a.st, a.nst, w, stripes);
            assert_int_equal(rate_cursor_next(&a.cur, &a.next_us), 0);
            arrive_take(&a, 1999999, 2048, note, &t); /* the first 2 s: 200 in all */
            assert_int_equal(arrive_restage(&a, w, 2000000, 200), 0);
            /* the next one at 2 s (to the rounding of its due time), then each
             * stripe's at 200/s */
            assert_true(a.next_us >= 1999990 && a.next_us < 2000000 + 5000 * (int64_t)stripes);
            arrive_take(&a, 4000000, 2048, note, &t);
            for (size_t i = 1; i < t.n && i < 2048; i++)
                assert_true(t.due[i] > t.due[i - 1]);
            n += t.n;
            assert_int_equal(arrive_restage(&a, w, 4000000, 50), -1); /* past the end */
            xfree(a.st);
        }
        assert_int_equal(n, 200 + 400); /* 100/s for 2 s, then 200/s for 2 s */
    }
}

static void test_spare(void **state)
{
    /* the arrivals of the next 2 ms, plus one, at most 256 */
    assert_int_equal(arrive_spare(0), 1);
    assert_int_equal(arrive_spare(100), 1);
    assert_int_equal(arrive_spare(1000), 3);
    assert_int_equal(arrive_spare(20000), 41);
    assert_int_equal(arrive_spare(1e6), 256);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_by_weight),
        cmocka_unit_test(test_split_at_least_one),
        cmocka_unit_test(test_split_one),
        cmocka_unit_test(test_take_all_due_in_one_wake),
        cmocka_unit_test(test_take_bounded_and_striped),
        cmocka_unit_test(test_due_by),
        cmocka_unit_test(test_restage),
        cmocka_unit_test(test_spare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

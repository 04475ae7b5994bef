/* The merge window: seconds are handed on once every sender reported them,
 * in order, late data separately, nothing lost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.h"
#include "proto/interval_window.h"

typedef struct seen {
    uint64_t second[32];
    uint64_t count[32];
    int late[32];
    int n;
} seen;

static void on_second(void *ud, uint64_t second, const interval_sum *sum, int late)
{
    seen *s = ud;
    s->second[s->n] = second;
    s->count[s->n] = sum->steps[0].count;
    s->late[s->n] = late;
    s->n++;
}

/* One sender's Interval for second, with count samples of 1 ms on step 0. */
static Quern__Interval *msg(uint64_t second, uint64_t count)
{
    step_stats st;
    Quern__Interval *m;

    stats_init(&st);
    st.count = count;
    hist_record_n(st.hist, 1000, count);
    m = interval_sum_msg_new(1, second, &st, 1, NULL, NULL, NULL, 0, 1, 0, 0);
    stats_free(&st);
    return m;
}

static void add(interval_window *w, uint64_t second, uint64_t count, unsigned alive)
{
    char err[ERR_MAX];
    Quern__Interval *m = msg(second, count);
    assert_int_equal(interval_window_add(w, m, NULL, alive, err, sizeof(err)), 0);
    interval_sum_msg_free(m);
}

static void test_waits_for_every_sender(void **state)
{
    interval_window w;
    seen s = {0};

    interval_window_init(&w, 1, 0, 60000000, on_second, &s);
    add(&w, 0, 3, 2);
    assert_int_equal(s.n, 0); /* one of two senders so far */
    add(&w, 1, 5, 2);
    assert_int_equal(s.n, 0);
    add(&w, 0, 4, 2);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.second[0], 0);
    assert_int_equal(s.count[0], 7);
    add(&w, 1, 6, 2);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.count[1], 11);
    interval_window_free(&w);
}

static void test_later_second_complete_flushes_older(void **state)
{
    interval_window w;
    seen s = {0};

    interval_window_init(&w, 1, 0, 60000000, on_second, &s);
    add(&w, 0, 1, 2); /* the second sender never reports second 0 */
    add(&w, 1, 1, 2);
    add(&w, 1, 1, 2); /* second 1 complete: second 0 goes first, as it is */
    assert_int_equal(s.n, 2);
    assert_int_equal(s.second[0], 0);
    assert_int_equal(s.count[0], 1);
    assert_int_equal(s.second[1], 1);
    assert_int_equal(s.count[1], 2);
    /* Late data for second 0 is handed on by itself, marked late. */
    add(&w, 0, 9, 2);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.second[2], 0);
    assert_int_equal(s.count[2], 9);
    assert_int_equal(s.late[2], 1);
    interval_window_free(&w);
}

static void test_force_and_grace(void **state)
{
    interval_window w;
    seen s = {0};

    interval_window_init(&w, 1, 0, 0, on_second, &s); /* no grace: anything waiting goes */
    add(&w, 4, 2, 3);
    assert_int_equal(s.n, 1);
    interval_window_free(&w);

    memset(&s, 0, sizeof(s));
    interval_window_init(&w, 1, 0, 60000000, on_second, &s);
    add(&w, 0, 1, 3);
    add(&w, 1, 1, 3);
    interval_window_flush(&w, 3, 0);
    assert_int_equal(s.n, 0);
    interval_window_flush(&w, 3, 1);
    assert_int_equal(s.n, 2);
    assert_true(s.second[0] < s.second[1]);
    interval_window_free(&w);
}

static void test_too_many_open_seconds(void **state)
{
    interval_window w;
    seen s = {0};
    uint64_t total = 0;

    interval_window_init(&w, 1, 0, 60000000, on_second, &s);
    for (uint64_t sec = 0; sec < INTERVAL_WINDOW_SLOTS + 3; sec++)
        add(&w, sec, 1, 2); /* never complete */
    interval_window_flush(&w, 2, 1);
    for (int i = 0; i < s.n; i++)
        total += s.count[i];
    assert_int_equal(total, INTERVAL_WINDOW_SLOTS + 3); /* nothing lost */
    for (int i = 1; i < s.n; i++)
        assert_true(s.second[i - 1] < s.second[i]);
    interval_window_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_for_every_sender),
        cmocka_unit_test(test_later_second_complete_flushes_older),
        cmocka_unit_test(test_force_and_grace),
        cmocka_unit_test(test_too_many_open_seconds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for common/stats: the two latencies of a step (response times,
 * service times kept apart only once a sample was late) recorded, merged
 * exactly over senders that had late samples and senders that had none,
 * and reset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/stats.h"

static void test_on_time_is_one_histogram(void **state)
{
    step_stats s;

    stats_init(&s);
    stats_record(&s, 1500, 1500);
    stats_record(&s, 2500, 2500);
    assert_int_equal(s.svc_on, 0);
    assert_null(s.svc); /* nothing allocated for it */
    assert_ptr_equal(stats_service(&s), s.hist);
    stats_free(&s);
}

static void test_late_sample(void **state)
{
    step_stats s;
    const hist *svc;

    stats_init(&s);
    stats_record(&s, 1000, 1000);    /* on time */
    stats_record(&s, 2000000, 3000); /* waited ~2 s for its start */
    assert_int_equal(s.svc_on, 1);
    svc = stats_service(&s);
    assert_int_equal(hist_count(s.hist), 2);
    assert_int_equal(hist_count(svc), 2); /* the on-time sample was copied */
    assert_int_equal(hist_max(s.hist), 2000000);
    assert_int_equal(hist_max(svc), 3000);
    assert_int_equal(hist_sum(svc), 4000);
    stats_record(&s, 500, 500); /* once apart, every sample goes in both */
    assert_int_equal(hist_count(svc), 3);
    assert_int_equal(hist_min(svc), 500);
    stats_reset(&s);
    assert_int_equal(s.svc_on, 0);
    assert_ptr_equal(stats_service(&s), s.hist);
    stats_record(&s, 9000, 100);
    assert_int_equal(hist_count(stats_service(&s)), 1); /* emptied when turned on again */
    assert_int_equal(hist_max(stats_service(&s)), 100);
    stats_free(&s);
}

/* Merging: a sender with late samples and one without, in either order,
 * give the service times of both, exactly. */
static void test_merge(void **state)
{
    step_stats late, ontime, sum1, sum2, direct;

    stats_init(&late);
    stats_init(&ontime);
    stats_init(&sum1);
    stats_init(&sum2);
    stats_init(&direct);
    stats_record(&late, 2000000, 4000);
    stats_record(&ontime, 7000, 7000);
    stats_record(&ontime, 8000, 8000);
    stats_record(&direct, 2000000, 4000);
    stats_record(&direct, 7000, 7000);
    stats_record(&direct, 8000, 8000);
    late.requests = 9;
    ontime.requests = 4;

    stats_merge(&sum1, &ontime);
    assert_int_equal(sum1.svc_on, 0);
    stats_merge(&sum1, &late);
    stats_merge(&sum2, &late);
    stats_merge(&sum2, &ontime);
    for (int k = 0; k < 2; k++) {
        const step_stats *m = k == 0 ? &sum1 : &sum2;
        assert_int_equal(m->svc_on, 1);
        assert_int_equal(m->requests, 13);
        assert_int_equal(hist_count(m->hist), 3);
        assert_int_equal(hist_count(stats_service(m)), 3);
        assert_int_equal(hist_sum(stats_service(m)), hist_sum(stats_service(&direct)));
        assert_int_equal(hist_max(stats_service(m)), 8000);
        assert_int_equal(hist_percentile(stats_service(m), 50),
                         hist_percentile(stats_service(&direct), 50));
        assert_int_equal(hist_max(m->hist), 2000000);
    }
    stats_reset(&sum1);
    assert_int_equal(sum1.requests, 0);
    stats_free(&late);
    stats_free(&ontime);
    stats_free(&sum1);
    stats_free(&sum2);
    stats_free(&direct);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_time_is_one_histogram),
        cmocka_unit_test(test_late_sample),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

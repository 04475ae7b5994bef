/* Unit tests for common/slowest: the bounded heap keeps the N slowest, and
 * heaps merged across workers and seconds give the exact top N of all
 * samples, ties decided the same everywhere. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/slowest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

static slowest_entry ent(uint64_t us, int64_t start, uint32_t vu)
{
    slowest_entry e;
    memset(&e, 0, sizeof(e));
    e.latency_us = us;
    e.start_us = start;
    e.vu = vu;
    snprintf(e.trace, sizeof(e.trace), "%032x", vu * 1000u + (unsigned)(start % 1000));
    return e;
}

static int by_rank(const void *a, const void *b)
{
    return -slowest_cmp(a, b);
}

static void test_keeps_n_slowest(void **state)
{
    slowest *h = slowest_new(3);
    slowest_entry out[3];
    uint64_t lat[] = {5, 9, 1, 7, 3, 8, 2};

    for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
        slowest_entry e = ent(lat[i], (int64_t)i, 1);
        slowest_offer(h, &e);
    }
    assert_int_equal(slowest_sorted(h, out), 3);
    assert_int_equal(out[0].latency_us, 9);
    assert_int_equal(out[1].latency_us, 8);
    assert_int_equal(out[2].latency_us, 7);
    assert_false(slowest_would_keep(h, 6));
    assert_true(slowest_would_keep(h, 7)); /* a tie: the order decides */
    slowest_free(h);
    slowest_free(NULL);
}

/* Ties: the earlier start ranks first, then the lower VU, then the trace id. */
static void test_ties(void **state)
{
    slowest_entry a = ent(10, 5, 2), b = ent(10, 6, 1), c = ent(10, 5, 3);
    slowest *h = slowest_new(2);
    slowest_entry out[2];

    assert_true(slowest_cmp(&a, &b) > 0); /* earlier */
    assert_true(slowest_cmp(&a, &c) > 0); /* same start, lower VU */
    assert_int_equal(slowest_cmp(&a, &a), 0);
    slowest_offer(h, &b);
    slowest_offer(h, &c);
    slowest_offer(h, &a);
    assert_int_equal(slowest_sorted(h, out), 2);
    assert_int_equal(out[0].vu, 2);
    assert_int_equal(out[1].vu, 3);
    slowest_free(h);
}

/* W workers, S seconds: each worker keeps a run heap of N and sends, each
 * second, the samples that entered it (an interval heap of N); the console
 * merges everything into one heap (SLOWEST_MAX kept, trimmed to N). The
 * result is the exact top N of all samples, many of them tied. */
static void test_merge_exact(void **state)
{
    enum { W = 5, S = 20, PER = 300, N = 10 };
    slowest *run[W], *console = slowest_new(SLOWEST_MAX);
    slowest_entry *all = xcalloc((size_t)W * S * PER, sizeof(*all)), got[SLOWEST_MAX];
    size_t nall = 0;

    srand(7);
    for (int w = 0; w < W; w++)
        run[w] = slowest_new(N);
    for (int s = 0; s < S; s++) {
        for (int w = 0; w < W; w++) {
            slowest *iv = slowest_new(N);
            for (int i = 0; i < PER; i++) {
                /* coarse latencies: ties across workers and seconds */
                slowest_entry e = ent((uint64_t)(rand() % 50), s * 1000 + i % 7, (uint32_t)w + 1);
                all[nall++] = e;
                if (slowest_would_keep(run[w], e.latency_us) && slowest_offer(run[w], &e))
                    slowest_offer(iv, &e);
            }
            slowest_merge(console, iv);
            slowest_free(iv);
        }
    }
    slowest_trim(console, N);
    qsort(all, nall, sizeof(*all), by_rank);
    assert_int_equal(slowest_sorted(console, got), N);
    for (int i = 0; i < N; i++)
        assert_int_equal(slowest_cmp(&got[i], &all[i]), 0);
    /* the trimmed heap still works as a heap of N */
    slowest_entry top = ent(1000, 0, 9);
    assert_int_equal(slowest_offer(console, &top), 1);
    assert_int_equal(slowest_sorted(console, got), N);
    assert_int_equal(got[0].latency_us, 1000);
    assert_int_equal(slowest_cmp(&got[N - 1], &all[N - 2]), 0);
    for (int w = 0; w < W; w++)
        slowest_free(run[w]);
    slowest_free(console);
    xfree(all);
}

/* Merging in any order gives the same top N. */
static void test_merge_order(void **state)
{
    slowest *a = slowest_new(4), *b = slowest_new(4), *ab = slowest_new(4), *ba = slowest_new(4);
    slowest_entry x[4], y[4];

    for (uint32_t i = 0; i < 10; i++) {
        slowest_entry e = ent(i % 3, (int64_t)i, i);
        slowest_offer(i % 2 ? a : b, &e);
    }
    slowest_merge(ab, a);
    slowest_merge(ab, b);
    slowest_merge(ba, b);
    slowest_merge(ba, a);
    slowest_merge(ba, NULL);
    assert_int_equal(slowest_sorted(ab, x), 4);
    assert_int_equal(slowest_sorted(ba, y), 4);
    assert_memory_equal(x, y, sizeof(x));
    slowest_reset(ab);
    assert_int_equal(ab->n, 0);
    slowest_free(a);
    slowest_free(b);
    slowest_free(ab);
    slowest_free(ba);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keeps_n_slowest),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_merge_exact),
        cmocka_unit_test(test_merge_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for common/hist. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/hist.h"
#include "common/mem.h"

#include <string.h>

/* Small deterministic PRNG (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A value spread log-uniformly over 1 .. HIST_MAX_US. */
static uint64_t rng_latency(void)
{
    unsigned bits = (unsigned)(rng() % 32) + 1; /* 1..32 bits */
    uint64_t v = rng() >> (64 - bits);
    if (v == 0)
        v = 1;
    if (v > HIST_MAX_US)
        v = HIST_MAX_US;
    return v;
}

/* |got - want| <= want / 100 */
static void assert_within_1pct(uint64_t got, uint64_t want)
{
    uint64_t diff = got > want ? got - want : want - got;
    if (diff * 100 > want)
        fail_msg("got %llu, want %llu within 1%%", (unsigned long long)got,
                 (unsigned long long)want);
}

/* Asserts a and b have identical content, via their encodings. */
static void assert_hist_equal(const hist *a, const hist *b)
{
    size_t max = hist_encoded_size_max();
    uint8_t *ea = xmalloc(max);
    uint8_t *eb = xmalloc(max);
    size_t na = hist_encode(a, ea, max);
    size_t nb = hist_encode(b, eb, max);
    assert_true(na > 0);
    assert_int_equal(na, nb);
    assert_memory_equal(ea, eb, na);
    xfree(ea);
    xfree(eb);

    assert_int_equal(hist_count(a), hist_count(b));
    assert_int_equal(hist_min(a), hist_min(b));
    assert_int_equal(hist_max(a), hist_max(b));
    assert_int_equal(hist_sum(a), hist_sum(b));
    for (double p = 0; p <= 100.0; p += 0.5)
        assert_int_equal(hist_percentile(a, p), hist_percentile(b, p));
}

/* Encodes h into a fresh buffer; *len gets the size. */
static uint8_t *encode(const hist *h, size_t *len)
{
    size_t max = hist_encoded_size_max();
    uint8_t *buf = xmalloc(max);
    *len = hist_encode(h, buf, max);
    assert_true(*len > 0);
    return buf;
}

static void test_empty(void **state)
{
    hist *h = hist_new();
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 0);
    assert_int_equal(hist_sum(h), 0);
    assert_true(hist_mean(h) == 0.0);
    assert_int_equal(hist_percentile(h, 0), 0);
    assert_int_equal(hist_percentile(h, 50), 0);
    assert_int_equal(hist_percentile(h, 100), 0);
    hist_free(h);
    hist_free(NULL);
}

static void test_uniform(void **state)
{
    hist *h = hist_new();
    for (uint64_t v = 1; v <= 100000; v++)
        hist_record(h, v);

    assert_int_equal(hist_count(h), 100000);
    assert_int_equal(hist_min(h), 1);
    assert_int_equal(hist_max(h), 100000);
    assert_int_equal(hist_sum(h), 5000050000ULL);
    assert_true(hist_mean(h) == 50000.5);

    assert_within_1pct(hist_percentile(h, 50), 50000);
    assert_within_1pct(hist_percentile(h, 90), 90000);
    assert_within_1pct(hist_percentile(h, 99), 99000);
    assert_within_1pct(hist_percentile(h, 99.9), 99900);
    assert_within_1pct(hist_percentile(h, 1), 1000);
    assert_int_equal(hist_percentile(h, 100), 100000);
    assert_int_equal(hist_percentile(h, 0), 1);
    /* out-of-range p is clamped */
    assert_int_equal(hist_percentile(h, 250), 100000);
    assert_int_equal(hist_percentile(h, -3), 1);

    /* percentiles never decrease with p */
    uint64_t prev = 0;
    for (double p = 0; p <= 100.0; p += 0.25) {
        uint64_t v = hist_percentile(h, p);
        assert_true(v >= prev);
        prev = v;
    }
    hist_free(h);
}

static void test_small_values_exact(void **state)
{
    hist *h = hist_new();
    /* values below 256 have a bucket each: nearest rank is exact */
    for (uint64_t v = 1; v <= 200; v++)
        hist_record(h, v);
    assert_int_equal(hist_percentile(h, 50), 100);
    assert_int_equal(hist_percentile(h, 25), 50);
    assert_int_equal(hist_percentile(h, 99), 198);
    assert_int_equal(hist_percentile(h, 99.5), 199);
    assert_int_equal(hist_percentile(h, 0.1), 1); /* rank ceil(0.2) = 1 */
    assert_int_equal(hist_percentile(h, 0.6), 2); /* rank ceil(1.2) = 2 */
    hist_free(h);
}

static void test_relative_error(void **state)
{
    hist *h = hist_new();
    for (int i = 0; i < 20000; i++) {
        uint64_t v = rng_latency();

        /* alone: min == max, so the value is reported exactly */
        hist_reset(h);
        hist_record(h, v);
        assert_int_equal(hist_percentile(h, 50), v);

        /* between the extremes: the bucket's precision is what shows */
        hist_record(h, 0);
        hist_record(h, HIST_MAX_US);
        uint64_t got = hist_percentile(h, 50);
        assert_within_1pct(got, v);
        /* documented bound: half a bucket, <= 1/256 relative */
        uint64_t diff = got > v ? got - v : v - got;
        assert_true(diff * 256 <= v);
    }
    hist_free(h);
}

static void test_zero_value(void **state)
{
    hist *h = hist_new();
    hist_record(h, 0);
    hist_record(h, 0);
    hist_record(h, 7);
    assert_int_equal(hist_count(h), 3);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_percentile(h, 50), 0);
    assert_int_equal(hist_percentile(h, 100), 7);
    hist_free(h);
}

static void test_clamp_above_max(void **state)
{
    hist *h = hist_new();
    hist_record(h, 10);
    hist_record(h, 2 * HIST_MAX_US);
    assert_int_equal(hist_max(h), 2 * HIST_MAX_US);
    assert_int_equal(hist_percentile(h, 100), 2 * HIST_MAX_US);
    assert_int_equal(hist_sum(h), 2 * HIST_MAX_US + 10);

    /* many clamped values: the middle reports the top of the range */
    for (int i = 0; i < 10; i++)
        hist_record(h, 5 * HIST_MAX_US + (uint64_t)i);
    assert_within_1pct(hist_percentile(h, 50), HIST_MAX_US);
    assert_int_equal(hist_max(h), 5 * HIST_MAX_US + 9);

    /* the most extreme value neither crashes nor wraps the sum */
    hist_record(h, UINT64_MAX);
    assert_int_equal(hist_max(h), UINT64_MAX);
    assert_int_equal(hist_sum(h), UINT64_MAX);
    assert_int_equal(hist_percentile(h, 100), UINT64_MAX);
    hist_free(h);
}

static void test_record_n(void **state)
{
    hist *a = hist_new();
    hist *b = hist_new();
    for (int i = 0; i < 1000; i++)
        hist_record(a, 500);
    for (int i = 0; i < 3; i++)
        hist_record(a, 123456);
    hist_record_n(b, 500, 1000);
    hist_record_n(b, 123456, 3);
    assert_int_equal(hist_count(b), 1003);
    assert_int_equal(hist_sum(b), 500 * 1000 + 3 * 123456);
    assert_hist_equal(a, b);

    /* n == 0 records nothing */
    hist_reset(b);
    hist_record_n(b, 77, 0);
    assert_int_equal(hist_count(b), 0);
    assert_int_equal(hist_min(b), 0);
    assert_int_equal(hist_max(b), 0);
    hist_free(a);
    hist_free(b);
}

static void test_reset(void **state)
{
    hist *h = hist_new();
    hist *empty = hist_new();
    for (int i = 0; i < 100; i++)
        hist_record(h, rng_latency());
    hist_reset(h);
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_min(h), 0);
    assert_hist_equal(h, empty);
    hist_record(h, 42);
    assert_int_equal(hist_min(h), 42);
    assert_int_equal(hist_max(h), 42);
    hist_free(h);
    hist_free(empty);
}

static void test_merge(void **state)
{
    hist *a = hist_new();
    hist *b = hist_new();
    hist *all = hist_new();
    for (int i = 0; i < 50000; i++) {
        uint64_t v = rng_latency();
        hist_record(i % 3 ? a : b, v);
        hist_record(all, v);
    }
    hist_merge(a, b);
    assert_int_equal(hist_count(a), 50000);
    assert_hist_equal(a, all);
    assert_true(hist_mean(a) == hist_mean(all));

    /* merging an empty histogram, or into one, changes nothing else */
    hist *empty = hist_new();
    hist_merge(a, empty);
    assert_hist_equal(a, all);
    hist_merge(empty, all);
    assert_hist_equal(empty, all);

    hist_free(a);
    hist_free(b);
    hist_free(all);
    hist_free(empty);
}

static void test_encode_round_trip(void **state)
{
    hist *h = hist_new();
    hist *d = hist_new();
    size_t len;
    uint8_t *buf;

    /* empty */
    buf = encode(h, &len);
    hist_record(d, 5);
    assert_int_equal(hist_decode(d, buf, len), 0);
    assert_int_equal(hist_count(d), 0);
    assert_hist_equal(h, d);
    xfree(buf);

    /* random data, including 0 and clamped values */
    for (int i = 0; i < 20000; i++)
        hist_record(h, rng_latency());
    hist_record(h, 0);
    hist_record(h, 3 * HIST_MAX_US);
    buf = encode(h, &len);
    assert_true(len <= hist_encoded_size_max());
    assert_int_equal(buf[0], HIST_ENCODING_VERSION);
    assert_int_equal(hist_decode(d, buf, len), 0);
    assert_hist_equal(h, d);
    assert_true(hist_mean(h) == hist_mean(d));

    /* a buffer one byte short is refused */
    assert_int_equal(hist_encode(h, buf, len - 1), 0);
    assert_int_equal(hist_encode(h, buf, 0), 0);
    xfree(buf);
    hist_free(h);
    hist_free(d);
}

static void test_encode_size_max(void **state)
{
    hist *h = hist_new();
    /* a step no wider than any bucket touches every bucket */
    for (uint64_t v = 0; v <= 2 * HIST_MAX_US; v += (v >> 8) ? (v >> 8) : 1)
        hist_record_n(h, v, (uint64_t)1 << 50);
    hist_record(h, UINT64_MAX);

    size_t max = hist_encoded_size_max();
    uint8_t *buf = xmalloc(max);
    size_t len = hist_encode(h, buf, max);
    assert_true(len > 0);
    assert_true(len <= max);
    hist *d = hist_new();
    assert_int_equal(hist_decode(d, buf, len), 0);
    assert_hist_equal(h, d);
    hist_free(d);
    xfree(buf);
    hist_free(h);
}

/* Appends an unsigned LEB128 varint. */
static size_t put(uint8_t *buf, size_t pos, uint64_t v)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        buf[pos++] = v ? (b | 0x80) : b;
    } while (v);
    return pos;
}

/* Builds an encoding by hand: one (delta, n) bucket pair, sum = max. */
static size_t craft(uint8_t *buf, uint8_t version, uint64_t count, uint64_t min, uint64_t max,
                    uint64_t nb, uint64_t delta, uint64_t n)
{
    size_t pos = 0;
    buf[pos++] = version;
    pos = put(buf, pos, count);
    pos = put(buf, pos, min); /* min */
    pos = put(buf, pos, max); /* max */
    pos = put(buf, pos, max); /* sum */
    pos = put(buf, pos, nb);
    pos = put(buf, pos, delta);
    pos = put(buf, pos, n);
    return pos;
}

static void test_decode_rejects(void **state)
{
    hist *h = hist_new();
    hist *d = hist_new();
    uint8_t buf[64];
    size_t len;

    /* a valid encoding is accepted */
    hist_record(h, 300);
    uint8_t *good = encode(h, &len);
    assert_true(len < sizeof(buf) - 1);
    memcpy(buf, good, len);
    assert_int_equal(hist_decode(d, buf, len), 0);
    assert_hist_equal(h, d);

    /* every truncation is refused, and leaves d empty */
    for (size_t cut = 0; cut < len; cut++) {
        hist_record(d, 9);
        assert_int_equal(hist_decode(d, buf, cut), -1);
        assert_int_equal(hist_count(d), 0);
        assert_int_equal(hist_min(d), 0);
    }
    /* a trailing byte */
    buf[len] = 0;
    assert_int_equal(hist_decode(d, buf, len + 1), -1);
    /* wrong version */
    buf[0] = HIST_ENCODING_VERSION + 1;
    assert_int_equal(hist_decode(d, buf, len), -1);
    buf[0] = HIST_ENCODING_VERSION;
    assert_int_equal(hist_decode(d, buf, len), 0);
    xfree(good);

    /* bucket index out of range (and way out of range) */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 300, 300, 1, 100000, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);
    len = craft(buf, HIST_ENCODING_VERSION, 1, 300, 300, 1, UINT64_MAX, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);
    /* bucket not matching min/max */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 300, 300, 1, 5, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);
    /* a zero bucket count */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 5, 5, 1, 5, 0);
    assert_int_equal(hist_decode(d, buf, len), -1);
    /* too many buckets announced */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 5, 5, 1000000, 5, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);
    /* two pairs announced, one present */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 5, 5, 2, 5, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);
    /* min > max */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 6, 5, 1, 5, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);
    /* and the same shape with consistent fields passes */
    len = craft(buf, HIST_ENCODING_VERSION, 1, 5, 5, 1, 5, 1);
    assert_int_equal(hist_decode(d, buf, len), 0);
    assert_int_equal(hist_count(d), 1);
    assert_int_equal(hist_percentile(d, 50), 5);

    /* bucket counts not adding up to count */
    len = 0;
    buf[len++] = HIST_ENCODING_VERSION;
    len = put(buf, len, 3); /* count */
    len = put(buf, len, 5);
    len = put(buf, len, 5);
    len = put(buf, len, 15);
    len = put(buf, len, 1);
    len = put(buf, len, 5);
    len = put(buf, len, 2); /* only 2 */
    assert_int_equal(hist_decode(d, buf, len), -1);

    /* the same bucket twice (index delta 0 after the first pair) */
    len = 0;
    buf[len++] = HIST_ENCODING_VERSION;
    len = put(buf, len, 2);
    len = put(buf, len, 5);
    len = put(buf, len, 5);
    len = put(buf, len, 10);
    len = put(buf, len, 2);
    len = put(buf, len, 5);
    len = put(buf, len, 1);
    len = put(buf, len, 0);
    len = put(buf, len, 1);
    assert_int_equal(hist_decode(d, buf, len), -1);

    /* an over-long varint: 11 bytes, or a 10th byte carrying bits past 64 */
    len = 0;
    buf[len++] = HIST_ENCODING_VERSION;
    for (int i = 0; i < 10; i++)
        buf[len++] = 0x80;
    buf[len++] = 0;
    assert_int_equal(hist_decode(d, buf, len), -1);
    len = 0;
    buf[len++] = HIST_ENCODING_VERSION;
    for (int i = 0; i < 9; i++)
        buf[len++] = 0xff;
    buf[len++] = 0x02;
    assert_int_equal(hist_decode(d, buf, len), -1);

    /* an empty encoding with stray fields */
    len = 0;
    buf[len++] = HIST_ENCODING_VERSION;
    len = put(buf, len, 0);
    len = put(buf, len, 0);
    len = put(buf, len, 0);
    len = put(buf, len, 0);
    len = put(buf, len, 1); /* a bucket in an empty histogram */
    assert_int_equal(hist_decode(d, buf, len), -1);

    assert_int_equal(hist_decode(d, NULL, 0), -1);
    assert_int_equal(hist_count(d), 0);
    hist_free(h);
    hist_free(d);
}

/* Checks that a decoded histogram is self-consistent. */
static void assert_sane(const hist *h)
{
    if (hist_count(h) == 0) {
        assert_int_equal(hist_min(h), 0);
        assert_int_equal(hist_max(h), 0);
        assert_int_equal(hist_percentile(h, 50), 0);
        return;
    }
    assert_true(hist_min(h) <= hist_max(h));
    uint64_t p50 = hist_percentile(h, 50);
    assert_true(p50 >= hist_min(h) && p50 <= hist_max(h));
    assert_int_equal(hist_percentile(h, 100), hist_max(h));
}

static void test_decode_garbage(void **state)
{
    hist *d = hist_new();
    hist *dst = hist_new();
    uint8_t buf[96];
    int accepted = 0;

    /* pure random bytes, with and without the right version byte */
    for (int i = 0; i < 5000; i++) {
        size_t len = (size_t)(rng() % sizeof(buf));
        for (size_t k = 0; k < len; k++)
            buf[k] = (uint8_t)rng();
        if (len && (i & 1))
            buf[0] = HIST_ENCODING_VERSION;
        if (hist_decode(d, buf, len) == 0)
            accepted++;
        assert_sane(d);
        uint64_t before = hist_count(dst);
        if (hist_merge_encoded(dst, buf, len) != 0)
            assert_int_equal(hist_count(dst), before);
        assert_sane(dst);
    }

    /* mutations of a valid encoding: one random byte changed */
    hist *h = hist_new();
    for (int i = 0; i < 20; i++)
        hist_record(h, rng_latency());
    size_t len;
    uint8_t *good = encode(h, &len);
    uint8_t *bad = xmalloc(len);
    for (int i = 0; i < 5000; i++) {
        memcpy(bad, good, len);
        bad[rng() % len] = (uint8_t)rng();
        if (hist_decode(d, bad, len) == 0)
            accepted++;
        assert_sane(d);
    }
    /* only a few mutations can land on something consistent */
    assert_true(accepted < 5000);
    xfree(bad);
    xfree(good);
    hist_free(h);
    hist_free(d);
    hist_free(dst);
}

/* A histogram reset and filled again equals a new one filled the same way
 * (a reset clears only the buckets between min and max), and merging only
 * that range adds everything. */
static void test_reset_reuse(void **state)
{
    hist *h = hist_new(), *fresh = hist_new(), *sum = hist_new(), *want = hist_new();

    (void)state;
    for (int round = 0; round < 50; round++) {
        hist_reset(h);
        hist_free(fresh);
        fresh = hist_new();
        for (int i = 0; i < 200; i++) {
            uint64_t v = rng() % 3 == 0 ? rng_latency() : rng() % (HIST_MAX_US + 1000);
            hist_record(h, v);
            hist_record(fresh, v);
            hist_record(want, v);
        }
        assert_hist_equal(h, fresh);
        hist_merge(sum, h);
    }
    assert_hist_equal(sum, want);
    hist_free(h);
    hist_free(fresh);
    hist_free(sum);
    hist_free(want);
}

static void test_merge_encoded(void **state)
{
    hist *a = hist_new();
    hist *b = hist_new();
    hist *expect = hist_new();
    for (int i = 0; i < 5000; i++) {
        hist_record(a, rng_latency());
        hist_record(b, rng_latency());
    }
    hist_merge(expect, a);
    hist_merge(expect, b);

    size_t len;
    uint8_t *eb = encode(b, &len);
    assert_int_equal(hist_merge_encoded(a, eb, len), 0);
    assert_hist_equal(a, expect);

    /* malformed: refused, and a is unchanged (a truncated buffer may have
     * had valid buckets before the cut) */
    assert_int_equal(hist_merge_encoded(a, eb, len - 1), -1);
    assert_hist_equal(a, expect);
    /* one byte changed anywhere: a refused merge leaves no bucket behind,
     * whichever bucket the damage is found at (the merge is one pass) */
    uint8_t *mut = xmalloc(len);
    for (int i = 0; i < 3000; i++) {
        hist *t = hist_new();
        hist_merge(t, expect);
        memcpy(mut, eb, len);
        mut[rng() % len] = (uint8_t)rng();
        if (hist_merge_encoded(t, mut, len) != 0)
            assert_hist_equal(t, expect);
        hist_free(t);
    }
    xfree(mut);
    eb[0] = 0;
    assert_int_equal(hist_merge_encoded(a, eb, len), -1);
    assert_hist_equal(a, expect);
    xfree(eb);

    /* merging an encoded empty histogram changes nothing */
    hist *empty = hist_new();
    uint8_t *ee = encode(empty, &len);
    assert_int_equal(hist_merge_encoded(a, ee, len), 0);
    assert_hist_equal(a, expect);
    /* and merging into an empty one copies */
    uint8_t *ea = encode(a, &len);
    assert_int_equal(hist_merge_encoded(empty, ea, len), 0);
    assert_hist_equal(empty, expect);
    xfree(ee);
    xfree(ea);

    /* a count that would overflow is refused */
    hist *big = hist_new();
    hist_record_n(big, 5, UINT64_MAX - 1);
    hist *two = hist_new();
    hist_record_n(two, 5, 2);
    uint8_t *e2 = encode(two, &len);
    assert_int_equal(hist_merge_encoded(big, e2, len), -1);
    assert_int_equal(hist_count(big), UINT64_MAX - 1);
    xfree(e2);

    hist_free(a);
    hist_free(b);
    hist_free(expect);
    hist_free(empty);
    hist_free(big);
    hist_free(two);
}

/* hist_cumulative: the samples reported at or below each bound, in one pass;
 * consistent with hist_percentile. */
static void test_cumulative(void **state)
{
    hist *h = hist_new();
    const uint64_t bounds[] = {0, 99, 100, 101, 1000, 5000, 99999, 100000, 200000};
    uint64_t out[9];

    hist_cumulative(h, bounds, 9, out);
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(out[i], 0);
    hist_record_n(h, 100, 3);    /* exact below 256 */
    hist_record_n(h, 5000, 2);   /* reported near 5000 */
    hist_record_n(h, 100000, 1); /* the max */
    hist_cumulative(h, bounds, 9, out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], 3);
    assert_int_equal(out[3], 3);
    assert_int_equal(out[4], 3);
    assert_int_equal(out[5], hist_percentile(h, 60) <= 5000 ? 5 : 3);
    assert_int_equal(out[6], 5);
    assert_int_equal(out[7], 6); /* >= max: every sample */
    assert_int_equal(out[8], 6);
    hist_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_small_values_exact),
        cmocka_unit_test(test_relative_error),
        cmocka_unit_test(test_zero_value),
        cmocka_unit_test(test_clamp_above_max),
        cmocka_unit_test(test_record_n),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_encode_round_trip),
        cmocka_unit_test(test_encode_size_max),
        cmocka_unit_test(test_decode_rejects),
        cmocka_unit_test(test_decode_garbage),
        cmocka_unit_test(test_reset_reuse),
        cmocka_unit_test(test_merge_encoded),
        cmocka_unit_test(test_cumulative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

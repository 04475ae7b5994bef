/* hist — log-linear latency histogram; see hist.h for the layout. */
#include "common/hist.h"

#include "common/mem.h"

#include <string.h>

/* 2^SUB_BITS sub-buckets per octave. */
#define SUB_BITS 7

/* HIST_MAX_US lies in the octave [2^31, 2^32), whose bucket width is
 * 2^(31 - SUB_BITS): TOP_SHIFT. */
#define TOP_SHIFT (31 - SUB_BITS)
_Static_assert((HIST_MAX_US >> 31) == 1, "HIST_MAX_US must lie in [2^31, 2^32)");

/* Index of HIST_MAX_US's bucket, plus one (see bucket_of). */
#define NBUCKETS (((size_t)TOP_SHIFT << SUB_BITS) + (size_t)(HIST_MAX_US >> TOP_SHIFT) + 1)

/* A varint holds at most 64 bits in 7-bit groups; a bucket index fits in 2. */
#define VARINT_MAX 10
#define VARINT_INDEX_MAX 2
_Static_assert(NBUCKETS < (1u << (7 * VARINT_INDEX_MAX)), "bucket index needs more varint bytes");

struct hist {
    uint64_t count;
    uint64_t min; /* UINT64_MAX while empty */
    uint64_t max;
    uint64_t sum; /* saturates at UINT64_MAX */
    uint64_t buckets[NBUCKETS];
};

/* Header fields of an encoded histogram. */
struct enc_head {
    uint64_t count;
    uint64_t min;
    uint64_t max;
    uint64_t sum;
    uint64_t nbuckets;
};

/* A bounded read position in an encoded buffer. */
struct reader {
    const uint8_t *buf; /* borrowed: len bytes */
    size_t len;
    size_t pos;
};

/* Bucket of value v. Values below 2^(SUB_BITS+1) are their own index; above,
 * the octave's shift s keeps the top SUB_BITS+1 bits, so the index is
 * (s << SUB_BITS) + (v >> s), with (v >> s) in [2^SUB_BITS, 2^(SUB_BITS+1)).
 * Consecutive octaves therefore occupy consecutive index ranges. */
static inline size_t bucket_of(uint64_t v)
{
    if (v > HIST_MAX_US)
        v = HIST_MAX_US;
    /* 63 - clz is the highest set bit; OR-ing 255 makes it at least 7. */
    unsigned shift = (unsigned)(63 - SUB_BITS - __builtin_clzll(v | 255u));
    return ((size_t)shift << SUB_BITS) + (size_t)(v >> shift);
}

/* Lowest value of bucket i, and its width in *width. */
static uint64_t bucket_low(size_t i, uint64_t *width)
{
    if (i < (2u << SUB_BITS)) {
        *width = 1;
        return i;
    }
    unsigned shift = (unsigned)(i >> SUB_BITS) - 1;
    uint64_t sub = i - ((size_t)shift << SUB_BITS);
    *width = (uint64_t)1 << shift;
    return sub << shift;
}

/* The value a percentile in bucket i reports: its midpoint. */
static uint64_t bucket_mid(size_t i)
{
    uint64_t width;
    uint64_t low = bucket_low(i, &width);
    return low + width / 2;
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return UINT64_MAX;
    return r;
}

/* The buckets that may be nonzero: from min's to max's (none while count
 * is 0). Every change keeps min and max covering what it adds, so a merge
 * and a reset visit only those, not the whole range of an hour. */
static void used_range(const hist *h, size_t *lo, size_t *hi)
{
    *lo = bucket_of(h->min);
    *hi = bucket_of(h->max);
}

hist *hist_new(void)
{
    hist *h = xmalloc(sizeof(*h));
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
    return h;
}

void hist_free(hist *h)
{
    xfree(h);
}

void hist_reset(hist *h)
{
    size_t lo, hi;

    if (h->count > 0) {
        used_range(h, &lo, &hi);
        memset(&h->buckets[lo], 0, (hi - lo + 1) * sizeof(h->buckets[0]));
    }
    h->count = 0;
    h->sum = 0;
    h->max = 0;
    h->min = UINT64_MAX;
}

void hist_record(hist *h, uint64_t us)
{
    h->buckets[bucket_of(us)]++;
    h->count++;
    h->sum = sat_add(h->sum, us);
    if (us < h->min)
        h->min = us;
    if (us > h->max)
        h->max = us;
}

void hist_record_n(hist *h, uint64_t us, uint64_t n)
{
    if (n == 0)
        return;
    uint64_t total;
    if (__builtin_mul_overflow(us, n, &total))
        total = UINT64_MAX;
    h->buckets[bucket_of(us)] += n;
    h->count += n;
    h->sum = sat_add(h->sum, total);
    if (us < h->min)
        h->min = us;
    if (us > h->max)
        h->max = us;
}

void hist_merge(hist *dst, const hist *src)
{
    size_t lo, hi;

    if (src->count == 0)
        return;
    used_range(src, &lo, &hi);
    for (size_t i = lo; i <= hi; i++)
        dst->buckets[i] += src->buckets[i];
    dst->count += src->count;
    dst->sum = sat_add(dst->sum, src->sum);
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t hist_count(const hist *h)
{
    return h->count;
}

uint64_t hist_min(const hist *h)
{
    return h->count ? h->min : 0;
}

uint64_t hist_max(const hist *h)
{
    return h->max;
}

uint64_t hist_sum(const hist *h)
{
    return h->sum;
}

double hist_mean(const hist *h)
{
    if (h->count == 0)
        return 0.0;
    return (double)h->sum / (double)h->count;
}

uint64_t hist_percentile(const hist *h, double p)
{
    if (h->count == 0)
        return 0;
    if (!(p > 0.0)) /* also NaN */
        return h->min;
    if (p >= 100.0)
        return h->max;

    /* Nearest rank: ceil(p / 100 * count), at least 1. */
    double x = p * (double)h->count / 100.0;
    uint64_t rank;
    if (x >= (double)h->count) {
        rank = h->count;
    } else {
        rank = (uint64_t)x;
        if ((double)rank < x)
            rank++;
    }
    /* The extreme ranks are known exactly. */
    if (rank <= 1)
        return h->min;
    if (rank >= h->count)
        return h->max;

    uint64_t seen = 0;
    size_t lo, hi;
    used_range(h, &lo, &hi);
    for (size_t i = lo; i <= hi; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            uint64_t v = bucket_mid(i);
            if (v < h->min)
                v = h->min;
            if (v > h->max)
                v = h->max;
            return v;
        }
    }
    return h->max; /* not reached: the buckets add up to count */
}

void hist_cumulative(const hist *h, const uint64_t *bounds, size_t n, uint64_t *out)
{
    uint64_t seen = 0;
    size_t i = 0;

    for (size_t j = 0; j < n; j++) {
        if (h->count == 0 || bounds[j] < h->min) {
            out[j] = 0;
            continue;
        }
        if (bounds[j] >= h->max) {
            out[j] = h->count;
            continue;
        }
        /* bucket_mid grows with i: the buckets reported <= bounds[j] come first */
        while (i < NBUCKETS && bucket_mid(i) <= bounds[j])
            seen += h->buckets[i++];
        out[j] = seen;
    }
}

/* ---- encoding ---- */

size_t hist_encoded_size_max(void)
{
    /* version, 5 header varints, then one (index delta, count) per bucket */
    return 1 + 5 * VARINT_MAX + NBUCKETS * (VARINT_INDEX_MAX + VARINT_MAX);
}

/* Appends v at *pos; returns -1 if it does not fit in cap. */
static int put_varint(uint8_t *buf, size_t cap, size_t *pos, uint64_t v)
{
    do {
        if (*pos >= cap)
            return -1;
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v)
            b |= 0x80;
        buf[(*pos)++] = b;
    } while (v);
    return 0;
}

size_t hist_encode(const hist *h, uint8_t *buf, size_t cap)
{
    uint64_t nbuckets = 0;
    size_t lo = 0, hi = 0;

    if (h->count > 0)
        used_range(h, &lo, &hi);
    for (size_t i = lo; h->count > 0 && i <= hi; i++)
        if (h->buckets[i])
            nbuckets++;

    size_t pos = 0;
    if (cap < 1)
        return 0;
    buf[pos++] = HIST_ENCODING_VERSION;
    if (put_varint(buf, cap, &pos, h->count) || put_varint(buf, cap, &pos, hist_min(h)) ||
        put_varint(buf, cap, &pos, h->max) || put_varint(buf, cap, &pos, h->sum) ||
        put_varint(buf, cap, &pos, nbuckets))
        return 0;

    size_t prev = 0;
    for (size_t i = lo; h->count > 0 && i <= hi; i++) {
        if (h->buckets[i] == 0)
            continue;
        if (put_varint(buf, cap, &pos, i - prev) || put_varint(buf, cap, &pos, h->buckets[i]))
            return 0;
        prev = i;
    }
    return pos;
}

/* Reads a varint at p, before end: at most VARINT_MAX bytes, no bits
 * beyond 64. Returns the position after it, NULL if it is not one. Taking
 * and giving back the position (not its address) keeps it in a register in
 * add_buckets' loop. */
static const uint8_t *varint_at(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return NULL;
        uint8_t b = *p++;
        if (shift == 63 && b > 1) /* bits beyond 64, or an 11th byte */
            return NULL;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

/* Reads and checks the header of an encoding, leaving r at its first
 * bucket. Checks: version, an empty histogram all zeros with no trailing
 * bytes, a bucket count in range, min <= max <= sum. */
static int read_head(struct reader *r, struct enc_head *hd)
{
    const uint8_t *p, *end;

    if (r->len < 1 || r->buf[0] != HIST_ENCODING_VERSION)
        return -1;
    end = r->buf + r->len;
    if ((p = varint_at(r->buf + 1, end, &hd->count)) == NULL ||
        (p = varint_at(p, end, &hd->min)) == NULL || (p = varint_at(p, end, &hd->max)) == NULL ||
        (p = varint_at(p, end, &hd->sum)) == NULL || (p = varint_at(p, end, &hd->nbuckets)) == NULL)
        return -1;
    r->pos = (size_t)(p - r->buf);
    if (hd->count == 0)
        return hd->min || hd->max || hd->sum || hd->nbuckets || r->pos != r->len ? -1 : 0;
    if (hd->nbuckets == 0 || hd->nbuckets > NBUCKETS || hd->min > hd->max || hd->sum < hd->max)
        return -1;
    return 0;
}

/* Takes back the first n buckets from p on out of buckets[], read without
 * checks: add_buckets has read them already. */
static void undo_buckets(const uint8_t *p, const uint8_t *end, uint64_t n, uint64_t *buckets)
{
    uint64_t index = 0, delta = 0, c = 0;

    for (uint64_t k = 0; k < n; k++) {
        p = varint_at(p, end, &delta);
        p = varint_at(p, end, &c);
        index += delta;
        buckets[index] -= c;
    }
}

/* Reads and checks the buckets after read_head, adding each count into
 * buckets[] as it goes, in one pass; on a bad encoding what was added is
 * taken back, so nothing is half-applied. Checks: no trailing bytes,
 * indexes strictly increasing and in range, no zero counts, bucket counts
 * adding up to count without overflow, min and max falling in the first and
 * last buckets. The console runs this for every step of every agent each
 * second: the first bucket (whose delta may be 0 and must be min's) is read
 * before the loop, and a bucket of a one-byte delta and a one-byte count
 * (most buckets of a second) without a call. */
static int add_buckets(const struct reader *r, const struct enc_head *hd, uint64_t *buckets)
{
    const uint8_t *p = r->buf + r->pos, *end = r->buf + r->len, *start = p;
    uint64_t index, total, k = 0, delta, n;

    if ((p = varint_at(p, end, &index)) == NULL || (p = varint_at(p, end, &total)) == NULL ||
        total == 0 || index != bucket_of(hd->min))
        goto bad;
    buckets[index] += total;
    for (k = 1; k < hd->nbuckets; k++) {
        if (end - p >= 2 && (p[0] | p[1]) < 0x80) {
            delta = p[0];
            n = p[1];
            p += 2;
        } else if ((p = varint_at(p, end, &delta)) == NULL || (p = varint_at(p, end, &n)) == NULL) {
            goto bad;
        }
        /* index < NBUCKETS: delta in [1, NBUCKETS - index), in one compare */
        if (delta - 1 >= NBUCKETS - 1 - index || n == 0 || __builtin_add_overflow(total, n, &total))
            goto bad;
        index += delta;
        buckets[index] += n;
    }
    if (index == bucket_of(hd->max) && total == hd->count && p == end)
        return 0;
bad:
    undo_buckets(start, end, k, buckets);
    return -1;
}

int hist_decode(hist *h, const uint8_t *buf, size_t len)
{
    struct reader r = {buf, len, 0};
    struct enc_head hd;

    hist_reset(h);
    if (read_head(&r, &hd) != 0)
        return -1;
    if (hd.count == 0)
        return 0;
    if (add_buckets(&r, &hd, h->buckets) != 0)
        return -1;
    h->count = hd.count;
    h->min = hd.min;
    h->max = hd.max;
    h->sum = hd.sum;
    return 0;
}

int hist_merge_encoded(hist *dst, const uint8_t *buf, size_t len)
{
    struct reader r = {buf, len, 0};
    struct enc_head hd;
    uint64_t total;

    if (read_head(&r, &hd) != 0)
        return -1;
    if (hd.count == 0)
        return 0;
    if (__builtin_add_overflow(dst->count, hd.count, &total))
        return -1;
    if (add_buckets(&r, &hd, dst->buckets) != 0)
        return -1;
    dst->count = total;
    dst->sum = sat_add(dst->sum, hd.sum);
    if (hd.min < dst->min)
        dst->min = hd.min;
    if (hd.max > dst->max)
        dst->max = hd.max;
    return 0;
}

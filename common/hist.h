/* hist — latency histogram (HDR-style, log-linear buckets).
 *
 * What it is for: every worker records each request's latency here; the
 * agent and console merge the histograms and report percentiles. Recording
 * is a bucket index computation (count-leading-zeros and shifts) plus an
 * increment: no loop, no floating point, no allocation.
 *
 * Layout: values are microseconds. Values 0..255 each have their own bucket
 * (exact). Above that, every power-of-two octave [2^k, 2^(k+1)) is split into
 * 128 equal sub-buckets, so a bucket is never wider than 1/128 of its lower
 * bound. The range ends at HIST_MAX_US (one hour); larger values are counted
 * in the top bucket (min, max and sum still use the exact value).
 *
 * Precision: a percentile is reported as the midpoint of the bucket holding
 * the nearest-rank sample, clamped into [min, max] observed. The error is at
 * most half a bucket, i.e. <= 1/256 (0.4 %) relative, for values up to
 * HIST_MAX_US. The lowest rank (p0) is exactly min and the highest (p100) is
 * exactly max.
 *
 * Usage:
 *     hist *h = hist_new();
 *     hist_record(h, latency_us);
 *     ...
 *     uint64_t p99 = hist_percentile(h, 99.0);
 *     hist_free(h);
 *
 * To move a histogram across the network or into the database, encode it
 * into a buffer of hist_encoded_size_max() bytes; decoding checks every
 * field, so buffers from the network can be passed in as they are.
 *
 * A hist is not thread-safe: use one per thread and merge. */
#ifndef QUERN_HIST_H
#define QUERN_HIST_H

#include <stddef.h>
#include <stdint.h>

/** Largest value recorded with full precision: one hour in microseconds. */
#define HIST_MAX_US 3600000000ULL

/** Version byte written first by hist_encode. */
#define HIST_ENCODING_VERSION 1

/** An opaque histogram; created by hist_new, released by hist_free. */
typedef struct hist hist;

/** Returns a new, empty histogram (about 26 KB, allocated once). */
hist *hist_new(void);

/** Frees h; NULL is fine. */
void hist_free(hist *h);

/** Empties h (count, min, max, sum and every bucket back to zero). */
void hist_reset(hist *h);

/** Records one value in microseconds. Values above HIST_MAX_US go into the
 * top bucket; min, max and sum still see the exact value. */
void hist_record(hist *h, uint64_t us);

/** Records the value us n times (n == 0 does nothing). */
void hist_record_n(hist *h, uint64_t us, uint64_t n);

/** Adds every sample of src into dst (dst += src). */
void hist_merge(hist *dst, const hist *src);

/** Returns the number of recorded samples. */
uint64_t hist_count(const hist *h);

/** Returns the smallest recorded value, or 0 when h is empty. */
uint64_t hist_min(const hist *h);

/** Returns the largest recorded value, or 0 when h is empty. */
uint64_t hist_max(const hist *h);

/** Returns the exact sum of recorded values (saturates at UINT64_MAX). */
uint64_t hist_sum(const hist *h);

/** Returns the exact mean (sum / count), or 0 when h is empty. */
double hist_mean(const hist *h);

/** Returns the p-th percentile, p in [0, 100] (values outside are clamped,
 * NaN counts as 0), or 0 when h is empty. Nearest-rank definition: the
 * smallest recorded value v such that at least p % of the samples are <= v,
 * reported as its bucket's midpoint clamped into [min, max]. */
uint64_t hist_percentile(const hist *h, double p);

/** For each of the n bounds (microseconds, ascending), the samples whose
 * reported value is <= the bound: out[j] counts the samples of the buckets
 * whose midpoint is <= bounds[j], every sample when bounds[j] >= max, none
 * when bounds[j] < min. So out[] never decreases, and a percentile that
 * hist_percentile reports as v lies at or below the first bound >= v. One
 * pass over the buckets, for a Prometheus histogram's cumulative buckets. */
void hist_cumulative(const hist *h, const uint64_t *bounds, size_t n, uint64_t *out);

/** Returns a buffer size that is enough for hist_encode of any histogram. */
size_t hist_encoded_size_max(void);

/** Serialises h into buf: the version byte, then count, min, max, sum and
 * the number of non-zero buckets, then each non-zero bucket as an (index
 * delta, count) pair, all as unsigned LEB128 varints. The first delta is
 * the bucket index itself. Returns the bytes written, or 0 if cap is too
 * small (buf's content is then unspecified). */
size_t hist_encode(const hist *h, uint8_t *buf, size_t cap);

/** Replaces h's content with the histogram encoded in buf[0..len). The
 * whole buffer must be one encoding. Returns 0, or -1 if the buffer is
 * malformed or inconsistent (h is then left empty). Never reads past len. */
int hist_decode(hist *h, const uint8_t *buf, size_t len);

/** Adds the histogram encoded in buf[0..len) into dst. Returns 0, or -1 if
 * the buffer is malformed or the counts would overflow (dst is then
 * unchanged). Never reads past len. */
int hist_merge_encoded(hist *dst, const uint8_t *buf, size_t len);

#endif

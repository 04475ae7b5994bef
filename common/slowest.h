/* slowest — the N slowest samples of a step, kept in a bounded min-heap.
 *
 * What it is for: a tester looking for a bad request wants the slowest ones
 * by name: their latency, when they started, which VU sent them and the
 * trace id the server logged (worker/wire/traceid.h). A worker offers each
 * sample of a step (slowest_would_keep first: one comparison for the
 * samples that are not among the slowest); the heap's root is the fastest
 * kept, so a new sample replaces it when it ranks above. Heaps merge by
 * offering one's entries to the other, so the top N of a run is exact
 * whatever the split over workers and seconds: every sample of the run's
 * top N is in the top N of its worker's samples at any time after it.
 *
 * Order (a total one, so that ties merge the same everywhere): the longer
 * latency first, then the earlier start, the lower VU, the smaller trace id.
 *
 * Usage:
 *     slowest *h = slowest_new(10);
 *     if (slowest_would_keep(h, us)) slowest_offer(h, &entry);
 *     slowest_merge(total, h);
 *     size_t n = slowest_sorted(h, out);  // out: h->n entries, slowest first
 *     slowest_free(h);
 *
 * Memory: entries are allocated as they come, up to cap (SLOWEST_MAX). */
#ifndef QUERN_SLOWEST_H
#define QUERN_SLOWEST_H

#include <stddef.h>
#include <stdint.h>

#define SLOWEST_MAX 1000     /* the most samples a heap keeps (--slowest's bound) */
#define SLOWEST_DEFAULT 10   /* --slowest's default */
#define SLOWEST_TRACE_LEN 33 /* a trace id: 32 lowercase hex digits and a NUL */

/** One sample. */
typedef struct slowest_entry {
    uint64_t latency_us;           /**< its response time */
    int64_t start_us;              /**< when it started (its intended start, from which its
                                        latency counts: common/stats.h), wall clock, epoch
                                        microseconds */
    uint32_t vu;                   /**< the VU's global index, 1-based */
    char trace[SLOWEST_TRACE_LEN]; /**< its request's trace id, "" when none was sent */
} slowest_entry;

/** A bounded min-heap of samples. */
typedef struct slowest {
    size_t cap;       /**< the most kept */
    size_t n;         /**< kept */
    size_t alloc;     /**< entries allocated */
    slowest_entry *e; /**< owned: the heap, e[0] the fastest kept */
} slowest;

/** A heap keeping at most cap (1..SLOWEST_MAX) samples; owned by the caller. */
slowest *slowest_new(size_t cap);
/** Frees h; NULL is fine. */
void slowest_free(slowest *h);
/** Empties h, keeping its allocation. */
void slowest_reset(slowest *h);
/** >0 when a ranks above (is slower than) b, <0 below, 0 the same. */
int slowest_cmp(const slowest_entry *a, const slowest_entry *b);
/** 1 when a sample of latency_us may enter h (h not full, or above its
 *  fastest; a tie is decided by slowest_offer). */
int slowest_would_keep(const slowest *h, uint64_t latency_us);
/** Keeps a copy of x when it ranks among h's cap slowest; returns 1 if kept. */
int slowest_offer(slowest *h, const slowest_entry *x);
/** Offers every entry of src to dst; src NULL is fine. */
void slowest_merge(slowest *dst, const slowest *src);
/** Keeps only the n slowest of h (n may be above h->n). */
void slowest_trim(slowest *h, size_t n);
/** Copies h's entries into out (h->n of them), slowest first; returns h->n. */
size_t slowest_sorted(const slowest *h, slowest_entry *out);

#endif

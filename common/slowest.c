#include "common/slowest.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

slowest *slowest_new(size_t cap)
{
    slowest *h = xcalloc(1, sizeof(*h));

    h->cap = cap < 1 ? 1 : cap > SLOWEST_MAX ? SLOWEST_MAX : cap;
    return h;
}

void slowest_free(slowest *h)
{
    if (h == NULL)
        return;
    xfree(h->e);
    xfree(h);
}

void slowest_reset(slowest *h)
{
    h->n = 0;
}

int slowest_cmp(const slowest_entry *a, const slowest_entry *b)
{
    int c;

    if (a->latency_us != b->latency_us)
        return a->latency_us > b->latency_us ? 1 : -1;
    if (a->start_us != b->start_us)
        return a->start_us < b->start_us ? 1 : -1;
    if (a->vu != b->vu)
        return a->vu < b->vu ? 1 : -1;
    c = strcmp(a->trace, b->trace);
    return c < 0 ? 1 : c > 0 ? -1 : 0;
}

int slowest_would_keep(const slowest *h, uint64_t latency_us)
{
    return h->n < h->cap || latency_us >= h->e[0].latency_us;
}

static void swap(slowest_entry *a, slowest_entry *b)
{
    slowest_entry t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(slowest *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && slowest_cmp(&h->e[l], &h->e[m]) < 0)
            m = l;
        if (r < h->n && slowest_cmp(&h->e[r], &h->e[m]) < 0)
            m = r;
        if (m == i)
            return;
        swap(&h->e[i], &h->e[m]);
        i = m;
    }
}

int slowest_offer(slowest *h, const slowest_entry *x)
{
    size_t i;

    if (h->n == h->cap) {
        if (slowest_cmp(x, &h->e[0]) <= 0)
            return 0;
        h->e[0] = *x;
        sift_down(h, 0);
        return 1;
    }
    if (h->n == h->alloc) {
        h->alloc = h->alloc == 0           ? (h->cap < 16 ? h->cap : 16)
                   : h->alloc * 2 > h->cap ? h->cap
                                           : h->alloc * 2;
        h->e = xreallocarray(h->e, h->alloc, sizeof(*h->e));
    }
    i = h->n++;
    h->e[i] = *x;
    while (i > 0 && slowest_cmp(&h->e[i], &h->e[(i - 1) / 2]) < 0) {
        swap(&h->e[i], &h->e[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    return 1;
}

void slowest_merge(slowest *dst, const slowest *src)
{
    for (size_t i = 0; src != NULL && i < src->n; i++)
        slowest_offer(dst, &src->e[i]);
}

/* qsort order: slowest first. */
static int by_rank(const void *a, const void *b)
{
    return -slowest_cmp(a, b);
}

size_t slowest_sorted(const slowest *h, slowest_entry *out)
{
    if (h->n == 0)
        return 0;
    memcpy(out, h->e, h->n * sizeof(*out));
    qsort(out, h->n, sizeof(*out), by_rank);
    return h->n;
}

void slowest_trim(slowest *h, size_t n)
{
    if (n >= h->n)
        return;
    /* Sorted slowest first, the first n form a valid heap once re-heaped. */
    qsort(h->e, h->n, sizeof(*h->e), by_rank);
    h->n = n;
    h->cap = n < 1 ? 1 : n;
    for (size_t i = h->n / 2; i-- > 0;)
        sift_down(h, i);
}

#include "common/salloc.h"

#include <curl/curl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Class k holds blocks of 16k+8 usable bytes: glibc's chunk sizes less
 * their 8-byte header, so a class block is exactly what malloc() would
 * have given for any request of that class. */
#define CLASSES 64
#define SALLOC_MAX_CLASS (16 * CLASSES + 8)

typedef struct fblock {
    struct fblock *next; /* borrowed: the next free block of its list */
} fblock;

static struct {
    fblock *head; /* owned: the class's free blocks, a list */
    uint32_t n;
} lists[CLASSES + 1];

static __thread int owner; /* this thread uses the lists */
static size_t cached;

void salloc_init(void)
{
    owner = 1;
}

static size_t class_of(size_t n)
{
    return n <= 24 ? 1 : (n + 7) >> 4;
}

static size_t class_size(size_t k)
{
    return 16 * k + 8;
}

void *salloc_malloc(size_t n)
{
    size_t k = class_of(n);
    fblock *b;

    if (!owner || k > CLASSES)
        return malloc(n);
    b = lists[k].head;
    if (b == NULL)
        return malloc(class_size(k));
    UNPOISON(b + 1, class_size(k) - sizeof(*b));
    lists[k].head = b->next;
    lists[k].n--;
    cached--;
    return b;
}

void salloc_free(void *p)
{
    size_t us, k;
    fblock *b = p;

    if (p == NULL)
        return;
    if (!owner) {
        free(p);
        return;
    }
    us = malloc_usable_size(p);
    k = (us - 8) >> 4;
    /* Only blocks of exactly a class's size are kept (under AddressSanitizer
     * the usable size is the requested one, so others are simply freed). */
    if (us < 24 || class_size(k) != us || k > CLASSES || lists[k].n >= SALLOC_CLASS_KEEP) {
        free(p);
        return;
    }
    b->next = lists[k].head;
    lists[k].head = b;
    lists[k].n++;
    cached++;
    POISON(b + 1, us - sizeof(*b)); /* not the link: LeakSanitizer follows it */
}

void *salloc_calloc(size_t count, size_t size)
{
    size_t n;
    void *p;

    if (__builtin_mul_overflow(count, size, &n))
        return NULL;
    p = salloc_malloc(n);
    if (p != NULL)
        memset(p, 0, n);
    return p;
}

void *salloc_realloc(void *p, size_t n)
{
    size_t us;
    void *q;

    if (p == NULL)
        return salloc_malloc(n);
    if (!owner)
        return realloc(p, n);
    us = malloc_usable_size(p);
    if (n <= us && n > us / 2)
        return p; /* still fits, and not much too big */
    if (n > SALLOC_MAX_CLASS && us > SALLOC_MAX_CLASS)
        return realloc(p, n); /* large to large: glibc may grow in place */
    q = salloc_malloc(n);
    if (q == NULL)
        return n <= us ? p : NULL; /* a shrink never fails */
    memcpy(q, p, us < n ? us : n);
    salloc_free(p);
    return q;
}

char *salloc_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = salloc_malloc(n);

    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

void *salloc_lua(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        salloc_free(p);
        return NULL;
    }
    return salloc_realloc(p, nsize);
}

int salloc_curl_global_init(long flags)
{
    salloc_init();
    return (int)curl_global_init_mem(flags, salloc_malloc, salloc_free, salloc_realloc,
                                     salloc_strdup, salloc_calloc);
}

size_t salloc_cached(void)
{
    return cached;
}

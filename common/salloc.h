/* salloc — a cache of small freed blocks for libcurl and Lua.
 *
 * Each request makes libcurl and Lua allocate and free some fifty small
 * blocks. glibc serves calloc() and anything past its per-size cache of
 * seven blocks through its slow paths, and with many transfers in flight
 * those are most of them. salloc keeps freed blocks of up to 1,032 bytes
 * in per-size lists, bounded, and hands them out
 * again. Blocks are plain malloc() blocks sized to glibc's own chunk sizes,
 * so they cost no more memory than before and either side may free them.
 *
 * Only the thread that called salloc_init uses the lists; other threads
 * (libcurl's resolver) go straight to the C library. */
#ifndef QUERN_SALLOC_H
#define QUERN_SALLOC_H

#include <stddef.h>

/* Freed blocks kept per size at most: enough for the transfers of a few
 * hundred VUs in flight; what bursts free beyond it goes back to malloc, so
 * that a burst does not stay in RSS. */
#define SALLOC_CLASS_KEEP 256

/** Marks the calling thread as the one that uses the lists. */
void salloc_init(void);

/** A block of at least n bytes: a kept one of n's size class on the
 *  salloc_init thread, else malloc()'s. NULL when the C library has no
 *  memory (libcurl and Lua handle it); released with salloc_free or free(). */
void *salloc_malloc(size_t n);
/** salloc_malloc of count * size bytes, zeroed; NULL when the product
 *  overflows or there is no memory. */
void *salloc_calloc(size_t count, size_t size);
/** As realloc(): p itself while n still fits it and is more than half of
 *  it, a block of a class otherwise (large to large: realloc(), which may
 *  grow in place); p NULL is salloc_malloc(n). A shrink never fails; NULL
 *  when growing finds no memory, p left as it was. */
void *salloc_realloc(void *p, size_t n);
/** A copy of s in a salloc_malloc block (salloc_free it); NULL when there
 *  is no memory. */
char *salloc_strdup(const char *s);
/** Releases p (NULL is fine): into its class's list on the salloc_init
 *  thread when it is a class's exact size and the list holds fewer than
 *  SALLOC_CLASS_KEEP, else to free(). */
void salloc_free(void *p);

/** A lua_Alloc over the same lists. */
void *salloc_lua(void *ud, void *p, size_t osize, size_t nsize);

/** curl_global_init through salloc; returns curl_global_init's code. */
int salloc_curl_global_init(long flags);

/** Blocks held in the lists now (for tests). */
size_t salloc_cached(void);

#endif

/* mem — allocation that never returns NULL.
 *
 * quern cannot do anything useful once memory is exhausted, so every
 * allocation goes through these wrappers, which abort with a message on
 * failure. Callers never check for NULL. xfree(NULL) is fine.
 * tests/lint/memrule.sh fails on a raw malloc, calloc, realloc, strdup or free
 * outside common/mem.c (tests/lint/memrule.allow lists the justified ones). */
#ifndef QUERN_MEM_H
#define QUERN_MEM_H

#include <stddef.h>

/** malloc(n) that aborts on failure. */
void *xmalloc(size_t n);
/** calloc(count, size) that aborts on failure (and on overflow). */
void *xcalloc(size_t count, size_t size);
/** realloc(p, n) that aborts on failure. n is one byte count: for n things of
 *  a size use xreallocarray, which checks the product. */
void *xrealloc(void *p, size_t n);
/** realloc(p, count * size) that aborts on failure, and on a product past
 *  SIZE_MAX ("quern: out of memory (COUNT x SIZE bytes overflows)"). */
void *xreallocarray(void *p, size_t count, size_t size);
/** strdup(s) that aborts on failure; xstrdup(NULL) returns NULL. */
char *xstrdup(const char *s);
/** strndup(s, n) that aborts on failure. */
char *xstrndup(const char *s, size_t n);
/** A printf-formatted string, owned by the caller (xfree it); aborts when
 *  memory is exhausted. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** free(p); p may be NULL. */
void xfree(void *p);
/** Aborts with "quern: out of memory (what)": for a library call that
 *  returned NULL because it could not allocate (curl_slist_append,
 *  curl_easy_init). */
void xoom(const char *what) __attribute__((noreturn));

#endif

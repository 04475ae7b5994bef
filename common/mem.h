/* mem — allocation that never returns NULL.
 *
 * quern cannot do anything useful once memory is exhausted, so every
 * allocation goes through these wrappers, which abort with a message on
 * failure. Callers never check for NULL. xfree(NULL) is fine. */
#ifndef QUERN_MEM_H
#define QUERN_MEM_H

#include <stddef.h>

/** malloc(n) that aborts on failure. */
void *xmalloc(size_t n);
/** calloc(count, size) that aborts on failure (and on overflow). */
void *xcalloc(size_t count, size_t size);
/** realloc(p, n) that aborts on failure. */
void *xrealloc(void *p, size_t n);
/** strdup(s) that aborts on failure; xstrdup(NULL) returns NULL. */
char *xstrdup(const char *s);
/** strndup(s, n) that aborts on failure. */
char *xstrndup(const char *s, size_t n);
/** free(p); p may be NULL. */
void xfree(void *p);

#endif

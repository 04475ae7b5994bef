/* lbuf — a bounded line being written into a caller's buffer.
 *
 * What it is for: the JTL and Grinder lines (worker/wire/jtl.c, worker/wire/glog.c) and the trace
 * (worker/plugs/trace.c) are built piece by piece into a buffer of fixed size;
 * what does not fit is dropped, never written past the end.
 *
 * Usage:
 *     char line[512];
 *     lbuf b = {line, 0, sizeof(line)};
 *     lbuf_put(&b, "GET ", 4);
 *     lbuf_fmt(&b, "%d", status);
 *     write(fd, b.p, b.len);          // not NUL-terminated */
#ifndef QUERN_LBUF_H
#define QUERN_LBUF_H

#include <stddef.h>

/** A line being written. */
typedef struct lbuf {
    char *p;    /**< borrowed: the buffer, cap bytes */
    size_t len; /**< bytes written so far */
    size_t cap; /**< its size */
} lbuf;

/** Appends n bytes of s, or what fits of them. */
void lbuf_put(lbuf *b, const char *s, size_t n);
/** Appends a printf-formatted piece (at most LBUF_FMT_MAX - 1 bytes of it),
 *  or what fits of it. */
void lbuf_fmt(lbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Longest piece lbuf_fmt formats at once, with its NUL. */
#define LBUF_FMT_MAX 1024

#endif

/* dbuf — a bounded growable buffer.
 *
 * What it is for: text or bytes of unknown length that are built in memory
 * (a Prometheus page, a scraped answer, a response body, lines held back)
 * and must never grow past a named maximum. An append that would pass the
 * maximum fails whole and leaves the buffer as it was: nothing is cut
 * silently, the caller decides (drop the text, count the bytes, report an
 * error). A refusal is also remembered (refused, until the buffer is
 * emptied), so that a writer of many pieces through many functions (a
 * script, record/replay.c) checks once at the end, as a FILE * has ferror.
 * The buffer doubles as it grows (from DBUF_MIN bytes, never past
 * max + 1), through common/mem.h, and is always NUL-terminated once it holds
 * anything.
 *
 * Usage:
 *     dbuf b;
 *     dbuf_init(&b, FOO_MAX);
 *     if (dbuf_put(&b, p, n) != 0 || dbuf_fmt(&b, "%d\n", x) != 0)
 *         ... past FOO_MAX: b is as it was ...
 *     many_pieces(&b); if (b.refused) ... one of them did not fit ...
 *     write(fd, b.p, b.len);           // or: char *s = dbuf_take(&b, &len); ... xfree(s);
 *     dbuf_reset(&b);                  // empty again, its memory kept
 *     dbuf_free(&b);
 * A writer that takes a FILE * (reports/chart.h, reports/html.h) writes into
 * a dbuf through dbuf_stream:
 *     FILE *f = dbuf_stream(&b);        // NULL: out of streams
 *     chart_svg(f, &c);
 *     if (fclose(f) != 0 || b.refused) ... past FOO_MAX: drop b ...
 * A zeroed dbuf holds nothing and has a maximum of 0; it may be freed without
 * being initialised. */
#ifndef QUERN_DBUF_H
#define QUERN_DBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/** Bytes of the first allocation. */
#define DBUF_MIN 256

/** A bounded growable buffer. Callers read p and len and may rewrite the
 *  bytes in place; they change len only through these functions. */
typedef struct dbuf {
    char *p;     /**< owned, NULL until the first append: len bytes, then a NUL */
    size_t len;  /**< bytes held, the NUL not counted */
    size_t cap;  /**< bytes allocated at p */
    size_t max;  /**< most bytes it may hold, the NUL not counted */
    int refused; /**< 1 once an append was refused, until dbuf_reset, dbuf_take or dbuf_free */
} dbuf;

/** An empty buffer that may hold up to max bytes (max < SIZE_MAX); allocates
 *  nothing. */
void dbuf_init(dbuf *b, size_t max);
/** Appends n bytes of s: 0, or -1 (b unchanged but for refused, set to 1)
 *  when they would pass the maximum. */
int dbuf_put(dbuf *b, const void *s, size_t n);
/** Appends a printf-formatted piece, whole: 0, or -1 (b unchanged but for
 *  refused, set to 1) when it would pass the maximum or the format fails. */
int dbuf_fmt(dbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** dbuf_fmt with a va_list. */
int dbuf_vfmt(dbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/** A write-only stream whose bytes are appended to b (borrowed: b outlives
 *  the stream): a write past b's maximum fails (the stream's error, and
 *  b->refused), so fclose returns EOF; b may then hold a first part of the
 *  text, to be dropped. NULL when the stream cannot be made. */
FILE *dbuf_stream(dbuf *b);
/** Keeps the first n bytes (n <= len) and drops the rest; the memory is kept. */
void dbuf_cut(dbuf *b, size_t n);
/** Hands the bytes to the caller: a NUL-terminated string of *len bytes
 *  (len may be NULL), never NULL, owned by the caller (xfree it). b is left
 *  empty (refused 0), with its maximum, and holds no memory. */
char *dbuf_take(dbuf *b, size_t *len);
/** Empties b (refused back to 0) and keeps its memory for the next appends. */
void dbuf_reset(dbuf *b);
/** Releases b's memory; b is left empty (refused 0), with its maximum, and
 *  may be used again. */
void dbuf_free(dbuf *b);

#endif

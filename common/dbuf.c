/* dbuf — a bounded growable buffer; see dbuf.h. */
#include "common/dbuf.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "common/mem.h"

void dbuf_init(dbuf *b, size_t max)
{
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
    b->refused = 0;
}

/* Makes room for n more bytes and the NUL; -1 when they pass the maximum. */
static int grow(dbuf *b, size_t n)
{
    size_t want, cap;

    if (n > b->max - b->len) {
        b->refused = 1;
        return -1;
    }
    want = b->len + n + 1;
    if (want <= b->cap)
        return 0;
    cap = b->cap ? b->cap : DBUF_MIN;
    while (cap < want)
        cap = cap > (b->max + 1) / 2 ? b->max + 1 : cap * 2;
    if (cap > b->max + 1)
        cap = b->max + 1; /* a small maximum: no more than it needs */
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
    return 0;
}

int dbuf_put(dbuf *b, const void *s, size_t n)
{
    if (grow(b, n) != 0)
        return -1;
    if (n > 0)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int dbuf_vfmt(dbuf *b, const char *fmt, va_list ap)
{
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(room ? b->p + b->len : NULL, room, fmt, ap);
    if (n >= 0 && (size_t)n >= room) {
        /* it did not fit: grow, then format it again */
        if (grow(b, (size_t)n) != 0)
            n = -1;
        else
            vsnprintf(b->p + b->len, b->cap - b->len, fmt, again);
    }
    va_end(again);
    if (n < 0) {
        b->refused = 1;
        if (b->p != NULL)
            b->p[b->len] = '\0'; /* what a partial piece wrote is not kept */
        return -1;
    }
    b->len += (size_t)n;
    return 0;
}

int dbuf_fmt(dbuf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = dbuf_vfmt(b, fmt, ap);
    va_end(ap);
    return rc;
}

/* The stream's write: its bytes appended whole, or an error (-1). */
static ssize_t stream_write(void *cookie, const char *s, size_t n)
{
    return dbuf_put(cookie, s, n) == 0 ? (ssize_t)n : -1;
}

FILE *dbuf_stream(dbuf *b)
{
    cookie_io_functions_t io = {.write = stream_write};

    return fopencookie(b, "w", io);
}

void dbuf_cut(dbuf *b, size_t n)
{
    if (n >= b->len)
        return;
    b->len = n;
    b->p[n] = '\0';
}

char *dbuf_take(dbuf *b, size_t *len)
{
    char *s = b->p != NULL ? b->p : xstrdup("");

    if (len != NULL)
        *len = b->len;
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
    b->refused = 0;
    return s;
}

void dbuf_reset(dbuf *b)
{
    b->len = 0;
    b->refused = 0;
    if (b->p != NULL)
        b->p[0] = '\0';
}

void dbuf_free(dbuf *b)
{
    xfree(b->p);
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
    b->refused = 0;
}

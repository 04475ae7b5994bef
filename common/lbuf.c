#include "common/lbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void lbuf_put(lbuf *b, const char *s, size_t n)
{
    if (n > b->cap - b->len)
        n = b->cap - b->len;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void lbuf_fmt(lbuf *b, const char *fmt, ...)
{
    char tmp[LBUF_FMT_MAX];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0)
        lbuf_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

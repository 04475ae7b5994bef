#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_set(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vset(err, errlen, fmt, ap);
    va_end(ap);
}

void err_vset(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err == NULL || errlen == 0)
        return;
    vsnprintf(err, errlen, fmt, ap);
}

void err_append(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    size_t n;

    if (err == NULL || errlen == 0)
        return;
    n = strnlen(err, errlen);
    if (n >= errlen) /* not terminated: nothing fits after it */
        return;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - n, fmt, ap);
    va_end(ap);
}

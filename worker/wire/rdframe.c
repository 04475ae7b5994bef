/* rdframe — the piece of a socket's input a script asks for (rdframe.h). */
#include "worker/wire/rdframe.h"

#include <string.h>

/* Searches buf[from, len) for the end of w's line or delimiter: its offset,
 * or -1. */
static long find_end(const rdframe *w, const char *buf, size_t len, size_t from)
{
    const char *p;

    if (w->kind == RDFRAME_LINE) {
        p = memchr(buf + from, '\n', len - from);
    } else {
        if (len - from < w->dlen)
            return -1;
        p = memmem(buf + from, len - from, w->delim, w->dlen);
    }
    return p != NULL ? (long)(p - buf) : -1;
}

int rdframe_find(const rdframe *w, const char *buf, size_t len, size_t max, size_t *scanned,
                 size_t *take, size_t *drop)
{
    size_t from, lim = len > max ? max : len;
    long at;

    switch (w->kind) {
    case RDFRAME_SOME:
        if (len == 0)
            return 0;
        *take = *drop = len < max ? len : max;
        return 1;
    case RDFRAME_BYTES:
        if (w->n > max)
            return -1;
        if (len < w->n)
            return 0;
        *take = *drop = w->n;
        return 1;
    case RDFRAME_LINE:
    case RDFRAME_UNTIL:
        if (w->kind == RDFRAME_UNTIL && (w->dlen == 0 || w->dlen > RDFRAME_DELIM_MAX))
            return -1;
        /* a delimiter may straddle what was searched and what came since */
        from = *scanned;
        if (w->kind == RDFRAME_UNTIL)
            from = from >= w->dlen - 1 ? from - (w->dlen - 1) : 0;
        if (from > lim)
            from = lim;
        at = find_end(w, buf, lim, from);
        if (at < 0) {
            *scanned = len;
            return len >= max ? -1 : 0;
        }
        *scanned = 0;
        if (w->kind == RDFRAME_LINE) {
            *drop = (size_t)at + 1;
            *take = at > 0 && buf[at - 1] == '\r' ? (size_t)at - 1 : (size_t)at;
        } else {
            *take = (size_t)at;
            *drop = (size_t)at + w->dlen;
        }
        return 1;
    default:
        return -1;
    }
}

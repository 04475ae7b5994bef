/* sseparse — the parser of a server-sent events stream (sseparse.h). */
#include "worker/wire/sseparse.h"

#include <string.h>

#include "common/err.h"
#include "common/mem.h"

#define BUF_KEEP (64u << 10) /* a buffer larger than this is released once emptied */

static const char bom_bytes[3] = {'\xef', '\xbb', '\xbf'};

/* Appends n bytes to b: the caller checked the parser's bound, which is
 * within b's own. */
static void buf_put(dbuf *b, const char *s, size_t n)
{
    (void)dbuf_put(b, s, n);
}

static void buf_set(dbuf *b, const char *s, size_t n)
{
    dbuf_reset(b);
    buf_put(b, s, n);
}

/* Empties b; one grown by a large event gives its memory back, so that an
 * idle stream holds little. */
static void buf_empty(dbuf *b)
{
    if (b->cap > BUF_KEEP)
        dbuf_free(b);
    else
        dbuf_reset(b);
}

void sseparse_init(sseparse *p)
{
    memset(p, 0, sizeof(*p));
    dbuf_init(&p->line, SSEPARSE_LINE_MAX + sizeof(bom_bytes)); /* a BOM-like start kept as text */
    dbuf_init(&p->data, SSEPARSE_DATA_MAX + 1);                 /* and each line's LF */
    dbuf_init(&p->event, SSEPARSE_LINE_MAX);
    dbuf_init(&p->idbuf, SSEPARSE_LINE_MAX);
    dbuf_init(&p->last_id, SSEPARSE_LINE_MAX);
    p->retry = -1;
}

void sseparse_free(sseparse *p)
{
    dbuf_free(&p->line);
    dbuf_free(&p->data);
    dbuf_free(&p->event);
    dbuf_free(&p->idbuf);
    dbuf_free(&p->last_id);
    sseparse_init(p);
}

static int fail(sseparse *p, char *err, size_t errlen, const char *what, unsigned max)
{
    p->failed = 1;
    err_set(err, errlen, "SSE: %s more than %u bytes", what, max);
    return -1;
}

/* A blank line: the event is dispatched if it has data. */
static int dispatch(sseparse *p, sseparse_fn fn, void *ud)
{
    sseparse_event ev;
    int rc;

    buf_set(&p->last_id, p->idbuf.p, p->idbuf.len);
    if (p->data.len == 0) {
        p->event.len = 0;
        return 0;
    }
    ev.id = p->last_id.p != NULL ? p->last_id.p : "";
    ev.id_len = p->last_id.len;
    ev.event = p->event.len > 0 ? p->event.p : "message";
    ev.event_len = p->event.len > 0 ? p->event.len : 7;
    ev.data = p->data.p;
    ev.data_len = p->data.len - 1; /* the last line's LF */
    ev.retry = p->retry;
    p->events++;
    rc = fn(ud, &ev);
    buf_empty(&p->data);
    buf_empty(&p->event);
    return rc;
}

/* retry's value, if it is all ASCII digits (a huge one saturates). */
static void take_retry(sseparse *p, const char *v, size_t n)
{
    int64_t r = 0;

    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (v[i] < '0' || v[i] > '9')
            return;
    for (size_t i = 0; i < n; i++)
        r = r > (INT64_MAX - 9) / 10 ? INT64_MAX : r * 10 + (v[i] - '0');
    p->retry = r;
}

/* One line, its end apart. */
static int line(sseparse *p, const char *s, size_t n, sseparse_fn fn, void *ud, char *err,
                size_t errlen)
{
    const char *colon, *v;
    size_t fn_len, vn;

    if (n == 0)
        return dispatch(p, fn, ud);
    if (s[0] == ':')
        return 0; /* a comment */
    colon = memchr(s, ':', n);
    fn_len = colon != NULL ? (size_t)(colon - s) : n;
    v = colon != NULL ? colon + 1 : s + n;
    vn = colon != NULL ? n - fn_len - 1 : 0;
    if (vn > 0 && v[0] == ' ') {
        v++;
        vn--;
    }
    if (fn_len == 4 && memcmp(s, "data", 4) == 0) {
        if (p->data.len + vn + 1 > SSEPARSE_DATA_MAX + 1)
            return fail(p, err, errlen, "an event's data of", SSEPARSE_DATA_MAX);
        buf_put(&p->data, v, vn);
        buf_put(&p->data, "\n", 1);
    } else if (fn_len == 5 && memcmp(s, "event", 5) == 0) {
        buf_set(&p->event, v, vn);
    } else if (fn_len == 2 && memcmp(s, "id", 2) == 0) {
        if (memchr(v, '\0', vn) == NULL)
            buf_set(&p->idbuf, v, vn);
    } else if (fn_len == 5 && memcmp(s, "retry", 5) == 0) {
        take_retry(p, v, vn);
    }
    return 0; /* any other field is ignored */
}

/* The first bytes of the stream: a BOM is dropped, bytes that only began
 * one go to the line. Returns the bytes of buf it consumed. */
static size_t skip_bom(sseparse *p, const char *buf, size_t len)
{
    size_t i = 0;

    while (!p->started && i < len) {
        if (buf[i] == bom_bytes[p->bom]) {
            i++;
            if (++p->bom == 3)
                p->started = 1;
            continue;
        }
        buf_put(&p->line, bom_bytes, p->bom); /* not a BOM: they are text */
        p->started = 1;
    }
    return i;
}

int sseparse_feed(sseparse *p, const char *buf, size_t len, sseparse_fn fn, void *ud, char *err,
                  size_t errlen)
{
    size_t i;
    int rc;

    if (p->failed) {
        err_set(err, errlen, "SSE: the stream failed before");
        return -1;
    }
    i = skip_bom(p, buf, len);
    while (i < len) {
        const char *s = buf + i;
        size_t n = 0;
        if (p->after_cr) {
            p->after_cr = 0;
            if (*s == '\n') {
                i++;
                continue; /* CRLF: the CR ended the line */
            }
        }
        while (i + n < len && s[n] != '\n' && s[n] != '\r')
            n++;
        if (p->line.len + n > SSEPARSE_LINE_MAX)
            return fail(p, err, errlen, "a line of", SSEPARSE_LINE_MAX);
        if (i + n == len) { /* the line goes on in the next piece */
            buf_put(&p->line, s, n);
            break;
        }
        p->after_cr = s[n] == '\r';
        i += n + 1;
        if (p->line.len == 0) {
            rc = line(p, s, n, fn, ud, err, errlen); /* whole in this piece: no copy */
        } else {
            buf_put(&p->line, s, n);
            rc = line(p, p->line.p, p->line.len, fn, ud, err, errlen);
            buf_empty(&p->line);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* fuzz_sseparse — a server's text/event-stream body (worker/sseparse):
 * every step:sse stream feeds one to the parser as libcurl hands it over.
 *
 * Input: the body's bytes; the first byte chooses where the body is cut
 * into two pieces. Checks: the events, the last event ID and the retry are
 * the same whole, cut there and fed a byte at a time; each event's type is
 * never empty, its id holds no NUL, its data is within SSEPARSE_DATA_MAX;
 * the number of events is what the parser counted; a failed parse keeps
 * failing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "tests/fuzz/fuzz_util.h"
#include "worker/wire/sseparse.h"

/* What a feed saw: a running hash of every event, and their count. */
typedef struct sum {
    uint64_t hash, count;
} sum;

static uint64_t mix(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return (h ^ n) * 1099511628211ull;
}

static int on_event(void *ud, const sseparse_event *ev)
{
    sum *s = ud;

    fuzz_check(ev->event_len > 0 && ev->event != NULL && ev->data != NULL && ev->id != NULL);
    fuzz_check(memchr(ev->id, '\0', ev->id_len) == NULL);
    fuzz_check(ev->data_len <= SSEPARSE_DATA_MAX);
    fuzz_check(ev->retry >= -1);
    s->hash = mix(s->hash, ev->id, ev->id_len);
    s->hash = mix(s->hash, ev->event, ev->event_len);
    s->hash = mix(s->hash, ev->data, ev->data_len);
    s->hash = mix(s->hash, (const char *)&ev->retry, sizeof(ev->retry));
    s->count++;
    return 0;
}

/* Feeds buf in pieces of at most step bytes (0: whole); -1 if it failed. */
static int run(const char *buf, size_t n, size_t cut, size_t step, sum *s, uint64_t *idh,
               int64_t *retry)
{
    sseparse p;
    char err[ERR_MAX];
    int rc = 0;

    memset(s, 0, sizeof(*s));
    sseparse_init(&p);
    if (step == 0) {
        rc = sseparse_feed(&p, buf, cut, on_event, s, err, sizeof(err));
        if (rc == 0)
            rc = sseparse_feed(&p, buf + cut, n - cut, on_event, s, err, sizeof(err));
    } else {
        for (size_t i = 0; i < n && rc == 0; i += step)
            rc = sseparse_feed(&p, buf + i, n - i < step ? n - i : step, on_event, s, err,
                               sizeof(err));
    }
    if (rc != 0) {
        fuzz_check(rc == -1 && p.failed && memchr(err, '\0', sizeof(err)) != NULL);
        fuzz_check(sseparse_feed(&p, "\n\n", 2, on_event, s, NULL, 0) == -1);
    }
    fuzz_check(p.events == s->count);
    *idh = mix(0, p.last_id.p != NULL ? p.last_id.p : "", p.last_id.len);
    *retry = p.retry;
    sseparse_free(&p);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data + 1;
    size_t n = size > 0 ? size - 1 : 0, cut;
    sum a, b, c;
    uint64_t ida, idb, idc;
    int64_t ra, rb, rc;
    int fa, fb, fc;

    if (size == 0)
        return 0;
    cut = n > 0 ? data[0] % (n + 1) : 0;
    fa = run(buf, n, n, 0, &a, &ida, &ra);
    fb = run(buf, n, cut, 0, &b, &idb, &rb);
    fuzz_check(fa == fb);
    if (fa == 0) { /* a failure may come at another event: only success is compared */
        fuzz_check(a.hash == b.hash && a.count == b.count && ida == idb && ra == rb);
        fc = run(buf, n, 0, 1, &c, &idc, &rc);
        fuzz_check(fc == 0 && a.hash == c.hash && a.count == c.count && ida == idc && ra == rc);
    }
    return 0;
}

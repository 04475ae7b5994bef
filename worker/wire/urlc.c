#include "worker/wire/urlc.h"

#include <stdint.h>
#include <string.h>

#include "common/mem.h"
#include "common/redact.h"

#define URLC_DEFAULT_MAX 4096
#define URLC_MAX_LEN 2048 /* longer URLs are rarely repeated: not kept */

typedef struct urlent {
    char *url; /**< owned copy; NULL: empty slot */
    size_t len;
    uint64_t hash;
    urlc_ent e; /**< e.u and e.shown owned */
} urlent;

struct urlc {
    urlent *slots; /**< owned, open addressing, nslots a power of two */
    size_t nslots;
    size_t count;
    size_t max; /**< entries kept at most: once full, new URLs are not kept */
};

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

/* The URL as libcurl reports it (its effective URL when there is no
 * redirect), redacted, owned; NULL when there is no password to hide. */
static char *shown_form(CURLU *u)
{
    char *pw = NULL, *url = NULL, *out = NULL;
    size_t n;

    if (curl_url_get(u, CURLUPART_PASSWORD, &pw, 0) != CURLUE_OK || pw == NULL || pw[0] == '\0')
        goto done;
    if (curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK)
        goto done;
    n = strlen(url) + 1; /* the mask is never longer than a password */
    out = xmalloc(n + 3);
    redact_url(url, out, n + 3);
done:
    curl_free(pw);
    curl_free(url);
    return out;
}

urlc *urlc_new(size_t max)
{
    urlc *c = xcalloc(1, sizeof(*c));

    c->max = max ? max : URLC_DEFAULT_MAX;
    c->nslots = 16;
    while (c->nslots < c->max * 2) /* load factor at most 1/2 */
        c->nslots *= 2;
    c->slots = xcalloc(c->nslots, sizeof(*c->slots));
    return c;
}

void urlc_free(urlc *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->nslots; i++) {
        if (c->slots[i].url != NULL) {
            curl_url_cleanup(c->slots[i].e.u);
            xfree((char *)c->slots[i].e.shown);
            xfree(c->slots[i].url);
        }
    }
    xfree(c->slots);
    xfree(c);
}

size_t urlc_count(const urlc *c)
{
    return c->count;
}

urlc_ent *urlc_get(urlc *c, const char *url, size_t len)
{
    uint64_t h;
    size_t i;
    urlent *s;
    CURLU *u;

    if (len > URLC_MAX_LEN || memchr(url, '\0', len) != NULL)
        return NULL;
    h = fnv1a(url, len);
    for (i = (size_t)h & (c->nslots - 1);; i = (i + 1) & (c->nslots - 1)) {
        s = &c->slots[i];
        if (s->url == NULL)
            break;
        if (s->hash == h && s->len == len && memcmp(s->url, url, len) == 0)
            return &s->e;
    }
    if (c->count >= c->max)
        return NULL;
    u = curl_url();
    if (u == NULL)
        return NULL;
    /* The flags libcurl itself parses a CURLOPT_URL string with. */
    if (curl_url_set(u, CURLUPART_URL, url, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) !=
        CURLUE_OK) {
        curl_url_cleanup(u);
        return NULL;
    }
    s->url = xmalloc(len + 1);
    memcpy(s->url, url, len);
    s->url[len] = '\0';
    s->len = len;
    s->hash = h;
    s->e.u = u;
    s->e.recv_buf = URLC_RECV_FIRST;
    s->e.shown = shown_form(u);
    c->count++;
    return &s->e;
}

const char *urlc_shown(const urlc_ent *e, const char *eff, long redirects, char *buf, size_t n)
{
    if (e != NULL && redirects == 0)
        return e->shown != NULL ? e->shown : eff;
    redact_url(eff != NULL ? eff : "", buf, n);
    return buf;
}

void urlc_seen(urlc_ent *e, uint64_t bytes)
{
    uint32_t n = URLC_RECV_MIN;

    /* A quarter more, so that a response that grows a little still takes
     * one read; then the next power of two. */
    bytes += bytes / 4;
    while (n < bytes && n < URLC_RECV_MAX)
        n *= 2;
    e->recv_buf = n;
}

#include "worker/wire/rcache.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

/* One URL's entry. */
typedef struct rcache_ent {
    uint64_t hash;    /* of the URL: most lookups compare this only */
    char *url;        /* owned */
    int64_t fresh_us; /* monotonic time it is fresh until (0: revalidate) */
    int64_t used_us;  /* last planned or updated: the least recent is replaced */
    char *etag;       /* owned, NULL: none */
    char *last_mod;   /* owned, NULL: none */
    char *deps;       /* owned: what the body names, NULL: nothing */
} rcache_ent;

struct rcache {
    rcache_ent *v; /* owned array, grown up to RCACHE_MAX */
    size_t n, cap;
};

rcache *rcache_new(void)
{
    return xcalloc(1, sizeof(rcache));
}

static void ent_clear(rcache_ent *e)
{
    xfree(e->url);
    xfree(e->etag);
    xfree(e->last_mod);
    xfree(e->deps);
    memset(e, 0, sizeof(*e));
}

void rcache_free(rcache *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++)
        ent_clear(&c->v[i]);
    xfree(c->v);
    xfree(c);
}

size_t rcache_count(const rcache *c)
{
    return c != NULL ? c->n : 0;
}

/* FNV-1a. */
static uint64_t rcache_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static rcache_ent *rcache_find(rcache *c, const char *url, uint64_t h)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].hash == h && strcmp(c->v[i].url, url) == 0)
            return &c->v[i];
    return NULL;
}

static void rcache_remove(rcache *c, rcache_ent *e)
{
    ent_clear(e);
    *e = c->v[--c->n];
    memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
}

/* --- headers -------------------------------------------------------------- */

/* Copies a header value, trimmed, into out (dropped when too long). */
static void copy_value(const char *v, size_t n, char *out)
{
    while (n > 0 && (v[0] == ' ' || v[0] == '\t')) {
        v++;
        n--;
    }
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
        n--;
    if (n >= RCACHE_VAL_MAX)
        n = 0;
    memcpy(out, v, n);
    out[n] = '\0';
}

static void parse_cache_control(const char *v, size_t n, rcache_hdrs *h)
{
    const char *end = v + n;

    while (v < end) {
        const char *d;
        size_t dn;
        while (v < end && (*v == ' ' || *v == '\t' || *v == ','))
            v++;
        d = v;
        while (v < end && *v != ',')
            v++;
        dn = (size_t)(v - d);
        while (dn > 0 && (d[dn - 1] == ' ' || d[dn - 1] == '\t' || d[dn - 1] == '\r'))
            dn--;
        if (dn == 8 && strncasecmp(d, "no-store", 8) == 0)
            h->no_store = 1;
        else if (dn >= 8 && strncasecmp(d, "no-cache", 8) == 0)
            h->no_cache = 1;
        else if (dn > 8 && strncasecmp(d, "max-age=", 8) == 0)
            h->max_age_s = strtoll(d + 8 + (d[8] == '"'), NULL, 10);
    }
}

void rcache_parse(const char *hdr, size_t len, int64_t now_s, rcache_hdrs *h)
{
    const char *p = hdr, *end = hdr + len;
    char expires[RCACHE_VAL_MAX] = "", date[RCACHE_VAL_MAX] = "";

    memset(h, 0, sizeof(*h));
    h->max_age_s = -1;
    h->expires_in = -1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl != NULL ? nl : end, *colon = memchr(p, ':', (size_t)(le - p));
        if (colon != NULL) {
            size_t kn = (size_t)(colon - p), vn = (size_t)(le - colon - 1);
            const char *v = colon + 1;
            if (kn == 13 && strncasecmp(p, "cache-control", 13) == 0)
                parse_cache_control(v, vn, h);
            else if (kn == 4 && strncasecmp(p, "etag", 4) == 0)
                copy_value(v, vn, h->etag);
            else if (kn == 13 && strncasecmp(p, "last-modified", 13) == 0)
                copy_value(v, vn, h->last_modified);
            else if (kn == 7 && strncasecmp(p, "expires", 7) == 0)
                copy_value(v, vn, expires);
            else if (kn == 4 && strncasecmp(p, "date", 4) == 0)
                copy_value(v, vn, date);
        }
        p = le + 1;
    }
    if (expires[0] != '\0') {
        time_t e = curl_getdate(expires, NULL), d = date[0] ? curl_getdate(date, NULL) : -1;
        int64_t from = d >= 0 ? (int64_t)d : now_s;
        /* An invalid date ("0") means already expired. */
        h->expires_in = e >= 0 && (int64_t)e > from ? (int64_t)e - from : 0;
    }
}

/* --- the cache ------------------------------------------------------------ */

enum rcache_plan rcache_plan(rcache *c, const char *url, int64_t now_us, const char **etag,
                             const char **last_modified)
{
    rcache_ent *e = c != NULL ? rcache_find(c, url, rcache_hash(url)) : NULL;

    *etag = *last_modified = NULL;
    if (e == NULL)
        return RCACHE_MISS;
    e->used_us = now_us;
    if (e->fresh_us > now_us)
        return RCACHE_FRESH;
    if (e->etag == NULL && e->last_mod == NULL)
        return RCACHE_MISS; /* fresh once, nothing to revalidate with */
    *etag = e->etag;
    *last_modified = e->last_mod;
    return RCACHE_COND;
}

/* A slot for a new entry: a new one, or the least recently used one. */
static rcache_ent *rcache_slot(rcache *c)
{
    rcache_ent *old;

    if (c->n < RCACHE_MAX) {
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 16;
            c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
        }
        memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
        return &c->v[c->n++];
    }
    old = &c->v[0];
    for (size_t i = 1; i < c->n; i++)
        if (c->v[i].used_us < old->used_us)
            old = &c->v[i];
    ent_clear(old);
    return old;
}

static void set_str(char **dst, const char *s)
{
    xfree(*dst);
    *dst = s[0] != '\0' ? xstrdup(s) : NULL;
}

void rcache_update(rcache *c, const char *url, int status, const char *hdr, size_t len,
                   int64_t now_us)
{
    uint64_t hash = rcache_hash(url);
    rcache_ent *e = rcache_find(c, url, hash);
    rcache_hdrs h;
    int64_t fresh_s;

    if (status != 200 && status != 203 && status != 304) {
        if (e != NULL)
            rcache_remove(c, e);
        return;
    }
    rcache_parse(hdr, len, (int64_t)time(NULL), &h);
    if (h.no_store) {
        if (e != NULL)
            rcache_remove(c, e);
        return;
    }
    fresh_s = h.no_cache ? 0 : h.max_age_s >= 0 ? h.max_age_s : h.expires_in > 0 ? h.expires_in : 0;
    if (status == 304) {
        if (e == NULL)
            return;
        /* The validators stay unless the 304 gives new ones. */
        if (h.etag[0] != '\0')
            set_str(&e->etag, h.etag);
        if (h.last_modified[0] != '\0')
            set_str(&e->last_mod, h.last_modified);
        e->fresh_us = fresh_s > 0 ? now_us + fresh_s * 1000000 : 0;
        e->used_us = now_us;
        return;
    }
    if (fresh_s <= 0 && h.etag[0] == '\0' && h.last_modified[0] == '\0') {
        if (e != NULL)
            rcache_remove(c, e);
        return;
    }
    if (strlen(url) > RCACHE_URL_MAX)
        return;
    if (e == NULL) {
        e = rcache_slot(c);
        e->url = xstrdup(url);
        e->hash = hash;
    }
    set_str(&e->etag, h.etag);
    set_str(&e->last_mod, h.last_modified);
    xfree(e->deps); /* the new body's are set by the caller */
    e->deps = NULL;
    e->fresh_us = fresh_s > 0 ? now_us + fresh_s * 1000000 : 0;
    e->used_us = now_us;
}

void rcache_set_deps(rcache *c, const char *url, const char *deps, size_t len)
{
    rcache_ent *e = rcache_find(c, url, rcache_hash(url));

    if (e == NULL)
        return;
    if (len > RCACHE_DEPS_MAX) {
        len = RCACHE_DEPS_MAX;
        while (len > 0 && deps[len - 1] != '\n')
            len--;
    }
    xfree(e->deps);
    e->deps = len > 0 ? xstrndup(deps, len) : NULL;
}

const char *rcache_deps(rcache *c, const char *url)
{
    rcache_ent *e = c != NULL ? rcache_find(c, url, rcache_hash(url)) : NULL;

    return e != NULL ? e->deps : NULL;
}

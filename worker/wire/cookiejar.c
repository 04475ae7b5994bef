#include "worker/wire/cookiejar.h"

#include <string.h>

#include "common/mem.h"

/* The lines of a jar's text: pointers into it, not NUL-terminated. */
typedef struct cookiejar_lines {
    const char **at; /* owned array; the text is borrowed */
    size_t *len;     /* owned */
    size_t n;
} cookiejar_lines;

static void cookiejar_split(const char *text, cookiejar_lines *l)
{
    size_t cap = 0;

    memset(l, 0, sizeof(*l));
    for (const char *p = text; p != NULL && *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
        if (len > 0) {
            if (l->n == cap) {
                cap = cap ? cap * 2 : 8;
                l->at = xreallocarray(l->at, cap, sizeof(*l->at));
                l->len = xreallocarray(l->len, cap, sizeof(*l->len));
            }
            l->at[l->n] = p;
            l->len[l->n++] = len;
        }
        p = nl != NULL ? nl + 1 : p + len;
    }
}

static void cookiejar_lines_free(cookiejar_lines *l)
{
    xfree(l->at);
    xfree(l->len);
}

/* Field i (0-based, tab-separated) of a line: its start and length. */
static const char *cookiejar_field(const char *line, size_t len, int i, size_t *flen)
{
    const char *p = line, *end = line + len;

    for (; i > 0 && p < end; i--) {
        const char *t = memchr(p, '\t', (size_t)(end - p));
        p = t != NULL ? t + 1 : end;
    }
    const char *t = memchr(p, '\t', (size_t)(end - p));
    *flen = (size_t)((t != NULL ? t : end) - p);
    return p;
}

static int cookiejar_field_eq(const char *a, size_t alen, const char *b, size_t blen, int i)
{
    size_t la, lb;
    const char *fa = cookiejar_field(a, alen, i, &la), *fb = cookiejar_field(b, blen, i, &lb);

    if (i == 0) { /* an HttpOnly cookie's domain carries a prefix */
        if (la >= 10 && memcmp(fa, "#HttpOnly_", 10) == 0)
            fa += 10, la -= 10;
        if (lb >= 10 && memcmp(fb, "#HttpOnly_", 10) == 0)
            fb += 10, lb -= 10;
    }
    return la == lb && memcmp(fa, fb, la) == 0;
}

/* The same cookie: domain, path and name. */
static int cookiejar_same_key(const char *a, size_t alen, const char *b, size_t blen)
{
    return cookiejar_field_eq(a, alen, b, blen, 0) && cookiejar_field_eq(a, alen, b, blen, 2) &&
           cookiejar_field_eq(a, alen, b, blen, 5);
}

static int cookiejar_has_line(const cookiejar_lines *l, const char *s, size_t len)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->len[i] == len && memcmp(l->at[i], s, len) == 0)
            return 1;
    return 0;
}

static int cookiejar_has_key(const cookiejar_lines *l, const char *s, size_t len)
{
    for (size_t i = 0; i < l->n; i++)
        if (cookiejar_same_key(l->at[i], l->len[i], s, len))
            return 1;
    return 0;
}

char *cookiejar_take(CURL *h)
{
    struct curl_slist *list = NULL;
    size_t total = 0, off = 0;
    char *text;

    curl_easy_getinfo(h, CURLINFO_COOKIELIST, &list);
    if (list == NULL)
        return NULL;
    for (struct curl_slist *c = list; c != NULL; c = c->next)
        total += strlen(c->data) + 1;
    text = xmalloc(total + 1);
    for (struct curl_slist *c = list; c != NULL; c = c->next) {
        size_t len = strlen(c->data);
        memcpy(text + off, c->data, len);
        off += len;
        text[off++] = '\n';
    }
    text[off] = '\0';
    curl_slist_free_all(list);
    return text;
}

void cookiejar_put(CURL *h, const char *text)
{
    cookiejar_lines l;

    curl_easy_setopt(h, CURLOPT_COOKIELIST, "ALL");
    cookiejar_split(text, &l);
    for (size_t i = 0; i < l.n; i++) {
        char *line = xstrndup(l.at[i], l.len[i]);
        curl_easy_setopt(h, CURLOPT_COOKIELIST, line); /* copied by libcurl */
        xfree(line);
    }
    cookiejar_lines_free(&l);
}

char *cookiejar_merge(const char *now, const char *base, const char *mine)
{
    cookiejar_lines n, b, m;
    size_t cap = 1, off = 0;
    char *out;

    cookiejar_split(now, &n);
    cookiejar_split(base, &b);
    cookiejar_split(mine, &m);
    for (size_t i = 0; i < n.n; i++)
        cap += n.len[i] + 1;
    for (size_t i = 0; i < m.n; i++)
        cap += m.len[i] + 1;
    out = xmalloc(cap);
    /* now's cookies, unless mine removed or changed them */
    for (size_t i = 0; i < n.n; i++) {
        const char *s = n.at[i];
        size_t len = n.len[i], j;
        int drop = cookiejar_has_key(&b, s, len) && !cookiejar_has_key(&m, s, len);
        for (j = 0; !drop && j < m.n; j++)
            if (!cookiejar_has_line(&b, m.at[j], m.len[j]) &&
                cookiejar_same_key(m.at[j], m.len[j], s, len))
                drop = 1; /* changed by mine: its version follows */
        if (!drop) {
            memcpy(out + off, s, len);
            off += len;
            out[off++] = '\n';
        }
    }
    /* what mine added or changed */
    for (size_t j = 0; j < m.n; j++) {
        if (cookiejar_has_line(&b, m.at[j], m.len[j]))
            continue;
        memcpy(out + off, m.at[j], m.len[j]);
        off += m.len[j];
        out[off++] = '\n';
    }
    out[off] = '\0';
    cookiejar_lines_free(&n);
    cookiejar_lines_free(&b);
    cookiejar_lines_free(&m);
    if (off == 0) {
        xfree(out);
        return NULL;
    }
    return out;
}

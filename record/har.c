#include "record/har.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/err.h"
#include "common/mem.h"

/* A string member of o, copied; NULL when absent or not a string. */
static char *str_dup(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? xstrdup(s) : NULL;
}

/* ISO 8601 "2026-12-01T16:40:00.123Z" (or "+01:00") to ms since the epoch;
 * 0 when it does not parse. */
static double iso_ms(const char *s)
{
    struct tm tm = {0};
    const char *p;
    double frac = 0;
    long off = 0;

    if (s == NULL)
        return 0;
    p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (p == NULL)
        return 0;
    if (*p == '.') {
        char *end;
        frac = strtod(p, &end);
        p = end;
    }
    if (*p == '+' || *p == '-') {
        int hh = 0, mm = 0;
        if (sscanf(p + 1, "%2d:%2d", &hh, &mm) >= 1)
            off = (hh * 60L + mm) * 60L * (*p == '-' ? -1 : 1);
    }
    return ((double)(timegm(&tm) - off) + frac) * 1000.0;
}

/* Copies a HAR list of {name, value} into *out. */
static void kv_list(json_t *arr, har_kv **out, size_t *n)
{
    size_t i, k = 0;
    json_t *v;

    *out = xcalloc(json_array_size(arr) + 1, sizeof(**out));
    json_array_foreach(arr, i, v)
    {
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *val = json_string_value(json_object_get(v, "value"));
        if (name == NULL)
            continue;
        (*out)[k].name = xstrdup(name);
        (*out)[k].value = xstrdup(val != NULL ? val : "");
        k++;
    }
    *n = k;
}

static void kv_free(har_kv *kv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xfree(kv[i].name);
        xfree(kv[i].value);
    }
    xfree(kv);
}

const char *har_header(const har_kv *kv, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(kv[i].name, name) == 0)
            return kv[i].value;
    return NULL;
}

/* The kind, from Chromium's _resourceType when there, else from the
 * Sec-Fetch-Dest header browsers send (Firefox writes no _resourceType),
 * else from the MIME type of the response. */
static har_kind kind_of(const char *rtype, const char *dest, const char *mime)
{
    static const char *const dests[] = {"style", "script", "image", "font",
                                        "audio", "video",  "track"};

    if (rtype == NULL && dest != NULL) {
        if (strcmp(dest, "document") == 0 || strcmp(dest, "iframe") == 0)
            return HAR_DOCUMENT;
        if (strcmp(dest, "empty") == 0)
            return HAR_XHR;
        for (size_t i = 0; i < sizeof(dests) / sizeof(dests[0]); i++)
            if (strcmp(dest, dests[i]) == 0)
                return HAR_STATIC;
    }
    static const char *const statics[] = {"stylesheet", "script", "image",
                                          "font",       "media",  "texttrack"};

    if (rtype != NULL) {
        if (strcmp(rtype, "document") == 0)
            return HAR_DOCUMENT;
        if (strcmp(rtype, "xhr") == 0 || strcmp(rtype, "fetch") == 0)
            return HAR_XHR;
        for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
            if (strcmp(rtype, statics[i]) == 0)
                return HAR_STATIC;
        return HAR_OTHER;
    }
    if (mime == NULL)
        return HAR_XHR;
    if (strstr(mime, "html") != NULL)
        return HAR_DOCUMENT;
    if (strstr(mime, "css") != NULL || strstr(mime, "javascript") != NULL ||
        strncmp(mime, "image/", 6) == 0 || strncmp(mime, "font/", 5) == 0 ||
        strncmp(mime, "audio/", 6) == 0 || strncmp(mime, "video/", 6) == 0)
        return HAR_STATIC;
    return HAR_XHR;
}

/* The pages' titles by id (a JSON object, jansson's hash table), the first
 * page of an id winning; a page without a title maps to null. */
static json_t *page_titles(json_t *pages)
{
    json_t *t = json_object(), *p;
    size_t i;

    json_array_foreach(pages, i, p)
    {
        const char *pid = json_string_value(json_object_get(p, "id"));
        json_t *title = json_object_get(p, "title");
        if (pid != NULL && json_object_get(t, pid) == NULL)
            json_object_set(t, pid, json_is_string(title) ? title : json_null());
    }
    return t;
}

/* The title of page id, or NULL. */
static const char *page_title(json_t *titles, const char *id)
{
    return id != NULL ? json_string_value(json_object_get(titles, id)) : NULL;
}

/* Fills e from a HAR entry (titles: page_titles); -1 with err when it
 * lacks the request's method or URL. */
static int entry_read(json_t *je, json_t *titles, har_entry *e, size_t idx, char *err,
                      size_t errlen)
{
    json_t *req = json_object_get(je, "request"), *resp = json_object_get(je, "response");
    json_t *post = json_object_get(req, "postData"), *content = json_object_get(resp, "content");
    const char *enc;

    e->method = (str_dup(req, "method"));
    e->url = (str_dup(req, "url"));
    if (e->method == NULL || e->url == NULL) {
        err_set(err, errlen, "1:1: not a HAR file: entry %zu has no request method or url",
                idx + 1);
        return -1;
    }
    kv_list(json_object_get(req, "headers"), &e->headers, &e->nheaders);
    if (json_is_object(post)) {
        e->req_mime = str_dup(post, "mimeType");
        e->req_text = str_dup(post, "text");
        if (e->req_text == NULL)
            e->req_text = xstrdup("");
        if (e->req_mime == NULL)
            e->req_mime = xstrdup("");
        kv_list(json_object_get(post, "params"), &e->params, &e->nparams);
    }
    e->status = (int)json_integer_value(json_object_get(resp, "status"));
    {
        har_kv *rh;
        size_t nrh;
        const char *loc;
        kv_list(json_object_get(resp, "headers"), &rh, &nrh);
        loc = har_header(rh, nrh, "location");
        if (loc == NULL)
            loc = json_string_value(json_object_get(resp, "redirectURL"));
        e->location = loc != NULL && *loc != '\0' ? (xstrdup(loc)) : NULL;
        kv_free(rh, nrh);
    }
    e->resp_mime = str_dup(content, "mimeType");
    /* a body recorded in base64 is binary (images, fonts): nothing to correlate */
    enc = json_string_value(json_object_get(content, "encoding"));
    if (enc == NULL || strcmp(enc, "base64") != 0)
        e->resp_text = str_dup(content, "text");
    {
        const char *t = page_title(titles, json_string_value(json_object_get(je, "pageref")));
        e->title = t != NULL && *t != '\0' ? (xstrdup(t)) : NULL;
    }
    e->kind = kind_of(json_string_value(json_object_get(je, "_resourceType")),
                      har_header(e->headers, e->nheaders, "sec-fetch-dest"), e->resp_mime);
    e->start_ms = iso_ms(json_string_value(json_object_get(je, "startedDateTime")));
    e->time_ms = json_number_value(json_object_get(je, "time"));
    if (e->time_ms < 0)
        e->time_ms = 0;
    return 0;
}

/* Merges the sorted runs e[0..mid) and e[mid..n) through tmp. */
static void entries_merge(har_entry *e, size_t mid, size_t n, har_entry *tmp)
{
    size_t a = 0, b = mid, o = 0;

    while (a < mid && b < n)
        tmp[o++] = e[b].start_ms < e[a].start_ms ? e[b++] : e[a++];
    while (a < mid)
        tmp[o++] = e[a++];
    while (b < n)
        tmp[o++] = e[b++];
    memcpy(e, tmp, n * sizeof(*e));
}

/* Stable (entries that started in the same millisecond keep the file's
 * order) and n log n whatever the order: a file may come in any. */
static void entries_sort(har_entry *e, size_t n, har_entry *tmp)
{
    size_t mid = n / 2;

    if (n < 2)
        return;
    entries_sort(e, mid, tmp);
    entries_sort(e + mid, n - mid, tmp);
    if (e[mid].start_ms < e[mid - 1].start_ms) /* nearly sorted: most merges are skipped */
        entries_merge(e, mid, n, tmp);
}

int har_header_own(const char *name)
{
    static const char *const own[] = {"host",
                                      "connection",
                                      "content-length",
                                      "cookie",
                                      "user-agent",
                                      "accept",
                                      "origin",
                                      "referer",
                                      "pragma",
                                      "cache-control",
                                      "dnt",
                                      "priority",
                                      "te",
                                      "keep-alive",
                                      "purpose",
                                      "if-none-match",
                                      "if-modified-since",
                                      "upgrade-insecure-requests",
                                      "x-client-data",
                                      "content-type",
                                      "authorization",
                                      "proxy-authorization",
                                      "upgrade",
                                      "traceparent",
                                      "tracestate"};

    if (name[0] == ':' || strncasecmp(name, "accept-", 7) == 0 || strncasecmp(name, "sec-", 4) == 0)
        return 1;
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strcasecmp(name, own[i]) == 0)
            return 1;
    return 0;
}

int har_parse(const char *text, size_t len, har *h, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root, *log, *entries, *v, *titles;
    size_t i;

    memset(h, 0, sizeof(*h));
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        err_set(err, errlen, "%d:%d: not JSON: %s", je.line, je.column, je.text);
        return -1;
    }
    log = json_object_get(root, "log");
    entries = json_object_get(log, "entries");
    if (!json_is_object(log) || !json_is_array(entries)) {
        err_set(err, errlen, "1:1: not a HAR file: no \"log\" object with an \"entries\" list");
        json_decref(root);
        return -1;
    }
    {
        json_t *cr = json_object_get(log, "creator"), *br = json_object_get(log, "browser");
        char buf[256];
        if (json_is_object(cr)) {
            snprintf(buf, sizeof(buf), "%s %s",
                     json_string_value(json_object_get(cr, "name")) ?: "?",
                     json_string_value(json_object_get(cr, "version")) ?: "");
            h->creator = (xstrdup(buf));
        }
        if (json_is_object(br)) {
            snprintf(buf, sizeof(buf), "%s %s",
                     json_string_value(json_object_get(br, "name")) ?: "?",
                     json_string_value(json_object_get(br, "version")) ?: "");
            h->browser = (xstrdup(buf));
        }
    }
    h->e = xcalloc(json_array_size(entries) + 1, sizeof(*h->e));
    titles = page_titles(json_object_get(log, "pages"));
    json_array_foreach(entries, i, v)
    {
        if (entry_read(v, titles, &h->e[h->n++], i, err, errlen) != 0) {
            json_decref(titles);
            json_decref(root);
            har_free(h);
            return -1;
        }
    }
    json_decref(titles);
    /* browsers write entries as they finish: replay them in the order they started */
    {
        har_entry *tmp = xcalloc(h->n + 1, sizeof(*tmp));
        entries_sort(h->e, h->n, tmp);
        xfree(tmp);
    }
    {
        double first = 0;
        const char *when = NULL;
        json_array_foreach(entries, i, v)
        {
            const char *s = json_string_value(json_object_get(v, "startedDateTime"));
            double ms = iso_ms(s);
            if (s != NULL && (when == NULL || ms < first)) {
                first = ms;
                when = s;
            }
        }
        h->started = when != NULL ? (xstrdup(when)) : NULL;
    }
    json_decref(root);
    return 0;
}

void har_free(har *h)
{
    for (size_t i = 0; i < h->n; i++) {
        har_entry *e = &h->e[i];
        xfree(e->method);
        xfree(e->url);
        kv_free(e->headers, e->nheaders);
        xfree(e->req_mime);
        xfree(e->req_text);
        kv_free(e->params, e->nparams);
        xfree(e->location);
        xfree(e->resp_mime);
        xfree(e->resp_text);
        xfree(e->title);
    }
    xfree(h->e);
    xfree(h->creator);
    xfree(h->browser);
    xfree(h->started);
    memset(h, 0, sizeof(*h));
}

/* har — a browser's HAR 1.2 recording read into plain C structures.
 *
 * What it is for: `quern har2lua` reads the recording once with jansson and
 * then works on this model only: the entries in recorded order, each with
 * what was sent (method, URL, headers, body, form fields) and what came back
 * (status, Location, body, MIME type), the page title it belongs to and its
 * timings. Chromium, Firefox and Playwright write HAR 1.2; the fields they
 * add (_resourceType) are used when present.
 *
 * Usage:
 *     har h;
 *     char err[ERR_MAX];
 *     if (har_parse(text, len, &h, err, sizeof(err)) != 0) { print "FILE:" err; exit 2 }
 *     for (size_t i = 0; i < h.n; i++) ... h.e[i].url ...
 *     har_free(&h);
 */
#ifndef QUERN_HAR_H
#define QUERN_HAR_H

#include <stddef.h>

/** A name and a value (a header, a form field). */
typedef struct har_kv {
    char *name;  /**< owned */
    char *value; /**< owned */
} har_kv;

/** What kind of request an entry is, as the browser said or as guessed from
 *  its MIME type when it did not. */
typedef enum har_kind {
    HAR_DOCUMENT, /**< a page navigation */
    HAR_XHR,      /**< an XHR or fetch call */
    HAR_STATIC,   /**< a page's resource: style, script, image, font, ... */
    HAR_OTHER,    /**< websocket, ping, manifest...: not replayed */
} har_kind;

/** One request and its response. */
typedef struct har_entry {
    char *method;    /**< owned, "GET" */
    char *url;       /**< owned, absolute */
    har_kv *headers; /**< owned, nheaders request headers, as recorded */
    size_t nheaders; /**< number of headers */
    char *req_mime;  /**< owned, the body's MIME type; NULL when no body */
    char *req_text;  /**< owned, the body; NULL when no body */
    har_kv *params;  /**< owned, nparams form fields of a form-encoded body */
    size_t nparams;  /**< number of params */
    int status;      /**< response status, 0 when none came */
    char *location;  /**< owned, the response's Location header, or NULL */
    char *resp_mime; /**< owned, the response's MIME type, or NULL */
    char *resp_text; /**< owned, the response's body when recorded as text, or NULL */
    char *title;     /**< owned, the title of the page it belongs to, or NULL */
    har_kind kind;   /**< what it is */
    double start_ms; /**< when it started, ms since the epoch */
    double time_ms;  /**< its duration */
} har_entry;

/** A recording. */
typedef struct har {
    har_entry *e;  /**< owned, n entries sorted by start */
    size_t n;      /**< number of entries */
    char *creator; /**< owned, "Playwright 1.48.0" (name and version), or NULL */
    char *browser; /**< owned, "chromium 120.0" or NULL */
    char *started; /**< owned, the first entry's startedDateTime, or NULL */
} har;

/** Parses a HAR file's text (len bytes). Returns 0, or -1 with "LINE:COLUMN:
 *  what" in err (the place of a JSON syntax error, or of the document for a
 *  JSON text that is not a HAR). h is empty on failure. */
int har_parse(const char *text, size_t len, har *h, char *err, size_t errlen);

/** Frees what har_parse filled in; h is empty after. */
void har_free(har *h);

/** The value of header name (any case) among n, or NULL. Borrowed. */
const char *har_header(const har_kv *kv, size_t n, const char *name);

/** 1 when a request header is the browser's own or the VU's business
 *  (user agent, accept-*, sec-*, cookies, host, origin, referer, caches,
 *  content-type and length, credentials, a trace context: one id a request,
 *  quern's own with --traceparent), so a replay must not copy it. */
int har_header_own(const char *name);

#endif

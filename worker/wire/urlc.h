/* urlc — the URLs a run requests, parsed once.
 *
 * libcurl parses a request's URL string on every transfer and prints it back
 * in normal form, about a sixth of its work per request. A load test asks
 * for the same few URLs again and again, so each distinct URL is parsed
 * once into a CURLU that every transfer of it hands to libcurl.
 *
 * The same goes for the form quern writes a URL in (JTL, trace): a URL with
 * a password in its user-info is redacted (common/redact.h) once, when it
 * enters the cache, and urlc_shown picks the form to write per transfer. */
#ifndef QUERN_URLC_H
#define QUERN_URLC_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

typedef struct urlc urlc;

#define URLC_RECV_MIN 1024   /* libcurl's smallest receive buffer */
#define URLC_RECV_MAX 16384  /* libcurl's default */
#define URLC_RECV_FIRST 8192 /* before the URL's first response */

/** A URL's entry: its parsed form, and what its last response tells of the
 *  next. libcurl allocates a transfer's receive buffer (CURLOPT_BUFFERSIZE)
 *  for the transfer's life: a 250-byte response needs 1 KB of it, not 8,
 *  which a wave of transfers in flight at once multiplies; and a 64 KB one
 *  is read in four system calls with 16 KB instead of eight (each with a
 *  poll) with 8. So the buffer is sized from the last response of the
 *  same URL; a larger response is still read whole, in more reads. */
typedef struct urlc_ent {
    CURLU *u;          /**< owned by the cache */
    uint32_t recv_buf; /**< receive buffer for the URL's next transfer */
    const char *shown; /**< owned by the cache: the URL as libcurl reports it, password
                            redacted; NULL when it has no password (written as it is) */
} urlc_ent;

/** A cache holding at most max URLs (0: a default). */
urlc *urlc_new(size_t max);
/** Frees the cache and its CURLUs: no transfer may still use them. */
void urlc_free(urlc *c);
/** The entry of url (NUL-terminated, len its length), owned by the cache and
 *  valid until urlc_free; NULL when libcurl rejects the URL (it then reports
 *  the error itself) or the cache is full. */
urlc_ent *urlc_get(urlc *c, const char *url, size_t len);
/** Notes that a response of the URL took bytes (headers and body). */
void urlc_seen(urlc_ent *e, uint64_t bytes);
/** The form to write of a finished transfer's URL: eff is libcurl's
 *  effective URL (borrowed), redirects the redirects it followed, e its
 *  cache entry or NULL. Without a redirect the entry's form is used (no work
 *  per request); otherwise eff is redacted into buf (n bytes). The result is
 *  eff, e->shown or buf. */
const char *urlc_shown(const urlc_ent *e, const char *eff, long redirects, char *buf, size_t n);
/** URLs held. */
size_t urlc_count(const urlc *c);

#endif

/* urlc — the URLs a run requests, parsed once.
 *
 * libcurl parses a request's URL string on every transfer and prints it back
 * in normal form, about a sixth of its work per request. A load test asks
 * for the same few URLs again and again, so each distinct URL is parsed
 * once into a CURLU that every transfer of it hands to libcurl. */
#ifndef QUERN_URLC_H
#define QUERN_URLC_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

typedef struct urlc urlc;

#define URLC_RECV_MIN 1024  /* libcurl's smallest receive buffer */
#define URLC_RECV_MAX 16384 /* libcurl's default */
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
/** URLs held. */
size_t urlc_count(const urlc *c);

#endif

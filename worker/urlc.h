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

typedef struct urlc urlc;

/** A cache holding at most max URLs (0: a default). */
urlc *urlc_new(size_t max);
/** Frees the cache and its CURLUs: no transfer may still use them. */
void urlc_free(urlc *c);
/** The parsed form of url (NUL-terminated, len its length), owned by the cache and valid until urlc_free;
 *  NULL when libcurl rejects the URL (it then reports the error itself)
 *  or the cache is full. */
CURLU *urlc_get(urlc *c, const char *url, size_t len);
/** URLs held. */
size_t urlc_count(const urlc *c);

#endif

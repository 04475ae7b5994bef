/* tpage — the demo target's page with embedded resources (GET /page and
 * /page/...), for page steps with `resources` (worker/plugs/pageres.h).
 *
 * What it serves: /page is an HTML page embedding a stylesheet (which names
 * an image with url()), a script, an icon, an image, an image with a srcset
 * (1x and 2x), and a script on a third-party origin that a same-origin
 * page step must skip. Every resource has an ETag; a matching
 * If-None-Match is answered 304. The stylesheet is `no-cache` (revalidated
 * each time), the others `max-age=3600` (fetched once per VU).
 *
 * Use: tpage_answer(path, if_none_match, &a) fills a for a /page path;
 * the caller builds the response from it. Pure: no MHD, no state. */
#ifndef QUERN_TPAGE_H
#define QUERN_TPAGE_H

#include <stddef.h>

/** What to answer. */
struct tpage_answer {
    unsigned status;           /**< 200, 304 or 404 */
    const char *ctype;         /**< static: Content-Type */
    const char *body;          /**< static: the body (empty for 304 and 404) */
    size_t len;                /**< its length */
    const char *etag;          /**< static: the ETag header, NULL for 404 */
    const char *cache_control; /**< static: the Cache-Control header, NULL for 404 */
};

/** 1 when path is the page or one of its resources. */
int tpage_is(const char *path);
/** Fills a for GET path (tpage_is), inm being If-None-Match (may be NULL). */
void tpage_answer(const char *path, const char *inm, struct tpage_answer *a);

#endif

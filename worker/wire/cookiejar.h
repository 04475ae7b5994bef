/* cookiejar — a VU's cookie jar, kept as text between its transfers.
 *
 * A VU's connections live in a libcurl share it has with other VUs
 * (vshare.h), and a handle attaches one share only, so the jar cannot live
 * in a share: it lives in the cookie engine of whatever easy handle the VU
 * holds, and as Netscape cookie lines (domain, tailmatch, path, secure,
 * expires, name, value; tab-separated, one a line) in the VU while it holds
 * none. A VU that never got a cookie keeps no jar at all.
 *
 * When two handles of one VU run at once (a page's resources), each starts
 * from the same text; cookiejar_merge applies what the later one changed to what
 * the earlier one left, cookie by cookie, so neither change is lost.
 *
 * Internal to worker/. */
#ifndef QUERN_COOKIEJAR_H
#define QUERN_COOKIEJAR_H

#include <curl/curl.h>

/** The cookies of h's cookie engine, one Netscape line each, joined by
 *  '\n'; owned by the caller; NULL when h holds none. */
char *cookiejar_take(CURL *h);

/** Makes h's cookie engine hold exactly the cookies of text (NULL or ""
 *  for none). */
void cookiejar_put(CURL *h, const char *text);

/** What a handle changed from base (the text it started from) to mine (what
 *  it holds now), applied to now (the VU's text meanwhile): cookies added or
 *  changed in mine replace the same cookie (domain, path, name) of now, or
 *  are appended; cookies of base missing from mine are removed. A new
 *  string owned by the caller, NULL when no cookie is left. Any argument
 *  may be NULL (no cookie). */
char *cookiejar_merge(const char *now, const char *base, const char *mine);

#endif

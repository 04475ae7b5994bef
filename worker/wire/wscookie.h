/* wscookie — the VU's cookies on a WebSocket's upgrade request, and the
 * cookies its 101 answer sets.
 *
 * What it is for: the upgrade request is written by hand (wshandshake.h),
 * so libcurl's cookie engine neither adds the Cookie header nor reads the
 * answer's Set-Cookie. These two functions do it with the VU's jar as
 * libcurl holds it (CURLINFO_COOKIELIST's Netscape lines, which
 * CURLOPT_COOKIELIST takes back), so that a WebSocket shares the jar as an
 * HTTP step does: the cookies that match the URL go out, and what the 101
 * sets is in the jar for the VU's next request. No I/O.
 *
 * Use:
 *     n = wscookie_header(out, cap, lines, nlines, host, path, secure, now);
 *     // out: "Cookie: a=1; b=2\r\n", or "" when none matches
 *     if (wscookie_line(value, host, path, now, line, sizeof(line)) == 0)
 *         curl_easy_setopt(easy, CURLOPT_COOKIELIST, line);
 * Internal to worker/. */
#ifndef QUERN_WSCOOKIE_H
#define QUERN_WSCOOKIE_H

#include <stddef.h>
#include <time.h>

/** Writes into out the Cookie header line (ending in CRLF) of the cookies
 *  among the n Netscape-format lines that a request to host and path (an
 *  absolute path, its query left off) sends: the domain matches (exactly,
 *  or as a subdomain of a domain cookie), the path is within the cookie's,
 *  secure only when secure is 1, not expired at now. "" when none does, or
 *  when the line would not fit in cap. Returns the line's length. */
size_t wscookie_header(char *out, size_t cap, const char *const *lines, size_t n, const char *host,
                       const char *path, int secure, time_t now);

/** Turns value, a Set-Cookie header's value from host answering path, into
 *  the Netscape line of the jar (its Domain, Path, Secure, HttpOnly,
 *  Max-Age and Expires read as RFC 6265 says; the default path is path's
 *  directory; a Max-Age of 0 or less, or an Expires past, gives an expired
 *  line, which deletes the cookie). Returns 0, or -1 when value has no
 *  name=value, names a domain host is not within, or does not fit. */
int wscookie_line(const char *value, const char *host, const char *path, time_t now, char *out,
                  size_t cap);

#endif

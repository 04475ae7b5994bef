/* redact — URLs with their password hidden, as quern writes them.
 *
 * What it is for: a password given in a URL's user-info
 * (http://user:secret@host/) is sent to the server, but never written into
 * a result file, a log line or an error message: quern writes
 * http://user:***@host/ instead (the user is kept, it says which account
 * the run used).
 *
 * Use: redact_url(url, out, sizeof(out)) wherever a URL, or a message that
 * may hold one, leaves the process. Every "scheme://" in the input is
 * looked at, so a message such as "GET http://u:p@h/x failed" is redacted
 * too. A string with no "://" followed by an '@' before the end of the host
 * part is copied unchanged, and that check is the whole cost in the common
 * case: redact once per distinct URL (worker/urlc.h keeps the redacted form
 * of each) rather than once per request. */
#ifndef QUERN_REDACT_H
#define QUERN_REDACT_H

#include <stddef.h>

/** Writes in into out (outlen bytes, always NUL-terminated when outlen > 0,
 *  cut safely when too long) with the password of every URL's user-info
 *  replaced by "***". A URL without a password is copied unchanged.
 *  Returns 0. */
int redact_url(const char *in, char *out, size_t outlen);

#endif

/* err — writing a message into a caller's error buffer.
 *
 * quern's functions report failure by status and write the reason into a
 * buffer the caller gives (redis's anet style); err may be NULL. Every
 * message goes through these functions (tests/lint/errrule.sh), a reason or
 * a message kept in a why or msg buffer too, and a local error buffer
 * that receives one is ERR_MAX bytes. */
#ifndef QUERN_ERR_H
#define QUERN_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* bytes of an error buffer: file:line, a message, a path and a libcurl or
 * SQLite reason (CURL_ERROR_SIZE is 256) */
#define ERR_MAX 512

/** printf into err (errlen bytes, truncated); nothing when err is NULL. */
void err_set(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** err_set with a va_list, for a function of its own that takes fmt, ... */
void err_vset(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/** printf after what err holds (truncated at errlen bytes in all); nothing
 *  when err is NULL. */
void err_append(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

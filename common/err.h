/* err — writing a message into a caller's error buffer.
 *
 * quern's functions report failure by status and write the reason into a
 * buffer the caller gives (redis's anet style); err may be NULL. */
#ifndef QUERN_ERR_H
#define QUERN_ERR_H

#include <stddef.h>

/** printf into err (errlen bytes, truncated); nothing when err is NULL. */
void err_set(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

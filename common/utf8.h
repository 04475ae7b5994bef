/* utf8 — reading UTF-8 that came from outside (response bodies, step names,
 * error messages) one character at a time.
 *
 * What it is for: the live table, the JUnit writer and the HTML report each
 * show text quern did not write; each decides what it accepts (a terminal
 * refuses C1 controls, XML refuses U+FFFE), but all first need the same
 * answer: is there a well-formed character here, how long, which one.
 *
 * Usage:
 *     uint32_t c;
 *     size_t len = utf8_decode(s, n, &c);   // 0: not a well-formed character
 *     if (len == 0) replace_one_byte(); else { if (c >= 0x80 && c < 0xa0) ...; s += len; }
 *
 *     size_t cut = utf8_cut(name, strlen(name), 40);  // at most 40 bytes, whole characters */
#ifndef QUERN_UTF8_H
#define QUERN_UTF8_H

#include <stddef.h>
#include <stdint.h>

/** Decodes the character at s[0..n) (n > 0): returns its length (1 to 4)
 *  and sets *c, or returns 0 when the bytes there are not a well-formed
 *  UTF-8 character (a stray continuation byte, a truncated sequence, an
 *  overlong form, a surrogate, a value beyond U+10FFFF); *c is then
 *  unchanged. An ASCII byte, control characters included, is length 1. */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c);

/** The largest length <= max at which s[0..n) can be cut without splitting a
 *  character (backs off over continuation bytes); n when n <= max. */
size_t utf8_cut(const char *s, size_t n, size_t max);

#endif

/* termsafe — text made safe to print on a terminal; see termsafe.h. */
#include "common/termsafe.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"

/* 1 for a character a terminal acts on rather than shows. */
static int acts(uint32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

/* The unit at s[0..n) as shown: its length in s, and into out (room for
 * 7 bytes) its text and *outn its length. */
static size_t unit_at(const unsigned char *s, size_t n, char *out, size_t *outn)
{
    uint32_t c;
    size_t len = utf8_decode(s, n, &c);

    if (len == 0) {
        *outn = (size_t)snprintf(out, 7, "\\x%02x", s[0]);
        return 1;
    }
    if (!acts(c)) {
        memcpy(out, s, len);
        *outn = len;
    } else if (c < 0x80) {
        *outn = (size_t)snprintf(out, 7, "\\x%02x", (unsigned)c);
    } else {
        *outn = (size_t)snprintf(out, 7, "\\u%04x", (unsigned)c);
    }
    return len;
}

const char *termsafe(const char *s, char *buf, size_t len)
{
    const unsigned char *u = (const unsigned char *)(s != NULL ? s : "");
    size_t n = strlen((const char *)u), at = 0;

    if (len == 0)
        return buf;
    for (size_t i = 0; i < n;) {
        char unit[8];
        size_t un, used = unit_at(u + i, n - i, unit, &un);
        if (at + un >= len)
            break;
        memcpy(buf + at, unit, un);
        at += un;
        i += used;
    }
    buf[at] = '\0';
    return buf;
}

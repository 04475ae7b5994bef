/* utf8 — well-formed UTF-8 characters; see utf8.h. */
#include "common/utf8.h"

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c)
{
    uint32_t v;
    size_t len;

    if (n == 0)
        return 0;
    if (s[0] < 0x80) {
        *c = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2;
        v = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        v = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        v = s[0] & 0x07;
    } else {
        return 0; /* a continuation byte, 0xc0/0xc1 (always overlong) or beyond U+10FFFF */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || (v >= 0xd800 && v <= 0xdfff) ||
        v > 0x10ffff)
        return 0;
    *c = v;
    return len;
}

size_t utf8_cut(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    return max;
}

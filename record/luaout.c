/* luaout — untrusted text made inert in Lua source; see luaout.h. */
#include "record/luaout.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"

/* A string or a byte into out; a refusal is kept in out->refused. */
static void put_s(dbuf *out, const char *s)
{
    dbuf_put(out, s, strlen(s));
}

static void put_c(dbuf *out, char c)
{
    dbuf_put(out, &c, 1);
}

/* 1 for a character that is well-formed but changes what a reader sees:
 * C1 controls (a terminal's CSI is U+009B), the marks that reorder text
 * (a line that shows other than it runs), the separators editors break
 * lines on, zero-width characters. */
static int hidden(uint32_t c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0x061c || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c == 0xfeff ||
           (c >= 0xfff9 && c <= 0xfffb);
}

/* How many bytes at s[0..n) may be written as they are: 1 for printable
 * ASCII, the character's length for well-formed visible UTF-8, 0 when the
 * byte at s must be escaped or replaced. */
static size_t visible(const unsigned char *s, size_t n)
{
    uint32_t c;
    size_t len;

    if (s[0] >= 0x20 && s[0] < 0x7f)
        return 1;
    if (s[0] < 0x80)
        return 0;
    len = utf8_decode(s, n, &c);
    return len > 0 && !hidden(c) ? len : 0;
}

void luaout_str_n(dbuf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;

    while (p < end) {
        size_t len = visible(p, (size_t)(end - p));
        if (*p == '"' || *p == '\\') {
            put_c(out, '\\');
            put_c(out, (char)*p++);
        } else if (len > 0) {
            dbuf_put(out, p, len);
            p += len;
        } else if (*p == '\n') {
            put_s(out, "\\n");
            p++;
        } else if (*p == '\r') {
            put_s(out, "\\r");
            p++;
        } else if (*p == '\t') {
            put_s(out, "\\t");
            p++;
        } else {
            /* three digits always: a digit after it is not read as its fourth */
            size_t k = *p < 0x80 ? 1 : utf8_decode(p, (size_t)(end - p), &(uint32_t){0});
            for (size_t i = 0; i < (k > 0 ? k : 1); i++)
                dbuf_fmt(out, "\\%03u", *p++);
        }
    }
}

void luaout_str(dbuf *out, const char *s)
{
    put_c(out, '"');
    luaout_str_n(out, s, strlen(s));
    put_c(out, '"');
}

void luaout_key(dbuf *out, const char *k)
{
    static const char *const kw[] = {"and",   "break", "do",       "else", "elseif", "end",
                                     "false", "for",   "function", "goto", "if",     "in",
                                     "local", "nil",   "not",      "or",   "repeat", "return",
                                     "then",  "true",  "until",    "while"};
    int ok = (k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_';

    for (const char *p = k; *p && ok; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             *p == '_';
    for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]) && ok; i++)
        ok = strcmp(k, kw[i]) != 0;
    if (ok)
        put_s(out, k);
    else {
        put_c(out, '[');
        luaout_str(out, k);
        put_c(out, ']');
    }
    put_s(out, " = ");
}

void luaout_comment(dbuf *out, const char *lead, const char *fmt, ...)
{
    char buf[LUAOUT_COMMENT_MAX + 1];
    const unsigned char *p = (const unsigned char *)buf, *end;
    va_list ap;
    int n, cut = 0;
    size_t len;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    len = n < 0 ? 0 : (size_t)n;
    put_s(out, lead);
    if (len > LUAOUT_COMMENT_MAX) {
        len = utf8_cut(buf, LUAOUT_COMMENT_MAX, LUAOUT_COMMENT_MAX - 3);
        cut = 1;
    }
    for (end = p + len; p < end;) {
        size_t k = visible(p, (size_t)(end - p));
        if (k > 0) {
            dbuf_put(out, p, k);
            p += k;
        } else {
            put_c(out, '?');
            p++;
        }
    }
    put_s(out, cut ? "...\n" : "\n");
}

size_t luaout_name(const char *s, char *out, size_t len)
{
    size_t o = 0;

    if (len == 0)
        return 0;
    for (const char *p = s; *p && o + 1 < len; p++)
        out[o++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                           (*p >= '0' && *p <= '9') || *p == '_'
                       ? *p
                       : '_';
    out[o] = '\0';
    return o;
}

int luaout_plain(const char *s, size_t max)
{
    size_t n = strlen(s);

    if (n == 0 || n >= max)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("_.:-[]", *p) != NULL))
            return 0;
    return 1;
}

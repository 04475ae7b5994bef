#include "worker/lua/lcodec.h"

#include <lauxlib.h>
#include <openssl/evp.h>
#include <string.h>

size_t lcodec_b64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

size_t lcodec_b64(char *out, const unsigned char *s, size_t n)
{
    size_t len = 0;

    /* EVP_EncodeBlock takes an int: in chunks of a multiple of 3 bytes. */
    while (n > 0) {
        size_t chunk = n > 3u * (1u << 20) ? 3u * (1u << 20) : n;
        len += (size_t)EVP_EncodeBlock((unsigned char *)out + len, s, (int)chunk);
        s += chunk;
        n -= chunk;
    }
    out[len] = '\0';
    return len;
}

static int lcodec_is_b64(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

long lcodec_unb64(unsigned char *out, const char *s, size_t n)
{
    size_t a = 0, b = n, pad = 0, len = 0;
    unsigned char quad[4];
    size_t q = 0;

    while (a < b && strchr(" \t\r\n", s[a]) != NULL && s[a] != '\0')
        a++;
    while (b > a && strchr(" \t\r\n", s[b - 1]) != NULL && s[b - 1] != '\0')
        b--;
    while (b > a && s[b - 1] == '=' && pad < 2) {
        b--;
        pad++;
    }
    for (size_t i = a; i < b; i++)
        if (!lcodec_is_b64((unsigned char)s[i]))
            return -1;
    if ((b - a) % 4 == 1 || (pad > 0 && (b - a + pad) % 4 != 0))
        return -1;
    /* Four characters at a time, the last group padded here. */
    for (size_t i = a; i < b; i += 4) {
        size_t k = b - i < 4 ? b - i : 4;
        int r;
        memcpy(quad, s + i, k);
        for (q = k; q < 4; q++)
            quad[q] = '=';
        r = EVP_DecodeBlock(out + len, quad, 4);
        if (r < 0)
            return -1;
        len += k == 4 ? 3 : k - 1;
    }
    return (long)len;
}

static int l_base64(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, lcodec_b64_len(n) + 1);

    luaL_pushresultsize(&b, lcodec_b64(out, (const unsigned char *)s, n));
    return 1;
}

static int l_base64_decode(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    unsigned char *out = (unsigned char *)luaL_buffinitsize(L, &b, n + 3);
    long len = lcodec_unb64(out, s, n);

    if (len < 0)
        return luaL_error(L, "quern.base64_decode: not base64");
    luaL_pushresultsize(&b, (size_t)len);
    return 1;
}

static int l_url_encode(lua_State *L)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, n * 3);
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            out[len++] = (char)c;
        } else {
            out[len++] = '%';
            out[len++] = hex[c >> 4];
            out[len++] = hex[c & 15];
        }
    }
    luaL_pushresultsize(&b, len);
    return 1;
}

static int lcodec_hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int l_url_decode(lua_State *L)
{
    size_t n;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, n + 1);
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        int hi = -1, lo = -1;
        if (s[i] == '%' && i + 2 < n) {
            hi = lcodec_hexval(s[i + 1]);
            lo = lcodec_hexval(s[i + 2]);
        }
        if (hi >= 0 && lo >= 0) {
            out[len++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[len++] = (char)s[i]; /* a lone % stays as it is */
        }
    }
    luaL_pushresultsize(&b, len);
    return 1;
}

void lcodec_register(lua_State *L, int idx)
{
    static const luaL_Reg fns[] = {{"base64", l_base64},
                                   {"base64_decode", l_base64_decode},
                                   {"url_encode", l_url_encode},
                                   {"url_decode", l_url_decode},
                                   {NULL, NULL}};

    idx = lua_absindex(L, idx);
    for (const luaL_Reg *f = fns; f->name != NULL; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, idx, f->name);
    }
}

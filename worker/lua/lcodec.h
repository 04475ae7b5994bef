/* lcodec — the encodings of the quern module: quern.base64(s),
 * quern.base64_decode(s), quern.url_encode(s) and quern.url_decode(s).
 *
 * What it is for: scripts build headers (a Basic credential by hand, a
 * token), query strings and form values; these helpers spare them a Lua
 * implementation. Base64 is RFC 4648's standard alphabet with padding
 * (OpenSSL's EVP_EncodeBlock); decoding accepts missing padding and
 * surrounding white space, and raises "not base64" on anything else.
 * url_encode percent-encodes every byte but RFC 3986's unreserved
 * characters (A-Z a-z 0-9 - . _ ~), a space as %20 (a form's `+` is
 * lhttp.c's business); url_decode turns %XX back into bytes (a `+` stays a
 * `+`). All four work on any bytes, and at load time too.
 *
 * Use: lcodec_register(L, idx) sets the four functions into the module
 * table at idx (lquern.h). Internal to worker/. */
#ifndef QUERN_LCODEC_H
#define QUERN_LCODEC_H

#include <lua.h>
#include <stddef.h>

/** Sets base64, base64_decode, url_encode and url_decode into the table at
 *  idx. */
void lcodec_register(lua_State *L, int idx);

/** Writes the base64 of the n bytes of s into out (room for
 *  lcodec_b64_len(n) + 1 bytes, NUL-terminated); returns its length. */
size_t lcodec_b64(char *out, const unsigned char *s, size_t n);
/** Bytes of the base64 of n bytes. */
size_t lcodec_b64_len(size_t n);
/** Decodes the base64 text s (n bytes) into out (room for n bytes); returns
 *  the decoded length, or -1 when s is not base64. */
long lcodec_unb64(unsigned char *out, const char *s, size_t n);

#endif

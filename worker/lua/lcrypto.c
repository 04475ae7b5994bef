#include "worker/lua/lcrypto.h"

#include <lauxlib.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <limits.h>
#include <string.h>

#include "worker/lua/lcodec.h"

enum alg { ALG_MD5, ALG_SHA1, ALG_SHA256, ALG_SHA384, ALG_SHA512, ALG_N };

/* The script's names (hmac's first argument too) and OpenSSL's. */
static const char *const alg_lua[] = {"md5", "sha1", "sha256", "sha384", "sha512", NULL};
static const char *const alg_ossl[] = {"MD5", "SHA1", "SHA2-256", "SHA2-384", "SHA2-512"};

enum enc { ENC_HEX, ENC_BASE64, ENC_BASE64URL, ENC_BASE64RAWURL, ENC_BINARY };
static const char *const enc_names[] = {"hex",          "base64", "base64url",
                                        "base64rawurl", "binary", NULL};

/* One per Lua state, the upvalue of the digests and hmac. */
typedef struct lcrypto {
    EVP_MD *md[ALG_N];        /**< owned: fetched on first use */
    EVP_MD_CTX *dctx[ALG_N];  /**< owned: set up with md once, reinitialised per call */
    EVP_MAC *mac;             /**< owned: HMAC, fetched on first use */
    EVP_MAC_CTX *hctx[ALG_N]; /**< owned: HMAC with md's name set once */
} lcrypto;

static int state_gc(lua_State *L)
{
    lcrypto *c = lua_touserdata(L, 1);

    for (int a = 0; a < ALG_N; a++) {
        EVP_MD_CTX_free(c->dctx[a]);
        EVP_MAC_CTX_free(c->hctx[a]);
        EVP_MD_free(c->md[a]);
        c->dctx[a] = NULL;
        c->hctx[a] = NULL;
        c->md[a] = NULL;
    }
    EVP_MAC_free(c->mac);
    c->mac = NULL;
    return 0;
}

/* Pushes the n bytes p in encoding enc. */
static void push_encoded(lua_State *L, const unsigned char *p, size_t n, enum enc enc)
{
    static const char hexd[] = "0123456789abcdef";
    luaL_Buffer b;
    char *out;
    size_t len;

    if (enc == ENC_BINARY) {
        lua_pushlstring(L, (const char *)p, n);
        return;
    }
    if (enc == ENC_HEX) {
        out = luaL_buffinitsize(L, &b, 2 * n);
        for (size_t i = 0; i < n; i++) {
            out[2 * i] = hexd[p[i] >> 4];
            out[2 * i + 1] = hexd[p[i] & 15];
        }
        luaL_pushresultsize(&b, 2 * n);
        return;
    }
    out = luaL_buffinitsize(L, &b, lcodec_b64_len(n) + 1);
    len = lcodec_b64(out, p, n);
    if (enc != ENC_BASE64) {
        for (size_t i = 0; i < len; i++)
            out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
        while (enc == ENC_BASE64RAWURL && len > 0 && out[len - 1] == '=')
            len--;
    }
    luaL_pushresultsize(&b, len);
}

static EVP_MD *fetch_md(lua_State *L, lcrypto *c, enum alg a)
{
    if (c->md[a] == NULL)
        c->md[a] = EVP_MD_fetch(NULL, alg_ossl[a], NULL);
    if (c->md[a] == NULL)
        luaL_error(L, "quern.crypto: %s is not available in this OpenSSL", alg_lua[a]);
    return c->md[a];
}

/* The digest context of a, made the first time. */
static EVP_MD_CTX *digest_ctx(lua_State *L, lcrypto *c, enum alg a)
{
    EVP_MD_CTX *ctx;

    if (c->dctx[a] != NULL)
        return c->dctx[a];
    fetch_md(L, c, a);
    ctx = EVP_MD_CTX_new();
    if (ctx == NULL || !EVP_DigestInit_ex2(ctx, c->md[a], NULL)) {
        EVP_MD_CTX_free(ctx);
        luaL_error(L, "quern.crypto.%s: cannot set up the digest", alg_lua[a]);
    }
    c->dctx[a] = ctx;
    return ctx;
}

/* The HMAC context of a, its digest set once, made the first time. */
static EVP_MAC_CTX *hmac_ctx(lua_State *L, lcrypto *c, enum alg a)
{
    OSSL_PARAM params[2];
    EVP_MAC_CTX *ctx;

    if (c->hctx[a] != NULL)
        return c->hctx[a];
    if (c->mac == NULL)
        c->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (c->mac == NULL)
        luaL_error(L, "quern.crypto.hmac: HMAC is not available in this OpenSSL");
    fetch_md(L, c, a); /* the same error as the digest's when the provider lacks it */
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)alg_ossl[a], 0);
    params[1] = OSSL_PARAM_construct_end();
    ctx = EVP_MAC_CTX_new(c->mac);
    if (ctx == NULL || !EVP_MAC_CTX_set_params(ctx, params)) {
        EVP_MAC_CTX_free(ctx);
        luaL_error(L, "quern.crypto.hmac: cannot set up HMAC-%s", alg_lua[a]);
    }
    c->hctx[a] = ctx;
    return ctx;
}

/* quern.crypto.sha256(s [, enc]) and its kin: upvalue 2 is the algorithm. */
static int l_digest(lua_State *L)
{
    lcrypto *c = lua_touserdata(L, lua_upvalueindex(1));
    enum alg a = (enum alg)lua_tointeger(L, lua_upvalueindex(2));
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    enum enc enc = (enum enc)luaL_checkoption(L, 2, "hex", enc_names);
    EVP_MD_CTX *ctx = digest_ctx(L, c, a);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;

    /* NULL: the context's own digest, set up once */
    if (!EVP_DigestInit_ex2(ctx, NULL, NULL) || !EVP_DigestUpdate(ctx, s, n) ||
        !EVP_DigestFinal_ex(ctx, md, &len))
        return luaL_error(L, "quern.crypto.%s: digest failed", alg_lua[a]);
    push_encoded(L, md, len, enc);
    return 1;
}

/* quern.crypto.hmac(alg, key, s [, enc]) */
static int l_hmac(lua_State *L)
{
    lcrypto *c = lua_touserdata(L, lua_upvalueindex(1));
    enum alg a = (enum alg)luaL_checkoption(L, 1, NULL, alg_lua);
    size_t klen, n, len = 0;
    const char *key = luaL_checklstring(L, 2, &klen);
    const char *s = luaL_checklstring(L, 3, &n);
    enum enc enc = (enum enc)luaL_checkoption(L, 4, "hex", enc_names);
    EVP_MAC_CTX *ctx = hmac_ctx(L, c, a);
    unsigned char mac[EVP_MAX_MD_SIZE];

    /* key is never NULL (an empty key too): NULL would keep the last one */
    if (!EVP_MAC_init(ctx, (const unsigned char *)key, klen, NULL) ||
        !EVP_MAC_update(ctx, (const unsigned char *)s, n) ||
        !EVP_MAC_final(ctx, mac, &len, sizeof(mac)))
        return luaL_error(L, "quern.crypto.hmac: HMAC-%s failed", alg_lua[a]);
    push_encoded(L, mac, len, enc);
    return 1;
}

/* quern.crypto.pbkdf2(alg, password, salt, iterations, len [, enc]): PBKDF2
 * with HMAC-alg (RFC 8018), as SCRAM (RFC 5802) derives its salted password.
 * The work runs on the loop: iterations is bounded so that one call cannot
 * hold every VU of the worker for long. */
static int l_pbkdf2(lua_State *L)
{
    lcrypto *c = lua_touserdata(L, lua_upvalueindex(1));
    enum alg a = (enum alg)luaL_checkoption(L, 1, NULL, alg_lua);
    size_t plen, slen;
    const char *pass = luaL_checklstring(L, 2, &plen);
    const char *salt = luaL_checklstring(L, 3, &slen);
    lua_Integer iter = luaL_checkinteger(L, 4);
    lua_Integer len = luaL_checkinteger(L, 5);
    enum enc enc = (enum enc)luaL_checkoption(L, 6, "hex", enc_names);
    unsigned char out[LCRYPTO_PBKDF2_LEN_MAX];

    if (iter < 1 || iter > LCRYPTO_PBKDF2_ITER_MAX)
        return luaL_error(L, "quern.crypto.pbkdf2: iterations must be 1 to %d",
                          LCRYPTO_PBKDF2_ITER_MAX);
    if (len < 1 || len > LCRYPTO_PBKDF2_LEN_MAX)
        return luaL_error(L, "quern.crypto.pbkdf2: len must be 1 to %d", LCRYPTO_PBKDF2_LEN_MAX);
    /* plen and slen fit an int: a Lua string is below 2^31 here in practice, checked anyway */
    if (plen > INT_MAX || slen > INT_MAX)
        return luaL_error(L, "quern.crypto.pbkdf2: password or salt too long");
    if (PKCS5_PBKDF2_HMAC(pass, (int)plen, (const unsigned char *)salt, (int)slen, (int)iter,
                          fetch_md(L, c, a), (int)len, out) != 1)
        return luaL_error(L, "quern.crypto.pbkdf2: PBKDF2-HMAC-%s failed", alg_lua[a]);
    push_encoded(L, out, (size_t)len, enc);
    return 1;
}

/* quern.crypto.random_bytes(n [, enc]) */
static int l_random_bytes(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1);
    enum enc enc = (enum enc)luaL_checkoption(L, 2, "binary", enc_names);
    unsigned char *p;

    if (n < 0 || n > LCRYPTO_RANDOM_MAX)
        return luaL_error(L, "quern.crypto.random_bytes: n must be 0 to %d", LCRYPTO_RANDOM_MAX);
    p = lua_newuserdatauv(L, n > 0 ? (size_t)n : 1, 0);
    if (n > 0 && RAND_bytes(p, (int)n) != 1)
        return luaL_error(L, "quern.crypto.random_bytes: no randomness from the system");
    push_encoded(L, p, (size_t)n, enc);
    return 1;
}

int lcrypto_uuid(char out[37])
{
    static const char hexd[] = "0123456789abcdef";
    unsigned char b[16];
    size_t o = 0;

    if (RAND_bytes(b, sizeof(b)) != 1)
        return -1;
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* variant 10 (RFC 9562) */
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hexd[b[i] >> 4];
        out[o++] = hexd[b[i] & 15];
    }
    out[o] = '\0';
    return 0;
}

static int l_uuid(lua_State *L)
{
    char u[37];

    if (lcrypto_uuid(u) != 0)
        return luaL_error(L, "quern.crypto.uuid: no randomness from the system");
    lua_pushlstring(L, u, 36);
    return 1;
}

void lcrypto_register(lua_State *L, int idx)
{
    lcrypto *c;

    idx = lua_absindex(L, idx);
    lua_createtable(L, 0, ALG_N + 4);
    c = lua_newuserdatauv(L, sizeof(*c), 0);
    memset(c, 0, sizeof(*c));
    if (luaL_newmetatable(L, "quern.crypto.state")) {
        lua_pushcfunction(L, state_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    for (int a = 0; a < ALG_N; a++) {
        lua_pushvalue(L, -1);
        lua_pushinteger(L, a);
        lua_pushcclosure(L, l_digest, 2);
        lua_setfield(L, -3, alg_lua[a]);
    }
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, l_hmac, 1);
    lua_setfield(L, -3, "hmac");
    lua_pushcclosure(L, l_pbkdf2, 1); /* over the state: the last reference on the stack */
    lua_setfield(L, -2, "pbkdf2");
    lua_pushcfunction(L, l_random_bytes);
    lua_setfield(L, -2, "random_bytes");
    lua_pushcfunction(L, l_uuid);
    lua_setfield(L, -2, "uuid");
    lua_setfield(L, idx, "crypto");
}

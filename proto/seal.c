#include "proto/seal.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "common/mem.h"
#include "proto/auth.h"

#define SEAL_SALT "quern-seal-v1"
#define SEAL_IV_LEN 12
/* Longest direction label accepted. */
#define SEAL_DIR_MAX 32

struct seal {
    EVP_CIPHER_CTX *ctx; /**< owned: keyed once, a new nonce per frame */
    uint64_t counter;    /**< frames sealed or opened so far */
    int failed;          /**< an open failed: every later one fails too */
};

int seal_derive_key(const char *token, size_t token_len, const seal_hs *hs, const char *dir,
                    uint8_t key[SEAL_KEY_LEN])
{
    uint8_t info[SEAL_DIR_MAX + 1 + 2 * AUTH_NONCE_LEN + 2 * KEYEXCHANGE_LEN];
    uint8_t ikm[AUTH_TOKEN_MAX + KEYEXCHANGE_LEN];
    size_t dlen = dir != NULL ? strlen(dir) : 0, ilen;
    size_t keylen = SEAL_KEY_LEN;
    EVP_PKEY_CTX *pc = NULL;
    int rc = -1;

    if (token == NULL || token_len == 0 || token_len > AUTH_TOKEN_MAX || dlen == 0 ||
        dlen > SEAL_DIR_MAX)
        goto out;
    memcpy(ikm, token, token_len);
    memcpy(ikm + token_len, hs->secret, KEYEXCHANGE_LEN);
    memcpy(info, dir, dlen + 1); /* the NUL ends the label */
    ilen = dlen + 1;
    memcpy(info + ilen, hs->agent_nonce, AUTH_NONCE_LEN);
    ilen += AUTH_NONCE_LEN;
    memcpy(info + ilen, hs->console_nonce, AUTH_NONCE_LEN);
    ilen += AUTH_NONCE_LEN;
    memcpy(info + ilen, hs->agent_kx, KEYEXCHANGE_LEN);
    ilen += KEYEXCHANGE_LEN;
    memcpy(info + ilen, hs->console_kx, KEYEXCHANGE_LEN);
    ilen += KEYEXCHANGE_LEN;
    pc = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    if (pc == NULL || EVP_PKEY_derive_init(pc) <= 0 ||
        EVP_PKEY_CTX_set_hkdf_md(pc, EVP_sha256()) <= 0 ||
        EVP_PKEY_CTX_set1_hkdf_salt(pc, (const unsigned char *)SEAL_SALT,
                                    (int)sizeof(SEAL_SALT) - 1) <= 0 ||
        EVP_PKEY_CTX_set1_hkdf_key(pc, ikm, (int)(token_len + KEYEXCHANGE_LEN)) <= 0 ||
        EVP_PKEY_CTX_add1_hkdf_info(pc, info, (int)ilen) <= 0 ||
        EVP_PKEY_derive(pc, key, &keylen) <= 0 || keylen != SEAL_KEY_LEN)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        OPENSSL_cleanse(key, SEAL_KEY_LEN);
    OPENSSL_cleanse(info, sizeof(info));
    OPENSSL_cleanse(ikm, sizeof(ikm));
    EVP_PKEY_CTX_free(pc);
    return rc;
}

int seal_derive_keys(const char *token, size_t token_len, const seal_hs *hs,
                     uint8_t to_console[SEAL_KEY_LEN], uint8_t to_agent[SEAL_KEY_LEN])
{
    if (seal_derive_key(token, token_len, hs, SEAL_DIR_TO_CONSOLE, to_console) == 0 &&
        seal_derive_key(token, token_len, hs, SEAL_DIR_TO_AGENT, to_agent) == 0)
        return 0;
    OPENSSL_cleanse(to_console, SEAL_KEY_LEN);
    OPENSSL_cleanse(to_agent, SEAL_KEY_LEN);
    return -1;
}

seal *seal_new(const uint8_t key[SEAL_KEY_LEN])
{
    seal *s = xcalloc(1, sizeof(*s));

    s->ctx = EVP_CIPHER_CTX_new();
    /* The context is keyed here, for both uses: a seal only ever seals or
     * only ever opens, and EVP_CipherInit_ex picks the way per frame. */
    if (s->ctx == NULL ||
        EVP_CipherInit_ex(s->ctx, EVP_chacha20_poly1305(), NULL, key, NULL, 1) != 1) {
        seal_free(s);
        return NULL;
    }
    return s;
}

void seal_free(seal *s)
{
    if (s == NULL)
        return;
    EVP_CIPHER_CTX_free(s->ctx); /* wipes the key schedule */
    OPENSSL_cleanse(s, sizeof(*s));
    xfree(s);
}

static void make_iv(uint64_t counter, uint8_t iv[SEAL_IV_LEN])
{
    memset(iv, 0, 4);
    for (int i = 0; i < 8; i++)
        iv[4 + i] = (uint8_t)(counter >> (56 - 8 * i));
}

/* One frame through the context, either way; returns 1 if all went well
 * (and, when opening, the tag matched). */
static int seal_crypt(seal *s, int enc, const uint8_t hdr[4], uint8_t *body, size_t len,
                      uint8_t *tag)
{
    uint8_t iv[SEAL_IV_LEN];
    int n = 0;

    if (len > INT_MAX || s->counter == UINT64_MAX)
        return 0;
    make_iv(s->counter, iv);
    if (EVP_CipherInit_ex(s->ctx, NULL, NULL, NULL, iv, enc) != 1)
        return 0;
    if (!enc && EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_SET_TAG, SEAL_TAG_LEN, tag) != 1)
        return 0;
    if (EVP_CipherUpdate(s->ctx, NULL, &n, hdr, 4) != 1)
        return 0;
    if (len > 0 && EVP_CipherUpdate(s->ctx, body, &n, body, (int)len) != 1)
        return 0;
    if (EVP_CipherFinal_ex(s->ctx, body + len, &n) != 1)
        return 0;
    if (enc && EVP_CIPHER_CTX_ctrl(s->ctx, EVP_CTRL_AEAD_GET_TAG, SEAL_TAG_LEN, tag) != 1)
        return 0;
    return 1;
}

int seal_frame(seal *s, const uint8_t hdr[4], uint8_t *body, size_t len, uint8_t tag[SEAL_TAG_LEN])
{
    if (!seal_crypt(s, 1, hdr, body, len, tag))
        return -1;
    s->counter++;
    return 0;
}

int seal_open(seal *s, const uint8_t hdr[4], uint8_t *body, size_t len,
              const uint8_t tag[SEAL_TAG_LEN])
{
    uint8_t t[SEAL_TAG_LEN];

    if (s->failed)
        return -1;
    memcpy(t, tag, SEAL_TAG_LEN);
    if (!seal_crypt(s, 0, hdr, body, len, t)) {
        s->failed = 1;
        return -1;
    }
    s->counter++;
    return 0;
}

uint64_t seal_count(const seal *s)
{
    return s->counter;
}

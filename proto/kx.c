#include "proto/kx.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

int kx_keypair(uint8_t priv[KX_LEN], uint8_t pub[KX_LEN])
{
    EVP_PKEY *k = NULL;
    size_t len = KX_LEN;
    int rc = -1;

    if (RAND_bytes(priv, KX_LEN) != 1)
        goto out;
    k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, KX_LEN);
    if (k == NULL || EVP_PKEY_get_raw_public_key(k, pub, &len) != 1 || len != KX_LEN)
        goto out;
    rc = 0;
out:
    if (rc != 0) {
        OPENSSL_cleanse(priv, KX_LEN);
        memset(pub, 0, KX_LEN);
    }
    EVP_PKEY_free(k);
    return rc;
}

int kx_shared(const uint8_t priv[KX_LEN], const uint8_t peer_pub[KX_LEN], uint8_t secret[KX_LEN])
{
    static const uint8_t zero[KX_LEN];
    EVP_PKEY *mine = NULL, *theirs = NULL;
    EVP_PKEY_CTX *pc = NULL;
    size_t len = KX_LEN;
    int rc = -1;

    mine = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, KX_LEN);
    theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, peer_pub, KX_LEN);
    if (mine == NULL || theirs == NULL)
        goto out;
    pc = EVP_PKEY_CTX_new(mine, NULL);
    if (pc == NULL || EVP_PKEY_derive_init(pc) != 1 || EVP_PKEY_derive_set_peer(pc, theirs) != 1 ||
        EVP_PKEY_derive(pc, secret, &len) != 1 || len != KX_LEN)
        goto out;
    if (CRYPTO_memcmp(secret, zero, KX_LEN) == 0)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        OPENSSL_cleanse(secret, KX_LEN);
    EVP_PKEY_CTX_free(pc);
    EVP_PKEY_free(mine);
    EVP_PKEY_free(theirs);
    return rc;
}

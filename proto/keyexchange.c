#include "proto/keyexchange.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

int keyexchange_keypair(uint8_t priv[KEYEXCHANGE_LEN], uint8_t pub[KEYEXCHANGE_LEN])
{
    EVP_PKEY *k = NULL;
    size_t len = KEYEXCHANGE_LEN;
    int rc = -1;

    if (RAND_bytes(priv, KEYEXCHANGE_LEN) != 1)
        goto out;
    k = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, KEYEXCHANGE_LEN);
    if (k == NULL || EVP_PKEY_get_raw_public_key(k, pub, &len) != 1 || len != KEYEXCHANGE_LEN)
        goto out;
    rc = 0;
out:
    if (rc != 0) {
        OPENSSL_cleanse(priv, KEYEXCHANGE_LEN);
        memset(pub, 0, KEYEXCHANGE_LEN);
    }
    EVP_PKEY_free(k);
    return rc;
}

int keyexchange_shared(const uint8_t priv[KEYEXCHANGE_LEN], const uint8_t peer_pub[KEYEXCHANGE_LEN],
                       uint8_t secret[KEYEXCHANGE_LEN])
{
    static const uint8_t zero[KEYEXCHANGE_LEN];
    EVP_PKEY *mine = NULL, *theirs = NULL;
    EVP_PKEY_CTX *pc = NULL;
    size_t len = KEYEXCHANGE_LEN;
    int rc = -1;

    mine = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, KEYEXCHANGE_LEN);
    theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, peer_pub, KEYEXCHANGE_LEN);
    if (mine == NULL || theirs == NULL)
        goto out;
    pc = EVP_PKEY_CTX_new(mine, NULL);
    if (pc == NULL || EVP_PKEY_derive_init(pc) != 1 || EVP_PKEY_derive_set_peer(pc, theirs) != 1 ||
        EVP_PKEY_derive(pc, secret, &len) != 1 || len != KEYEXCHANGE_LEN)
        goto out;
    if (CRYPTO_memcmp(secret, zero, KEYEXCHANGE_LEN) == 0)
        goto out;
    rc = 0;
out:
    if (rc != 0)
        OPENSSL_cleanse(secret, KEYEXCHANGE_LEN);
    EVP_PKEY_CTX_free(pc);
    EVP_PKEY_free(mine);
    EVP_PKEY_free(theirs);
    return rc;
}

#include "proto/auth.h"
#include "common/err.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "common/mem.h"

/* Longest role name accepted in a label. */
#define ROLE_MAX 32
/* Bytes read from a token file at most: the token plus room for trailing
 * whitespace. */
#define TOKEN_FILE_MAX (AUTH_TOKEN_MAX + 1024)

/* Writes a message into the caller's err buffer, if it gave one. */
int auth_nonce(uint8_t out[AUTH_NONCE_LEN])
{
    return RAND_bytes(out, AUTH_NONCE_LEN) == 1 ? 0 : -1;
}

int auth_proof(const char *token, size_t token_len, const char *role,
               const uint8_t peer_nonce[AUTH_NONCE_LEN], const uint8_t own_nonce[AUTH_NONCE_LEN],
               uint8_t mac[AUTH_MAC_LEN])
{
    /* "quern-" role "-v1" NUL, then the two nonces. */
    uint8_t msg[sizeof("quern--v1") + ROLE_MAX + 2 * AUTH_NONCE_LEN];
    unsigned int mac_len = 0;
    size_t label_len;
    int n;
    int rc = -1;

    if (token == NULL || token_len == 0 || role == NULL || strlen(role) > ROLE_MAX ||
        token_len > INT32_MAX)
        goto out;
    n = snprintf((char *)msg, sizeof(msg), "quern-%s-v1", role);
    if (n < 0)
        goto out;
    label_len = (size_t)n + 1; /* the NUL ends the label unambiguously */
    memcpy(msg + label_len, peer_nonce, AUTH_NONCE_LEN);
    memcpy(msg + label_len + AUTH_NONCE_LEN, own_nonce, AUTH_NONCE_LEN);
    if (HMAC(EVP_sha256(), token, (int)token_len, msg, label_len + 2 * AUTH_NONCE_LEN, mac,
             &mac_len) == NULL ||
        mac_len != AUTH_MAC_LEN)
        goto out;
    rc = 0;
out:
    if (rc != 0 && RAND_bytes(mac, AUTH_MAC_LEN) != 1)
        memset(mac, 0, AUTH_MAC_LEN);
    OPENSSL_cleanse(msg, sizeof(msg));
    return rc;
}

int auth_verify(const char *token, size_t token_len, const char *role,
                const uint8_t peer_nonce[AUTH_NONCE_LEN], const uint8_t own_nonce[AUTH_NONCE_LEN],
                const uint8_t *mac, size_t mac_len)
{
    uint8_t expected[AUTH_MAC_LEN];
    int ok = 0;

    if (mac == NULL || mac_len != AUTH_MAC_LEN)
        goto out;
    /* A peer that echoes our own nonce back is not taking part honestly. */
    if (memcmp(peer_nonce, own_nonce, AUTH_NONCE_LEN) == 0)
        goto out;
    if (auth_proof(token, token_len, role, peer_nonce, own_nonce, expected) != 0)
        goto out;
    ok = CRYPTO_memcmp(expected, mac, AUTH_MAC_LEN) == 0;
out:
    OPENSSL_cleanse(expected, sizeof(expected));
    return ok;
}

int auth_read_token_file(const char *path, char **out, size_t *out_len, char *err, size_t errlen)
{
    struct stat st;
    char *buf = NULL;
    size_t len = 0;
    int fd = -1;
    int rc = -1;

    *out = NULL;
    *out_len = 0;
    /* O_NONBLOCK: a FIFO given by mistake must not hang us in open(). */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        err_set(err, errlen, "cannot open token file %s: %s", path, strerror(errno));
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        err_set(err, errlen, "cannot stat token file %s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        err_set(err, errlen, "token file %s is not a regular file", path);
        goto out;
    }
    if ((st.st_mode & 077) != 0) {
        err_set(err, errlen,
                "token file %s can be read or written by group or others (mode %04o); "
                "run: chmod 600 %s",
                path, (unsigned)(st.st_mode & 07777), path);
        goto out;
    }
    buf = xmalloc(TOKEN_FILE_MAX + 1);
    while (len <= TOKEN_FILE_MAX) {
        ssize_t n = read(fd, buf + len, TOKEN_FILE_MAX + 1 - len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err_set(err, errlen, "cannot read token file %s: %s", path, strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (len > TOKEN_FILE_MAX) {
        err_set(err, errlen, "token file %s is too large (a token is at most %d bytes)", path,
                AUTH_TOKEN_MAX);
        goto out;
    }
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        len--;
    if (len == 0) {
        err_set(err, errlen, "token file %s is empty", path);
        goto out;
    }
    if (len < AUTH_TOKEN_MIN) {
        err_set(err, errlen,
                "token in %s is %zu bytes, fewer than the minimum of %d "
                "(make one with: openssl rand -hex 32 >%s)",
                path, len, AUTH_TOKEN_MIN, path);
        goto out;
    }
    if (len > AUTH_TOKEN_MAX) {
        err_set(err, errlen, "token in %s is %zu bytes, more than the maximum of %d", path, len,
                AUTH_TOKEN_MAX);
        goto out;
    }
    if (memchr(buf, '\0', len) != NULL) {
        err_set(err, errlen, "token file %s contains a NUL byte", path);
        goto out;
    }
    *out = xmalloc(len + 1);
    memcpy(*out, buf, len);
    (*out)[len] = '\0';
    *out_len = len;
    rc = 0;
out:
    if (buf != NULL) {
        OPENSSL_cleanse(buf, TOKEN_FILE_MAX + 1);
        xfree(buf);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

void auth_token_free(char *token, size_t len)
{
    if (token == NULL)
        return;
    OPENSSL_cleanse(token, len);
    xfree(token);
}

/* Unit tests for proto/auth: challenge–response proofs and token files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "proto/auth.h"

static const char TOKEN[] = "s3cret-token-for-tests";
#define TOKEN_LEN (sizeof(TOKEN) - 1)
/* HMAC-SHA256("key", "quern-agent-v1" NUL, 32 x 0x01, 32 x 0x02), see test_known_answer. */
#define KNOWN_ANSWER "4a6d6dd882f29e9f4d2f4581af434a9b8405a213a50a091e76630738c173b376"

/* ---------------------------------------------------------------- proofs */

static void test_nonce(void **state)
{
    uint8_t a[AUTH_NONCE_LEN], b[AUTH_NONCE_LEN], zero[AUTH_NONCE_LEN] = {0};

    assert_int_equal(auth_nonce(a), 0);
    assert_int_equal(auth_nonce(b), 0);
    assert_memory_not_equal(a, b, AUTH_NONCE_LEN);
    assert_memory_not_equal(a, zero, AUTH_NONCE_LEN);
}

/* The full mutual exchange, as agent and console run it. */
static void test_mutual_exchange(void **state)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN];
    uint8_t agent_mac[AUTH_MAC_LEN], console_mac[AUTH_MAC_LEN];

    assert_int_equal(auth_nonce(na), 0);
    assert_int_equal(auth_nonce(nc), 0);
    /* Agent proves, console checks. */
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "agent", nc, na, agent_mac), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, agent_mac, AUTH_MAC_LEN), 1);
    /* Console proves, agent checks. */
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "console", na, nc, console_mac), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "console", na, nc, console_mac, AUTH_MAC_LEN),
                     1);
    /* The two proofs differ although they cover the same nonces. */
    assert_memory_not_equal(agent_mac, console_mac, AUTH_MAC_LEN);
}

/* A known answer, so the construction cannot change by accident (which would
 * break agents and consoles of different builds). Computed independently with
 * `openssl dgst -sha256 -hmac key` over "quern-agent-v1" NUL, 32 x 0x01, 32 x 0x02. */
static void test_known_answer(void **state)
{
    uint8_t peer[AUTH_NONCE_LEN], own[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];
    char hex[2 * AUTH_MAC_LEN + 1];

    memset(peer, 0x01, sizeof(peer));
    memset(own, 0x02, sizeof(own));
    assert_int_equal(auth_proof("key", 3, "agent", peer, own, mac), 0);
    for (int i = 0; i < AUTH_MAC_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", mac[i]);
    assert_string_equal(hex, KNOWN_ANSWER);
}

static void test_wrong_token(void **state)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];

    assert_int_equal(auth_nonce(na), 0);
    assert_int_equal(auth_nonce(nc), 0);
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "agent", nc, na, mac), 0);
    assert_int_equal(
        auth_verify("s3cret-token-for-tesTs", TOKEN_LEN, "agent", nc, na, mac, AUTH_MAC_LEN), 0);
    /* A prefix of the right token is a different token. */
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN - 1, "agent", nc, na, mac, AUTH_MAC_LEN), 0);
    /* An empty token proves nothing. */
    assert_int_equal(auth_proof("", 0, "agent", nc, na, mac), -1);
    assert_int_equal(auth_verify("", 0, "agent", nc, na, mac, AUTH_MAC_LEN), 0);
}

static void test_reflection_refused(void **state)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];

    assert_int_equal(auth_nonce(na), 0);
    assert_int_equal(auth_nonce(nc), 0);
    /* A fake console that sends back the agent's own proof (or asks the agent
     * to prove over swapped nonces) must not pass as a console. */
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "agent", nc, na, mac), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "console", nc, na, mac, AUTH_MAC_LEN), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "console", na, nc, mac, AUTH_MAC_LEN), 0);
    /* The agent's proof itself is fine. */
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, mac, AUTH_MAC_LEN), 1);
}

static void test_swapped_nonces(void **state)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];

    assert_int_equal(auth_nonce(na), 0);
    assert_int_equal(auth_nonce(nc), 0);
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "agent", nc, na, mac), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", na, nc, mac, AUTH_MAC_LEN), 0);
    /* A fresh console nonce makes an old proof worthless (replay). */
    uint8_t nc2[AUTH_NONCE_LEN];
    assert_int_equal(auth_nonce(nc2), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc2, na, mac, AUTH_MAC_LEN), 0);
    /* A peer echoing our nonce as its own is refused, even with a valid mac. */
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "agent", nc, nc, mac), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, nc, mac, AUTH_MAC_LEN), 0);
}

static void test_bad_mac(void **state)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN + 1];

    assert_int_equal(auth_nonce(na), 0);
    assert_int_equal(auth_nonce(nc), 0);
    assert_int_equal(auth_proof(TOKEN, TOKEN_LEN, "agent", nc, na, mac), 0);
    mac[AUTH_MAC_LEN] = 0;
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, mac, AUTH_MAC_LEN - 1), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, mac, AUTH_MAC_LEN + 1), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, mac, 0), 0);
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, NULL, AUTH_MAC_LEN), 0);
    /* One flipped bit anywhere. */
    for (int i = 0; i < AUTH_MAC_LEN; i++) {
        mac[i] ^= 0x10;
        assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, mac, AUTH_MAC_LEN), 0);
        mac[i] ^= 0x10;
    }
    assert_int_equal(auth_verify(TOKEN, TOKEN_LEN, "agent", nc, na, mac, AUTH_MAC_LEN), 1);
}

/* ---------------------------------------------------------------- token files */

struct tmpdir {
    char dir[64];
    char path[128];
};

static int setup_dir(void **state)
{
    struct tmpdir *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return -1;
    snprintf(t->dir, sizeof(t->dir), "/tmp/quern-test-auth-XXXXXX");
    if (mkdtemp(t->dir) == NULL) {
        free(t);
        return -1;
    }
    snprintf(t->path, sizeof(t->path), "%s/token", t->dir);
    *state = t;
    return 0;
}

static int teardown_dir(void **state)
{
    struct tmpdir *t = *state;

    unlink(t->path);
    rmdir(t->dir);
    free(t);
    return 0;
}

static void write_file(const char *path, const char *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true(fd >= 0);
    assert_int_equal(fchmod(fd, mode), 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

static void test_token_trimmed(void **state)
{
    struct tmpdir *t = *state;
    char err[ERR_MAX] = "";
    char *tok = NULL;
    size_t len = 0;

    write_file(t->path, "abc def 0123456789\n", 19, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), 0);
    assert_string_equal(tok, "abc def 0123456789");
    assert_int_equal(len, 18);
    auth_token_free(tok, len);

    write_file(t->path, "tok-0123456789abcdef \t\r\n\n  ", 27, 0400);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), 0);
    assert_string_equal(tok, "tok-0123456789abcdef");
    assert_int_equal(len, 20);
    auth_token_free(tok, len);
    auth_token_free(NULL, 0);
}

static void test_token_empty(void **state)
{
    struct tmpdir *t = *state;
    char err[ERR_MAX] = "";
    char *tok = (char *)"unchanged";
    size_t len = 99;

    write_file(t->path, "", 0, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_null(tok);
    assert_non_null(strstr(err, "is empty"));
    assert_non_null(strstr(err, t->path));

    err[0] = '\0';
    write_file(t->path, " \n\n", 3, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "is empty"));
}

static void test_token_mode(void **state)
{
    struct tmpdir *t = *state;
    char err[ERR_MAX] = "";
    char *tok = NULL;
    size_t len = 0;

    write_file(t->path, TOKEN, TOKEN_LEN, 0644);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_null(tok);
    assert_non_null(strstr(err, "group or others"));
    assert_non_null(strstr(err, "0644"));
    assert_non_null(strstr(err, "chmod 600"));

    write_file(t->path, TOKEN, TOKEN_LEN, 0620);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    write_file(t->path, TOKEN, TOKEN_LEN, 0604);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);

    write_file(t->path, TOKEN, TOKEN_LEN, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), 0);
    assert_string_equal(tok, TOKEN);
    assert_int_equal(len, TOKEN_LEN);
    auth_token_free(tok, len);
}

static void test_token_size(void **state)
{
    struct tmpdir *t = *state;
    char *big = malloc(AUTH_TOKEN_MAX + 2);
    char err[ERR_MAX] = "";
    char *tok = NULL;
    size_t len = 0;

    assert_non_null(big);
    memset(big, 'k', AUTH_TOKEN_MAX + 1);
    big[AUTH_TOKEN_MAX + 1] = '\n';
    /* Exactly the maximum, plus a newline: fine. */
    big[AUTH_TOKEN_MAX] = '\n';
    write_file(t->path, big, AUTH_TOKEN_MAX + 1, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), 0);
    assert_int_equal(len, AUTH_TOKEN_MAX);
    auth_token_free(tok, len);
    /* One more byte: refused. */
    big[AUTH_TOKEN_MAX] = 'k';
    write_file(t->path, big, AUTH_TOKEN_MAX + 2, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_null(tok);
    assert_non_null(strstr(err, "4097 bytes"));
    free(big);

    /* A NUL inside would silently shorten the token for C string users. */
    write_file(t->path, "ab\0cd-0123456789abcdef\n", 23, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "NUL"));
}

/* 16 bytes at least, counted after the trailing whitespace is trimmed. */
static void test_token_min(void **state)
{
    struct tmpdir *t = *state;
    char err[ERR_MAX] = "";
    char *tok = NULL;
    size_t len = 0;

    assert_int_equal(AUTH_TOKEN_MIN, 16);
    write_file(t->path, "0123456789abcde", 15, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_null(tok);
    assert_non_null(strstr(err, t->path));
    assert_non_null(strstr(err, "15 bytes"));
    assert_non_null(strstr(err, "minimum of 16"));
    write_file(t->path, "0123456789abcde \n\n", 18, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "15 bytes"));
    write_file(t->path, "0123456789abcdef\n", 17, 0600);
    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), 0);
    assert_int_equal(len, 16);
    assert_string_equal(tok, "0123456789abcdef");
    auth_token_free(tok, len);
}

static void test_token_missing(void **state)
{
    struct tmpdir *t = *state;
    char err[ERR_MAX] = "";
    char *tok = NULL;
    size_t len = 0;

    assert_int_equal(auth_read_token_file(t->path, &tok, &len, err, sizeof(err)), -1);
    assert_null(tok);
    assert_non_null(strstr(err, "cannot open token file"));
    assert_non_null(strstr(err, t->path));
    assert_non_null(strstr(err, "No such file or directory"));

    /* A directory is not a token file. */
    assert_int_equal(chmod(t->dir, 0700), 0);
    assert_int_equal(auth_read_token_file(t->dir, &tok, &len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a regular file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonce),
        cmocka_unit_test(test_mutual_exchange),
        cmocka_unit_test(test_known_answer),
        cmocka_unit_test(test_wrong_token),
        cmocka_unit_test(test_reflection_refused),
        cmocka_unit_test(test_swapped_nonces),
        cmocka_unit_test(test_bad_mac),
        cmocka_unit_test_setup_teardown(test_token_trimmed, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_token_empty, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_token_mode, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_token_size, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_token_min, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_token_missing, setup_dir, teardown_dir),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for proto/seal and proto/kx: the key exchange, key derivation
 * and the sealing of one frame (a round trip, a flipped byte, a replay, a
 * reorder, a dropped frame, the wrong key), and sealed frames through
 * frame_reader/frame_writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/seal.h"

static const char TOKEN[] = "a-token-for-the-seal-tests";

typedef struct pair {
    seal *tx, *rx;
} pair;

static void nonces(uint8_t na[AUTH_NONCE_LEN], uint8_t nc[AUTH_NONCE_LEN])
{
    for (int i = 0; i < AUTH_NONCE_LEN; i++) {
        na[i] = (uint8_t)i;
        nc[i] = (uint8_t)(100 + i);
    }
}

/* Fixed public keys and secret: the derivation, not the exchange, is tested
 * here (test_keyexchange below does the exchange). */
static uint8_t KA[KEYEXCHANGE_LEN] = {1}, KC[KEYEXCHANGE_LEN] = {2}, SECRET[KEYEXCHANGE_LEN] = {3};

static int derive(const char *tok, const uint8_t *na, const uint8_t *nc, const char *dir,
                  uint8_t key[SEAL_KEY_LEN])
{
    seal_hs hs = {na, nc, KA, KC, SECRET};

    return seal_derive_key(tok, strlen(tok), &hs, dir, key);
}

static pair make_pair_dir(const char *tok, const char *dir_tx, const char *dir_rx)
{
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], k1[SEAL_KEY_LEN], k2[SEAL_KEY_LEN];
    pair p;

    nonces(na, nc);
    assert_int_equal(derive(TOKEN, na, nc, dir_tx, k1), 0);
    assert_int_equal(derive(tok, na, nc, dir_rx, k2), 0);
    p.tx = seal_new(k1);
    p.rx = seal_new(k2);
    assert_non_null(p.tx);
    assert_non_null(p.rx);
    return p;
}

static void free_pair(pair *p)
{
    seal_free(p->tx);
    seal_free(p->rx);
}

/* A frame: header (length), body, tag. */
typedef struct sframe {
    uint8_t hdr[4];
    uint8_t body[64];
    uint8_t tag[SEAL_TAG_LEN];
    size_t len;
} sframe;

static sframe seal_text(seal *s, const char *text)
{
    sframe f;
    size_t n = strlen(text);

    memset(&f, 0, sizeof(f));
    f.len = n;
    f.hdr[3] = (uint8_t)(n + SEAL_TAG_LEN);
    memcpy(f.body, text, n);
    assert_int_equal(seal_frame(s, f.hdr, f.body, n, f.tag), 0);
    return f;
}

static int open_frame(seal *s, sframe f, char *out)
{
    int rc = seal_open(s, f.hdr, f.body, f.len, f.tag);

    if (rc == 0) {
        memcpy(out, f.body, f.len);
        out[f.len] = '\0';
    }
    return rc;
}

static void test_roundtrip(void **state)
{
    pair p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
    char out[80];

    for (int i = 0; i < 5; i++) {
        char text[32];
        sframe f;
        snprintf(text, sizeof(text), "frame number %d", i);
        f = seal_text(p.tx, text);
        assert_memory_not_equal(f.body, text, strlen(text)); /* encrypted */
        assert_int_equal(open_frame(p.rx, f, out), 0);
        assert_string_equal(out, text);
    }
    assert_int_equal(seal_count(p.tx), 5);
    assert_int_equal(seal_count(p.rx), 5);
    /* An empty body seals too (only the tag). */
    {
        sframe f = seal_text(p.tx, "");
        assert_int_equal(open_frame(p.rx, f, out), 0);
    }
    free_pair(&p);
}

static void test_flipped_byte(void **state)
{
    char out[80];

    /* A bit flipped in the body, in the tag, in the header: each fails. */
    for (int where = 0; where < 3; where++) {
        pair p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
        sframe f = seal_text(p.tx, "StartRun with a bundle");
        if (where == 0)
            f.body[5] ^= 0x01;
        else if (where == 1)
            f.tag[0] ^= 0x80;
        else
            f.hdr[3] ^= 0x01;
        assert_int_equal(open_frame(p.rx, f, out), -1);
        /* Failed for good: even the next genuine frame is refused. */
        f = seal_text(p.tx, "next");
        assert_int_equal(open_frame(p.rx, f, out), -1);
        free_pair(&p);
    }
}

static void test_replay(void **state)
{
    pair p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
    sframe f = seal_text(p.tx, "Go");
    sframe copy = f;
    char out[80];

    assert_int_equal(open_frame(p.rx, f, out), 0);
    assert_int_equal(open_frame(p.rx, copy, out), -1);
    free_pair(&p);
}

static void test_reorder_and_drop(void **state)
{
    char out[80];
    pair p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
    sframe a = seal_text(p.tx, "first");
    sframe b = seal_text(p.tx, "second");

    (void)a;
    assert_int_equal(open_frame(p.rx, b, out), -1); /* b before a: refused */
    free_pair(&p);

    p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
    a = seal_text(p.tx, "first");
    b = seal_text(p.tx, "second");
    {
        sframe c = seal_text(p.tx, "third");
        assert_int_equal(open_frame(p.rx, a, out), 0);
        assert_int_equal(open_frame(p.rx, c, out), -1); /* b dropped */
    }
    free_pair(&p);
}

static void test_wrong_key(void **state)
{
    char out[80];
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], k1[SEAL_KEY_LEN], k2[SEAL_KEY_LEN];
    pair p = make_pair_dir("another-token", SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
    sframe f = seal_text(p.tx, "hello");

    assert_int_equal(open_frame(p.rx, f, out), -1);
    free_pair(&p);
    /* The other direction's key (a reflected frame) does not open it. */
    p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_CONSOLE);
    f = seal_text(p.tx, "hello");
    assert_int_equal(open_frame(p.rx, f, out), -1);
    free_pair(&p);
    /* Other nonces (another connection), other key. */
    nonces(na, nc);
    assert_int_equal(derive(TOKEN, na, nc, SEAL_DIR_TO_AGENT, k1), 0);
    nc[0] ^= 1;
    assert_int_equal(derive(TOKEN, na, nc, SEAL_DIR_TO_AGENT, k2), 0);
    assert_memory_not_equal(k1, k2, SEAL_KEY_LEN);
    /* Nonces swapped, other key. */
    nonces(na, nc);
    assert_int_equal(derive(TOKEN, nc, na, SEAL_DIR_TO_AGENT, k2), 0);
    assert_memory_not_equal(k1, k2, SEAL_KEY_LEN);
    /* Another exchanged secret, or a public key swapped by a relay: other key. */
    SECRET[5] ^= 1;
    assert_int_equal(derive(TOKEN, na, nc, SEAL_DIR_TO_AGENT, k2), 0);
    assert_memory_not_equal(k1, k2, SEAL_KEY_LEN);
    SECRET[5] ^= 1;
    KA[7] ^= 1;
    assert_int_equal(derive(TOKEN, na, nc, SEAL_DIR_TO_AGENT, k2), 0);
    assert_memory_not_equal(k1, k2, SEAL_KEY_LEN);
    KA[7] ^= 1;
    assert_int_equal(derive(TOKEN, na, nc, SEAL_DIR_TO_AGENT, k2), 0);
    assert_memory_equal(k1, k2, SEAL_KEY_LEN);
    /* No token, no key. */
    assert_int_equal(derive("", na, nc, SEAL_DIR_TO_AGENT, k2), -1);
}

/* Sealed frames through a writer and a reader, with the switch in the
 * middle of a stream: plain frames before it, sealed after. */
static void test_frames_switch(void **state)
{
    pair p = make_pair_dir(TOKEN, SEAL_DIR_TO_AGENT, SEAL_DIR_TO_AGENT);
    frame_writer *w = frame_writer_new(1 << 20);
    frame_reader *r = frame_reader_new(64);
    Quern__Envelope env = QUERN__ENVELOPE__INIT, *got;
    Quern__LogLine ll = QUERN__LOG_LINE__INIT;
    char err[ERR_MAX];
    int sv[2];
    uint8_t buf[4096];
    ssize_t n;

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ll.level = (char *)"info";
    ll.text = (char *)"plain before the switch";
    env.body_case = QUERN__ENVELOPE__BODY_LOG_LINE;
    env.log_line = &ll;
    assert_int_equal(frame_writer_push(w, &env, FRAME_MAX_DEFAULT), 0);
    frame_writer_seal(w, p.tx);
    ll.text = (char *)"SECRET-MARKER sealed";
    assert_int_equal(frame_writer_push(w, &env, FRAME_MAX_DEFAULT), 0);
    assert_int_equal(frame_writer_flush(w, sv[0]), 1);
    n = read(sv[1], buf, sizeof(buf));
    assert_true(n > 0);
    assert_null(memmem(buf, (size_t)n, "SECRET-MARKER", 13));
    assert_non_null(memmem(buf, (size_t)n, "plain before", 12));
    /* Both frames arrive in one feed: the second one's header is checked
     * again, as a sealed frame, once the reader has switched. */
    assert_int_equal(frame_reader_feed(r, buf, (size_t)n, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_next(r, &got, err, sizeof(err)), 1);
    assert_string_equal(got->log_line->text, "plain before the switch");
    quern__envelope__free_unpacked(got, NULL);
    assert_int_equal(frame_reader_seal(r, p.rx, 4096, err, sizeof(err)), 0);
    assert_int_equal(frame_reader_next(r, &got, err, sizeof(err)), 1);
    assert_string_equal(got->log_line->text, "SECRET-MARKER sealed");
    quern__envelope__free_unpacked(got, NULL);
    /* A long sealed frame, now under the new limit. */
    {
        char text[2000];
        memset(text, 'x', sizeof(text) - 1);
        text[sizeof(text) - 1] = '\0';
        ll.text = text;
        assert_int_equal(frame_writer_push(w, &env, FRAME_MAX_DEFAULT), 0);
        assert_int_equal(frame_writer_flush(w, sv[0]), 1);
        n = read(sv[1], buf, sizeof(buf));
        assert_int_equal(frame_reader_feed(r, buf, (size_t)n, err, sizeof(err)), 0);
        assert_int_equal(frame_reader_next(r, &got, err, sizeof(err)), 1);
        assert_int_equal(strlen(got->log_line->text), sizeof(text) - 1);
        quern__envelope__free_unpacked(got, NULL);
        ll.text = (char *)"injected";
    }
    /* A plain frame after the switch (an injection) is refused. */
    {
        uint8_t *plain;
        ssize_t len = frame_encode(&env, FRAME_MAX_DEFAULT, &plain);
        assert_true(len > 0);
        assert_int_equal(frame_reader_feed(r, plain, (size_t)len, err, sizeof(err)), 0);
        assert_int_equal(frame_reader_next(r, &got, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "integrity"));
        xfree(plain);
    }
    frame_reader_free(r);
    frame_writer_free(w);
    close(sv[0]);
    close(sv[1]);
    free_pair(&p);
}

/* The exchange: both ends get the same secret, a third party another; a
 * low-order public key (all zeros) is refused. */
static void test_keyexchange(void **state)
{
    uint8_t pa[KEYEXCHANGE_LEN], qa[KEYEXCHANGE_LEN], pc[KEYEXCHANGE_LEN], qc[KEYEXCHANGE_LEN],
        pe[KEYEXCHANGE_LEN], qe[KEYEXCHANGE_LEN];
    uint8_t sa[KEYEXCHANGE_LEN], sc[KEYEXCHANGE_LEN], se[KEYEXCHANGE_LEN],
        zero[KEYEXCHANGE_LEN] = {0};

    assert_int_equal(keyexchange_keypair(pa, qa), 0);
    assert_int_equal(keyexchange_keypair(pc, qc), 0);
    assert_int_equal(keyexchange_keypair(pe, qe), 0);
    assert_memory_not_equal(qa, qc, KEYEXCHANGE_LEN);
    assert_int_equal(keyexchange_shared(pa, qc, sa), 0);
    assert_int_equal(keyexchange_shared(pc, qa, sc), 0);
    assert_memory_equal(sa, sc, KEYEXCHANGE_LEN);
    assert_int_equal(keyexchange_shared(pe, qc, se), 0);
    assert_memory_not_equal(sa, se, KEYEXCHANGE_LEN);
    assert_int_equal(keyexchange_shared(pa, zero, se), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),   cmocka_unit_test(test_flipped_byte),
        cmocka_unit_test(test_replay),      cmocka_unit_test(test_reorder_and_drop),
        cmocka_unit_test(test_wrong_key),   cmocka_unit_test(test_frames_switch),
        cmocka_unit_test(test_keyexchange),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

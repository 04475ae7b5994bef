/* Unit tests for worker/gstream's reading side: a server stream's body cut
 * into messages whatever the reads' sizes (a prefix or a message split
 * across reads, several in one), the queue taken in order, and what ends a
 * stream: a compressed frame without grpc-encoding gzip (with it, one
 * queued flagged), a frame past GRPC_MSG_MAX, the queue's bound.
 * And its sending side: the frames queued handed to libcurl's read callback
 * whole whatever its room, the upload paused when none is queued, ended
 * after the half-close or the server's end, the send queue's bound.
 * The callbacks are static: the test includes the .c (as h2o's t/00unit
 * does) and drives write_cb on a stream with no engine (no step, nobody
 * waiting: neither is reached). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "worker/plugs/gstream.c"

/* A stream as gstream_open leaves it once the headers said 200. */
static void stream_init(gstream *c)
{
    memset(c, 0, sizeof(*c));
    c->step = -1;
    inbox_init(&c->in, NULL, GSTREAM_QUEUE_MAX, GSTREAM_QUEUE_BYTES);
    c->http_status = 200;
    c->state = GSTREAM_OPEN;
}

static void stream_done(gstream *c)
{
    inbox_free(&c->in);
    xfree(c->cur);
    xfree(c->hdr);
    while (c->out != NULL) {
        gstream_out *f = c->out;
        c->out = f->next;
        xfree(f);
    }
}

/* A stream that sends, open. */
static void sender_init(gstream *c)
{
    stream_init(c);
    c->sends = 1;
    c->out_tail = &c->out;
    c->hdr = xmalloc(GSTREAM_HDR_MAX);
}

/* Appends a frame of text to buf at *n. */
static void frame(uint8_t *buf, size_t *n, const char *text)
{
    size_t len = strlen(text);
    grpc_frame_header(buf + *n, (uint32_t)len, 0);
    memcpy(buf + *n + 5, text, len);
    *n += 5 + len;
}

static void expect_msg(gstream *c, const char *text)
{
    gstream_msg *m = gstream_pop(c);
    assert_non_null(m);
    assert_int_equal(m->len, strlen(text));
    assert_memory_equal(m->data, text, m->len);
    xfree(m);
}

static void test_any_cut(void **state)
{
    uint8_t body[64];
    size_t n = 0;

    frame(body, &n, "one");
    frame(body, &n, "");
    frame(body, &n, "three!");
    /* every read size from 1 byte to the whole body at once */
    for (size_t cut = 1; cut <= n; cut++) {
        gstream c;
        stream_init(&c);
        for (size_t at = 0; at < n; at += cut) {
            size_t k = n - at < cut ? n - at : cut;
            assert_int_equal(write_cb((char *)body + at, 1, k, &c), k);
        }
        assert_int_equal(c.received, 3);
        assert_int_equal(c.in.count, 3);
        assert_int_equal(c.in.bytes, 9);
        expect_msg(&c, "one");
        expect_msg(&c, "");
        expect_msg(&c, "three!");
        assert_null(gstream_pop(&c));
        assert_int_equal(c.in.bytes, 0);
        assert_int_equal(c.pre_len, 0);
        assert_null(c.cur);
        stream_done(&c);
    }
}

static void test_partial_then_rest(void **state)
{
    uint8_t body[32];
    size_t n = 0;
    gstream c;

    frame(body, &n, "hello");
    stream_init(&c);
    assert_int_equal(write_cb((char *)body, 1, 7, &c), 7); /* prefix and "he" */
    assert_int_equal(c.in.count, 0);
    assert_non_null(c.cur); /* an end now would be a partial message (final_status) */
    assert_int_equal(write_cb((char *)body + 7, 1, n - 7, &c), n - 7);
    expect_msg(&c, "hello");
    stream_done(&c);
}

static void test_refused(void **state)
{
    uint8_t b[5] = {1, 0, 0, 0, 1};
    gstream c;

    stream_init(&c);
    assert_int_equal(write_cb((char *)b, 1, 5, &c), 0); /* compressed, no grpc-encoding */
    assert_true(c.local);
    assert_int_equal(c.status, GRPC_INTERNAL);
    assert_non_null(strstr(c.err, "flagged 1"));
    stream_done(&c);

    /* compressed under grpc-encoding: gzip: queued as it came, flagged */
    stream_init(&c);
    c.encoding = GRPC_ENC_GZIP;
    b[4] = 1;
    assert_int_equal(write_cb((char *)b, 1, 5, &c), 5);
    assert_int_equal(write_cb("z", 1, 1, &c), 1);
    {
        gstream_msg *m = gstream_pop(&c);
        assert_non_null(m);
        assert_true(m->compressed);
        assert_int_equal(m->len, 1);
        xfree(m);
    }
    b[0] = 2; /* a flag that does not exist */
    assert_int_equal(write_cb((char *)b, 1, 5, &c), 0);
    assert_int_equal(c.status, GRPC_INTERNAL);
    stream_done(&c);

    stream_init(&c);
    grpc_frame_header(b, GRPC_MSG_MAX + 1, 0);
    assert_int_equal(write_cb((char *)b, 1, 5, &c), 0); /* too large */
    assert_int_equal(c.status, GRPC_RESOURCE_EXHAUSTED);
    stream_done(&c);

    /* not a gRPC reply: its body is not read */
    stream_init(&c);
    c.http_status = 404;
    b[0] = 1;
    assert_int_equal(write_cb((char *)b, 1, 5, &c), 5);
    assert_false(c.local);
    stream_done(&c);
}

static void test_queue_bound(void **state)
{
    uint8_t f[6];
    size_t n = 0;
    gstream c;

    frame(f, &n, "x");
    stream_init(&c);
    for (int i = 0; i < GSTREAM_QUEUE_MAX; i++)
        assert_int_equal(write_cb((char *)f, 1, n, &c), n);
    assert_int_equal(c.in.count, GSTREAM_QUEUE_MAX);
    /* one more while the script takes none: the stream ends */
    assert_int_equal(write_cb((char *)f, 1, n, &c), 0);
    assert_int_equal(c.status, GRPC_RESOURCE_EXHAUSTED);
    assert_non_null(strstr(c.err, "waiting for the script"));
    assert_int_equal(c.received, GSTREAM_QUEUE_MAX);
    expect_msg(&c, "x"); /* what was queued can still be read */
    stream_done(&c);
}

static void test_send_any_room(void **state)
{
    const uint8_t pre1[5] = {0, 0, 0, 0, 3}, pre2[5] = {0, 0, 0, 0, 0};
    uint8_t want[13], got[13];
    char err[ERR_MAX];

    memcpy(want, pre1, 5);
    memcpy(want + 5, "abc", 3);
    memcpy(want + 8, pre2, 5);
    /* every room from 1 byte to both frames at once */
    for (size_t room = 1; room <= sizeof(want); room++) {
        gstream c;
        size_t n = 0, k;
        sender_init(&c);
        assert_int_equal(gstream_send(&c, pre1, (const uint8_t *)"abc", 3, err, sizeof(err)), 1);
        assert_int_equal(gstream_send(&c, pre2, NULL, 0, err, sizeof(err)), 1);
        assert_int_equal(c.out_count, 2);
        while ((k = read_cb((char *)got + n, 1, room, &c)) != CURL_READFUNC_PAUSE) {
            assert_true(k > 0 && k <= room);
            n += k;
        }
        assert_int_equal(n, sizeof(want));
        assert_memory_equal(got, want, n);
        assert_int_equal(c.sent, 2);
        assert_int_equal(c.out_count, 0);
        assert_int_equal(c.out_bytes, 0);
        assert_true(c.paused); /* nothing queued: paused until a send */
        stream_done(&c);
    }
}

static void test_send_end(void **state)
{
    const uint8_t pre[5] = {0, 0, 0, 0, 1};
    char buf[16], err[ERR_MAX];
    gstream c;

    /* the half-close: what is queued goes, then the body ends */
    sender_init(&c);
    gstream_send(&c, pre, (const uint8_t *)"x", 1, err, sizeof(err));
    gstream_close_send(&c);
    assert_int_equal(read_cb(buf, 1, sizeof(buf), &c), 6);
    assert_int_equal(read_cb(buf, 1, sizeof(buf), &c), 0);
    stream_done(&c);

    /* the server ended the call: nothing more goes, a send is refused */
    sender_init(&c);
    gstream_send(&c, pre, (const uint8_t *)"x", 1, err, sizeof(err));
    assert_int_equal(header_cb("grpc-status: 3\r\n", 1, 16, &c), 16);
    assert_true(c.server_done);
    assert_int_equal(read_cb(buf, 1, sizeof(buf), &c), 0);
    assert_int_equal(gstream_send(&c, pre, (const uint8_t *)"y", 1, err, sizeof(err)), 0);
    assert_int_equal(c.sent, 0);
    stream_done(&c);
}

static void test_send_bound(void **state)
{
    const uint8_t pre[5] = {0};
    char err[ERR_MAX];
    gstream c;

    sender_init(&c);
    for (int i = 0; i < GSTREAM_SEND_MAX; i++)
        assert_int_equal(gstream_send(&c, pre, NULL, 0, err, sizeof(err)), 1);
    assert_int_equal(gstream_send(&c, pre, NULL, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "waiting to be sent"));
    stream_done(&c);

    /* the bytes' bound: three messages of 4 MiB fit, with a fourth's prefix not */
    sender_init(&c);
    {
        uint8_t *big = xcalloc(1, GRPC_MSG_MAX);
        for (int i = 0; i < 3; i++)
            assert_int_equal(gstream_send(&c, pre, big, GRPC_MSG_MAX, err, sizeof(err)), 1);
        assert_int_equal(gstream_send(&c, pre, big, GRPC_MSG_MAX, err, sizeof(err)), -1);
        xfree(big);
    }
    stream_done(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_cut),       cmocka_unit_test(test_partial_then_rest),
        cmocka_unit_test(test_refused),       cmocka_unit_test(test_queue_bound),
        cmocka_unit_test(test_send_any_room), cmocka_unit_test(test_send_end),
        cmocka_unit_test(test_send_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

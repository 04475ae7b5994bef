/* Unit tests for proto/peer: a Ping is answered only on a link that has
 * been quiet for a second, since any message already says the sender lives;
 * the switch to sealed frames is exact, and a plain frame after it closes
 * the link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "proto/peer.h"
#include <stdio.h>

typedef struct side {
    peer l;
    int pings, pongs, closed;
} side;

static void on_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    side *s = ud;

    if (env->body_case == QUERN__ENVELOPE__BODY_PING) {
        s->pings++;
        peer_pong(l, env->ping);
    } else if (env->body_case == QUERN__ENVELOPE__BODY_PONG) {
        s->pongs++;
    }
}

static void on_close(peer *l, const char *why, void *ud)
{
    ((side *)ud)->closed++;
}

static void send_ping(side *s)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Ping pi = QUERN__PING__INIT;

    pi.seq = 1;
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &pi;
    assert_int_equal(peer_send(&s->l, &env), 0);
}

/* Runs the loop until nothing more is ready. */
static void settle(struct ev_loop *loop)
{
    for (int i = 0; i < 20; i++)
        ev_run(loop, EVRUN_NOWAIT);
}

static void test_pong_only_when_quiet(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    side a, b;
    int sv[2];

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    peer_init(&a.l, loop, sv[0], FRAME_MAX_DEFAULT, 1 << 20, on_msg, on_close, &a);
    peer_init(&b.l, loop, sv[1], FRAME_MAX_DEFAULT, 1 << 20, on_msg, on_close, &b);
    a.pings = a.pongs = a.closed = 0;
    b.pings = b.pongs = b.closed = 0;

    /* b has sent nothing yet: it answers. */
    send_ping(&a);
    settle(loop);
    assert_int_equal(b.pings, 1);
    assert_int_equal(a.pongs, 1);

    /* b has just sent that Pong: a second Ping within the second goes
     * unanswered, and a's own Ping within it does not make b answer either. */
    send_ping(&a);
    settle(loop);
    assert_int_equal(b.pings, 2);
    assert_int_equal(a.pongs, 1);

    /* a has just sent; b's Ping is not answered; then, a second later as
     * far as a knows, it would be. */
    send_ping(&b);
    settle(loop);
    assert_int_equal(a.pings, 1);
    assert_int_equal(b.pongs, 0);
    assert_false(peer_quiet(&a.l, clock_mono_us()));
    assert_true(peer_quiet(&a.l, clock_mono_us() + PEER_HEARTBEAT_US));

    assert_int_equal(a.closed + b.closed, 0);
    peer_close(&a.l);
    peer_close(&b.l);
    ev_loop_destroy(loop);
}

/* A link that never sent anything is quiet. */
static void test_new_link_quiet(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    side a;
    int sv[2];

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    peer_init(&a.l, loop, sv[0], FRAME_MAX_DEFAULT, 1 << 20, on_msg, on_close, &a);
    assert_true(peer_quiet(&a.l, clock_mono_us()));
    peer_close(&a.l);
    close(sv[1]);
    ev_loop_destroy(loop);
}

/* Sealing: b switches its reading side from the handler of a's last plain
 * frame; a switches its sending side right after queueing it, both frames
 * going out in one write. Then an injected plain frame closes b's link. */
typedef struct sside {
    peer l;
    int got, closed;
    char why[256];
} sside;

static const uint8_t KEY[SEAL_KEY_LEN] = {1, 2, 3};

static void on_smsg(peer *l, const Quern__Envelope *env, void *ud)
{
    sside *s = ud;

    s->got++;
    if (s->got == 1)
        assert_int_equal(peer_seal_recv(l, KEY, FRAME_MAX_SMALL), 0);
}

static void on_sclose(peer *l, const char *why, void *ud)
{
    sside *s = ud;

    s->closed++;
    err_set(s->why, sizeof(s->why), "%s", why);
}

static void test_sealed_switch(void **state)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    sside a = {0}, b = {0};
    int sv[2];
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Ping pi = QUERN__PING__INIT;
    uint8_t *plain;
    ssize_t n;

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    peer_init(&a.l, loop, sv[0], FRAME_MAX_DEFAULT, 1 << 20, on_smsg, on_sclose, &a);
    peer_init(&b.l, loop, sv[1], FRAME_MAX_PREAUTH, 1 << 20, on_smsg, on_sclose, &b);
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &pi;
    ev_io_stop(loop, &b.l.rio); /* b reads both frames at once, later */
    assert_int_equal(peer_send(&a.l, &env), 0);
    assert_int_equal(peer_seal_send(&a.l, KEY), 0);
    pi.seq = 2;
    assert_int_equal(peer_send(&a.l, &env), 0);
    ev_io_start(loop, &b.l.rio);
    settle(loop);
    assert_int_equal(b.got, 2);
    assert_int_equal(b.closed, 0);
    /* A plain frame written under a's feet is not a sealed one. */
    n = frame_encode(&env, FRAME_MAX_DEFAULT, &plain);
    assert_true(n > 0);
    assert_int_equal(write(sv[0], plain, (size_t)n), n);
    xfree(plain);
    settle(loop);
    assert_int_equal(b.got, 2);
    assert_int_equal(b.closed, 1);
    assert_non_null(strstr(b.why, "integrity check"));
    peer_close(&a.l);
    peer_close(&b.l);
    ev_loop_destroy(loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pong_only_when_quiet),
        cmocka_unit_test(test_new_link_quiet),
        cmocka_unit_test(test_sealed_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

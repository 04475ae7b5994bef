/* Unit tests for proto/peer: a Ping is answered only on a link that has
 * been quiet for a second, since any message already says the sender lives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "proto/peer.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pong_only_when_quiet),
        cmocka_unit_test(test_new_link_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for console/agents: which pending handshake makes room for a new
 * one (agents_victim). Authenticated connections never go; the network, then
 * the address, holding the most gives one up; within it one that has not said
 * Hello, then the oldest; and an agent's handshake outlives a flood of any
 * rate from other addresses. And the heartbeat of agents_tick: a Ping a
 * second, every 2 s to an agent in a running run, never more than 2.2 s
 * apart (an agent leaves a console silent for 5 s). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ev.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/mem.h"
#include "console/agents.h"
#include "console/control.h"
#include "console/run.h"

#define MAXC 80

typedef struct conns {
    aconn *c[MAXC];
    size_t n;
} conns;

/* A pending connection from ip (its network: the first three parts). */
static aconn *add(conns *cs, const char *ip, enum aconn_state st, int64_t since)
{
    aconn *c = xcalloc(1, sizeof(*c));
    const char *dot = strrchr(ip, '.');

    snprintf(c->ip, sizeof(c->ip), "%s", ip);
    snprintf(c->net, sizeof(c->net), "%.*s.0/24", (int)(dot - ip), ip);
    c->state = st;
    c->since_us = since;
    cs->c[cs->n++] = c;
    return c;
}

static void drop(conns *cs, size_t i)
{
    xfree(cs->c[i]);
    memmove(cs->c + i, cs->c + i + 1, (cs->n - i - 1) * sizeof(*cs->c));
    cs->n--;
}

static void clear(conns *cs)
{
    while (cs->n > 0)
        drop(cs, cs->n - 1);
}

static void test_none_pending(void **state)
{
    conns cs = {0};
    aconn *a = add(&cs, "10.0.0.1", AC_REGISTER, 1);

    assert_int_equal(agents_victim(cs.c, cs.n, NULL), SIZE_MAX);
    a->state = AC_AGENT;
    a->authed = 1;
    add(&cs, "10.0.0.1", AC_AGENT, 0)->authed = 1;
    assert_int_equal(agents_victim(cs.c, cs.n, NULL), SIZE_MAX);
    add(&cs, "10.0.0.1", AC_PROOF, 5);
    assert_int_equal(agents_victim(cs.c, cs.n, NULL), 2);
    clear(&cs);
}

static void test_network_with_most(void **state)
{
    conns cs = {0};

    add(&cs, "192.168.1.5", AC_HELLO, 1); /* the oldest, and silent: alone in its network */
    for (int i = 0; i < 4; i++) {
        char ip[32];
        snprintf(ip, sizeof(ip), "10.0.0.%d", 10 + i);
        add(&cs, ip, AC_PROOF, 100 + i);
    }
    assert_string_equal(cs.c[agents_victim(cs.c, cs.n, NULL)]->ip, "10.0.0.10");
    clear(&cs);
}

static void test_address_with_most(void **state)
{
    conns cs = {0};

    add(&cs, "127.0.0.1", AC_PROOF, 1);
    add(&cs, "127.0.0.10", AC_PROOF, 50);
    add(&cs, "127.0.0.11", AC_PROOF, 40);
    add(&cs, "127.0.0.11", AC_PROOF, 60);
    /* Same network: 127.0.0.11 holds two. */
    assert_int_equal(agents_victim(cs.c, cs.n, NULL), 2);
    clear(&cs);
}

static void test_silent_then_oldest(void **state)
{
    conns cs = {0};

    add(&cs, "10.0.0.1", AC_PROOF, 1);
    add(&cs, "10.0.0.1", AC_HELLO, 9);
    add(&cs, "10.0.0.1", AC_HELLO, 5);
    assert_int_equal(agents_victim(cs.c, cs.n, NULL), 2);
    drop(&cs, 2);
    drop(&cs, 1);
    add(&cs, "10.0.0.1", AC_PROOF, 0);
    assert_int_equal(agents_victim(cs.c, cs.n, NULL), 1);
    clear(&cs);
}

static void test_from_one_address(void **state)
{
    conns cs = {0};

    for (int i = 0; i < 5; i++)
        add(&cs, "10.9.9.9", AC_PROOF, 100 + i);
    add(&cs, "10.0.0.1", AC_PROOF, 50);
    add(&cs, "10.0.0.1", AC_PROOF, 20);
    assert_int_equal(agents_victim(cs.c, cs.n, "10.0.0.1"), 6);
    assert_int_equal(agents_victim(cs.c, cs.n, "10.0.0.7"), SIZE_MAX);
    clear(&cs);
}

/* The console's rule, AGENTS_PENDING_MAX at once: 100,000 Hellos from
 * 127.0.0.10-41 arrive while an agent's handshake (127.0.0.1) waits for its
 * proof, and while another one's from a network of its own does. */
static void test_flood(void **state)
{
    conns cs = {0};
    aconn *agent, *other;

    agent = add(&cs, "127.0.0.1", AC_PROOF, 0);
    other = add(&cs, "10.1.1.1", AC_PROOF, 0);
    for (int i = 0; i < 10000; i++) { /* 150 times the handshakes held at once */
        char ip[32];
        if (cs.n >= AGENTS_PENDING_MAX) {
            size_t v = agents_victim(cs.c, cs.n, NULL);
            assert_int_not_equal(v, SIZE_MAX);
            assert_ptr_not_equal(cs.c[v], agent);
            assert_ptr_not_equal(cs.c[v], other);
            drop(&cs, v);
        }
        snprintf(ip, sizeof(ip), "127.0.0.%d", 10 + i % 32);
        add(&cs, ip, i % 3 == 0 ? AC_HELLO : AC_PROOF, 1 + i);
    }
    assert_int_equal(cs.n, AGENTS_PENDING_MAX);
    clear(&cs);
}

static void no_msg(peer *l, const Quern__Envelope *env, void *ud)
{
}

static void no_close(peer *l, const char *why, void *ud)
{
}

/* Ticks the console 0.1 s at a time over 12 s with one registered agent
 * (in_run, in the given phase); returns the pings it got, their largest gap
 * in ticks in *gap. */
static int pings_over(enum run_phase phase, int in_run, int *gap)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    run r;
    aconn *c = xcalloc(1, sizeof(*c));
    int sv[2], pings = 0, last = -1;
    agents_counts n;
    char buf[512];

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    memset(&r, 0, sizeof(r));
    r.loop = loop;
    r.phase = phase;
    r.conns = xcalloc(1, sizeof(*r.conns));
    r.conns[0] = c;
    r.nconns = 1;
    c->r = &r;
    c->state = AC_AGENT;
    c->in_run = in_run;
    peer_init(&c->link, loop, sv[0], 1 << 16, 1 << 16, no_msg, no_close, NULL);
    *gap = 0;
    for (int k = 0; k < 120; k++) {
        int64_t now = 1000000000 + (int64_t)k * 100000;
        c->last_rx_us = now; /* the agent's intervals */
        agents_tick(&r, now, &n);
        assert_int_equal(n.registered, 1);
        if (read(sv[1], buf, sizeof(buf)) > 0) { /* a Ping: one small frame a tick at most */
            if (last >= 0 && k - last > *gap)
                *gap = k - last;
            last = k;
            pings++;
        } else {
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
        }
    }
    peer_close(&c->link);
    xfree(c);
    xfree(r.conns);
    close(sv[1]);
    ev_loop_destroy(loop);
    return pings;
}

static void test_pings(void **state)
{
    int gap;

    assert_int_equal(pings_over(PHASE_WAIT, 0, &gap), 12);
    assert_int_equal(gap, 10);
    assert_int_equal(pings_over(PHASE_RUN, 0, &gap), 12); /* not in the run */
    assert_int_equal(gap, 10);
    assert_int_equal(pings_over(PHASE_END, 1, &gap), 12);
    assert_int_equal(gap, 10);
    /* in a running run: every 2nd, within the bound an agent keeps a console */
    assert_int_equal(pings_over(PHASE_RUN, 1, &gap), 6);
    assert_int_equal(gap, 10 * AGENTS_RUN_PING_EVERY);
    assert_true(gap * 100000 <= 2200000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none_pending),
        cmocka_unit_test(test_network_with_most),
        cmocka_unit_test(test_address_with_most),
        cmocka_unit_test(test_silent_then_oldest),
        cmocka_unit_test(test_from_one_address),
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_pings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

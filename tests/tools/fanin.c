/* fanin — a test helper that plays N quern agents against one console, to
 * measure what the console costs when many agents report (bench/run.sh,
 * "console fan-in"). Not a user feature: it runs no load, it only speaks the
 * agent's side of the protocol (proto/quern.proto, proto/handshake.h) the way
 * agent/ does.
 *
 * Each simulated agent: connects to the console, Hello (with its nonce) ->
 * AuthProof (proto/auth.h, role "agent") -> checks the console's AuthProof ->
 * AuthResult -> Register (1 worker) -> Registered; on StartRun it answers
 * StepsDef (STEPS steps "SC-<SCENARIO>-STEP-<n>", n = 1..STEPS, the ids
 * `quern.scenario(SCENARIO):step(n, ...)` gives) and Ready; after Go it sends
 * one Interval a second with an entry for every step (counts, byte and timing
 * sums, a small encoded latency histogram: proto/interval_sum.h), pings the console
 * every second as an agent does, answers Ping with Pong, and once the
 * schedule's duration has passed since its Go (or on Stop) sends RunFinished.
 * Every agent sends the same numbers; the Interval of one second is encoded
 * once, and sealed for each socket with that link's key as an agent does
 * (proto/seal.h: every frame after AuthResult is sealed, both ways).
 *
 * One process, one epoll loop, non-blocking sockets, no threads.
 *
 *   fanin --console 127.0.0.1:PORT --token-file F [--agents 1000] [--steps 50]
 *         [--scenario FANIN] [--count 20] [--duration 30] [--timeout 180]
 *
 * On stderr: progress lines, among them "fanin: go: N agent(s) running" once
 * every agent has its Go (bench/run.sh waits for it). On stdout at the end,
 * one line of key=value results (agents, registered, go, intervals,
 * step_counts, finished, errors). Exit 0 when every agent got Go and sent
 * RunFinished, 1 otherwise, 2 on a usage error. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "common/stats.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/handshake.h"
#include "proto/peer.h"
#include "proto/interval_sum.h"
#include "proto/seal.h"

#define FANIN_CONNECTING_MAX                                                                       \
    8 /* handshakes in progress at once (the console's per-address cap)                            \
       */
#define FANIN_OUT_MAX (8u * 1024u * 1024u) /* unsent bytes per agent before we call it stuck */
#define FANIN_TICK_MS 20

enum ast { A_IDLE, A_CONNECTING, A_HELLO, A_PROOF, A_RESULT, A_REGISTER, A_READY, A_CLOSED };

typedef struct ag {
    unsigned idx;
    int fd;
    enum ast st;
    handshake hs; /**< the nonces and keys of its handshake */
    frame_reader *r;
    seal *tx, *rx; /**< owned: the link's seals once authenticated, else NULL */
    uint8_t *out;  /**< owned: bytes not yet written */
    size_t olen, ocap;
    int pollout;
    int64_t retry_at_us;
    uint64_t run_id;
    uint32_t vus;
    int started, go, finished;
    int64_t go_us, end_us, next_iv_us;
    int64_t last_tx_us; /* monotonic time of its last message */
    uint64_t second, ping_seq;
} ag;

typedef struct sim {
    int ep;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char *token;
    size_t token_len;
    unsigned n, steps, count;
    const char *scenario;
    int64_t duration_us, timeout_us;
    ag *a; /**< owned: n agents */
    unsigned next_connect, connecting;
    /* The Interval template and the frame of the last second encoded. */
    Quern__Interval *tmpl; /**< owned (interval_sum_msg_free) */
    uint64_t enc_run, enc_second;
    uint8_t *enc; /**< owned: frame of (enc_run, enc_second) */
    size_t enc_len;
    /* Results. */
    unsigned registered, went, finished, closed_by_console, errors;
    uint64_t intervals, step_counts, pongs, pings;
    int all_go_said;
    char first_error[256];
} sim;

static void die_usage(const char *msg)
{
    fprintf(stderr,
            "fanin: %s\nusage: fanin --console HOST:PORT --token-file F [--agents N] [--steps S]\n"
            "             [--scenario NAME] [--count C] [--duration SECONDS] [--timeout SECONDS]\n",
            msg);
    exit(2);
}

static void note_error(sim *s, ag *a, const char *what)
{
    s->errors++;
    if (s->first_error[0] == '\0')
        snprintf(s->first_error, sizeof(s->first_error), "agent %u: %s", a->idx, what);
    if (s->errors <= 10)
        fprintf(stderr, "fanin: agent %u: %s\n", a->idx, what);
}

/* ---------------------------------------------------------------- output */

static void ag_close(sim *s, ag *a)
{
    if (a->fd >= 0) {
        epoll_ctl(s->ep, EPOLL_CTL_DEL, a->fd, NULL);
        close(a->fd);
    }
    if (a->st >= A_CONNECTING && a->st < A_READY)
        s->connecting--;
    a->fd = -1;
    a->st = A_CLOSED;
    frame_reader_free(a->r);
    a->r = NULL;
    seal_free(a->tx);
    seal_free(a->rx);
    a->tx = a->rx = NULL;
    xfree(a->out);
    a->out = NULL;
    a->olen = a->ocap = 0;
}

static void set_pollout(sim *s, ag *a, int on)
{
    struct epoll_event ev;

    if (a->pollout == on)
        return;
    a->pollout = on;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN | (on ? EPOLLOUT : 0);
    ev.data.ptr = a;
    epoll_ctl(s->ep, EPOLL_CTL_MOD, a->fd, &ev);
}

/* Writes what the socket takes; 0, or -1 when the agent had to be closed. */
static int ag_flush(sim *s, ag *a)
{
    size_t off = 0;

    while (off < a->olen) {
        ssize_t w = send(a->fd, a->out + off, a->olen - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (w <= 0) {
            note_error(s, a, "write failed");
            ag_close(s, a);
            return -1;
        }
        off += (size_t)w;
    }
    if (off > 0) {
        memmove(a->out, a->out + off, a->olen - off);
        a->olen -= off;
    }
    set_pollout(s, a, a->olen > 0);
    return 0;
}

static int ag_write(sim *s, ag *a, const uint8_t *buf, size_t len)
{
    if (a->fd < 0)
        return -1;
    if (a->olen + len > FANIN_OUT_MAX) {
        note_error(s, a, "the console does not read (8 MiB unsent)");
        ag_close(s, a);
        return -1;
    }
    if (a->olen + len > a->ocap) {
        a->ocap = (a->olen + len) * 2;
        a->out = xrealloc(a->out, a->ocap);
    }
    memcpy(a->out + a->olen, buf, len);
    a->olen += len;
    return a->pollout ? 0 : ag_flush(s, a);
}

/* Queues one plain frame (header and body), sealed in place in the output
 * buffer once the link is sealed. */
static int ag_write_frame(sim *s, ag *a, const uint8_t *frame, size_t len)
{
    size_t n = len - FRAME_HEADER_LEN, total = len + SEAL_TAG_LEN;
    uint8_t *p;

    if (a->tx == NULL)
        return ag_write(s, a, frame, len);
    if (a->fd < 0)
        return -1;
    if (a->olen + total > FANIN_OUT_MAX) {
        note_error(s, a, "the console does not read (8 MiB unsent)");
        ag_close(s, a);
        return -1;
    }
    if (a->olen + total > a->ocap) {
        a->ocap = (a->olen + total) * 2;
        a->out = xrealloc(a->out, a->ocap);
    }
    p = a->out + a->olen;
    memcpy(p, frame, len);
    p[0] = (uint8_t)((n + SEAL_TAG_LEN) >> 24);
    p[1] = (uint8_t)((n + SEAL_TAG_LEN) >> 16);
    p[2] = (uint8_t)((n + SEAL_TAG_LEN) >> 8);
    p[3] = (uint8_t)(n + SEAL_TAG_LEN);
    if (seal_frame(a->tx, p, p + FRAME_HEADER_LEN, n, p + len) != 0) {
        note_error(s, a, "cannot seal a frame");
        ag_close(s, a);
        return -1;
    }
    a->olen += total;
    return a->pollout ? 0 : ag_flush(s, a);
}

static int ag_send(sim *s, ag *a, const Quern__Envelope *env)
{
    uint8_t *buf = NULL;
    ssize_t n = frame_encode(env, FRAME_MAX_DEFAULT, &buf);
    int rc;

    if (n < 0) {
        note_error(s, a, "cannot encode a frame");
        return -1;
    }
    rc = ag_write_frame(s, a, buf, (size_t)n);
    xfree(buf);
    a->last_tx_us = clock_mono_us();
    return rc;
}

/* ---------------------------------------------------------------- the agent's side */

static void send_hello(sim *s, ag *a)
{
    handshake_msg m;

    handshake_init(&a->hs, "agent");
    if (handshake_keys(&a->hs) != 0) {
        note_error(s, a, "no random numbers");
        ag_close(s, a);
        return;
    }
    a->st = A_HELLO;
    ag_send(s, a, handshake_hello(&a->hs, &m));
}

static void send_register(sim *s, ag *a)
{
    handshake_msg m;
    char name[64];

    snprintf(name, sizeof(name), "fanin-%04u", a->idx);
    ag_send(s, a, handshake_register(name, 1, &m));
}

static void send_steps_ready(sim *s, ag *a)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__StepsDef sd = QUERN__STEPS_DEF__INIT;
    handshake_msg m;
    Quern__StepDef *defs = xcalloc(s->steps, sizeof(*defs));
    Quern__StepDef **ptrs = xcalloc(s->steps, sizeof(*ptrs));
    char(*ids)[128] = xcalloc(s->steps, sizeof(*ids));
    char(*labels)[64] = xcalloc(s->steps, sizeof(*labels));

    for (unsigned i = 0; i < s->steps; i++) {
        quern__step_def__init(&defs[i]);
        snprintf(ids[i], sizeof(ids[i]), "SC-%s-STEP-%u", s->scenario, i + 1);
        snprintf(labels[i], sizeof(labels[i]), "step %u", i + 1);
        defs[i].index = i;
        defs[i].id = ids[i];
        defs[i].label = labels[i];
        defs[i].scenario = (char *)s->scenario;
        defs[i].number = i + 1;
        ptrs[i] = &defs[i];
    }
    sd.run_id = a->run_id;
    sd.n_steps = s->steps;
    sd.steps = ptrs;
    env.body_case = QUERN__ENVELOPE__BODY_STEPS_DEF;
    env.steps_def = &sd;
    if (ag_send(s, a, &env) == 0)
        ag_send(s, a, handshake_ready(a->run_id, 1, NULL, a->vus, &m));
    xfree(defs);
    xfree(ptrs);
    xfree(ids);
    xfree(labels);
}

static void send_finished(sim *s, ag *a, const char *status)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__RunFinished f = QUERN__RUN_FINISHED__INIT;

    if (a->finished)
        return;
    f.run_id = a->run_id;
    f.status = (char *)status;
    f.message = (char *)"";
    env.body_case = QUERN__ENVELOPE__BODY_RUN_FINISHED;
    env.run_finished = &f;
    if (ag_send(s, a, &env) == 0) {
        a->finished = 1;
        s->finished++;
    }
}

/* The frame of one second's Interval, encoded once for every agent. */
static int interval_frame(sim *s, uint64_t run_id, uint64_t second, const uint8_t **buf,
                          size_t *len)
{
    if (s->enc == NULL || s->enc_run != run_id || s->enc_second != second) {
        Quern__Envelope env = QUERN__ENVELOPE__INIT;
        ssize_t n;
        xfree(s->enc);
        s->enc = NULL;
        s->tmpl->run_id = run_id;
        s->tmpl->second = second;
        env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
        env.interval = s->tmpl;
        n = frame_encode(&env, FRAME_MAX_SMALL, &s->enc);
        if (n < 0)
            return -1;
        s->enc_len = (size_t)n;
        s->enc_run = run_id;
        s->enc_second = second;
    }
    *buf = s->enc;
    *len = s->enc_len;
    return 0;
}

static void send_interval(sim *s, ag *a)
{
    const uint8_t *buf;
    size_t len;

    if (interval_frame(s, a->run_id, a->second, &buf, &len) != 0) {
        note_error(s, a, "cannot encode an Interval");
        return;
    }
    if (ag_write_frame(s, a, buf, len) == 0) {
        a->last_tx_us = clock_mono_us();
        s->intervals++;
        s->step_counts += (uint64_t)s->steps * s->count;
        a->second++;
    }
}

static void on_msg(sim *s, ag *a, const Quern__Envelope *env)
{
    Quern__Envelope out = QUERN__ENVELOPE__INIT;

    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_HELLO: {
        handshake_msg m;
        if (handshake_hello_take(&a->hs, a->st == A_HELLO ? env : NULL, NULL, 0) != 0) {
            note_error(s, a, "bad hello from the console");
            ag_close(s, a);
            return;
        }
        a->st = A_PROOF;
        ag_send(s, a, handshake_proof(&a->hs, s->token, s->token_len, &m));
        return;
    }
    case QUERN__ENVELOPE__BODY_AUTH_PROOF:
        if (a->st != A_PROOF)
            break;
        if (!handshake_proof_ok(&a->hs, s->token, s->token_len, env->auth_proof)) {
            note_error(s, a, "the console does not know our token");
            ag_close(s, a);
            return;
        }
        a->st = A_RESULT;
        return;
    case QUERN__ENVELOPE__BODY_AUTH_RESULT:
        if (!env->auth_result->ok || a->st != A_RESULT) {
            char msg[300];
            err_set(msg, sizeof(msg), "authentication refused: %s", env->auth_result->reason);
            note_error(s, a, msg);
            ag_close(s, a);
            return;
        }
        {
            uint8_t up[SEAL_KEY_LEN], down[SEAL_KEY_LEN], secret[KEYEXCHANGE_LEN] = {0};
            seal_hs hs = handshake_seal_hs(&a->hs, secret);
            char err[ERR_MAX];
            if (keyexchange_shared(a->hs.keyexchange_priv, a->hs.peer_kx, secret) != 0 ||
                seal_derive_keys(s->token, s->token_len, &hs, up, down) != 0 ||
                (a->tx = seal_new(up)) == NULL || (a->rx = seal_new(down)) == NULL ||
                frame_reader_seal(a->r, a->rx, FRAME_MAX_DEFAULT, err, sizeof(err)) != 0) {
                note_error(s, a, "cannot seal the link");
                ag_close(s, a);
                return;
            }
        }
        a->st = A_REGISTER;
        send_register(s, a);
        return;
    case QUERN__ENVELOPE__BODY_REGISTERED:
        if (a->st != A_REGISTER)
            break;
        if (!env->registered->ok) {
            char msg[300];
            err_set(msg, sizeof(msg), "registration refused: %s", env->registered->reason);
            note_error(s, a, msg);
            ag_close(s, a);
            return;
        }
        a->st = A_READY;
        s->connecting--;
        s->registered++;
        if (s->registered == s->n)
            fprintf(stderr, "fanin: %u agent(s) registered\n", s->n);
        return;
    case QUERN__ENVELOPE__BODY_PING: {
        Quern__Pong po = QUERN__PONG__INIT;
        if (clock_mono_us() - a->last_tx_us < PEER_HEARTBEAT_US)
            return; /* as an agent does: it sent something within the second */
        po.seq = env->ping->seq;
        po.sent_us = env->ping->sent_us;
        po.peer_us = clock_wall_us();
        out.body_case = QUERN__ENVELOPE__BODY_PONG;
        out.pong = &po;
        s->pongs++;
        ag_send(s, a, &out);
        return;
    }
    case QUERN__ENVELOPE__BODY_PONG:
        return;
    default:
        break;
    }
    if (a->st != A_READY) {
        note_error(s, a, "message out of turn during the handshake");
        ag_close(s, a);
        return;
    }
    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_START_RUN: {
        const Quern__StartRun *sr = env->start_run;
        if (a->started) {
            note_error(s, a, "a second StartRun");
            break;
        }
        a->started = 1;
        a->run_id = sr->run_id;
        a->vus = 0;
        for (size_t k = 0; k < sr->n_vu_ranges; k++)
            a->vus += sr->vu_ranges[k]->count;
        if (sr->schedule != NULL && sr->schedule->duration_us > 0)
            s->duration_us = (int64_t)sr->schedule->duration_us;
        s->tmpl->active_vus = a->vus;
        send_steps_ready(s, a);
        break;
    }
    case QUERN__ENVELOPE__BODY_GO:
        if (!a->started || a->go || env->go->run_id != a->run_id)
            break;
        a->go = 1;
        a->go_us = clock_mono_us();
        a->next_iv_us = a->go_us + 1000000;
        a->end_us = a->go_us + s->duration_us;
        s->went++;
        if (s->went == s->n && !s->all_go_said) {
            s->all_go_said = 1;
            fprintf(stderr, "fanin: go: %u agent(s) running\n", s->n);
        }
        break;
    case QUERN__ENVELOPE__BODY_STOP:
        if (a->started && env->stop->run_id == a->run_id) {
            if (a->go && !a->finished)
                send_interval(s, a);
            send_finished(s, a, a->go ? "completed" : "stopped");
        }
        break;
    default:
        break;
    }
}

static void on_readable(sim *s, ag *a)
{
    char err[ERR_MAX];
    ssize_t n = frame_reader_read_fd(a->r, a->fd, err, sizeof(err));
    Quern__Envelope *env;
    int rc = 0;

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
        /* Drain what came before the end, then close. */
        while (a->r != NULL && frame_reader_next(a->r, &env, err, sizeof(err)) == 1) {
            on_msg(s, a, env);
            quern__envelope__free_unpacked(env, NULL);
        }
        if (a->st == A_READY && a->finished)
            s->closed_by_console++;
        else if (a->fd >= 0)
            note_error(s, a, n == 0 ? "the console closed the connection" : err);
        if (a->fd >= 0)
            ag_close(s, a);
        return;
    }
    while (a->fd >= 0 && (rc = frame_reader_next(a->r, &env, err, sizeof(err))) == 1) {
        on_msg(s, a, env);
        quern__envelope__free_unpacked(env, NULL);
    }
    if (a->fd >= 0 && rc < 0) {
        note_error(s, a, err);
        ag_close(s, a);
    }
}

static void start_connect(sim *s, ag *a)
{
    struct epoll_event ev;
    int one = 1;

    a->fd = socket(s->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (a->fd < 0) {
        note_error(s, a, strerror(errno));
        a->st = A_CLOSED;
        return;
    }
    setsockopt(a->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(a->fd, (struct sockaddr *)&s->addr, s->addrlen) != 0 && errno != EINPROGRESS) {
        close(a->fd);
        a->fd = -1;
        a->st = A_IDLE; /* not listening yet: try again soon */
        a->retry_at_us = clock_mono_us() + 200000;
        return;
    }
    a->st = A_CONNECTING;
    s->connecting++;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLOUT;
    ev.data.ptr = a;
    epoll_ctl(s->ep, EPOLL_CTL_ADD, a->fd, &ev);
}

static void on_connected(sim *s, ag *a)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    struct epoll_event ev;

    if (getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
        epoll_ctl(s->ep, EPOLL_CTL_DEL, a->fd, NULL);
        close(a->fd);
        a->fd = -1;
        s->connecting--;
        a->st = A_IDLE;
        a->retry_at_us = clock_mono_us() + 200000;
        return;
    }
    a->r = frame_reader_new(FRAME_MAX_DEFAULT);
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN;
    ev.data.ptr = a;
    epoll_ctl(s->ep, EPOLL_CTL_MOD, a->fd, &ev);
    a->pollout = 0;
    send_hello(s, a);
}

/* Connects the next agents, sends the seconds that are due, pings, ends. */
static void on_tick(sim *s)
{
    int64_t now = clock_mono_us();
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Ping pi = QUERN__PING__INIT;

    for (unsigned i = 0; i < s->n && s->connecting < FANIN_CONNECTING_MAX; i++) {
        ag *a = &s->a[i];
        if (a->st == A_IDLE && now >= a->retry_at_us)
            start_connect(s, a);
    }
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &pi;
    for (unsigned i = 0; i < s->n; i++) {
        ag *a = &s->a[i];
        if (a->st != A_READY || a->fd < 0)
            continue;
        if (a->go && !a->finished) {
            while (a->fd >= 0 && now >= a->next_iv_us && a->next_iv_us <= a->end_us) {
                send_interval(s, a);
                a->next_iv_us += 1000000;
            }
        }
        /* as an agent does: once a second, when it sent nothing else */
        if (a->fd >= 0 && now - a->last_tx_us >= PEER_HEARTBEAT_US) {
            pi.seq = ++a->ping_seq;
            pi.sent_us = clock_wall_us();
            s->pings++;
            if (ag_send(s, a, &env) != 0)
                continue;
        }
        if (!a->go || a->finished)
            continue;
        if (a->fd >= 0 && now >= a->end_us)
            send_finished(s, a, "completed");
    }
}

static Quern__Interval *make_template(sim *s)
{
    step_stats *st = xcalloc(s->steps, sizeof(*st));
    uint64_t runs = s->count, missed = 0;
    const char *names[1] = {s->scenario};
    Quern__Interval *m;

    for (unsigned i = 0; i < s->steps; i++) {
        stats_init(&st[i]);
        st[i].count = s->count;
        st[i].bytes_in = 250ull * s->count;
        st[i].bytes_out = 90ull * s->count;
        /* latencies spread over 0.8 to about 60 ms: a few dozen buckets */
        for (unsigned k = 0; k < s->count; k++) {
            uint64_t us = 800 + (uint64_t)((k * 7919u + i * 104729u) % 60000u);
            hist_record(st[i].hist, us);
            st[i].sum_ttfb += us * 9 / 10;
        }
        if (i % 10 == 0) {
            st[i].err_func = 1;
            stats_note_error(&st[i], 0, "expect: status 200, got 500");
        }
    }
    m = interval_sum_msg_new(0, 0, st, s->steps, &runs, &missed, names, 1, 1, 0, 0);
    for (unsigned i = 0; i < s->steps; i++)
        stats_free(&st[i]);
    xfree(st);
    return m;
}

static unsigned parse_num(const char *flag, const char *v, unsigned lo, unsigned hi)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);

    if (*v == '\0' || *end != '\0' || n < lo || n > hi) {
        char msg[200];
        err_set(msg, sizeof(msg), "%s: \"%s\" is not a number from %u to %u", flag, v, lo, hi);
        die_usage(msg);
    }
    return (unsigned)n;
}

int main(int argc, char **argv)
{
    sim s;
    const char *console = NULL, *token_file = NULL;
    char host[256], port[16], err[ERR_MAX];
    const char *colon;
    struct addrinfo hints, *res = NULL;
    int64_t t0, last_tick = 0;
    struct epoll_event evs[256];
    int rc;

    memset(&s, 0, sizeof(s));
    s.n = 1000;
    s.steps = 50;
    s.count = 20;
    s.scenario = "FANIN";
    s.duration_us = 30000000;
    s.timeout_us = 180000000;
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            die_usage("every option needs a value");
        i++;
        if (strcmp(f, "--console") == 0)
            console = v;
        else if (strcmp(f, "--token-file") == 0)
            token_file = v;
        else if (strcmp(f, "--agents") == 0)
            s.n = parse_num(f, v, 1, 100000);
        else if (strcmp(f, "--steps") == 0)
            s.steps = parse_num(f, v, 1, 10000);
        else if (strcmp(f, "--count") == 0)
            s.count = parse_num(f, v, 1, 1000000);
        else if (strcmp(f, "--scenario") == 0)
            s.scenario = v;
        else if (strcmp(f, "--duration") == 0)
            s.duration_us = (int64_t)parse_num(f, v, 1, 86400) * 1000000;
        else if (strcmp(f, "--timeout") == 0)
            s.timeout_us = (int64_t)parse_num(f, v, 1, 86400) * 1000000;
        else
            die_usage("unknown option");
    }
    if (console == NULL || token_file == NULL)
        die_usage("--console and --token-file are required");
    colon = strrchr(console, ':');
    if (colon == NULL || colon == console || (size_t)(colon - console) >= sizeof(host) ||
        strlen(colon + 1) >= sizeof(port) || colon[1] == '\0')
        die_usage("--console wants HOST:PORT");
    snprintf(host, sizeof(host), "%.*s", (int)(colon - console), console);
    snprintf(port, sizeof(port), "%s", colon + 1);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
        fprintf(stderr, "fanin: %s: %s\n", console, gai_strerror(rc));
        return 2;
    }
    memcpy(&s.addr, res->ai_addr, res->ai_addrlen);
    s.addrlen = res->ai_addrlen;
    freeaddrinfo(res);
    if (auth_read_token_file(token_file, &s.token, &s.token_len, err, sizeof(err)) != 0) {
        fprintf(stderr, "fanin: %s\n", err);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    s.ep = epoll_create1(EPOLL_CLOEXEC);
    s.a = xcalloc(s.n, sizeof(*s.a));
    for (unsigned i = 0; i < s.n; i++) {
        s.a[i].idx = i;
        s.a[i].fd = -1;
    }
    s.tmpl = make_template(&s);
    t0 = clock_mono_us();
    for (;;) {
        int64_t now = clock_mono_us();
        unsigned open = 0;
        int n;

        if (now - last_tick >= FANIN_TICK_MS * 1000) {
            on_tick(&s);
            last_tick = now;
        }
        for (unsigned i = 0; i < s.n; i++)
            open += s.a[i].st != A_CLOSED;
        if (open == 0)
            break;
        if (now - t0 > s.timeout_us) {
            fprintf(stderr, "fanin: timeout after %lld s: %u connection(s) still open\n",
                    (long long)(s.timeout_us / 1000000), open);
            break;
        }
        n = epoll_wait(s.ep, evs, 256, FANIN_TICK_MS);
        for (int k = 0; k < n; k++) {
            ag *a = evs[k].data.ptr;
            if (a->fd < 0)
                continue;
            if (a->st == A_CONNECTING) {
                on_connected(&s, a);
                continue;
            }
            if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                on_readable(&s, a);
            if (a->fd >= 0 && (evs[k].events & EPOLLOUT))
                ag_flush(&s, a);
        }
    }
    printf("agents=%u registered=%u go=%u intervals=%llu step_counts=%llu finished=%u "
           "closed_by_console=%u pings=%llu pongs=%llu errors=%u interval_bytes=%zu%s%s\n",
           s.n, s.registered, s.went, (unsigned long long)s.intervals,
           (unsigned long long)s.step_counts, s.finished, s.closed_by_console,
           (unsigned long long)s.pings, (unsigned long long)s.pongs, s.errors, s.enc_len,
           s.first_error[0] ? " first_error=" : "", s.first_error);
    rc = s.went == s.n && s.finished == s.n ? 0 : 1;
    for (unsigned i = 0; i < s.n; i++)
        ag_close(&s, &s.a[i]);
    xfree(s.a);
    xfree(s.enc);
    interval_sum_msg_free(s.tmpl);
    auth_token_free(s.token, s.token_len);
    close(s.ep);
    return rc;
}

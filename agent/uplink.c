/* uplink — the agent's link to its console: connecting with back-off, the
 * handshake (proto/handshake.h), registration, the console's messages and
 * the heartbeat (see agent/agent.h for the whole). */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "agent/probe.h"
#include "agent/runchk.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "proto/handshake.h"

static void schedule_retry(agent *a, double after);

void uplink_send(agent *a, Quern__Envelope *env)
{
    if (a->cs == CS_READY)
        peer_send(&a->con, env);
}

static void console_lost(agent *a, const char *why)
{
    peer_close(&a->con);
    if (a->cs == CS_READY && a->run != NULL) {
        log_msg(LOG_WARN, "console lost (%s): stopping the load now", why);
        a->run->orphan = 1;
        agent_run_stop(a->run, 0, "console lost");
    } else if (a->cs == CS_READY) {
        log_msg(LOG_INFO, "console disconnected (%s): waiting for the next one", why);
    } else if (strcmp(why, "handshake refused") != 0) {
        unsigned more = 0;
        if (ratelog_ok(&a->refusals, clock_mono_us(), AGENT_REFUSAL_LOG_US, 3, &more))
            log_msg(LOG_WARN,
                    "console connection ended during the handshake (%s); retrying in "
                    "%.0f s%s",
                    why, a->backoff, more ? " (more refusals not shown)" : "");
    }
    if (a->cs == CS_READY)
        a->backoff = AGENT_BACKOFF_MIN;
    a->cs = CS_IDLE;
    if (!a->quitting)
        schedule_retry(a, a->backoff);
}

/* The handshake failed: say why (rate-limited: whoever squats the console's
 * address could make us say it at every attempt) and try again after the
 * back-off. Nothing a console says before it has proved the token makes the
 * agent quit. */
static void refused(agent *a, const char *msg)
{
    unsigned more = 0;

    if (ratelog_ok(&a->refusals, clock_mono_us(), AGENT_REFUSAL_LOG_US, 3, &more)) {
        if (more > 0)
            log_msg(LOG_ERROR, "%s; retrying in %.0f s (%u more refusal(s) not shown)", msg,
                    a->backoff, more);
        else
            log_msg(LOG_ERROR, "%s; retrying in %.0f s", msg, a->backoff);
    }
    peer_fail(&a->con, "handshake refused");
}

/* The handshake's frames (Hello, the proof, the result, Registered) and the
 * link's pings: 1 when env was one of them and taken (or the link failed),
 * 0 when it is a run's frame, or one out of turn. */
static int on_handshake(peer *l, agent *a, const Quern__Envelope *env)
{
    handshake_msg m;

    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_HELLO: {
        char err[ERR_MAX], msg[256];
        /* A second Hello is refused in the same words as a bad one. */
        if (handshake_hello_take(&a->hs, a->cs == CS_HELLO ? env : NULL, err, sizeof(err)) != 0) {
            err_set(msg, sizeof(msg), "bad hello from the console (%s?)", err);
            peer_fail(l, msg);
            return 1;
        }
        peer_send(l, handshake_proof(&a->hs, a->token, a->token_len, &m));
        a->cs = CS_PROOF;
        return 1;
    }
    case QUERN__ENVELOPE__BODY_AUTH_PROOF:
        if (a->cs != CS_PROOF)
            return 0;
        if (!handshake_proof_ok(&a->hs, a->token, a->token_len, env->auth_proof)) {
            refused(a, "the console at this address does not know our token (wrong token on one "
                       "side, or not our console)");
            return 1;
        }
        a->cs = CS_RESULT;
        return 1;
    case QUERN__ENVELOPE__BODY_AUTH_RESULT: {
        char msg[512];
        if (!env->auth_result->ok) {
            /* Said before the console proved anything: its reason is shown,
             * not trusted. */
            err_set(msg, sizeof(msg), "the console refused us: %.300s",
                    env->auth_result->reason[0] ? env->auth_result->reason : "(no reason)");
            refused(a, msg);
            return 1;
        }
        if (a->cs != CS_RESULT) {
            refused(a, "authentication result before the console proved the token (not our "
                       "console?)");
            return 1;
        }
        /* Both sides have proved the token: from here on every frame is
         * sealed, ours from Register on, the console's after this one. */
        if (handshake_seal(&a->con, &a->hs, a->token, a->token_len, FRAME_MAX_DEFAULT) != 0)
            return 1;
        a->cs = CS_REGISTER;
        peer_send(&a->con, handshake_register(a->name, a->workers, &m));
        return 1;
    }
    case QUERN__ENVELOPE__BODY_REGISTERED:
        if (a->cs != CS_REGISTER)
            return 0;
        if (!env->registered->ok) {
            char msg[512];
            err_set(msg, sizeof(msg), "the console refused our registration: %.300s",
                    env->registered->reason);
            refused(a, msg);
            return 1;
        }
        a->cs = CS_READY;
        a->backoff = AGENT_BACKOFF_MIN;
        log_msg(LOG_INFO, "connected to the console %s:%s as %s (agent #%u), %u worker(s)", a->host,
                a->port, a->name, env->registered->agent_index, a->workers);
        return 1;
    case QUERN__ENVELOPE__BODY_PING:
        if (a->cs < CS_REGISTER) /* not before the link is sealed */
            return 0;
        peer_pong(l, env->ping);
        return 1;
    case QUERN__ENVELOPE__BODY_PONG:
        if (a->cs < CS_REGISTER)
            return 0;
        return 1;
    default:
        return 0;
    }
    return 0;
}

/* Go for our run: the workers' load starts (its end due by the plan plus
 * AGENT_OVERRUN_US), or a Go the checks refuse stops the run. */
static void on_go(agent *a, const Quern__Envelope *env)
{
    char err[ERR_MAX];
    if (a->run != NULL && a->run->run_id == env->go->run_id &&
        runchk_go(env->go, err, sizeof(err)) != 0) {
        log_msg(LOG_ERROR, "run %llu: refused %s", (unsigned long long)a->run->run_id, err);
        a->run->status = "aborted";
        agent_run_stop(a->run, 1, "refused Go");
        return;
    }
    if (a->run != NULL && a->run->run_id == env->go->run_id && !a->run->failed &&
        !a->run->stopping && !a->run->go) {
        a->run->go = 1;
        if (a->run->planned_us > 0)
            a->run->end_by_us = clock_mono_us() +
                                (env->go->start_offset_us > 0 ? env->go->start_offset_us : 0) +
                                a->run->planned_us + AGENT_OVERRUN_US;
        log_msg(LOG_INFO, "run %llu: go", (unsigned long long)a->run->run_id);
        probe_go(a->run->probe,
                 clock_mono_us() + (env->go->start_offset_us > 0 ? env->go->start_offset_us : 0));
        for (unsigned i = 0; i < a->run->nworkers; i++)
            peer_send(&a->run->w[i].link, (Quern__Envelope *)env);
    }
}

static void on_console_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    agent *a = ud;

    a->last_rx_us = clock_mono_us();
    if (on_handshake(l, a, env))
        return;
    if (a->cs != CS_READY) {
        peer_fail(l, "message out of turn during the handshake");
        return;
    }
    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_START_RUN:
        agent_run_start(a, env->start_run);
        break;
    case QUERN__ENVELOPE__BODY_GO:
        on_go(a, env);
        break;
    case QUERN__ENVELOPE__BODY_STEER:
        if (a->run != NULL && a->run->run_id == env->steer->run_id)
            agent_run_steer(a->run, env);
        break;
    case QUERN__ENVELOPE__BODY_STOP: {
        char err[ERR_MAX];
        if (a->run != NULL && a->run->run_id == env->stop->run_id)
            agent_run_stop(a->run, env->stop->immediate,
                           runchk_stop(env->stop, err, sizeof(err)) == 0
                               ? env->stop->reason
                               : "stop (reason too long)");
        break;
    }
    default:
        break;
    }
}

static void on_console_close(peer *l, const char *why, void *ud)
{
    console_lost(ud, why);
}

void uplink_on_connected(struct ev_loop *loop, ev_io *w, int revents)
{
    agent *a = w->data;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    handshake_msg m;

    ev_io_stop(loop, w);
    ev_timer_stop(loop, &a->retry);
    if (getsockopt(a->cfd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
        log_msg(LOG_DEBUG, "connect %s:%s: %s", a->host, a->port, strerror(soerr ? soerr : errno));
        close(a->cfd);
        a->cfd = -1;
        a->cs = CS_IDLE;
        schedule_retry(a, a->backoff);
        return;
    }
    /* Small frames until the console has proved the token (seal_link). */
    peer_init(&a->con, loop, a->cfd, FRAME_MAX_PREAUTH, AGENT_QUEUE_MAX, on_console_msg,
              on_console_close, a);
    a->cfd = -1;
    a->cs = CS_HELLO;
    a->last_rx_us = a->conn_us = clock_mono_us();
    handshake_init(&a->hs, "agent");
    if (handshake_keys(&a->hs) != 0) {
        peer_fail(&a->con, "no random numbers");
        return;
    }
    peer_send(&a->con, handshake_hello(&a->hs, &m));
}

void uplink_connect(agent *a)
{
    struct addrinfo hints, *res = NULL;
    int rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(a->host, a->port, &hints, &res);
    if (rc != 0) {
        log_msg(LOG_WARN, "cannot resolve %s: %s", a->host, gai_strerror(rc));
        goto retry;
    }
    a->cfd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (a->cfd < 0) {
        log_msg(LOG_WARN, "socket: %s", strerror(errno));
        goto retry;
    }
    if (connect(a->cfd, res->ai_addr, res->ai_addrlen) != 0 && errno != EINPROGRESS) {
        log_msg(LOG_DEBUG, "connect %s:%s: %s", a->host, a->port, strerror(errno));
        close(a->cfd);
        a->cfd = -1;
        goto retry;
    }
    freeaddrinfo(res);
    a->cs = CS_CONNECTING;
    ev_io_set(&a->cio, a->cfd, EV_WRITE);
    ev_io_start(a->loop, &a->cio);
    ev_timer_set(&a->retry, AGENT_CONNECT_TIMEOUT, 0.);
    ev_timer_start(a->loop, &a->retry);
    return;
retry:
    if (res != NULL)
        freeaddrinfo(res);
    schedule_retry(a, a->backoff);
}

static void schedule_retry(agent *a, double after)
{
    ev_timer_stop(a->loop, &a->retry);
    ev_timer_set(&a->retry, after, 0.);
    ev_timer_start(a->loop, &a->retry);
    a->backoff = a->backoff * 2 > AGENT_BACKOFF_MAX ? AGENT_BACKOFF_MAX : a->backoff * 2;
}

void uplink_on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
    agent *a = w->data;

    if (a->cs == CS_CONNECTING) { /* connect timed out */
        ev_io_stop(loop, &a->cio);
        close(a->cfd);
        a->cfd = -1;
        a->cs = CS_IDLE;
        log_msg(LOG_DEBUG, "connect %s:%s: timed out", a->host, a->port);
        schedule_retry(a, a->backoff);
        return;
    }
    if (a->cs == CS_IDLE && !a->quitting)
        uplink_connect(a);
}

void uplink_tick(agent *a, int64_t now)
{
    if (a->cs >= CS_HELLO && peer_alive(&a->con)) {
        if (now - a->last_rx_us > AGENT_SILENCE_US) {
            peer_fail(&a->con, "no message from the console for 5 s");
        } else if (a->cs < CS_READY && now - a->conn_us > AGENT_HANDSHAKE_US) {
            refused(a, "no complete handshake with the console within 5 s");
        } else if (a->cs == CS_READY && peer_quiet(&a->con, now)) {
            Quern__Envelope env = QUERN__ENVELOPE__INIT;
            Quern__Ping pi = QUERN__PING__INIT;
            pi.seq = ++a->ping_seq;
            pi.sent_us = clock_wall_us();
            env.body_case = QUERN__ENVELOPE__BODY_PING;
            env.ping = &pi;
            peer_send(&a->con, &env);
        }
    }
}

/* agents — the console's side of its agents; see agents.h. */
#include "console/agents.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/err.h"
#include "common/ofile.h"
#include "common/inaddr.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/ratelog.h"
#include "common/version.h"
#include "console/rundb.h"
#include "console/run.h"
#include "proto/seal.h"

static void conn_send_result(aconn *c, int ok, const char *reason)
{
    handshake_msg m;

    peer_send(&c->link, handshake_result(ok, reason, &m));
}

/* A line about a peer refused before it authenticated: anyone can cause
 * those at will, so a few per AGENTS_REFUSAL_LOG_US and a count of the rest. */
static void refusal(ratelog *rl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refusal(ratelog *rl, const char *fmt, ...)
{
    char msg[512];
    unsigned more = 0;
    va_list ap;

    if (!ratelog_ok(rl, clock_mono_us(), AGENTS_REFUSAL_LOG_US, AGENTS_REFUSAL_BURST, &more))
        return;
    va_start(ap, fmt);
    err_vset(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (more > 0)
        log_msg(LOG_WARN, "%s (and %u more refused peer(s) not shown)", msg, more);
    else
        log_msg(LOG_WARN, "%s", msg);
}

/* 1 while c is a handshake in progress: not yet authenticated. */
static int conn_pending(const aconn *c)
{
    return !c->authed && (c->state == AC_HELLO || c->state == AC_PROOF || c->state == AC_CLOSING);
}

/* Derives the connection's keys: from now on what we send is sealed, and
 * what the agent sends after its proof must be. */
static int conn_seal(run *r, aconn *c)
{
    return handshake_seal(&c->link, &c->hs, r->token, r->token_len, FRAME_MAX_SMALL);
}

/* Closes after what is queued has left (bounded by the tick). */
static void conn_close_soon(aconn *c)
{
    c->state = AC_CLOSING;
    c->closing_at_us = clock_mono_us() + 1000000;
}

void agents_lost(run *r, aconn *c, const char *why)
{
    unsigned left = 0;

    c->lost = 1;
    r->running_known = 0;
    for (size_t i = 0; i < r->nconns; i++)
        left += r->conns[i]->in_run && !r->conns[i]->lost && !r->conns[i]->finished;
    if (r->phase == PHASE_RUN) {
        r->degraded = 1;
        log_msg(LOG_ERROR, "agent %s lost (%s): its statistics so far are kept; %u agent(s) go on",
                c->name, why, left);
    } else if (r->phase == PHASE_START) {
        if (!r->start_error) {
            r->start_error = 3;
            err_set(r->start_msg, sizeof(r->start_msg), "agent %s lost before the start (%s)",
                    c->name, why);
        }
    }
}

void agents_on_close(peer *l, const char *why, void *ud)
{
    aconn *c = ud;
    run *r = c->r;

    if (c->state == AC_AGENT && c->in_run && !c->finished && !c->lost)
        agents_lost(r, c, why);
    else if (c->state == AC_AGENT)
        log_msg(LOG_INFO, "agent %s disconnected (%s)", c->name, why);
    else if (c->authed)
        log_msg(LOG_WARN, "connection from %s closed before it registered: %s", c->addr, why);
    else if (c->state != AC_CLOSING)
        refusal(&r->refused_log, "connection from %s closed during the handshake: %s", c->addr,
                why);
    c->state = AC_GONE;
}

static void register_agent(run *r, aconn *c, const Quern__Register *rg)
{
    handshake_msg m;
    char base[100];
    int n = 1;

    if (rg->workers > AGENTS_WORKERS_MAX || (rg->name[0] == '\0' && rg->host[0] == '\0')) {
        log_msg(LOG_WARN, "refused agent %s: it registers with %u worker(s) (1 to %d) or no name",
                c->addr, rg->workers, AGENTS_WORKERS_MAX);
        peer_send(&c->link, handshake_registered(0, 0, "workers out of 1..1024, or no name", &m));
        conn_close_soon(c);
        return;
    }
    snprintf(base, sizeof(base), "%s", rg->name[0] ? rg->name : rg->host);
    for (;;) {
        int dup = 0;
        if (n == 1)
            snprintf(c->name, sizeof(c->name), "%s", base);
        else
            snprintf(c->name, sizeof(c->name), "%s-%d", base, n);
        for (size_t i = 0; i < r->nconns; i++)
            dup |= r->conns[i] != c && r->conns[i]->state == AC_AGENT &&
                   strcmp(r->conns[i]->name, c->name) == 0;
        if (!dup)
            break;
        n++;
    }
    snprintf(c->host, sizeof(c->host), "%s", rg->host);
    c->workers = rg->workers > 0 ? rg->workers : 1;
    if (r->o.workers > 0 && c->workers > r->o.workers)
        c->workers = r->o.workers;
    c->index = r->next_index++;
    c->state = AC_AGENT;
    peer_send(&c->link, handshake_registered(1, c->index, NULL, &m));
    if (!r->o.embedded)
        log_msg(LOG_INFO, "agent %s registered from %s (host %s, %u worker(s), pid %u)", c->name,
                c->addr, c->host, c->workers, rg->pid);
}

/* The agent's Hello: ours back, or the peer refused. */
static void on_hello(peer *l, aconn *c, const Quern__Envelope *env)
{
    handshake_msg m;
    char why[128];

    if (handshake_hello_take(&c->hs, env, why, sizeof(why)) != 0) {
        refusal(&c->r->refused_log, "refused peer %s: %s", c->addr, why);
        peer_fail(l, "bad hello");
        return;
    }
    if (handshake_keys(&c->hs) != 0) {
        peer_fail(l, "no random numbers");
        return;
    }
    peer_send(l, handshake_hello(&c->hs, &m));
    c->state = AC_PROOF;
}

/* The number of agents authenticated and not gone. */
static size_t authed_count(const run *r)
{
    size_t authed = 0;

    for (size_t i = 0; i < r->nconns; i++)
        authed += r->conns[i]->authed && r->conns[i]->state != AC_GONE;
    return authed;
}

/* The agent's proof of the token: ours back and the link sealed, or the
 * agent told why not (a wrong token, too many agents) and closed. */
static void on_proof(peer *l, aconn *c, const Quern__Envelope *env)
{
    run *r = c->r;
    handshake_msg m;

    if (env->body_case != QUERN__ENVELOPE__BODY_AUTH_PROOF) {
        peer_fail(l, "expected an authentication proof");
        return;
    }
    if (!handshake_proof_ok(&c->hs, r->token, r->token_len, env->auth_proof)) {
        refusal(&r->token_log, "refused peer %s: wrong token", c->addr);
        conn_send_result(c, 0, "wrong token: the agent's token is not the console's");
        conn_close_soon(c);
        return;
    }
    if (authed_count(r) >= AGENTS_CONN_MAX) {
        log_msg(LOG_WARN, "refused agent %s: already %d agents", c->addr, AGENTS_CONN_MAX);
        conn_send_result(c, 0, "the console has too many agents");
        conn_close_soon(c);
        return;
    }
    peer_send(l, handshake_proof(&c->hs, r->token, r->token_len, &m));
    conn_send_result(c, 1, NULL);
    /* The switch: AuthResult(ok) is our last plain frame, the agent's
     * proof was its last one. */
    if (conn_seal(r, c) != 0)
        return;
    c->authed = 1;
    c->state = AC_REGISTER;
}

/* Ready from an agent of the run: its VUs, or the start's error. */
static void on_ready(peer *l, aconn *c, const Quern__Ready *ready)
{
    run *r = c->r;

    if (!c->in_run || ready->run_id != r->run_id)
        return;
    if (!ready->ok) {
        if (!r->start_error) {
            r->start_error = 2;
            err_set(r->start_msg, sizeof(r->start_msg), "agent %s: %s", c->name, ready->error);
        }
    } else if (!c->steps_ok) {
        peer_fail(l, "Ready before StepsDef");
    } else {
        c->ready = 1;
        c->vus = ready->vus;
    }
}

/* What a registered agent sends: its run's frames go up (r->up), the rest
 * is logged or answered here. */
static void on_agent_msg(peer *l, aconn *c, const Quern__Envelope *env)
{
    run *r = c->r;
    char err[ERR_MAX];

    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_PING:
        peer_pong(l, env->ping);
        break;
    case QUERN__ENVELOPE__BODY_STEPS_DEF:
        if (c->in_run && env->steps_def->run_id == r->run_id)
            r->up->steps_def(r, c, env->steps_def);
        break;
    case QUERN__ENVELOPE__BODY_READY:
        on_ready(l, c, env->ready);
        break;
    case QUERN__ENVELOPE__BODY_INTERVAL:
        if (c->in_run)
            r->up->interval(r, c, env->interval);
        break;
    case QUERN__ENVELOPE__BODY_WORKER_STATE:
        if (c->in_run && env->worker_state->run_id == r->run_id) {
            log_msg(LOG_WARN, "agent %s: %s", c->name, env->worker_state->message);
            /* Its VUs stopped and its last second is lost: not a full run. */
            if (strcmp(env->worker_state->state, "crashed") == 0)
                r->degraded = 1;
        }
        break;
    case QUERN__ENVELOPE__BODY_LOG_LINE:
        if (r->o.embedded)
            log_raw(env->log_line->text);
        else
            log_msg(LOG_INFO, "agent %s: %s", c->name, env->log_line->text);
        break;
    case QUERN__ENVELOPE__BODY_FILE_PART:
        if (c->in_run && !c->finished && env->file_part->run_id == r->run_id && r->gather != NULL) {
            if (gather_part(r->gather, env->file_part, err, sizeof(err)) != 0)
                log_msg(LOG_ERROR, "agent %s: %s", c->name, err);
        }
        break;
    case QUERN__ENVELOPE__BODY_PROFILE_START:
        if (c->in_run && env->profile_start->run_id == r->run_id &&
            profile_on_start(r->profile, c->name, env->profile_start, rundb_db(r), r->db_run, err,
                             sizeof(err)) != 0)
            rundb_failed(r, err);
        break;
    case QUERN__ENVELOPE__BODY_PROFILE_SECOND:
        if (c->in_run && !c->finished && env->profile_second->run_id == r->run_id &&
            profile_on_second(r->profile, c->name, env->profile_second, rundb_db(r), r->db_run, err,
                              sizeof(err)) != 0)
            rundb_failed(r, err);
        break;
    case QUERN__ENVELOPE__BODY_RUN_FINISHED:
        if (c->in_run && env->run_finished->run_id == r->run_id && !c->finished) {
            c->finished = 1;
            r->running_known = 0;
            snprintf(c->status, sizeof(c->status), "%s", env->run_finished->status);
            if (env->run_finished->message[0])
                log_msg(LOG_WARN, "agent %s finished: %s", c->name, env->run_finished->message);
            r->up->flush(r, 0);
        }
        break;
    default:
        break;
    }
}

void agents_on_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    aconn *c = ud;
    run *r = c->r;

    c->last_rx_us = clock_mono_us();
    switch (c->state) {
    case AC_HELLO:
        on_hello(l, c, env);
        return;
    case AC_PROOF:
        on_proof(l, c, env);
        return;
    case AC_REGISTER:
        if (env->body_case != QUERN__ENVELOPE__BODY_REGISTER) {
            peer_fail(l, "expected Register");
            return;
        }
        register_agent(r, c, env->register_);
        if (r->o.embedded)
            local_token_drop(&r->la); /* our agent has proved it knows it */
        return;
    case AC_AGENT:
        on_agent_msg(l, c, env);
        return;
    default:
        return;
    }
}

/* 1 if a should go before b: one that has not even said Hello first, then
 * the older. */
static int goes_first(const aconn *a, const aconn *b)
{
    if ((a->state == AC_HELLO) != (b->state == AC_HELLO))
        return a->state == AC_HELLO;
    return a->since_us < b->since_us;
}

size_t agents_victim(aconn *const *conns, size_t n, const char *ip)
{
    size_t victim = SIZE_MAX, v_net = 0, v_ip = 0;

    for (size_t i = 0; i < n; i++) {
        const aconn *c = conns[i];
        size_t in_net = 0, in_ip = 0;
        if (!conn_pending(c) || (ip != NULL && strcmp(c->ip, ip) != 0))
            continue;
        for (size_t j = 0; j < n; j++) {
            if (!conn_pending(conns[j]) || strcmp(conns[j]->net, c->net) != 0)
                continue;
            in_net++;
            in_ip += strcmp(conns[j]->ip, c->ip) == 0;
        }
        if (victim == SIZE_MAX || in_net > v_net ||
            (in_net == v_net &&
             (in_ip > v_ip || (in_ip == v_ip && goes_first(c, conns[victim]))))) {
            victim = i;
            v_net = in_net;
            v_ip = in_ip;
        }
    }
    return victim;
}

/* Handshakes in progress are bounded apart from the agents' slots: when a
 * new one from host would pass AGENTS_PENDING_PER_ADDR from that address,
 * one of that address's goes; when it would pass AGENTS_PENDING_MAX in all,
 * one from the network, then the address, holding the most goes
 * (agents_victim). A flood, however fast, only displaces its own
 * connections, and an agent's handshake (one round trip) is never dropped
 * for a peer's elsewhere: its address holds one. */
static void make_room(run *r, const char *host)
{
    size_t pending = 0, from_host = 0, victim;
    int by_host;

    for (size_t i = 0; i < r->nconns; i++) {
        if (!conn_pending(r->conns[i]))
            continue;
        pending++;
        from_host += strcmp(r->conns[i]->ip, host) == 0;
    }
    if (from_host < AGENTS_PENDING_PER_ADDR && pending < AGENTS_PENDING_MAX)
        return;
    by_host = from_host >= AGENTS_PENDING_PER_ADDR;
    victim = agents_victim(r->conns, r->nconns, by_host ? host : NULL);
    if (victim == SIZE_MAX)
        return;
    refusal(&r->refused_log, "dropped the pending handshake of %s: too many handshakes at once%s",
            r->conns[victim]->addr, by_host ? " from that address" : " from its network");
    peer_close(&r->conns[victim]->link);
    xfree(r->conns[victim]);
    memmove(r->conns + victim, r->conns + victim + 1, (r->nconns - victim - 1) * sizeof(*r->conns));
    r->nconns--;
}

/* The peer's network, whose handshakes are shared fairly with the others':
 * its /24 for IPv4 (also mapped in IPv6), its /64 for IPv6. */
static void net_of(const struct sockaddr_storage *ss, char *out, size_t outlen)
{
    struct in_addr a4;
    struct in6_addr a6;
    char s[INET6_ADDRSTRLEN] = "?";

    if (ss->ss_family == AF_INET6) {
        a6 = ((const struct sockaddr_in6 *)ss)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(&a6)) {
            memcpy(&a4, a6.s6_addr + 12, sizeof(a4));
        } else {
            memset(a6.s6_addr + 8, 0, 8);
            inet_ntop(AF_INET6, &a6, s, sizeof(s));
            snprintf(out, outlen, "%s/64", s);
            return;
        }
    } else if (ss->ss_family == AF_INET) {
        a4 = ((const struct sockaddr_in *)ss)->sin_addr;
    } else {
        snprintf(out, outlen, "?");
        return;
    }
    a4.s_addr &= htonl(0xffffff00u);
    inet_ntop(AF_INET, &a4, s, sizeof(s));
    snprintf(out, outlen, "%s/24", s);
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    run *r = w->data;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int fd = accept4(r->lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    aconn *c;
    char host[48] = "?";

    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
            /* Out of descriptors: the pending connection would wake us at
             * once, forever. Pause accepting for a second (on_tick). */
            log_msg(LOG_WARN, "cannot accept agents: %s; pausing for a second", strerror(errno));
            ev_io_stop(loop, w);
            r->accept_paused_us = clock_mono_us();
        }
        return;
    }
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
    make_room(r, host);
    c = xcalloc(1, sizeof(*c));
    c->r = r;
    c->state = AC_HELLO;
    snprintf(c->ip, sizeof(c->ip), "%s", host);
    net_of(&ss, c->net, sizeof(c->net));
    c->since_us = c->last_rx_us = clock_mono_us();
    snprintf(c->addr, sizeof(c->addr), "%s:%u", host,
             ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                     : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
    handshake_init(&c->hs, "console");
    /* Small frames until the peer has proved the token (conn_seal). */
    peer_init(&c->link, loop, fd, FRAME_MAX_PREAUTH, AGENTS_QUEUE_MAX, agents_on_msg,
              agents_on_close, c);
    r->conns = xreallocarray(r->conns, (r->nconns + 1), sizeof(*r->conns));
    r->conns[r->nconns++] = c;
}

/* Forgets closed connections that are not part of the run. */
static void reap_conns(run *r)
{
    size_t j = 0;

    for (size_t i = 0; i < r->nconns; i++) {
        aconn *c = r->conns[i];
        if (c->state == AC_GONE && !c->in_run) {
            peer_close(&c->link);
            xfree(c);
            continue;
        }
        r->conns[j++] = c;
    }
    r->nconns = j;
}

int agents_listen(run *r, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    const char *colon = strrchr(r->o.listen, ':');
    char host[256], port[16];
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int one = 1, rc = -1, gai;

    if (colon == NULL || colon == r->o.listen || (size_t)(colon - r->o.listen) >= sizeof(host) ||
        colon[1] == '\0' || strlen(colon + 1) >= sizeof(port)) {
        err_set(err, errlen, "--listen wants HOST:PORT, got \"%s\"", r->o.listen);
        return -1;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - r->o.listen), r->o.listen);
    snprintf(port, sizeof(port), "%s", colon + 1);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        err_set(err, errlen, "--listen %s: %s", r->o.listen, gai_strerror(gai));
        return -1;
    }
    if (r->o.token_file == NULL) {
        if (!inaddr_is_loopback(res->ai_addr))
            err_set(err, errlen,
                    "refusing to listen on %s without --token-file: agents run the code the "
                    "console sends, so every agent must prove it knows a shared secret",
                    r->o.listen);
        else
            err_set(err, errlen,
                    "--token-file is required to accept agents (a file of mode 600 holding a "
                    "shared secret; give the agents the same one)");
        goto out;
    }
    r->lfd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (r->lfd < 0) {
        err_set(err, errlen, "socket: %s", strerror(errno));
        goto out;
    }
    setsockopt(r->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(r->lfd, res->ai_addr, res->ai_addrlen) != 0 || listen(r->lfd, SOMAXCONN) != 0) {
        err_set(err, errlen, "cannot listen on %s: %s", r->o.listen, strerror(errno));
        goto out;
    }
    if (getsockname(r->lfd, (struct sockaddr *)&ss, &len) == 0) {
        unsigned p = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                             : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        r->port = p;
        if (!r->o.embedded)
            log_msg(LOG_INFO, "console listening on %s:%u, waiting for %u agent(s)", host, p,
                    r->o.agents);
        if (r->o.port_file != NULL) {
            char line[16], oerr[ERR_MAX];
            int n = snprintf(line, sizeof(line), "%u\n", p);
            if (ofile_put(r->o.port_file, OFILE_REPLACE, line, (size_t)n, oerr, sizeof(oerr)) !=
                0) {
                err_set(err, errlen, "--port-file %s", oerr);
                goto out;
            }
        }
    }
    rc = 0;
out:
    freeaddrinfo(res);
    return rc;
}

/* ---------------------------------------------------------------- main */

unsigned agents_in_run(const run *r)
{
    unsigned n = 0;
    for (size_t i = 0; i < r->nconns; i++)
        n += r->conns[i]->in_run;
    return n;
}

unsigned agents_alive(const run *r)
{
    unsigned n = 0;
    for (size_t i = 0; i < r->nconns; i++)
        n += r->conns[i]->in_run && !r->conns[i]->lost;
    return n;
}

unsigned agents_running(run *r)
{
    unsigned n = 0;

    /* Asked for each Interval: counted again only after a change, not for
     * each of a thousand agents' frames. */
    if (r->running_known)
        return r->running;
    for (size_t i = 0; i < r->nconns; i++)
        n += r->conns[i]->in_run && !r->conns[i]->lost && !r->conns[i]->finished;
    r->running = n;
    r->running_known = 1;
    return n;
}

void agents_send_all(run *r, Quern__Envelope *env)
{
    for (size_t i = 0; i < r->nconns; i++)
        if (r->conns[i]->in_run && !r->conns[i]->lost)
            peer_send(&r->conns[i]->link, env);
}

uint32_t agents_vus_ran(const aconn *c)
{
    /* VUs whose runs all ended within a second are never active at a
     * second's end: those that began a run count too */
    return c->started > c->active_peak ? c->started : c->active_peak;
}

void agents_breakdown(const run *r, FILE *out)
{
    /* VUs: the most active at once on it (after any steering), of the
     * slots it was given (the open model's pool, a steered load's ceiling) */
    fprintf(out, "\nAgents:\n  %-24s %8s %8s %12s %10s  %s\n", "agent", "VUs", "of", "requests",
            "errors", "status");
    for (size_t i = 0; i < r->nconns; i++) {
        const aconn *c = r->conns[i];
        if (!c->in_run)
            continue;
        fprintf(out, "  %-24s %8u %8u %12llu %10llu  %s\n", c->name, agents_vus_ran(c), c->vus,
                (unsigned long long)c->requests, (unsigned long long)c->errors,
                c->lost ? "lost" : c->status);
    }
}

void agents_watch(run *r)
{
    ev_io_init(&r->accept_io, on_accept, r->lfd, EV_READ);
    r->accept_io.data = r;
    ev_io_start(r->loop, &r->accept_io);
}

void agents_tick(run *r, int64_t now, agents_counts *n)
{
    int ping = now - r->last_ping_us >= 1000000, run_ping;
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Ping pi = QUERN__PING__INIT;

    if (r->accept_paused_us != 0 && now - r->accept_paused_us >= 1000000) {
        r->accept_paused_us = 0;
        ev_io_start(r->loop, &r->accept_io);
    }
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &pi;
    if (ping) {
        r->last_ping_us = now;
        pi.seq = ++r->ping_seq; /* one a ping second: every 2nd goes to a running agent */
        pi.sent_us = clock_wall_us();
    }
    run_ping = ping && (r->phase != PHASE_RUN || pi.seq % AGENTS_RUN_PING_EVERY == 0);
    memset(n, 0, sizeof(*n));
    for (size_t i = 0; i < r->nconns; i++) {
        aconn *c = r->conns[i];
        if (c->state == AC_CLOSING && (peer_pending(&c->link) == 0 || now >= c->closing_at_us)) {
            peer_close(&c->link);
            c->state = AC_GONE;
        } else if ((c->state == AC_HELLO || c->state == AC_PROOF || c->state == AC_REGISTER) &&
                   now - c->since_us > AGENTS_HANDSHAKE_US) {
            if (c->authed)
                log_msg(LOG_WARN, "agent %s: authenticated but not registered within 5 s", c->addr);
            else
                refusal(&r->refused_log, "refused peer %s: no complete handshake within 5 s",
                        c->addr);
            c->state = AC_CLOSING; /* said once: agents_on_close adds nothing */
            peer_fail(&c->link, "handshake timeout");
        } else if (c->state == AC_AGENT && now - c->last_rx_us > AGENTS_SILENCE_US) {
            peer_fail(&c->link, "silent for 5 s");
        } else if (c->state == AC_AGENT && (c->in_run ? run_ping : ping)) {
            peer_send(&c->link, &env);
        }
        n->registered += c->state == AC_AGENT;
        n->in_run += c->in_run;
        n->ready += c->in_run && c->ready && !c->lost;
        n->done += c->in_run && (c->finished || c->lost);
    }
    reap_conns(r);
}

void agents_free(run *r)
{
    for (size_t i = 0; i < r->nconns; i++) {
        peer_close(&r->conns[i]->link);
        xfree(r->conns[i]);
    }
    xfree(r->conns);
    r->conns = NULL;
    r->nconns = 0;
}

/* linkprobe — an attacker on the console–agent link, for the end-to-end tests
 * (tests/e2e/dist_link.sh). It knows no token.
 *
 *   linkprobe relay PORTFILE CONSOLE_PORT MODE [ARG]
 *       Listens on a loopback port (written to PORTFILE); for each agent that
 *       connects, opens a connection to the console and relays both ways.
 *       MODE inject BASE_URL: relays the handshake (the console's first three
 *       frames: Hello, AuthProof, AuthResult), then drops what the console
 *       sends and sends the agent its own Registered, a StartRun whose script
 *       hits BASE_URL/injected, and a Go.
 *       MODE flip: flips one byte of the first large frame from the console
 *       (over 256 bytes: the StartRun; in "FLIPME" when it can be seen, else in the middle).
 *       MODE record FILE: appends every byte, both ways, to FILE.
 *       MODE delay MS: holds what it reads MS ms before passing it on, either
 *       way (an agent 2 x MS away).
 *   linkprobe fakecon PORTFILE MODE LOGFILE
 *       A console without the token: appends a line to LOGFILE per agent
 *       connection, then MODE big: a 16 MiB frame of 8 M empty BundleFiles
 *       before anything else; early: AuthResult(ok=false) before Hello;
 *       badproof: the handshake with a wrong proof. Then reads until the
 *       agent closes (6 s at most).
 *   linkprobe evilcon PORTFILE TOKENFILE
 *       A console that knows the token (an authenticated console gone bad):
 *       does the whole handshake and seals the link, then sends StartRuns an
 *       agent must refuse (vus_total 4e9; script "../../x.lua"; 100000
 *       workers), printing "ready ok=N error=..." for each answer.
 *   linkprobe flood CONSOLE_PORT N SECONDS
 *       Holds N silent connections to the console for SECONDS, opening a new
 *       one (at most 200 a second) whenever one is closed; prints how many
 *       were closed by the console.
 *   linkprobe hellos CONSOLE_PORT RATE SECONDS
 *       For SECONDS, opens RATE connections a second from the 32 addresses
 *       127.0.0.10 to 127.0.0.41 in turn, each sending an agent's Hello and
 *       then idling; prints "opened N closed M answered K": connections
 *       opened, closed by the console, and answered with its Hello.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/handshake.h"
#include "proto/seal.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int listen_port(const char *portfile)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    FILE *f;
    char tmp[4096];

    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        perror("linkprobe: listen");
        exit(2);
    }
    snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
    f = fopen(tmp, "w");
    if (f == NULL) {
        perror("linkprobe: port file");
        exit(2);
    }
    fprintf(f, "%u\n", ntohs(sa.sin_port));
    fclose(f);
    rename(tmp, portfile);
    return fd;
}

static int connect_port(int port, int nonblock)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_env(int fd, const Quern__Envelope *env)
{
    uint8_t *buf;
    ssize_t n = frame_encode(env, FRAME_MAX_DEFAULT, &buf);
    int rc;

    if (n < 0)
        return -1;
    rc = write_all(fd, buf, (size_t)n);
    xfree(buf);
    return rc;
}

/* Reads one whole frame (blocking, timeout_ms); returns its decoded envelope
 * or NULL. */
static Quern__Envelope *recv_env(int fd, int timeout_ms)
{
    uint8_t hdr[4], *body;
    size_t got = 0, n;
    Quern__Envelope *env;
    struct pollfd p = {.fd = fd, .events = POLLIN};

    while (got < 4) {
        ssize_t r;
        if (poll(&p, 1, timeout_ms) <= 0)
            return NULL;
        r = read(fd, hdr + got, 4 - got);
        if (r <= 0)
            return NULL;
        got += (size_t)r;
    }
    n = ((size_t)hdr[0] << 24) | ((size_t)hdr[1] << 16) | ((size_t)hdr[2] << 8) | hdr[3];
    if (n == 0 || n > 65536)
        return NULL;
    body = xmalloc(n);
    for (got = 0; got < n;) {
        ssize_t r;
        if (poll(&p, 1, timeout_ms) <= 0) {
            xfree(body);
            return NULL;
        }
        r = read(fd, body + got, n - got);
        if (r <= 0) {
            xfree(body);
            return NULL;
        }
        got += (size_t)r;
    }
    env = quern__envelope__unpack(NULL, n, body);
    xfree(body);
    return env;
}

/* ---------------------------------------------------------------- relay */

typedef struct relay {
    const char *mode, *arg;
    FILE *capture;
    int injected;
    size_t down_frames; /* complete frames seen from the console */
    uint8_t *down;      /* bytes from the console not yet forwarded */
    size_t ndown, capdown;
    int flipped;
} relay;

static void inject(int agent_fd, const char *base)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Registered rg = QUERN__REGISTERED__INIT;
    Quern__StartRun sr = QUERN__START_RUN__INIT;
    Quern__Schedule sch = QUERN__SCHEDULE__INIT;
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp = &f;
    Quern__VuRange vr = QUERN__VU_RANGE__INIT, *vp = &vr;
    Quern__Go go = QUERN__GO__INIT;
    char script[1024];

    snprintf(script, sizeof(script),
             "local quern = require \"quern\"\n"
             "local sc = quern.scenario(\"EVIL\", {})\n"
             "local s = sc:step(1, \"Injected\")\n"
             "function sc.run(vu) s:get(\"%s/injected\") end\n",
             base);
    rg.ok = 1;
    env.body_case = QUERN__ENVELOPE__BODY_REGISTERED;
    env.registered = &rg;
    send_env(agent_fd, &env);
    f.path = (char *)"evil.lua";
    f.data.data = (uint8_t *)script;
    f.data.len = strlen(script);
    vr.first = 1;
    vr.count = 1;
    sch.runs = 3;
    sch.grace_us = 1000000;
    sr.run_id = 4242;
    sr.script_name = (char *)"evil.lua";
    sr.files = &fp;
    sr.n_files = 1;
    sr.vus_total = 1;
    sr.vu_ranges = &vp;
    sr.n_vu_ranges = 1;
    sr.schedule = &sch;
    sr.workers = 1;
    sr.run_name = (char *)"injected";
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &sr;
    send_env(agent_fd, &env);
    sleep(2); /* the workers load the script */
    go.run_id = 4242;
    env.body_case = QUERN__ENVELOPE__BODY_GO;
    env.go = &go;
    send_env(agent_fd, &env);
    fprintf(stderr, "linkprobe: injected Registered, StartRun and Go\n");
}

/* Bytes from the console: forwarded frame by frame, so a frame can be
 * dropped or altered. Returns -1 once the agent side is gone. */
static int relay_down(relay *rl, int agent_fd, const uint8_t *p, size_t n)
{
    if (rl->ndown + n > rl->capdown) {
        rl->capdown = (rl->ndown + n) * 2;
        rl->down = xrealloc(rl->down, rl->capdown);
    }
    memcpy(rl->down + rl->ndown, p, n);
    rl->ndown += n;
    for (;;) {
        size_t len, total;
        uint8_t *b = rl->down;
        if (rl->ndown < 4)
            return 0;
        len = ((size_t)b[0] << 24) | ((size_t)b[1] << 16) | ((size_t)b[2] << 8) | b[3];
        total = 4 + len;
        if (rl->ndown < total)
            return 0;
        rl->down_frames++;
        if (strcmp(rl->mode, "flip") == 0 && !rl->flipped && len > 256) {
            uint8_t *m = memmem(b + 4, len, "FLIPME", 6);
            if (m != NULL)
                m[0] = 'G';
            else
                b[4 + len / 2] ^= 0x01;
            rl->flipped = 1;
            fprintf(stderr, "linkprobe: flipped a byte of a %zu-byte frame (%s)\n", len,
                    m != NULL ? "in FLIPME" : "in the middle");
        }
        if (strcmp(rl->mode, "inject") == 0 && rl->down_frames > 3) {
            /* dropped: the console's own Registered and StartRun */
        } else if (write_all(agent_fd, b, total) != 0) {
            return -1;
        }
        if (strcmp(rl->mode, "inject") == 0 && rl->down_frames == 3 && !rl->injected) {
            rl->injected = 1;
            inject(agent_fd, rl->arg);
        }
        memmove(rl->down, b + total, rl->ndown - total);
        rl->ndown -= total;
    }
}

/* MODE delay: one connection's bytes wait in turn, as on a long link whose
 * two sides take turns (a handshake). */
static void relay_delay(const relay *rl)
{
    struct timespec ts;
    long ms;

    if (strcmp(rl->mode, "delay") != 0)
        return;
    ms = atol(rl->arg);
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int relay_main(int argc, char **argv)
{
    relay rl;
    int lfd;

    if (argc < 5)
        return 2;
    memset(&rl, 0, sizeof(rl));
    rl.mode = argv[4];
    rl.arg = argc > 5 ? argv[5] : "";
    if (strcmp(rl.mode, "record") == 0) {
        rl.capture = fopen(rl.arg, "a");
        if (rl.capture == NULL)
            return 2;
    }
    lfd = listen_port(argv[2]);
    for (;;) {
        int a = accept(lfd, NULL, NULL), c;
        uint8_t buf[65536];

        if (a < 0)
            continue;
        c = connect_port(atoi(argv[3]), 0);
        if (c < 0) {
            close(a);
            continue;
        }
        rl.down_frames = 0;
        rl.ndown = 0;
        rl.injected = 0;
        for (;;) {
            struct pollfd p[2] = {{.fd = a, .events = POLLIN}, {.fd = c, .events = POLLIN}};
            ssize_t n;
            if (poll(p, 2, -1) < 0 && errno != EINTR)
                break;
            if (p[0].revents) {
                n = read(a, buf, sizeof(buf));
                if (n <= 0)
                    break;
                relay_delay(&rl);
                if (rl.capture != NULL)
                    fwrite(buf, 1, (size_t)n, rl.capture), fflush(rl.capture);
                if (write_all(c, buf, (size_t)n) != 0)
                    break;
            }
            if (p[1].revents) {
                n = read(c, buf, sizeof(buf));
                if (n <= 0)
                    break;
                relay_delay(&rl);
                if (rl.capture != NULL)
                    fwrite(buf, 1, (size_t)n, rl.capture), fflush(rl.capture);
                if (relay_down(&rl, a, buf, (size_t)n) != 0)
                    break;
            }
        }
        close(a);
        close(c);
        fprintf(stderr, "linkprobe: relayed connection ended\n");
    }
}

/* ---------------------------------------------------------------- fake console */

static void fake_big(int fd)
{
    /* Envelope { start_run (field 6) { files (field 3) x 8 M, each empty } } */
    size_t body = 16777215, inner = body - 5, i;
    uint8_t *b = xmalloc(4 + body);

    b[0] = (uint8_t)(body >> 24);
    b[1] = (uint8_t)(body >> 16);
    b[2] = (uint8_t)(body >> 8);
    b[3] = (uint8_t)body;
    b[4] = 0x32;
    b[5] = (uint8_t)(0x80 | (inner & 0x7f));
    b[6] = (uint8_t)(0x80 | ((inner >> 7) & 0x7f));
    b[7] = (uint8_t)(0x80 | ((inner >> 14) & 0x7f));
    b[8] = (uint8_t)((inner >> 21) & 0x7f);
    for (i = 9; i + 1 < 4 + body; i += 2) {
        b[i] = 0x1a;
        b[i + 1] = 0x00;
    }
    write_all(fd, b, 4 + body);
    xfree(b);
}

static void fake_early(int fd)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__AuthResult ar = QUERN__AUTH_RESULT__INIT;

    ar.ok = 0;
    ar.reason = (char *)"go away";
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &ar;
    send_env(fd, &env);
}

static void fake_badproof(int fd)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT, *in;
    Quern__Hello h = QUERN__HELLO__INIT;
    Quern__AuthProof pr = QUERN__AUTH_PROOF__INIT;
    Quern__AuthResult ar = QUERN__AUTH_RESULT__INIT;
    uint8_t nonce[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN], priv[KEYEXCHANGE_LEN], pub[KEYEXCHANGE_LEN];

    in = recv_env(fd, 5000); /* the agent's Hello: we answer in its version */
    if (in == NULL || in->body_case != QUERN__ENVELOPE__BODY_HELLO)
        return;
    h.version = in->hello->version;
    quern__envelope__free_unpacked(in, NULL);
    auth_nonce(nonce);
    auth_nonce(mac);
    keyexchange_keypair(priv, pub);
    h.kx.data = pub;
    h.kx.len = KEYEXCHANGE_LEN;
    h.role = (char *)"console";
    h.nonce.data = nonce;
    h.nonce.len = sizeof(nonce);
    h.quern_version = (char *)"0.1.0";
    env.body_case = QUERN__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    send_env(fd, &env);
    in = recv_env(fd, 5000); /* the agent's proof */
    if (in == NULL)
        return;
    quern__envelope__free_unpacked(in, NULL);
    pr.mac.data = mac;
    pr.mac.len = sizeof(mac);
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_PROOF;
    env.auth_proof = &pr;
    send_env(fd, &env);
    ar.ok = 1;
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &ar;
    send_env(fd, &env);
}

static int fakecon_main(int argc, char **argv)
{
    int lfd;

    if (argc < 5)
        return 2;
    lfd = listen_port(argv[2]);
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        FILE *log;
        int64_t until;
        uint8_t buf[4096];

        if (fd < 0)
            continue;
        log = fopen(argv[4], "a");
        if (log != NULL) {
            fprintf(log, "connection\n");
            fclose(log);
        }
        if (strcmp(argv[3], "big") == 0)
            fake_big(fd);
        else if (strcmp(argv[3], "early") == 0)
            fake_early(fd);
        else
            fake_badproof(fd);
        until = now_ms() + 6000;
        for (;;) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            int left = (int)(until - now_ms());
            if (left <= 0 || poll(&p, 1, left) <= 0 || read(fd, buf, sizeof(buf)) <= 0)
                break;
        }
        close(fd);
    }
}

/* ---------------------------------------------------------------- evil console */

typedef struct econ {
    int fd;
    frame_reader *r;
    frame_writer *w;
    seal *tx, *rx;
} econ;

static int econ_send(econ *e, const Quern__Envelope *env)
{
    struct pollfd p = {.fd = e->fd, .events = POLLOUT};
    int rc;

    if (frame_writer_push(e->w, env, FRAME_MAX_DEFAULT) != 0)
        return -1;
    while ((rc = frame_writer_flush(e->w, e->fd)) == 0)
        poll(&p, 1, 1000);
    return rc == 1 ? 0 : -1;
}

/* The next envelope of the agent (ignoring Ping and Pong), or NULL. */
static Quern__Envelope *econ_recv(econ *e, int timeout_ms)
{
    int64_t until = now_ms() + timeout_ms;
    char err[ERR_MAX];

    for (;;) {
        Quern__Envelope *env;
        struct pollfd p = {.fd = e->fd, .events = POLLIN};
        int rc = frame_reader_next(e->r, &env, err, sizeof(err));
        ssize_t n;
        if (rc == 1 && (env->body_case == QUERN__ENVELOPE__BODY_PING ||
                        env->body_case == QUERN__ENVELOPE__BODY_PONG ||
                        env->body_case == QUERN__ENVELOPE__BODY_LOG_LINE)) {
            quern__envelope__free_unpacked(env, NULL);
            continue;
        }
        if (rc == 1)
            return env;
        if (rc < 0 || now_ms() >= until) {
            fprintf(stderr, "linkprobe: evilcon: %s\n", rc < 0 ? err : "timeout");
            return NULL;
        }
        poll(&p, 1, (int)(until - now_ms()));
        n = frame_reader_read_fd(e->r, e->fd, err, sizeof(err));
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            fprintf(stderr, "linkprobe: evilcon: agent closed (%s)\n", n == 0 ? "eof" : err);
            return NULL;
        }
    }
}

/* Handshake as the console, then seals both ways; 0 when registered. */
static int econ_handshake(econ *e, const char *tok, size_t toklen)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT, *in;
    Quern__Hello h = QUERN__HELLO__INIT;
    Quern__AuthProof pr = QUERN__AUTH_PROOF__INIT;
    Quern__AuthResult ar = QUERN__AUTH_RESULT__INIT;
    Quern__Registered rg = QUERN__REGISTERED__INIT;
    uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN], up[SEAL_KEY_LEN],
        down[SEAL_KEY_LEN];
    uint8_t priv[KEYEXCHANGE_LEN], pub[KEYEXCHANGE_LEN], akx[KEYEXCHANGE_LEN] = {0},
                                                         secret[KEYEXCHANGE_LEN] = {0};
    seal_hs hs = {na, nc, akx, pub, secret};
    char err[ERR_MAX];

    in = econ_recv(e, 5000);
    if (in == NULL || in->body_case != QUERN__ENVELOPE__BODY_HELLO || in->hello->nonce.len != 32)
        return -1;
    memcpy(na, in->hello->nonce.data, sizeof(na));
    if (in->hello->kx.len == KEYEXCHANGE_LEN)
        memcpy(akx, in->hello->kx.data, KEYEXCHANGE_LEN);
    quern__envelope__free_unpacked(in, NULL);
    auth_nonce(nc);
    keyexchange_keypair(priv, pub);
    h.kx.data = pub;
    h.kx.len = KEYEXCHANGE_LEN;
    h.version = AUTH_PROTO_VERSION;
    h.role = (char *)"console";
    h.nonce.data = nc;
    h.nonce.len = sizeof(nc);
    h.quern_version = (char *)"0.1.0";
    env.body_case = QUERN__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    econ_send(e, &env);
    in = econ_recv(e, 5000);
    if (in == NULL || in->body_case != QUERN__ENVELOPE__BODY_AUTH_PROOF)
        return -1;
    quern__envelope__free_unpacked(in, NULL);
    auth_proof(tok, toklen, "console", na, nc, mac);
    pr.mac.data = mac;
    pr.mac.len = sizeof(mac);
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_PROOF;
    env.auth_proof = &pr;
    econ_send(e, &env);
    ar.ok = 1;
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &ar;
    econ_send(e, &env);
    keyexchange_shared(priv, akx, secret);
    seal_derive_keys(tok, toklen, &hs, up, down);
    e->tx = seal_new(down);
    e->rx = seal_new(up);
    frame_writer_seal(e->w, e->tx);
    if (frame_reader_seal(e->r, e->rx, FRAME_MAX_SMALL, err, sizeof(err)) != 0)
        return -1;
    in = econ_recv(e, 5000);
    if (in == NULL || in->body_case != QUERN__ENVELOPE__BODY_REGISTER)
        return -1;
    quern__envelope__free_unpacked(in, NULL);
    rg.ok = 1;
    env.body_case = QUERN__ENVELOPE__BODY_REGISTERED;
    env.registered = &rg;
    return econ_send(e, &env);
}

/* A StartRun that is valid but for one thing (what), and the agent's answer. */
static void econ_try(econ *e, int what, uint64_t run_id)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT, *in;
    Quern__StartRun sr = QUERN__START_RUN__INIT;
    Quern__Schedule sch = QUERN__SCHEDULE__INIT;
    Quern__BundleFile f = QUERN__BUNDLE_FILE__INIT, *fp = &f;
    Quern__VuRange vr = QUERN__VU_RANGE__INIT, *vp = &vr;
    static const char script[] = "local quern = require \"quern\"\n"
                                 "local sc = quern.scenario(\"X\", {})\n"
                                 "function sc.run(vu) end\n";

    f.path = (char *)"main.lua";
    f.data.data = (uint8_t *)script;
    f.data.len = sizeof(script) - 1;
    vr.first = 1;
    vr.count = 3;
    sch.runs = 1;
    sr.run_id = run_id;
    sr.script_name = (char *)(what == 1 ? "../../x.lua" : "main.lua");
    sr.files = &fp;
    sr.n_files = 1;
    sr.vus_total = what == 0 ? 4000000000u : 3;
    sr.vu_ranges = &vp;
    sr.n_vu_ranges = 1;
    sr.schedule = &sch;
    sr.workers = what == 2 ? 100000 : 1;
    sr.run_name = (char *)"evil";
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &sr;
    if (econ_send(e, &env) != 0) {
        printf("send failed\n");
        return;
    }
    in = econ_recv(e, 10000);
    while (in != NULL && in->body_case != QUERN__ENVELOPE__BODY_READY) {
        quern__envelope__free_unpacked(in, NULL);
        in = econ_recv(e, 10000);
    }
    if (in == NULL) {
        printf("no ready\n");
    } else {
        printf("ready ok=%d error=%s\n", in->ready->ok, in->ready->error);
        quern__envelope__free_unpacked(in, NULL);
    }
    fflush(stdout);
}

static int evilcon_main(int argc, char **argv)
{
    char *tok, err[ERR_MAX];
    size_t toklen;
    int lfd;
    econ e;

    if (argc < 4)
        return 2;
    if (auth_read_token_file(argv[3], &tok, &toklen, err, sizeof(err)) != 0) {
        fprintf(stderr, "linkprobe: %s\n", err);
        return 2;
    }
    lfd = listen_port(argv[2]);
    memset(&e, 0, sizeof(e));
    e.fd = accept(lfd, NULL, NULL);
    fcntl(e.fd, F_SETFL, fcntl(e.fd, F_GETFL) | O_NONBLOCK);
    e.r = frame_reader_new(FRAME_MAX_PREAUTH);
    e.w = frame_writer_new(FRAME_MAX_DEFAULT + 4096);
    if (econ_handshake(&e, tok, toklen) != 0) {
        printf("handshake failed\n");
        return 1;
    }
    printf("registered\n");
    fflush(stdout);
    for (int what = 0; what < 3; what++)
        econ_try(&e, what, 100 + (uint64_t)what);
    /* Hold the link until killed, answering nothing. */
    for (;;)
        pause();
}

/* ---------------------------------------------------------------- flood */

static int flood_main(int argc, char **argv)
{
    int port, n, secs;
    struct pollfd *p;
    struct rlimit rl;
    int64_t end, window = 0;
    long closed = 0, opened_in_window = 0;

    if (argc < 5)
        return 2;
    port = atoi(argv[2]);
    n = atoi(argv[3]);
    secs = atoi(argv[4]);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    p = xcalloc((size_t)n, sizeof(*p));
    for (int i = 0; i < n; i++) {
        p[i].fd = connect_port(port, 1);
        p[i].events = POLLIN;
    }
    end = now_ms() + secs * 1000;
    while (now_ms() < end) {
        int64_t t = now_ms();
        if (t - window >= 1000) {
            window = t;
            opened_in_window = 0;
        }
        if (poll(p, (nfds_t)n, 100) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++) {
            char buf[512];
            if (p[i].fd >= 0 && p[i].revents == 0)
                continue;
            if (p[i].fd >= 0) {
                ssize_t r = read(p[i].fd, buf, sizeof(buf));
                if (r > 0 || (r < 0 && errno == EAGAIN))
                    continue;
                close(p[i].fd);
                p[i].fd = -1;
                closed++;
            }
            if (opened_in_window < 200) {
                p[i].fd = connect_port(port, 1);
                opened_in_window++;
            }
            p[i].revents = 0;
        }
    }
    printf("%ld\n", closed);
    return 0;
}

/* ---------------------------------------------------------------- hellos */

#define HELLOS_ADDRS 32   /* 127.0.0.10 .. 127.0.0.41 */
#define HELLOS_OPEN 16384 /* connections held at once, at most */

/* A nonblocking connection to the console from 127.0.0.(10 + k). */
static int hellos_connect(int port, unsigned k)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;

    if (fd < 0)
        return -1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 10 + k % HELLOS_ADDRS);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static int hellos_main(int argc, char **argv)
{
    int port, rate, secs;
    struct pollfd *p;
    uint8_t *hello, *sent;
    ssize_t hlen;
    handshake hs;
    handshake_msg m;
    struct rlimit rl;
    int64_t start, end;
    long opened = 0, closed = 0, answered = 0;
    size_t next = 0;

    if (argc < 5)
        return 2;
    port = atoi(argv[2]);
    rate = atoi(argv[3]);
    secs = atoi(argv[4]);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < HELLOS_OPEN + 64) {
        rl.rlim_cur = rl.rlim_max < HELLOS_OPEN + 64 ? rl.rlim_max : HELLOS_OPEN + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    /* One Hello, valid in every field, sent on every connection. */
    handshake_init(&hs, "agent");
    if (handshake_keys(&hs) != 0)
        return 2;
    hlen = frame_encode(handshake_hello(&hs, &m), FRAME_MAX_DEFAULT, &hello);
    if (hlen < 0)
        return 2;
    p = xcalloc(HELLOS_OPEN, sizeof(*p));
    sent = xcalloc(HELLOS_OPEN, 1);
    for (size_t i = 0; i < HELLOS_OPEN; i++)
        p[i].fd = -1;
    start = now_ms();
    end = start + (int64_t)secs * 1000;
    while (now_ms() < end) {
        long due = (long)((now_ms() - start) * rate / 1000);
        /* Open what is due, in the oldest slots first (a slot still held is
         * let go: the flood moves on). */
        for (; opened < due; opened++) {
            size_t i = next++ % HELLOS_OPEN;
            if (p[i].fd >= 0)
                close(p[i].fd);
            p[i].fd = hellos_connect(port, (unsigned)opened);
            p[i].events = POLLOUT;
            sent[i] = 0;
        }
        if (poll(p, HELLOS_OPEN, 2) < 0 && errno != EINTR)
            break;
        for (size_t i = 0; i < HELLOS_OPEN; i++) {
            char buf[4096];
            ssize_t r;
            if (p[i].fd < 0 || p[i].revents == 0)
                continue;
            if ((p[i].revents & POLLOUT) && !sent[i]) {
                sent[i] = send(p[i].fd, hello, (size_t)hlen, MSG_NOSIGNAL) == hlen;
                p[i].events = POLLIN;
                if (!sent[i]) {
                    close(p[i].fd);
                    p[i].fd = -1;
                }
                continue;
            }
            r = read(p[i].fd, buf, sizeof(buf));
            if (r > 0) {
                answered += sent[i] == 1;
                sent[i] = 2;
                continue;
            }
            if (r < 0 && errno == EAGAIN)
                continue;
            close(p[i].fd);
            p[i].fd = -1;
            closed++;
        }
    }
    printf("opened %ld closed %ld answered %ld\n", opened, closed, answered);
    for (size_t i = 0; i < HELLOS_OPEN; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    xfree(p);
    xfree(sent);
    xfree(hello);
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 2 && strcmp(argv[1], "relay") == 0)
        return relay_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "fakecon") == 0)
        return fakecon_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "evilcon") == 0)
        return evilcon_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "flood") == 0)
        return flood_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "hellos") == 0)
        return hellos_main(argc, argv);
    fprintf(
        stderr,
        "usage: linkprobe relay|fakecon|evilcon|flood|hellos ... (see tests/tools/linkprobe.c)\n");
    return 2;
}

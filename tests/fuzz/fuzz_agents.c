/* fuzz_agents — the console's message handler (console/agents.c, agents_on_msg),
 * driven without a network: what an agent sends, from its Hello to its
 * RunFinished.
 *
 * Each input is
 * one agent connection: byte 0 says where the connection stands (bits 0-1:
 * waiting for the Hello; registering, as after a proof the fuzzer could not
 * forge; an agent in a run that is starting; an agent in a running run) and
 * how the rest is cut into reads; the rest is the stream, taken through a
 * frame_reader with the console's bound (FRAME_MAX_SMALL). The console is a
 * quiet one with no database, writing --jtl to /dev/null and
 * --grinder-logs into a private folder (emptied after each input); its
 * link is one end of a socketpair whose other end is drained, and its loop
 * never runs. Checks: no handler crashes or leaks; the connection's
 * counters and names stay within their buffers. */
#include <ev.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "console/run.h"
#include "proto/frame.h"

#include <ftw.h>

#include "tests/fuzz/fuzz_util.h"

static char gdir[64];

static int quiet_log(void *ud, enum log_level level, const char *line)
{
    return 0; /* taken: the fuzzer's output stays readable */
}

static int rm_below(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (ftw->level == 0)
        return 0;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void cleanup(void)
{
    nftw(gdir, rm_below, 8, FTW_DEPTH | FTW_PHYS);
    rmdir(gdir);
}

static void setup(void)
{
    if (getenv("FUZZ_LOG") == NULL) /* FUZZ_LOG=1: show the console's log */
        log_set_sink(quiet_log, NULL);
    snprintf(gdir, sizeof(gdir), "/tmp/quern-fuzz-agents.XXXXXX");
    fuzz_check(mkdtemp(gdir) != NULL);
    atexit(cleanup);
}

static void drain(int fd)
{
    char buf[65536];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char token[] = "fuzz-token";
    static int ready;
    run d;
    aconn *c;
    int sv[2], where;
    size_t chunk;
    frame_reader *fr;
    char err[ERR_MAX];

    if (size < 1)
        return 0;
    if (!ready) {
        setup();
        ready = 1;
    }
    where = data[0] & 3;
    chunk = (size_t)(data[0] >> 2) + 1;
    run_init(&d, 0, NULL);
    d.loop = ev_loop_new(EVFLAG_AUTO);
    fuzz_check(d.loop != NULL);
    d.o.quiet = 1;
    d.o.vus = 4;
    d.o.grace_us = 5000000;
    d.token = xstrdup(token);
    d.token_len = sizeof(token) - 1;
    d.run_id = 1;
    d.phase = where == 2 ? PHASE_START : where == 3 ? PHASE_RUN : PHASE_WAIT;
    d.gather = gather_new("/dev/null", gdir, err, sizeof(err));
    fuzz_check(d.gather != NULL);
    c = xcalloc(1, sizeof(*c));
    handshake_init(&c->hs, "console");
    c->r = &d;
    snprintf(c->addr, sizeof(c->addr), "127.0.0.1:40000");
    c->state = where == 0 ? AC_HELLO : where == 1 ? AC_REGISTER : AC_AGENT;
    if (c->state == AC_AGENT) {
        snprintf(c->name, sizeof(c->name), "inj1");
        c->workers = 2;
        c->in_run = 1;
    }
    d.conns = xcalloc(1, sizeof(*d.conns));
    d.conns[d.nconns++] = c;
    fuzz_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    peer_init(&c->link, d.loop, sv[0], FRAME_MAX_SMALL, AGENTS_QUEUE_MAX, agents_on_msg,
              agents_on_close, c);
    data++;
    size--;
    fr = frame_reader_new(FRAME_MAX_SMALL);
    for (size_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        Quern__Envelope *env;
        int rc = 0;

        if (frame_reader_feed(fr, data + off, n, err, sizeof(err)) != 0)
            break;
        while ((rc = frame_reader_next(fr, &env, err, sizeof(err))) == 1) {
            if (peer_alive(&c->link))
                agents_on_msg(&c->link, env, c);
            quern__envelope__free_unpacked(env, NULL);
            drain(sv[1]);
        }
        if (rc < 0)
            break;
    }
    frame_reader_free(fr);
    fuzz_check(memchr(c->name, '\0', sizeof(c->name)) != NULL);
    fuzz_check(memchr(c->status, '\0', sizeof(c->status)) != NULL);
    fuzz_check(!d.have_agg || d.agg.nsteps == d.nsteps);
    log_set_before(NULL, NULL); /* the live display goes with d */
    run_free(&d);
    close(sv[1]);
    nftw(gdir, rm_below, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

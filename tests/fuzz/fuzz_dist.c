/* fuzz_dist — the console's message handler (console/dist.c, on_conn_msg),
 * driven without a network: what an agent sends, from its Hello to its
 * RunFinished.
 *
 * The console's file is included to reach its static handler. Each input is
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
#include "console/dist.c"

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
    snprintf(gdir, sizeof(gdir), "/tmp/quern-fuzz-dist.XXXXXX");
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
    dist d;
    dconn *c;
    int sv[2], where;
    size_t chunk;
    frame_reader *fr;
    char err[256];

    if (size < 1)
        return 0;
    if (!ready) {
        setup();
        ready = 1;
    }
    where = data[0] & 3;
    chunk = (size_t)(data[0] >> 2) + 1;
    memset(&d, 0, sizeof(d));
    d.lfd = -1;
    d.loop = ev_loop_new(EVFLAG_AUTO);
    fuzz_check(d.loop != NULL);
    d.o.quiet = 1;
    d.o.vus = 4;
    d.o.grace_us = 5000000;
    d.token = xstrdup(token);
    d.token_len = sizeof(token) - 1;
    d.run_id = 1;
    d.phase = where == 2 ? DP_START : where == 3 ? DP_RUN : DP_WAIT;
    d.gather = gather_new("/dev/null", gdir, err, sizeof(err));
    fuzz_check(d.gather != NULL);
    c = xcalloc(1, sizeof(*c));
    c->d = &d;
    snprintf(c->addr, sizeof(c->addr), "127.0.0.1:40000");
    c->state = where == 0 ? DC_HELLO : where == 1 ? DC_REGISTER : DC_AGENT;
    if (c->state == DC_AGENT) {
        snprintf(c->name, sizeof(c->name), "inj1");
        c->workers = 2;
        c->in_run = 1;
    }
    d.conns = xcalloc(1, sizeof(*d.conns));
    d.conns[d.nconns++] = c;
    fuzz_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    peer_init(&c->link, d.loop, sv[0], FRAME_MAX_SMALL, DIST_QUEUE_MAX, on_conn_msg, on_conn_close,
              c);
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
                on_conn_msg(&c->link, env, c);
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
    dist_free(&d);
    close(sv[1]);
    nftw(gdir, rm_below, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

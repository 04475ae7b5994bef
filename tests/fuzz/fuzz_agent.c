/* fuzz_agent — the agent's message handlers (agent/uplink.c, agent/agent_run.c), driven without
 * a network and without forking: what the console sends (on_console_msg)
 * and what a worker sends (on_worker_msg).
 *
 * The agent's files are included to reach their static handlers. Each input is
 * one connection: byte 0 says where the messages come from (bit 0: a worker
 * of a run in progress, else the console), whether the handshake is already
 * done (bit 1: the agent starts ready for runs, as after a proof the fuzzer
 * could not forge), and how the rest is cut into reads; the rest is the
 * stream, taken through a frame_reader as the agent's peer does. The agent
 * has no worker processes of its own (0 workers: a StartRun unpacks its
 * bundle into a private $TMPDIR and ends at once), its console link is one
 * end of a socketpair whose other end is drained, and its loop never runs.
 * Checks: no handler crashes or leaks; every run the agent started is
 * gone or still its own when the connection ends, and no bundle is left. */
#include "agent/agent.c"
#include "agent/agent_run.c"
#include "agent/uplink.c"

#include <ftw.h>

#include "common/err.h"
#include "tests/fuzz/fuzz_util.h"

static struct ev_loop *loop;
static char tmpdir[64];
static int entries;

static int quiet(void *ud, enum log_level level, const char *line)
{
    return 0; /* taken: the fuzzer's output stays readable */
}

static void cleanup(void)
{
    rundir_remove(-1, tmpdir);
}

static int count(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    entries++;
    return 0;
}

static void setup(void)
{
    loop = ev_loop_new(EVFLAG_AUTO);
    fuzz_check(loop != NULL);
    if (getenv("FUZZ_LOG") == NULL) /* FUZZ_LOG=1: show the agent's log */
        log_set_sink(quiet, NULL);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/quern-fuzz-agent.XXXXXX");
    fuzz_check(mkdtemp(tmpdir) != NULL);
    setenv("TMPDIR", tmpdir, 1);
    atexit(cleanup);
}

/* Empties the console's end of the link, so the agent's queue never fills. */
static void drain(int fd)
{
    char buf[65536];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
}

/* A run in progress with one worker slot (no process, no link). */
static agent_run *fake_run(agent *a)
{
    agent_run *r = xcalloc(1, sizeof(*r));

    r->a = a;
    r->run_id = 1;
    r->status = "completed";
    r->nworkers = 1;
    r->w = xcalloc(1, sizeof(*r->w));
    r->w[0].run = r;
    r->w[0].link.fd = -1;
    r->w[0].eof = 1;
    a->run = r;
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char token[] = "fuzz-token";
    agent a;
    int sv[2], from_worker;
    size_t chunk;
    frame_reader *fr;
    char err[ERR_MAX];

    if (size < 1)
        return 0;
    if (loop == NULL)
        setup();
    from_worker = data[0] & 1;
    chunk = (size_t)(data[0] >> 2) + 1;
    memset(&a, 0, sizeof(a));
    a.loop = loop;
    a.host = "console.test";
    snprintf(a.port, sizeof(a.port), "6372");
    snprintf(a.name, sizeof(a.name), "fuzz");
    a.workers = 0;
    a.token = xstrdup(token);
    a.token_len = sizeof(token) - 1;
    a.cs = (data[0] & 2) || from_worker ? CS_READY : CS_HELLO;
    a.cfd = -1;
    a.sigpipe[0] = a.sigpipe[1] = -1;
    handshake_init(&a.hs, "agent");
    memset(a.hs.nonce, 1, sizeof(a.hs.nonce));
    ev_init(&a.retry, uplink_on_retry);
    a.retry.data = &a;
    fuzz_check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    peer_init(&a.con, loop, sv[0], FRAME_MAX_DEFAULT, AGENT_QUEUE_MAX, on_console_msg,
              on_console_close, &a);
    if (from_worker)
        fake_run(&a);
    data++;
    size--;
    fr = frame_reader_new(from_worker ? FRAME_MAX_SMALL : FRAME_MAX_DEFAULT);
    for (size_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        Quern__Envelope *env;
        int rc = 0;

        if (frame_reader_feed(fr, data + off, n, err, sizeof(err)) != 0)
            break;
        while ((rc = frame_reader_next(fr, &env, err, sizeof(err))) == 1) {
            if (from_worker && a.run != NULL)
                on_worker_msg(&a.run->w[0].link, env, &a.run->w[0]);
            else if (!from_worker && peer_alive(&a.con))
                on_console_msg(&a.con, env, &a);
            quern__envelope__free_unpacked(env, NULL);
            drain(sv[1]);
        }
        if (rc < 0)
            break;
    }
    frame_reader_free(fr);
    if (a.run != NULL) {
        fuzz_check(a.run->a == &a);
        agent_run_free(a.run);
        a.run = NULL;
    }
    entries = 0;
    nftw(tmpdir, count, 8, FTW_PHYS);
    fuzz_check(entries == 1); /* no bundle left behind */
    ev_timer_stop(loop, &a.retry);
    peer_close(&a.con);
    close(sv[1]);
    auth_token_free(a.token, a.token_len);
    return 0;
}

#include "agent/agent.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "agent/probe.h"
#include "agent/rundir.h"
#include "agent/runchk.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/salloc.h"
#include "common/version.h"
#include "proto/auth.h"

static int g_sigfd = -1; /* write end of the self-pipe, for the handler */

static void on_signal(int sig)
{
    int saved = errno;
    char c = (char)sig;
    if (g_sigfd >= 0 && write(g_sigfd, &c, 1) < 0) {
        /* nothing to do: a full pipe already wakes the loop */
    }
    errno = saved;
}

void agent_child_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    g_sigfd = -1;
}

void agent_usage(FILE *out)
{
    agentopt_usage(out);
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    agent *a = w->data;
    int64_t now = clock_mono_us();

    uplink_tick(a, now);
    if (a->run != NULL && a->cs == CS_READY)
        probe_pump(a->run->probe, a);
    agent_run_check(a);
}

static void on_sigio(struct ev_loop *loop, ev_io *w, int revents)
{
    agent *a = w->data;
    char buf[16];

    if (read(a->sigpipe[0], buf, sizeof(buf)) <= 0)
        return;
    if (a->quitting) {
        log_msg(LOG_WARN, "second signal: killing the workers and leaving");
        if (a->run != NULL)
            agent_run_stop(a->run, 1, "agent killed");
        ev_break(loop, EVBREAK_ALL);
        return;
    }
    a->quitting = 1;
    log_msg(LOG_INFO, "signal received: leaving%s",
            a->run != NULL ? " after the workers stop" : "");
    if (a->run == NULL) {
        ev_break(loop, EVBREAK_ALL);
        return;
    }
    a->run->orphan = 1;
    agent_run_stop(a->run, 0, "agent stopping");
}

/* ---------------------------------------------------------------- main */

int agent_main(int argc, char **argv)
{
    agent a;
    const char *token_file = NULL;
    char err[ERR_MAX];
    struct sigaction sa;
    int curl_ok = 0, n;

    memset(&a, 0, sizeof(a));
    a.cfd = -1;
    a.con.fd = -1;
    a.sigpipe[0] = a.sigpipe[1] = -1;
    a.rc = 2;
    log_init("agent");
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        agent_usage(stdout);
        return 0;
    }
    if (agentopt_parse(&a, argc, argv, &token_file) != 0)
        goto out;
    if (auth_read_token_file(token_file, &a.token, &a.token_len, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern agent: %s\n", err);
        goto out;
    }
    if (salloc_curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "quern agent: cannot initialise libcurl\n");
        a.rc = 3;
        goto out;
    }
    curl_ok = 1;
    if (pipe2(a.sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "quern agent: pipe: %s\n", strerror(errno));
        a.rc = 3;
        goto out;
    }
    a.loop = ev_loop_new(EVFLAG_AUTO);
    g_sigfd = a.sigpipe[1];
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    ev_io_init(&a.sigio, on_sigio, a.sigpipe[0], EV_READ);
    ev_io_init(&a.cio, uplink_on_connected, -1, EV_WRITE);
    ev_init(&a.retry, uplink_on_retry);
    ev_timer_init(&a.tick, on_tick, 0.1, 0.1);
    a.sigio.data = a.cio.data = a.retry.data = a.tick.data = &a;
    ev_io_start(a.loop, &a.sigio);
    ev_timer_start(a.loop, &a.tick);
    a.backoff = AGENT_BACKOFF_MIN;
    a.vus_max = runchk_agent_vus_max();
    a.rc = 0;
    log_msg(LOG_INFO, "quern agent %s (%s, %u worker(s)): connecting to %s:%s", QUERN_VERSION,
            a.name, a.workers, a.host, a.port);
    /* a console with the token runs its scripts here: as root, with every
     * right on this host (the local agent of quern run is the user's own) */
    if (geteuid() == 0 && !a.same_host)
        log_msg(LOG_WARN, "running as root: a console that holds the token runs its scripts "
                          "here with root's rights; run the agent as an unprivileged user "
                          "(docs/fleet.md)");
    n = rundir_sweep(a.work_dir);
    if (n > 0)
        log_msg(LOG_INFO, "removed %d run folder(s) left by an agent that was killed", n);
    uplink_connect(&a);
    ev_run(a.loop, 0);

out:
    if (a.loop != NULL) {
        agent_run_free(a.run);
        peer_close(&a.con);
        if (a.cfd >= 0)
            close(a.cfd);
        ev_loop_destroy(a.loop);
    }
    g_sigfd = -1;
    if (a.sigpipe[0] >= 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        close(a.sigpipe[0]);
        close(a.sigpipe[1]);
    }
    if (curl_ok)
        curl_global_cleanup();
    auth_token_free(a.token, a.token_len);
    xfree((char *)a.host);
    return a.rc;
}

#include "agent/agent.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/bundle.h"
#include "agent/fileup.h"
#include "agent/runchk.h"
#include "proto/ivsum.h"
#include "proto/ivwin.h"
#include "proto/peer.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/ratelog.h"
#include "common/salloc.h"
#include "proto/auth.h"
#include "proto/seal.h"
#include "common/version.h"
#include "worker/wproc.h"

#define AGENT_BACKOFF_MIN 1.0
#define AGENT_BACKOFF_MAX 30.0
#define AGENT_CONNECT_TIMEOUT 5.0
#define AGENT_SILENCE_US 5000000      /* console silent this long: lost */
#define AGENT_HANDSHAKE_US 5000000    /* connected this long and not registered: drop it */
#define AGENT_REFUSAL_LOG_US 10000000 /* one line per this much about refusals */
#define AGENT_KILL_AFTER_US 5000000   /* SIGKILL workers this long after SIGTERM and the grace */
#define AGENT_OVERRUN_US 5000000      /* SIGKILL a worker this long past the run's planned end */
#define AGENT_MERGE_GRACE_US 1500000  /* send a second without a late worker after this */
#define AGENT_WORKERS_MAX 1024
#define AGENT_QUEUE_MAX (FRAME_MAX_DEFAULT + 4096u)

enum conn_state { CS_IDLE, CS_CONNECTING, CS_HELLO, CS_PROOF, CS_RESULT, CS_REGISTER, CS_READY };

struct agent;
struct arun;

/* One worker process of the current run. */
typedef struct wslot {
    struct arun *run; /**< borrowed: the run it belongs to */
    unsigned index;
    pid_t pid; /**< 0 once reaped */
    peer link; /**< the socketpair to it */
    int ready, finished, eof, signalled;
    int overran; /**< SIGKILLed for not ending in time: lost, not stopped */
    uint32_t vus;
} wslot;

/* The run in progress. */
typedef struct arun {
    struct agent *a; /**< borrowed */
    uint64_t run_id;
    char dir[PATH_MAX]; /**< the unpacked bundle, "" if none */
    int dir_hold;       /**< owned: the lock marking dir in use (bundle_hold), -1: none */
    unsigned nworkers;
    wslot *w; /**< owned: nworkers entries */
    int have_steps, ready_sent, failed, go, stopping, orphan;
    int immediate;      /**< the stop was immediate: workers are SIGKILLed at once, by choice */
    int64_t kill_at_us; /**< SIGKILL what is left at this time (0: not armed) */
    int64_t grace_us;   /**< the schedule's grace */
    int64_t planned_us; /**< duration + grace from Go, 0 when the run has no duration */
    int64_t end_by_us;  /**< a worker not finished by then holds its loop: killed (0: none) */
    size_t nsteps, nscens;
    char **scen_names;  /**< owned: nscens owned names */
    ivwin win;          /**< the seconds being merged from the workers */
    uint64_t crashed;   /**< workers that crashed */
    const char *status; /**< borrowed literal: "completed", "stopped", ... */
    int want_files;     /**< StartRun asked for the JTL or the Grinder logs */
    fileup *up;         /**< owned: those files going up, once the workers are gone */
} arun;

typedef struct agent {
    struct ev_loop *loop; /**< owned */
    const char *host;     /**< borrowed from argv */
    char port[16];
    char name[128];
    unsigned workers;
    uint32_t vus_max; /**< VUs this host can hold (runchk_agent_vus_max) */
    char *token;      /**< owned (auth_token_free) */
    size_t token_len;

    enum conn_state cs;
    int cfd;        /**< owned: socket while connecting, else -1 */
    ev_io cio;      /**< connect completion */
    ev_timer retry; /**< back-off, and the connect timeout */
    double backoff;
    peer con; /**< the console, once connected */
    uint8_t nonce[AUTH_NONCE_LEN], cnonce[AUTH_NONCE_LEN];
    uint8_t kx_priv[KX_LEN], kx_pub[KX_LEN]; /**< this connection's key pair (wiped once sealed) */
    uint8_t ckx[KX_LEN];                     /**< the console's Hello.kx */
    int64_t last_rx_us;
    int64_t conn_us;  /**< when the connection was made (handshake deadline) */
    ratelog refusals; /**< lines about consoles that refused us or failed the handshake */
    uint64_t ping_seq;
    ev_timer tick; /**< 100 ms: pings, silence, reaping, merge grace */

    arun *run;      /**< owned: NULL when idle */
    int sigpipe[2]; /**< owned: self-pipe of SIGINT/SIGTERM */
    ev_io sigio;
    int quitting;
    int rc; /**< exit status once the loop ends */
} agent;

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

void agent_usage(FILE *out)
{
    fputs("usage: quern agent --console HOST:PORT --token-file FILE [options]\n"
          "\n"
          "Connects to a console, then runs the tests it sends, one after another.\n"
          "Both prove they know the token, then every frame is encrypted and\n"
          "authenticated. A refused or failed handshake is never final: the agent\n"
          "says why and tries again after a back-off (1 s doubling to 30 s).\n"
          "\n"
          "options:\n"
          "  --console HOST:PORT  the console to connect to (default 127.0.0.1:6372)\n"
          "  --token-file FILE    shared secret (mode 600), the same as the console's\n"
          "  --workers P          worker processes per run (default: online cores)\n"
          "  --name NAME          agent name shown by the console (default: host name)\n"
          "  -v, --verbose        debug messages\n"
          "  -q, --quiet          warnings and errors only\n",
          out);
}

/* ---------------------------------------------------------------- sending up */

static void send_up(agent *a, Quern__Envelope *env)
{
    if (a->cs == CS_READY)
        peer_send(&a->con, env);
}

static void send_ready_up(agent *a, uint64_t run_id, int ok, const char *error, uint32_t vus)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Ready rd = QUERN__READY__INIT;

    rd.run_id = run_id;
    rd.ok = ok ? 1 : 0;
    rd.error = (char *)(error != NULL ? error : "");
    rd.vus = vus;
    env.body_case = QUERN__ENVELOPE__BODY_READY;
    env.ready = &rd;
    send_up(a, &env);
}

static void send_finished_up(agent *a, uint64_t run_id, const char *status, const char *msg)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__RunFinished f = QUERN__RUN_FINISHED__INIT;

    f.run_id = run_id;
    f.status = (char *)status;
    f.message = (char *)(msg != NULL ? msg : "");
    env.body_case = QUERN__ENVELOPE__BODY_RUN_FINISHED;
    env.run_finished = &f;
    send_up(a, &env);
}

/* ---------------------------------------------------------------- the run */

static unsigned run_alive_workers(const arun *r)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->nworkers; i++)
        n += !r->w[i].eof && !r->w[i].finished;
    return n;
}

/* A merged second goes up to the console (a late one too: it merges it). */
static void send_second(void *ud, uint64_t second, const ivsum *sum, int late)
{
    arun *r = ud;
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Interval *m;

    if (r->orphan)
        return;
    m = ivsum_msg_new(r->run_id, second, sum->steps, sum->nsteps, sum->runs, sum->missed,
                      (const char *const *)r->scen_names, r->nscens, sum->active_vus,
                      sum->finished_vus, 0);
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = m;
    send_up(r->a, &env);
    ivsum_msg_free(m);
}

static void run_flush(arun *r, int force)
{
    ivwin_flush(&r->win, run_alive_workers(r), force);
}

static void run_add_interval(arun *r, wslot *w, const Quern__Interval *m)
{
    char err[256];

    if (!r->have_steps)
        return;
    if (ivwin_add(&r->win, m, (const char *const *)r->scen_names, run_alive_workers(r), err,
                  sizeof(err)) != 0) {
        log_msg(LOG_ERROR, "worker %u sent a bad interval: %s", w->index, err);
        peer_fail(&w->link, "bad interval");
    }
}

static void run_stop(arun *r, int immediate, const char *why)
{
    int64_t now = clock_mono_us();

    if (!r->stopping)
        log_msg(LOG_INFO, "run %llu: stopping workers (%s)", (unsigned long long)r->run_id, why);
    r->stopping = 1;
    if (immediate)
        r->immediate = 1;
    for (unsigned i = 0; i < r->nworkers; i++) {
        wslot *w = &r->w[i];
        if (w->pid <= 0)
            continue;
        if (immediate) {
            kill(w->pid, SIGKILL);
        } else if (!r->go && peer_alive(&w->link)) {
            Quern__Envelope env = QUERN__ENVELOPE__INIT;
            Quern__Stop st = QUERN__STOP__INIT;
            st.run_id = r->run_id;
            st.reason = (char *)why;
            env.body_case = QUERN__ENVELOPE__BODY_STOP;
            env.stop = &st;
            peer_send(&w->link, &env);
        } else if (!w->signalled) {
            kill(w->pid, SIGTERM);
        }
        w->signalled = 1;
    }
    /* A worker stopped gently has its grace to end its VUs' finish. */
    if (r->kill_at_us == 0 || immediate)
        r->kill_at_us = now + (immediate ? 0 : r->grace_us + AGENT_KILL_AFTER_US);
}

static void run_free(arun *r)
{
    if (r == NULL)
        return;
    for (unsigned i = 0; i < r->nworkers; i++) {
        peer_close(&r->w[i].link);
        if (r->w[i].pid > 0) {
            kill(r->w[i].pid, SIGKILL);
            waitpid(r->w[i].pid, NULL, 0);
        }
    }
    ivwin_free(&r->win);
    for (size_t i = 0; i < r->nscens; i++)
        xfree(r->scen_names[i]);
    xfree(r->scen_names);
    fileup_free(r->up);
    bundle_remove(r->dir);
    if (r->dir_hold >= 0)
        close(r->dir_hold);
    xfree(r->w);
    xfree(r);
}

/* A worker lost before its end: it crashed, or it overran the stop and was
 * killed. The console counts the run degraded. */
static void report_crash(arun *r, wslot *w, int st)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__WorkerState ws = QUERN__WORKER_STATE__INIT;
    char msg[240];

    ws.run_id = r->run_id;
    ws.worker = w->index;
    ws.state = (char *)"crashed";
    ws.pid = (uint32_t)w->pid;
    if (w->overran && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
        ws.signal = SIGKILL;
        snprintf(msg, sizeof(msg),
                 "worker %u (pid %d) did not end in time (its event loop was held, by a C call "
                 "or a blocking system call): killed, its last seconds are lost",
                 w->index, (int)w->pid);
    } else if (WIFSIGNALED(st)) {
        ws.signal = WTERMSIG(st);
        snprintf(msg, sizeof(msg), "worker %u (pid %d) killed by signal %d (%s)", w->index,
                 (int)w->pid, ws.signal, strsignal(ws.signal));
    } else {
        ws.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        snprintf(msg, sizeof(msg), "worker %u (pid %d) exited with status %d%s", w->index,
                 (int)w->pid, ws.exit_status, w->finished ? "" : " before finishing");
    }
    ws.message = msg;
    log_msg(LOG_WARN, "%s", msg);
    env.body_case = QUERN__ENVELOPE__BODY_WORKER_STATE;
    env.worker_state = &ws;
    if (!r->orphan)
        send_up(r->a, &env);
    r->crashed++;
}

/* Reaps exited workers, enforces the kill deadline, and ends the run when
 * every worker is gone. */
static void run_check(agent *a)
{
    arun *r = a->run;
    unsigned left = 0;
    int64_t now = clock_mono_us();

    if (r == NULL)
        return;
    for (unsigned i = 0; i < r->nworkers; i++) {
        wslot *w = &r->w[i];
        int st;
        if (w->pid <= 0)
            continue;
        if (r->kill_at_us != 0 && now >= r->kill_at_us) {
            kill(w->pid, SIGKILL);
            w->signalled = 1;
            if (!r->immediate && !w->finished)
                w->overran = 1;
        } else if (r->end_by_us != 0 && now >= r->end_by_us && !w->finished && !w->overran) {
            /* Its engine ends by duration + grace: one still there is stuck. */
            log_msg(LOG_WARN,
                    "worker %u (pid %d) still runs %d s past the run's planned end: "
                    "killing it",
                    w->index, (int)w->pid, (int)(AGENT_OVERRUN_US / 1000000));
            kill(w->pid, SIGKILL);
            w->signalled = 1;
            w->overran = 1;
        }
        pid_t p = waitpid(w->pid, &st, WNOHANG);
        if (p == 0) {
            left++;
            continue;
        }
        /* Its last interval and RunFinished may still wait in the link: read
         * them before its exit is judged, or a clean exit looks like a crash. */
        peer_drain(&w->link);
        if (p == w->pid) {
            int clean = WIFEXITED(st) && WEXITSTATUS(st) == 0 && (w->finished || !r->go);
            if (!clean && (!(w->signalled && WIFSIGNALED(st)) || w->overran) && !r->failed)
                report_crash(r, w, st);
        }
        w->pid = 0;
        peer_close(&w->link);
        w->eof = 1;
    }
    run_flush(r, 0);
    if (left > 0)
        return;
    run_flush(r, 1);
    if (r->want_files && !r->orphan && !r->failed && r->go && a->cs == CS_READY) {
        /* The workers' result files go up before RunFinished (the tick
         * comes back here until they are all queued). */
        if (r->up == NULL)
            r->up = fileup_new(r->dir, r->nworkers, a->name, r->run_id);
        if (fileup_pump(r->up, &a->con) == 0)
            return;
        r->want_files = 0;
        log_msg(LOG_DEBUG, "run %llu: %llu bytes of result files sent",
                (unsigned long long)r->run_id, (unsigned long long)fileup_sent(r->up));
    }
    if (!r->orphan && !r->failed) {
        char msg[128] = "";
        if (r->crashed > 0)
            snprintf(msg, sizeof(msg), "%llu worker(s) crashed", (unsigned long long)r->crashed);
        send_finished_up(a, r->run_id, r->stopping && !r->go ? "stopped" : r->status, msg);
    }
    log_msg(LOG_INFO, "run %llu finished (%s)", (unsigned long long)r->run_id,
            r->orphan ? "console lost" : r->status);
    run_free(r);
    a->run = NULL;
    if (a->quitting)
        ev_break(a->loop, EVBREAK_ALL);
}

/* The first error ends the start: tell the console, kill the others. */
static void run_fail(arun *r, const char *error)
{
    if (r->failed)
        return;
    r->failed = 1;
    log_msg(LOG_ERROR, "run %llu cannot start: %s", (unsigned long long)r->run_id, error);
    if (!r->ready_sent && !r->orphan)
        send_ready_up(r->a, r->run_id, 0, error, 0);
    r->ready_sent = 1;
    run_stop(r, 1, "start failed");
}

static void on_worker_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    wslot *w = ud;
    arun *r = w->run;
    agent *a = r->a;

    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_STEPS_DEF: {
        const Quern__StepsDef *sd = env->steps_def;
        if (r->have_steps)
            break;
        r->have_steps = 1;
        r->nsteps = sd->n_steps;
        r->scen_names = xcalloc(sd->n_steps ? sd->n_steps : 1, sizeof(*r->scen_names));
        for (size_t i = 0; i < sd->n_steps; i++) {
            size_t j;
            for (j = 0; j < r->nscens; j++)
                if (strcmp(r->scen_names[j], sd->steps[i]->scenario) == 0)
                    break;
            if (j == r->nscens)
                r->scen_names[r->nscens++] = xstrdup(sd->steps[i]->scenario);
        }
        ivwin_init(&r->win, r->nsteps, r->nscens, AGENT_MERGE_GRACE_US, send_second, r);
        if (!r->orphan)
            send_up(a, (Quern__Envelope *)env);
        break;
    }
    case QUERN__ENVELOPE__BODY_READY: {
        unsigned ready = 0;
        uint32_t vus = 0;
        if (!env->ready->ok) {
            char msg[2048];
            snprintf(msg, sizeof(msg), "%s", env->ready->error);
            run_fail(r, msg);
            break;
        }
        w->ready = 1;
        w->vus = env->ready->vus;
        for (unsigned i = 0; i < r->nworkers; i++) {
            ready += r->w[i].ready;
            vus += r->w[i].vus;
        }
        if (ready == r->nworkers && !r->ready_sent && !r->failed) {
            r->ready_sent = 1;
            log_msg(LOG_INFO, "run %llu: %u worker(s) ready, %u VUs", (unsigned long long)r->run_id,
                    ready, vus);
            if (!r->orphan)
                send_ready_up(a, r->run_id, 1, NULL, vus);
        }
        break;
    }
    case QUERN__ENVELOPE__BODY_INTERVAL:
        run_add_interval(r, w, env->interval);
        break;
    case QUERN__ENVELOPE__BODY_RUN_FINISHED:
        w->finished = 1;
        if (strcmp(env->run_finished->status, "completed") != 0)
            r->status = strcmp(env->run_finished->status, "stopped") == 0 ? "stopped" : "aborted";
        run_flush(r, 0);
        break;
    case QUERN__ENVELOPE__BODY_LOG_LINE:
        log_msg(LOG_DEBUG, "%s", env->log_line->text);
        if (!r->orphan)
            send_up(a, (Quern__Envelope *)env);
        break;
    default:
        break;
    }
}

static void on_worker_close(peer *l, const char *why, void *ud)
{
    wslot *w = ud;

    w->eof = 1;
    if (!w->ready && !w->run->failed && !w->run->stopping) {
        char msg[300];
        snprintf(msg, sizeof(msg), "worker %u ended before it was ready", w->index);
        run_fail(w->run, msg);
    }
    run_check(w->run->a);
}

/* The child side of a fork: becomes worker number i. Never returns. */
static void become_worker(int fd, const char *dir, unsigned i)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    g_sigfd = -1;
    /* Keep only stdio and our socket: the console's socket must close when
     * the agent dies, whatever the workers are doing. */
    if (fd != 3) {
        if (dup2(fd, 3) < 0)
            _exit(3);
        fd = 3;
    }
    close_range(4, ~0U, 0);
    _exit(wproc_main(fd, dir, i));
}

/* The worker StartRun: the agent's, with this worker's VUs and no files. */
static void send_worker_start(arun *r, wslot *w, const Quern__StartRun *sr, uint32_t nvus_agent,
                              unsigned j)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__StartRun ws = *sr;
    size_t n = 0, pos = 0;
    Quern__VuRange *rs, **rp;

    n = nvus_agent > j ? (nvus_agent - j + r->nworkers - 1) / r->nworkers : 0;
    rs = xcalloc(n ? n : 1, sizeof(*rs));
    rp = xcalloc(n ? n : 1, sizeof(*rp));
    n = 0;
    /* Deal the agent's indices round-robin: worker j takes positions j, j+P, ... */
    for (size_t k = 0; k < sr->n_vu_ranges; k++) {
        const Quern__VuRange *vr = sr->vu_ranges[k];
        for (uint32_t c = 0; c < vr->count; c++, pos++) {
            if (pos % r->nworkers != j)
                continue;
            quern__vu_range__init(&rs[n]);
            rs[n].first = vr->first + c;
            rs[n].count = 1;
            rp[n] = &rs[n];
            n++;
        }
    }
    ws.n_files = 0;
    ws.files = NULL;
    ws.n_vu_ranges = n;
    ws.vu_ranges = rp;
    ws.workers = 1;
    ws.agent_name = r->a->name;
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &ws;
    peer_send(&w->link, &env);
    xfree(rs);
    xfree(rp);
}

static void run_start(agent *a, const Quern__StartRun *sr)
{
    arun *r;
    char err[1024];
    uint64_t nvus = 0;

    if (a->run != NULL) {
        send_ready_up(a, sr->run_id, 0, "agent busy: the previous run is still stopping", 0);
        return;
    }
    if (runchk_start(sr, a->vus_max, &nvus, err, sizeof(err)) != 0) {
        char msg[1100];
        snprintf(msg, sizeof(msg), "agent %s refused the run: %s", a->name, err);
        log_msg(LOG_ERROR, "run %llu refused: %s", (unsigned long long)sr->run_id, err);
        send_ready_up(a, sr->run_id, 0, msg, 0);
        return;
    }
    r = xcalloc(1, sizeof(*r));
    r->a = a;
    r->dir_hold = -1;
    r->run_id = sr->run_id;
    r->status = "completed";
    r->want_files = sr->jtl || sr->grinder_logs;
    if (sr->schedule != NULL) {
        r->grace_us = (int64_t)sr->schedule->grace_us;
        if (sr->schedule->duration_us > 0)
            r->planned_us = (int64_t)(sr->schedule->duration_us + sr->schedule->grace_us);
    }
    r->nworkers = sr->workers > 0 && sr->workers <= a->workers ? sr->workers : a->workers;
    r->w = xcalloc(r->nworkers, sizeof(*r->w));
    for (unsigned i = 0; i < r->nworkers; i++) {
        r->w[i].link.fd = -1;
        r->w[i].eof = 1;
    }
    a->run = r;
    {
        char ids[256] = "";
        size_t used = 0;
        for (size_t k = 0; k < sr->n_vu_ranges && used + 40 < sizeof(ids); k++) {
            const Quern__VuRange *vr = sr->vu_ranges[k];
            used += (size_t)snprintf(ids + used, sizeof(ids) - used, "%s%u-%u", k ? "," : "",
                                     vr->first, vr->first + vr->count - 1);
        }
        if (used + 40 >= sizeof(ids))
            snprintf(ids + used, sizeof(ids) - used, ",...");
        log_msg(LOG_INFO, "run %llu (%s): %s, %llu VU(s) of %u [%s], %u worker(s), %zu file(s)",
                (unsigned long long)sr->run_id, sr->run_name, sr->script_name,
                (unsigned long long)nvus, sr->vus_total, ids, r->nworkers, sr->n_files);
    }
    if (bundle_unpack(sr->files, sr->n_files, r->dir, sizeof(r->dir), err, sizeof(err)) != 0) {
        run_fail(r, err);
        run_check(a);
        return;
    }
    r->dir_hold = bundle_hold(r->dir);
    for (unsigned j = 0; j < r->nworkers; j++) {
        wslot *w = &r->w[j];
        int sv[2];
        pid_t pid;

        w->run = r;
        w->index = j;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            snprintf(err, sizeof(err), "socketpair: %s", strerror(errno));
            run_fail(r, err);
            break;
        }
        pid = fork();
        if (pid < 0) {
            snprintf(err, sizeof(err), "fork: %s", strerror(errno));
            close(sv[0]);
            close(sv[1]);
            run_fail(r, err);
            break;
        }
        if (pid == 0) {
            close(sv[0]);
            become_worker(sv[1], r->dir, j);
        }
        close(sv[1]);
        fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
        w->pid = pid;
        w->eof = 0;
        peer_init(&w->link, a->loop, sv[0], FRAME_MAX_SMALL, AGENT_QUEUE_MAX, on_worker_msg,
                  on_worker_close, w);
        send_worker_start(r, w, sr, (uint32_t)nvus, j);
    }
    run_check(a);
}

/* ---------------------------------------------------------------- the console */

static void schedule_retry(agent *a, double after);

static void console_lost(agent *a, const char *why)
{
    peer_close(&a->con);
    if (a->cs == CS_READY && a->run != NULL) {
        log_msg(LOG_WARN, "console lost (%s): stopping the load now", why);
        a->run->orphan = 1;
        run_stop(a->run, 0, "console lost");
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

/* Derives this connection's keys and seals both directions of the link. */
static int seal_link(agent *a)
{
    seal_hs hs = {a->nonce, a->cnonce, a->kx_pub, a->ckx, NULL};

    return peer_seal_link(&a->con, a->token, a->token_len, &hs, a->kx_priv, a->ckx, 0,
                          FRAME_MAX_DEFAULT);
}

static void send_register(agent *a)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Register rg = QUERN__REGISTER__INIT;
    char host[256] = "";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    gethostname(host, sizeof(host) - 1);
    rg.name = a->name;
    rg.host = host;
    rg.cores = cores > 0 ? (uint32_t)cores : 1;
    rg.workers = a->workers;
    rg.quern_version = (char *)QUERN_VERSION;
    rg.pid = (uint32_t)getpid();
    env.body_case = QUERN__ENVELOPE__BODY_REGISTER;
    env.register_ = &rg;
    peer_send(&a->con, &env);
}

static void on_console_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    agent *a = ud;
    Quern__Envelope out = QUERN__ENVELOPE__INIT;

    a->last_rx_us = clock_mono_us();
    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_HELLO: {
        const Quern__Hello *h = env->hello;
        Quern__AuthProof pr = QUERN__AUTH_PROOF__INIT;
        uint8_t mac[AUTH_MAC_LEN];
        if (a->cs != CS_HELLO || h->version != AUTH_PROTO_VERSION ||
            strcmp(h->role, "console") != 0 || h->nonce.len != AUTH_NONCE_LEN ||
            h->kx.len != KX_LEN) {
            peer_fail(l, "bad hello from the console (not a quern console of protocol 2?)");
            return;
        }
        memcpy(a->cnonce, h->nonce.data, AUTH_NONCE_LEN);
        memcpy(a->ckx, h->kx.data, KX_LEN);
        auth_proof(a->token, a->token_len, "agent", a->cnonce, a->nonce, mac);
        pr.mac.data = mac;
        pr.mac.len = sizeof(mac);
        out.body_case = QUERN__ENVELOPE__BODY_AUTH_PROOF;
        out.auth_proof = &pr;
        peer_send(l, &out);
        a->cs = CS_PROOF;
        return;
    }
    case QUERN__ENVELOPE__BODY_AUTH_PROOF:
        if (a->cs != CS_PROOF)
            break;
        if (!auth_verify(a->token, a->token_len, "console", a->nonce, a->cnonce,
                         env->auth_proof->mac.data, env->auth_proof->mac.len)) {
            refused(a, "the console at this address does not know our token (wrong token on one "
                       "side, or not our console)");
            return;
        }
        a->cs = CS_RESULT;
        return;
    case QUERN__ENVELOPE__BODY_AUTH_RESULT: {
        char msg[512];
        if (!env->auth_result->ok) {
            /* Said before the console proved anything: its reason is shown,
             * not trusted. */
            snprintf(msg, sizeof(msg), "the console refused us: %.300s",
                     env->auth_result->reason[0] ? env->auth_result->reason : "(no reason)");
            refused(a, msg);
            return;
        }
        if (a->cs != CS_RESULT) {
            refused(a, "authentication result before the console proved the token (not our "
                       "console?)");
            return;
        }
        /* Both sides have proved the token: from here on every frame is
         * sealed, ours from Register on, the console's after this one. */
        if (seal_link(a) != 0)
            return;
        a->cs = CS_REGISTER;
        send_register(a);
        return;
    }
    case QUERN__ENVELOPE__BODY_REGISTERED:
        if (a->cs != CS_REGISTER)
            break;
        if (!env->registered->ok) {
            char msg[512];
            snprintf(msg, sizeof(msg), "the console refused our registration: %.300s",
                     env->registered->reason);
            refused(a, msg);
            return;
        }
        a->cs = CS_READY;
        a->backoff = AGENT_BACKOFF_MIN;
        log_msg(LOG_INFO, "connected to the console %s:%s as %s (agent #%u), %u worker(s)", a->host,
                a->port, a->name, env->registered->agent_index, a->workers);
        return;
    case QUERN__ENVELOPE__BODY_PING:
        if (a->cs < CS_REGISTER) /* not before the link is sealed */
            break;
        peer_pong(l, env->ping);
        return;
    case QUERN__ENVELOPE__BODY_PONG:
        if (a->cs < CS_REGISTER)
            break;
        return;
    default:
        break;
    }
    if (a->cs != CS_READY) {
        peer_fail(l, "message out of turn during the handshake");
        return;
    }
    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_START_RUN:
        run_start(a, env->start_run);
        break;
    case QUERN__ENVELOPE__BODY_GO: {
        char err[256];
        if (a->run != NULL && a->run->run_id == env->go->run_id &&
            runchk_go(env->go, err, sizeof(err)) != 0) {
            log_msg(LOG_ERROR, "run %llu: refused %s", (unsigned long long)a->run->run_id, err);
            a->run->status = "aborted";
            run_stop(a->run, 1, "refused Go");
            break;
        }
        if (a->run != NULL && a->run->run_id == env->go->run_id && !a->run->failed &&
            !a->run->stopping && !a->run->go) {
            a->run->go = 1;
            if (a->run->planned_us > 0)
                a->run->end_by_us = clock_mono_us() +
                                    (env->go->start_offset_us > 0 ? env->go->start_offset_us : 0) +
                                    a->run->planned_us + AGENT_OVERRUN_US;
            log_msg(LOG_INFO, "run %llu: go", (unsigned long long)a->run->run_id);
            for (unsigned i = 0; i < a->run->nworkers; i++)
                peer_send(&a->run->w[i].link, (Quern__Envelope *)env);
        }
        break;
    }
    case QUERN__ENVELOPE__BODY_STOP: {
        char err[256];
        if (a->run != NULL && a->run->run_id == env->stop->run_id)
            run_stop(a->run, env->stop->immediate,
                     runchk_stop(env->stop, err, sizeof(err)) == 0 ? env->stop->reason
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

static void on_connected(struct ev_loop *loop, ev_io *w, int revents)
{
    agent *a = w->data;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Hello h = QUERN__HELLO__INIT;

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
    if (auth_nonce(a->nonce) != 0 || kx_keypair(a->kx_priv, a->kx_pub) != 0) {
        peer_fail(&a->con, "no random numbers");
        return;
    }
    h.version = AUTH_PROTO_VERSION;
    h.role = (char *)"agent";
    h.nonce.data = a->nonce;
    h.nonce.len = AUTH_NONCE_LEN;
    h.kx.data = a->kx_pub;
    h.kx.len = KX_LEN;
    h.quern_version = (char *)QUERN_VERSION;
    env.body_case = QUERN__ENVELOPE__BODY_HELLO;
    env.hello = &h;
    peer_send(&a->con, &env);
}

static void start_connect(agent *a)
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

static void on_retry(struct ev_loop *loop, ev_timer *w, int revents)
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
        start_connect(a);
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    agent *a = w->data;
    int64_t now = clock_mono_us();

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
    run_check(a);
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
            run_stop(a->run, 1, "agent killed");
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
    run_stop(a->run, 0, "agent stopping");
}

/* ---------------------------------------------------------------- main */

static int parse_args(agent *a, int argc, char **argv, const char **token_file)
{
    const char *console = "127.0.0.1:6372";
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *colon;

    a->workers = cores > 0 ? (unsigned)cores : 1;
    gethostname(a->name, sizeof(a->name) - 1);
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(f, "-v") == 0 || strcmp(f, "--verbose") == 0) {
            log_set_level(LOG_DEBUG);
            continue;
        }
        if (strcmp(f, "-q") == 0 || strcmp(f, "--quiet") == 0) {
            log_set_level(LOG_WARN); /* warnings and errors only */
            continue;
        }
        if (strcmp(f, "--console") != 0 && strcmp(f, "--token-file") != 0 &&
            strcmp(f, "--workers") != 0 && strcmp(f, "--name") != 0) {
            fprintf(stderr, "quern agent: unknown option %s (see quern agent --help)\n", f);
            return -1;
        }
        if (v == NULL) {
            fprintf(stderr, "quern agent: %s needs a value\n", f);
            return -1;
        }
        i++;
        if (strcmp(f, "--console") == 0) {
            console = v;
        } else if (strcmp(f, "--token-file") == 0) {
            *token_file = v;
        } else if (strcmp(f, "--workers") == 0) {
            char *end;
            unsigned long n = strtoul(v, &end, 10);
            if (*v == '\0' || *end != '\0' || n < 1 || n > AGENT_WORKERS_MAX) {
                fprintf(stderr, "quern agent: --workers: \"%s\" is not a number from 1 to %d\n", v,
                        AGENT_WORKERS_MAX);
                return -1;
            }
            a->workers = (unsigned)n;
        } else {
            if (v[0] == '\0' || strlen(v) >= sizeof(a->name)) {
                fprintf(stderr, "quern agent: --name must have 1 to %zu characters\n",
                        sizeof(a->name) - 1);
                return -1;
            }
            snprintf(a->name, sizeof(a->name), "%s", v);
        }
    }
    colon = strrchr(console, ':');
    if (colon == NULL || colon == console || colon[1] == '\0' ||
        strlen(colon + 1) >= sizeof(a->port)) {
        fprintf(stderr, "quern agent: --console wants HOST:PORT, got \"%s\"\n", console);
        return -1;
    }
    snprintf(a->port, sizeof(a->port), "%s", colon + 1);
    a->host = xstrndup(console, (size_t)(colon - console));
    if (*token_file == NULL) {
        fprintf(stderr, "quern agent: --token-file is required (the console's shared secret)\n");
        return -1;
    }
    return 0;
}

int agent_main(int argc, char **argv)
{
    agent a;
    const char *token_file = NULL;
    char err[512];
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
    if (parse_args(&a, argc, argv, &token_file) != 0)
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
    ev_io_init(&a.cio, on_connected, -1, EV_WRITE);
    ev_init(&a.retry, on_retry);
    ev_timer_init(&a.tick, on_tick, 0.1, 0.1);
    a.sigio.data = a.cio.data = a.retry.data = a.tick.data = &a;
    ev_io_start(a.loop, &a.sigio);
    ev_timer_start(a.loop, &a.tick);
    a.backoff = AGENT_BACKOFF_MIN;
    a.vus_max = runchk_agent_vus_max();
    a.rc = 0;
    log_msg(LOG_INFO, "quern agent %s (%s, %u worker(s)): connecting to %s:%s", QUERN_VERSION,
            a.name, a.workers, a.host, a.port);
    n = bundle_sweep();
    if (n > 0)
        log_msg(LOG_INFO, "removed %d run folder(s) left by an agent that was killed", n);
    start_connect(&a);
    ev_run(a.loop, 0);

out:
    if (a.loop != NULL) {
        run_free(a.run);
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

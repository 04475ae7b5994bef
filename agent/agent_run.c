/* agent_run — the agent's run: its folder, its worker processes, the start
 * barrier, the merged seconds, crashes, result files, RunFinished (see
 * agent/agent.h for the whole; agent_int.h for the structures). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "agent/probe.h"
#include "agent/rundir.h"
#include "agent/runchk.h"
#include "common/err.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/memsize.h"
#include "proto/handshake.h"
#include "proto/interval_sum.h"
#include "proto/interval_tally.h"
#include "worker/wproc.h"

static void send_ready_up(agent *a, uint64_t run_id, int ok, const char *error, uint32_t vus)
{
    handshake_msg m;

    uplink_send(a, handshake_ready(run_id, ok, error, vus, &m));
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
    uplink_send(a, &env);
}

static unsigned agent_run_alive_workers(const agent_run *r)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->nworkers; i++)
        n += !r->w[i].eof && !r->w[i].finished;
    return n;
}

/* A merged second goes up to the console (a late one too: it merges it). */
static void send_second(void *ud, uint64_t second, const interval_sum *sum, int late)
{
    agent_run *r = ud;
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Interval *m;

    if (r->orphan)
        return;
    m = interval_sum_msg_new(r->run_id, second, sum->steps, sum->nsteps, sum->runs, sum->missed,
                             (const char *const *)r->scen_names, r->nscens, sum->active_vus,
                             sum->finished_vus, 0);
    interval_sum_msg_set_arrivals(m, sum->arrivals);
    interval_sum_msg_set_little(m, sum->vu_us, sum->run_us, sum->wait_us);
    interval_sum_msg_set_held(m, sum->held, sum->held_us, sum->held_max_us);
    interval_sum_msg_set_delivery(m, sum->vus_planned, sum->vus_started, sum->pace_asked_us,
                                  sum->pace_lost_us);
    interval_sum_msg_set_paused(m, sum->paused_us);
    interval_sum_msg_set_lag(m, sum->lag);
    interval_sum_msg_set_injector(m, sum->load, sum->nload, r->a->name); /* each worker's, named */
    interval_tally_msg_set(m, &sum->tally);
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = m;
    uplink_send(r->a, &env);
    interval_sum_msg_free(m);
}

static void agent_run_flush(agent_run *r, int force)
{
    interval_window_flush(&r->win, agent_run_alive_workers(r), force);
}

static void agent_run_add_interval(agent_run *r, wslot *w, const Quern__Interval *m)
{
    char err[ERR_MAX];

    if (!r->have_steps)
        return;
    if (interval_window_add(&r->win, m, (const char *const *)r->scen_names,
                            agent_run_alive_workers(r), err, sizeof(err)) != 0) {
        log_msg(LOG_ERROR, "worker %u sent a bad interval: %s", w->index, err);
        peer_fail(&w->link, "bad interval");
    }
}

void agent_run_stop(agent_run *r, int immediate, const char *why)
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
    /* A worker stopped gently has its grace to end its VUs' finish; past
     * that, agent/stall.h judges it. */
    if (r->kill_at_us == 0 || immediate)
        r->kill_at_us = now + (immediate ? 0 : r->grace_us + AGENT_KILL_AFTER_US);
}

void agent_run_steer(agent_run *r, const Quern__Envelope *env)
{
    const Quern__Steer *st = env->steer;
    char err[ERR_MAX];

    if (!r->go || r->stopping)
        return;
    if (runchk_steer(st, err, sizeof(err)) != 0) {
        log_msg(LOG_ERROR, "run %llu: refused %s", (unsigned long long)r->run_id, err);
        return;
    }
    /* the planned end moves on by a pause, as the workers' does */
    if (st->kind == QUERN__STEER__KIND__PAUSE && r->paused_at_us == 0)
        r->paused_at_us = clock_mono_us();
    if (st->kind == QUERN__STEER__KIND__RESUME && r->paused_at_us != 0) {
        if (r->end_by_us != 0)
            r->end_by_us += clock_mono_us() - r->paused_at_us;
        r->paused_at_us = 0;
    }
    for (unsigned i = 0; i < r->nworkers; i++)
        if (r->w[i].pid > 0 && peer_alive(&r->w[i].link))
            peer_send(&r->w[i].link, (Quern__Envelope *)env);
}

void agent_run_free(agent_run *r)
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
    interval_window_free(&r->win);
    for (size_t i = 0; i < r->nscens; i++)
        xfree(r->scen_names[i]);
    xfree(r->scen_names);
    fileup_free(r->up);
    probe_free(r->probe);
    if (r->dir_hold >= 0) {
        rundir_remove(r->dir_hold, r->dir);
        close(r->dir_hold);
    }
    xfree(r->w);
    xfree(r);
}

/* The message of a worker killed past its time, from the evidence. */
static void judged_msg(const wslot *w, char *msg, size_t len)
{
    long long late = (long long)(w->late_us / 1000000),
              silent = (long long)(w->silent_us / 1000000);

    if (w->judged == STALL_HELD)
        err_set(msg, len,
                "worker %u (pid %d) was held: no progress for %lld s (its event loop was held by "
                "a C call or a blocking system call): killed %lld s past its time to end, its "
                "last seconds are lost",
                w->index, (int)w->pid, silent, late);
    else
        err_set(msg, len,
                "worker %u (pid %d) was busy, not held (it still sent its seconds), but had not "
                "ended %lld s past its time to end: killed, its last seconds are lost",
                w->index, (int)w->pid, late);
}

/* A worker lost before its end: it crashed, or it was killed past its time
 * to end (held, or busy at the ceiling). The console counts the run degraded. */
static void crash_report(agent_run *r, wslot *w, int st)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__WorkerState ws = QUERN__WORKER_STATE__INIT;
    char msg[320];

    ws.run_id = r->run_id;
    ws.worker = w->index;
    ws.state = (char *)"crashed";
    ws.pid = (uint32_t)w->pid;
    if (w->overran && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
        ws.signal = SIGKILL;
        judged_msg(w, msg, sizeof(msg));
    } else if (WIFSIGNALED(st)) {
        ws.signal = WTERMSIG(st);
        err_set(msg, sizeof(msg), "worker %u (pid %d) killed by signal %d (%s)", w->index,
                (int)w->pid, ws.signal, strsignal(ws.signal));
    } else {
        ws.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        err_set(msg, sizeof(msg), "worker %u (pid %d) exited with status %d%s", w->index,
                (int)w->pid, ws.exit_status, w->finished ? "" : " before finishing");
    }
    ws.message = msg;
    log_msg(LOG_WARN, "%s", msg);
    env.body_case = QUERN__ENVELOPE__BODY_WORKER_STATE;
    env.worker_state = &ws;
    if (!r->orphan)
        uplink_send(r->a, &env);
    r->crashed++;
}

/* When the workers should have ended by: the stop's due time or the
 * planned end's, whichever comes first (0: neither is armed). */
static int64_t agent_run_due(const agent_run *r)
{
    int64_t due = r->kill_at_us;

    if (r->end_by_us != 0 && r->paused_at_us == 0 && (due == 0 || r->end_by_us < due))
        due = r->end_by_us;
    return due;
}

/* A worker past its due time is killed only on evidence (agent/stall.h):
 * silent for the bound (held), or still sending at the ceiling (busy). */
static void agent_run_judge(agent_run *r, wslot *w, int64_t now)
{
    int64_t due = agent_run_due(r), silent;
    enum stall_verdict v;

    if (w->judged != STALL_WAIT || due == 0 || now < due)
        return;
    /* Frames it sent that the agent has not read yet are progress too. */
    peer_drain(&w->link);
    v = stall_judge(now, due, w->last_rx_us, &silent);
    if (v == STALL_WAIT)
        return;
    w->judged = v;
    w->silent_us = silent;
    w->late_us = now - due + STALL_DUE_AFTER_US;
    kill(w->pid, SIGKILL);
    w->signalled = 1;
    if (!w->finished)
        w->overran = 1;
    log_msg(LOG_DEBUG, "worker %u (pid %d): %s, silent %lld ms, killed", w->index, (int)w->pid,
            v == STALL_HELD ? "held" : "busy at the ceiling", (long long)(silent / 1000));
}

/* Reaps exited workers, enforces the kill deadline, and ends the run when
 * every worker is gone. */
void agent_run_check(agent *a)
{
    agent_run *r = a->run;
    unsigned left = 0;
    int64_t now = clock_mono_us();

    if (r == NULL)
        return;
    for (unsigned i = 0; i < r->nworkers; i++) {
        wslot *w = &r->w[i];
        int st;
        if (w->pid <= 0)
            continue;
        if (r->immediate && r->kill_at_us != 0 && now >= r->kill_at_us) {
            kill(w->pid, SIGKILL);
            w->signalled = 1;
        } else {
            agent_run_judge(r, w, now);
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
                crash_report(r, w, st);
        }
        w->pid = 0;
        peer_close(&w->link);
        w->eof = 1;
    }
    agent_run_flush(r, 0);
    if (left > 0)
        return;
    agent_run_flush(r, 1);
    if (r->want_files && !r->orphan && !r->failed && r->go && a->cs == CS_READY) {
        /* The workers' result files go up before RunFinished (the tick
         * comes back here until they are all queued). */
        if (r->up == NULL)
            r->up = fileup_new(r->dir_hold, r->nworkers, a->name, r->run_id);
        if (fileup_pump(r->up, &a->con) == 0)
            return;
        r->want_files = 0;
        log_msg(LOG_DEBUG, "run %llu: %llu bytes of result files sent",
                (unsigned long long)r->run_id, (unsigned long long)fileup_sent(r->up));
    }
    if (r->probe != NULL && !r->orphan && a->cs == CS_READY)
        probe_finish(r->probe, a); /* its last seconds before RunFinished */
    if (!r->orphan && !r->failed) {
        char msg[128] = "";
        if (r->crashed > 0)
            err_set(msg, sizeof(msg), "%llu worker(s) crashed", (unsigned long long)r->crashed);
        send_finished_up(a, r->run_id, r->stopping && !r->go ? "stopped" : r->status, msg);
    }
    log_msg(LOG_INFO, "run %llu finished (%s)", (unsigned long long)r->run_id,
            r->orphan ? "console lost" : r->status);
    agent_run_free(r);
    a->run = NULL;
    if (a->quitting)
        ev_break(a->loop, EVBREAK_ALL);
}

/* The first error ends the start: tell the console, kill the others. */
static void agent_run_fail(agent_run *r, const char *error)
{
    if (r->failed)
        return;
    r->failed = 1;
    log_msg(LOG_ERROR, "run %llu cannot start: %s", (unsigned long long)r->run_id, error);
    if (!r->ready_sent && !r->orphan)
        send_ready_up(r->a, r->run_id, 0, error, 0);
    r->ready_sent = 1;
    agent_run_stop(r, 1, "start failed");
}

static void on_worker_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    wslot *w = ud;
    agent_run *r = w->run;
    agent *a = r->a;

    w->last_rx_us = clock_mono_us(); /* any frame: its loop turns (agent/stall.h) */
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
        interval_window_init(&r->win, r->nsteps, r->nscens, AGENT_MERGE_GRACE_US, send_second, r);
        if (!r->orphan)
            uplink_send(a, (Quern__Envelope *)env);
        break;
    }
    case QUERN__ENVELOPE__BODY_READY: {
        unsigned ready = 0;
        uint32_t vus = 0;
        if (!env->ready->ok) {
            char msg[2048];
            err_set(msg, sizeof(msg), "%s", env->ready->error);
            agent_run_fail(r, msg);
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
        agent_run_add_interval(r, w, env->interval);
        break;
    case QUERN__ENVELOPE__BODY_RUN_FINISHED:
        w->finished = 1;
        if (strcmp(env->run_finished->status, "completed") != 0)
            r->status = strcmp(env->run_finished->status, "stopped") == 0 ? "stopped" : "aborted";
        agent_run_flush(r, 0);
        break;
    case QUERN__ENVELOPE__BODY_LOG_LINE:
        log_msg(LOG_DEBUG, "%s", env->log_line->text);
        if (!r->orphan)
            uplink_send(a, (Quern__Envelope *)env);
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
        err_set(msg, sizeof(msg), "worker %u ended before it was ready", w->index);
        agent_run_fail(w->run, msg);
    }
    agent_run_check(w->run->a);
}

/* The child side of a fork: becomes worker number i, given its socket fd
 * and the run folder's descriptor dirfd. Never returns. */
static void become_worker(int fd, int dirfd, unsigned i)
{
    int sock, dir;

    agent_child_signals();
    /* Keep only stdio, our socket (3) and the run folder (4): the console's
     * socket must close when the agent dies, whatever the workers are doing.
     * Both are moved above 4 first, so that neither lands on the other. */
    sock = fcntl(fd, F_DUPFD_CLOEXEC, 5);
    dir = fcntl(dirfd, F_DUPFD_CLOEXEC, 5);
    if (sock < 0 || dir < 0 || dup2(sock, 3) < 0 || dup2(dir, 4) < 0)
        _exit(3);
    close_range(5, ~0U, 0);
    _exit(wproc_main(3, 4, i));
}

/* The worker StartRun: the agent's, with this worker's VUs and no files. */
static void send_worker_start(agent_run *r, wslot *w, const Quern__StartRun *sr,
                              uint32_t nvus_agent, unsigned j)
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
    ws.local_folder = NULL;
    ws.n_vu_ranges = n;
    ws.vu_ranges = rp;
    ws.workers = 1;
    ws.worker_memory = r->lua_mem;
    ws.agent_name = r->a->name;
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &ws;
    peer_send(&w->link, &env);
    xfree(rs);
    xfree(rp);
}

/* What each worker's Lua state may hold: the console's --worker-memory,
 * else the agent's, else 75 % of this host's memory shared by the workers. */
static uint64_t agent_run_worker_memory(const agent *a, const Quern__StartRun *sr, unsigned workers)
{
    uint64_t b = sr->worker_memory ? sr->worker_memory : a->lua_mem;

    if (b == 0)
        return memsize_worker_default(memsize_host_total(), workers);
    if (b < MEMSIZE_WORKER_MIN)
        return MEMSIZE_WORKER_MIN;
    return b > MEMSIZE_WORKER_MAX ? MEMSIZE_WORKER_MAX : b;
}

void agent_run_start(agent *a, const Quern__StartRun *sr)
{
    agent_run *r;
    /* not ERR_MAX: runchk's reason, carried whole in the refusal (msg[1100])
     * (tests/lint/errrule.allow) */
    char err[1024];
    uint64_t nvus = 0;
    int refused;

    if (a->run != NULL) {
        send_ready_up(a, sr->run_id, 0, "agent busy: the previous run is still stopping", 0);
        return;
    }
    refused = runchk_start(sr, a->vus_max, &nvus, err, sizeof(err)) != 0;
    if (!refused && sr->local_folder != NULL && sr->local_folder[0] != '\0' && !a->same_host) {
        err_set(err, sizeof(err),
                "a run by folder (%.200s) is for the console's own agent (--same-host)",
                sr->local_folder);
        refused = 1;
    }
    if (refused) {
        char msg[1100];
        err_set(msg, sizeof(msg), "agent %s refused the run: %s", a->name, err);
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
    r->lua_mem = agent_run_worker_memory(a, sr, r->nworkers);
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
        char mem[MEMSIZE_FORMAT_MAX];
        log_msg(LOG_INFO,
                "run %llu (%s): %s, %llu VU(s) of %u [%s], %u worker(s) of %s Lua memory, %zu "
                "file(s)",
                (unsigned long long)sr->run_id, sr->run_name, sr->script_name,
                (unsigned long long)nvus, sr->vus_total, ids, r->nworkers,
                memsize_format(r->lua_mem, mem, sizeof(mem)), sr->n_files);
    }
    r->dir_hold = rundir_new_from(a->work_dir, sr->local_folder, sr->files, sr->n_files, r->dir,
                                  sizeof(r->dir), err, sizeof(err));
    if (r->dir_hold < 0) {
        agent_run_fail(r, err);
        agent_run_check(a);
        return;
    }
    if (rundir_hold(r->dir_hold) != 0)
        log_msg(LOG_WARN, "run %llu: cannot lock its folder %s: a kill -9 would leave it",
                (unsigned long long)r->run_id, r->dir);
    for (unsigned j = 0; j < r->nworkers; j++) {
        wslot *w = &r->w[j];
        int sv[2];
        pid_t pid;

        w->run = r;
        w->index = j;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            err_set(err, sizeof(err), "socketpair: %s", strerror(errno));
            agent_run_fail(r, err);
            break;
        }
        pid = fork();
        if (pid < 0) {
            err_set(err, sizeof(err), "fork: %s", strerror(errno));
            close(sv[0]);
            close(sv[1]);
            agent_run_fail(r, err);
            break;
        }
        if (pid == 0) {
            close(sv[0]);
            become_worker(sv[1], r->dir_hold, j);
        }
        close(sv[1]);
        fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
        w->pid = pid;
        w->eof = 0;
        w->last_rx_us = clock_mono_us();
        peer_init(&w->link, a->loop, sv[0], FRAME_MAX_SMALL, AGENT_QUEUE_MAX, on_worker_msg,
                  on_worker_close, w);
        send_worker_start(r, w, sr, (uint32_t)nvus, j);
    }
    if (!r->failed)
        r->probe = probe_start(a, sr);
    agent_run_check(a);
}

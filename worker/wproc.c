#include "worker/wproc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "proto/interval_sum.h"
#include "proto/interval_tally.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/props.h"
#include "proto/frame.h"
#include "proto/handshake.h"
#include "worker/engine.h"
#include "proto/workerfiles.h"
#include "worker/reqlog.h"
#include "worker/steer.h"

#define WPROC_START_TIMEOUT_MS 60000 /* StartRun must come this soon after fork */
#define WPROC_GO_TIMEOUT_MS 600000   /* the start barrier may wait this long */
/* --vus in the open model: the pool's inits before Ready, at most this long
 * (within the console's 60 s for every agent to be ready); those still in
 * their init go on in the run. */
#define WPROC_PREFILL_MAX_US 45000000
#define WPROC_SEND_TIMEOUT_MS 5000 /* a frame must leave within this time */

/* What the sink needs. */
typedef struct wproc_ctx {
    int fd; /**< borrowed */
    uint64_t run_id;
    engine *e;               /**< borrowed, set once the engine exists */
    const char **scen_names; /**< owned array of borrowed names */
    uint64_t *runs, *missed; /**< owned scratch, nscens each */
    int broken;              /**< 1: the fd stopped taking frames */
    uint32_t number;         /**< the worker's index inside its agent */
    frame_reader *r;         /**< borrowed: the agent's frames */
} wproc_ctx;

/* The agent's frames during the run: its Steers (worker/steer.h). The
 * stop comes as a signal. -1 once the agent's side is closed. */
static int on_ctl(void *ud)
{
    wproc_ctx *c = ud;
    Quern__Envelope *env = NULL;
    char err[ERR_MAX];
    ssize_t n = frame_reader_read_fd(c->r, c->fd, err, sizeof(err));
    int rc;

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        return -1;
    while ((rc = frame_reader_next(c->r, &env, err, sizeof(err))) == 1) {
        const Quern__Steer *st = env->body_case == QUERN__ENVELOPE__BODY_STEER ? env->steer : NULL;
        if (st != NULL && st->run_id == c->run_id) {
            if (st->kind == QUERN__STEER__KIND__PAUSE)
                steer_pause(c->e);
            else if (st->kind == QUERN__STEER__KIND__RESUME)
                steer_resume(c->e);
            else if (st->kind == QUERN__STEER__KIND__VUS)
                steer_vus(c->e, st->at_us, st->vus);
            else if (st->kind == QUERN__STEER__KIND__RATE)
                steer_rate(c->e, st->at_us, st->rate);
        }
        quern__envelope__free_unpacked(env, NULL);
        env = NULL;
    }
    if (rc < 0) {
        log_msg(LOG_ERROR, "bad frame from the agent: %s", err);
        return -1;
    }
    return 0;
}

/* Writes one envelope, waiting at most WPROC_SEND_TIMEOUT_MS in all.
 * Returns 0 or -1 (errno set). */
static int send_env(int fd, const Quern__Envelope *env)
{
    uint8_t *buf = NULL;
    ssize_t len = frame_encode(env, FRAME_MAX_DEFAULT, &buf);
    size_t off = 0;
    int64_t deadline = clock_mono_us() + (int64_t)WPROC_SEND_TIMEOUT_MS * 1000;
    int rc = -1;

    if (len < 0) {
        errno = EMSGSIZE;
        goto out;
    }
    while (off < (size_t)len) {
        ssize_t n = send(fd, buf + off, (size_t)len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            goto out;
        int64_t left = (deadline - clock_mono_us()) / 1000;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        if (left <= 0) {
            errno = ETIMEDOUT;
            goto out;
        }
        if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
            goto out;
    }
    rc = 0;
out:
    xfree(buf);
    return rc;
}

/* log sink: one LogLine frame per line. */
static int forward_log(void *ud, enum log_level level, const char *line)
{
    static const char *names[] = {"debug", "info", "warn", "error"};
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__LogLine ll = QUERN__LOG_LINE__INIT;

    ll.level = (char *)names[level];
    ll.text = (char *)line;
    env.body_case = QUERN__ENVELOPE__BODY_LOG_LINE;
    env.log_line = &ll;
    return send_env(*(int *)ud, &env);
}

/* Waits at most timeout_ms for the next envelope. Returns 1 with *env (the
 * caller frees it), 0 at end of file or timeout, -1 on an error (err set). */
static int recv_env(int fd, frame_reader *r, Quern__Envelope **env, int timeout_ms, char *err,
                    size_t errlen)
{
    int64_t deadline = clock_mono_us() + (int64_t)timeout_ms * 1000;

    for (;;) {
        int rc = frame_reader_next(r, env, err, errlen);
        if (rc != 0)
            return rc;
        int64_t left = (deadline - clock_mono_us()) / 1000;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0) {
            err_set(err, errlen, "timed out waiting for the agent");
            return 0;
        }
        if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
            err_set(err, errlen, "poll: %s", strerror(errno));
            return -1;
        }
        ssize_t n = frame_reader_read_fd(r, fd, err, errlen);
        if (n == 0) {
            err_set(err, errlen, "the agent closed the connection");
            return 0;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
    }
}

/* The worker's own load, one entry in m (the agent names it). */
static void set_load(Quern__Interval *m, uint32_t number, const engine_interval *iv)
{
    interval_sum_load l;

    memset(&l, 0, sizeof(l));
    l.worker = number;
    l.cpu_permille = iv->cpu_permille;
    l.loop_lag_max_us = iv->loop_lag_max_us;
    l.start_lag_p99_us =
        iv->start_lag_p99_us > UINT32_MAX ? UINT32_MAX : (uint32_t)iv->start_lag_p99_us;
    l.why = iv->saturated;
    l.saturated = iv->saturated != 0;
    interval_sum_load_set_lag(&l, iv->loop_lag);
    interval_sum_msg_set_injector(m, &l, 1, NULL);
    interval_sum_load_clear(&l);
}

static void on_interval(void *ud, const engine_interval *iv)
{
    wproc_ctx *c = ud;
    Quern__Interval *m;
    Quern__Envelope env = QUERN__ENVELOPE__INIT;

    if (c->broken)
        return;
    for (size_t i = 0; i < iv->nscens; i++) {
        c->runs[i] = iv->scens[i].runs;
        c->missed[i] = iv->scens[i].missed_pacing;
    }
    m = interval_sum_msg_new(c->run_id, iv->second, iv->steps, iv->nsteps, c->runs, c->missed,
                             c->scen_names, iv->nscens, iv->active_vus, 0, 0);
    interval_sum_msg_set_arrivals(m, iv->arrivals);
    interval_sum_msg_set_little(m, iv->vu_us, iv->run_us, iv->wait_us);
    interval_sum_msg_set_held(m, iv->held, iv->held_us, iv->held_max_us);
    interval_sum_msg_set_delivery(m, iv->vus_planned, iv->vus_started, iv->pace_asked_us,
                                  iv->pace_lost_us);
    interval_sum_msg_set_lag(m, iv->start_lag);
    interval_sum_msg_set_paused(m, iv->paused_us);
    set_load(m, c->number, iv);
    interval_tally_msg_set(m, iv->tally);
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = m;
    if (send_env(c->fd, &env) != 0) {
        /* Nobody takes our statistics: nobody watches the load. */
        log_msg(LOG_ERROR, "cannot report to the agent (%s): stopping", strerror(errno));
        c->broken = 1;
        engine_stop(c->e, ENGINE_ABORTED);
    }
    interval_sum_msg_free(m);
}

int wproc_vu_share(Quern__VuRange *const *ranges, size_t nranges, uint32_t *first, uint32_t *stride,
                   uint32_t *count, char *err, size_t errlen)
{
    uint64_t n = 0, prev = 0;

    *first = 0;
    *stride = 1;
    /* A range at a time, not a VU at a time: a range may hold 2^32 VUs. */
    for (size_t i = 0; i < nranges; i++) {
        const Quern__VuRange *r = ranges[i];
        uint64_t gid = r->first;
        if (r->count == 0)
            continue;
        if (r->first == 0 || gid + r->count - 1 > UINT32_MAX) {
            err_set(err, errlen, "VU range %u+%u is out of bounds", r->first, r->count);
            return -1;
        }
        if (n == 0) {
            *first = r->first;
        } else if (n == 1) {
            if (gid <= prev) {
                err_set(err, errlen, "VU indices are not increasing at %llu",
                        (unsigned long long)gid);
                return -1;
            }
            *stride = (uint32_t)(gid - prev);
        } else if (gid != prev + *stride) {
            err_set(err, errlen, "VU indices are not evenly spaced at %llu",
                    (unsigned long long)gid);
            return -1;
        }
        /* Inside a range the VUs are consecutive: only stride 1 takes two. */
        if (r->count > 1 && n > 0 && *stride != 1) {
            err_set(err, errlen, "VU indices are not evenly spaced at %llu",
                    (unsigned long long)gid + 1);
            return -1;
        }
        prev = gid + r->count - 1;
        n += r->count;
        if (n > UINT32_MAX) {
            err_set(err, errlen, "too many VUs");
            return -1;
        }
    }
    *count = (uint32_t)n;
    return 0;
}

static void send_ready(int fd, uint64_t run_id, int ok, const char *error, uint32_t vus)
{
    handshake_msg m;

    if (send_env(fd, handshake_ready(run_id, ok, error, vus, &m)) != 0)
        log_msg(LOG_ERROR, "cannot send Ready to the agent: %s", strerror(errno));
}

static int send_steps(int fd, uint64_t run_id, const scen_set *ss)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__StepsDef sd = QUERN__STEPS_DEF__INIT;
    Quern__StepDef *defs = xcalloc(ss->nsteps ? ss->nsteps : 1, sizeof(*defs));
    Quern__StepDef **ptrs = xcalloc(ss->nsteps ? ss->nsteps : 1, sizeof(*ptrs));
    int rc;

    for (size_t i = 0; i < ss->nsteps; i++) {
        quern__step_def__init(&defs[i]);
        defs[i].index = (uint32_t)ss->steps[i]->index;
        defs[i].id = ss->steps[i]->id;
        defs[i].label = ss->steps[i]->label;
        defs[i].scenario = ss->steps[i]->scen->name;
        defs[i].number = (uint32_t)ss->steps[i]->num;
        ptrs[i] = &defs[i];
    }
    sd.run_id = run_id;
    sd.n_steps = ss->nsteps;
    sd.steps = ptrs;
    env.body_case = QUERN__ENVELOPE__BODY_STEPS_DEF;
    env.steps_def = &sd;
    rc = send_env(fd, &env);
    xfree(defs);
    xfree(ptrs);
    return rc;
}

/* The request logs StartRun asks for, in dir (names in proto/workerfiles.h); NULL
 * with *failed = 0 when none is asked for, NULL with *failed = 1 and err set
 * when they cannot be created. */
static reqlog *open_reqlog(const Quern__StartRun *sr, const char *dir, unsigned number, int *failed,
                           char *err, size_t errlen)
{
    char jtl[PATH_MAX], data[PATH_MAX], outp[PATH_MAX], f[64], proc[192];
    reqlog_cfg rc;
    reqlog *l;

    *failed = 0;
    if (!sr->jtl && !sr->grinder_logs)
        return NULL;
    memset(&rc, 0, sizeof(rc));
    rc.agent = sr->agent_name != NULL && sr->agent_name[0] ? sr->agent_name : "local";
    snprintf(proc, sizeof(proc), "%s-%u", rc.agent, number);
    rc.process = proc;
    rc.worker = number;
    if (sr->jtl) {
        snprintf(f, sizeof(f), WORKERFILES_JTL, number);
        snprintf(jtl, sizeof(jtl), "%s/%s", dir, f);
        rc.jtl_path = jtl;
    }
    if (sr->grinder_logs) {
        snprintf(f, sizeof(f), WORKERFILES_DATA, number);
        snprintf(data, sizeof(data), "%s/%s", dir, f);
        snprintf(f, sizeof(f), WORKERFILES_OUT, number);
        snprintf(outp, sizeof(outp), "%s/%s", dir, f);
        rc.data_path = data;
        rc.out_path = outp;
    }
    l = reqlog_new(&rc, err, errlen);
    *failed = l == NULL;
    return l;
}

/* Makes the run folder of dirfd (owned: closed here) the current folder,
 * so that the script and its files are opened relative to the folder the
 * agent made, never looked up again by its path. 0, or -1 with err set. */
static int enter_rundir(int dirfd, char *err, size_t errlen)
{
    struct stat st;
    int rc = -1;

    if (fstat(dirfd, &st) != 0 || !S_ISDIR(st.st_mode))
        err_set(err, errlen, "the run folder's descriptor %d is not a folder", dirfd);
    else if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
        err_set(err, errlen, "the run folder is not this user's private folder");
    else if (fchdir(dirfd) != 0)
        err_set(err, errlen, "cannot enter the run folder: %s", strerror(errno));
    else
        rc = 0;
    close(dirfd);
    return rc;
}

int wproc_main(int fd, int dirfd, unsigned number)
{
    const char *dir = ".";
    frame_reader *r = frame_reader_new(FRAME_MAX_DEFAULT);
    Quern__Envelope *env = NULL;
    const Quern__StartRun *sr;
    props *p = props_new();
    engine *e = NULL;
    engine_cfg cfg;
    wproc_ctx c;
    /* not ERR_MAX: a script's load error goes whole to the console (Ready.error)
     * (tests/lint/errrule.allow) */
    char err[2048], direrr[ERR_MAX], script[PATH_MAX], role[32];
    int rc = WPROC_EXIT_IO, n, entered;
    enum engine_status st;
    reqlog *rl = NULL;
    stage *stages = NULL;
    rate_stage *rstages = NULL;
    int64_t run_t0;
    Quern__Envelope fenv = QUERN__ENVELOPE__INIT;
    Quern__RunFinished fin = QUERN__RUN_FINISHED__INIT;

    memset(&c, 0, sizeof(c));
    entered = enter_rundir(dirfd, direrr, sizeof(direrr));
    snprintf(role, sizeof(role), "worker %u", number);
    log_init(role);
    /* Lines go up to the agent, which relays them to the console: script
     * errors and quern.log show where the tester is, not on the injector.
     * The level is reset: a quiet agent must not silence quern.log. */
    log_set_level(LOG_INFO);
    log_set_sink(forward_log, &fd);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1)
        goto out; /* the agent died before we could ask */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

    n = recv_env(fd, r, &env, WPROC_START_TIMEOUT_MS, err, sizeof(err));
    if (n != 1 || env->body_case != QUERN__ENVELOPE__BODY_START_RUN) {
        log_msg(LOG_ERROR, "no StartRun from the agent: %s", n == 1 ? "unexpected message" : err);
        goto out;
    }
    sr = env->start_run;
    c.fd = fd;
    c.run_id = sr->run_id;
    c.number = number;
    if (entered != 0) {
        send_ready(fd, c.run_id, 0, direrr, 0);
        goto out;
    }
    for (size_t i = 0; i < sr->n_props; i++)
        props_set(p, sr->props[i]->key, sr->props[i]->value);
    memset(&cfg, 0, sizeof(cfg));
    if (sr->script_name == NULL || sr->script_name[0] == '\0' ||
        strlen(dir) + strlen(sr->script_name) + 2 > sizeof(script)) {
        send_ready(fd, c.run_id, 0, "no script name in StartRun", 0);
        rc = WPROC_EXIT_SCRIPT;
        goto out;
    }
    snprintf(script, sizeof(script), "%s/%s", dir, sr->script_name);
    if (wproc_vu_share(sr->vu_ranges, sr->n_vu_ranges, &cfg.vu_first, &cfg.vu_stride, &cfg.vu_count,
                       err, sizeof(err)) != 0) {
        send_ready(fd, c.run_id, 0, err, 0);
        goto out;
    }
    if (cfg.vu_count == 0)
        cfg.vu_first = 1;
    cfg.script = script;
    cfg.script_display = sr->script_display[0] ? sr->script_display : NULL;
    cfg.source_addrs = (const char *const *)sr->source_addrs;
    cfg.nsource_addrs = sr->n_source_addrs;
    cfg.resolve = (const char *const *)sr->resolve;
    cfg.nresolve = sr->n_resolve;
    cfg.props = p;
    cfg.vus_total = sr->vus_total;
    cfg.max_in_flight = sr->max_in_flight;
    cfg.mem_limit = sr->worker_memory;
    cfg.setup_data = (const char *)sr->setup_data.data;
    cfg.setup_len = sr->setup_data.len;
    if (sr->schedule != NULL) {
        cfg.duration_us = (int64_t)sr->schedule->duration_us;
        cfg.ramp_us = (int64_t)sr->schedule->ramp_up_us;
        cfg.runs = sr->schedule->runs;
        cfg.grace_us = (int64_t)sr->schedule->grace_us;
        cfg.staged_vus = sr->schedule->staged_vus;
        if (sr->schedule->n_stages > 0) {
            /* the engine keeps its own copy */
            stages = xcalloc(sr->schedule->n_stages, sizeof(*stages));
            for (size_t i = 0; i < sr->schedule->n_stages; i++) {
                stages[i].dur_us = sr->schedule->stages[i]->duration_us > INT64_MAX
                                       ? -1 /* refused by stages_check */
                                       : (int64_t)sr->schedule->stages[i]->duration_us;
                stages[i].target = sr->schedule->stages[i]->target_vus;
            }
            cfg.stages = stages;
            cfg.nstages = sr->schedule->n_stages;
        }
        if (sr->schedule->n_rate_stages > 0) {
            /* the engine keeps its own copy */
            rstages = xcalloc(sr->schedule->n_rate_stages, sizeof(*rstages));
            for (size_t i = 0; i < sr->schedule->n_rate_stages; i++) {
                const Quern__RateStage *rs = sr->schedule->rate_stages[i];
                rstages[i].dur_us = rs->duration_us > INT64_MAX
                                        ? -1 /* refused by rate_stages_check */
                                        : (int64_t)rs->duration_us;
                rstages[i].per_s = rs->per_second;
            }
            cfg.rate_stages = rstages;
            cfg.nrate_stages = sr->schedule->n_rate_stages;
            cfg.arrival_stripes = sr->schedule->arrival_stripes;
            cfg.open_vus = sr->schedule->open_vus;
            cfg.closed_vus = sr->schedule->closed_vus;
            cfg.max_lag_us = sr->schedule->max_lag_us > INT64_MAX
                                 ? INT64_MAX
                                 : (int64_t)sr->schedule->max_lag_us;
        }
    }
    cfg.sink = on_interval;
    cfg.sink_ud = &c;
    cfg.ctl = on_ctl;
    cfg.ctl_fd = fd;
    c.r = r;
    if (sr->schedule != NULL)
        cfg.active_vus = sr->schedule->active_vus;
    cfg.handle_signals = 1;
    cfg.trace = sr->trace;
    cfg.traceparent = sr->traceparent;
    cfg.slowest = sr->slowest > SLOWEST_MAX ? SLOWEST_MAX : sr->slowest;
    rl = open_reqlog(sr, dir, number, &n, err, sizeof(err));
    if (n) {
        send_ready(fd, c.run_id, 0, err, 0);
        goto out;
    }
    cfg.reqlog = rl;
    e = engine_new(&cfg, err, sizeof(err));
    if (e == NULL) {
        send_ready(fd, c.run_id, 0, err, 0);
        rc = WPROC_EXIT_SCRIPT;
        goto out;
    }
    c.e = e;
    {
        const scen_set *ss = engine_scens(e);
        c.scen_names = xcalloc(ss->nscens ? ss->nscens : 1, sizeof(*c.scen_names));
        for (size_t i = 0; i < ss->nscens; i++)
            c.scen_names[i] = ss->scens[i]->name;
        c.runs = xcalloc(ss->nscens ? ss->nscens : 1, sizeof(*c.runs));
        c.missed = xcalloc(ss->nscens ? ss->nscens : 1, sizeof(*c.missed));
        if (send_steps(fd, c.run_id, ss) != 0)
            goto out;
        if (rl != NULL)
            reqlog_begin(rl, ss->nsteps, cfg.vu_first, cfg.vu_stride, cfg.vu_count);
    }
    {
        uint32_t left = engine_prefill(e, WPROC_PREFILL_MAX_US);
        if (left > 0)
            log_msg(LOG_WARN,
                    "%u VU(s) of --vus still in their init after %d s: they go on in the run", left,
                    WPROC_PREFILL_MAX_US / 1000000);
    }
    send_ready(fd, c.run_id, 1, NULL, cfg.vu_count);
    quern__envelope__free_unpacked(env, NULL);
    env = NULL;

    /* The start barrier. */
    n = recv_env(fd, r, &env, WPROC_GO_TIMEOUT_MS, err, sizeof(err));
    if (n != 1 || env->body_case != QUERN__ENVELOPE__BODY_GO) {
        if (n != 1)
            log_msg(LOG_WARN, "no Go: %s", err);
        rc = n == 1 ? WPROC_EXIT_OK : WPROC_EXIT_IO;
        goto out;
    }
    run_t0 = clock_mono_us();
    st = engine_run(e);
    if (rl != NULL &&
        reqlog_end(rl, engine_scens(e), clock_mono_us() - run_t0, err, sizeof(err)) != 0)
        log_msg(LOG_ERROR, "request logs: %s", err);
    fin.run_id = c.run_id;
    fin.status = (char *)(st == ENGINE_COMPLETED ? "completed"
                          : st == ENGINE_STOPPED ? "stopped"
                                                 : "aborted");
    fin.message = (char *)"";
    fenv.body_case = QUERN__ENVELOPE__BODY_RUN_FINISHED;
    fenv.run_finished = &fin;
    if (!c.broken && send_env(fd, &fenv) != 0)
        log_msg(LOG_ERROR, "cannot send RunFinished: %s", strerror(errno));
    rc = WPROC_EXIT_OK;
out:
    if (env != NULL)
        quern__envelope__free_unpacked(env, NULL);
    engine_free(e);
    reqlog_free(rl);
    xfree(stages);
    xfree(rstages);
    xfree(c.scen_names);
    xfree(c.runs);
    xfree(c.missed);
    props_free(p);
    frame_reader_free(r);
    close(fd);
    return rc;
}

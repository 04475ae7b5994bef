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
#include "worker/engine/engine.h"
#include "proto/workerfiles.h"
#include "worker/plugs/reqlog.h"
#include "worker/engine/steer.h"

#define WPROC_START_TIMEOUT_MS 60000 /* StartRun must come this soon after fork */
#define WPROC_GO_TIMEOUT_MS 600000   /* the start barrier may wait this long */
/* --vus in the open model: the pool's inits before Ready, at most this long
 * (within the console's 60 s for every agent to be ready); those still in
 * their init go on in the run. */
#define WPROC_PREFILL_MAX_US 45000000
#define WPROC_SEND_TIMEOUT_MS 5000 /* a frame must leave within this time */
#define WPROC_DIR "."              /* the run folder, the current folder once entered */

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

/* The agent's frames during the run: its Steers (worker/engine/steer.h). The
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

/* What a worker holds from its StartRun to its end (wproc_run_free). */
typedef struct wproc_run {
    wproc_ctx c;           /**< the sink's and the control's */
    engine_cfg cfg;        /**< the engine's, translated from StartRun */
    char script[PATH_MAX]; /**< cfg.script: the script's path in the run folder */
    props *props;          /**< owned: StartRun's properties (cfg.props) */
    stage *stages;         /**< owned, NULL none: cfg.stages */
    rate_stage *rstages;   /**< owned, NULL none: cfg.rate_stages */
    reqlog *rl;            /**< owned, NULL none: cfg.reqlog */
    engine *e;             /**< owned, NULL until made */
} wproc_run;

static void wproc_run_free(wproc_run *w)
{
    engine_free(w->e);
    reqlog_free(w->rl);
    xfree(w->stages);
    xfree(w->rstages);
    xfree(w->c.scen_names);
    xfree(w->c.runs);
    xfree(w->c.missed);
    props_free(w->props);
}

/* A staged load's stages, into w->stages: the engine keeps its own copy. */
static void staged_cfg(const Quern__Schedule *s, wproc_run *w)
{
    if (s->n_stages == 0)
        return;
    w->stages = xcalloc(s->n_stages, sizeof(*w->stages));
    for (size_t i = 0; i < s->n_stages; i++) {
        w->stages[i].dur_us = s->stages[i]->duration_us > INT64_MAX
                                  ? -1 /* refused by stages_check */
                                  : (int64_t)s->stages[i]->duration_us;
        w->stages[i].target = s->stages[i]->target_vus;
    }
    w->cfg.stages = w->stages;
    w->cfg.nstages = s->n_stages;
}

/* The open model: its rate stages, into w->rstages (the engine keeps its
 * own copy), and how its arrivals are made. */
static void open_model_cfg(const Quern__Schedule *s, wproc_run *w)
{
    if (s->n_rate_stages == 0)
        return;
    w->rstages = xcalloc(s->n_rate_stages, sizeof(*w->rstages));
    for (size_t i = 0; i < s->n_rate_stages; i++) {
        const Quern__RateStage *rs = s->rate_stages[i];
        w->rstages[i].dur_us = rs->duration_us > INT64_MAX ? -1 /* refused by rate_stages_check */
                                                           : (int64_t)rs->duration_us;
        w->rstages[i].per_s = rs->per_second;
    }
    w->cfg.rate_stages = w->rstages;
    w->cfg.nrate_stages = s->n_rate_stages;
    w->cfg.arrival_stripes = s->arrival_stripes;
    w->cfg.open_vus = s->open_vus;
    w->cfg.closed_vus = s->closed_vus;
    w->cfg.max_lag_us = s->max_lag_us > INT64_MAX ? INT64_MAX : (int64_t)s->max_lag_us;
}

static void schedule_cfg(const Quern__Schedule *s, wproc_run *w)
{
    w->cfg.duration_us = (int64_t)s->duration_us;
    w->cfg.ramp_us = (int64_t)s->ramp_up_us;
    w->cfg.runs = s->runs;
    w->cfg.grace_us = (int64_t)s->grace_us;
    w->cfg.staged_vus = s->staged_vus;
    w->cfg.active_vus = s->active_vus;
    staged_cfg(s, w);
    open_model_cfg(s, w);
}

/* Translates StartRun into w->cfg, the engine's configuration; its strings
 * stay StartRun's. Returns WPROC_EXIT_OK, or the exit status with err set. */
static int start_cfg(wproc_run *w, const Quern__StartRun *sr, char *err, size_t errlen)
{
    engine_cfg *cfg = &w->cfg;

    for (size_t i = 0; i < sr->n_props; i++)
        props_set(w->props, sr->props[i]->key, sr->props[i]->value);
    if (sr->script_name == NULL || sr->script_name[0] == '\0' ||
        strlen(WPROC_DIR) + strlen(sr->script_name) + 2 > sizeof(w->script)) {
        err_set(err, errlen, "no script name in StartRun");
        return WPROC_EXIT_SCRIPT;
    }
    snprintf(w->script, sizeof(w->script), "%s/%s", WPROC_DIR, sr->script_name);
    if (wproc_vu_share(sr->vu_ranges, sr->n_vu_ranges, &cfg->vu_first, &cfg->vu_stride,
                       &cfg->vu_count, err, errlen) != 0)
        return WPROC_EXIT_IO;
    if (cfg->vu_count == 0)
        cfg->vu_first = 1;
    cfg->script = w->script;
    cfg->script_display = sr->script_display[0] ? sr->script_display : NULL;
    cfg->source_addrs = (const char *const *)sr->source_addrs;
    cfg->nsource_addrs = sr->n_source_addrs;
    cfg->resolve = (const char *const *)sr->resolve;
    cfg->nresolve = sr->n_resolve;
    cfg->props = w->props;
    cfg->vus_total = sr->vus_total;
    cfg->max_in_flight = sr->max_in_flight;
    cfg->mem_limit = sr->worker_memory;
    cfg->setup_data = (const char *)sr->setup_data.data;
    cfg->setup_len = sr->setup_data.len;
    if (sr->schedule != NULL)
        schedule_cfg(sr->schedule, w);
    cfg->sink = on_interval;
    cfg->sink_ud = &w->c;
    cfg->ctl = on_ctl;
    cfg->ctl_fd = w->c.fd;
    cfg->handle_signals = 1;
    cfg->trace = sr->trace;
    cfg->traceparent = sr->traceparent;
    cfg->slowest = sr->slowest > SLOWEST_MAX ? SLOWEST_MAX : sr->slowest;
    return WPROC_EXIT_OK;
}

/* The sink's names and scratch, one of each per scenario. */
static void ctx_scens(wproc_ctx *c, const scen_set *ss)
{
    size_t n = ss->nscens ? ss->nscens : 1;

    c->scen_names = xcalloc(n, sizeof(*c->scen_names));
    for (size_t i = 0; i < ss->nscens; i++)
        c->scen_names[i] = ss->scens[i]->name;
    c->runs = xcalloc(n, sizeof(*c->runs));
    c->missed = xcalloc(n, sizeof(*c->missed));
}

/* Makes the engine StartRun asks for, sends its steps, runs the open
 * model's inits and sends Ready. Returns WPROC_EXIT_OK, or the exit status,
 * with Ready(!ok) sent when the agent can be told why. */
static int make_ready(wproc_run *w, const Quern__StartRun *sr, char *err, size_t errlen)
{
    const scen_set *ss;
    int rc, failed;
    uint32_t left;

    rc = start_cfg(w, sr, err, errlen);
    if (rc != WPROC_EXIT_OK)
        goto refuse;
    w->rl = open_reqlog(sr, WPROC_DIR, w->c.number, &failed, err, errlen);
    if (failed) {
        rc = WPROC_EXIT_IO;
        goto refuse;
    }
    w->cfg.reqlog = w->rl;
    w->e = engine_new(&w->cfg, err, errlen);
    if (w->e == NULL) {
        rc = WPROC_EXIT_SCRIPT;
        goto refuse;
    }
    w->c.e = w->e;
    ss = engine_scens(w->e);
    ctx_scens(&w->c, ss);
    if (send_steps(w->c.fd, w->c.run_id, ss) != 0)
        return WPROC_EXIT_IO;
    if (w->rl != NULL)
        reqlog_begin(w->rl, ss->nsteps, w->cfg.vu_first, w->cfg.vu_stride, w->cfg.vu_count);
    left = engine_prefill(w->e, WPROC_PREFILL_MAX_US);
    if (left > 0)
        log_msg(LOG_WARN, "%u VU(s) of --vus still in their init after %d s: they go on in the run",
                left, WPROC_PREFILL_MAX_US / 1000000);
    send_ready(w->c.fd, w->c.run_id, 1, NULL, w->cfg.vu_count);
    return WPROC_EXIT_OK;
refuse:
    send_ready(w->c.fd, w->c.run_id, 0, err, 0);
    return rc;
}

/* The start barrier. 1 on Go, 0 on another message (a stop before the
 * start), -1 when none came (logged). */
static int await_go(int fd, frame_reader *r, char *err, size_t errlen)
{
    Quern__Envelope *env = NULL;
    int n = recv_env(fd, r, &env, WPROC_GO_TIMEOUT_MS, err, errlen);
    int rc = -1;

    if (n != 1)
        log_msg(LOG_WARN, "no Go: %s", err);
    else
        rc = env->body_case == QUERN__ENVELOPE__BODY_GO;
    if (env != NULL)
        quern__envelope__free_unpacked(env, NULL);
    return rc;
}

/* Runs the load, ends the request logs and tells the agent (RunFinished). */
static void play_load(wproc_run *w, char *err, size_t errlen)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__RunFinished fin = QUERN__RUN_FINISHED__INIT;
    int64_t t0 = clock_mono_us();
    enum engine_status st = engine_run(w->e);

    if (w->rl != NULL &&
        reqlog_end(w->rl, engine_scens(w->e), clock_mono_us() - t0, err, errlen) != 0)
        log_msg(LOG_ERROR, "request logs: %s", err);
    fin.run_id = w->c.run_id;
    fin.status = (char *)(st == ENGINE_COMPLETED ? "completed"
                          : st == ENGINE_STOPPED ? "stopped"
                                                 : "aborted");
    fin.message = (char *)"";
    env.body_case = QUERN__ENVELOPE__BODY_RUN_FINISHED;
    env.run_finished = &fin;
    if (!w->c.broken && send_env(w->c.fd, &env) != 0)
        log_msg(LOG_ERROR, "cannot send RunFinished: %s", strerror(errno));
}

int wproc_main(int fd, int dirfd, unsigned number)
{
    frame_reader *r = frame_reader_new(FRAME_MAX_DEFAULT);
    Quern__Envelope *env = NULL;
    wproc_run w;
    /* not ERR_MAX: a script's load error goes whole to the console (Ready.error)
     * (tests/lint/errrule.allow) */
    char err[2048], direrr[ERR_MAX], role[32];
    int rc = WPROC_EXIT_IO, n, entered;

    memset(&w, 0, sizeof(w));
    w.props = props_new();
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
    w.c.fd = fd;
    w.c.run_id = env->start_run->run_id;
    w.c.number = number;
    w.c.r = r;
    if (entered != 0) {
        send_ready(fd, w.c.run_id, 0, direrr, 0);
        goto out;
    }
    rc = make_ready(&w, env->start_run, err, sizeof(err));
    quern__envelope__free_unpacked(env, NULL);
    env = NULL;
    if (rc != WPROC_EXIT_OK)
        goto out;
    n = await_go(fd, r, err, sizeof(err));
    if (n == 1)
        play_load(&w, err, sizeof(err));
    rc = n >= 0 ? WPROC_EXIT_OK : WPROC_EXIT_IO;
out:
    if (env != NULL)
        quern__envelope__free_unpacked(env, NULL);
    wproc_run_free(&w);
    frame_reader_free(r);
    close(fd);
    return rc;
}

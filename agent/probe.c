/* probe — the run's profiled targets on this agent; see probe.h. */
#include "agent/probe.h"

#include <string.h>

#include "agent/agent_int.h"
#include "agent/profiler.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"

#define TARGETS_MAX 8 /* targets a run may profile on one agent */

typedef struct ptarget {
    char *target;   /* owned */
    profiler *prof; /* owned; NULL: refused or failed */
} ptarget;

struct probe {
    uint64_t run_id;
    ptarget t[TARGETS_MAX];
    size_t n;
};

static int allowed(const char *list, const char *target)
{
    if (list == NULL)
        return 0;
    size_t tl = strlen(target);
    for (const char *p = list; *p != '\0';) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if ((len == 3 && memcmp(p, "any", 3) == 0) || (len == tl && memcmp(p, target, tl) == 0))
            return 1;
        p += len + (comma != NULL);
    }
    return 0;
}

int probe_allow_check(const char *list, char *err, size_t errlen)
{
    char one[64];

    for (const char *p = list;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof(one)) {
            err_set(err, errlen, "--profile-allow: an empty or too long target in \"%s\"", list);
            return -1;
        }
        memcpy(one, p, len);
        one[len] = '\0';
        if (strcmp(one, "any") != 0 && profiler_parse(one, err, errlen) != 0) {
            char why[ERR_MAX];
            err_set(why, sizeof(why), "%s", err);
            err_set(err, errlen, "--profile-allow: %s", why);
            return -1;
        }
        if (comma == NULL)
            return 0;
        p = comma + 1;
    }
}

static void send_start(struct agent *a, uint64_t run_id, const char *target, const profiler *prof,
                       const char *error)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__ProfileStart m = QUERN__PROFILE_START__INIT;

    m.run_id = run_id;
    m.target = (char *)target;
    m.agent = a->name;
    m.ok = prof != NULL;
    m.error = (char *)(error != NULL ? error : "");
    if (prof != NULL) {
        profiler_info in = profiler_about(prof);
        m.procs = in.procs;
        m.threads = in.threads;
        m.freq = in.freq;
        m.user_only = in.user_only != 0;
        m.cpus = in.cpus;
    }
    env.body_case = QUERN__ENVELOPE__BODY_PROFILE_START;
    env.profile_start = &m;
    uplink_send(a, &env);
}

probe *probe_start(struct agent *a, const Quern__StartRun *sr)
{
    if (sr->n_profile == 0)
        return NULL;
    probe *p = xcalloc(1, sizeof(*p));
    p->run_id = sr->run_id;
    for (size_t i = 0; i < sr->n_profile && p->n < TARGETS_MAX; i++) {
        ptarget *t = &p->t[p->n++];
        char err[ERR_MAX];
        t->target = xstrdup(sr->profile[i]);
        if (!a->same_host && !allowed(a->profile_allow, t->target)) {
            err_set(err, sizeof(err),
                    "agent %s does not allow profiling %s: start it with --profile-allow %s",
                    a->name, t->target, t->target);
            log_msg(LOG_WARN, "run %llu: %s", (unsigned long long)p->run_id, err);
            send_start(a, p->run_id, t->target, NULL, err);
            continue;
        }
        profiler_opts o = {.target = t->target,
                           .freq = sr->profile_freq,
                           .dwarf = sr->profile_stacks == 1,
                           .fp_only = sr->profile_stacks == 2};
        if (profiler_start(&t->prof, &o, err, sizeof(err)) != 0) {
            log_msg(LOG_WARN, "run %llu: cannot profile %s: %s", (unsigned long long)p->run_id,
                    t->target, err);
            send_start(a, p->run_id, t->target, NULL, err);
            continue;
        }
        send_start(a, p->run_id, t->target, t->prof, NULL);
    }
    return p;
}

void probe_go(probe *p, int64_t t0_us)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].prof != NULL)
            profiler_origin(p->t[i].prof, t0_us);
}

static Quern__ProfileStack **stacks(const folded *f, Quern__ProfileStack *buf)
{
    Quern__ProfileStack **v = xcalloc(f->n > 0 ? f->n : 1, sizeof(*v));
    for (size_t i = 0; i < f->n; i++) {
        quern__profile_stack__init(&buf[i]);
        buf[i].frames = f->e[i].frames;
        buf[i].value = f->e[i].value;
        v[i] = &buf[i];
    }
    return v;
}

static void send_second(struct agent *a, uint64_t run_id, const char *target,
                        const profiler_second *s)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__ProfileSecond m = QUERN__PROFILE_SECOND__INIT;
    Quern__ProfileStack *cb = xcalloc(s->cpu.n + 1, sizeof(*cb));
    Quern__ProfileStack *ob = xcalloc(s->off.n + 1, sizeof(*ob));

    m.run_id = run_id;
    m.target = (char *)target;
    m.agent = a->name;
    m.second = s->second;
    m.cpu = stacks(&s->cpu, cb);
    m.n_cpu = s->cpu.n;
    m.off = stacks(&s->off, ob);
    m.n_off = s->off.n;
    m.on_us = s->on_us;
    m.off_us = s->off_us;
    m.runnable_us = s->runnable_us;
    m.threads = s->threads;
    m.lost = s->lost;
    env.body_case = QUERN__ENVELOPE__BODY_PROFILE_SECOND;
    env.profile_second = &m;
    uplink_send(a, &env);
    xfree(m.cpu);
    xfree(m.off);
    xfree(cb);
    xfree(ob);
}

void probe_pump(probe *p, struct agent *a)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].prof == NULL)
            continue;
        profiler_second *s;
        size_t n = profiler_take(p->t[i].prof, &s);
        for (size_t k = 0; k < n; k++)
            send_second(a, p->run_id, p->t[i].target, &s[k]);
        profiler_seconds_free(s, n);
    }
}

void probe_finish(probe *p, struct agent *a)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++)
        profiler_stop(p->t[i].prof);
    probe_pump(p, a);
}

void probe_free(probe *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++) {
        profiler_free(p->t[i].prof);
        xfree(p->t[i].target);
    }
    xfree(p);
}

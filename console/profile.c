/* profile — `quern run --profile`; see profile.h. */
#include "console/profile.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/capacity.h"
#include "common/err.h"
#include "common/folded.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/profdiag.h"
#include "store/profile_db.h"

#define TOP_FUNCS 5  /* functions the summary names per target */
#define TOP_WAITS 3  /* off-CPU stacks it names */
#define NOTES_MAX 64 /* answers kept until the run's row is in the database */

/* An agent's answer for one target, kept until it can be stored. */
typedef struct pnote {
    char *spec, *agent, *error; /* owned */
    int ok;
    profile_target_row found; /* procs, threads, freq, cpus */
} pnote;

struct profile {
    const char *const *specs; /* borrowed: n --profile values */
    size_t n;
    unsigned freq, stacks;
    profile_db *pdb; /* owned: the statements, once the run is in the database */
    pnote notes[NOTES_MAX];
    size_t nnotes, stored; /* stored: the first ones written */
};

profile *profile_new(const char *const *specs, size_t n, unsigned freq, unsigned stacks)
{
    if (n == 0)
        return NULL;
    profile *p = xcalloc(1, sizeof(*p));
    p->specs = specs;
    p->n = n;
    p->freq = freq;
    p->stacks = stacks;
    return p;
}

void profile_free(profile *p)
{
    if (p == NULL)
        return;
    profile_db_free(p->pdb);
    for (size_t i = 0; i < p->nnotes; i++) {
        xfree(p->notes[i].spec);
        xfree(p->notes[i].agent);
        xfree(p->notes[i].error);
    }
    xfree(p);
}

/* The agent a target is for: the part after '@', NULL: the run's first. */
static const char *target_agent(const char *spec)
{
    const char *at = strchr(spec, '@');
    return at != NULL ? at + 1 : NULL;
}

void profile_share(const profile *p, const char *agent, int first, Quern__StartRun *sr,
                   char **names)
{
    size_t n = 0;

    for (size_t i = 0; p != NULL && i < p->n && n < OPTS_PROFILE_MAX; i++) {
        const char *spec = p->specs[i], *ag = target_agent(spec);
        if (ag != NULL ? strcmp(ag, agent) != 0 : !first)
            continue;
        names[n++] = ag != NULL ? xstrndup(spec, (size_t)(ag - 1 - spec)) : xstrdup(spec);
    }
    sr->profile = names;
    sr->n_profile = n;
    sr->profile_freq = p != NULL ? p->freq : 0;
    sr->profile_stacks = p != NULL ? p->stacks : 0;
}

void profile_share_done(Quern__StartRun *sr)
{
    for (size_t i = 0; i < sr->n_profile; i++)
        xfree(sr->profile[i]);
    sr->profile = NULL;
    sr->n_profile = 0;
}

void profile_check_agents(const profile *p, const char *const *agents, size_t n)
{
    for (size_t i = 0; p != NULL && i < p->n; i++) {
        const char *ag = target_agent(p->specs[i]);
        int found = ag == NULL;
        for (size_t k = 0; k < n && !found; k++)
            found = strcmp(agents[k], ag) == 0;
        if (!found)
            log_msg(LOG_WARN, "--profile %s: no agent %s in the run: not profiled", p->specs[i],
                    ag);
    }
}

/* The spec as the tester gave it, for an agent's answer on target. */
static const char *spec_of(const profile *p, const char *agent, const char *target)
{
    size_t tl = strlen(target);

    for (size_t i = 0; i < p->n; i++) {
        const char *spec = p->specs[i], *ag = target_agent(spec);
        if (strncmp(spec, target, tl) == 0 &&
            (ag == NULL ? spec[tl] == '\0' : (spec[tl] == '@' && strcmp(ag, agent) == 0)))
            return spec;
    }
    return NULL;
}

/* Writes the answers not yet stored, once the run has its row: 0; 1 when it
 * cannot yet; -1 with err when the database failed. */
static int store_notes(profile *p, db *d, int64_t db_run, char *err, size_t errlen)
{
    if (d == NULL || db_run <= 0)
        return 1;
    if (p->pdb == NULL && (p->pdb = profile_db_new(d, err, errlen)) == NULL)
        return -1;
    for (; p->stored < p->nnotes; p->stored++) {
        const pnote *t = &p->notes[p->stored];
        if (profile_db_target(p->pdb, db_run, t->spec, t->agent, t->ok, t->error, &t->found, err,
                              errlen) != 0)
            return -1;
    }
    return 0;
}

int profile_on_start(profile *p, const char *agent, const Quern__ProfileStart *m, db *d,
                     int64_t db_run, char *err, size_t errlen)
{
    const char *spec = p != NULL ? spec_of(p, agent, m->target) : NULL;

    if (spec == NULL)
        return 0;
    if (m->ok)
        log_msg(LOG_INFO, "--profile %s: agent %s profiles %u process(es), %u thread(s), %u Hz%s",
                spec, agent, m->procs, m->threads, m->freq,
                m->user_only ? " (user space only: the kernel is not allowed)" : "");
    else
        log_msg(LOG_WARN, "--profile %s: %s; the run goes on without its profile", spec, m->error);
    if (p->nnotes < NOTES_MAX) {
        pnote *t = &p->notes[p->nnotes++];
        t->spec = xstrdup(spec);
        t->agent = xstrdup(agent);
        t->error = xstrdup(m->error != NULL ? m->error : "");
        t->ok = m->ok;
        t->found.procs = m->procs;
        t->found.threads = m->threads;
        t->found.freq = m->freq;
        t->found.cpus = m->cpus;
    }
    return store_notes(p, d, db_run, err, errlen) < 0 ? -1 : 0;
}

static profile_db_stack *stacks(Quern__ProfileStack **v, size_t n)
{
    profile_db_stack *s = xcalloc(n + 1, sizeof(*s));
    for (size_t i = 0; i < n; i++) {
        s[i].frames = v[i]->frames;
        s[i].value = v[i]->value;
    }
    return s;
}

int profile_on_second(profile *p, const char *agent, const Quern__ProfileSecond *m, db *d,
                      int64_t db_run, char *err, size_t errlen)
{
    const char *spec = p != NULL ? spec_of(p, agent, m->target) : NULL;

    if (spec == NULL)
        return 0;
    int rc = store_notes(p, d, db_run, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    profile_db_sec s = {.second = m->second,
                        .ncpu = m->n_cpu,
                        .noff = m->n_off,
                        .on_us = m->on_us,
                        .off_us = m->off_us,
                        .runnable_us = m->runnable_us,
                        .lost = m->lost,
                        .threads = m->threads};
    profile_db_stack *cpu = stacks(m->cpu, m->n_cpu), *off = stacks(m->off, m->n_off);
    s.cpu = cpu;
    s.off = off;
    rc = profile_db_second(p->pdb, db_run, spec, &s, err, errlen);
    xfree(cpu);
    xfree(off);
    return rc;
}

/* One target over the run's seconds: printed, and as JSON. */
static json_t *target_json(const profile_end *e, FILE *out, const profile_target_row *t,
                           profile_window *w, profdiag *d)
{
    json_t *o = json_object(), *cpu = json_array(), *off = json_array();
    folded_func *fn;
    size_t nf = folded_funcs(&w->cpu, &fn);
    uint64_t nreq = e->requests;
    char name[600];

    json_object_set_new(o, "target", json_string(t->target));
    json_object_set_new(o, "agent", json_string(t->agent));
    json_object_set_new(o, "ok", json_boolean(t->ok));
    if (!t->ok) {
        json_object_set_new(o, "error", json_string(t->error));
        fprintf(out, "\nProfile of %s (agent %s): none: %s\n", t->target, t->agent, t->error);
        xfree(fn);
        json_decref(cpu);
        json_decref(off);
        return o;
    }
    double thread_us = (double)(w->on_us + w->off_us + w->runnable_us);
    double idle = 0;
    for (size_t i = 0; i < w->off.n; i++)
        if (profdiag_idle_stack(w->off.e[i].frames))
            idle += (double)w->off.e[i].value;
    fprintf(out,
            "\nProfile of %s (agent %s, %u process(es), %u Hz): %llu on-CPU samples in %u s; "
            "threads %.0f %% running, %.0f %% blocked (%.0f %% of it waiting for work), %.0f %% "
            "waiting for a CPU\n",
            t->target, t->agent, t->procs, t->freq, (unsigned long long)w->cpu.total, w->seconds,
            thread_us > 0 ? 100.0 * (double)w->on_us / thread_us : 0,
            thread_us > 0 ? 100.0 * (double)w->off_us / thread_us : 0,
            w->off_us > 0 ? 100.0 * idle / (double)w->off_us : 0,
            thread_us > 0 ? 100.0 * (double)w->runnable_us / thread_us : 0);
    if (w->lost > 0)
        fprintf(out,
                "  (%llu records lost: the kernel's buffer was full; the shares are of what "
                "came)\n",
                (unsigned long long)w->lost);
    /* the heaviest by their own samples: where the CPU goes */
    for (size_t k = 0; k < TOP_FUNCS; k++) {
        size_t best = nf;
        for (size_t i = 0; i < nf; i++)
            if (fn[i].self > 0 && (best == nf || fn[i].self > fn[best].self))
                best = i;
        if (best == nf)
            break;
        double self = (double)fn[best].self / (double)w->cpu.total;
        double total = (double)fn[best].total / (double)w->cpu.total;
        fprintf(out, "  on-CPU  %5.1f %% self %5.1f %% total  %.*s\n", 100 * self, 100 * total,
                (int)fn[best].len, fn[best].name);
        json_t *j = json_object();
        json_object_set_new(j, "name", json_stringn(fn[best].name, fn[best].len));
        json_object_set_new(j, "self", json_real(self));
        json_object_set_new(j, "total", json_real(total));
        json_object_set_new(j, "samples", json_integer((json_int_t)fn[best].self));
        json_array_append_new(cpu, j);
        fn[best].self = 0;
    }
    xfree(fn);
    folded_trim(&w->off, w->off.n);
    size_t shown = 0;
    for (size_t i = 0; i < w->off.n && shown < TOP_WAITS; i++) {
        if (strcmp(w->off.e[i].frames, FOLDED_OTHER) == 0 ||
            profdiag_idle_stack(w->off.e[i].frames))
            continue;
        shown++;
        double us = (double)w->off.e[i].value;
        profdiag_wait_name(w->off.e[i].frames, name, sizeof(name));
        fprintf(out, "  off-CPU %5.1f %% of the threads' time, %.1f ms/s, %.3f ms/request  %s\n",
                thread_us > 0 ? 100 * us / thread_us : 0,
                w->seconds > 0 ? us / 1e3 / w->seconds : 0, nreq > 0 ? us / 1e3 / (double)nreq : 0,
                name);
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(name));
        json_object_set_new(j, "stack", json_string(w->off.e[i].frames));
        json_object_set_new(j, "share", json_real(thread_us > 0 ? us / thread_us : 0));
        json_object_set_new(j, "ms_per_s", json_real(w->seconds > 0 ? us / 1e3 / w->seconds : 0));
        json_object_set_new(j, "ms_per_request", json_real(nreq > 0 ? us / 1e3 / (double)nreq : 0));
        json_array_append_new(off, j);
    }
    json_object_set_new(o, "seconds", json_integer(w->seconds));
    json_object_set_new(o, "samples", json_integer((json_int_t)w->cpu.total));
    json_object_set_new(o, "running", json_real(thread_us > 0 ? (double)w->on_us / thread_us : 0));
    json_object_set_new(o, "blocked", json_real(thread_us > 0 ? (double)w->off_us / thread_us : 0));
    json_object_set_new(o, "idle", json_real(thread_us > 0 ? idle / thread_us : 0));
    json_object_set_new(o, "runnable",
                        json_real(thread_us > 0 ? (double)w->runnable_us / thread_us : 0));
    json_object_set_new(o, "lost", json_integer((json_int_t)w->lost));
    json_object_set_new(o, "top_cpu", cpu);
    json_object_set_new(o, "top_off", off);
    if (d != NULL)
        json_object_set_new(o, "diagnosis", json_string(d->sentence));
    return o;
}

/* The knee of a capacity search: the last step that passed and the first
 * that failed (or the last judged, when none failed). */
static int knee(const capacity_search *cs, const capacity_search_step **before,
                const capacity_search_step **after)
{
    *before = *after = NULL;
    for (size_t i = 0; i < cs->plan.nsteps; i++) {
        const capacity_search_step *s = &cs->steps[i];
        if (!s->judged)
            break;
        if (!s->passed) {
            *before = *after;
            *after = s;
            return 1;
        }
        *before = *after;
        *after = s;
    }
    return *after != NULL;
}

/* A step's load as the sentences give it: "2000/s", "40 VUs". */
static void load_label(const capacity_search *cs, double load, char *buf, size_t len)
{
    char v[64];
    capacity_format(&cs->plan, load, v, sizeof(v));
    snprintf(buf, len, "%s%s", v, strcmp(capacity_unit(&cs->plan), "vus") == 0 ? " VUs" : "");
}

/* A capacity step's judged seconds. */
static void step_seconds(const capacity_search_step *s, int64_t *s0, int64_t *s1)
{
    *s0 = (s->from_us + 999999) / 1000000;
    *s1 = s->t1_us / 1000000;
    if (*s1 <= *s0)
        *s1 = *s0 + 1;
}

json_t *profile_finish(profile *p, const profile_end *e, FILE *out, char *diag, size_t diaglen)
{
    profile_target_row rows[PROFILE_DB_TARGETS_MAX];
    char err[ERR_MAX];
    json_t *arr;

    diag[0] = '\0';
    if (p == NULL)
        return NULL;
    json_t *root = json_object();
    arr = json_array();
    json_object_set_new(root, "targets", arr);
    int rc = store_notes(p, e->d, e->db_run, err, sizeof(err));
    if (rc > 0)
        log_msg(LOG_WARN, "--profile: the profile is kept in the results database, and this run "
                          "has none (--db none): not shown");
    if (rc != 0) {
        if (rc < 0)
            log_msg(LOG_ERROR, "--profile: %s", err);
        return root;
    }
    int n = profile_db_targets(e->d, e->db_run, rows, PROFILE_DB_TARGETS_MAX, err, sizeof(err));
    if (n < 0) {
        log_msg(LOG_ERROR, "--profile: %s", err);
        return root;
    }
    for (int i = 0; i < n; i++) {
        profile_window w;
        profdiag d, *dp = NULL;
        unsigned cpus = rows[i].cpus > 0 ? rows[i].cpus : 1;
        memset(&d, 0, sizeof(d));
        if (profile_db_window(e->d, e->db_run, rows[i].target, 0, e->end_s + 1, &w, err,
                              sizeof(err)) != 0) {
            log_msg(LOG_ERROR, "--profile: %s", err);
            profile_window_free(&w);
            continue;
        }
        const capacity_search_step *b, *a;
        if (rows[i].ok && e->cap != NULL && knee(e->cap, &b, &a)) {
            profile_window wb, wa;
            int64_t s0, s1;
            char lb[64], la[64];
            profdiag_in ib, ia;
            memset(&wb, 0, sizeof(wb));
            step_seconds(a, &s0, &s1);
            int ok = profile_db_window(e->d, e->db_run, rows[i].target, s0, s1, &wa, err,
                                       sizeof(err)) == 0;
            load_label(e->cap, a->load, la, sizeof(la));
            profile_window_in(&wa, cpus, la, &ia);
            if (ok && b != NULL) {
                step_seconds(b, &s0, &s1);
                ok = profile_db_window(e->d, e->db_run, rows[i].target, s0, s1, &wb, err,
                                       sizeof(err)) == 0;
                load_label(e->cap, b->load, lb, sizeof(lb));
                profile_window_in(&wb, cpus, lb, &ib);
            }
            if (ok && wa.seconds > 0) {
                profdiag_judge(b != NULL && wb.seconds > 0 ? &ib : NULL, &ia, &d);
                dp = &d;
                if (diag[0] == '\0')
                    snprintf(diag, diaglen, "%s", d.sentence);
            }
            profile_window_free(&wa);
            profile_window_free(&wb);
        } else if (rows[i].ok && w.seconds > 0) {
            profdiag_in in;
            profile_window_in(&w, cpus, "this load", &in);
            profdiag_judge(NULL, &in, &d);
            dp = &d;
        }
        json_array_append_new(arr, target_json(e, out, &rows[i], &w, dp));
        if (dp != NULL) {
            fprintf(out, "  Diagnosis: %s\n", d.sentence);
            if (json_object_get(root, "diagnosis") == NULL)
                json_object_set_new(root, "diagnosis", json_string(d.sentence));
        }
        profile_window_free(&w);
    }
    return root;
}

/* profile_html — the report's section on the profiled server; see profile_html.h. */
#include "reports/profile_html.h"

#include <string.h>

#include "common/capacity.h"
#include "common/err.h"
#include "common/mem.h"
#include "reports/flame.h"
#include "reports/html.h"

/* Step graphs: frames narrower than this many px are summed. */
#define STEP_MIN_PX 2.0

int profile_html_knee(const capacity_db_run *c, int *before, int *after)
{
    *before = *after = -1;
    for (size_t i = 0; i < c->nsteps; i++) {
        *before = *after;
        *after = (int)i;
        if (!c->steps[i].passed)
            break;
    }
    return *after >= 0;
}

void profile_html_step_seconds(const capacity_db_step *s, int64_t *s0, int64_t *s1)
{
    *s0 = (s->from_us + 999999) / 1000000;
    *s1 = s->t1_us / 1000000;
    if (*s1 <= *s0)
        *s1 = *s0 + 1;
}

/* A step's load as the sentences give it: "2000/s", "40 VUs". */
static void load_label(const capacity_db_run *c, double load, char *buf, size_t len)
{
    capacity_plan p;
    char v[CAPACITY_LOAD_MAX];

    memset(&p, 0, sizeof(p));
    p.open = strcmp(c->unit, "/s") == 0;
    capacity_format(&p, load, v, sizeof(v));
    snprintf(buf, len, "%s%s", v, p.open ? "" : " VUs");
}

/* src's stacks into dst, the waits for work left out when busy_only, the
 * keep heaviest kept. */
static void copy_trim(folded *dst, const folded *src, size_t keep, int busy_only)
{
    folded_init(dst, src->n + 1);
    for (size_t i = 0; i < src->n; i++)
        if (!busy_only || !profdiag_idle_stack(src->e[i].frames))
            folded_add(dst, src->e[i].frames, strlen(src->e[i].frames), src->e[i].value);
    folded_trim(dst, keep);
}

static uint64_t idle_of(const folded *off)
{
    uint64_t v = 0;

    for (size_t i = 0; i < off->n; i++)
        if (profdiag_idle_stack(off->e[i].frames))
            v += off->e[i].value;
    return v;
}

/* The functions with the most own samples of w, into t. */
static void top_funcs(profile_html_target *t, const profile_window *w)
{
    folded_func *fn;
    size_t nf = folded_funcs(&w->cpu, &fn);

    for (t->nfuncs = 0; t->nfuncs < PROFILE_HTML_FUNCS; t->nfuncs++) {
        size_t best = nf;
        for (size_t i = 0; i < nf; i++)
            if (fn[i].self > 0 && (best == nf || fn[i].self > fn[best].self))
                best = i;
        if (best == nf)
            break;
        profile_html_func *f = &t->funcs[t->nfuncs];
        snprintf(f->name, sizeof(f->name), "%.*s", (int)fn[best].len, fn[best].name);
        f->self = fn[best].self;
        f->total = fn[best].total;
        fn[best].self = 0;
    }
    xfree(fn);
}

/* The heaviest off-CPU stacks of w that are not waits for work, into t
 * (w->off sorted). */
static void top_waits(profile_html_target *t, profile_window *w)
{
    folded_trim(&w->off, w->off.n);
    t->nwaits = 0;
    for (size_t i = 0; i < w->off.n && t->nwaits < PROFILE_HTML_WAITS; i++) {
        const folded_entry *e = &w->off.e[i];
        if (strcmp(e->frames, FOLDED_OTHER) == 0 || profdiag_idle_stack(e->frames))
            continue;
        profile_html_wait *x = &t->waits[t->nwaits++];
        profdiag_wait_name(e->frames, x->name, sizeof(x->name));
        x->frames = xstrdup(e->frames);
        x->us = e->value;
    }
}

/* The judged steps' graphs of target t, then the knee's windows judged. */
static int load_steps(db *d, const query_run *r, profile_html_target *t, int64_t end_s, char *err,
                      size_t errlen)
{
    const capacity_db_run *c = r->capacity;
    profile_window wb, wa;
    int64_t s0, s1;
    int ok = -1;
    unsigned cpus;

    t->steps = xcalloc(c->nsteps + 1, sizeof(*t->steps));
    for (size_t i = 0; i < c->nsteps; i++) {
        profile_html_step *s = &t->steps[t->nsteps++];
        profile_window w;
        folded_init(&s->cpu, 1);
        load_label(c, c->steps[i].load, s->label, sizeof(s->label));
        s->passed = c->steps[i].passed;
        profile_html_step_seconds(&c->steps[i], &s0, &s1);
        if (profile_db_window(d, r->id, t->row.target, s0, s1, &w, err, errlen) != 0) {
            profile_window_free(&w);
            return -1;
        }
        s->seconds = w.seconds;
        s->on_us = w.on_us;
        s->off_us = w.off_us;
        s->runnable_us = w.runnable_us;
        folded_free(&s->cpu);
        copy_trim(&s->cpu, &w.cpu, PROFILE_HTML_STEP_STACKS, 0);
        profile_window_free(&w);
    }
    if (!profile_html_knee(c, &t->before, &t->after))
        return 0;
    memset(&wb, 0, sizeof(wb));
    memset(&wa, 0, sizeof(wa));
    profile_html_step_seconds(&c->steps[t->after], &s0, &s1);
    if (profile_db_window(d, r->id, t->row.target, s0, s1, &wa, err, errlen) != 0)
        goto out;
    if (t->before >= 0) {
        profile_html_step_seconds(&c->steps[t->before], &s0, &s1);
        if (profile_db_window(d, r->id, t->row.target, s0, s1, &wb, err, errlen) != 0)
            goto out;
        copy_trim(&t->knee_off[0], &wb.off, PROFILE_HTML_STACKS, 1);
    }
    copy_trim(&t->knee_off[1], &wa.off, PROFILE_HTML_STACKS, 1);
    if (wa.seconds > 0) {
        profdiag_in ib, ia;
        cpus = t->row.cpus > 0 ? t->row.cpus : 1;
        profile_window_in(&wa, cpus, t->steps[t->after].label, &ia);
        if (t->before >= 0)
            profile_window_in(&wb, cpus, t->steps[t->before].label, &ib);
        profdiag_judge(t->before >= 0 && wb.seconds > 0 ? &ib : NULL, &ia, &t->diag);
        t->diagnosed = 1;
    }
    ok = 0;
out:
    profile_window_free(&wa);
    profile_window_free(&wb);
    return ok;
}

/* Target t over the whole run, and its steps. */
static int load_target(db *d, const query_run *r, profile_html_target *t, int64_t end_s, char *err,
                       size_t errlen)
{
    profile_window w;

    t->before = t->after = -1;
    folded_init(&t->cpu, 1);
    folded_init(&t->off, 1);
    folded_init(&t->knee_off[0], 1);
    folded_init(&t->knee_off[1], 1);
    if (!t->row.ok)
        return 0;
    if (profile_db_window(d, r->id, t->row.target, 0, INT64_MAX, &w, err, errlen) != 0) {
        profile_window_free(&w);
        return -1;
    }
    t->seconds = w.seconds;
    t->samples = w.cpu.total;
    t->on_us = w.on_us;
    t->off_us = w.off_us;
    t->runnable_us = w.runnable_us;
    t->lost = w.lost;
    t->idle_us = idle_of(&w.off);
    top_funcs(t, &w);
    int knee = r->capacity != NULL && profile_html_knee(r->capacity, &t->before, &t->after);
    if (!knee && w.seconds > 0) {
        profdiag_in in;
        unsigned cpus = t->row.cpus > 0 ? t->row.cpus : 1;
        if (cpus == 0) {
            profile_window_free(&w);
            return -1;
        }
        profile_window_in(&w, cpus, "this load", &in);
        profdiag_judge(NULL, &in, &t->diag);
        t->diagnosed = 1;
    }
    folded_free(&t->off);
    copy_trim(&t->off, &w.off, PROFILE_HTML_STACKS, 1);
    top_waits(t, &w);
    folded_free(&t->cpu);
    copy_trim(&t->cpu, &w.cpu, PROFILE_HTML_STACKS, 0);
    profile_window_free(&w);
    if (r->capacity != NULL)
        return load_steps(d, r, t, end_s, err, errlen);
    return 0;
}

int profile_html_load(db *d, const query_run *r, profile_html **out, char *err, size_t errlen)
{
    profile_target_row rows[PROFILE_DB_TARGETS_MAX];
    uint64_t nsec = 0;
    profile_html *p;
    int n;

    *out = NULL;
    n = profile_db_targets(d, r->id, rows, PROFILE_DB_TARGETS_MAX, err, errlen);
    if (n <= 0)
        return n;
    if (query_run_seconds(d, r->id, &nsec, err, errlen) != 0)
        return -1;
    if (nsec > QUERY_SECONDS_MAX)
        nsec = QUERY_SECONDS_MAX;
    p = xcalloc(1, sizeof(*p));
    p->t = xcalloc((size_t)n, sizeof(*p->t));
    p->search = r->capacity != NULL;
    for (int i = 0; i < n; i++) {
        profile_html_target *t = &p->t[p->n++];
        t->row = rows[i];
        if (load_target(d, r, t, (int64_t)nsec + 1, err, errlen) != 0) {
            profile_html_free(p);
            return -1;
        }
    }
    *out = p;
    return 0;
}

/* ------------------------------------------------------------------ writing */

static double share(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

/* The flame graph of f; title escaped by flame_svg. */
static void graph(FILE *out, const folded *f, const char *title, const char *unit, double min_px)
{
    flame_stack *st = xcalloc(f->n + 1, sizeof(*st));
    flame_opts o = {.title = title, .unit = unit, .min_px = min_px};

    for (size_t i = 0; i < f->n; i++)
        st[i] = (flame_stack){f->e[i].frames, (double)f->e[i].value};
    flame_svg(out, st, f->n, &o);
    xfree(st);
}

static void diff_graph(FILE *out, const folded *before, const folded *after, const char *title)
{
    flame_stack *b = xcalloc(before->n + 1, sizeof(*b)), *a = xcalloc(after->n + 1, sizeof(*a));
    flame_opts o = {.title = title};

    for (size_t i = 0; i < before->n; i++)
        b[i] = (flame_stack){before->e[i].frames, (double)before->e[i].value};
    for (size_t i = 0; i < after->n; i++)
        a[i] = (flame_stack){after->e[i].frames, (double)after->e[i].value};
    flame_diff_svg(out, b, before->n, a, after->n, &o);
    xfree(b);
    xfree(a);
}

static void funcs_table(FILE *out, const profile_html_target *t)
{
    char b[64];

    if (t->nfuncs == 0) {
        fputs("<p class=\"same\">No on-CPU sample was recorded.</p>\n", out);
        return;
    }
    fputs("<table class=\"profile-cpu\">\n<thead><tr><th>Function (on-CPU)</th>"
          "<th class=\"n\">Self</th><th class=\"n\">Total</th><th class=\"n\">Samples</th>"
          "</tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < t->nfuncs; i++) {
        const profile_html_func *f = &t->funcs[i];
        fputs("<tr><td><code>", out);
        html_esc(out, f->name);
        fprintf(out, "</code></td><td class=\"n\">%.1f %%</td><td class=\"n\">%.1f %%</td>",
                100 * share((double)f->self, (double)t->samples),
                100 * share((double)f->total, (double)t->samples));
        fprintf(out, "<td class=\"n\">%s</td></tr>\n", html_count(f->self, b, sizeof(b)));
    }
    fputs("</tbody>\n</table>\n", out);
}

static void waits_table(FILE *out, const profile_html_target *t)
{
    double thread_us = (double)(t->on_us + t->off_us + t->runnable_us);

    if (t->nwaits == 0) {
        fputs("<p class=\"same\">No off-CPU time but waits for work was recorded.</p>\n", out);
        return;
    }
    fputs("<table class=\"profile-off\">\n<thead><tr><th>Blocked in (off-CPU)</th>"
          "<th class=\"n\">Of the threads' time</th><th class=\"n\">ms blocked a second</th>"
          "</tr></thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < t->nwaits; i++) {
        const profile_html_wait *w = &t->waits[i];
        fputs("<tr><td title=\"", out);
        html_esc(out, w->frames);
        fputs("\"><code>", out);
        html_esc(out, w->name);
        fprintf(out, "</code></td><td class=\"n\">%.1f %%</td><td class=\"n\">%.1f</td></tr>\n",
                100 * share((double)w->us, thread_us),
                t->seconds > 0 ? (double)w->us / 1e3 / t->seconds : 0);
    }
    fputs("</tbody>\n</table>\n", out);
}

/* The judged steps' graphs, the knee's differential graphs and the
 * diagnosis. */
static void steps_part(FILE *out, const profile_html_target *t)
{
    char title[512], b[64];

    fputs("<h4>Each step of the capacity search</h4>\n", out);
    for (size_t i = 0; i < t->nsteps; i++) {
        const profile_html_step *s = &t->steps[i];
        double thread_us = (double)(s->on_us + s->off_us + s->runnable_us);
        snprintf(title, sizeof(title),
                 "On-CPU at %s (step %zu, %s): %s samples in %u s; the threads ran %.0f %% of "
                 "their time",
                 s->label, i + 1, s->passed ? "passed" : "failed",
                 html_count(s->cpu.total, b, sizeof(b)), s->seconds,
                 100 * share((double)s->on_us, thread_us));
        fprintf(out, "<details class=\"profile-step\"><summary>Step %zu at ", i + 1);
        html_esc(out, s->label);
        fprintf(out, ", %s</summary>\n", s->passed ? "passed" : "failed");
        graph(out, &s->cpu, title, "samples", STEP_MIN_PX);
        fputs("</details>\n", out);
    }
    if (t->before >= 0 && t->after >= 0) {
        const profile_html_step *sb = &t->steps[t->before], *sa = &t->steps[t->after];
        fputs("<h4>The knee</h4>\n", out);
        snprintf(title, sizeof(title),
                 "On-CPU, %s (%s) to %s (%s): each frame's share of the samples, red grown, "
                 "blue shrunk",
                 sb->label, sb->passed ? "passed" : "failed", sa->label,
                 sa->passed ? "passed" : "failed");
        diff_graph(out, &sb->cpu, &sa->cpu, title);
        snprintf(title, sizeof(title),
                 "Off-CPU, %s to %s, waits for work left out: each frame's share of the blocked "
                 "time, red grown, blue shrunk",
                 sb->label, sa->label);
        diff_graph(out, &t->knee_off[0], &t->knee_off[1], title);
    }
}

static void target_part(FILE *out, const profile_html_target *t, int search)
{
    double thread_us = (double)(t->on_us + t->off_us + t->runnable_us);
    char title[512], b[64], ms[48];

    if (!t->row.ok) {
        fputs("<p class=\"note profile-error\">", out);
        html_esc(out, t->row.target);
        fputs(" (agent ", out);
        html_esc(out, t->row.agent);
        fputs(") was not profiled: ", out);
        html_esc(out, t->row.error);
        fputs(".</p>\n", out);
        return;
    }
    fputs("<div class=\"stepbox profile-target\">\n<h3>Server profile: ", out);
    html_esc(out, t->row.target);
    fputs(" (agent ", out);
    html_esc(out, t->row.agent);
    fputs(")</h3>\n<p class=\"meta\">", out);
    fprintf(out, "%u process(es), %u Hz · %s on-CPU samples in %u s · ", t->row.procs, t->row.freq,
            html_count(t->samples, b, sizeof(b)), t->seconds);
    fprintf(out,
            "threads %.0f %% running, %.0f %% blocked (%.0f %% of it waiting for work), %.0f %% "
            "waiting for a CPU",
            100 * share((double)t->on_us, thread_us), 100 * share((double)t->off_us, thread_us),
            100 * share((double)t->idle_us, (double)t->off_us),
            100 * share((double)t->runnable_us, thread_us));
    if (t->lost > 0)
        fprintf(out, " · %s records lost", html_count(t->lost, b, sizeof(b)));
    fputs("</p>\n", out);
    if (t->diagnosed) {
        fputs("<p class=\"profile-diagnosis\"><b>Diagnosis:</b> ", out);
        html_esc(out, t->diag.sentence);
        fputs(".</p>\n", out);
    }
    fputs("<div class=\"grid2\">\n<div>\n", out);
    funcs_table(out, t);
    fputs("</div>\n<div>\n", out);
    waits_table(out, t);
    fputs("</div>\n</div>\n", out);
    snprintf(title, sizeof(title),
             "On-CPU, the whole run: %s samples in %u s; the threads ran %.0f %% of their time",
             html_count(t->samples, b, sizeof(b)), t->seconds,
             100 * share((double)t->on_us, thread_us));
    graph(out, &t->cpu, title, "samples", 0);
    if (t->off.total < 1000000)
        snprintf(b, sizeof(b), "%s ms", html_ms((double)t->off.total, ms, sizeof(ms)));
    else
        snprintf(b, sizeof(b), "%.1f s", (double)t->off.total / 1e6);
    snprintf(title, sizeof(title),
             "Off-CPU, the whole run, waits for work left out: %s blocked, %.0f %% of the "
             "threads' time",
             b, 100 * share((double)t->off.total, thread_us));
    graph(out, &t->off, title, "us", 0);
    if (search)
        steps_part(out, t);
    fputs("</div>\n", out);
}

void profile_html_section(FILE *out, const profile_html *p)
{
    if (p == NULL || p->n == 0)
        return;
    fputs("<section id=\"profile\">\n<h2>The profiled server</h2>\n", out);
    for (size_t i = 0; i < p->n; i++)
        target_part(out, &p->t[i], p->search);
    fprintf(out,
            "<p class=\"note\">On-CPU: the samples of the server's threads while they ran; "
            "self is a function's own, total with its callees'. Off-CPU: the time they were "
            "blocked, by stack, named by the caller of its lock or by its leaf; a wait for work "
            "(epoll_wait, accept, pthread_cond_wait...) is left out of the tables and graphs. "
            "The threads' time is their time running, blocked and waiting for a CPU. A graph "
            "keeps its %d heaviest stacks (a step's %d), the rest drawn as [other].%s</p>\n",
            PROFILE_HTML_STACKS, PROFILE_HTML_STEP_STACKS,
            p->search ? " A step's graph covers its judged seconds; the knee's graphs colour "
                        "the last step that passed against the first that failed (or the last "
                        "two judged)."
                      : "");
    fputs("</section>\n", out);
}

void profile_html_free(profile_html *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++) {
        profile_html_target *t = &p->t[i];
        for (size_t k = 0; k < t->nwaits; k++)
            xfree(t->waits[k].frames);
        for (size_t k = 0; k < t->nsteps; k++)
            folded_free(&t->steps[k].cpu);
        xfree(t->steps);
        folded_free(&t->cpu);
        folded_free(&t->off);
        folded_free(&t->knee_off[0]);
        folded_free(&t->knee_off[1]);
    }
    xfree(p->t);
    xfree(p);
}

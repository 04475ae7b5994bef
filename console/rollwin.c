/* rollwin — thresholds judged in every window of D seconds; see rollwin.h. */
#include "console/rollwin.h"

#include <stdio.h>
#include <string.h>

#include "common/mem.h"
#include "common/stats.h"

/* One second of a threshold's scope, merged. */
typedef struct slot {
    uint64_t second;
    int used;
    step_stats st; /* owned */
} slot;

/* A window's verdict. */
typedef struct judged {
    int have;
    uint64_t from, to; /* its seconds: [from, to) */
    thresh_result r;
} judged;

/* One windowed threshold. */
typedef struct win {
    size_t i;          /* its index in the thresholds */
    const thresh *t;   /* borrowed */
    unsigned d;        /* its window, seconds */
    size_t cap;        /* 2 x d: slots and recent verdicts */
    slot *ring;        /* owned: cap seconds, second s at s % cap */
    uint8_t *covers;   /* owned: nsteps flags, 1 for a step of its scope (found once) */
    judged *recent;    /* owned: the verdict of the window ending at e, at e % cap */
    judged final;      /* the worst of the windows that can no longer change */
    uint64_t newest;   /* the newest second taken */
    int any;           /* a second was taken */
    uint64_t nwindows; /* windows judged */
} win;

struct rollwin {
    win *w; /* owned: n entries */
    size_t n;
    size_t nsteps;
    int ended; /* rollwin_end was called: no window judged is a failure */
};

rollwin *rollwin_new(thresh *const *ths, size_t nth, const char *const *ids,
                     const char *const *names, size_t nsteps)
{
    rollwin *w;
    size_t n = 0;

    for (size_t i = 0; i < nth; i++)
        n += ths[i]->window_s > 0;
    if (n == 0)
        return NULL;
    w = xcalloc(1, sizeof(*w));
    w->w = xcalloc(n, sizeof(*w->w));
    w->nsteps = nsteps;
    for (size_t i = 0; i < nth; i++) {
        win *x;
        if (ths[i]->window_s == 0)
            continue;
        x = &w->w[w->n++];
        x->i = i;
        x->t = ths[i];
        x->d = ths[i]->window_s;
        x->cap = 2 * (size_t)x->d;
        x->ring = xcalloc(x->cap, sizeof(*x->ring));
        x->covers = xcalloc(nsteps + 1, 1);
        for (size_t k = 0; k < nsteps; k++)
            x->covers[k] = (uint8_t)thresh_covers(ths[i], ids[k], names != NULL ? names[k] : NULL);
        x->recent = xcalloc(x->cap, sizeof(*x->recent));
        for (size_t k = 0; k < x->cap; k++)
            stats_init(&x->ring[k].st);
    }
    return w;
}

void rollwin_free(rollwin *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->n; i++) {
        for (size_t k = 0; k < w->w[i].cap; k++)
            stats_free(&w->w[i].ring[k].st);
        xfree(w->w[i].ring);
        xfree(w->w[i].covers);
        xfree(w->w[i].recent);
    }
    xfree(w->w);
    xfree(w);
}

/* 1 when a is a worse verdict than b: failed before passed, then the
 * measured value farther on the wrong side of the limit, then the earlier. */
static int worse(const thresh *t, const judged *a, const judged *b)
{
    if (!b->have)
        return a->have;
    if (!a->have)
        return 0;
    if (a->r.passed != b->r.passed)
        return !a->r.passed;
    if (a->r.measured == b->r.measured)
        return a->from < b->from; /* of equals, the first */
    return t->op == THRESH_LT || t->op == THRESH_LE ? a->r.measured > b->r.measured
                                                    : a->r.measured < b->r.measured;
}

/* Judges the window of x's d seconds that ends at e (those of its seconds
 * the ring holds) into its recent verdict. */
static void judge(const rollwin *w, win *x, uint64_t e)
{
    static const char *const one[] = {"window"};
    judged *j = &x->recent[e % x->cap];
    uint64_t from = e + 1 >= x->d ? e + 1 - x->d : 0;
    uint64_t runs[1] = {0}, missed[1] = {0};
    step_stats m;
    thresh view = *x->t; /* a view: its pointers stay the threshold's */
    agg a;

    stats_init(&m);
    for (uint64_t s = from; s <= e; s++) {
        const slot *sl = &x->ring[s % x->cap];
        if (sl->used && sl->second == s)
            stats_merge(&m, &sl->st);
    }
    if (m.count == 0) {
        j->have = 0;
        stats_free(&m);
        return; /* nothing measured in it */
    }
    if (!(j->have && j->from == from))
        x->nwindows++; /* not a window judged again (a late part) */
    agg_init(&a, 1, 1);
    agg_add(&a, &m, runs, missed, (int64_t)(e - from + 1) * 1000000, 0);
    view.scope = NULL; /* the slot holds the scope's steps, merged */
    thresh_eval(&view, &a, one, NULL, (double)(e - from + 1), &j->r);
    if (x->t->scope != NULL) {
        /* "p95[5s] of all steps = ..." names the scope instead */
        char *at = strstr(j->r.desc, " of all steps");
        if (at != NULL) {
            char rest[THRESH_DESC_MAX];
            snprintf(rest, sizeof(rest), "%s", at + strlen(" of all steps"));
            snprintf(at, sizeof(j->r.desc) - (size_t)(at - j->r.desc), " of %s%s", x->t->scope,
                     rest);
        }
    }
    j->have = 1;
    j->from = from;
    j->to = e + 1;
    agg_free(&a);
    stats_free(&m);
}

/* The windows that end before newest - d can no longer change (a late part
 * is taken only for the last d seconds): folded into x->final. */
static void settle(win *x, uint64_t upto)
{
    for (size_t k = 0; k < x->cap; k++) {
        judged *j = &x->recent[k];
        if (!j->have || j->to + x->d > upto)
            continue;
        if (worse(x->t, j, &x->final))
            x->final = *j;
        j->have = 0;
    }
}

/* Adds sum's steps of x's scope into the slot of second s. */
static void take(const rollwin *w, win *x, uint64_t s, const interval_sum *sum)
{
    slot *sl = &x->ring[s % x->cap];

    if (!sl->used || sl->second != s) {
        stats_reset(&sl->st);
        sl->used = 1;
        sl->second = s;
    }
    for (size_t k = 0; k < w->nsteps && k < sum->nsteps; k++)
        if (x->covers[k])
            stats_merge(&sl->st, &sum->steps[k]);
}

void rollwin_second(rollwin *w, uint64_t second, const interval_sum *sum, int late)
{
    for (size_t i = 0; w != NULL && i < w->n; i++) {
        win *x = &w->w[i];
        if (!late && (!x->any || second > x->newest)) {
            /* a second skipped (none came) holds nothing */
            for (uint64_t s = x->any ? x->newest + 1 : second; s < second; s++)
                x->ring[s % x->cap].used = 0;
            x->any = 1;
            x->newest = second;
            take(w, x, second, sum);
            if (second + 1 >= x->d)
                judge(w, x, second);
            settle(x, second);
            continue;
        }
        /* a part of a second already taken: the windows holding it, again */
        if (!x->any || second + x->d <= x->newest)
            continue; /* past the windows that may still change */
        take(w, x, second, sum);
        for (uint64_t e = second; e <= x->newest && e < second + x->d; e++)
            if (e + 1 >= x->d)
                judge(w, x, e);
    }
}

void rollwin_end(rollwin *w)
{
    if (w != NULL)
        w->ended = 1;
    for (size_t i = 0; w != NULL && i < w->n; i++) {
        win *x = &w->w[i];
        if (x->any && x->nwindows == 0)
            judge(w, x, x->newest); /* shorter than its window: what it had */
    }
}

/* The worst verdict of x: its settled windows' and its recent ones'. */
static const judged *worst_of(const win *x)
{
    const judged *best = &x->final;

    for (size_t k = 0; k < x->cap; k++)
        if (worse(x->t, &x->recent[k], best))
            best = &x->recent[k];
    return best;
}

int rollwin_eval(const rollwin *w, size_t i, const thresh *t, const agg *a, const char *const *ids,
                 const char *const *names, double elapsed_s, thresh_result *out)
{
    for (size_t k = 0; w != NULL && k < w->n; k++) {
        const win *x = &w->w[k];
        const judged *j;
        char tail[96];
        if (x->i != i)
            continue;
        j = worst_of(x);
        if (!j->have) {
            /* during the run: nothing against it yet; at its end: not checked, not a pass */
            memset(out, 0, sizeof(*out));
            out->passed = !w->ended;
            snprintf(out->desc, sizeof(out->desc), "%s: no %u s window with a sample%s", t->expr,
                     x->d, w->ended ? "" : " yet");
            return out->passed;
        }
        *out = j->r;
        snprintf(tail, sizeof(tail), ", in its worst %u s window, %llu-%llu s of the run (%llu %s)",
                 x->d, (unsigned long long)j->from, (unsigned long long)j->to,
                 (unsigned long long)x->nwindows, x->nwindows == 1 ? "window" : "windows");
        if (strlen(out->desc) + strlen(tail) < sizeof(out->desc))
            memcpy(out->desc + strlen(out->desc), tail, strlen(tail) + 1);
        return out->passed;
    }
    return thresh_eval(t, a, ids, names, elapsed_s, out);
}

uint64_t rollwin_judged(const rollwin *w, size_t i)
{
    for (size_t k = 0; w != NULL && k < w->n; k++)
        if (w->w[k].i == i)
            return w->w[k].nwindows;
    return 0;
}

/* preview — what `quern check` prints: what a run would do; see preview.h. */
#include "console/preview.h"

#include <string.h>

#include "common/dur.h"
#include "common/mem.h"
#include "common/rate.h"
#include "common/redact.h"
#include "common/termsafe.h"
#include "console/tplot.h"
#include "agent/preflight.h"

void preview_usage(FILE *out)
{
    fputs("usage: quern check SCRIPT.lua [-p K=V]... [run options]\n"
          "\n"
          "Loads the script as `quern run` would with the same options (its properties,\n"
          "CSV feeders, scenarios, steps, thresholds and load shape) and sends nothing.\n"
          "Prints the scenarios and their steps with their test ids, the load over time,\n"
          "the thresholds, and the properties the script asks for with their values\n"
          "(secrets masked) or why they have none. Its warnings go to stderr, one\n"
          "\"file:line: warning: ...\" each (a step never used, an unknown request\n"
          "option, a CSV column never read); `quern run` prints them too.\n"
          "\n"
          "The options are those of `quern run` (quern help run).\n"
          "\n"
          "exit status: 0 the run could start (with or without warnings); 2 it could\n"
          "not: \"file:line: what\" for the script, or the flag at fault.\n",
          out);
}

/* "2s", "100ms..300ms", or NULL for none. */
static const char *range(int64_t lo, int64_t hi, char *buf, size_t len)
{
    char a[32], b[32];

    if (lo == 0 && hi == 0)
        return NULL;
    dur_format(lo, a, sizeof(a));
    if (lo == hi)
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s..%s", a, dur_format(hi, b, sizeof(b)));
    return buf;
}

static void print_scens(const preflight *pf)
{
    char buf[128], safe[512], label[512];

    for (size_t s = 0; s < pf->nscens; s++) {
        const preflight_scen *sc = &pf->scens[s];
        printf("scenario %s  (%s)\n  weight %g", sc->name, termsafe(sc->where, safe, sizeof(safe)),
               sc->weight);
        if (range(sc->pacing_min_us, sc->pacing_max_us, buf, sizeof(buf)) != NULL)
            printf(", pacing %s", buf);
        if (range(sc->think_min_us, sc->think_max_us, buf, sizeof(buf)) != NULL)
            printf(", think %s", buf);
        if (sc->nstages > 0) {
            char st[256];
            printf(", its own stages %s", stages_format(sc->stages, sc->nstages, st, sizeof(st)));
        }
        if (sc->nrate_stages > 0) {
            char st[256];
            if (sc->rate_const)
                printf(", its own rate %s", rate_format(sc->rate_stages[0].per_s, st, sizeof(st)));
            else
                printf(", its own rate stages %s",
                       rate_stages_format(sc->rate_stages, sc->nrate_stages, st, sizeof(st)));
        }
        putchar('\n');
        for (size_t i = 0; i < pf->nsteps; i++)
            if (pf->steps[i].scen == s)
                printf("  %-32s %-32s %s\n", pf->steps[i].id,
                       termsafe(pf->steps[i].label, label, sizeof(label)),
                       termsafe(pf->steps[i].where, safe, sizeof(safe)));
    }
}

/* VUs of the closed model at t: the run's (--vus with its ramp-up, or
 * --stages), when a scenario plays them, and the scenarios' own stages. */
static double closed_at(const preview_input *in, int64_t t)
{
    const run_opts *o = in->o;
    double n = 0;
    unsigned vus = o->closed_vus > 0 ? o->closed_vus : o->vus;

    if (o->nrate_stages > 0 && o->closed_vus == 0) {
        vus = 0; /* the open model's pool is no load of its own */
    } else if (o->nstages > 0) {
        n = stages_target(o->stages, o->nstages, t);
        vus = 0;
    } else if (in->pf->has_shared == 0) {
        vus = 0;
    }
    if (vus > 0) {
        /* VU k (from 0) starts k * ramp / vus after the start */
        double started = o->ramp_us > 0 ? (double)t * vus / (double)o->ramp_us + 1 : vus;
        n = started < vus ? (double)(unsigned)started : vus;
    }
    for (size_t i = 0; i < in->pf->nscens; i++)
        if (in->pf->scens[i].nstages > 0)
            n += stages_target(in->pf->scens[i].stages, in->pf->scens[i].nstages, t);
    return n;
}

/* The largest of f over the slice [a, b), from a few points of it. */
static double slice_max(const preview_input *in, int open, int64_t a, int64_t b)
{
    double m = 0;

    for (int k = 0; k <= 4; k++) {
        int64_t t = a + (b - a) * k / 4 - (k == 4);
        double v = open ? rate_at(in->o->rate_stages, in->o->nrate_stages, t) : closed_at(in, t);
        if (v > m)
            m = v;
    }
    return m;
}

static void plot(const preview_input *in, int open, int64_t total_us)
{
    double y[TPLOT_COLS];

    for (size_t i = 0; i < TPLOT_COLS; i++)
        y[i] = slice_max(in, open, total_us * (int64_t)i / TPLOT_COLS,
                         total_us * (int64_t)(i + 1) / TPLOT_COLS);
    tplot_draw(stdout, y, TPLOT_COLS, TPLOT_ROWS, total_us, open ? "/s" : "VUs");
}

static void print_load(const preview_input *in)
{
    const run_opts *o = in->o;
    char a[64], b[64];
    int64_t total = o->duration_us;

    for (size_t i = 0; i < in->pf->nscens; i++) {
        int64_t len = stages_total_us(in->pf->scens[i].stages, in->pf->scens[i].nstages);
        if (len > total)
            total = len;
    }
    if (o->nrate_stages > 0) {
        int64_t len = rate_total_us(o->rate_stages, o->nrate_stages);
        printf("load: the open model, arrivals a second (a pool of up to %u VUs)", o->max_vus);
        if (o->closed_vus > 0)
            printf(", with %u VUs playing the other scenarios", o->closed_vus);
        printf(", for %s\n", dur_format(len > total ? len : total, a, sizeof(a)));
        plot(in, 1, len > total ? len : total);
        if (o->closed_vus == 0)
            return;
    } else if (in->pf->has_shared == 0) {
        printf("load: the scenarios' own stages, %s\n", dur_format(total, a, sizeof(a)));
    } else if (o->nstages > 0) {
        printf("load: stages %s, %s\n", stages_format(o->stages, o->nstages, a, sizeof(a)),
               dur_format(total, b, sizeof(b)));
    } else if (total == 0) {
        printf("load: %u VU%s%s%s, %u run%s each\n", o->vus, o->vus == 1 ? "" : "s",
               o->ramp_us > 0 ? ", ramp-up " : "",
               o->ramp_us > 0 ? dur_format(o->ramp_us, a, sizeof(a)) : "", o->runs,
               o->runs == 1 ? "" : "s");
        return; /* no length to draw */
    } else {
        printf("load: %u VU%s%s%s for %s", o->vus, o->vus == 1 ? "" : "s",
               o->ramp_us > 0 ? ", ramp-up " : "",
               o->ramp_us > 0 ? dur_format(o->ramp_us, a, sizeof(a)) : "",
               dur_format(total, b, sizeof(b)));
        if (o->runs > 0)
            printf(", at most %u run%s each", o->runs, o->runs == 1 ? "" : "s");
        putchar('\n');
    }
    plot(in, 0, total);
}

static void print_thresholds(const preview_input *in)
{
    char safe[512], where[512];

    printf("thresholds:\n");
    for (size_t i = 0; i < in->o->nth; i++)
        printf("  %-40s %s\n", termsafe(in->o->th[i]->expr, safe, sizeof(safe)),
               in->th_src[i] == NULL ? "--threshold"
                                     : termsafe(in->th_src[i], where, sizeof(where)));
    if (in->o->nth == 0)
        printf("  none\n");
}

/* The custom metrics the script declares (quern.metric), when it has any. */
static void print_metrics(const preview_input *in)
{
    if (in->decl->nmetrics == 0)
        return;
    printf("metrics:\n");
    for (size_t i = 0; i < in->decl->nmetrics; i++)
        printf("  %-40s %s\n", in->decl->metrics[i].name,
               tally_kind_name(in->decl->metrics[i].kind));
    putchar('\n');
}

/* The value shown for property key: masked when its name says it is a
 * secret, URLs' passwords masked in any other. */
static const char *shown(const char *key, const char *v, char *buf, size_t len)
{
    char red[1024];

    if (redact_key_is_secret(key))
        return REDACT_MASK;
    redact_url(v, red, sizeof(red));
    return termsafe(red, buf, len);
}

static void print_props(const preview_input *in)
{
    const loadinfo *li = &in->pf->info;
    char name[256], val[1024], where[512];
    size_t unread = 0;

    printf("properties:\n");
    for (size_t i = 0; i < li->nprops; i++) {
        const loadinfo_prop *p = &li->props[i];
        const char *v = props_get(in->p, p->name);
        termsafe(p->name, name, sizeof(name));
        termsafe(p->where, where, sizeof(where));
        if (v != NULL)
            printf("  %-20s = %-30s given        %s\n", name, shown(p->name, v, val, sizeof(val)),
                   where);
        else if (p->dflt != NULL)
            printf("  %-20s = %-30s the default  %s\n", name,
                   shown(p->name, p->dflt, val, sizeof(val)), where);
        else
            printf("  %-20s   %-30s missing      %s\n", name, "(optional: no value)", where);
    }
    if (li->nprops == 0)
        printf("  none asked for\n");
    for (size_t i = 0; i < props_count(in->p); i++) {
        const char *k = props_key(in->p, i);
        size_t j = 0;
        while (j < li->nprops && strcmp(li->props[j].name, k) != 0)
            j++;
        if (j < li->nprops)
            continue;
        printf(unread++ == 0 ? "  given, not asked for when the script loads: %s" : ", %s",
               termsafe(k, name, sizeof(name)));
    }
    if (unread > 0)
        putchar('\n');
}

void preview_print(const preview_input *in)
{
    printf("%s: the run can start (nothing was sent)\n\n", in->o->script);
    print_scens(in->pf);
    putchar('\n');
    print_load(in);
    putchar('\n');
    print_thresholds(in);
    putchar('\n');
    print_metrics(in);
    print_props(in);
    printf("\n%u warning%s\n", in->nwarnings, in->nwarnings == 1 ? "" : "s");
    fflush(stdout);
}

void preview_refused(const char *err, int is_script)
{
    if (strncmp(err, "quern run: ", 11) == 0) /* the load against a flag */
        fprintf(stderr, "quern check: %s\n", err + 11);
    else if (is_script)
        fprintf(stderr, "%s\n", err); /* file:line: what, as a run says it */
    else
        fprintf(stderr, "quern check: %s\n", err);
}

#include "worker/wire/scen.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/utf8.h"

void scen_set_init(scen_set *set)
{
    memset(set, 0, sizeof(*set));
}

void scen_set_free(scen_set *set)
{
    for (size_t i = 0; i < set->nsteps; i++) {
        xfree(set->steps[i]->id);
        xfree(set->steps[i]->label);
        xfree(set->steps[i]->name);
        xfree(set->steps[i]->where);
        xfree(set->steps[i]);
    }
    for (size_t i = 0; i < set->nscens; i++) {
        xfree(set->scens[i]->name);
        xfree(set->scens[i]->where);
        xfree(set->scens[i]->stages);
        xfree(set->scens[i]->rate_stages);
        xfree(set->scens[i]);
    }
    for (size_t i = 0; i < set->nthresholds; i++) {
        xfree(set->thresholds[i].expr);
        xfree(set->thresholds[i].where);
    }
    xfree(set->thresholds);
    xfree(set->steps);
    xfree(set->scens);
    memset(set, 0, sizeof(*set));
}

int scen_add_threshold(scen_set *set, const char *expr, const char *where, char *err, size_t errlen)
{
    size_t n = strlen(expr);
    scen_threshold *t;

    if (strspn(expr, " \t") == n) {
        err_set(err, errlen, "%s: threshold: the expression is empty", where);
        return -1;
    }
    if (n > SCEN_THRESHOLD_MAX) {
        err_set(err, errlen, "%s: threshold: longer than %d bytes", where, SCEN_THRESHOLD_MAX);
        return -1;
    }
    if (set->nthresholds >= SCEN_THRESHOLDS_MAX) {
        err_set(err, errlen, "%s: threshold: more than %d thresholds", where, SCEN_THRESHOLDS_MAX);
        return -1;
    }
    set->thresholds =
        xreallocarray(set->thresholds, (set->nthresholds + 1), sizeof(*set->thresholds));
    t = &set->thresholds[set->nthresholds++];
    t->expr = xstrdup(expr);
    t->where = xstrdup(where);
    return 0;
}

static int valid_name(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
            return 0;
    return 1;
}

/* The offset of the first byte of s that does not start a well-formed UTF-8
 * character, or -1 when all do: /metrics, the JSON summary and JUnit carry
 * names as UTF-8, and one bad byte makes a reader refuse the whole page. */
static long bad_utf8_at(const char *s)
{
    size_t n = strlen(s);
    uint32_t c;

    for (size_t i = 0; i < n;) {
        size_t len = utf8_decode((const unsigned char *)s + i, n - i, &c);
        if (len == 0)
            return (long)i;
        i += len;
    }
    return -1;
}

scen *scen_add(scen_set *set, const char *name, const char *where, char *err, size_t errlen)
{
    scen *sc;
    long bad = bad_utf8_at(name);

    if (bad >= 0) {
        err_set(err, errlen, "%s: scenario name is not valid UTF-8 (byte %ld)", where, bad + 1);
        return NULL;
    }
    if (!valid_name(name)) {
        err_set(err, errlen, "%s: bad scenario name \"%s\" (use letters, digits, '-' and '_')",
                where, name);
        return NULL;
    }
    for (size_t i = 0; i < set->nscens; i++) {
        if (strcmp(set->scens[i]->name, name) == 0) {
            err_set(err, errlen, "%s: scenario \"%s\" is already declared at %s", where, name,
                    set->scens[i]->where);
            return NULL;
        }
    }
    sc = xcalloc(1, sizeof(*sc));
    sc->index = (int)set->nscens;
    sc->name = xstrdup(name);
    sc->where = xstrdup(where);
    sc->weight = 1;
    sc->table_ref = -1;
    set->scens = xreallocarray(set->scens, (set->nscens + 1), sizeof(*set->scens));
    set->scens[set->nscens++] = sc;
    return sc;
}

step *scen_add_step(scen_set *set, scen *sc, int num, const char *label, const char *where,
                    char *err, size_t errlen)
{
    char id[256];
    step *st;
    long bad = bad_utf8_at(label);

    if (num < 0) {
        err_set(err, errlen, "%s: step number must be 0 or more, got %d", where, num);
        return NULL;
    }
    if (bad >= 0) {
        err_set(err, errlen, "%s: step %d: label is not valid UTF-8 (byte %ld)", where, num,
                bad + 1);
        return NULL;
    }
    snprintf(id, sizeof(id), "SC-%s-STEP-%d", sc->name, num);
    for (size_t i = 0; i < set->nsteps; i++) {
        if (strcmp(set->steps[i]->id, id) == 0) {
            err_set(err, errlen, "%s: duplicate step id %s (already declared at %s)", where, id,
                    set->steps[i]->where);
            return NULL;
        }
    }
    st = xcalloc(1, sizeof(*st));
    st->index = (int)set->nsteps;
    st->num = num;
    st->id = xstrdup(id);
    st->label = xstrdup(label);
    st->where = xstrdup(where);
    st->scen = sc;
    st->name = xasprintf("%s)%s", id, label);
    if (sc->first_step == NULL || num < sc->first_step->num)
        sc->first_step = st;
    set->steps = xreallocarray(set->steps, (set->nsteps + 1), sizeof(*set->steps));
    set->steps[set->nsteps++] = st;
    return st;
}

int scen_has_shared(const scen_set *set)
{
    for (size_t i = 0; i < set->nscens; i++)
        if (set->scens[i]->nstages == 0 && set->scens[i]->weight > 0)
            return 1;
    return 0;
}

uint64_t scen_layout(scen_set *set, uint32_t shared)
{
    uint64_t next = shared;

    for (size_t i = 0; i < set->nscens; i++) {
        scen *sc = set->scens[i];
        if (sc->nstages == 0)
            continue;
        sc->id_base = next > UINT32_MAX ? UINT32_MAX : (uint32_t)next;
        next += stages_ids(sc->stages, sc->nstages);
    }
    return next - shared;
}

const scen *scen_of_id(const scen_set *set, uint32_t gid)
{
    for (size_t i = 0; i < set->nscens; i++) {
        const scen *sc = set->scens[i];
        if (sc->nstages > 0 && gid > sc->id_base &&
            gid - sc->id_base <= stages_ids(sc->stages, sc->nstages))
            return sc;
    }
    return NULL;
}

/* A scenario's share of the run's VUs: none with stages of its own. */
static double share_weight(const scen *sc)
{
    return sc->nstages > 0 ? 0 : sc->weight;
}

int scen_split(const scen_set *set, uint32_t vus_total, uint32_t *counts)
{
    double total = 0;
    uint32_t given = 0;
    double *rem;

    for (size_t i = 0; i < set->nscens; i++)
        total += share_weight(set->scens[i]);
    if (total <= 0)
        return -1;
    rem = xcalloc(set->nscens, sizeof(*rem));
    for (size_t i = 0; i < set->nscens; i++) {
        double exact = (double)vus_total * share_weight(set->scens[i]) / total;
        counts[i] = (uint32_t)exact;
        rem[i] = exact - counts[i];
        given += counts[i];
    }
    /* Largest remainder; ties go to the earlier-declared scenario. */
    while (given < vus_total) {
        size_t best = 0;
        for (size_t i = 1; i < set->nscens; i++)
            if (rem[i] > rem[best])
                best = i;
        counts[best]++;
        rem[best] = -1;
        given++;
    }
    xfree(rem);
    return 0;
}

int scen_assign(const scen_set *set, uint32_t vus_total, uint16_t *assign)
{
    uint32_t *counts = xcalloc(set->nscens, sizeof(*counts));
    int64_t *cur = xcalloc(set->nscens, sizeof(*cur));
    int rc = -1;

    if (scen_split(set, vus_total, counts) != 0)
        goto out;
    /* Smooth weighted round-robin over the exact counts: every scenario gets
     * exactly its count, spread evenly over the indices. */
    for (uint32_t v = 0; v < vus_total; v++) {
        size_t best = 0;
        int found = 0;
        for (size_t i = 0; i < set->nscens; i++) {
            if (counts[i] == 0)
                continue;
            cur[i] += counts[i];
            if (!found || cur[i] > cur[best]) {
                best = i;
                found = 1;
            }
        }
        cur[best] -= vus_total;
        assign[v] = (uint16_t)best;
    }
    rc = 0;
out:
    xfree(counts);
    xfree(cur);
    return rc;
}

/* folded — call stacks folded with a value each, bounded; see folded.h. */
#include "common/folded.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

static uint32_t fnv(const char *s, size_t n)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

void folded_init(folded *f, size_t max)
{
    memset(f, 0, sizeof(*f));
    f->max = max > 0 ? max : 1;
}

static size_t slots_for(size_t max)
{
    size_t n = 16;

    while (n < 2 * (max + 1))
        n *= 2;
    return n;
}

/* The slot of frames: where it is, or the empty slot it would take. */
static size_t find_slot(const folded *f, const char *frames, size_t len, uint32_t h)
{
    size_t mask = f->nslot - 1, i = h & mask;

    for (;;) {
        uint32_t k = f->slot[i];
        if (k == 0)
            return i;
        const folded_entry *e = &f->e[k - 1];
        if (e->hash == h && strncmp(e->frames, frames, len) == 0 && e->frames[len] == '\0')
            return i;
        i = (i + 1) & mask;
    }
}

static void rehash(folded *f)
{
    memset(f->slot, 0, f->nslot * sizeof(*f->slot));
    for (size_t k = 0; k < f->n; k++) {
        folded_entry *e = &f->e[k];
        size_t i = find_slot(f, e->frames, strlen(e->frames), e->hash);
        f->slot[i] = (uint32_t)(k + 1);
    }
}

size_t folded_add(folded *f, const char *frames, size_t len, uint64_t value)
{
    if (len == 0) {
        frames = FOLDED_OTHER;
        len = sizeof(FOLDED_OTHER) - 1;
    }
    if (len > FOLDED_STACK_MAX) { /* the leaf end is what names the cost */
        const char *cut = frames + (len - FOLDED_STACK_MAX);
        const char *semi = memchr(cut, ';', FOLDED_STACK_MAX);
        if (semi != NULL && semi + 1 < frames + len)
            cut = semi + 1;
        len -= (size_t)(cut - frames);
        frames = cut;
    }
    f->total += value;
    if (f->slot == NULL) {
        f->nslot = slots_for(f->max);
        f->slot = xcalloc(f->nslot, sizeof(*f->slot));
    }
    uint32_t h = fnv(frames, len);
    size_t i = find_slot(f, frames, len, h);
    if (f->slot[i] != 0) {
        f->e[f->slot[i] - 1].value += value;
        return f->slot[i] - 1;
    }
    int other = len == sizeof(FOLDED_OTHER) - 1 && memcmp(frames, FOLDED_OTHER, len) == 0;
    if (!other && f->n >= f->max) { /* full: the value goes to "[other]" */
        size_t k = folded_add(f, FOLDED_OTHER, sizeof(FOLDED_OTHER) - 1, value);
        f->total -= value;
        return k;
    }
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->e = xreallocarray(f->e, f->cap, sizeof(*f->e));
    }
    folded_entry *e = &f->e[f->n];
    e->frames = xstrndup(frames, len);
    e->value = value;
    e->hash = h;
    f->slot[i] = (uint32_t)(++f->n);
    return f->n - 1;
}

void folded_merge(folded *f, const folded *src)
{
    for (size_t i = 0; i < src->n; i++)
        folded_add(f, src->e[i].frames, strlen(src->e[i].frames), src->e[i].value);
}

static int by_value(const void *a, const void *b)
{
    const folded_entry *x = a, *y = b;

    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return strcmp(x->frames, y->frames);
}

void folded_trim(folded *f, size_t keep)
{
    uint64_t rest = 0;
    size_t w = 0;
    char *other = NULL; /* owned: "[other]"'s entry, when there is one */

    for (size_t i = 0; i < f->n; i++) {
        if (strcmp(f->e[i].frames, FOLDED_OTHER) == 0) {
            rest += f->e[i].value;
            other = f->e[i].frames;
            continue;
        }
        f->e[w++] = f->e[i];
    }
    f->n = w;
    if (f->n > 0)
        qsort(f->e, f->n, sizeof(*f->e), by_value);
    while (f->n > keep) {
        f->n--;
        rest += f->e[f->n].value;
        xfree(f->e[f->n].frames);
    }
    if (rest > 0 || other != NULL) {
        /* "[other]" last, whatever its weight: it is not a stack */
        if (f->n == f->cap) {
            f->cap = f->cap ? 2 * f->cap : 16;
            f->e = xreallocarray(f->e, f->cap, sizeof(*f->e));
        }
        f->e[f->n].frames = other != NULL ? other : xstrdup(FOLDED_OTHER);
        f->e[f->n].value = rest;
        f->e[f->n].hash = fnv(FOLDED_OTHER, sizeof(FOLDED_OTHER) - 1);
        f->n++;
    }
    if (f->slot != NULL)
        rehash(f);
}

/* The functions' table of folded_funcs: open addressing over names. */
typedef struct ftab {
    folded_func *v; /* owned */
    size_t n, cap;
    uint32_t *slot; /* owned: indexes into v, plus one */
    size_t nslot;
} ftab;

static folded_func *ftab_get(ftab *t, const char *name, size_t len)
{
    if (2 * (t->n + 1) > t->nslot) {
        size_t ns = t->nslot ? 2 * t->nslot : 64;
        xfree(t->slot);
        t->slot = xcalloc(ns, sizeof(*t->slot));
        t->nslot = ns;
        for (size_t k = 0; k < t->n; k++) {
            size_t i = fnv(t->v[k].name, t->v[k].len) & (ns - 1);
            while (t->slot[i] != 0)
                i = (i + 1) & (ns - 1);
            t->slot[i] = (uint32_t)(k + 1);
        }
    }
    size_t i = fnv(name, len) & (t->nslot - 1);
    while (t->slot[i] != 0) {
        folded_func *fn = &t->v[t->slot[i] - 1];
        if (fn->len == len && memcmp(fn->name, name, len) == 0)
            return fn;
        i = (i + 1) & (t->nslot - 1);
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
    }
    folded_func *fn = &t->v[t->n];
    memset(fn, 0, sizeof(*fn));
    fn->name = name;
    fn->len = len;
    t->slot[i] = (uint32_t)(++t->n);
    return fn;
}

static int by_total(const void *a, const void *b)
{
    const folded_func *x = a, *y = b;

    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* Whether the frame at [s, s+len) already came earlier in the stack that
 * starts at start: a recursive function is counted once a stack. */
static int seen_before(const char *start, const char *s, size_t len)
{
    const char *p = start;

    while (p < s) {
        const char *semi = memchr(p, ';', (size_t)(s - p));
        size_t n = semi != NULL ? (size_t)(semi - p) : (size_t)(s - p);
        if (n == len && memcmp(p, s, len) == 0)
            return 1;
        if (semi == NULL)
            break;
        p = semi + 1;
    }
    return 0;
}

size_t folded_funcs(const folded *f, folded_func **out)
{
    ftab t;

    memset(&t, 0, sizeof(t));
    for (size_t k = 0; k < f->n; k++) {
        const char *s = f->e[k].frames;
        if (strcmp(s, FOLDED_OTHER) == 0)
            continue;
        for (const char *p = s;;) {
            const char *semi = strchr(p, ';');
            size_t len = semi != NULL ? (size_t)(semi - p) : strlen(p);
            if (len > 0 && !seen_before(s, p, len))
                ftab_get(&t, p, len)->total += f->e[k].value;
            if (semi == NULL) {
                if (len > 0)
                    ftab_get(&t, p, len)->self += f->e[k].value;
                break;
            }
            p = semi + 1;
        }
    }
    xfree(t.slot);
    if (t.n > 0)
        qsort(t.v, t.n, sizeof(*t.v), by_total);
    *out = t.v;
    return t.n;
}

uint64_t folded_sum_if(const folded *f, int (*match)(const char *name, size_t len, void *arg),
                       void *arg)
{
    uint64_t sum = 0;

    for (size_t k = 0; k < f->n; k++) {
        for (const char *p = f->e[k].frames;;) {
            const char *semi = strchr(p, ';');
            size_t len = semi != NULL ? (size_t)(semi - p) : strlen(p);
            if (match(p, len, arg)) {
                sum += f->e[k].value;
                break;
            }
            if (semi == NULL)
                break;
            p = semi + 1;
        }
    }
    return sum;
}

void folded_reset(folded *f)
{
    for (size_t i = 0; i < f->n; i++)
        xfree(f->e[i].frames);
    f->n = 0;
    f->total = 0;
    if (f->slot != NULL)
        memset(f->slot, 0, f->nslot * sizeof(*f->slot));
}

void folded_free(folded *f)
{
    folded_reset(f);
    xfree(f->e);
    xfree(f->slot);
    size_t max = f->max;
    memset(f, 0, sizeof(*f));
    f->max = max;
}

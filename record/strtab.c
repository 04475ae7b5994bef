/* strtab — open addressing with linear probing; see strtab.h. */
#include "record/strtab.h"

#include <stdint.h>
#include <string.h>

#include "common/mem.h"

/* FNV-1a: short keys, no adversary that profits from collisions beyond a
 * slower conversion of its own file. */
static uint64_t strtab_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* The slot of key, or the free slot where it would go. */
static strtab_slot *strtab_find(const strtab *t, const char *key)
{
    size_t i = (size_t)strtab_hash(key) & (t->cap - 1);

    while (t->slot[i].key != NULL && strcmp(t->slot[i].key, key) != 0)
        i = (i + 1) & (t->cap - 1);
    return &t->slot[i];
}

static void strtab_grow(strtab *t)
{
    strtab old = *t;

    t->cap = old.cap ? 2 * old.cap : 64;
    t->slot = xcalloc(t->cap, sizeof(*t->slot));
    for (size_t i = 0; i < old.cap; i++)
        if (old.slot[i].key != NULL)
            *strtab_find(t, old.slot[i].key) = old.slot[i];
    xfree(old.slot);
}

size_t *strtab_put(strtab *t, const char *key, int *added)
{
    strtab_slot *s;

    if (4 * (t->n + 1) > 3 * t->cap)
        strtab_grow(t);
    s = strtab_find(t, key);
    if (added != NULL)
        *added = s->key == NULL;
    if (s->key == NULL) {
        s->key = xstrdup(key);
        s->value = 0;
        t->n++;
    }
    return &s->value;
}

const size_t *strtab_get(const strtab *t, const char *key)
{
    const strtab_slot *s;

    if (t->cap == 0)
        return NULL;
    s = strtab_find(t, key);
    return s->key != NULL ? &s->value : NULL;
}

void strtab_free(strtab *t)
{
    for (size_t i = 0; i < t->cap; i++)
        xfree(t->slot[i].key);
    xfree(t->slot);
    memset(t, 0, sizeof(*t));
}

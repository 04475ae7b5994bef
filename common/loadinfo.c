/* loadinfo — what a script's load read and opened; see loadinfo.h. */
#include "common/loadinfo.h"

#include <string.h>

#include "common/mem.h"

void loadinfo_add_prop(loadinfo *li, const char *name, const char *where, const char *dflt,
                       int optional)
{
    loadinfo_prop *p;

    for (size_t i = 0; i < li->nprops; i++) {
        p = &li->props[i];
        if (strcmp(p->name, name) != 0)
            continue;
        if (p->dflt == NULL && dflt != NULL)
            p->dflt = xstrdup(dflt);
        p->optional |= optional;
        return;
    }
    if (li->nprops >= LOADINFO_MAX)
        return;
    li->props = xreallocarray(li->props, (li->nprops + 1), sizeof(*li->props));
    p = &li->props[li->nprops++];
    p->name = xstrdup(name);
    p->where = xstrdup(where);
    p->dflt = dflt != NULL ? xstrdup(dflt) : NULL;
    p->optional = optional;
}

void loadinfo_add_csv(loadinfo *li, const char *file, const char *where, const char *const *cols,
                      size_t ncols)
{
    loadinfo_csv *c;

    if (li->ncsvs >= LOADINFO_MAX)
        return;
    li->csvs = xreallocarray(li->csvs, (li->ncsvs + 1), sizeof(*li->csvs));
    c = &li->csvs[li->ncsvs++];
    c->file = xstrdup(file);
    c->where = xstrdup(where);
    c->cols = xcalloc(ncols + 1, sizeof(*c->cols));
    c->ncols = ncols;
    for (size_t i = 0; i < ncols; i++)
        c->cols[i] = xstrdup(cols[i]);
}

void loadinfo_free(loadinfo *li)
{
    if (li == NULL)
        return;
    for (size_t i = 0; i < li->nprops; i++) {
        xfree(li->props[i].name);
        xfree(li->props[i].where);
        xfree(li->props[i].dflt);
    }
    for (size_t i = 0; i < li->ncsvs; i++) {
        for (size_t j = 0; j < li->csvs[i].ncols; j++)
            xfree(li->csvs[i].cols[j]);
        xfree(li->csvs[i].cols);
        xfree(li->csvs[i].file);
        xfree(li->csvs[i].where);
    }
    xfree(li->props);
    xfree(li->csvs);
    memset(li, 0, sizeof(*li));
}

#include "worker/lua/lalloc.h"

#include "common/salloc.h"

/* Whether a growth to nsize is refused. Lua answers a refusal with a full
 * collection and asks again with the same arguments: that second asking
 * passes only if the collection left an eighth of the limit free, so that a
 * script whose live data nears the limit gets its error at once instead of
 * a full collection at every allocation. */
static int refuse(lalloc *la, void *p, size_t osize, size_t old, size_t nsize)
{
    size_t after = la->used - old + nsize;
    int retry = la->refused_p == p && la->refused_osize == osize && la->refused_nsize == nsize;

    la->refused_nsize = 0;
    if (after <= la->limit && (!retry || after <= la->limit - la->limit / 8))
        return 0;
    la->refused++;
    la->refused_p = p;
    la->refused_osize = osize;
    la->refused_nsize = retry ? 0 : nsize; /* after the second asking, start over */
    return 1;
}

void *lalloc_fn(void *ud, void *p, size_t osize, size_t nsize)
{
    lalloc *la = ud;
    size_t old = p != NULL ? osize : 0; /* with p NULL, osize is a type tag */
    void *q;

    if (nsize == 0) {
        salloc_free(p);
        la->used -= old;
        return NULL;
    }
    /* Lua counts on a shrink never failing: only growth is refused. */
    if (la->enforce && la->limit > 0 && nsize > old && refuse(la, p, osize, old, nsize))
        return NULL;
    q = salloc_realloc(p, nsize);
    if (q == NULL)
        return NULL;
    la->used = la->used - old + nsize;
    if (la->used > la->peak)
        la->peak = la->used;
    return q;
}

int lalloc_enforce(lalloc *la, int on)
{
    int was = la->enforce;

    la->enforce = on;
    return was;
}

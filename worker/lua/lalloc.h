/* lalloc — the allocator of the worker's Lua state: it counts what the state
 * holds and refuses to grow it past a limit (--worker-memory).
 *
 * What it is for: a script that keeps building tables or coroutines would
 * otherwise grow its worker until the kernel's OOM killer picks a process of
 * the host. Past the limit an allocation fails, Lua collects all garbage and
 * tries once more (which passes only with an eighth of the limit free, so
 * that live data near the limit fails at once rather than collecting at
 * every allocation), then raises "not enough memory" at the allocating call: a
 * script error of that VU, which unwinds, and its garbage goes with it.
 *
 * The limit holds only while a script runs (its load, a VU's resume): the
 * engine's own calls on the state between resumes (a VU's new thread, an
 * error's message and traceback) happen outside any protected call, where a
 * failed allocation would abort the worker, so they are counted but never
 * refused. libcurl's and quern's C allocations are not Lua's: not counted.
 *
 * Use: lalloc la = {.limit = bytes}; L = lua_newstate(lalloc_fn, &la);
 * lalloc_enforce(&la, 1) before running script code, lalloc_enforce(&la, 0)
 * after. Internal to worker/. */
#ifndef QUERN_LALLOC_H
#define QUERN_LALLOC_H

#include <stddef.h>

/** The state of one Lua state's allocator. */
typedef struct lalloc {
    size_t limit;          /**< bytes the state may hold while enforced, 0: no limit */
    size_t used;           /**< bytes it holds now */
    size_t peak;           /**< the most it held */
    int enforce;           /**< the limit applies now */
    unsigned long refused; /**< allocations refused, for tests and logs */
    void *refused_p;       /**< borrowed: the block of the last refusal (Lua asks again) */
    size_t refused_osize;  /**< its osize */
    size_t refused_nsize;  /**< its nsize, 0: no refusal to recognise */
} lalloc;

/** A lua_Alloc (ud: the lalloc) over common/salloc.h. */
void *lalloc_fn(void *ud, void *p, size_t osize, size_t nsize);

/** Turns the limit on (1) or off (0); returns the previous setting. */
int lalloc_enforce(lalloc *la, int on);

#endif

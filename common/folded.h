/* folded — call stacks folded to "root;caller;leaf" with a value each, bounded.
 *
 * What it is for: a profile is a set of stacks and how much of something each
 * got (on-CPU samples, microseconds blocked). The agent's profiler sums a
 * second's stacks into one (agent/profiler.h), the console sums a capacity
 * step's seconds, the report and the diagnosis (common/profdiag.h) read the
 * functions' shares from them. A table holds at most max distinct stacks:
 * what comes past that is summed into the one stack "[other]", so its total
 * is always exact and only the detail of the rarest stacks is lost
 * (folded_trim keeps the heaviest). Adding costs one hash lookup.
 *
 * Usage:
 *     folded f;
 *     folded_init(&f, 4096);
 *     folded_add(&f, "main;serve;seq_next", 19, 3);
 *     folded_trim(&f, 256);                     // the 256 heaviest, the rest "[other]"
 *     for (size_t i = 0; i < f.n; i++) ... f.e[i].frames, f.e[i].value ...
 *     folded_func *fn; size_t nf = folded_funcs(&f, &fn);   // self and total per name
 *     xfree(fn);
 *     folded_free(&f); */
#ifndef QUERN_FOLDED_H
#define QUERN_FOLDED_H

#include <stddef.h>
#include <stdint.h>

/** The stack that stands for every one a table had no room for. */
#define FOLDED_OTHER "[other]"
/** Longest folded stack kept, in bytes; a longer one loses its root end. */
#define FOLDED_STACK_MAX 4096

/** One stack and its value. */
typedef struct folded_entry {
    char *frames;   /**< owned: NUL-terminated, frames separated by ';', root first */
    uint64_t value; /**< summed */
    uint32_t hash;  /**< of frames */
} folded_entry;

/** A bounded table of stacks. */
typedef struct folded {
    folded_entry *e; /**< owned: n entries, in the order they came (folded_trim sorts) */
    size_t n, cap;
    uint32_t *slot; /**< owned: nslot indexes into e, plus one; 0 empty */
    size_t nslot;   /**< a power of two, at least 2 * max */
    size_t max;     /**< most distinct stacks besides "[other]" */
    uint64_t total; /**< every value added, "[other]" included */
} folded;

/** A function's share of a table, by name. */
typedef struct folded_func {
    const char *name; /**< borrowed from the table's frames: not NUL-terminated at len */
    size_t len;
    uint64_t self;  /**< value of the stacks it ends */
    uint64_t total; /**< value of the stacks it is in, counted once a stack */
} folded_func;

/** An empty table for at most max (>= 1) distinct stacks; allocates nothing. */
void folded_init(folded *f, size_t max);
/** Adds value to the stack of len bytes at frames (empty: "[other]"):
 *  its own entry, or "[other]" once the table is full. Returns the index in
 *  e of the entry it went to. */
size_t folded_add(folded *f, const char *frames, size_t len, uint64_t value);
/** Adds every stack of src to f. */
void folded_merge(folded *f, const folded *src);
/** Sorts by value, heaviest first (ties by frames), and sums all but the
 *  keep heaviest into "[other]". */
void folded_trim(folded *f, size_t keep);
/** Every function name in f with its self and total value, heaviest total
 *  first, into *out (owned by the caller, xfree; it borrows f's frames, so f
 *  must outlive it): their number. "[other]" is left out. */
size_t folded_funcs(const folded *f, folded_func **out);
/** The value of the stacks that hold a frame for which match(name, len, arg)
 *  is true, counted once a stack. */
uint64_t folded_sum_if(const folded *f, int (*match)(const char *name, size_t len, void *arg),
                       void *arg);
/** Empties f, keeping its maximum. */
void folded_reset(folded *f);
/** Frees what f holds; f may be zeroed. */
void folded_free(folded *f);

#endif

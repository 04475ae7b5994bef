/* strtab — a hash table from strings to numbers (an index into the
 * caller's own array), so that a lookup costs the same among ten names or
 * a million.
 *
 * What it is for: `quern har2lua` on a large recording asks, for every
 * value a request sends, which earlier response held it, and for every
 * local it names, whether the name is taken; a scan of every earlier
 * answer made that quadratic. The table copies its keys (owned) and keeps
 * one size_t per key; it only grows (no removal), doubling at 3/4 full.
 *
 * Usage:
 *     strtab t = {0};
 *     size_t *slot = strtab_put(&t, "csrf", &added);  // added: 1 when new (*slot is 0)
 *     *slot = 42;
 *     const size_t *v = strtab_get(&t, "csrf");        // NULL when absent
 *     strtab_free(&t);
 */
#ifndef QUERN_STRTAB_H
#define QUERN_STRTAB_H

#include <stddef.h>

/** One slot: a key (owned, NULL when the slot is free) and its number. */
typedef struct strtab_slot {
    char *key;    /**< owned */
    size_t value; /**< the caller's number */
} strtab_slot;

/** The table; zero-initialised it is empty. */
typedef struct strtab {
    strtab_slot *slot; /**< owned, cap slots */
    size_t cap;        /**< a power of two, or 0 */
    size_t n;          /**< keys held */
} strtab;

/** The number slot of key, added (with value 0, key copied) when absent;
 *  *added (when not NULL) says which. The pointer is valid until the next
 *  strtab_put. */
size_t *strtab_put(strtab *t, const char *key, int *added);

/** The number of key, or NULL when absent. */
const size_t *strtab_get(const strtab *t, const char *key);

/** Frees the keys and slots; t is empty after. */
void strtab_free(strtab *t);

#endif

/* capacity_compare — two runs' capacities compared, for `quern compare`.
 *
 * What it is for: a capacity search (quern run --capacity, store/capacity_db.h)
 * names the highest load a run sustained; a later run whose capacity fell
 * is a regression as much as a slower step. The rule: A (the new run) is
 * worse when B (the baseline) found a capacity and A found none, or a lower
 * one by more than thr percent of B's; better when it rose by more than
 * that (or only A found one); otherwise the same. A capacity its injector
 * limited (capacity_db_run.limited_by "injector": the deciding step's arrivals
 * were late or dropped, so the figure is a lower bound) that is lower is
 * not a regression: the load asked was not sent, so nothing is known of
 * the server past it; the verdict is CAPACITY_COMPARE_NA, with a line saying why. A
 * lower capacity of A decided by the server against a baseline limited by
 * its injector is a fall still (the baseline's true one is higher yet).
 * Runs with capacities in
 * different units (rates and VUs), or where neither searched, are not
 * compared.
 *
 * Usage:
 *     char line[256];
 *     enum capacity_compare_verdict v = capacity_compare_judge(&a, &b, 10.0, line, sizeof(line));
 *     if (v != CAPACITY_COMPARE_NA) puts(line);                 // "capacity fell from 300/s to
 * 200/s"
 */
#ifndef QUERN_CAPACITY_COMPARE_H
#define QUERN_CAPACITY_COMPARE_H

#include <stddef.h>

#include "store/capacity_db.h"

/** The verdict on A's capacity against B's. */
enum capacity_compare_verdict {
    CAPACITY_COMPARE_NA,     /**< not comparable: a run without a search, or different units */
    CAPACITY_COMPARE_SAME,   /**< within thr percent */
    CAPACITY_COMPARE_BETTER, /**< rose */
    CAPACITY_COMPARE_WORSE,  /**< fell: a regression */
};

/** Compares a (NULL: no search) with b (NULL: none), thr in percent, and
 *  writes one line for people into buf ("capacity fell from 300/s to
 *  200/s (-33.3 %)"; "" when CAPACITY_COMPARE_NA and neither searched). */
enum capacity_compare_verdict capacity_compare_judge(const capacity_db_run *a,
                                                     const capacity_db_run *b, double thr,
                                                     char *buf, size_t len);

/** Writes a capacity as shown: "300/s", "40 VUs", or "none"; "at least
 *  300/s" when its injector limited it. Returns buf. */
char *capacity_compare_format(const capacity_db_run *c, char *buf, size_t len);

#endif

/* capacity_compare — two runs' capacities compared; see capacity_compare.h. */
#include "reports/capacity_compare.h"

#include <stdio.h>
#include <string.h>

static int by_injector(const capacity_db_run *c)
{
    return c != NULL && strcmp(c->limited_by, "injector") == 0;
}

char *capacity_compare_format(const capacity_db_run *c, char *buf, size_t len)
{
    const char *least = by_injector(c) ? "at least " : "";

    if (c != NULL && !c->found && by_injector(c))
        snprintf(buf, len, "none (its injector limited the first step)");
    else if (c == NULL || !c->found)
        snprintf(buf, len, "none");
    else if (strcmp(c->unit, "/s") == 0)
        snprintf(buf, len, "%s%g/s", least, c->value);
    else
        snprintf(buf, len, "%s%g VUs", least, c->value);
    return buf;
}

/* A's capacity, lower than B's (by more than the threshold), when A's
 * injector limited it: not a regression, said so into buf. */
static enum capacity_compare_verdict not_a_fall(const char *fa, const char *fb, char *buf,
                                                size_t len)
{
    snprintf(buf, len,
             "capacity %s, baseline %s: not compared, A's injector was its limit (arrivals late "
             "or dropped: the load asked was not sent)",
             fa, fb);
    return CAPACITY_COMPARE_NA;
}

enum capacity_compare_verdict capacity_compare_judge(const capacity_db_run *a,
                                                     const capacity_db_run *b, double thr,
                                                     char *buf, size_t len)
{
    char fa[80], fb[80];
    double d;

    buf[0] = '\0';
    if (a == NULL && b == NULL)
        return CAPACITY_COMPARE_NA;
    capacity_compare_format(a, fa, sizeof(fa));
    capacity_compare_format(b, fb, sizeof(fb));
    if (a == NULL || b == NULL) {
        snprintf(buf, len, "capacity: only %s searched for one (%s), not compared",
                 a != NULL ? "A" : "B", a != NULL ? fa : fb);
        return CAPACITY_COMPARE_NA;
    }
    if (strcmp(a->unit, b->unit) != 0) {
        snprintf(buf, len, "capacity: A's is %s, B's %s: not compared", fa, fb);
        return CAPACITY_COMPARE_NA;
    }
    if (!a->found || !b->found) {
        if (a->found == b->found) {
            snprintf(buf, len, "capacity: neither run found one");
            return CAPACITY_COMPARE_SAME;
        }
        if (!a->found && by_injector(a))
            return not_a_fall(fa, fb, buf, len);
        snprintf(buf, len, "capacity %s from %s to %s", a->found ? "rose" : "fell", fb, fa);
        return a->found ? CAPACITY_COMPARE_BETTER : CAPACITY_COMPARE_WORSE;
    }
    d = b->value > 0 ? 100.0 * (a->value - b->value) / b->value : 0;
    if (d < -thr && by_injector(a))
        return not_a_fall(fa, fb, buf, len);
    if (d < -thr) {
        snprintf(buf, len, "capacity fell from %s to %s (%+.1f %%)", fb, fa, d);
        return CAPACITY_COMPARE_WORSE;
    }
    if (d > thr) {
        snprintf(buf, len, "capacity rose from %s to %s (%+.1f %%)", fb, fa, d);
        return CAPACITY_COMPARE_BETTER;
    }
    snprintf(buf, len, "capacity %s, baseline %s: no significant change", fa, fb);
    return CAPACITY_COMPARE_SAME;
}

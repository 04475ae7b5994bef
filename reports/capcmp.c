/* capcmp — two runs' capacities compared; see capcmp.h. */
#include "reports/capcmp.h"

#include <stdio.h>
#include <string.h>

char *capcmp_format(const capdb_run *c, char *buf, size_t len)
{
    if (c == NULL || !c->found)
        snprintf(buf, len, "none");
    else if (strcmp(c->unit, "/s") == 0)
        snprintf(buf, len, "%g/s", c->value);
    else
        snprintf(buf, len, "%g VUs", c->value);
    return buf;
}

enum capcmp_verdict capcmp_judge(const capdb_run *a, const capdb_run *b, double thr, char *buf,
                                 size_t len)
{
    char fa[48], fb[48];
    double d;

    buf[0] = '\0';
    if (a == NULL && b == NULL)
        return CAPCMP_NA;
    capcmp_format(a, fa, sizeof(fa));
    capcmp_format(b, fb, sizeof(fb));
    if (a == NULL || b == NULL) {
        snprintf(buf, len, "capacity: only %s searched for one (%s), not compared",
                 a != NULL ? "A" : "B", a != NULL ? fa : fb);
        return CAPCMP_NA;
    }
    if (strcmp(a->unit, b->unit) != 0) {
        snprintf(buf, len, "capacity: A's is %s, B's %s: not compared", fa, fb);
        return CAPCMP_NA;
    }
    if (!a->found || !b->found) {
        if (a->found == b->found) {
            snprintf(buf, len, "capacity: neither run found one");
            return CAPCMP_SAME;
        }
        snprintf(buf, len, "capacity %s from %s to %s", a->found ? "rose" : "fell", fb, fa);
        return a->found ? CAPCMP_BETTER : CAPCMP_WORSE;
    }
    d = b->value > 0 ? 100.0 * (a->value - b->value) / b->value : 0;
    if (d < -thr) {
        snprintf(buf, len, "capacity fell from %s to %s (%+.1f %%)", fb, fa, d);
        return CAPCMP_WORSE;
    }
    if (d > thr) {
        snprintf(buf, len, "capacity rose from %s to %s (%+.1f %%)", fb, fa, d);
        return CAPCMP_BETTER;
    }
    snprintf(buf, len, "capacity %s, baseline %s: no significant change", fa, fb);
    return CAPCMP_SAME;
}

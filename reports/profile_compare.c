/* profile_compare — two runs' server profiles compared; see profile_compare.h. */
#include "reports/profile_compare.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/folded.h"
#include "common/mem.h"
#include "common/profdiag.h"
#include "store/profile_db.h"

#define WHOLE_RUN_S 100000000 /* a window past any run's end */

/* A function's own share of the on-CPU samples of w, 0 when absent. */
static double self_share(const profile_window *w, const char *name, size_t len)
{
    folded_func *v;
    size_t n = folded_funcs(&w->cpu, &v);
    double share = 0;

    for (size_t i = 0; i < n; i++)
        if (v[i].len == len && memcmp(v[i].name, name, len) == 0 && w->cpu.total > 0)
            share = (double)v[i].self / (double)w->cpu.total;
    xfree(v);
    return share;
}

/* The lock waits' share of the threads' time at work, by the diagnosis' rule. */
static double lock_share(const profile_window *w)
{
    profdiag_in in;
    profdiag d;

    profile_window_in(w, 1, "", &in);
    profdiag_judge(NULL, &in, &d);
    return d.lock_share;
}

/* One target's line into buf. */
static void target_line(const char *target, const profile_window *wa, const profile_window *wb,
                        char *buf, size_t len)
{
    folded_func *v;
    size_t n = folded_funcs(&wa->cpu, &v), best = n;
    double grew = 0, best_a = 0, best_b = 0;

    for (size_t i = 0; i < n; i++) {
        if (v[i].name[0] == '[' || wa->cpu.total == 0)
            continue; /* "[kernel]", "[unknown]": no code of the server's */
        double sa = (double)v[i].self / (double)wa->cpu.total;
        double sb = self_share(wb, v[i].name, v[i].len);
        if (sa - sb > grew) {
            grew = sa - sb;
            best = i;
            best_a = sa;
            best_b = sb;
        }
    }
    double la = lock_share(wa), lb = lock_share(wb);
    int used = 0;
    if (best < n && 100 * grew >= PROFILE_COMPARE_MIN_POINTS)
        used = snprintf(buf, len, "profile %s: %.*s %.1f %% of the on-CPU samples, up from %.1f %%",
                        target, (int)v[best].len, v[best].name, 100 * best_a, 100 * best_b);
    if (100 * (la - lb) >= PROFILE_COMPARE_MIN_POINTS && used >= 0 && (size_t)used < len)
        used += snprintf(buf + used, len - (size_t)used,
                         "%s lock waits %.0f %% of the threads' time, up from %.0f %%",
                         used > 0 ? ";" : "", 100 * la, 100 * lb);
    if (used == 0)
        snprintf(buf, len,
                 "profile %s: no function's share of the on-CPU samples grew by %.0f points or "
                 "more, nor the lock waits",
                 target, PROFILE_COMPARE_MIN_POINTS);
    xfree(v);
}

int profile_compare_lines(db *d, int64_t a, int64_t b, char *buf, size_t len, char *err,
                          size_t errlen)
{
    profile_target_row ra[PROFILE_DB_TARGETS_MAX], rb[PROFILE_DB_TARGETS_MAX];
    int na = profile_db_targets(d, a, ra, PROFILE_DB_TARGETS_MAX, err, errlen);
    int nb = na < 0 ? -1 : profile_db_targets(d, b, rb, PROFILE_DB_TARGETS_MAX, err, errlen);
    int lines = 0;
    size_t used = 0;

    buf[0] = '\0';
    if (na < 0 || nb < 0)
        return -1;
    for (int i = 0; i < na; i++) {
        int j = 0;
        while (j < nb && strcmp(rb[j].target, ra[i].target) != 0)
            j++;
        if (!ra[i].ok || j == nb || !rb[j].ok)
            continue;
        profile_window wa, wb;
        int rc = profile_db_window(d, a, ra[i].target, 0, WHOLE_RUN_S, &wa, err, errlen);
        if (rc == 0)
            rc = profile_db_window(d, b, rb[j].target, 0, WHOLE_RUN_S, &wb, err, errlen);
        else
            memset(&wb, 0, sizeof(wb));
        if (rc == 0 && wa.cpu.total > 0 && wb.cpu.total > 0) {
            char line[768];
            target_line(ra[i].target, &wa, &wb, line, sizeof(line));
            int n = snprintf(buf + used, len - used, "%s%s", lines > 0 ? "\n" : "", line);
            if (n > 0 && (size_t)n < len - used) {
                used += (size_t)n;
                lines++;
            }
        }
        profile_window_free(&wa);
        profile_window_free(&wb);
        if (rc != 0)
            return -1;
    }
    return lines;
}

/* bottleneck — the bottleneck signature of a window, by rule; see bottleneck.h. */
#include "reports/bottleneck.h"

#include <math.h>
#include <stdio.h>

#include "common/err.h"

static const char *const names[] = {"not judged", "errors first", "scales",
                                    "CPU-bound",  "contention",   "flat"};

const char *bottleneck_name(enum bottleneck_kind k)
{
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

enum bottleneck_kind bottleneck_judge(const bottleneck_window *prev, const bottleneck_window *w,
                                      char *why, size_t len)
{
    double load_rise, tps_rise;

    if (!isnan(w->errors_pct) && w->errors_pct > BOTTLENECK_ERRORS_PCT) {
        err_set(why, len, "%.1f %% of the samples failed (above %g %%): a limit was hit",
                w->errors_pct, BOTTLENECK_ERRORS_PCT);
        return BOTTLENECK_ERRORS;
    }
    if (prev == NULL || !(prev->load > 0) || isnan(prev->tps) || isnan(w->tps) || prev->tps <= 0) {
        err_set(why, len, "%s",
                prev == NULL ? "the first window: nothing to compare with"
                             : "no load or throughput before to compare with");
        return BOTTLENECK_NOT_JUDGED;
    }
    load_rise = (w->load / prev->load - 1.0) * 100.0;
    if (load_rise < BOTTLENECK_LOAD_RISE_PCT) {
        err_set(why, len, "the load did not rise by %g %% or more (%+.0f %%)",
                BOTTLENECK_LOAD_RISE_PCT, load_rise);
        return BOTTLENECK_NOT_JUDGED;
    }
    tps_rise = (w->tps / prev->tps - 1.0) * 100.0;
    if (tps_rise >= load_rise * BOTTLENECK_FOLLOW_PCT / 100.0) {
        err_set(why, len, "load %+.0f %%, throughput %+.0f %%: it follows the load", load_rise,
                tps_rise);
        return BOTTLENECK_SCALES;
    }
    if (w->monitored && !isnan(w->cpu_pct) && w->cpu_pct >= BOTTLENECK_CPU_SATURATED_PCT) {
        err_set(why, len, "load %+.0f %%, throughput %+.0f %% while %s's CPU is %.0f %% busy",
                load_rise, tps_rise, w->cpu_host != NULL ? w->cpu_host : "a host", w->cpu_pct);
        return BOTTLENECK_CPU_BOUND;
    }
    if (w->monitored && !isnan(w->cpu_pct) && w->cpu_pct < BOTTLENECK_ROOM_PCT &&
        (isnan(w->disk_pct) || w->disk_pct < BOTTLENECK_ROOM_PCT)) {
        err_set(why, len,
                "load %+.0f %%, throughput %+.0f %% while every host has room (CPU at most %.0f "
                "%%, disk %.0f %%): locks, a pool, a serialised section",
                load_rise, tps_rise, w->cpu_pct, isnan(w->disk_pct) ? 0.0 : w->disk_pct);
        return BOTTLENECK_CONTENTION;
    }
    if (!w->monitored)
        err_set(why, len, "load %+.0f %%, throughput %+.0f %%; no monitored host to say why",
                load_rise, tps_rise);
    else
        err_set(why, len,
                "load %+.0f %%, throughput %+.0f %%; a resource is between %g and %g %% (CPU "
                "%.0f %%): no rule applies",
                load_rise, tps_rise, BOTTLENECK_ROOM_PCT, BOTTLENECK_CPU_SATURATED_PCT, w->cpu_pct);
    return BOTTLENECK_FLAT;
}

/* bneck — the bottleneck signature of a window, by rule; see bneck.h. */
#include "reports/bneck.h"

#include <math.h>
#include <stdio.h>

static const char *const names[] = {"not judged", "errors first", "scales",
                                    "CPU-bound",  "contention",   "flat"};

const char *bneck_name(enum bneck_kind k)
{
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

enum bneck_kind bneck_judge(const bneck_window *prev, const bneck_window *w, char *why, size_t len)
{
    double load_rise, tps_rise;

    if (!isnan(w->errors_pct) && w->errors_pct > BNECK_ERRORS_PCT) {
        snprintf(why, len, "%.1f %% of the samples failed (above %g %%): a limit was hit",
                 w->errors_pct, BNECK_ERRORS_PCT);
        return BNECK_ERRORS;
    }
    if (prev == NULL || !(prev->load > 0) || isnan(prev->tps) || isnan(w->tps) || prev->tps <= 0) {
        snprintf(why, len, "%s",
                 prev == NULL ? "the first window: nothing to compare with"
                              : "no load or throughput before to compare with");
        return BNECK_NOT_JUDGED;
    }
    load_rise = (w->load / prev->load - 1.0) * 100.0;
    if (load_rise < BNECK_LOAD_RISE_PCT) {
        snprintf(why, len, "the load did not rise by %g %% or more (%+.0f %%)", BNECK_LOAD_RISE_PCT,
                 load_rise);
        return BNECK_NOT_JUDGED;
    }
    tps_rise = (w->tps / prev->tps - 1.0) * 100.0;
    if (tps_rise >= load_rise * BNECK_FOLLOW_PCT / 100.0) {
        snprintf(why, len, "load %+.0f %%, throughput %+.0f %%: it follows the load", load_rise,
                 tps_rise);
        return BNECK_SCALES;
    }
    if (w->monitored && !isnan(w->cpu_pct) && w->cpu_pct >= BNECK_CPU_SATURATED_PCT) {
        snprintf(why, len, "load %+.0f %%, throughput %+.0f %% while %s's CPU is %.0f %% busy",
                 load_rise, tps_rise, w->cpu_host != NULL ? w->cpu_host : "a host", w->cpu_pct);
        return BNECK_CPU_BOUND;
    }
    if (w->monitored && !isnan(w->cpu_pct) && w->cpu_pct < BNECK_ROOM_PCT &&
        (isnan(w->disk_pct) || w->disk_pct < BNECK_ROOM_PCT)) {
        snprintf(why, len,
                 "load %+.0f %%, throughput %+.0f %% while every host has room (CPU at most %.0f "
                 "%%, disk %.0f %%): locks, a pool, a serialised section",
                 load_rise, tps_rise, w->cpu_pct, isnan(w->disk_pct) ? 0.0 : w->disk_pct);
        return BNECK_CONTENTION;
    }
    if (!w->monitored)
        snprintf(why, len, "load %+.0f %%, throughput %+.0f %%; no monitored host to say why",
                 load_rise, tps_rise);
    else
        snprintf(why, len,
                 "load %+.0f %%, throughput %+.0f %%; a resource is between %g and %g %% (CPU "
                 "%.0f %%): no rule applies",
                 load_rise, tps_rise, BNECK_ROOM_PCT, BNECK_CPU_SATURATED_PCT, w->cpu_pct);
    return BNECK_FLAT;
}

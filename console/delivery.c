/* delivery — the load asked against the load sent; see delivery.h. */
#include "console/delivery.h"

#include <stdio.h>
#include <string.h>

/* The open model's cause of drops, into buf. */
static const char *drop_reason(const delivery_in *in, char *buf, size_t len)
{
    if (in->saturated)
        snprintf(buf, len, "the injector was saturated (it could not start them in time)");
    else if (in->pool > 0 && in->pool_peak >= in->pool)
        snprintf(buf, len, "every VU of the pool of %u was busy; raise --max-vus", in->pool);
    else
        snprintf(buf, len, "arrivals waited past --max-lag for a VU (the pool reached %u of %u)",
                 in->pool_peak, in->pool);
    return buf;
}

void delivery_compute(const delivery_in *in, delivery *out)
{
    double open_share = 0, paced_share = 0;
    char reason[160];
    size_t n = 0;

    memset(out, 0, sizeof(*out));
    out->dropped = in->arrivals.dropped;
    out->late = in->arrivals.late;
    out->missed_pacing = in->missed_pacing;
    if (in->open) {
        out->asked = in->arrivals.scheduled;
        out->sent = in->arrivals.started;
        if (out->asked > 0)
            open_share = (double)out->dropped / (double)out->asked;
    } else {
        out->asked = in->runs;
        out->sent = in->runs - (in->missed_pacing < in->runs ? in->missed_pacing : in->runs);
    }
    if (in->runs > 0)
        paced_share = (double)in->missed_pacing / (double)in->runs;
    if (paced_share > 1)
        paced_share = 1;
    out->share = open_share > paced_share ? open_share : paced_share;
    if (out->dropped > 0)
        n += (size_t)snprintf(out->why, sizeof(out->why), "%llu of %llu arrivals dropped: %s",
                              (unsigned long long)out->dropped,
                              (unsigned long long)in->arrivals.scheduled,
                              drop_reason(in, reason, sizeof(reason)));
    if (in->missed_pacing > 0 && n < sizeof(out->why))
        snprintf(out->why + n, sizeof(out->why) - n,
                 "%s%llu of %llu runs missed their pacing slot: a run took longer than its pacing",
                 n > 0 ? "; " : "", (unsigned long long)in->missed_pacing,
                 (unsigned long long)in->runs);
}

/* delivery — the load asked against the load sent; see delivery.h. */
#include "console/delivery.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"

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

/* n with a comma every three digits ("10,000") into buf. */
static const char *thousands(uint64_t n, char *buf, size_t len)
{
    char digits[24];
    size_t nd = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n), o = 0;

    for (size_t i = 0; i < nd && o + 2 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* Appends one clause of why ("; " between clauses), cut to fit. */
static void add_why(delivery *out, const char *text)
{
    err_append(out->why, sizeof(out->why), "%s%s", out->why[0] != '\0' ? "; " : "", text);
}

/* The closed model's share: the VUs never started, plus the pacing's share
 * of the load of those that did. */
static double closed_share(const delivery_in *in, delivery *out)
{
    double never = 0, paced = 0;

    out->vus_planned = in->vus_planned;
    out->vus_never = in->vus_planned > in->vus_started ? in->vus_planned - in->vus_started : 0;
    out->pace_lost_us = in->pace_lost_us;
    if (in->vus_planned > 0)
        never = (double)out->vus_never / (double)in->vus_planned;
    if (in->pace_asked_us + in->pace_lost_us > 0)
        paced = (double)in->pace_lost_us / (double)(in->pace_asked_us + in->pace_lost_us);
    return never + (1 - never) * paced;
}

void delivery_compute(const delivery_in *in, delivery *out)
{
    double open_share = 0, closed;
    char reason[160], line[DELIVERY_WHY_MAX], a[32], b[32];

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
    closed = closed_share(in, out);
    out->share = open_share > closed ? open_share : closed;
    if (out->share > 1)
        out->share = 1;
    if (out->dropped > 0) {
        snprintf(line, sizeof(line), "%llu of %llu arrivals dropped: %s",
                 (unsigned long long)out->dropped, (unsigned long long)in->arrivals.scheduled,
                 drop_reason(in, reason, sizeof(reason)));
        add_why(out, line);
    }
    if (out->vus_never > 0) {
        snprintf(line, sizeof(line), "%s of %s VUs never started: %s",
                 thousands(out->vus_never, a, sizeof(a)), thousands(in->vus_planned, b, sizeof(b)),
                 in->saturated ? "the injector was saturated (it could not start them in time)"
                               : "their start time came but their init never ended (a slow "
                                 "or blocked init)");
        add_why(out, line);
    }
    if (in->missed_pacing > 0 && in->pace_lost_us > 0) {
        snprintf(line, sizeof(line),
                 "%llu of %llu runs missed their pacing slot, %.1f s of slot time lost of "
                 "%.1f s: a run took longer than its pacing",
                 (unsigned long long)in->missed_pacing, (unsigned long long)in->runs,
                 (double)in->pace_lost_us / 1e6,
                 (double)(in->pace_asked_us + in->pace_lost_us) / 1e6);
        add_why(out, line);
    }
}

/* capacity — the staircase of a capacity search; see capacity.h. */
#include "common/capacity.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"

#define PART_MAX 64 /* longest part of START:STEP:HOLD:MAX */

/* One load: a rate ("100/s", *is_rate 1) or a whole number of VUs. */
static int parse_load(const char *what, const char *s, double *out, int *is_rate, char *err,
                      size_t errlen)
{
    char rerr[ERR_MAX], *end;
    unsigned long long v;

    if (strchr(s, '/') != NULL) {
        *is_rate = 1;
        if (rate_parse(s, 0, out, rerr, sizeof(rerr)) != 0) {
            err_set(err, errlen, "%s: %s", what, rerr);
            return -1;
        }
        return 0;
    }
    *is_rate = 0;
    errno = 0;
    v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
    if (s[0] < '0' || s[0] > '9' || errno != 0 || *end != '\0' || v == 0 || v > STAGES_VUS_MAX) {
        err_set(err, errlen,
                "%s: \"%.*s\" is neither a rate (200/s) nor a whole number of VUs from 1 to %u",
                what, PART_MAX, s, STAGES_VUS_MAX);
        return -1;
    }
    *out = (double)v;
    return 0;
}

int capacity_parse(const char *s, capacity_plan *p, char *err, size_t errlen)
{
    char part[4][PART_MAX], derr[ERR_MAX];
    static const char *const what[4] = {"START", "STEP", "HOLD", "MAX"};
    size_t n = 0;
    const char *at = s;
    int rate[4] = {0, 0, 0, 0};
    double top;

    memset(p, 0, sizeof(*p));
    for (;;) {
        const char *colon = strchr(at, ':');
        size_t len = colon != NULL ? (size_t)(colon - at) : strlen(at);
        if (n == 4 || len == 0 || len >= PART_MAX) {
            err_set(err, errlen,
                    "\"%.*s\" is not START:STEP:HOLD[:MAX] (e.g. 100/s:100/s:30s:2000/s, or "
                    "10:10:1m in VUs)",
                    PART_MAX, s);
            return -1;
        }
        memcpy(part[n], at, len);
        part[n++][len] = '\0';
        if (colon == NULL)
            break;
        at = colon + 1;
    }
    if (n < 3) {
        err_set(err, errlen, "\"%.*s\" is not START:STEP:HOLD[:MAX] (e.g. 100/s:100/s:30s:2000/s)",
                PART_MAX, s);
        return -1;
    }
    if (parse_load(what[0], part[0], &p->start, &rate[0], err, errlen) != 0 ||
        parse_load(what[1], part[1], &p->step, &rate[1], err, errlen) != 0 ||
        (n == 4 && parse_load(what[3], part[3], &p->max, &rate[3], err, errlen) != 0))
        return -1;
    if (rate[1] != rate[0] || (n == 4 && rate[3] != rate[0])) {
        err_set(err, errlen,
                "START, STEP and MAX must all be rates (100/s) or all numbers of VUs, not both");
        return -1;
    }
    p->open = rate[0];
    if (dur_parse(part[2], &p->hold_us, derr, sizeof(derr)) != 0) {
        err_set(err, errlen, "HOLD: %s", derr);
        return -1;
    }
    if (p->hold_us < 1000000) {
        err_set(err, errlen, "HOLD \"%s\": a step is held 1s at least", part[2]);
        return -1;
    }
    if (n == 4 && p->max < p->start) {
        err_set(err, errlen, "MAX \"%s\" is below START \"%s\"", part[3], part[0]);
        return -1;
    }
    p->nsteps = CAPACITY_STEPS_MAX;
    if (n == 4) {
        /* a tiny margin so that 100/s:100/s:..:500/s has its 500/s step */
        double k = floor((p->max - p->start) / p->step + 1e-9) + 1;
        if (k > CAPACITY_STEPS_MAX) {
            err_set(err, errlen, "%.0f steps from START to MAX, more than %u", k,
                    CAPACITY_STEPS_MAX);
            return -1;
        }
        p->nsteps = (size_t)k;
    }
    top = capacity_load(p, p->nsteps - 1);
    if (p->open ? top > RATE_MAX_PER_S : top > STAGES_VUS_MAX) {
        err_set(err, errlen, "the staircase climbs to %.0f%s, more than %.0f", top,
                p->open ? "/s" : " VUs", p->open ? RATE_MAX_PER_S : (double)STAGES_VUS_MAX);
        return -1;
    }
    if ((double)p->hold_us * (double)p->nsteps > (double)STAGES_TIME_MAX_US) {
        err_set(err, errlen, "%zu steps of %s last more than 31 days", p->nsteps, part[2]);
        return -1;
    }
    return 0;
}

double capacity_load(const capacity_plan *p, size_t i)
{
    return p->start + (double)i * p->step;
}

char *capacity_format(const capacity_plan *p, double load, char *buf, size_t len)
{
    if (p->open)
        return rate_format(load, buf, len);
    snprintf(buf, len, "%.0f", load);
    return buf;
}

const char *capacity_unit(const capacity_plan *p)
{
    return p->open ? "/s" : "vus";
}

void capacity_window(const capacity_plan *p, size_t i, int64_t *t0_us, int64_t *t1_us)
{
    *t0_us = (int64_t)i * p->hold_us;
    *t1_us = *t0_us + p->hold_us;
}

size_t capacity_stages(const capacity_plan *p, stage *out)
{
    for (size_t i = 0; i < p->nsteps; i++) {
        uint32_t n = (uint32_t)capacity_load(p, i);
        out[2 * i] = (stage){0, n};
        out[2 * i + 1] = (stage){p->hold_us, n};
    }
    return 2 * p->nsteps;
}

size_t capacity_rate_stages(const capacity_plan *p, rate_stage *out)
{
    for (size_t i = 0; i < p->nsteps; i++) {
        double r = capacity_load(p, i);
        out[2 * i] = (rate_stage){0, r};
        out[2 * i + 1] = (rate_stage){p->hold_us, r};
    }
    return 2 * p->nsteps;
}

int capacity_second(const capacity_plan *p, int64_t settle_us, uint64_t second, size_t *step,
                    int *last)
{
    int64_t s0 = (int64_t)second * 1000000, t0, t1;
    size_t i = (size_t)(s0 / p->hold_us);

    if (i >= p->nsteps)
        return -1;
    capacity_window(p, i, &t0, &t1);
    if (s0 < t0 + settle_us || s0 + 1000000 > t1)
        return -1;
    *step = i;
    *last = s0 + 2000000 > t1;
    return 0;
}

int capacity_check_settle(const capacity_plan *p, int64_t settle_us, char *err, size_t errlen)
{
    char hb[DUR_FORMAT_MAX], sb[DUR_FORMAT_MAX];

    for (size_t i = 0; settle_us >= 0 && i < p->nsteps; i++) {
        int64_t t0, t1, first;
        capacity_window(p, i, &t0, &t1);
        first = (t0 + settle_us + 999999) / 1000000 * 1000000; /* the first whole second judged */
        if (first + 1000000 > t1) {
            err_set(err, errlen,
                    "settling %s of each %s step leaves no whole second to judge (step %zu)",
                    dur_format(settle_us, sb, sizeof(sb)), dur_format(p->hold_us, hb, sizeof(hb)),
                    i + 1);
            return -1;
        }
    }
    if (settle_us < 0) {
        err_set(err, errlen, "the settle time cannot be negative");
        return -1;
    }
    return 0;
}

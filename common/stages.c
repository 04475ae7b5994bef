/* stages — a staged load of the closed model; see stages.h. */
#include "common/stages.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/dur.h"
#include "common/err.h"

#define QUOTE_MAX 64 /* characters of the text an error quotes */
#define PART_MAX 64  /* longest duration or count part read */

/* A whole number of VUs, digits only. */
static int parse_count(const char *s, uint32_t *out)
{
    char *end;
    unsigned long long v;

    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > STAGES_VUS_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int stages_split(const char *s, const char *shape, int64_t *dur_us, const char **rest, char *err,
                 size_t errlen)
{
    const char *colon = strchr(s, ':');
    char dur[PART_MAX], derr[ERR_MAX];
    size_t dlen;

    if (colon == NULL) {
        err_set(err, errlen, "\"%.*s\" is not %s", QUOTE_MAX, s, shape);
        return -1;
    }
    dlen = (size_t)(colon - s);
    if (dlen == 0 || dlen >= sizeof(dur)) {
        err_set(err, errlen, "\"%.*s\": %s before ':'", QUOTE_MAX, s,
                dlen == 0 ? "no duration" : "the duration is too long");
        return -1;
    }
    memcpy(dur, s, dlen);
    dur[dlen] = '\0';
    if (dur_parse(dur, dur_us, derr, sizeof(derr)) != 0) {
        err_set(err, errlen, "\"%.*s\": %s", QUOTE_MAX, s, derr);
        return -1;
    }
    *rest = colon + 1;
    return 0;
}

int stages_parse_one(const char *s, stage *out, char *err, size_t errlen)
{
    const char *rest;
    stage st;

    if (stages_split(s, "D:N (a duration, ':', a number of VUs; e.g. 30s:20)", &st.dur_us, &rest,
                     err, errlen) != 0)
        return -1;
    if (st.dur_us > STAGES_TIME_MAX_US) {
        err_set(err, errlen, "\"%.*s\": a stage lasts 31 days at most", QUOTE_MAX, s);
        return -1;
    }
    if (parse_count(rest, &st.target) != 0) {
        err_set(err, errlen, "\"%.*s\": \"%.*s\" is not a whole number of VUs from 0 to %u",
                QUOTE_MAX, s, QUOTE_MAX, rest, STAGES_VUS_MAX);
        return -1;
    }
    *out = st;
    return 0;
}

int stages_check(const stage *st, size_t n, char *err, size_t errlen)
{
    int64_t total = 0;

    if (n == 0) {
        err_set(err, errlen, "no stage: give one or more as D:N (e.g. 30s:20)");
        return -1;
    }
    if (n > STAGES_MAX) {
        err_set(err, errlen, "%zu stages, more than %u", n, STAGES_MAX);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (st[i].dur_us < 0 || st[i].dur_us > STAGES_TIME_MAX_US ||
            st[i].target > STAGES_VUS_MAX) {
            err_set(err, errlen, "stage %zu: longer than 31 days or more than %u VUs", i + 1,
                    STAGES_VUS_MAX);
            return -1;
        }
        total += st[i].dur_us; /* at most STAGES_MAX * 31 days: no overflow */
    }
    if (stages_max(st, n) == 0) {
        err_set(err, errlen, "every stage targets 0 VUs");
        return -1;
    }
    if (total == 0 || total > STAGES_TIME_MAX_US) {
        err_set(err, errlen, "the stages last %s in all (more than 0, at most 31 days)",
                total == 0 ? "0s" : "more than 31 days");
        return -1;
    }
    return 0;
}

int stages_each(const char *s, size_t max, const char *shape,
                int (*one)(const char *item, size_t k, void *ud, char *err, size_t errlen),
                void *ud, size_t *n, char *err, size_t errlen)
{
    size_t k = 0;
    const char *p = s;

    *n = 0;
    if (s[0] == '\0') {
        err_set(err, errlen, "empty: give one stage or more as %s", shape);
        return -1;
    }
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[2 * PART_MAX];
        if (len == 0) {
            err_set(err, errlen, "an empty stage at position %zu (stages are separated by ',')",
                    k + 1);
            return -1;
        }
        if (k == max) {
            err_set(err, errlen, "more than %zu stages", max);
            return -1;
        }
        if (len >= sizeof(item)) {
            err_set(err, errlen, "stage %zu (\"%.*s...\") is too long", k + 1, QUOTE_MAX, p);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (one(item, k, ud, err, errlen) != 0)
            return -1;
        k++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *n = k;
    return 0;
}

static int stage_one(const char *item, size_t k, void *ud, char *err, size_t errlen)
{
    return stages_parse_one(item, (stage *)ud + k, err, errlen);
}

int stages_parse(const char *s, stage *out, size_t max, size_t *n, char *err, size_t errlen)
{
    size_t k;

    if (stages_each(s, max < STAGES_MAX ? max : STAGES_MAX, "D:N[,D:N...] (e.g. 3s:20,4s:20,3s:0)",
                    stage_one, out, &k, err, errlen) != 0 ||
        stages_check(out, k, err, errlen) != 0) {
        *n = 0;
        return -1;
    }
    *n = k;
    return 0;
}

int64_t stages_total_us(const stage *st, size_t n)
{
    int64_t t = 0;

    for (size_t i = 0; i < n; i++)
        t += st[i].dur_us;
    return t;
}

uint32_t stages_max(const stage *st, size_t n)
{
    uint32_t m = 0;

    for (size_t i = 0; i < n; i++)
        if (st[i].target > m)
            m = st[i].target;
    return m;
}

double stages_target(const stage *st, size_t n, int64_t t_us)
{
    int64_t t0 = 0;
    uint32_t a = 0;

    if (t_us < 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int64_t d = st[i].dur_us;
        if (t_us < t0 + d)
            return (double)a + ((double)st[i].target - (double)a) * (double)(t_us - t0) / (double)d;
        t0 += d;
        a = st[i].target;
    }
    return a;
}

uint64_t stages_ids(const stage *st, size_t n)
{
    uint64_t ids = 0;
    uint32_t a = 0;

    for (size_t i = 0; i < n; i++) {
        if (st[i].target > a)
            ids += st[i].target - a;
        a = st[i].target;
    }
    return ids;
}

/* The time slot s is left, from stage j on (it is occupied entering j), or -1. */
static int64_t slot_leave(const stage *st, size_t n, size_t j, int64_t t0, uint32_t a, uint32_t s)
{
    for (; j < n; j++) {
        uint32_t b = st[j].target;
        if (b < s) {
            int64_t d = st[j].dur_us;
            /* a >= s > b: slot s is left when N(t) reaches s - 1 */
            return t0 + (int64_t)((double)(a - s + 1) * (double)d / (double)(a - b));
        }
        t0 += st[j].dur_us;
        a = b;
    }
    return -1;
}

int stages_id_times(const stage *st, size_t n, uint64_t id, int64_t *start_us, int64_t *leave_us)
{
    uint64_t next = 1; /* the id the next slot taken gets */
    int64_t t0 = 0;
    uint32_t a = 0;

    for (size_t i = 0; i < n; i++) {
        uint32_t b = st[i].target;
        int64_t d = st[i].dur_us;
        if (b > a && id >= next && id < next + (b - a)) {
            uint32_t s = a + 1 + (uint32_t)(id - next);
            *start_us = t0 + (int64_t)((double)(s - 1 - a) * (double)d / (double)(b - a));
            *leave_us = slot_leave(st, n, i + 1, t0 + d, b, s);
            return 0;
        }
        if (b > a)
            next += b - a;
        t0 += d;
        a = b;
    }
    return -1;
}

char *stages_format(const stage *st, size_t n, char *buf, size_t len)
{
    size_t at = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        char d[DUR_FORMAT_MAX];
        int w = snprintf(buf + at, len - at, "%s%s:%u", i > 0 ? "," : "",
                         dur_format(st[i].dur_us, d, sizeof(d)), (unsigned)st[i].target);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    return buf;
}

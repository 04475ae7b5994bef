/* dur — parse and format durations; see dur.h. */
#include "common/dur.h"
#include "common/err.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define US_PER_MS ((uint64_t)1000)
#define US_PER_S ((uint64_t)1000000)
#define US_PER_M (60 * US_PER_S)
#define US_PER_H (60 * US_PER_M)

/* Fraction digits kept: 10^27 times the largest unit (3.6 * 10^9) still
 * fits 128 bits. Further digits are checked but ignored: they change the
 * value by under 10^-17 µs. */
#define FRAC_DIGITS_MAX 27

#define UNITS_HINT "(use us, ms, s, m, h)"

struct unit {
    const char *name; /* borrowed: the unit's text, a literal */
    uint64_t us;
};

static const struct unit units[] = {
    {"us", 1}, {"ms", US_PER_MS}, {"s", US_PER_S}, {"m", US_PER_M}, {"h", US_PER_H},
};

/* Multiplier of the unit name s[0..n), or 0 if unknown. */
static uint64_t unit_us(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strlen(units[i].name) == n && memcmp(units[i].name, s, n) == 0)
            return units[i].us;
    return 0;
}

/* whole * unit + frac / 10^frac_digits * unit, truncated; -1 on overflow. */
static int part_value(uint64_t whole, unsigned __int128 frac, unsigned frac_digits, uint64_t unit,
                      uint64_t *out)
{
    uint64_t v;
    if (__builtin_mul_overflow(whole, unit, &v))
        return -1;
    if (frac_digits > 0) {
        unsigned __int128 f = frac * unit;
        for (unsigned i = 0; i < frac_digits; i++)
            f /= 10;
        if (__builtin_add_overflow(v, (uint64_t)f, &v))
            return -1;
    }
    *out = v;
    return 0;
}

int dur_parse(const char *s, int64_t *us, char *err, size_t errlen)
{
    const char *start;
    const char *end;
    uint64_t total = 0;
    int parts = 0;

    if (s == NULL)
        s = "";
    start = s;
    while (isspace((unsigned char)*start))
        start++;
    end = start + strlen(start);
    while (end > start && isspace((unsigned char)end[-1]))
        end--;
    int n = (int)(end - start); /* for "%.*s" */

    if (start == end) {
        err_set(err, errlen, "bad duration \"%s\": empty", s);
        return -1;
    }
    if (*start == '-') {
        err_set(err, errlen, "bad duration \"%.*s\": negative durations are not allowed", n, start);
        return -1;
    }

    const char *p = start;
    while (p < end) {
        uint64_t whole = 0;
        unsigned __int128 frac = 0;
        unsigned frac_digits = 0;
        int digits = 0;
        int too_big = 0;
        const char *num = p;

        while (p < end && isdigit((unsigned char)*p)) {
            if (__builtin_mul_overflow(whole, 10, &whole) ||
                __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
                too_big = 1;
            p++;
            digits++;
        }
        if (p < end && *p == '.') {
            p++;
            while (p < end && isdigit((unsigned char)*p)) {
                if (frac_digits < FRAC_DIGITS_MAX) {
                    frac = frac * 10 + (unsigned)(*p - '0');
                    frac_digits++;
                }
                p++;
                digits++;
            }
        }
        if (digits == 0) {
            if (parts > 0)
                err_set(err, errlen, "bad duration \"%.*s\": unexpected \"%.*s\"", n, start,
                        (int)(end - num), num);
            else
                err_set(err, errlen, "bad duration \"%.*s\": expected a number at \"%.*s\"", n,
                        start, (int)(end - num), num);
            return -1;
        }

        const char *u = p;
        while (p < end && isalpha((unsigned char)*p))
            p++;
        uint64_t unit;
        if (p == u) {
            if (p < end) {
                err_set(err, errlen, "bad duration \"%.*s\": unexpected \"%.*s\"", n, start,
                        (int)(end - p), p);
                return -1;
            }
            if (parts > 0) {
                err_set(err, errlen,
                        "bad duration \"%.*s\": missing unit after \"%.*s\" " UNITS_HINT, n, start,
                        (int)(p - num), num);
                return -1;
            }
            unit = US_PER_S; /* a bare number is seconds */
        } else {
            unit = unit_us(u, (size_t)(p - u));
            if (unit == 0) {
                err_set(err, errlen, "bad duration \"%.*s\": unknown unit \"%.*s\" " UNITS_HINT, n,
                        start, (int)(p - u), u);
                return -1;
            }
        }

        uint64_t v;
        if (too_big || part_value(whole, frac, frac_digits, unit, &v) != 0 ||
            __builtin_add_overflow(total, v, &total) || total > INT64_MAX) {
            err_set(err, errlen, "bad duration \"%.*s\": too large", n, start);
            return -1;
        }
        parts++;
    }
    *us = (int64_t)total;
    return 0;
}

/* Appends v / scale with up to `decimals` decimals, trailing zeros dropped. */
static int put_scaled(char *buf, size_t len, uint64_t v, uint64_t scale, int decimals,
                      const char *unit)
{
    uint64_t whole = v / scale;
    uint64_t frac = v % scale;
    if (frac == 0)
        return snprintf(buf, len, "%" PRIu64 "%s", whole, unit);
    while (frac % 10 == 0) {
        frac /= 10;
        decimals--;
    }
    return snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64 "%s", whole, decimals, frac, unit);
}

char *dur_format(int64_t us, char *buf, size_t len)
{
    char tmp[DUR_FORMAT_MAX + 8];
    char *p = tmp;
    size_t cap = sizeof(tmp);
    uint64_t v;

    if (len == 0)
        return buf;
    if (us < 0) {
        *p++ = '-';
        cap--;
        v = (uint64_t)0 - (uint64_t)us; /* also right for INT64_MIN */
    } else {
        v = (uint64_t)us;
    }

    if (v == 0) {
        snprintf(p, cap, "0s");
    } else if (v < US_PER_MS) {
        snprintf(p, cap, "%" PRIu64 "us", v);
    } else if (v < US_PER_S) {
        put_scaled(p, cap, v, US_PER_MS, 3, "ms");
    } else if (v < US_PER_M) {
        put_scaled(p, cap, v, US_PER_S, 6, "s");
    } else {
        int k = 0;
        if (v >= US_PER_H)
            k = snprintf(p, cap, "%" PRIu64 "h", v / US_PER_H);
        k += snprintf(p + k, cap - (size_t)k, "%" PRIu64 "m", v % US_PER_H / US_PER_M);
        put_scaled(p + k, cap - (size_t)k, v % US_PER_M, US_PER_S, 6, "s");
    }
    snprintf(buf, len, "%s", tmp);
    return buf;
}

char *dur_clock(int64_t us, char *buf, size_t len)
{
    long long s = us > 0 ? (long long)((us + 500000) / 1000000) : 0;

    if (s < 60)
        snprintf(buf, len, "%llds", s);
    else if (s < 3600)
        snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
    else
        snprintf(buf, len, "%lldh%02lldm%02llds", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

const char *dur_prose(int64_t us, char *buf, size_t len)
{
    int64_t s = (us + 500000) / 1000000;

    if (us < 0)
        snprintf(buf, len, "-");
    else if (us < 60000000)
        snprintf(buf, len, "%.1f s", (double)us / 1e6);
    else if (s < 3600)
        snprintf(buf, len, "%lld min %02lld s", (long long)(s / 60), (long long)(s % 60));
    else
        snprintf(buf, len, "%lld h %02lld min", (long long)(s / 3600), (long long)(s % 3600 / 60));
    return buf;
}

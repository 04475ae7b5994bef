/* grpc — the protocol pieces of a gRPC call; see grpc.h. */
#include "worker/wire/grpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"

static const char *const names[] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

const char *grpc_status_name(int code)
{
    return code >= 0 && (size_t)code < NNAMES ? names[code] : "UNKNOWN";
}

int grpc_status_code(const char *name)
{
    for (size_t i = 0; i < NNAMES; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

int grpc_from_http(long s)
{
    switch (s) {
    case 400:
        return GRPC_INTERNAL;
    case 401:
        return GRPC_UNAUTHENTICATED;
    case 403:
        return GRPC_PERMISSION_DENIED;
    case 404:
        return GRPC_UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
        return GRPC_UNAVAILABLE;
    default:
        return GRPC_UNKNOWN;
    }
}

void grpc_frame_header(uint8_t out[5], uint32_t len, int compressed)
{
    out[0] = compressed ? 1 : 0;
    out[1] = (uint8_t)(len >> 24);
    out[2] = (uint8_t)(len >> 16);
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

int grpc_frame_next(const uint8_t *body, size_t len, size_t *used, const uint8_t **msg, size_t *n,
                    int *compressed, char *err, size_t errlen)
{
    size_t at = *used, rest = len - at;
    uint32_t mlen;

    if (rest == 0)
        return 0;
    if (rest < 5) {
        err_set(err, errlen, "a partial message frame (%zu bytes)", rest);
        return -1;
    }
    if (body[at] > 1) {
        err_set(err, errlen, "a message frame flagged %u (0 or 1)", body[at]);
        return -1;
    }
    mlen = (uint32_t)body[at + 1] << 24 | (uint32_t)body[at + 2] << 16 |
           (uint32_t)body[at + 3] << 8 | body[at + 4];
    if (mlen > GRPC_MSG_MAX) {
        err_set(err, errlen, "a message of %u bytes (at most %u)", mlen, GRPC_MSG_MAX);
        return -1;
    }
    if (rest - 5 < mlen) {
        err_set(err, errlen, "a partial message (%zu of %u bytes)", rest - 5, mlen);
        return -1;
    }
    *compressed = body[at];
    *msg = body + at + 5;
    *n = mlen;
    *used = at + 5 + mlen;
    return 1;
}

int grpc_bin_key(const char *name, size_t n)
{
    return n > 4 && strncasecmp(name + n - 4, "-bin", 4) == 0;
}

void grpc_timeout(char out[16], int64_t us)
{
    /* the finest unit whose value has at most 8 digits */
    static const struct {
        int64_t div;
        char unit;
    } units[] = {{1, 'u'}, {1000, 'm'}, {1000000, 'S'}, {60000000, 'M'}, {3600000000LL, 'H'}};
    if (us < 1)
        us = 1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        int64_t v = us / units[i].div + (us % units[i].div != 0);
        if (v <= 99999999 || i + 1 == sizeof(units) / sizeof(units[0])) {
            snprintf(out, 16, "%lld%c", (long long)(v > 99999999 ? 99999999 : v), units[i].unit);
            return;
        }
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* grpc-message is percent-encoded (the spec's Percent-Encoded). */
static void unpercent(char *out, size_t outlen, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < outlen; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < n + 0 && (h = hexval(s[i + 1])) >= 0 &&
            (l = hexval(s[i + 2])) >= 0) {
            out[o++] = (char)(h * 16 + l);
            i += 2;
        } else
            out[o++] = s[i];
    }
    out[o] = '\0';
}

int grpc_encoding_read(const char *hdr, size_t len)
{
    const char *p = hdr, *end = hdr + len;
    int enc = GRPC_ENC_IDENTITY;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end, *v;
        if (le > p && le[-1] == '\r')
            le--;
        if (le - p >= 14 && strncasecmp(p, "grpc-encoding:", 14) == 0) {
            size_t vn;
            v = p + 14;
            while (v < le && (*v == ' ' || *v == '\t'))
                v++;
            vn = (size_t)(le - v);
            while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
                vn--;
            if (vn == 4 && strncasecmp(v, "gzip", 4) == 0)
                enc = GRPC_ENC_GZIP;
            else if (vn == 8 && strncasecmp(v, "identity", 8) == 0)
                enc = GRPC_ENC_IDENTITY;
            else
                enc = -1;
        }
        p = eol ? eol + 1 : end;
    }
    return enc;
}

void grpc_status_read(const char *hdr, size_t len, grpc_status *st)
{
    const char *p = hdr, *end = hdr + len;

    memset(st, 0, sizeof(*st));
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol ? eol : end, *colon, *v;
        size_t vn;
        if (le > p && le[-1] == '\r')
            le--;
        colon = memchr(p, ':', (size_t)(le - p));
        if (colon != NULL) {
            v = colon + 1;
            while (v < le && (*v == ' ' || *v == '\t'))
                v++;
            vn = (size_t)(le - v);
            while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
                vn--;
            if ((size_t)(colon - p) == 11 && strncasecmp(p, "grpc-status", 11) == 0) {
                char num[16];
                char *e;
                long c;
                snprintf(num, sizeof(num), "%.*s", (int)(vn < 15 ? vn : 15), v);
                c = strtol(num, &e, 10);
                st->found = 1;
                st->code = (e != num && *e == '\0' && c >= 0 && c <= 1000) ? (int)c : GRPC_UNKNOWN;
            } else if ((size_t)(colon - p) == 12 && strncasecmp(p, "grpc-message", 12) == 0) {
                unpercent(st->message, sizeof(st->message), v, vn);
            }
        }
        p = eol ? eol + 1 : end;
    }
}

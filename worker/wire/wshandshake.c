/* wshandshake — the opening handshake of a WebSocket client (wshandshake.h). */
#include "worker/wire/wshandshake.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"

static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

void wshandshake_key(const uint8_t rnd[16], char key[WSHANDSHAKE_KEY_LEN + 1])
{
    EVP_EncodeBlock((unsigned char *)key, rnd, 16);
}

void wshandshake_accept(const char *key, char accept[29])
{
    unsigned char md[SHA_DIGEST_LENGTH];
    char in[128];
    int n = snprintf(in, sizeof(in), "%s%s", key, ws_guid);

    SHA1((const unsigned char *)in, n > 0 && (size_t)n < sizeof(in) ? (size_t)n : 0, md);
    EVP_EncodeBlock((unsigned char *)accept, md, SHA_DIGEST_LENGTH);
}

int wshandshake_request(char *out, size_t cap, const char *host, const char *path, const char *key,
                        const char *protocols, const char *extra)
{
    int n = snprintf(out, cap,
                     "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s%s%s%s\r\n",
                     path, host, key, protocols && *protocols ? "Sec-WebSocket-Protocol: " : "",
                     protocols && *protocols ? protocols : "",
                     protocols && *protocols ? "\r\n" : "", extra ? extra : "");
    return n > 0 && (size_t)n < cap ? n : -1;
}

/* 1 when the comma-separated list v (n bytes) holds token, case aside. */
static int has_token(const char *v, size_t n, const char *token)
{
    size_t tl = strlen(token);

    while (n > 0) {
        size_t i = 0, e;
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        v += i;
        n -= i;
        for (e = 0; e < n && v[e] != ','; e++)
            ;
        i = e;
        while (i > 0 && (v[i - 1] == ' ' || v[i - 1] == '\t'))
            i--;
        if (i == tl && strncasecmp(v, token, tl) == 0)
            return 1;
        v += e;
        n -= e;
    }
    return 0;
}

/* The value of the header line at p (n bytes, no CRLF) if its name is name:
 * its start in *val and length in *vn, trimmed; 0 if another header. */
static int header_is(const char *p, size_t n, const char *name, const char **val, size_t *vn)
{
    size_t nl = strlen(name);

    if (n <= nl || p[nl] != ':' || strncasecmp(p, name, nl) != 0)
        return 0;
    p += nl + 1;
    n -= nl + 1;
    while (n > 0 && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    *val = p;
    *vn = n;
    return 1;
}

/* The end of the headers (past the empty line) in buf, 0 if not there yet. */
static size_t headers_end(const char *buf, size_t len)
{
    for (size_t i = 0; i + 3 < len; i++)
        if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n')
            return i + 4;
    return 0;
}

int wshandshake_parse(const char *buf, size_t len, const char *key, wshandshake_res *res, char *err,
                      size_t errlen)
{
    size_t end = headers_end(buf, len < WSHANDSHAKE_MAX ? len : WSHANDSHAKE_MAX);
    const char *p = buf, *nl, *val;
    size_t vn;
    int upgrade = 0, connection = 0, accepted = 0, status;
    char want[29];

    memset(res, 0, sizeof(*res));
    if (end == 0) {
        if (len < WSHANDSHAKE_MAX)
            return 0;
        err_set(err, errlen, "WebSocket handshake: the answer's headers exceed %d bytes",
                WSHANDSHAKE_MAX);
        return -1;
    }
    if (end < 12 || strncmp(buf, "HTTP/1.1 ", 9) != 0 || buf[9] < '1' || buf[9] > '5' ||
        buf[10] < '0' || buf[10] > '9' || buf[11] < '0' || buf[11] > '9') {
        err_set(err, errlen, "WebSocket handshake: not an HTTP/1.1 answer");
        return -1;
    }
    status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    res->status = status;
    if (status != 101) {
        err_set(err, errlen, "WebSocket handshake: HTTP status %d", status);
        return -1;
    }
    wshandshake_accept(key, want);
    nl = memchr(p, '\n', end);
    while (nl != NULL && (size_t)(nl + 1 - buf) < end) {
        const char *line = nl + 1;
        const char *next = memchr(line, '\n', end - (size_t)(line - buf));
        size_t ln = next != NULL ? (size_t)(next - line) : 0;
        if (ln > 0 && line[ln - 1] == '\r')
            ln--;
        if (header_is(line, ln, "Upgrade", &val, &vn))
            upgrade |= has_token(val, vn, "websocket");
        else if (header_is(line, ln, "Connection", &val, &vn))
            connection |= has_token(val, vn, "upgrade");
        else if (header_is(line, ln, "Sec-WebSocket-Accept", &val, &vn))
            accepted = vn == 28 && memcmp(val, want, 28) == 0;
        else if (header_is(line, ln, "Sec-WebSocket-Protocol", &val, &vn))
            snprintf(res->protocol, sizeof(res->protocol), "%.*s", (int)vn, val);
        nl = next;
    }
    if (!upgrade || !connection) {
        err_set(err, errlen, "WebSocket handshake: 101 without Upgrade: websocket");
        return -1;
    }
    if (!accepted) {
        err_set(err, errlen, "WebSocket handshake: wrong Sec-WebSocket-Accept");
        return -1;
    }
    return (int)end;
}

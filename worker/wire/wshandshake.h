/* wshandshake — the opening handshake of a WebSocket client (RFC 6455 4.1):
 * the upgrade request it sends and the checks of the server's answer.
 *
 * What it is for: libcurl (7.88, built without WebSocket) only connects
 * (CURLOPT_CONNECT_ONLY); the HTTP exchange that turns the connection into a
 * WebSocket is written and read here, without I/O, so that it can be tested
 * and fuzzed alone. The frames that follow are wslay's (websocket.h).
 *
 * Use:
 *     wshandshake_key(random16, key);                     // Sec-WebSocket-Key
 *     n = wshandshake_request(out, cap, host, path, key, protocols, extra);
 *     ... send out, read into buf ...
 *     rc = wshandshake_parse(buf, len, key, &res, err, sizeof(err));
 *     // 0: read more; > 0: the answer's length (bytes after it are frames);
 *     // -1: refused or malformed, res.status and err say why
 * Internal to worker/. */
#ifndef QUERN_WSHANDSHAKE_H
#define QUERN_WSHANDSHAKE_H

#include <stddef.h>
#include <stdint.h>

#define WSHANDSHAKE_KEY_LEN 24      /* base64 of 16 bytes */
#define WSHANDSHAKE_MAX 16384       /* bytes an answer's status line and headers may take */
#define WSHANDSHAKE_PROTOCOL_MAX 64 /* bytes kept of the protocol the server chose */

/** What the server's answer said. */
typedef struct wshandshake_res {
    int status;                              /**< its HTTP status, 0 before a status line */
    char protocol[WSHANDSHAKE_PROTOCOL_MAX]; /**< Sec-WebSocket-Protocol, "" if none */
} wshandshake_res;

/** Writes the Sec-WebSocket-Key made of the 16 bytes rnd into key (NUL-ended). */
void wshandshake_key(const uint8_t rnd[16], char key[WSHANDSHAKE_KEY_LEN + 1]);
/** Writes the Sec-WebSocket-Accept a server must answer key with into
 *  accept (28 characters, NUL-ended). */
void wshandshake_accept(const char *key, char accept[29]);
/** Writes the upgrade request into out: GET path, Host host, key, the
 *  protocols asked for (comma-separated, NULL or "": none) and extra (header
 *  lines, each ending in CRLF, NULL: none). Returns its length, or -1 when
 *  it does not fit in cap. */
int wshandshake_request(char *out, size_t cap, const char *host, const char *path, const char *key,
                        const char *protocols, const char *extra);
/** Reads the answer at buf (len bytes so far) to the request made with key:
 *  0 when its headers are not all in yet (and len < WSHANDSHAKE_MAX), its
 *  length when it is a valid 101 switch (status, Upgrade, Connection and
 *  Sec-WebSocket-Accept checked), -1 with the reason in err otherwise. */
int wshandshake_parse(const char *buf, size_t len, const char *key, wshandshake_res *res, char *err,
                      size_t errlen);

#endif

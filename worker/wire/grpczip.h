/* grpczip — gzip, the one gRPC message compression quern speaks: a message
 * deflated before it is framed with the compressed flag, and one received
 * with the flag inflated, never past a bound.
 *
 * What it is for: a call with `compression = "gzip"` sends `grpc-encoding:
 * gzip` and each message gzipped (lgrpc.c, lgstream.c); every call offers
 * `grpc-accept-encoding: gzip`, and a reply's messages flagged compressed
 * under `grpc-encoding: gzip` are inflated before they are decoded. A
 * message that inflates past its bound (a zip bomb) is an error, found
 * when the bound is reached: memory never holds more than the bound.
 *
 * A context keeps zlib's two streams (some 300 KiB of state) and one output
 * buffer, reset for each message: made once per Lua state, not per message.
 * The buffer is the context's, valid until its next call; it grows to the
 * largest message seen (GRPC_MSG_MAX and zlib's margin at most).
 *
 * Usage:
 *     grpczip *z = grpczip_new();
 *     if (grpczip_deflate(z, msg, n, &out, &outlen, err, sizeof(err)) != 0) ...
 *     if (grpczip_inflate(z, in, n, GRPC_MSG_MAX, &out, &outlen, err, sizeof(err)) != 0) ...
 *     grpczip_free(z);
 * Internal to worker/. */
#ifndef QUERN_GRPCZIP_H
#define QUERN_GRPCZIP_H

#include <stddef.h>
#include <stdint.h>

/** The compression state, opaque. */
typedef struct grpczip grpczip;

/** A new context (aborts when zlib cannot make its streams: no memory). */
grpczip *grpczip_new(void);
/** Frees z; NULL is fine. */
void grpczip_free(grpczip *z);
/** The gzip of the n bytes at in: 0 with *out (z's buffer) and *outlen set,
 *  -1 with err set. */
int grpczip_deflate(grpczip *z, const uint8_t *in, size_t n, const uint8_t **out, size_t *outlen,
                    char *err, size_t errlen);
/** The n bytes at in, gzip, inflated: 0 with *out (z's buffer) and *outlen
 *  set; -1 with err set when they are not gzip or are cut short, -2 when
 *  they would inflate to more than max bytes (found at max + 1: the buffer
 *  never holds more). */
int grpczip_inflate(grpczip *z, const uint8_t *in, size_t n, size_t max, const uint8_t **out,
                    size_t *outlen, char *err, size_t errlen);

#endif

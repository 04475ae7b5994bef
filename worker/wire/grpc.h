/* grpc — the gRPC-over-HTTP/2 protocol pieces that need no I/O: the
 * length-prefixed message framing, status codes and names, the grpc-timeout
 * header, the status an HTTP or transport failure maps to, grpc-status /
 * grpc-message found in a response's headers or trailers, and which
 * metadata keys are binary (-bin).
 *
 * What it is for: a gRPC step (worker/lgrpc) is an HTTP/2 POST on the VU's
 * libcurl handle; these functions build its body and read its answer, and
 * can be tested alone.
 *
 * Usage:
 *     grpc_frame_header(hdr, msglen, 0);              // 5 bytes before the message
 *     const uint8_t *m; size_t n; size_t used; int z;
 *     while ((k = grpc_frame_next(body, len, &used, &m, &n, &z, err, sizeof(err))) > 0) ...
 *     grpc_status st; grpc_status_read(hdrs, hlen, &st);   // st.code, st.message */
#ifndef QUERN_GRPC_H
#define QUERN_GRPC_H

#include <stddef.h>
#include <stdint.h>

/** gRPC status codes (the ones this file names; any 0..16 is valid). */
enum {
    GRPC_OK = 0,
    GRPC_CANCELLED = 1,
    GRPC_UNKNOWN = 2,
    GRPC_DEADLINE_EXCEEDED = 4,
    GRPC_PERMISSION_DENIED = 7,
    GRPC_RESOURCE_EXHAUSTED = 8,
    GRPC_UNIMPLEMENTED = 12,
    GRPC_INTERNAL = 13,
    GRPC_UNAVAILABLE = 14,
    GRPC_UNAUTHENTICATED = 16,
};

/** Largest message a reply may carry (bytes). */
#define GRPC_MSG_MAX (4u << 20)

/** The status of a call as its trailers (or headers) gave it. */
typedef struct grpc_status {
    int found;         /**< 1 if grpc-status was there */
    int code;          /**< its value (GRPC_UNKNOWN if it was not a number) */
    char message[160]; /**< grpc-message, percent-decoded, cut to fit */
} grpc_status;

/** The name of status code ("OK", "NOT_FOUND", ...); "UNKNOWN" past 16. */
const char *grpc_status_name(int code);
/** The code of a status name, -1 if none. */
int grpc_status_code(const char *name);
/** The status a non-200 HTTP status maps to (the gRPC spec's table). */
int grpc_from_http(long http_status);
/** Message encodings of grpc-encoding that quern reads. */
enum { GRPC_ENC_IDENTITY = 0, GRPC_ENC_GZIP = 1 };

/** Writes the 5-byte prefix of a message of len bytes, compressed (1) or
 *  not (0). */
void grpc_frame_header(uint8_t out[5], uint32_t len, int compressed);
/** Reads the next message from body[*used..len): 1 with *msg, *n, its
 *  compressed flag *compressed (0 or 1) set and *used advanced; 0 when
 *  nothing is left; -1 with err set when the rest is a partial frame, has
 *  a flag other than 0 and 1, or is larger than GRPC_MSG_MAX. */
int grpc_frame_next(const uint8_t *body, size_t len, size_t *used, const uint8_t **msg, size_t *n,
                    int *compressed, char *err, size_t errlen);
/** The grpc-encoding of raw header lines: GRPC_ENC_IDENTITY when there is
 *  none or it is "identity", GRPC_ENC_GZIP for "gzip", -1 for another. */
int grpc_encoding_read(const char *hdr, size_t len);
/** 1 when the metadata key of n bytes ends in "-bin" (any case): its
 *  values are binary, base64 on the wire. */
int grpc_bin_key(const char *name, size_t n);
/** Formats a grpc-timeout value for us microseconds ("250m", "3S"): at
 *  most 8 digits, the finest unit that fits. Writes at most 16 bytes. */
void grpc_timeout(char out[16], int64_t us);
/** Reads grpc-status and grpc-message from raw header lines ("name:
 *  value\r\n", headers then trailers; the last of each wins). */
void grpc_status_read(const char *hdr, size_t len, grpc_status *st);

#endif

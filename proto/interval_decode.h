/* interval_decode — an Envelope carrying an Interval decoded without copying.
 *
 * What it is for: the console receives an Interval from every agent every
 * second (50 steps of counts and encoded histograms each); protobuf-c's
 * unpack allocates and copies every step, every histogram and every string
 * of them, and frees them all again, which cost the console more than the
 * merge itself. interval_decode reads the wire format of that one message into
 * protobuf-c's own structs, whose histograms point into the frame it was
 * given: three allocations a message instead of a few hundred.
 *
 * It reads only what it knows: an Envelope holding only an Interval, whose
 * fields, steps (and their slowest samples), scenarios, injector entries,
 * checks and metrics are those of quern.proto
 * with their declared wire types, in any order. Anything else (another
 * message, an unknown field, a status list, a malformed or truncated
 * encoding) is left to protobuf-c (interval_decode_envelope returns 0), which also
 * judges what is malformed: the two agree on every message interval_decode takes.
 *
 * Usage:
 *     interval_decode d;
 *     if (interval_decode_envelope(body, len, &d) == 1) { use d.env; interval_decode_free(&d); }
 *     else env = quern__envelope__unpack(NULL, len, body);
 * d.env and everything it points to borrow body (which must stay unchanged
 * until interval_decode_free); the strings are copies (NUL-terminated, as
 * protobuf-c's: cut at an embedded NUL when read as C strings). */
#ifndef QUERN_INTERVAL_DECODE_H
#define QUERN_INTERVAL_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/quern.pb-c.h"

/** One decoded Envelope; every pointer inside env is into block or body. */
typedef struct interval_decode {
    Quern__Envelope env; /**< body_case QUERN__ENVELOPE__BODY_INTERVAL, interval = &iv */
    Quern__Interval iv;  /**< its lists (steps, scenarios, injector, checks, metrics) point into
                              block */
    void *block;         /**< owned: the arrays of structs and pointers, and the strings */
} interval_decode;

/** Decodes len bytes of body when they are an Envelope interval_decode reads:
 *  returns 1 with *d filled (release it with interval_decode_free), 0 when they are
 *  not (*d then holds nothing: unpack them with protobuf-c). */
int interval_decode_envelope(uint8_t *body, size_t len, interval_decode *d);
/** Releases what d holds; a zeroed d is fine. */
void interval_decode_free(interval_decode *d);

#endif

/* pbwire — the protobuf wire format read one field at a time.
 *
 * What it is for: the descriptor set (worker/pbschema) and the messages
 * (worker/pbcodec) are both read field by field from untrusted bytes; each
 * read checks the bounds, so a truncated or malformed input is an error,
 * never a read past the end. Groups (wire types 3 and 4) are refused.
 *
 * Usage:
 *     pbwire r = {p, p + len};
 *     pbwire_field f;
 *     int k;
 *     while ((k = pbwire_next(&r, &f)) > 0) ... f.num, f.wt, f.v or f.p/f.n
 *     if (k < 0) ... malformed */
#ifndef QUERN_PBWIRE_H
#define QUERN_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

/** One field read: its number, wire type and value. */
typedef struct pbwire_field {
    uint32_t num;     /**< field number, 1 .. 2^29 - 1 */
    int wt;           /**< wire type: 0 varint, 1 64-bit, 2 length-delimited, 5 32-bit */
    uint64_t v;       /**< the varint or fixed value (the length for wire type 2) */
    const uint8_t *p; /**< borrowed: the bytes of a length-delimited field */
    size_t n;         /**< their count */
} pbwire_field;

/** A reader over borrowed bytes [p, end). */
typedef struct pbwire {
    const uint8_t *p;   /**< borrowed: next byte */
    const uint8_t *end; /**< borrowed: one past the last */
} pbwire;

/** Reads a varint into v; 0 if truncated or longer than 10 bytes. */
int pbwire_varint(pbwire *r, uint64_t *v);
/** Reads the next field into f: 1 read, 0 at the end, -1 malformed. */
int pbwire_next(pbwire *r, pbwire_field *f);

#endif

/* pbcodec — protobuf messages from Lua tables and back, driven by a
 * pbschema (worker/pbschema), with no generated code.
 *
 * The Lua form of a message is a table keyed by field name: integers of
 * every width are Lua integers (uint64 and fixed64 above 2^63 - 1 come back
 * negative, their bits unchanged), float and double are numbers, bool a
 * boolean, string and bytes a string, an enum its value's name (a number
 * the schema does not know stays a number; either is accepted when
 * encoding), a repeated field a sequence, a map a table, a nested message a
 * table; of a oneof, the one member set is there. Decoding fills the fields
 * without presence (proto3 scalars, repeated, maps) with their default, so a
 * script reads 0 rather than nil; fields the schema does not know are
 * skipped. Encoding refuses a field name the message does not have, naming
 * it.
 *
 * Usage:
 *     pbbuf b = {0};
 *     if (pbcodec_encode(L, idx, s, msg, &b, err, sizeof(err)) != 0) ...
 *     send(b.p, b.len); pbbuf_free(&b);
 *     if (pbcodec_decode(L, s, msg, data, len, err, sizeof(err)) != 0) ...  // pushes a table */
#ifndef QUERN_PBCODEC_H
#define QUERN_PBCODEC_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/wire/pbschema.h"

/** Largest encoded message (bytes): gRPC's usual default limit. */
#define PBCODEC_MAX_SIZE (4u << 20)
/** Deepest nesting of messages the codec follows. */
#define PBCODEC_MAX_DEPTH 64

/** A growing buffer of bytes, at most PBCODEC_MAX_SIZE. */
typedef struct pbbuf {
    uint8_t *p; /**< owned */
    size_t len; /**< bytes used */
    size_t cap; /**< bytes allocated */
} pbbuf;

/** Frees b's bytes and empties it. */
void pbbuf_free(pbbuf *b);

/** Appends the encoding of the Lua table at idx as message msg of s to b;
 *  returns 0, or -1 with the reason in err ("unknown field 'x' in pkg.Req",
 *  a value of the wrong type, too large). Never raises a Lua error. */
int pbcodec_encode(lua_State *L, int idx, const pbschema *s, int msg, pbbuf *b, char *err,
                   size_t errlen);
/** Pushes the Lua table of message msg of s read from p (len bytes);
 *  returns 0, or -1 having pushed nothing with the reason in err
 *  (truncated, malformed, too deep). */
int pbcodec_decode(lua_State *L, const pbschema *s, int msg, const uint8_t *p, size_t len,
                   char *err, size_t errlen);

#endif

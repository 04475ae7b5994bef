/* ljson — JSON to Lua values and back, with jansson; and quern.json.
 *
 * Decoding: objects become tables with string keys, arrays sequences
 * (1-based); null becomes quern.json.null, or nil with ljson_decode's flags
 * 0 (r:json()'s default, which loses an object's key and leaves a hole in
 * an array). Every decoded table carries the marker of its kind (the
 * metatable of quern.json.array or quern.json.object), so that a decoded
 * value encodes back to the same shapes, `[]` and `{}` included.
 *
 * Encoding: a table marked quern.json.array is an array, one marked
 * quern.json.object an object (number keys written as strings); an
 * unmarked table whose keys are all positive integers is an array, one
 * whose keys are all strings an object, an empty one `{}`. Array holes are
 * written as null; quern.json.null is null. A value JSON cannot carry (a
 * function, a userdata, NaN or infinity, a string that is not UTF-8, a
 * cycle, a table mixing indices and string keys, an array more than half
 * holes past index 16) raises an error naming its path (`$.items[2].id`,
 * Lua indices). Both directions nest at most LJSON_DEPTH_MAX deep.
 *
 * Use: ljson_decode() for r:json() (lresponse.c), ljson_encode() for a
 * request's json = ... body (lhttp.c), ljson_register() for quern.json
 * (lquern.c). Internal to worker/. */
#ifndef QUERN_LJSON_H
#define QUERN_LJSON_H

#include <lua.h>
#include <stddef.h>

/** Deepest nesting of arrays and objects either way. */
#define LJSON_DEPTH_MAX 128

/** ljson_decode's flag: JSON null becomes quern.json.null, not nil. */
#define LJSON_NULL 1

/** Pushes the Lua value of JSON text s (len bytes); on a parse error pushes
 *  nothing and writes the reason, with its line and column, in err; returns
 *  1 pushed, 0 error. flags: 0 or LJSON_NULL. */
int ljson_decode(lua_State *L, const char *s, size_t len, int flags, char *err, size_t errlen);
/** Encodes the Lua value at idx as compact JSON onto the stack as a string;
 *  raises a Lua error ("json: $.path: ...") on a value JSON cannot carry. */
void ljson_encode(lua_State *L, int idx);
/** Sets the table json (encode, decode, null, array, object) into the table
 *  at idx. */
void ljson_register(lua_State *L, int idx);

#endif

/* ljson — JSON to Lua values and back, with jansson.
 *
 * Objects become tables with string keys, arrays become sequences (1-based),
 * null becomes nil. A Lua table whose keys are exactly 1..n (n > 0) is an
 * array; any other table is an object; an empty table is an empty object.
 *
 * Use: ljson_decode() for r:json(), ljson_encode() for a request's
 * json = ... body (both in lhttp.c). Internal to worker/. */
#ifndef QUERN_LJSON_H
#define QUERN_LJSON_H

#include <lua.h>
#include <stddef.h>

/** Pushes the Lua value of JSON text s (len bytes); on a parse error pushes
 *  nothing and writes the reason in err; returns 1 pushed, 0 error. */
int ljson_decode(lua_State *L, const char *s, size_t len, char *err, size_t errlen);
/** Encodes the Lua value at idx as JSON onto the stack as a string; raises a
 *  Lua error on a value JSON cannot carry. */
void ljson_encode(lua_State *L, int idx);

#endif

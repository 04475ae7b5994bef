/* setupdata — what a scenario's setup returned, on its way to every VU.
 *
 * The console runs each scenario's setup once (worker/engine/lifecycle.h) and
 * encodes what they returned as one JSON object, scenario name -> value, of
 * at most SETUPDATA_MAX bytes; StartRun carries it to every worker, which
 * decodes it once into read-only tables shared by all its VUs (vu.setup) and
 * given to teardown.
 *
 * Use: setupdata_encode(L, idx, ...) on the console; setupdata_decode(L, s,
 * len, ...) in each worker, then lua_getfield(L, -1, scenario name). The
 * tables it pushes raise "vu.setup is read-only" at the writer's line.
 * Internal to worker/. */
#ifndef QUERN_SETUPDATA_H
#define QUERN_SETUPDATA_H

#include <lua.h>
#include <stddef.h>

/** Largest encoded setup data, in bytes (1 MiB). */
#define SETUPDATA_MAX (1u << 20)

/** Encodes the value at idx (strings, numbers, booleans, nested tables) as
 *  JSON into *out (owned by the caller, xfree) and *len. Returns 0, or -1
 *  with the reason in err (a value JSON cannot carry, or more than
 *  SETUPDATA_MAX bytes). The stack is left as it was. */
int setupdata_encode(lua_State *L, int idx, char **out, size_t *len, char *err, size_t errlen);

/** Pushes the read-only table of JSON text s (len bytes, an object).
 *  Returns 1, or 0 with nothing pushed and the reason in err. */
int setupdata_decode(lua_State *L, const char *s, size_t len, char *err, size_t errlen);

/** Replaces the table at idx, and every table in it, by a read-only proxy:
 *  reads, #, pairs and ipairs see the values, a write raises an error.
 *  Returns 0, or -1 when they nest deeper than 64 (what setupdata_encode
 *  refuses too), the table then partly frozen. */
int setupdata_freeze(lua_State *L, int idx);

#endif

/* lmetric — custom metrics: quern.metric.counter(name), .gauge(name) and
 * .trend(name), declared when the script loads, and their objects' methods
 * counter:add(n), gauge:set(v), trend:add(v) (common/tally.h).
 *
 * A metric object holds its index in the engine's tally: recording is a
 * check of the number and one store, no name looked up. Declaring from a VU,
 * a bad name, another kind under a name already declared, or more than
 * TALLY_METRICS_MAX metrics raise at the declaration (file:line); the same
 * name declared again with the same kind gives the same metric.
 *
 * Use: lmetric_register(L, idx) sets quern.metric into the module table at
 * idx and creates the objects' metatable. Internal to worker/. */
#ifndef QUERN_LMETRIC_H
#define QUERN_LMETRIC_H

#include <lua.h>

/** Sets quern.metric (its counter, gauge and trend) into the table at idx. */
void lmetric_register(lua_State *L, int idx);

#endif

/* lquern — the `quern` module scripts require: quern.scenario (with
 * sc:step), quern.threshold, quern.property, quern.sleep, quern.log,
 * quern.csv (lcsv.h), quern.json (ljson.h), quern.crypto (lcrypto.h),
 * quern.base64 and its kin (lcodec.h), quern.version and quern.vus; and the Step objects with
 * their fields (id, label, name, number), step:time(fn) and the request
 * methods lhttp.h adds to them.
 *
 * Scenarios, steps and thresholds are declared while the script loads
 * (lscript.h) and recorded in the engine's scen_set; declaring one from a VU
 * is an error.
 *
 * Use: lscript.h files lquern_open as the loader of "quern" and calls
 * lquern_metatables once; lhttp.c reads the Step a request method is called
 * on with lquern_step_index / lquern_vu_step. Internal to worker/. */
#ifndef QUERN_LQUERN_H
#define QUERN_LQUERN_H

#include <lua.h>

struct vu;

/** Loader of the `quern` module (for package.preload). */
int lquern_open(lua_State *L);
/** Creates the metatables of scenarios and steps (the step methods of
 *  lhttp.h and step:time included). */
void lquern_metatables(lua_State *L);

/** Step index of the Step userdata at idx (raises if it is not a step). */
int lquern_step_index(lua_State *L, int idx);
/** The same for a step VU v records into, called from the C function the
 *  script called: raises "file:line: step SC-B-STEP-1 belongs to scenario B;
 *  this VU runs scenario A" when the step is another scenario's. */
int lquern_vu_step(lua_State *L, const struct vu *v, int idx);

#endif

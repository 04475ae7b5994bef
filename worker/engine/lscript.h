/* lscript — the script in the engine: creates the worker's Lua state, runs
 * the scenario script in it once (which declares scenarios, steps and
 * thresholds through the quern module, lquern.h) and checks what it
 * declared.
 *
 * Scripts run in one lua_State per worker; each VU is a thread of it whose
 * extra space points back at its struct vu (see vu_current), driven by
 * lcoro.h. Messages name a script's files by the tester's paths, not the
 * agent's unpacked copy, and `require` finds the script's own modules first.
 *
 * Use: lscript_load() once, from engine_new; the state is then e->L.
 * Internal to worker/. */
#ifndef QUERN_LSCRIPT_H
#define QUERN_LSCRIPT_H

#include <lua.h>
#include <stddef.h>

struct engine;

/** Creates the engine's Lua state with the quern modules, runs the script
 *  (declaring scenarios and steps) and checks what it declared. 0 ok; -1 with
 *  "file:line: message" in err. */
int lscript_load(struct engine *e, char *err, size_t errlen);

/** The folder of the main script as this process sees it (files of the
 *  bundle are read from there). */
const char *lscript_dir(lua_State *L);

/** Pushes onto L the text of the error object at idx and returns it: a
 *  string as is, anything else through its __tostring under protection,
 *  else "(error object is a T value)". Pop it when done. */
const char *lscript_errtext(lua_State *L, int idx);

#endif

/* lifecycle — a scenario's setup and teardown, once per run.
 *
 * sc.setup() runs once before the first VU anywhere starts, sc.teardown(data)
 * once after the last one ended. The console plays them in its own process
 * (agent/setuprun.h) with an engine in a mode of its own (engine_cfg.life):
 * one VU per scenario that has the function, running it instead of the load,
 * with the same steps and quern.http as init, and no statistics kept. A Lua
 * error, a failed check, or a request that fails (no response, or a status
 * of 400 or more) ends that VU's function with one "file:line: message".
 *
 * What setup returned travels as JSON (setupdata.h) in StartRun; each engine
 * decodes it once (lifecycle_load_data) and every VU table gets its
 * scenario's part as vu.setup, read-only (lcoro.h).
 *
 * Internal to worker/, but for lifecycle_has and lifecycle_result, which the
 * agent's setuprun.h calls. */
#ifndef QUERN_LIFECYCLE_H
#define QUERN_LIFECYCLE_H

#include <stddef.h>

#include "worker/engine/engine.h"

/* A Lua thread, lua.h's type: the header is the Lua rooms' to include. */
struct lua_State;

struct vu;

/** How long a setup or a teardown may take, in microseconds (60 s). */
#define LIFECYCLE_MAX_US 60000000

/** The name of the function the engine's mode plays ("setup", "teardown"). */
const char *lifecycle_fn(const engine *e);
/** How many of the loaded script's scenarios have function which. */
size_t lifecycle_has(const engine *e, enum engine_life which);

/** Decodes cfg.setup_data (if any) into the engine's read-only table.
 *  0, or -1 with the reason in err. */
int lifecycle_load_data(engine *e, char *err, size_t errlen);
/** Pushes onto L the VU's scenario's part of the setup data, or nil. */
void lifecycle_push_setup(struct lua_State *L, const struct vu *v);

/** Setup and teardown mode: one VU per scenario with the function. 0, or -1
 *  with the reason in err. */
int lifecycle_make_vus(engine *e, char *err, size_t errlen);
/** The VU's function returned nres values on co: setup keeps the first. */
void lifecycle_returned(struct vu *v, struct lua_State *co, int nres);
/** The VU's function failed with msg ("file:line: ..."); the first is kept. */
void lifecycle_failed(struct vu *v, const char *msg);
/** After the VU's transfer: when it failed, ends the VU's function with
 *  that error at the request's line and returns 1; else 0. */
int lifecycle_xfer_failed(struct vu *v);

/** After engine_run: 0, with what setup returned as JSON in *json (owned
 *  by the caller, NULL when no setup returned anything) and *len; or -1
 *  with the first error in err. */
int lifecycle_result(engine *e, char **json, size_t *len, char *err, size_t errlen);

#endif

/* lquern — the Lua side of the worker: the `quern` module, scenario and step
 * declarations, loading the script, and resuming VU coroutines.
 *
 * Scripts run in one lua_State per worker; each VU is a thread of it whose
 * extra space points back at its struct vu (see vu_current). Internal to
 * worker/. */
#ifndef QUERN_LQUERN_H
#define QUERN_LQUERN_H

#include <lua.h>
#include <stddef.h>

#include "common/version.h"

struct engine;
struct vu;


/** Lua 5.4.4 (Debian 12) has lua_resetthread; lua_closethread came in 5.4.6. */
#if LUA_VERSION_RELEASE_NUM >= 50406
#define lua_closethread_compat(co) lua_closethread((co), NULL)
#else
#define lua_closethread_compat(co) lua_resetthread(co)
#endif

/** Creates the engine's Lua state with the quern modules, runs the script
 *  (declaring scenarios and steps) and checks what it declared. 0 ok; -1 with
 *  "file:line: message" in err. */
int lquern_load(struct engine *e, char *err, size_t errlen);
/** Creates the table given to a VU's init/run/finish; returns its registry ref. */
int lquern_new_vu_table(lua_State *L, struct vu *v);
/** Pushes the scenario's function fn and the vu table onto the VU's thread;
 *  0 when the scenario has no such function (nothing pushed). */
int lquern_push_phase(struct vu *v, const char *fn);
/** Resumes the VU's thread with nargs values on it, and handles the outcome:
 *  a yield waits, a return or an error ends the phase. */
void lquern_resume(struct vu *v, int nargs);
/** For the functions that make a VU wait (a request, a sleep, a think
 *  time): when the VU is halting (vu.h), yields without starting the wait,
 *  and lquern_resume then ends the phase (vu_halt). Returns what the C
 *  function returns. */
int lquern_halt(lua_State *L, struct vu *v);
/** Parses a duration argument (string "2s", number of seconds) at idx into
 *  microseconds, raising a Lua error naming what on failure. */
int64_t lquern_check_duration(lua_State *L, int idx, const char *what);

/** The folder of the main script as this process sees it (files of the
 *  bundle are read from there). */
const char *lquern_script_dir(lua_State *L);
/** Step index of the Step userdata at idx (raises if it is not a step). */
int lquern_step_index(lua_State *L, int idx);
/** The same for a step VU v records into, called from the C function the
 *  script called: raises "file:line: step SC-B-STEP-1 belongs to scenario B;
 *  this VU runs scenario A" when the step is another scenario's. */
int lquern_vu_step(lua_State *L, const struct vu *v, int idx);

/** luaL_newmetatable that also files the metatable under key (an address),
 *  for lquern_checkud and lquern_setmt. Leaves it on the stack. */
void lquern_newmt(lua_State *L, const void *key, const char *tname);
/** luaL_checkudata with the metatable found by address, not by name: the
 *  checks run several times per request. */
void *lquern_checkud(lua_State *L, int idx, const void *key, const char *tname);
/** The start of an __index closure over a methods table (upvalue 1): if
 *  argument 2 names a method, pushes it and returns NULL; else returns the
 *  userdata at 1 (checked as lquern_checkud) and the field's name in *k. */
void *lquern_index(lua_State *L, const void *key, const char *tname, const char **k);
/** luaL_setmetatable, by address. */
void lquern_setmt(lua_State *L, const void *key);

/* lhttp.c */
/** Registers the `quern.http` module loader and the step request methods
 *  into the methods table at index methods. */
void lhttp_register(lua_State *L, int methods);
/** Loader of `quern.http`. */
int lhttp_open(lua_State *L);

/* lvu.c */
/** Pushes the metatable of vu tables (methods: cookies, add_cookie, ...). */
void lvu_push_metatable(lua_State *L);

/* ljson.c */
/** Pushes the Lua value of JSON text s (len bytes); on a parse error pushes
 *  nothing and writes the reason in err; returns 1 pushed, 0 error. */
int ljson_decode(lua_State *L, const char *s, size_t len, char *err, size_t errlen);
/** Encodes the Lua value at idx as JSON onto the stack as a string; raises a
 *  Lua error on a value JSON cannot carry. */
void ljson_encode(lua_State *L, int idx);

/* lcsv.c */
/** quern.csv(path, opts): reads a CSV file at load time and returns a feeder
 *  (methods next, count, row); see docs/scenarios.md, "Data feeders". */
int lcsv_new(lua_State *L);

/* lxml.c */
/** Evaluates an XPath expression on an XML or HTML document; pushes the first
 *  result (all == 0) or a table of all results (all == 1); 1 ok, 0 with err. */
int lxml_xpath(lua_State *L, const char *doc, size_t len, int html, const char *expr, int all,
               char *err, size_t errlen);

#endif

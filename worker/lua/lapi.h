/* lapi — the few helpers every Lua binding of the worker shares.
 *
 * What it is for: the bindings (lquern, lhttp, lcookies, lcsv, ...) check
 * their userdata, read the engine the script runs in, parse duration
 * arguments and make a VU wait in the same way; those helpers live here, and
 * nothing else does. The engine's Lua state is made by lscript.h; VU threads
 * are driven by lcoro.h.
 *
 * Use: create a binding's metatable once with lapi_newmt(L, &key, "quern.X")
 * (key is the address of a file-local static), set it on new userdata with
 * lapi_setmt(L, &key) and check arguments with lapi_checkud(L, i, &key,
 * "quern.X"): the metatable is found by address, which is cheaper than by
 * name on the hot path. Internal to worker/. */
#ifndef QUERN_LAPI_H
#define QUERN_LAPI_H

#include <lua.h>
#include <stdint.h>

struct engine;
struct vu;

/** Lua 5.4.4 (Debian 12) has lua_resetthread; lua_closethread came in 5.4.6. */
#if LUA_VERSION_RELEASE_NUM >= 50406
#define lua_closethread_compat(co) lua_closethread((co), NULL)
#else
#define lua_closethread_compat(co) lua_resetthread(co)
#endif

/** Files e (borrowed) in L's registry, for lapi_engine. */
void lapi_set_engine(lua_State *L, struct engine *e);
/** The engine L (or a thread of it) belongs to (borrowed). */
struct engine *lapi_engine(lua_State *L);

/** luaL_newmetatable that also files the metatable under key (an address),
 *  for lapi_checkud and lapi_setmt. Leaves it on the stack. */
void lapi_newmt(lua_State *L, const void *key, const char *tname);
/** luaL_checkudata with the metatable found by address, not by name: the
 *  checks run several times per request. */
void *lapi_checkud(lua_State *L, int idx, const void *key, const char *tname);
/** The start of an __index closure over a methods table (upvalue 1): if
 *  argument 2 names a method, pushes it and returns NULL; else returns the
 *  userdata at 1 (checked as lapi_checkud) and the field's name in *k. */
void *lapi_index(lua_State *L, const void *key, const char *tname, const char **k);
/** luaL_setmetatable, by address. */
void lapi_setmt(lua_State *L, const void *key);

/** Parses a duration argument (string "2s", number of seconds) at idx into
 *  microseconds, raising a Lua error naming what on failure. */
int64_t lapi_check_duration(lua_State *L, int idx, const char *what);

/** For the functions that make a VU wait (a request, a sleep, a think
 *  time): when the VU is halting (vu.h), yields without starting the wait,
 *  and lcoro_resume then ends the phase (vu_halt). Returns what the C
 *  function returns. */
/** The VU of a script's call that sends a request (what names it in
 *  lapi_wait_ok's error): raises "SUBJECT VERB from a scenario's init, run
 *  or finish, ..." while the script loads, when the VU already waits for
 *  something, or when L cannot yield. A halting VU is returned: its caller
 *  halts it (lapi_halt). */
struct vu *lapi_request_vu(lua_State *L, const char *subject, const char *verb, const char *what);
/** Raises "WHAT waits ... cannot be done here" when L cannot yield (a
 *  check function, a sort comparator, a call from C), before a VU is set to
 *  wait: a wait armed there could not be left, and the VU would be stuck
 *  in it. */
void lapi_wait_ok(lua_State *L, const char *what);
/** v is halting (the run stopped; it checked its last response): it yields
 *  to be halted where it asked for its next request (vu_halt), which is
 *  never sent. Returns lua_yield's. */
int lapi_halt(lua_State *L, struct vu *v);

#endif

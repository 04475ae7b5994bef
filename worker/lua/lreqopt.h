/* lreqopt — a request's connection options (reqopt.h) read from a Lua
 * table: a scenario's `request = { ... }` defaults, once when the script
 * loads, and a request's own table, at each request that gives one. The
 * options live in a userdata the GC frees with what it owns.
 *
 * Use:
 *     reqopt *ro = lreqopt_push(L);                // a userdata, freed by the GC
 *     lreqopt_read(L, tbl, dir, 1, ro, run, 1);    // raises a Lua error on a bad option
 * Internal to worker/. */
#ifndef QUERN_LREQOPT_H
#define QUERN_LREQOPT_H

#include <lua.h>

#include "worker/wire/reqopt.h"

/** Pushes a new, empty reqopt userdata (what it owns is freed with it by
 *  the GC) and returns it. */
reqopt *lreqopt_push(lua_State *L);
/** Reads the options of the table at idx into ro: relative paths joined to
 *  dir; with check_files, a file that cannot be read is an error (else
 *  libcurl reports it as the request's technical error). run (may be NULL)
 *  is the run's level: its resolve entries are appended to a list given
 *  here, as the later entries win. With defaults (a scenario's `request`
 *  table), timeout and redirects are read too and any other key is an
 *  error; else keys that are not reqopt's are left to the caller. Raises a
 *  Lua error naming the option on a bad value. */
void lreqopt_read(lua_State *L, int idx, const char *dir, int check_files, reqopt *ro,
                  const reqopt *run, int defaults);
#endif

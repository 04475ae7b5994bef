/* lcookies — the VU's cookie jar, as methods of the table a VU's
 * init/run/finish receive (vu:cookies(), vu:cookie(name), vu:add_cookie,
 * vu:clear_cookies, vu:save_cookies(path), vu:load_cookies(path)).
 *
 * Named for what it binds: every method of the vu table is the jar's; the
 * table's fields (id, run, data, scenario) are made by lcoro.h.
 *
 * The jar is the cookie engine of the libcurl handle the VU holds, kept as
 * text while it holds none (cookiejar.h). It persists
 * across runs unless the scenario says cookies = "reset", and can be saved to
 * and loaded from a file (Netscape cookie-file format, as curl and browsers
 * export) so a session survives from one test run to the next.
 *
 * Use: lcookies_push_metatable() when the state is made (lscript.h) and on
 * each new vu table (lcoro.h). Internal to worker/. */
#ifndef QUERN_LCOOKIES_H
#define QUERN_LCOOKIES_H

#include <lua.h>

/** Pushes the metatable of vu tables (its __index holds the cookie
 *  methods), creating it the first time. */
void lcookies_push_metatable(lua_State *L);

#endif

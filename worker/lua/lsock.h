/* lsock — TCP sockets from Lua: step:tcp(host, port, opts) and the
 * connection object it returns (c:send, c:receive, c:receive_until,
 * c:fail, c:close, c.closed, c.error).
 *
 * step:tcp yields the VU while libcurl connects (and does TLS: sock.h);
 * the connect is the step's sample, timed like a request, and a refused
 * one is a technical error raised as a failed check is. c:receive and
 * c:receive_until yield until their piece (rdframe.h), the timeout or the
 * connection's end; c:send until the socket took every byte. The VU's
 * connections close when its phase ends. Protocols are written on this in
 * Lua (worker/lua/mods/).
 *
 * Use: lsock_register() when the Step metatable is made (lquern.h).
 * Internal to worker/. */
#ifndef QUERN_LSOCK_H
#define QUERN_LSOCK_H

#include <lua.h>

/** Registers step:tcp into the methods table at index methods, and creates
 *  the connections' metatable. */
void lsock_register(lua_State *L, int methods);

#endif

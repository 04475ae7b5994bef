/* lwebsocket — WebSockets from Lua: step:ws(url, opts) and the connection
 * object it returns (c:send, c:receive, c:close, c.protocol).
 *
 * step:ws yields the VU while libcurl connects and the upgrade is
 * exchanged (websocket.h); the handshake is the step's sample, timed like a
 * request, and a refused one (a 404, a wrong Sec-WebSocket-Accept, no
 * connection) is a technical error raised as a failed check is. c:receive
 * yields until a message, its timeout or the connection's end. The VU's
 * connections close when its phase (init, run, finish) ends.
 *
 * Use: lwebsocket_register() when the Step metatable is made (lquern.h).
 * Internal to worker/. */
#ifndef QUERN_LWEBSOCKET_H
#define QUERN_LWEBSOCKET_H

#include <lua.h>

/** Registers step:ws into the methods table at index methods, and creates
 *  the connections' metatable. */
void lwebsocket_register(lua_State *L, int methods);

#endif

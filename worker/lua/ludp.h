/* ludp — UDP sockets from Lua: step:udp(host, port, opts) and the socket
 * object it returns (u:send, u:receive, u:fail, u:close, u.closed,
 * u.error).
 *
 * step:udp makes a socket connected to one peer at once (dgram.h): no
 * wait, and no sample, since nothing went on the network; exchanges are
 * timed with step:time. u:receive yields until a datagram, the timeout or
 * the peer's refusal (an ICMP answer); u:send until the socket takes the
 * datagram. The VU's sockets close when its phase ends.
 *
 * Use: ludp_register() when the Step metatable is made (lquern.h).
 * Internal to worker/. */
#ifndef QUERN_LUDP_H
#define QUERN_LUDP_H

#include <lua.h>

/** Registers step:udp into the methods table at index methods, and creates
 *  the sockets' metatable. */
void ludp_register(lua_State *L, int methods);

#endif

/* lgstream — a gRPC stream from Lua: what step:grpc_stream returns
 * (s:messages(), s:send, s:close_send, s:finish, s:expect, s:close,
 * s.status, s.count, ...).
 *
 * step:grpc_stream (lgrpc.c) starts the call on a handle of its own
 * (gstream.h) and yields the VU until the reply's headers are in (a server
 * stream) or its request is out (a method that streams from the client):
 * that is the step's sample. s:messages() is a for-loop iterator that
 * yields the VU until the next message or the end; leaving the loop early
 * (break, an error) closes the stream, which cancels the call, as s:close()
 * and the end of the VU's phase do. s:send queues a message without
 * waiting; s:finish half-closes and waits for the end. The stream's status
 * is classed when it ends (gstream_end): one s:expect did not accept is a
 * technical error.
 *
 * Use: lgstream_register() once (lgrpc_register); lgstream_start from
 * step:grpc_stream once its sample began. Internal to worker/. */
#ifndef QUERN_LGSTREAM_H
#define QUERN_LGSTREAM_H

#include <lua.h>

struct vu;
struct pbmethod;
struct pbschema;

/** Stack as step_grpc's (1 step, 2 target, 3 method, 4 request, 5 opts,
 *  6 the body, 7 the connection options, 8 the method): starts the stream
 *  of method m (schema s borrowed, the state's) and yields; the VU resumes
 *  with the stream object. Returns what the C function returns. */
int lgstream_start(lua_State *L, struct vu *v, const struct pbmethod *m, struct pbschema *s);
/** Creates the streams' metatable. */
void lgstream_register(lua_State *L);

#endif

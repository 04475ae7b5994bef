/* lgrpc — gRPC from Lua: the `quern.grpc` module (grpc.load at load time)
 * and the step methods step:grpc(target, "pkg.Service/Method", request,
 * opts) for unary calls and step:grpc_stream(...) for server streams (read
 * to their end, then walked with s:messages()).
 *
 * grpc.load reads a descriptor set (a .pb file, or the one the console
 * compiled from a .proto and shipped in the bundle under
 * LGRPC_DIR/NAME.pb; with none there, it runs protoc itself, as the
 * console's check of the script does). The schema is indexed once per
 * worker (worker/pbschema) and kept in the Lua registry. A call is an
 * HTTP/2 POST on the VU's libcurl handle, timed and counted as an HTTP
 * step is; its status, reply message, headers and trailers make the
 * response table (docs/scenarios.md).
 *
 * Use: lgrpc_open as package.preload["quern.grpc"] (lscript.c);
 * lgrpc_register(L, methods) with the step methods (lquern.c). Internal to
 * worker/. */
#ifndef QUERN_LGRPC_H
#define QUERN_LGRPC_H

#include <lua.h>

/** Folder of the bundle where the console puts the descriptor sets it
 *  compiled: LGRPC_DIR "/" + the .proto's path + ".pb". */
#define LGRPC_DIR "quern-grpc"

/** The i-th descriptor set grpc.load compiled with protoc in this state
 *  (none when the bundle had them): 1 with its bundle path (LGRPC_DIR/...)
 *  and bytes, borrowed from the state; 0 past the last. */
int lgrpc_made(lua_State *L, size_t i, const char **path, const void **data, size_t *len);
/** Pushes the quern.grpc module table. */
int lgrpc_open(lua_State *L);
/** Sets grpc and grpc_stream into the step methods table at index methods. */
void lgrpc_register(lua_State *L, int methods);

#endif

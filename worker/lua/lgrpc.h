/* lgrpc — gRPC from Lua: the `quern.grpc` module (grpc.load at load time)
 * and the step methods step:grpc(target, "pkg.Service/Method", request,
 * opts) for unary calls and step:grpc_stream(...) for streams
 * (worker/lgstream: live, walked with s:messages() as messages come; a
 * method that streams from the client takes s:send).
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

#include <curl/curl.h>
#include <lua.h>
#include <stddef.h>
#include <stdint.h>

struct vu;
struct grpczip;
struct pbbuf;

/** Folder of the bundle where the console puts the descriptor sets it
 *  compiled: LGRPC_DIR "/" + the .proto's path + ".pb". */
#define LGRPC_DIR "quern-grpc"

/** The i-th descriptor set grpc.load compiled with protoc in this state
 *  (none when the bundle had them): 1 with its bundle path (LGRPC_DIR/...)
 *  and bytes, borrowed from the state; 0 past the last. */
int lgrpc_made(lua_State *L, size_t i, const char **path, const void **data, size_t *len);
/** Pushes the quern.grpc module table. */
int lgrpc_open(lua_State *L);
/** For a call's stack (1 step, 2 target, 3 method, 4 request, 5 opts|nil):
 *  its request header lines (metadata, grpc-timeout; owned by the caller),
 *  its URL into url, libcurl's bound on the call in *curl_ms (the deadline
 *  and a margin, else the scenario's request timeout, else 60 s) and
 *  *deadline 1 when the call has one. Raises on bad metadata. */
struct curl_slist *lgrpc_prepare(lua_State *L, struct vu *v, char *url, size_t urllen,
                                 long *curl_ms, int *deadline);
/** The state's gzip context (grpczip.h), made on first use; owned by the
 *  state (freed with its schema). */
struct grpczip *lgrpc_zip(lua_State *L);
/** 1 when the call's options (at 5, or none) say compression = "gzip";
 *  raises on a value but "gzip" and "identity". */
int lgrpc_gzip(lua_State *L);
/** The message b, gzipped when gzip: its 5-byte prefix into pre, its bytes
 *  at *msg, *n (b's, or the state's gzip buffer until its next use). 0, or
 *  -1 with err set. */
int lgrpc_frame(lua_State *L, int gzip, const struct pbbuf *b, uint8_t pre[5], const uint8_t **msg,
                size_t *n, char *err, size_t errlen);
/** Inflates the compressed message *msg, *n in place of it (the state's
 *  buffer, until its next use): GRPC_OK, RESOURCE_EXHAUSTED past
 *  GRPC_MSG_MAX once inflated (err says so), INTERNAL when it is not gzip. */
int lgrpc_inflate(lua_State *L, const uint8_t **msg, size_t *n, char *err, size_t errlen);
/** Pushes the header lines of [p, end) as a table, names in lower case;
 *  a -bin key's value decoded from base64. */
void lgrpc_push_headers(lua_State *L, const char *p, const char *end);
/** The gRPC status at idx: a name ("NOT_FOUND") or a number; raises otherwise. */
int lgrpc_status_arg(lua_State *L, int idx);
/** Sets grpc and grpc_stream into the step methods table at index methods. */
void lgrpc_register(lua_State *L, int methods);

#endif

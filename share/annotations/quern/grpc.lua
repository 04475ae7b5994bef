---@meta
-- quern.grpc and the gRPC calls of steps (docs/scenarios.md, "gRPC").

---@alias quern.GrpcStatus integer|"OK"|"CANCELLED"|"UNKNOWN"|"INVALID_ARGUMENT"|"DEADLINE_EXCEEDED"|"NOT_FOUND"|"ALREADY_EXISTS"|"PERMISSION_DENIED"|"RESOURCE_EXHAUSTED"|"FAILED_PRECONDITION"|"ABORTED"|"OUT_OF_RANGE"|"UNIMPLEMENTED"|"INTERNAL"|"UNAVAILABLE"|"DATA_LOSS"|"UNAUTHENTICATED"

---Options of a gRPC call.
---@class quern.GrpcOptions
---@field metadata? table<string, string> Header names and values sent with the call: text, or bytes for a name ending in `-bin` (base64 on the wire, at most 6000 bytes).
---@field timeout? quern.Duration Sent as `grpc-timeout`; past it the call ends as `DEADLINE_EXCEEDED`.
---@field compression? "gzip"|"identity" `"gzip"`: the request's messages are sent gzipped (`grpc-encoding: gzip`). Replies may come gzipped either way.
---@field tls? quern.TlsOptions
---@field resolve? string[]
---@field connect_timeout? quern.Duration

---The response of a unary call (a plain table).
---@class quern.GrpcResponse
---@field status integer The gRPC status (0 OK).
---@field status_name string Its name: `"OK"`, `"NOT_FOUND"`, ...
---@field error string? `grpc-message` (or why the call failed) when the status is not OK.
---@field message table? The reply, when OK, fields by name.
---@field headers table<string, string> The reply's headers, names in lower case.
---@field trailers table<string, string> The reply's trailers, names in lower case (a `-bin` one's value decoded: bytes).
---@field time number The call's time in ms.
---@field expect fun(self: quern.GrpcResponse, status: quern.GrpcStatus|quern.GrpcStatus[]): quern.GrpcResponse Accepts a status by name or number, or a list: that status is then no error.

---A live stream (server, client or bidirectional): messages reach the script
---as they arrive; a method that streams from the client takes `s:send`.
---@class quern.GrpcStream
---@field status integer? The gRPC status, `nil` while the stream is open.
---@field status_name string? Its name, `nil` while open; `"CANCELLED"` once the script or the VU's end closed it.
---@field error string? `grpc-message` (or why the call failed) once ended with a status not OK.
---@field count integer Messages received so far.
---@field sent integer Messages sent so far (handed to the connection).
---@field headers table<string, string> The reply's headers, names in lower case.
---@field trailers table<string, string> Its trailers, once ended.
---@field time number The sample's time in ms: to the reply's headers (a server stream), or until the request is out (a stream that sends).
local GrpcStream = {}

---Iterates over the messages: each turn takes the next one received or yields
---the VU until it comes; the loop ends with the stream. Leaving the loop early
---(break, an error) cancels the call.
---@return fun(): table?
---@return quern.GrpcStream
---@return nil
---@return quern.GrpcStream
function GrpcStream:messages() end

---The next message, waiting for it; `nil` at the end.
---@return table?
function GrpcStream:next() end

---Cancels the call if it is still open (no error).
function GrpcStream:close() end

---Cancels the call if it is still open (no error): `s:close()` by another name.
function GrpcStream:cancel() end

---Queues a message to send (a method that streams from the client); it goes
---out as the connection takes it, without waiting. `false` when the call is
---over (its status says why). More than 1024 messages or 16 MiB waiting to be
---sent is a technical error, raised.
---@param message table
---@return boolean
function GrpcStream:send(message) end

---The client's half-close: no more messages; the server sees the end of the
---requests once those queued are out.
---@return quern.GrpcStream
function GrpcStream:close_send() end

---Half-closes (a method that streams from the client), waits for the call's
---end and returns the messages not read yet: a client stream's one reply.
---@return table? ...
function GrpcStream:finish() end

---Before the end: the statuses the stream may end with without error; after
---it, as a unary response's `expect`.
---@param status quern.GrpcStatus|quern.GrpcStatus[]
---@return quern.GrpcStream
function GrpcStream:expect(status) end

---@class quern.grpc
local grpc = {}

---Reads the services and messages of `.proto` files (paths inside the
---script's folder) or descriptor sets (`.pb`), at load time.
---@param file string
---@param ... string
function grpc.load(file, ...) end

---@class quern.Step
local Step = {}

---A unary call, `"pkg.Service/Method"`, to `http://host:port` (h2c) or
---`https://host:port`; the call is the step's sample. A status the step does
---not expect (by default any but OK) is a technical error.
---@param target string
---@param method string
---@param request table
---@param opts? quern.GrpcOptions
---@return quern.GrpcResponse
function Step:grpc(target, method, request, opts) end

---A streaming call. A server stream: the VU yields until the reply's headers,
---the step's sample, and gets the stream, live (`s:messages()`). A client or
---bidirectional stream: `request` (or `nil`) is its first message, the VU
---yields until the request is out, the step's sample; then `s:send`,
---`s:close_send`, `s:next`, `s:finish`.
---@param target string
---@param method string
---@param request table?
---@param opts? quern.GrpcOptions
---@return quern.GrpcStream
function Step:grpc_stream(target, method, request, opts) end

return grpc

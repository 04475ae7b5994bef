---@meta
-- quern.grpc and the gRPC calls of steps (docs/scenarios.md, "gRPC").

---@alias quern.GrpcStatus integer|"OK"|"CANCELLED"|"UNKNOWN"|"INVALID_ARGUMENT"|"DEADLINE_EXCEEDED"|"NOT_FOUND"|"ALREADY_EXISTS"|"PERMISSION_DENIED"|"RESOURCE_EXHAUSTED"|"FAILED_PRECONDITION"|"ABORTED"|"OUT_OF_RANGE"|"UNIMPLEMENTED"|"INTERNAL"|"UNAVAILABLE"|"DATA_LOSS"|"UNAUTHENTICATED"

---Options of a gRPC call.
---@class quern.GrpcOptions
---@field metadata? table<string, string> Header names and text values sent with the call.
---@field timeout? quern.Duration Sent as `grpc-timeout`; past it the call ends as `DEADLINE_EXCEEDED`.
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
---@field trailers table<string, string> The reply's trailers, names in lower case.
---@field time number The call's time in ms.
---@field expect fun(self: quern.GrpcResponse, status: quern.GrpcStatus|quern.GrpcStatus[]): quern.GrpcResponse Accepts a status by name or number, or a list: that status is then no error.

---A live server stream: messages reach the script as they arrive.
---@class quern.GrpcStream
---@field status integer? The gRPC status, `nil` while the stream is open.
---@field status_name string? Its name, `nil` while open; `"CANCELLED"` once the script or the VU's end closed it.
---@field error string? `grpc-message` (or why the call failed) once ended with a status not OK.
---@field count integer Messages received so far.
---@field headers table<string, string> The reply's headers, names in lower case.
---@field trailers table<string, string> Its trailers, once ended.
---@field time number The sample's time in ms: to the reply's headers.
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

---A server-streaming call; the VU yields until the reply's headers, the
---step's sample, and gets the stream, live (`s:messages()`).
---@param target string
---@param method string
---@param request table
---@param opts? quern.GrpcOptions
---@return quern.GrpcStream
function Step:grpc_stream(target, method, request, opts) end

return grpc
